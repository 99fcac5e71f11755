"""append_backward against Paddle 2.6.2: on each Paddle-made training program (tests/fixtures/
train, tools/fixtures/gen_train_models.py) the bridge's backward pass equals the one
``paddle.static.append_backward`` wrote: the same ops in the same order with the same slots,
variable names (``@RENAME@`` copies and their ``sum``), roles and ``op_role_var``, attribute
names, and gradient variables declared with their forward variables' shapes and dtypes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fluid_compat.backward import append_backward
from fluid_compat.framework.program_desc import ProgramDesc
from phi.core.errors import InvalidArgument, NotFound

TRAIN = Path(__file__).resolve().parents[1] / "fixtures" / "train"
#: training programs with loops or conditions: the bridge's append_backward refuses them
#: (test_training.py checks the refusal and that Paddle's own backward pass runs here)
CONTROL_FLOW = ("while_rnn_sgd", "cond_mlp_sgd")
MODELS = sorted(p.name for p in TRAIN.iterdir() if (p / "backward.pdmodel").is_file()
                and p.name not in CONTROL_FLOW)


def _sig(op):
    return (op.type, {k: tuple(v) for k, v in op.inputs.items()},
            {k: tuple(v) for k, v in op.outputs.items()}, op.attrs.get("op_role"),
            tuple(op.attrs.get("op_role_var") or ()), sorted(op.attrs))


@pytest.mark.parametrize("model", MODELS)
def test_backward_equals_paddles(model):
    fwd = ProgramDesc.load(TRAIN / model / "forward.pdmodel")
    want = ProgramDesc.load(TRAIN / model / "backward.pdmodel")
    meta = json.loads((TRAIN / model / "meta.json").read_text())
    params_grads = append_backward(meta["loss"], program=fwd)
    assert [_sig(o) for o in fwd.global_block.ops] == [_sig(o) for o in want.global_block.ops]
    got_vars = {v.name: (v.shape, v.dtype, v.type) for v in fwd.global_block.vars.values()}
    want_vars = {v.name: (v.shape, v.dtype, v.type) for v in want.global_block.vars.values()}
    assert got_vars == want_vars
    trainable = [p for p in meta["parameters"] if want.global_block.has_var(p + "@GRAD")]
    assert sorted(p for p, _ in params_grads) == trainable
    assert all(g == p + "@GRAD" for p, g in params_grads)


def test_backward_of_a_variable_object_and_with_a_no_grad_set():
    fwd = ProgramDesc.load(TRAIN / "mlp_sgd" / "forward.pdmodel")
    loss = fwd.global_block.var(json.loads((TRAIN / "mlp_sgd" / "meta.json").read_text())["loss"])
    params_grads = append_backward(loss, no_grad_set={"fc_0.w_0"})
    names = {p for p, _ in params_grads}
    assert "fc_0.w_0" not in names and "fc_1.w_0" in names
    # the first layer's mul_grad computes no gradient at all now: neither x's nor fc_0.w_0's
    first_mul_grads = [op for op in fwd.global_block.ops
                       if op.type == "mul_grad" and op.input("X") == ("x",)]
    assert first_mul_grads == []


def test_backward_errors_name_the_problem():
    fwd = ProgramDesc.load(TRAIN / "mlp_sgd" / "forward.pdmodel")
    with pytest.raises(NotFound, match="no_such_loss"):
        append_backward("no_such_loss", program=fwd)
    with pytest.raises(InvalidArgument, match="give the program"):
        append_backward("mean_0.tmp_0")
    with pytest.raises(InvalidArgument, match="no op of block 0 writes"):
        append_backward("x", program=fwd)


def test_ops_without_gradient_emit_no_grad_ops():
    """Paddle registers an EmptyGradOpMaker for shape, arg_max, ...: a backward pass through
    them emits nothing (get_grad_op_desc gives []); an op with no maker at all cannot be on
    a backward path."""
    from opmakers.grad import grad_op_descs

    assert grad_op_descs("shape", {"Input": ["x"]}, {"Out": ["s"]}, {}) == []
    assert grad_op_descs("arg_max", {"X": ["x"]}, {"Out": ["i"]}, {"axis": 0}) == []
    with pytest.raises(NotFound, match="GradOpMaker is not registered"):
        grad_op_descs("no_such_op", {}, {}, {})
