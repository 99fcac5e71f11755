"""IntArray: a list of ints attribute (a shape, axes, sections) that may come from tensors."""

from __future__ import annotations

from collections.abc import Iterable

from phi.core.errors import InvalidArgument

__all__ = ["IntArray"]


class IntArray:
    """Kernels read ``.data`` (a tuple of Python ints); ``from_tensor`` marks tensor-fed arrays."""

    __slots__ = ("data", "from_tensor")

    def __init__(self, values: object = (), from_tensor: bool = False) -> None:
        if isinstance(values, IntArray):
            data = values.data
        elif isinstance(values, (bool,)) or values is None:
            raise InvalidArgument(f"IntArray expects a list of ints, got {values!r}.")
        elif isinstance(values, int):
            data = (values,)
        else:
            if hasattr(values, "tolist"):  # numpy / cupy arrays
                values = values.tolist()  # type: ignore[union-attr]
                if isinstance(values, int):
                    values = [values]
            if not isinstance(values, Iterable):
                raise InvalidArgument(f"IntArray expects a list of ints, got {values!r}.")
            data = tuple(values)  # type: ignore[arg-type]
            for v in data:
                if isinstance(v, bool) or not isinstance(v, int):
                    try:
                        if int(v) != v:  # type: ignore[call-overload]
                            raise ValueError
                    except (TypeError, ValueError):
                        raise InvalidArgument(
                            f"IntArray expects ints, got {v!r} in {values!r}."
                        ) from None
            data = tuple(int(v) for v in data)  # type: ignore[call-overload]
        self.data: tuple[int, ...] = data
        self.from_tensor = from_tensor

    def __len__(self) -> int:
        return len(self.data)

    def __iter__(self):
        return iter(self.data)

    def __getitem__(self, i):
        return self.data[i]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, IntArray):
            return self.data == other.data
        if isinstance(other, (list, tuple)):
            return self.data == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.data)

    def __repr__(self) -> str:
        return f"IntArray({list(self.data)!r})"
