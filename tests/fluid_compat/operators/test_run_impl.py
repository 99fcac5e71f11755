"""Every branch of RunImpl: phi, fluid, CPU fallback (phi and fluid), GPU refusal and opt-in,
transfer through a transfer scope, cache hit, a second input signature, dtype mismatch, and
nothing written to the scope when an op fails."""

from __future__ import annotations

import numpy as np
import pytest

import phi
from fluid_compat.framework.op_registry import create_op
from fluid_compat.framework.scope import Scope
from fluid_compat.imperative import legacy_ops, run_op, run_op_with_operator
from fluid_compat.operators import dispatch
from phi.common import CPUPlace, GPUPlace
from phi.core.errors import InvalidArgument, NotFound
from phi.core.tensor import DenseTensor

CPU = CPUPlace()


def _scope(**arrays) -> Scope:
    scope = Scope()
    for name, a in arrays.items():
        scope.var(name).value = a if isinstance(a, DenseTensor) else DenseTensor.from_numpy(a)
    return scope


def _out(scope: Scope, name: str) -> np.ndarray:
    return scope.find_var(name).value.numpy()


def test_phi_branch():
    x = np.array([[1.0, -2.0]], np.float32)
    out, op = run_op_with_operator("scale", {"X": x}, {"scale": 2.0, "bias": 1.0})
    np.testing.assert_array_equal(out["Out"][0], [[3.0, -3.0]])
    (choice,) = op.kernel_choices().values()
    assert choice.is_phi and not choice.fallback
    assert str(choice.phi_kernel.key) == "(CPU, Undefined(AnyLayout), float32)"


def test_fluid_branch_for_a_deprecated_name():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = np.arange(6, dtype=np.float32).reshape(3, 2)
    out, op = run_op_with_operator("matmul", {"X": x, "Y": y}, {"alpha": 0.5})
    np.testing.assert_allclose(out["Out"][0], 0.5 * (x @ y))
    (choice,) = op.kernel_choices().values()
    assert not choice.is_phi and choice.signature is None
    assert str(choice.fluid_kernel.kernel_type) == (
        "{data_type[float]; data_layout[Undefined(AnyLayout)]; place[Place(cpu)]; "
        "library_type[PLAIN]}")


def test_fluid_only_ops_and_legacy_ops_namespace():
    w = np.arange(12, dtype=np.float32).reshape(4, 3)
    ids = np.array([[0], [3], [1]], np.int64)
    out = legacy_ops.lookup_table(w, ids, "padding_idx", 3)
    np.testing.assert_array_equal(out, np.stack([w[0], np.zeros(3, np.float32), w[1]]))
    flat = legacy_ops.flatten2(np.zeros((2, 3, 4), np.float32), "axis", 2)
    assert flat.shape == (6, 4)
    s = legacy_ops.scale(np.ones(2, np.float32), "scale", 2.0, "bias", 1.0)
    np.testing.assert_array_equal(s, [3.0, 3.0])


def test_gpu_without_kernel_is_refused_unless_opted_in():
    w = np.ones((3, 2), np.float32)
    ids = np.array([[1]], np.int64)
    with pytest.raises(NotFound, match="cannot fallback to CPU one.*"
                                       "FLAGS_static_gpu_fallback_to_cpu"):
        run_op("lookup_table", {"W": w, "Ids": ids}, place=GPUPlace(0))
    phi.set_flags({"FLAGS_static_gpu_fallback_to_cpu": True})
    try:
        out, op = run_op_with_operator("lookup_table", {"W": w, "Ids": ids},
                                       place=GPUPlace(0))
    finally:
        phi.set_flags({"FLAGS_static_gpu_fallback_to_cpu": False})
    np.testing.assert_array_equal(out["Out"][0], [[1.0, 1.0]])
    (choice,) = op.kernel_choices().values()
    assert choice.fallback and not choice.is_phi and choice.place == CPU


def test_cache_hit_and_second_input_signature(monkeypatch):
    calls = []
    real = dispatch.decide

    def counting(op, inputs, place, pin=None):
        calls.append(op.type)
        return real(op, inputs, place, pin)

    monkeypatch.setattr(dispatch, "decide", counting)
    op = create_op("relu", {"X": ["x"]}, {"Out": ["y"]}, {})
    scope = _scope(x=np.array([-1.0, 2.0], np.float32))
    op.run(scope, CPU)
    op.run(scope, CPU)
    assert calls == ["relu"]  # the second run replayed the cached decision
    scope.var("x").value = DenseTensor.from_numpy(np.array([-1.0, 2.0], np.float64))
    op.run(scope, CPU)
    assert calls == ["relu", "relu"]  # a new dtype: a new, correct decision
    assert _out(scope, "y").dtype == np.float64
    keys = sorted(str(c.phi_kernel.key) for c in op.kernel_choices().values())
    assert keys == ["(CPU, Undefined(AnyLayout), float32)", ("(CPU, Undefined(AnyLayout), "
                                                             "float64)")]


def test_dtype_mismatch_is_caught_before_the_kernel_and_nothing_is_written():
    op = create_op("elementwise_add", {"X": ["x"], "Y": ["y"]}, {"Out": ["out"]}, {})
    scope = _scope(x=np.ones(2, np.float32), y=np.ones(2, np.float64))
    with pytest.raises(InvalidArgument, match="Operator `elementwise_add`: input `Y` has dtype "
                                              "float64, but the kernel `add` .* takes float32"):
        op.run(scope, CPU)
    assert scope.find_var("out") is None


def test_failing_kernel_writes_nothing():
    op = create_op("elementwise_div", {"X": ["x"], "Y": ["y"]}, {"Out": ["out"]}, {})
    scope = _scope(x=np.array([1, 2], np.int32), y=np.array([1, 0], np.int32))
    scope.var("out").value = DenseTensor.from_numpy(np.array([7, 7], np.int32))
    with pytest.raises(InvalidArgument, match="Integer division by zero"):
        op.run(scope, CPU)
    np.testing.assert_array_equal(_out(scope, "out"), [7, 7])


def test_unknown_op_slot_and_attribute_errors():
    with pytest.raises(NotFound, match="Operator `scal` is not registered. Did you mean: scale"):
        create_op("scal", {"X": ["x"]}, {"Out": ["o"]}, {})
    with pytest.raises(InvalidArgument, match="Operator `scale` has no input slot `x`.*`X`"):
        create_op("scale", {"x": ["x"]}, {"Out": ["o"]}, {})
    with pytest.raises(InvalidArgument, match="Operator `scale` needs input `X`"):
        create_op("scale", {}, {"Out": ["o"]}, {})
    with pytest.raises(InvalidArgument, match="scale"):
        create_op("scale", {"X": ["x"]}, {"Out": ["o"]}, {"scale": "big"})


def test_missing_input_variable_names_op_slot_and_variable():
    op = create_op("relu", {"X": ["nowhere"]}, {"Out": ["y"]}, {})
    with pytest.raises(NotFound, match="Operator `relu`: input `X` variable `nowhere` is not "
                                       "found"):
        op.run(Scope(), CPU)


def test_fluid_and_phi_agree_on_the_side_by_side_ops():
    """The six ops that keep both kernels: run each way and compare (phi kernel removed from
    the decision by pinning through the registry is not what this checks; here we call the fluid
    kernel directly through its ExecutionContext)."""
    from fluid_compat.operators.context import ExecutionContext
    from fluid_compat.operators.fluid_kernels.registry import fluid_kernels_of
    from phi.backends import get_context

    rng = np.random.default_rng(0)
    cases = [
        ("mul", {"X": rng.standard_normal((2, 3, 4)).astype(np.float32),
                 "Y": rng.standard_normal((12, 5)).astype(np.float32)},
         {"x_num_col_dims": 1}),
        ("elementwise_add", {"X": rng.standard_normal((2, 3, 4)).astype(np.float32),
                             "Y": rng.standard_normal((3,)).astype(np.float32)}, {"axis": 1}),
        ("relu", {"X": rng.standard_normal((5,)).astype(np.float32)}, {}),
        ("softmax", {"X": rng.standard_normal((3, 4)).astype(np.float64)}, {"axis": 0}),
        ("matmul_v2", {"X": rng.standard_normal((2, 3)).astype(np.float32),
                       "Y": rng.standard_normal((2, 4)).astype(np.float32)}, {"trans_x": True}),
        ("scale", {"X": rng.standard_normal((4,)).astype(np.float32)},
         {"scale": 3.0, "bias": -1.0, "bias_after_scale": False}),
    ]
    for op_type, inputs, attrs in cases:
        phi_out, op = run_op_with_operator(op_type, inputs, attrs)
        (choice,) = op.kernel_choices().values()
        assert choice.is_phi, op_type
        kernel = next(k for kt, k in fluid_kernels_of(op_type).items()
                      if kt.dtype == choice.kernel_type.dtype)
        ctx = ExecutionContext(op, {s: [DenseTensor.from_numpy(v)] for s, v in inputs.items()},
                               CPU, get_context(CPU))
        kernel.compute(ctx)
        np.testing.assert_allclose(ctx.staged["Out"][0].numpy(), phi_out["Out"][0], rtol=1e-6,
                                   atol=1e-6, err_msg=op_type)


# -- a custom device (array-api-strict device1): CPU fallback and transfers ---------------------

xps = pytest.importorskip("array_api_strict")


@pytest.fixture()
def device1():
    from tests.phi.strict_device import plug_in

    return plug_in()


def _on(place, array) -> DenseTensor:
    from phi.transform import transform_place

    return transform_place(DenseTensor.from_numpy(array), place)


def test_custom_device_falls_back_to_phi_cpu_kernel_and_outputs_stay_on_cpu(device1):
    op = create_op("relu", {"X": ["x"]}, {"Out": ["y"]}, {})
    scope = _scope(x=_on(device1, np.array([-1.0, 2.0], np.float32)))
    op.run(scope, device1)
    (choice,) = op.kernel_choices().values()
    assert choice.fallback and choice.is_phi and choice.place == CPU
    y = scope.find_var("y").value
    assert y.place == CPU  # static graph: no copy back (the next op transfers if it must)
    np.testing.assert_array_equal(y.numpy(), [0.0, 2.0])
    # the input was transferred in a transfer scope: the caller's variable is untouched
    x = scope.find_var("x").value
    assert x.place == device1 and x.data.device == xps.Device("device1")
    assert scope.kids == ()  # the transfer scope is gone
    assert any(kind == "transform" and "place Place(device1:0) -> Place(cpu)" in text
               for kind, text in choice.records)


def test_custom_device_falls_back_to_fluid_cpu_kernel(device1):
    op = create_op("matmul", {"X": ["x"], "Y": ["y"]}, {"Out": ["o"]}, {})
    a = np.eye(2, dtype=np.float32)
    scope = _scope(x=_on(device1, a), y=_on(device1, 3 * a))
    op.run(scope, device1)
    (choice,) = op.kernel_choices().values()
    assert choice.fallback and not choice.is_phi
    np.testing.assert_array_equal(_out(scope, "o"), 3 * a)


def test_cpu_op_transfers_a_device_input(device1):
    op = create_op("elementwise_add", {"X": ["x"], "Y": ["y"]}, {"Out": ["o"]}, {})
    scope = _scope(x=np.ones(2, np.float32), y=_on(device1, np.full(2, 2.0, np.float32)))
    op.run(scope, CPU)
    np.testing.assert_array_equal(_out(scope, "o"), [3.0, 3.0])
    assert scope.find_var("y").value.place == device1


def test_non_numeric_inputs_name_op_and_slot():
    with pytest.raises(InvalidArgument, match=r"Operator `relu`: input `X`\[0\] is not a numeric "
                                              r"array \(list\)"):
        run_op("relu", {"X": [["a", None]]})
