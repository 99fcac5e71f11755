"""GetExpectedKernelType: IndicateDataType rules and errors, per-op overrides, and the hints
(op_device, use_mkldnn, use_cudnn, force_cpu); the compile-time argument-mapping context."""

from __future__ import annotations

import numpy as np
import pytest

import argmap
from fluid_compat.framework import ProgramDesc
from fluid_compat.framework.op_registry import create_op
from fluid_compat.framework.scope import Scope
from fluid_compat.operators.context import (
    CompileTimeArgumentMappingContext,
    ExecutionContext,
    RuntimeArgumentMappingContext,
)
from fluid_compat.operators.expected_kernel import indicate_data_type
from phi.common import CPUPlace, CustomPlace, DataType
from phi.core.errors import InvalidArgument, NotFound
from phi.core.tensor import DenseTensor

CPU = CPUPlace()


def _t(a) -> DenseTensor:
    return DenseTensor.from_numpy(np.asarray(a))


def _ctx(op, **slots) -> ExecutionContext:
    return ExecutionContext(op, {k: v for k, v in slots.items()}, CPU)


def test_indicate_data_type_last_initialized_slot_in_name_order_wins():
    op = create_op("concat", {"X": ["a", "b"], "AxisTensor": ["ax"]}, {"Out": ["o"]}, {})
    ctx = _ctx(op, AxisTensor=[_t(np.array([0], np.int32))], X=[_t(np.ones(2, np.float32))])
    # sorted slots: AxisTensor (int32), then X (float32): the last single input wins
    assert indicate_data_type(op, ctx) is DataType.FLOAT32
    # a duplicable slot must agree with the running dtype, here AxisTensor's int32 (which is
    # why Paddle's concat overrides GetExpectedKernelType)
    ctx.inputs["X"] = [_t(np.ones(2, np.float32)), _t(np.ones(2, np.float32))]
    with pytest.raises(InvalidArgument, match="duplicable or different slot Variable X must be "
                                              "consistent"):
        indicate_data_type(op, ctx)
    ctx.inputs["X"] = [None, _t(np.ones(2, np.float32))]
    with pytest.raises(InvalidArgument, match="contains uninitialized DenseTensor"):
        indicate_data_type(op, ctx)
    with pytest.raises(NotFound, match="DataType should be indicated by input Variable at concat"):
        indicate_data_type(op, _ctx(op, X=[None]))


def _expected(op_type, inputs, attrs, place=CPU):
    op = create_op(op_type, {k: [f"{k}{i}" for i in range(len(v))] for k, v in inputs.items()},
                   {"Out": ["o"]}, attrs)
    scope = Scope()
    for k, vs in inputs.items():
        for i, v in enumerate(vs):
            scope.var(f"{k}{i}").value = _t(v)
    op.run(scope, place)
    (choice,) = op.kernel_choices().values()
    return choice


def test_per_op_overrides():
    # fill_constant: the dtype attribute, no input at all
    c = _expected("fill_constant", {}, {"shape": [2], "value": 1.0, "dtype": 3})
    assert c.expected.dtype is DataType.INT64
    # cast: the input dtype (in_dtype), not out_dtype
    c = _expected("cast", {"X": [np.ones(2, np.float64)]}, {"in_dtype": 6, "out_dtype": 5})
    assert c.expected.dtype is DataType.FLOAT64
    # elementwise: X decides (Y's dtype would hijack IndicateDataType's sorted order)
    with pytest.raises(InvalidArgument, match="input `Y` has dtype float64"):
        _expected("elementwise_mul", {"X": [np.ones(2, np.float32)],
                                      "Y": [np.ones(2, np.float64)]}, {})


def test_softmax_refuses_float16_on_cpu():
    with pytest.raises(InvalidArgument, match="float16 can only be used on GPU/XPU and custom "
                                              "place"):
        _expected("softmax", {"X": [np.ones(2, np.float16)]}, {})


def test_hints_op_device_and_force_cpu():
    pytest.importorskip("array_api_strict")
    from tests.phi.strict_device import plug_in

    dev = plug_in()
    c = _expected("relu", {"X": [np.ones(2, np.float32)]}, {"op_device": "cpu"}, place=dev)
    assert c.expected.place == CPU and not c.fallback
    assert any("op_device='cpu'" in text for _, text in c.records)
    c = _expected("fill_constant", {}, {"shape": [1], "value": 2.0, "dtype": 5,
                                        "force_cpu": True}, place=dev)
    assert c.expected.place == CPU and not c.fallback
    # use_mkldnn without a oneDNN kernel changes nothing
    c = _expected("relu", {"X": [np.ones(2, np.float32)]}, {"use_mkldnn": True})
    assert str(c.expected) == ("{data_type[float]; data_layout[Undefined(AnyLayout)]; "
                               "place[Place(cpu)]; library_type[PLAIN]}")


def test_compile_time_and_run_time_contexts_give_the_same_signature():
    program = ProgramDesc()
    block = program.global_block
    for name in ("x", "shape"):
        block.create_var(name)
    op_desc = block.append_op("reshape2", {"X": ["x"], "ShapeTensor": ["shape"]},
                              {"Out": ["o"], "XShape": ["xs"]}, {"shape": [2, 3]})
    compile_sig = argmap.get_kernel_signature(
        "reshape2", CompileTimeArgumentMappingContext(op_desc, block))
    op = create_op("reshape2", {"X": ["x"], "ShapeTensor": ["shape"]},
                   {"Out": ["o"], "XShape": ["xs"]}, {"shape": [2, 3]})
    runtime_sig = argmap.get_kernel_signature(
        "reshape2", RuntimeArgumentMappingContext(op, {"X": [_t(np.ones(6))],
                                                       "ShapeTensor": [_t([2, 3])]}))
    assert str(compile_sig) == str(runtime_sig) == (
        "name: reshape; inputs: X; attributes: ShapeTensor; outputs: Out, XShape")


def test_custom_place_keeps_its_device_id():
    pytest.importorskip("array_api_strict")
    from tests.phi.strict_device import plug_in

    plug_in()
    place = CustomPlace("device1", 0)
    c = _expected("scale", {"X": [np.ones(2, np.float32)]}, {}, place=place)
    assert c.expected.place == place
