"""KernelSignature: a frozen record of names that prints as Paddle prints it."""

from __future__ import annotations

import attrs
import pytest

from argmap import UNREGISTERED, KernelSignature
from phi.core.errors import InvalidArgument

PRINTED = [
    (KernelSignature("scale", ["X"], ["scale", "bias", "bias_after_scale"], ["Out"]),
     "name: scale; inputs: X; attributes: scale, bias, bias_after_scale; outputs: Out"),
    (KernelSignature("full", [], ["shape", "value", "dtype"], ["Out"]),
     "name: full; inputs: ; attributes: shape, value, dtype; outputs: Out"),
    (KernelSignature("add", ("X", "Y"), (), ("Out",)),
     "name: add; inputs: X, Y; attributes: ; outputs: Out"),
    (UNREGISTERED, "name: unregistered; inputs: ; attributes: ; outputs: "),
]


@pytest.mark.parametrize(("sig", "text"), PRINTED, ids=[t for _, t in PRINTED])
def test_prints_as_paddle_and_parses_back(sig: KernelSignature, text: str) -> None:
    assert str(sig) == text
    assert KernelSignature.parse(text) == sig


def test_is_frozen_hashable_and_holds_tuples() -> None:
    sig = KernelSignature("scale", ["X"], ["scale"], ["Out"])
    assert sig.inputs == ("X",) and isinstance(sig.attrs, tuple)
    assert sig == KernelSignature("scale", ("X",), ("scale",), ("Out",))
    assert len({sig, KernelSignature("scale", ("X",), ("scale",), ("Out",))}) == 1
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        sig.name = "other"  # type: ignore[misc]


@pytest.mark.parametrize("bad", [
    lambda: KernelSignature("", ["X"]),
    lambda: KernelSignature("scale", "X"),  # a str is not a list of names
    lambda: KernelSignature("scale", ["X", ""]),
    lambda: KernelSignature("scale", [1]),  # type: ignore[list-item]
])
def test_rejects_malformed_names(bad) -> None:
    with pytest.raises(InvalidArgument):
        bad()


@pytest.mark.parametrize("text", ["scale X Out", "name: scale; inputs: X; outputs: Out",
                                  "kernel: scale; inputs: X; attributes: ; outputs: Out"])
def test_parse_rejects_other_text(text: str) -> None:
    with pytest.raises(InvalidArgument):
        KernelSignature.parse(text)


def test_unregistered() -> None:
    assert UNREGISTERED.is_unregistered
    assert not KernelSignature("scale").is_unregistered
