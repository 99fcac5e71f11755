"""The eager API built from ops.yaml: calling conventions, key parsing, fallback to CPU on a
second device (array-api-strict), the dispatch trace, and the YAML loader."""

from __future__ import annotations

import logging

import numpy as np
import pytest

import phi
from phi import api
from phi.api.loader import load_ops_yaml, loads_ops_yaml
from phi.common import Backend, CPUPlace, DataLayout, DataType
from phi.core.errors import InvalidArgument, NotFound
from phi.core.kernel import Tensor
from phi.core.kernel_key import KernelKey
from phi.core.registry import kernel_factory, register_kernel
from phi.core.tensor import DenseTensor

# -- calling conventions ---------------------------------------------------------------------


def test_numpy_in_dense_tensor_out():
    x = np.array([[1.0, -2.0]], np.float32)
    out = api.scale(x, scale=3.0, bias=1.0)
    assert isinstance(out, DenseTensor)
    assert out.dtype is DataType.FLOAT32 and out.place == CPUPlace() and out.dims == (1, 2)
    np.testing.assert_array_equal(np.asarray(out), [[4.0, -5.0]])
    np.testing.assert_array_equal(out.numpy(), [[4.0, -5.0]])
    # positional arguments in ops.yaml order: scale(x, scale, bias, bias_after_scale)
    np.testing.assert_array_equal(api.scale(x, 3.0, 1.0, False).numpy(), [[6.0, -3.0]])


def test_several_outputs_come_as_a_list_in_yaml_order():
    x = np.arange(10, dtype=np.int64).reshape(2, 5)
    parts = api.split(x, [2, -1, 1], axis=1)
    assert isinstance(parts, list) and [p.dims for p in parts] == [(2, 2), (2, 2), (2, 1)]
    np.testing.assert_array_equal(parts[1].numpy(), [[2, 3], [7, 8]])
    joined = api.concat(parts, axis=1)
    np.testing.assert_array_equal(joined.numpy(), x)


@pytest.mark.parametrize("dtype", [DataType.BFLOAT16, np.float16, "bfloat16", "int32", np.int64])
def test_dtype_arguments_accept_datatype_numpy_and_strings(dtype):
    out = api.full([2], 1.5, dtype)
    want = DataType.from_any(dtype)
    assert out.dtype is want and out.numpy().dtype == want.to_numpy()


def test_inplace_variant_writes_into_its_input():
    t = DenseTensor.from_numpy(np.array([1.0, 2.0], np.float32))
    same = api.add_(t, np.array([10.0, 20.0], np.float32))
    assert same is t
    np.testing.assert_array_equal(t.numpy(), [11.0, 22.0])
    with pytest.raises(InvalidArgument, match="in-place output has shape"):
        api.add_(DenseTensor.from_numpy(np.ones((1,), np.float32)), np.ones((3,), np.float32))


def test_bad_arguments_name_op_and_argument():
    with pytest.raises(InvalidArgument, match="scale: argument `x` expects a DenseTensor"):
        api.scale("nope")
    with pytest.raises(InvalidArgument, match="scale: argument `bias` expects a float"):
        api.scale(np.ones(2, np.float32), 1.0, "b")
    with pytest.raises(InvalidArgument, match="full: argument `dtype`: .*float31"):
        api.full([2], 1.0, "float31")
    with pytest.raises(AttributeError, match="did you mean scale"):
        api.scal  # noqa: B018


def test_mixed_dtypes_are_refused_before_the_kernel():
    with pytest.raises(InvalidArgument, match="add: argument `x` has dtype float32, but the "
                                              "selected kernel `add` .*takes float64"):
        api.add(np.ones(2, np.float32), np.ones(2, np.float64))


def test_infer_meta_errors_name_the_op():
    with pytest.raises(InvalidArgument, match=r"^\(InvalidArgument\) add: "):
        api.add(np.ones((2, 3), np.float32), np.ones((4,), np.float32))


def test_unregistered_dtype_gives_paddles_message():
    with pytest.raises(NotFound) as info:
        api.relu(np.arange(3, dtype=np.int32))
    text = str(info.value)
    assert "The kernel with key (CPU, NCHW, int32) of kernel `relu` is not registered." in text
    assert "Selected wrong DataType `int32`. Paddle support following DataTypes: float32, " \
           "float64." in text


def test_kernel_key_last_tensor_wins_and_complex_promotes():
    op = api.add.op
    f32 = DenseTensor.from_numpy(np.ones(2, np.float32))
    f64 = DenseTensor.from_numpy(np.ones(2, np.float64))
    c64 = DenseTensor.from_numpy(np.ones(2, np.complex64))
    assert op.kernel_key([f32, f64])[0] == KernelKey(Backend.CPU, DataLayout.NCHW,
                                                     DataType.FLOAT64)
    assert op.kernel_key([f64, f32])[0].dtype is DataType.FLOAT32
    assert op.kernel_key([c64, f64])[0].dtype is DataType.COMPLEX128
    assert op.kernel_key([c64, f32])[0].dtype is DataType.COMPLEX64


def test_api_functions_follow_ops_yaml_signatures():
    import inspect

    assert str(inspect.signature(api.matmul)) == "(x, y, transpose_x=False, transpose_y=False)"
    assert str(inspect.signature(api.scale)) == "(x, scale=1.0, bias=0.0, bias_after_scale=True)"
    assert str(inspect.signature(api.softmax)) == "(x, axis=-1)"
    assert str(inspect.signature(api.split)) == "(x, sections, axis=0)"
    assert "add_" in api.op_names() and "matmul_" not in api.op_names()


# -- a second device: array-api-strict's device1 -----------------------------------------------

xps = pytest.importorskip("array_api_strict")


@pytest.fixture()
def device1():
    from tests.phi.strict_device import plug_in

    place = plug_in()
    factory = kernel_factory()

    def add(ctx, x: Tensor, y: Tensor) -> Tensor:
        return ctx.xp.add(x, y)

    def relu(ctx, x: Tensor) -> Tensor:
        return ctx.xp.where(x > 0, x, ctx.xp.zeros_like(x))

    register_kernel("add", place.backend, ["float32"])(add)
    register_kernel("relu", place.backend, ["float32"])(relu)
    yield place
    factory.unregister("add", KernelKey(place.backend, DataLayout.ALL_LAYOUT, DataType.FLOAT32))
    factory.unregister("relu", KernelKey(place.backend, DataLayout.ALL_LAYOUT, DataType.FLOAT32))


def _on(place, array):
    from phi.transform import transform_place

    return transform_place(DenseTensor.from_numpy(array), place)


def test_device_kernel_runs_on_the_device(device1):
    a = np.array([[1.0, -2.0]], np.float32)
    out = api.add(_on(device1, a), _on(device1, a))
    assert out.place == device1 and out.data.device == xps.Device("device1")
    np.testing.assert_array_equal(out.numpy(), 2 * a)


def test_cpu_tensor_is_moved_to_the_device_of_the_other_input(device1):
    a = np.array([3.0, 4.0], np.float32)
    out = api.add(_on(device1, a), a)  # numpy input lives on CPU; device1 outranks it
    assert out.place == device1
    np.testing.assert_array_equal(out.numpy(), 2 * a)


def test_op_without_device_kernel_falls_back_and_result_returns(device1, caplog):
    a = np.arange(4, dtype=np.float32).reshape(2, 2)
    x = _on(device1, a)
    phi.set_flags({"FLAGS_dispatch_trace": 2})
    try:
        with caplog.at_level(logging.DEBUG, logger="phi.dispatch"):
            out = api.matmul(x, x)
    finally:
        phi.set_flags({"FLAGS_dispatch_trace": 0})
    assert out.place == device1 and out.data.device == xps.Device("device1")
    np.testing.assert_allclose(out.numpy(), a @ a)
    # the chain goes on on the device: relu has a device1 kernel
    r = api.relu(api.scale(out, -1.0))
    assert r.place == device1
    np.testing.assert_array_equal(r.numpy(), np.zeros((2, 2), np.float32))
    text = caplog.text
    assert "step 4b: (CUSTOM, Undefined(AnyLayout), float32) -> not registered" in text
    assert "step 6: (CPU, Undefined(AnyLayout), float32) -> found" in text
    assert "CPU fallback, outputs go back to Place(device1:0)" in text
    assert "transform x place Place(device1:0) -> Place(cpu)" in text
    assert "transform matmul output place Place(cpu) -> Place(device1:0)" in text


def test_fallback_off_raises_naming_the_flag(device1):
    x = _on(device1, np.ones((2, 2), np.float32))
    phi.set_flags({"FLAGS_enable_api_kernel_fallback": False})
    try:
        with pytest.raises(NotFound, match="FLAGS_enable_api_kernel_fallback"):
            api.matmul(x, x)
        assert api.add(x, x).place == device1  # a device kernel still runs
    finally:
        phi.set_flags({"FLAGS_enable_api_kernel_fallback": True})


# -- the YAML loader ---------------------------------------------------------------------------

def test_ops_yaml_round_trips():
    import yaml

    specs = load_ops_yaml()
    again = loads_ops_yaml(yaml.safe_dump([s.to_yaml_dict() for s in specs], sort_keys=False))
    assert again == specs
    assert {s.name for s in specs} >= {"full", "full_like", "cast", "scale", "add", "subtract",
                                       "multiply", "divide", "maximum", "minimum", "relu",
                                       "sigmoid", "tanh", "exp", "softmax", "matmul", "reshape",
                                       "transpose", "concat", "split", "mean", "sum"}


BAD_YAML = [
    (("- op : a\n  args : (Tensor x)\n  output : Tensor(out)\n  infer_meta :\n    func : F\n"
     "  kernel :\n    func : a\n  colour : red\n"), r"<t>:1: unknown key\(s\) \['colour'\]"),
    (("- op : a\n  args : (Tensor x)\n  output : Tensor(out)\n  infer_meta :\n    func : F\n"
     "  kernel :\n    func : a\n    backnd : x\n"), (r"<t>:7 \(op a\): unknown key\(s\) "
                                                   r"\['backnd'\] under 'kernel'")),
    (("- op : a\n  args : (Tensr x)\n  output : Tensor(out)\n  infer_meta :\n    func : F\n"
     "  kernel :\n    func : a\n"), r"<t>:1 \(op a\): cannot parse argument 'Tensr x'"),
    (("- op : a\n  args : (Tensor x)\n  output : Tensor(out)\n  infer_meta :\n    func : F\n"
     "    param : [y]\n  kernel :\n    func : a\n"), r"infer_meta.param names 'y'"),
    ("- op : a\n  args : (Tensor x)\n  output : Tensor(out)\n  kernel :\n    func : a\n",
     r"<t>:1: op entry lacks the required key 'infer_meta'"),
]


@pytest.mark.parametrize("text, message", BAD_YAML)
def test_loader_rejects_with_file_and_line(text, message):
    with pytest.raises(InvalidArgument, match=message):
        loads_ops_yaml(text, "<t>")


def test_every_yaml_infer_meta_names_an_existing_function():
    """A misspelt InferMeta name would leave its kernel without an InferMeta binding, silently:
    the dispatcher then never checks the kernel's outputs."""
    import phi.infermeta
    from phi.api.loader import STATIC_OPS_YAML, infer_meta_function_name, load_ops_yaml

    missing = [(s.name, s.infer_meta.func) for s in load_ops_yaml() + load_ops_yaml(STATIC_OPS_YAML)
               if not hasattr(phi.infermeta, infer_meta_function_name(s.infer_meta.func))]
    assert missing == []
