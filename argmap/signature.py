"""KernelSignature: which phi kernel a legacy op calls, and with which of its names.

A signature holds names only — legacy input slots, attribute names (or the input slot a
tensor attribute is read from, e.g. ``ShapeTensor``) and output slots, in the phi kernel's
argument order — never values.  That is what makes every signature a mapping can return
checkable statically (`argmap.check`).
"""

from __future__ import annotations

from collections.abc import Iterable

from phi.core.records import field, frozen

from phi.core.errors import InvalidArgument

__all__ = ["UNREGISTERED", "KernelSignature"]


def _names(value: Iterable[str]) -> tuple[str, ...]:
    # A bare str would silently become a tuple of characters.
    if isinstance(value, str):
        raise InvalidArgument(f"KernelSignature: give a list of names, not the str {value!r}")
    names = tuple(value)
    for name in names:
        if not isinstance(name, str) or not name:
            raise InvalidArgument(f"KernelSignature: every name must be a non-empty str, "
                                  f"got {name!r} in {list(names)!r}")
    return names


def _kernel_name(instance: object, attribute: object, value: str) -> None:
    if not isinstance(value, str) or not value:
        raise InvalidArgument(f"KernelSignature: the kernel name must be a non-empty str, "
                              f"got {value!r}")


@frozen
class KernelSignature:
    """Paddle's ``KernelSignature``: kernel name and the legacy names of its arguments.

    Prints as Paddle's executor logs it::

        name: scale; inputs: X; attributes: scale, bias, bias_after_scale; outputs: Out
    """

    name: str = field(validator=_kernel_name)
    inputs: tuple[str, ...] = field(default=(), converter=_names)
    attrs: tuple[str, ...] = field(default=(), converter=_names)
    outputs: tuple[str, ...] = field(default=(), converter=_names)

    def __str__(self) -> str:
        return (f"name: {self.name}; inputs: {', '.join(self.inputs)}; "
                f"attributes: {', '.join(self.attrs)}; outputs: {', '.join(self.outputs)}")

    @property
    def is_unregistered(self) -> bool:
        """True for Paddle's ``"unregistered"`` answer: no phi kernel for this input kind."""
        return self.name == UNREGISTERED_NAME

    @classmethod
    def parse(cls, text: str) -> KernelSignature:
        """Read the printed form back (``str(parse(s)) == s`` for every printed signature)."""
        fields: dict[str, tuple[str, ...] | str] = {}
        parts = [p.strip() for p in text.strip().split(";")]
        expected = ("name", "inputs", "attributes", "outputs")
        if len(parts) != 4:
            raise InvalidArgument(f"not a kernel signature: {text!r} (expected "
                                  "'name: N; inputs: ...; attributes: ...; outputs: ...')")
        for part, key in zip(parts, expected, strict=False):
            head, sep, rest = part.partition(":")
            if not sep or head.strip() != key:
                raise InvalidArgument(f"not a kernel signature: {text!r} (expected {key!r} "
                                      f"where {part!r} stands)")
            rest = rest.strip()
            if key == "name":
                fields[key] = rest
            else:
                fields[key] = tuple(n.strip() for n in rest.split(",")) if rest else ()
        return cls(fields["name"], fields["inputs"], fields["attributes"],  # type: ignore[arg-type]
                   fields["outputs"])


UNREGISTERED_NAME = "unregistered"

#: What a mapping returns when no phi kernel serves the op for the kinds of its variables
#: (Paddle's ``KernelSignature("unregistered", {}, {}, {})``): the op runs a fluid kernel.
UNREGISTERED = KernelSignature(UNREGISTERED_NAME)
