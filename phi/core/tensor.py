"""DenseTensor (an array plus its meta) and MetaTensor (meta only, what InferMeta reads and fills).

A DenseTensor holds the array of its device's namespace (numpy on CPU, cupy on GPU, a plug-in
device's own array type) and the meta Paddle keeps beside it: dtype, layout, place and LoD.  Its
dims are the array's shape, so the two can never disagree.

InferMeta functions read ``dims``, ``dtype`` and ``layout`` from their inputs — a DenseTensor,
a MetaTensor or (in fluid_compat) a view of a VarDesc all offer these — and fill output
MetaTensors with ``set_dims`` / ``set_dtype`` / ``set_layout`` / ``share_meta``.
"""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.common.layout import DataLayout
from phi.common.place import CPUPlace, Place

__all__ = ["CPU_PLACE", "DenseTensor", "MetaTensor"]

CPU_PLACE = CPUPlace()


class DenseTensor:
    """An array on one place with Paddle's meta.

    ``data`` is None for a tensor that is declared but not yet allocated (``initialized`` is
    False); such a tensor still carries dims and dtype.
    """

    __slots__ = ("_dims", "data", "dtype", "layout", "lod", "place")

    def __init__(
        self,
        data: object = None,
        dtype: DataType | None = None,
        place: Place = CPU_PLACE,
        layout: DataLayout = DataLayout.NCHW,
        lod: tuple = (),
        dims: tuple[int, ...] | None = None,
    ) -> None:
        if dtype is None:
            dtype = DataType.UNDEFINED if data is None else DataType.from_numpy(
                data.dtype)  # type: ignore[attr-defined]
        self.data = data
        self.dtype = dtype
        self.place = place
        self.layout = layout
        self.lod = lod
        self._dims = dims

    @classmethod
    def from_numpy(cls, array: object, layout: DataLayout = DataLayout.NCHW) -> DenseTensor:
        """Wrap a numpy array (or anything ``np.asarray`` takes) as a CPU tensor, without copy."""
        if type(array) is not np.ndarray:
            array = np.asarray(array)
        return cls(array, DataType.from_numpy(array.dtype), CPU_PLACE, layout)  # type: ignore

    @property
    def dims(self) -> tuple[int, ...]:
        data = self.data
        if data is not None:
            return data.shape  # type: ignore[attr-defined]
        return self._dims if self._dims is not None else ()

    shape = dims

    @property
    def initialized(self) -> bool:
        return self.data is not None

    @property
    def numel(self) -> int:
        n = 1
        for d in self.dims:
            n *= d
        return n

    @property
    def ndim(self) -> int:
        return len(self.dims)

    def numpy(self) -> np.ndarray:
        """The values as a numpy array (copied to the host when the tensor lives elsewhere)."""
        data = self.data
        if type(data) is np.ndarray:
            return data
        if data is None:
            raise ValueError("DenseTensor is not initialized: it holds no data")
        from phi.common.place import context_of  # installed by phi.backends (the device layer)

        return context_of(self.place).to_host(data)

    def __array__(self, dtype=None, copy=None):
        arr = self.numpy()
        if dtype is not None:
            arr = arr.astype(dtype, copy=False)
        return arr

    def __len__(self) -> int:
        dims = self.dims
        if not dims:
            raise TypeError("len() of a 0-d tensor")
        return dims[0]

    def __repr__(self) -> str:
        state = "" if self.initialized else ", uninitialized"
        lod = f", lod={list(map(list, self.lod))}" if self.lod else ""
        values = self._values_text() if self.initialized else ""
        return (
            f"DenseTensor(shape={list(self.dims)}, dtype={self.dtype}, place={self.place}, "
            f"layout={self.layout}{lod}{state}{values})"
        )

    def _values_text(self) -> str:
        """``,\n       values=[...]``: numpy's summary of the values (at most 3 items at each
        end of a dimension once there are more than 30 values, 4 significant decimals)."""
        try:
            array = self.numpy()
        except Exception:  # a repr must not fail (a device gone, a bad array)
            return ""
        indent = " " * len("       values=")
        with np.printoptions(threshold=30, edgeitems=3, precision=4, linewidth=88):
            text = np.array2string(np.asarray(array), separator=", ", prefix=indent)
        return f",\n       values={text}"


class MetaTensor:
    """Dims, dtype, layout and LoD without data: the output side of InferMeta."""

    __slots__ = ("dims", "dtype", "layout", "lod")

    def __init__(
        self,
        dims: tuple[int, ...] = (),
        dtype: DataType = DataType.UNDEFINED,
        layout: DataLayout = DataLayout.NCHW,
    ) -> None:
        self.dims = dims
        self.dtype = dtype
        self.layout = layout
        self.lod = ()

    def set_dims(self, dims) -> None:
        self.dims = tuple(dims)

    def set_dtype(self, dtype: DataType) -> None:
        self.dtype = dtype

    def set_layout(self, layout: DataLayout) -> None:
        self.layout = layout

    def share_meta(self, other) -> None:
        """Copy dims, dtype, layout and LoD of ``other`` (Paddle's ShareMeta)."""
        self.dims = tuple(other.dims)
        self.dtype = other.dtype
        self.layout = other.layout
        self.lod = getattr(other, "lod", ())

    def share_lod(self, other) -> None:
        """Take the LoD of ``other`` (Paddle's share_lod: the output keeps the input's
        sequences); nothing at compile time or for a missing input."""
        if other is not None:
            self.lod = getattr(other, "lod", ())

    @property
    def numel(self) -> int:
        n = 1
        for d in self.dims:
            n *= d
        return n

    def __repr__(self) -> str:
        return f"MetaTensor(dims={list(self.dims)}, dtype={self.dtype}, layout={self.layout})"
