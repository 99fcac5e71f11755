"""Scalar: a single number attribute that may come from an attribute value or a 1-element tensor."""

from __future__ import annotations

from phi.core.errors import InvalidArgument

__all__ = ["Scalar"]


class Scalar:
    """A bool, int, float or complex value; ``from_tensor`` says whether it was read from a tensor.

    Kernels read ``.value`` (a Python number).  Construction checks the type so that a wrong
    attribute is reported where it enters, not deep inside a kernel.
    """

    __slots__ = ("from_tensor", "value")

    def __init__(self, value: object, from_tensor: bool = False) -> None:
        if isinstance(value, Scalar):
            value = value.value
        elif isinstance(value, str):
            value = _parse_number(value)
        elif not isinstance(value, (bool, int, float, complex)):
            try:  # numpy scalars and 0-d / 1-element arrays
                if getattr(value, "size", 1) != 1:
                    raise InvalidArgument(
                        "The DenseTensor used to construct the Scalar contains more than 1 value,"
                        f" it contains `{value.size}` values."  # type: ignore[attr-defined]
                    )
                value = value.item()  # type: ignore[attr-defined]
            except AttributeError:
                raise InvalidArgument(
                    f"Scalar expects a bool, int, float or complex, got {value!r}."
                ) from None
        self.value = value
        self.from_tensor = from_tensor

    def __float__(self) -> float:
        return float(self.value)  # type: ignore[arg-type]

    def __int__(self) -> int:
        return int(self.value)  # type: ignore[arg-type]

    def __bool__(self) -> bool:
        return bool(self.value)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Scalar):
            return self.value == other.value
        return self.value == other

    def __hash__(self) -> int:
        return hash(self.value)

    def __repr__(self) -> str:
        return f"Scalar({self.value!r})"


def _parse_number(text: str) -> int | float:
    """A Scalar given as a string (fill_constant's ``str_value``): an int when it reads as one,
    else a float ("1e-5", "inf", "-inf", "nan"), as Paddle's Scalar(std::string) converts."""
    stripped = text.strip()
    try:
        return int(stripped)
    except ValueError:
        pass
    try:
        return float(stripped)
    except ValueError:
        raise InvalidArgument(f"Scalar cannot read a number from the string {text!r}.") from None
