"""Data transforms: place, dtype and layout, and when each happens (semantics.md)."""

from __future__ import annotations

import numpy as np
import pytest

from phi.common import Backend, CPUPlace, DataLayout, DataType
from phi.core.errors import Unimplemented
from phi.core.kernel import ArgKind, TensorArgDef
from phi.core.tensor import DenseTensor
from phi.transform import TransformFlag, prepare_data, transform_layout

pytest.importorskip("array_api_strict")
from tests.phi.strict_device import plug_in

CPU = CPUPlace()
A = DataLayout.ALL_LAYOUT


def arg(backend=Backend.CPU, layout=A, dtype=DataType.FLOAT32) -> TensorArgDef:
    return TensorArgDef("x", ArgKind.DENSE, backend, layout, dtype)


def test_nothing_to_do_returns_the_same_object():
    t = DenseTensor.from_numpy(np.ones((2, 3), np.float32))
    assert prepare_data(t, arg(), CPU) is t
    assert prepare_data(None, arg(), CPU) is None


def test_nchw_to_nhwc_permutes_data_and_dims():
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    t = DenseTensor.from_numpy(x)  # NCHW by default, as Paddle's DenseTensorMeta
    out = prepare_data(t, arg(layout=DataLayout.NHWC), CPU)
    assert out.layout is DataLayout.NHWC and out.dims == (2, 4, 5, 3)
    # element (n=1, c=2, h=3, w=4) lands at [1, 3, 4, 2]
    assert out.numpy()[1, 3, 4, 2] == x[1, 2, 3, 4]
    back = transform_layout(out, DataLayout.NCHW)
    np.testing.assert_array_equal(back.numpy(), x)
    assert t.layout is DataLayout.NCHW  # the input is untouched


def test_layout_is_left_alone_for_all_layout_args_and_non_4d():
    t4 = DenseTensor.from_numpy(np.zeros((1, 2, 3, 4), np.float32))
    assert prepare_data(t4, arg(layout=A), CPU) is t4
    t3 = DenseTensor.from_numpy(np.zeros((2, 3, 4), np.float32))
    assert prepare_data(t3, arg(layout=DataLayout.NHWC), CPU) is t3
    assert prepare_data(t4, arg(layout=DataLayout.NHWC), CPU,
                        TransformFlag(trans_layout=False)) is t4
    with pytest.raises(Unimplemented, match="only NCHW <-> NHWC on 4-D"):
        transform_layout(t3, DataLayout.NHWC)


def test_dtype_cast_only_when_asked_or_complex():
    t = DenseTensor.from_numpy(np.array([1.5, -2.5], np.float32))
    assert prepare_data(t, arg(dtype=DataType.FLOAT64), CPU) is t  # never implicit
    out = prepare_data(t, arg(dtype=DataType.FLOAT64), CPU, TransformFlag(trans_dtype=True))
    assert out.dtype is DataType.FLOAT64 and out.numpy().dtype == np.float64
    np.testing.assert_array_equal(out.numpy(), [1.5, -2.5])
    c = prepare_data(t, arg(dtype=DataType.COMPLEX64), CPU)  # complex targets always cast
    assert c.dtype is DataType.COMPLEX64 and c.numpy().dtype == np.complex64
    assert prepare_data(t, arg(dtype=DataType.ALL_DTYPE), CPU, TransformFlag(trans_dtype=True)) is t


def test_place_moves_through_contexts_and_all_backend_never_moves():
    dev = plug_in()
    x = np.array([[1.0, 2.0]], np.float32)
    t = DenseTensor.from_numpy(x)
    on_dev = prepare_data(t, arg(backend=dev.backend), dev)
    assert on_dev.place == dev and on_dev.data.device.__repr__().endswith("'device1')")
    back = prepare_data(on_dev, arg(), CPU)
    assert back.place == CPU and type(back.data) is np.ndarray
    np.testing.assert_array_equal(back.numpy(), x)
    assert prepare_data(on_dev, arg(backend=Backend.ALL_BACKEND), CPU) is on_dev
    assert prepare_data(on_dev, arg(), CPU, TransformFlag(stop_transform=True)) is on_dev
    assert prepare_data(on_dev, arg(), CPU, TransformFlag(trans_backend=False)) is on_dev


def test_all_three_in_paddle_order():
    dev = plug_in()
    x = np.arange(16, dtype=np.float32).reshape(1, 2, 2, 4)
    t = DenseTensor.from_numpy(x)
    out = prepare_data(t, arg(backend=dev.backend, layout=DataLayout.NHWC,
                              dtype=DataType.FLOAT64), dev, TransformFlag(trans_dtype=True))
    assert (out.place, out.layout, out.dtype, out.dims) == (
        dev, DataLayout.NHWC, DataType.FLOAT64, (1, 2, 4, 2))
    np.testing.assert_array_equal(out.numpy(), x.transpose(0, 2, 3, 1).astype(np.float64))
