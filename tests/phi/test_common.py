"""phi.common: Paddle 2.6.2's enum numbers (reference §1) and the conversions between numberings."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from phi.common import (
    Backend,
    CPUPlace,
    CustomPlace,
    DataLayout,
    DataType,
    GPUPlace,
    IntArray,
    ProtoVarType,
    Scalar,
    to_place,
)
from phi.common.backend import backend_from_name
from phi.core.errors import InvalidArgument, NotFound


def test_backend_numbers_and_names():
    assert [(b.name, int(b)) for b in Backend] == [
        ("ALL_BACKEND", 0), ("CPU", 1), ("ONEDNN", 2), ("GPU", 3), ("GPUDNN", 4), ("XPU", 5),
        ("IPU", 6), ("KPS", 7), ("CUSTOM", 8), ("NUM_BACKENDS", 9),
    ]
    assert Backend.UNDEFINED is Backend.ALL_BACKEND
    assert str(Backend.ALL_BACKEND) == "Undefined(ALL_BACKEND)"
    assert max(Backend.CPU, Backend.GPUDNN, Backend.GPU) is Backend.GPUDNN


def test_custom_backend_ids_are_above_num_backends_and_stable():
    b1 = CustomPlace("npu_like", 0).backend
    assert int(b1) > int(Backend.NUM_BACKENDS) and str(b1) == "npu_like"
    assert CustomPlace("npu_like", 3).backend == b1
    assert backend_from_name("npu_like") == b1
    assert b1 > Backend.CUSTOM  # plug-in devices outrank every built-in backend
    with pytest.raises(NotFound, match="Unknown backend `nope`"):
        backend_from_name("nope")


def test_layout_numbers():
    assert [(x.name, int(x)) for x in DataLayout] == [
        ("ALL_LAYOUT", 0), ("NHWC", 1), ("NCHW", 2), ("NCDHW", 3), ("NDHWC", 4), ("ONEDNN", 5),
        ("SPARSE_COO", 6), ("SPARSE_CSR", 7), ("PSTRING_UNION", 8), ("STRIDED", 9),
    ]
    assert str(DataLayout.ANY) == "Undefined(AnyLayout)"
    assert DataLayout.from_any("nhwc") is DataLayout.NHWC
    assert DataLayout.from_any("AnyLayout") is DataLayout.ALL_LAYOUT


# phi number, proto number, numpy dtype, name
DTYPES = [
    (DataType.BOOL, 1, 0, np.bool_, "bool"),
    (DataType.UINT8, 2, 20, np.uint8, "uint8"),
    (DataType.INT8, 3, 21, np.int8, "int8"),
    (DataType.INT16, 5, 1, np.int16, "int16"),
    (DataType.INT32, 7, 2, np.int32, "int32"),
    (DataType.INT64, 9, 3, np.int64, "int64"),
    (DataType.FLOAT32, 10, 5, np.float32, "float32"),
    (DataType.FLOAT64, 11, 6, np.float64, "float64"),
    (DataType.COMPLEX64, 12, 23, np.complex64, "complex64"),
    (DataType.COMPLEX128, 13, 24, np.complex128, "complex128"),
    (DataType.FLOAT16, 15, 4, np.float16, "float16"),
    (DataType.BFLOAT16, 16, 22, ml_dtypes.bfloat16, "bfloat16"),
]


@pytest.mark.parametrize("dtype, phi_num, proto_num, np_type, name", DTYPES)
def test_dtype_conversions(dtype, phi_num, proto_num, np_type, name):
    assert int(dtype) == phi_num
    assert int(dtype.to_proto()) == proto_num
    assert DataType.from_proto(proto_num) is dtype
    assert dtype.to_numpy() == np.dtype(np_type)
    assert DataType.from_numpy(np.dtype(np_type)) is dtype
    assert DataType.from_numpy(np_type) is dtype
    assert DataType.from_any(name) is dtype
    assert str(dtype) == name


def test_dtype_edge_conversions():
    assert DataType.from_proto(19) is DataType.UINT64  # SIZE_T
    assert DataType.from_proto(-1) is DataType.UNDEFINED
    assert str(DataType.UNDEFINED) == "Undefined(ALL_DTYPE)"
    assert ProtoVarType.FP32 == 5
    with pytest.raises(InvalidArgument, match="VarType.Type 7 is not a tensor data type"):
        DataType.from_proto(7)  # LOD_TENSOR is a variable kind, not a dtype
    with pytest.raises(InvalidArgument, match="Ambiguous data type 5"):
        DataType.from_any(5)
    with pytest.raises(InvalidArgument, match="Unknown data type name 'float31'"):
        DataType.from_any("float31")
    with pytest.raises(InvalidArgument, match="has no protobuf"):
        DataType.UINT32.to_proto()
    assert DataType.from_any(np.float16) is DataType.FLOAT16


def test_places():
    assert str(CPUPlace()) == "Place(cpu)"
    assert str(GPUPlace(1)) == "Place(gpu:1)"
    assert GPUPlace(0) != GPUPlace(1) and GPUPlace(0).is_same_class(GPUPlace(1))
    assert CPUPlace().backend is Backend.CPU and GPUPlace().backend is Backend.GPU
    assert to_place("gpu:1") == GPUPlace(1) and to_place("cpu") == CPUPlace()
    assert to_place("device7:2") == CustomPlace("device7", 2)
    assert {CPUPlace(): 1}[CPUPlace()] == 1
    with pytest.raises(InvalidArgument):
        to_place("gpu:x")


def test_scalar_and_int_array():
    assert Scalar(2).value == 2 and float(Scalar(2.5)) == 2.5
    assert Scalar(np.array([3.0], dtype=np.float32)).value == 3.0
    with pytest.raises(InvalidArgument, match="contains more than 1 value"):
        Scalar(np.zeros(2))
    with pytest.raises(InvalidArgument):
        Scalar("x")
    assert IntArray([1, -1, 3]).data == (1, -1, 3)
    assert IntArray(np.array([2, 3], dtype=np.int64)).data == (2, 3)
    assert IntArray(4).data == (4,)
    assert IntArray([]).data == ()
    with pytest.raises(InvalidArgument, match="IntArray expects ints"):
        IntArray([1.5])
    with pytest.raises(InvalidArgument):
        IntArray(True)


def test_a_tensor_on_a_device_without_the_device_layer_says_so(monkeypatch):
    # phi.core's tensors reach a device's context through phi.common.place.context_of, which
    # phi.backends installs; without it the copy to the host is refused by name, not with a
    # bare AttributeError / IndexError
    import phi.common.place as place_module
    from phi.common import GPUPlace
    from phi.core.errors import Unavailable
    from phi.core.tensor import DenseTensor

    monkeypatch.setattr(place_module, "_LOOKUP", [])
    # data that is not a numpy array, as a device's arrays are
    t = DenseTensor(np.ma.masked_array([1.0, 2.0]), DataType.FLOAT64, place=GPUPlace(0))
    with pytest.raises(Unavailable, match=r"No device context for Place\(gpu:0\)"):
        t.numpy()
