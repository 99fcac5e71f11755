"""Attributes given by tensors (AttrType VAR / VARS) in programs saved by Paddle 2.6.2.

Paddle's OpProtos mark 34 attributes ``support_tensor``; a program that gives a Variable for one
holds it as VAR (one tensor's name) or VARS (names of 1-element tensors) and Paddle reads the
tensors at run time.  The fixtures (tests/fixtures/tensor_attrs, made by
tools/fixtures/gen_tensor_attr_models.py with the real Paddle) have one model per attribute, each
with two feed sets of the same input shapes and different attribute values: both runs go through
one Executor (one plan) and must match Paddle's outputs, so a value resolved on the first run
cannot have been kept.  The bad-input tests edit a fixture's program so that the attribute names
a missing variable, a variable without a tensor, or a tensor of the wrong dtype / element count.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fluid_compat import Executor, load_inference_model
from fluid_compat.framework import AttrType, ProgramDesc
from fluid_compat.framework.scope import Scope
from opmakers import VarRef, all_op_types, check_attrs, get_op_proto
from phi.core.errors import InvalidArgument, NotFound, PreconditionNotMet

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tensor_attrs"
CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "meta.json").exists())

#: every (op, attribute) Paddle 2.6.2's OpProtos mark support_tensor (its op_protos.json)
PADDLE_SUPPORT_TENSOR = {
    ("arg_max", "axis"), ("arg_min", "axis"), ("bincount", "minlength"),
    ("conv2d_transpose", "output_size"), ("cumsum", "axis"),
    ("depthwise_conv2d_transpose", "output_size"), ("dropout", "dropout_prob"),
    ("dropout_nd", "dropout_prob"), ("eye", "num_rows"), ("eye", "num_columns"),
    ("fill_any", "value"), ("fill_any_like", "value"), ("frobenius_norm", "dim"),
    ("fused_adam", "beta1"), ("fused_adam", "beta2"), ("fused_adam", "epsilon"),
    ("lstsq", "rcond"), ("merged_adam", "beta1"), ("merged_adam", "beta2"),
    ("merged_adam", "epsilon"), ("multinomial", "num_samples"), ("pad", "pad_value"),
    ("pool2d", "ksize"), ("reduce_max", "dim"), ("reduce_mean", "dim"), ("reduce_min", "dim"),
    ("reduce_prod", "dim"), ("reduce_sum", "dim"), ("reverse", "axis"), ("squeeze2", "axes"),
    ("tile", "repeat_times"), ("uniform_random", "min"), ("uniform_random", "max"),
    ("unpool", "output_size"),
}


def _meta(case: str) -> dict:
    return json.loads((FIXTURES / case / "meta.json").read_text())


def _runs(case: str) -> list[tuple[dict, list]]:
    d = FIXTURES / case
    return [({n: np.load(d / i["file"]) for n, i in run["inputs"].items()},
             [np.load(d / i["file"]) for i in run["outputs"]]) for run in _meta(case)["runs"]]


def _load(case: str):
    scope = Scope()
    program, _, fetches = load_inference_model(FIXTURES / case / "inference", scope=scope)
    return program, fetches, scope


def _op(program, op_type: str):
    return next(op for op in program.desc.global_block.ops if op.type == op_type)


# -- the attributes and the fixtures --------------------------------------------------------------

def test_opmakers_support_tensor_flags_are_paddles():
    ours = {(t, a.name) for t in all_op_types() for a in get_op_proto(t).attrs
            if a.support_tensor}
    assert ours == PADDLE_SUPPORT_TENSOR


def test_every_support_tensor_attribute_has_a_paddle_case():
    covered = {(op, attr) for case in CASES for op, attr, _ in _meta(case)["tensor_attrs"]}
    assert covered == PADDLE_SUPPORT_TENSOR
    kinds = {kind for case in CASES for _, _, kind in _meta(case)["tensor_attrs"]}
    assert kinds == {"VAR", "VARS"}


def test_fixtures_are_small():
    total = sum(f.stat().st_size for f in FIXTURES.rglob("*") if f.is_file())
    assert total < 450 * 1024, total


@pytest.mark.parametrize("case", CASES)
def test_var_attributes_read_and_round_trip(case):
    data = (FIXTURES / case / "inference.pdmodel").read_bytes()
    desc = ProgramDesc.parse_from_string(data)
    assert desc.serialize_to_string() == data  # parse -> serialize gives Paddle's bytes back
    block = desc.global_block
    for op_type, attr, kind in _meta(case)["tensor_attrs"]:
        op = next(o for o in block.ops if o.type == op_type)
        assert op.attr_type(attr) == AttrType[kind]
        value = op.attr(attr)
        refs = (value,) if kind == "VAR" else value
        if kind == "VAR":
            assert isinstance(value, VarRef)
        else:
            assert isinstance(value, tuple) and len(value) > 1
        for ref in refs:
            assert isinstance(ref, VarRef) and block.find_var(ref.name) is not None
    # set back through the API (a VarRef / list of VarRefs infers VAR / VARS): same bytes
    for op_type, attr, _ in _meta(case)["tensor_attrs"]:
        op = next(o for o in block.ops if o.type == op_type)
        value = op.attr(attr)
        op.set_attr(attr, list(value) if isinstance(value, tuple) else value)
    assert desc.serialize_to_string() == data


def test_input_arg_names_with_attribute_variables():
    desc = ProgramDesc.parse_from_string(
        (FIXTURES / "unpool__output_size" / "inference.pdmodel").read_bytes())
    unpool = next(o for o in desc.global_block.ops if o.type == "unpool")
    plain = unpool.input_arg_names()
    assert "h" not in plain and "w" not in plain
    assert unpool.input_arg_names(with_attr_var=True) == [*plain, "h", "w"]


# -- running: every case matches Paddle, twice, through one plan ----------------------------------

@pytest.mark.parametrize("case", CASES)
def test_case_matches_paddle_on_both_runs(case):
    program, fetches, scope = _load(case)
    exe = Executor()
    runs = _runs(case)
    assert len(runs) == 2
    for feed, wanted in runs:
        outs = exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
        for got, ref in zip(outs, wanted, strict=True):
            got = np.asarray(got)
            assert got.shape == ref.shape and got.dtype == ref.dtype, (case, got.shape)
            np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6, err_msg=case)
    (f1, _), (f2, _) = runs
    if all(f1[n].shape == f2[n].shape for n in f1):
        # same input shapes: the second run reused the first run's plan and decisions, and
        # still read the attribute's new value (the feeds that hold it differ)
        assert len(exe.plans()) == 1, case
        assert any(not np.array_equal(f1[n], f2[n]) for n in f1)


def test_enet_unpool_output_size_follows_the_input_hw():
    # ENet with dynamic H/W: output_size are two slices of paddle.shape(x)
    program, fetches, scope = _load("unpool__output_size_enet")
    op = _op(program, "unpool")
    assert [r.name for r in op.attr("output_size")] == [
        "shape_0.tmp_0_slice_0", "shape_0.tmp_0_slice_1"]
    exe = Executor()
    for feed, (want,) in _runs("unpool__output_size_enet"):
        (got,) = exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
        assert got.shape[2:] == feed["x"].shape[2:]
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_fluid_kernel_path_reads_the_attribute_from_the_tensors():
    # pool2d has a CPU fluid kernel: pinned to it, ctx.attr("ksize") is read from the VARS
    for case in ("pool2d__ksize", "pool2d__ksize_var_avg"):
        program, fetches, scope = _load(case)
        exe = Executor(pins={"pool2d": "fluid"})
        for feed, (want,) in _runs(case):
            (got,) = exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
            np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=case)
        pool = next(op for op in exe._last_plan.ops if op.type == "pool2d")
        assert not pool.last_choice.is_phi


def test_the_attribute_variables_are_inputs_of_the_operator():
    # as Paddle's OperatorBase: a VAR / VARS attribute is also an input of its name (read each
    # run, and a use of those variables for the executor's bookkeeping)
    program, fetches, scope = _load("reduce_sum__dim_vars")
    exe = Executor()
    feed, _ = _runs("reduce_sum__dim_vars")[0]
    exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
    op = next(o for o in exe._last_plan.ops if o.type == "reduce_sum")
    assert op.attr_vars == {"dim": ("a0", "a1")}
    assert op.inputs["dim"] == ("a0", "a1")
    assert op.last_choice.attr_values is None  # built per run, never planned as a value


# -- bad inputs -----------------------------------------------------------------------------------

def _edited(case: str, op_type: str, attr: str, value, create=None):
    program, fetches, scope = _load(case)
    block = program.desc.global_block
    if create is not None:
        block.create_var(create, dtype="int64", shape=[1])
    _op(program, op_type).set_attr(attr, value)
    program.mark_changed()
    feed, _ = _runs(case)[0]
    return lambda: Executor().run(program, feed=feed, fetch_list=fetches, scope=scope)


def test_attribute_naming_a_missing_variable():
    run = _edited("reduce_sum__dim", "reduce_sum", "dim", VarRef("nowhere"))
    with pytest.raises(NotFound) as err:
        run()
    msg = str(err.value)
    assert "reduce_sum" in msg and "`dim`" in msg and "`nowhere`" in msg


def test_attribute_naming_a_variable_without_a_tensor():
    run = _edited("cumsum__axis", "cumsum", "axis", VarRef("never_written"),
                  create="never_written")
    with pytest.raises(PreconditionNotMet) as err:
        run()
    msg = str(err.value)
    assert "cumsum" in msg and "`axis`" in msg and "`never_written`" in msg


def test_int_array_attribute_from_a_float_tensor():
    run = _edited("reduce_sum__dim", "reduce_sum", "dim", VarRef("x"))  # x: float32 data
    with pytest.raises(InvalidArgument) as err:
        run()
    msg = str(err.value)
    assert "reduce_sum" in msg and "`dim`" in msg and "`x`" in msg and "float32" in msg


def test_vars_attribute_element_with_several_values():
    # VARS: one value per variable; r holds three
    run = _edited("tile__repeat_times_var", "tile", "repeat_times", [VarRef("r"), VarRef("r")])
    with pytest.raises(InvalidArgument) as err:
        run()
    msg = str(err.value)
    assert "tile" in msg and "`repeat_times`" in msg and "`r`" in msg and "3 values" in msg


def test_scalar_attribute_from_a_tensor_of_several_values():
    run = _edited("cumsum__axis", "cumsum", "axis", VarRef("x"))  # 24 values
    with pytest.raises(InvalidArgument) as err:
        run()
    msg = str(err.value)
    assert "cumsum" in msg and "`axis`" in msg and "`x`" in msg and "24 values" in msg


def test_var_for_an_attribute_that_is_not_support_tensor():
    # keep_dim is a plain BOOLEAN in Paddle's OpProto: a Variable there is refused when the
    # operator is made (Paddle's attribute checker refuses it too)
    run = _edited("reduce_sum__dim", "reduce_sum", "keep_dim", VarRef("ax"))
    with pytest.raises(InvalidArgument) as err:
        run()
    msg = str(err.value)
    assert "keep_dim" in msg and "reduce_sum" in msg and "BOOLEAN" in msg


def test_check_attrs_accepts_var_refs_only_where_support_tensor():
    proto = get_op_proto("unpool")
    given = {"ksize": [2, 2], "unpooling_type": "max"}
    out = check_attrs(proto, {**given, "output_size": (VarRef("h"), VarRef("w"))})
    assert out["output_size"] == [VarRef("h"), VarRef("w")]
    with pytest.raises(InvalidArgument, match="'ksize' of operator unpool expects INTS"):
        check_attrs(proto, {**given, "ksize": (VarRef("h"), VarRef("w"))})


def test_a_tensor_fed_attribute_is_never_bound():
    # phi.core.bound hoists attribute conversion out of the call: a Scalar read from a tensor
    # (a VAR attribute, ScaleTensor) changes from run to run, so it gets no bound form
    from phi.backends import get_context
    from phi.common import DataType
    from phi.common.scalar import Scalar
    from phi.core import bound
    from phi.core.tensor import CPU_PLACE
    from phi.kernels.scale import scale_float

    ctx = get_context(CPU_PLACE)
    metas = [(DataType.FLOAT32, (2,))]
    assert bound.bind(scale_float, ctx, [Scalar(2.0), 0.0, True], metas) is not None
    assert bound.bind(scale_float, ctx, [Scalar(2.0, from_tensor=True), 0.0, True],
                      metas) is None


# -- compile time: the attribute is unknown -------------------------------------------------------

def _compile_time_out_dims(case: str):
    """Our compile-time InferMeta of the case's op (VarDesc dims in, the VAR attribute as
    compile_time_attr_var gives it) and the dims Paddle's compile-time InferShape wrote into the
    saved program for the op's first output."""
    import inspect

    import argmap
    from fluid_compat.operators.build import make_operator
    from fluid_compat.operators.context import (
        CompileTimeArgumentMappingContext,
        compile_time_attr_var,
    )
    from phi.api import kernel_infer_meta
    from phi.common import DataType
    from phi.common.int_array import IntArray
    from phi.common.scalar import Scalar
    from phi.core.kernel import ArgKind, AttributeType
    from phi.core.registry import kernel_factory
    from phi.core.tensor import MetaTensor
    from phi.infermeta import MetaConfig

    desc = ProgramDesc.parse_from_string((FIXTURES / case / "inference.pdmodel").read_bytes())
    block = desc.global_block
    op_type = _meta(case)["tensor_attrs"][0][0]
    index, op_desc = next((i, o) for i, o in enumerate(block.ops) if o.type == op_type)
    op = make_operator(index, op_desc)  # attributes checked, defaults filled
    ctx = CompileTimeArgumentMappingContext(op_desc, block)
    sig = argmap.get_kernel_signature(op_type, ctx)
    kdef = next(iter(kernel_factory().kernels_of(sig.name).values())).args_def
    fn, params = kernel_infer_meta(sig.name)

    def meta(name):
        v = block.find_var_recursive(name)
        return MetaTensor(tuple(v.shape), v.dtype)
    ins = []
    for slot, d in zip(sig.inputs, kdef.inputs, strict=True):
        metas = [meta(n) for n in op.inputs.get(slot, ())]
        ins.append(metas if d.kind is ArgKind.VECTOR else (metas[0] if metas else None))
    attrs = []
    for name, d in zip(sig.attrs, kdef.attributes, strict=True):
        kind = "scalar" if d.type is AttributeType.SCALAR else "int_array"
        value = compile_time_attr_var(op_desc, name, kind, block)
        if value is None:
            value = op.attrs[name]
            value = {AttributeType.SCALAR: Scalar, AttributeType.INT_ARRAY: IntArray,
                     AttributeType.DATA_TYPE: lambda v: DataType.from_proto(int(v)),
                     }.get(d.type, lambda v: v)(value)
        attrs.append(value)
    outs = [[MetaTensor() for _ in op_desc.outputs.get(s, ())] if d.kind is ArgKind.VECTOR
            else MetaTensor() for s, d in zip(sig.outputs, kdef.outputs, strict=True)]
    kw = ({"config": MetaConfig(is_runtime=False)}
          if "config" in inspect.signature(fn).parameters else {})
    fn(*[ins[i] if is_input else attrs[i] for is_input, i in params], *outs, **kw)
    first = outs[0][0] if isinstance(outs[0], list) else outs[0]
    paddle_dims = tuple(block.find_var_recursive(op_desc.outputs[sig.outputs[0]][0]).shape)
    return first.dims, paddle_dims


@pytest.mark.parametrize("case", CASES)
def test_compile_time_infer_meta_matches_paddles_var_desc(case):
    ours, paddles = _compile_time_out_dims(case)
    assert ours == paddles, case


def test_compile_time_value_of_a_var_attribute():
    from fluid_compat.operators.context import compile_time_attr_var

    desc = ProgramDesc.parse_from_string(
        (FIXTURES / "tile__repeat_times_var" / "inference.pdmodel").read_bytes())
    block = desc.global_block
    tile = next(o for o in block.ops if o.type == "tile")
    value = compile_time_attr_var(tile, "repeat_times", "int_array", block)
    assert value.data == (-1, -1, -1) and value.from_tensor  # r: int64 [3]
    assert compile_time_attr_var(tile, "X", "int_array", block) is None
    desc = ProgramDesc.parse_from_string(
        (FIXTURES / "unpool__output_size" / "inference.pdmodel").read_bytes())
    block = desc.global_block
    unpool = next(o for o in block.ops if o.type == "unpool")
    assert compile_time_attr_var(unpool, "output_size", "int_array", block).data == (-1, -1)
    scalar = compile_time_attr_var(unpool, "output_size", "scalar", block)
    assert scalar.value == -1 and scalar.from_tensor
