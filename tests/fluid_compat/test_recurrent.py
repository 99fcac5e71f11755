"""The ``recurrent`` op (the old StaticRNN) and ``recurrent_grad``.

Truth: Paddle 2.6.2 runs of programs built as StaticRNN built them (Paddle 2.6.2 has no StaticRNN
class left; tools/fixtures/gen_lod_array_programs.py builds the op by hand): the inference model
tests/fixtures/models/static_rnn (a tanh RNN with a memory, and a reversed one without) and the
training programs tests/fixtures/lod_array/static_rnn_grad* (recurrent_grad: input, initial
state and parameter grads); and hand-worked running sums, forward and reversed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fluid_compat import Executor, Program, load_inference_model
from fluid_compat.framework import ProgramDesc, VarType
from fluid_compat.framework.scope import Scope
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument, PreconditionNotMet

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
MODEL = FIXTURES / "models" / "static_rnn"
F32 = DataType.FLOAT32


def test_static_rnn_model_matches_paddle():
    meta = json.loads((MODEL / "meta.json").read_text())
    exe, scope = Executor(), Scope()
    program, feed_names, fetches = load_inference_model(str(MODEL / "inference"), exe,
                                                        scope=scope)
    feed = {f["name"]: np.load(MODEL / f["file"]) for f in meta["feeds"]}
    assert sorted(feed) == sorted(feed_names)
    for _ in range(2):  # the planned re-run: the step scopes of the first run are dropped
        outs = exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
        for k, got in enumerate(outs):
            np.testing.assert_allclose(got, np.load(MODEL / f"output_{k}.npy"), rtol=1e-5,
                                       atol=1e-6)


@pytest.mark.parametrize("case", ["static_rnn_grad", "static_rnn_grad_reverse",
                                  "static_rnn_grad_state"])
def test_recurrent_grad_matches_paddle(case):
    d = FIXTURES / "lod_array" / case
    meta = json.loads((d / "meta.json").read_text())
    data = np.load(d / "data.npz")
    program = Program.parse_from_string((d / "program.pb").read_bytes())
    feed = {n: data[f["npz_key"]] for n, f in meta["feeds"].items()}
    assert "recurrent_grad" in meta["ops"]
    exe, scope = Executor(), Scope()
    for _ in range(2):
        outs = exe.run(program, feed=feed, fetch_list=[f["name"] for f in meta["fetches"]],
                       scope=scope)
        for f, got in zip(meta["fetches"], outs, strict=True):
            want = data[f["npz_key"]]
            assert got.shape == want.shape, f["name"]
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=f["name"])
        # recurrent_grad drops the forward's step scopes
        assert all(not kid.kids for kid in scope.kids)


# ---- a running sum, worked by hand ------------------------------------------------------------

def _running_sum(*, reverse=False, is_train=True, states=("h",), second_input=None,
                 write_out=True) -> Program:
    """out[t] = h_t = h_{t-1} + x[t] (h_{-1} = h0): a recurrent op over x [T, B]."""
    desc = ProgramDesc()
    b0 = desc.global_block
    b0.create_var("x", dtype=F32, shape=[-1, 2])
    b0.create_var("h0", dtype=F32, shape=[2])
    b0.create_var("out", dtype=F32, shape=[-1, 2])
    b0.create_var("scopes", type=VarType.STEP_SCOPES)
    b1 = desc.append_block(b0)
    b1.create_var("x", dtype=F32, shape=[2])
    b1.create_var("h_pre", dtype=F32, shape=[2])
    b1.create_var("h", dtype=F32, shape=[2])
    b1.create_var("out", dtype=F32, shape=[2])
    b1.append_op("elementwise_add", {"X": ["h_pre"], "Y": ["x"]}, {"Out": ["h"]}, {"axis": -1})
    if write_out:
        b1.append_op("assign", {"X": ["h"]}, {"Out": ["out"]}, {})
    inputs = ["x"] + ([second_input] if second_input else [])
    if second_input:
        b0.create_var(second_input, dtype=F32, shape=[-1, 2])
    b0.append_op("recurrent", {"inputs": inputs, "initial_states": ["h0"], "parameters": []},
                 {"outputs": ["out"], "step_scopes": ["scopes"]},
                 {"has_states": True, "ex_states": ["h_pre"], "states": list(states),
                  "sub_block": b1.idx, "reverse": reverse, "is_train": is_train})
    return Program(desc)


X = np.arange(8, dtype=np.float32).reshape(4, 2)
H0 = np.array([10, 20], np.float32)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("is_train", [True, False])
def test_running_sum_forward_and_reversed(reverse, is_train):
    exe, scope = Executor(), Scope()
    want = (np.cumsum(X[::-1], axis=0)[::-1] if reverse else np.cumsum(X, axis=0)) + H0
    program = _running_sum(reverse=reverse, is_train=is_train)
    for _ in range(2):
        (out,) = exe.run(program, feed={"x": X, "h0": H0}, fetch_list=["out"], scope=scope)
        np.testing.assert_array_equal(out, want)
        (local,) = scope.kids  # the plan's scope: the step scopes hang under it
        steps = local.find_var("scopes").value
        # one scope per step kept for a backward pass, else two used in turn; never more
        assert len(steps) == (4 if is_train else 2) and list(local.kids) == steps


def test_a_step_input_of_another_length_is_refused():
    program = _running_sum(second_input="y")
    with pytest.raises(InvalidArgument, match=r"recurrent.*`y` \(3\).*\(4\)"):
        Executor().run(program, feed={"x": X, "h0": H0, "y": X[:3]}, fetch_list=["out"],
                       scope=Scope())


def test_memories_must_pair_up():
    with pytest.raises(InvalidArgument, match=r"recurrent.*ex_states \(1\).*states \(2\)"):
        Executor().run(_running_sum(states=("h", "out")), feed={"x": X, "h0": H0},
                       fetch_list=["out"], scope=Scope())


def test_an_output_the_step_block_does_not_compute():
    with pytest.raises(PreconditionNotMet, match=r"recurrent.*no tensor for the output `out`"):
        Executor().run(_running_sum(write_out=False), feed={"x": X, "h0": H0},
                       fetch_list=["out"], scope=Scope())


def test_a_missing_initial_state():
    with pytest.raises(PreconditionNotMet, match=r"memory `h0` \(initial_states\)"):
        Executor().run(_running_sum(), feed={"x": X}, fetch_list=["out"], scope=Scope())


def test_recurrent_grad_without_its_forward():
    desc = ProgramDesc()
    b0 = desc.global_block
    for name in ("x", "h0", "out", "out@GRAD", "x@GRAD", "h0@GRAD"):
        b0.create_var(name, dtype=F32, shape=[-1, 2])
    b0.create_var("scopes", type=VarType.STEP_SCOPES)
    b1 = desc.append_block(b0)
    b1.append_op("assign", {"X": ["out@GRAD"]}, {"Out": ["h@GRAD"]}, {})
    b0.append_op("recurrent_grad",
                 {"inputs": ["x"], "initial_states": ["h0"], "parameters": [],
                  "outputs": ["out"], "outputs@GRAD": ["out@GRAD"], "step_scopes": ["scopes"]},
                 {"inputs@GRAD": ["x@GRAD"], "initial_states@GRAD": ["h0@GRAD"]},
                 {"has_states": True, "ex_states": ["h_pre"], "states": ["h"],
                  "sub_block": b1.idx, "reverse": False, "is_train": True})
    with pytest.raises(PreconditionNotMet, match=r"recurrent_grad.*step scopes `scopes`.*"
                                                 r"forward recurrent op first"):
        Executor().run(Program(desc), feed={"x": X, "h0": H0, "out": X, "out@GRAD": X},
                       fetch_list=["x@GRAD"], scope=Scope())


def test_recurrent_grad_links_the_later_steps_state_grad_over_the_output_grad():
    """The step output is the state h itself: Paddle's RecurrentGradOp links the outside
    h@GRAD slice in first, then (after the last step done) the later step's h_pre@GRAD over it,
    so only the last step's output grad survives, carried back through every step: worked by
    hand, x@GRAD[t] = h0@GRAD = W[T-1] (the order is recurrent_op.cc's)."""
    desc = ProgramDesc()
    b0 = desc.global_block
    for name, shape in (("x", [-1, 2]), ("h0", [2]), ("h", [-1, 2]), ("h@GRAD", [-1, 2]),
                        ("x@GRAD", [-1, 2]), ("h0@GRAD", [2])):
        b0.create_var(name, dtype=F32, shape=shape)
    b0.create_var("scopes", type=VarType.STEP_SCOPES)
    b1 = desc.append_block(b0)
    for name in ("x", "h_pre", "h"):
        b1.create_var(name, dtype=F32, shape=[2])
    b1.append_op("elementwise_add", {"X": ["h_pre"], "Y": ["x"]}, {"Out": ["h"]}, {"axis": -1})
    b2 = desc.append_block(b0)
    for name in ("h_pre@GRAD", "x@GRAD"):
        b2.create_var(name, dtype=F32, shape=[2])
    b2.append_op("elementwise_add_grad", {"Out@GRAD": ["h@GRAD"], "X": ["h_pre"], "Y": ["x"]},
                 {"X@GRAD": ["h_pre@GRAD"], "Y@GRAD": ["x@GRAD"]}, {"axis": -1})
    attrs = {"has_states": True, "ex_states": ["h_pre"], "states": ["h"], "reverse": False,
             "is_train": True}
    b0.append_op("recurrent", {"inputs": ["x"], "initial_states": ["h0"], "parameters": []},
                 {"outputs": ["h"], "step_scopes": ["scopes"]}, {**attrs, "sub_block": b1.idx})
    b0.append_op("recurrent_grad",
                 {"inputs": ["x"], "initial_states": ["h0"], "parameters": [], "outputs": ["h"],
                  "outputs@GRAD": ["h@GRAD"], "step_scopes": ["scopes"]},
                 {"inputs@GRAD": ["x@GRAD"], "initial_states@GRAD": ["h0@GRAD"]},
                 {**attrs, "sub_block": b2.idx})
    w = np.arange(8, dtype=np.float32).reshape(4, 2) + 1
    h, dx, dh0 = Executor().run(Program(desc), feed={"x": X, "h0": H0, "h@GRAD": w},
                                fetch_list=["h", "x@GRAD", "h0@GRAD"], scope=Scope())
    np.testing.assert_array_equal(h, np.cumsum(X, axis=0) + H0)
    np.testing.assert_array_equal(dx, np.tile(w[-1], (4, 1)))
    np.testing.assert_array_equal(dh0, w[-1])
