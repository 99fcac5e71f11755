"""DataLayout with Paddle 2.6.2's numbers (paddle/common/layout.h)."""

from __future__ import annotations

import enum

from phi.core.errors import InvalidArgument

__all__ = ["DataLayout"]


class DataLayout(enum.IntEnum):
    ALL_LAYOUT = 0  # == UNDEFINED == ANY
    NHWC = 1
    NCHW = 2
    NCDHW = 3
    NDHWC = 4
    ONEDNN = 5
    SPARSE_COO = 6
    SPARSE_CSR = 7
    PSTRING_UNION = 8
    STRIDED = 9

    UNDEFINED = 0
    ANY = 0

    # hash as the int (C speed): Enum's default hashes the member name in Python, and
    # these values key every kernel lookup
    __hash__ = int.__hash__

    def __str__(self) -> str:
        if self is DataLayout.ALL_LAYOUT:
            return "Undefined(AnyLayout)"
        return self.name

    @classmethod
    def from_any(cls, value: object) -> DataLayout:
        """A DataLayout, its int, or a name as Paddle's StringToDataLayout accepts it."""
        if isinstance(value, DataLayout):
            return value
        if isinstance(value, int):
            return cls(value)
        if isinstance(value, str):
            name = value.upper()
            name = {"ANYLAYOUT": "ALL_LAYOUT", "MKLDNNLAYOUT": "ONEDNN"}.get(name, name)
            if name in cls.__members__:
                return cls[name]
        raise InvalidArgument(f"Unknown data layout {value!r}.")
