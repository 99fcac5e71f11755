"""Typed errors shared by every layer, named after Paddle's error kinds.

Each error prints as Paddle prints it, ``(NotFound) message``, so that text users search for
looks familiar.  They subclass the closest builtin exception so generic ``except`` clauses keep
working (``except LookupError`` catches NotFound).

This module is a leaf: it imports nothing of ours, which is why opmakers/ (otherwise free of
imports of ours) may use it.
"""

from __future__ import annotations

__all__ = [
    "AlreadyExists",
    "InvalidArgument",
    "NotFound",
    "OutOfRange",
    "PhiError",
    "PreconditionNotMet",
    "Unavailable",
    "Unimplemented",
    "Fatal",
    "kernel_failed",
]


class PhiError(Exception):
    """Base of every error this project raises on purpose."""

    kind = "Error"

    def __str__(self) -> str:
        msg = super().__str__()
        return f"({self.kind}) {msg}"

    @property
    def message(self) -> str:
        """The message without the ``(Kind)`` prefix."""
        return super().__str__()


class NotFound(PhiError, LookupError):
    kind = "NotFound"


class InvalidArgument(PhiError, ValueError):
    kind = "InvalidArgument"


class Unimplemented(PhiError, NotImplementedError):
    kind = "Unimplemented"


class PreconditionNotMet(PhiError, RuntimeError):
    kind = "PreconditionNotMet"


class AlreadyExists(PhiError, KeyError):
    kind = "AlreadyExists"

    def __str__(self) -> str:  # KeyError would repr() the message
        return f"({self.kind}) {self.args[0] if self.args else ''}"


class Unavailable(PhiError, RuntimeError):
    kind = "Unavailable"


class OutOfRange(PhiError, IndexError):
    kind = "OutOfRange"


class Fatal(PhiError, RuntimeError):
    """A kernel failed with an exception of its own (numpy's, Python's): input it did not
    check.  Raised instead of the raw exception, naming the op and the kernel; the raw one is
    its ``__cause__``.  Each occurrence is a missing check to add (tests treat it as a bug)."""

    kind = "Fatal"


def kernel_failed(op_type: str, kernel: str, exc: BaseException) -> Fatal:
    """The Fatal error for `exc` raised inside kernel `kernel` of operator `op_type`."""
    return Fatal(f"Operator `{op_type}`: kernel `{kernel}` failed on its inputs: "
                 f"{type(exc).__name__}: {exc}")
