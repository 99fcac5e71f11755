"""Pinning ops to fluid or phi kernels: Executor option, FLAGS_kernel_pins, ``run --pin``;
a pin to a side without a kernel is refused when the program is planned."""

from __future__ import annotations

import numpy as np
import pytest

import phi
from fluid_compat import Executor, load_inference_model
from fluid_compat.cli import main
from fluid_compat.framework.op_registry import create_op
from fluid_compat.framework.scope import Scope
from fluid_compat.operators.pinning import check_pin
from fluid_compat.tools.compare import load_case
from phi.core.errors import InvalidArgument, PreconditionNotMet

from .toolslib import SINGLE_OPS, corpus_model, model_prefix


def _load(prefix):
    scope = Scope()
    program, feeds, fetches = load_inference_model(prefix, scope=scope)
    feed = {n: np.load(prefix.parent / f"input_{n}.npy") for n in feeds}
    return program, feed, fetches, scope


def _sides(exe) -> dict[str, set[str]]:
    sides: dict[str, set[str]] = {}
    for op in exe._last_plan.ops:
        sides.setdefault(op.type, set()).add("phi" if op.last_choice.is_phi else "fluid")
    return sides


def _reference(prefix):
    return np.load(prefix.parent / "output_0.npy")


@pytest.mark.parametrize("pins", [{"relu": "fluid"}, "relu=fluid,conv2d=fluid",
                                  {"relu": "fluid", "*": "phi"}])
def test_pin_some_ops_to_fluid(pins):
    prefix = model_prefix("example")
    program, feed, fetches, scope = _load(prefix)
    exe = Executor(pins=pins)
    (out,) = exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
    sides = _sides(exe)
    assert sides["relu"] == {"fluid"} and sides["hard_swish"] == {"phi"}
    np.testing.assert_allclose(out, _reference(prefix), rtol=1e-4, atol=1e-4)
    relu = next(op for op in exe._last_plan.ops if op.type == "relu")
    assert relu.last_choice.records[0] == ("pin", "pinned to fluid kernels")


def test_pin_everything_both_ways():
    prefix = corpus_model("mlp")  # every op of the mlp has both kernels
    program, feed, fetches, scope = _load(prefix)
    results = {}
    for side in ("fluid", "phi"):
        exe = Executor(pins=f"*={side}")
        results[side] = exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
        assert set().union(*_sides(exe).values()) == {side}
        s = exe.last_stats
        assert (s.phi if side == "phi" else s.fluid) == s.ops
    for a, b in zip(results["fluid"], results["phi"], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_pins_from_the_flag():
    prefix = model_prefix("example")
    program, feed, fetches, scope = _load(prefix)
    phi.set_flags({"FLAGS_kernel_pins": "relu=fluid,pool2d=fluid"})
    try:
        exe = Executor()
        exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
    finally:
        phi.set_flags({"FLAGS_kernel_pins": ""})
    sides = _sides(exe)
    assert sides["relu"] == sides["pool2d"] == {"fluid"} and sides["conv2d"] == {"phi"}
    # an explicit pin wins over the flag
    phi.set_flags({"FLAGS_kernel_pins": "relu=fluid"})
    try:
        exe = Executor(pins={"relu": "phi"})
        exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
    finally:
        phi.set_flags({"FLAGS_kernel_pins": ""})
    assert _sides(exe)["relu"] == {"phi"}


def test_pin_to_a_side_without_kernel_is_refused_at_plan_time():
    prefix = model_prefix("example")
    program, feed, fetches, scope = _load(prefix)
    exe = Executor(pins={"hard_swish": "fluid"})
    with pytest.raises(PreconditionNotMet, match=r"op #9 `hard_swish` is pinned to fluid, but "
                                                 r"`hard_swish` has no fluid kernel"):
        exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
    assert exe.plans() == []  # nothing planned, nothing ran
    with pytest.raises(PreconditionNotMet, match="`reshape2` has no fluid kernel"):
        Executor(pins="*=fluid").run(program, feed=feed, fetch_list=fetches, scope=scope)
    # matmul (v1) is a deprecated name: fluid only, so a phi pin is refused
    op = create_op("matmul", {"X": ["x"], "Y": ["y"]}, {"Out": ["o"]}, {})
    with pytest.raises(PreconditionNotMet, match="`matmul` has no phi kernel"):
        check_pin(op, "phi", "op #0 `matmul`")
    with pytest.raises(InvalidArgument, match="the side must be one of phi, fluid"):
        Executor(pins={"relu": "cuda"})


def test_pin_matmul_v1_case_to_phi_is_refused():
    path = SINGLE_OPS / "matmul_v1_vec.json"
    if not path.is_file():
        pytest.skip("corpus absent")
    case = load_case(path)
    with pytest.raises(PreconditionNotMet, match="pinned to phi, but `matmul` has no phi kernel"):
        Executor(pins={"matmul": "phi"}).run(case.program, feed=case.feed,
                                             fetch_list=list(case.expected), scope=Scope())
    exe = Executor(pins={"matmul": "fluid"})
    exe.run(case.program, feed=case.feed, fetch_list=list(case.expected), scope=Scope())
    assert exe.last_stats.fluid == 1


def test_run_pin_option(capsys):
    assert main(["run", "--example", "--pin", "relu=fluid", "--pin", "pool2d=fluid"]) == 0
    out = capsys.readouterr().out
    assert "ops: 15 ran: 13 on phi kernels, 2 on fluid kernels, 0 fell back to CPU" in out
    assert "pins: relu=fluid, pool2d=fluid" in out
    assert "output 0: matches Paddle's recorded output" in out
    assert main(["run", "--example", "--pin", "*=phi"]) == 0
    assert "15 on phi kernels, 0 on fluid kernels" in capsys.readouterr().out
    assert main(["run", "--example", "--pin", "hard_swish=fluid"]) == 1
    assert "`hard_swish` is pinned to fluid, but `hard_swish` has no fluid kernel" in (
        capsys.readouterr().err)
    # a malformed pin is an error of the command line (2), found before the run
    assert main(["run", "--example", "--pin", "relu"]) == 2
    assert "--pin expects OP=SIDE" in capsys.readouterr().err
    assert main(["run", "--example", "--pin", "relu=gpu"]) == 2
    assert "the side must be one of phi, fluid" in capsys.readouterr().err
