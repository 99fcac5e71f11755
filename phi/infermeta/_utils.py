"""Small helpers shared by the InferMeta modules: attribute unwrapping and dims printing."""

from __future__ import annotations

from collections.abc import Iterable

from phi.core import records

from phi.common.int_array import IntArray
from phi.common.scalar import Scalar

__all__ = [
    "RUNTIME",
    "MetaConfig",
    "check_index_dtype",
    "prod",
    "set_meta",
    "fmt_dims",
    "int_array_data",
    "is_compile_time_tensor_attr",
    "decided_by_kernel",
    "scalar_value",
    "share_lod_if_same_dim0",
]

UNKNOWN = -1
"""A dimension whose size is not known at compile time (fluid VarDesc shapes)."""


@records.frozen
class MetaConfig:
    """Paddle's ``MetaConfig``: whether InferMeta runs at run time or at compile time.

    At compile time (fluid InferShape on a VarDesc) dims may be -1 and attributes that come from
    tensors (ShapeTensor, AxisTensor ...) carry no values yet; the functions then fill what they
    can and leave the rest -1, as Paddle's ``!config.is_runtime`` branches do.
    """

    is_runtime: bool = True
    is_run_mkldnn_kernel: bool = False


RUNTIME = MetaConfig()


def fmt_dims(dims: Iterable[int]) -> str:
    """Dims as Paddle prints a DDim inside brackets: ``[2, 3]``."""
    return "[" + ", ".join(str(int(d)) for d in dims) + "]"


def int_array_data(value: object) -> tuple[int, ...]:
    """The ints of an IntArray attribute (also accepts a plain list/tuple or int)."""
    if isinstance(value, IntArray):
        return value.data
    if isinstance(value, int):
        return (value,)
    return tuple(int(v) for v in value)  # type: ignore[union-attr]


def scalar_value(value: object) -> object:
    """The Python number of a Scalar attribute (also accepts a plain number)."""
    return value.value if isinstance(value, Scalar) else value


def is_compile_time_tensor_attr(value: object, config: MetaConfig | None) -> bool:
    """A Scalar/IntArray fed by a tensor while InferMeta runs at compile time: no values yet."""
    runtime = config is None or config.is_runtime
    return (not runtime) and bool(getattr(value, "from_tensor", False))


def decided_by_kernel(shape, dims) -> bool:
    """Whether run-time InferMeta dims ``dims`` admit the kernel's ``shape``: a -1 means the
    size depends on input values (arange, linspace, unique ...) and the kernel decides it, as
    Paddle's kernels resize their outputs."""
    return len(shape) == len(dims) and all(
        d == -1 or d == s for s, d in zip(shape, dims, strict=True))


def check_index_dtype(op: str, slot: str, meta, allowed=("int32", "int64")) -> None:
    """An index-like input (ids, indices) must be an integer tensor of ``allowed`` dtypes, as
    Paddle's kernels require; raises InvalidArgument naming the op and the slot.  Meta whose
    dtype is not known yet (compile time) passes."""
    from phi.common.data_type import DataType
    from phi.core.errors import InvalidArgument

    dtype = meta.dtype
    if dtype is None or dtype is DataType.UNDEFINED:
        return
    if str(dtype) not in allowed:
        raise InvalidArgument(f"{op}: Input({slot}) holds the wrong type, it holds {dtype}, but "
                              f"desires to be {' or '.join(allowed)}.")


def set_meta(out, dims, dtype, layout=None) -> None:
    """Fill an output MetaTensor (nothing for an absent optional output, ``None``)."""
    if out is None:
        return
    out.set_dims(tuple(dims))
    out.set_dtype(dtype)
    if layout is not None:
        out.set_layout(layout)


def prod(dims) -> int:
    """Product of known dims (1 for none)."""
    n = 1
    for d in dims:
        n *= d
    return n


def share_lod_if_same_dim0(out, x) -> None:
    """Paddle's "only pass LoD when the first dimension of output and Input(X) are the same"
    (squeeze, unsqueeze, flatten, expand, tile, pad): rows kept, sequences kept."""
    if not getattr(x, "lod", ()):
        return  # nothing to pass (kernels reuse InferMeta checks on plain metas)
    if out.dims and x.dims and out.dims[0] == x.dims[0]:
        out.share_lod(x)
