"""Argument definitions derived from kernel signatures, and per-argument overrides."""

from __future__ import annotations

from phi.common import Backend, DataLayout, DataType, IntArray, Scalar
from phi.core.kernel import ArgKind, AttributeType, Int64, Tensor
from phi.core.kernel_key import KernelKey
from phi.core.registry import KernelFactory, register_kernel


def test_args_def_from_signature_and_overrides():
    factory = KernelFactory()

    @register_kernel(
        "gather_like", "CPU", ["float32"],
        input_defs={"index": {"dtype": DataType.ALL_DTYPE}, "shape": {"backend":
                                                                      Backend.ALL_BACKEND}},
        output_defs={1: {"dtype": DataType.INT64}},
        factory=factory,
    )
    def gather_like(ctx, x: Tensor, index: Tensor, bias: Tensor | None, shape: list[Tensor],
                    axis: Scalar, sizes: IntArray, n: Int64, flag: bool, names: list[str],
                    dt: DataType) -> tuple[Tensor, Tensor, list[Tensor]]:
        raise AssertionError("not called")

    (kernel,) = factory.kernels_of("gather_like").values()
    d = kernel.args_def
    assert [(i.name, i.kind) for i in d.inputs] == [
        ("x", ArgKind.DENSE), ("index", ArgKind.DENSE), ("bias", ArgKind.OPTIONAL),
        ("shape", ArgKind.VECTOR),
    ]
    assert [a.type for a in d.attributes] == [
        AttributeType.SCALAR, AttributeType.INT_ARRAY, AttributeType.INT64, AttributeType.BOOL,
        AttributeType.STRINGS, AttributeType.DATA_TYPE,
    ]
    assert d.inputs[0].dtype is DataType.FLOAT32 and d.inputs[0].backend is Backend.CPU
    assert d.inputs[1].dtype is DataType.ALL_DTYPE
    assert d.inputs[3].backend is Backend.ALL_BACKEND
    assert [o.kind for o in d.outputs] == [ArgKind.DENSE, ArgKind.DENSE, ArgKind.VECTOR]
    assert d.outputs[1].dtype is DataType.INT64 and d.outputs[0].dtype is DataType.FLOAT32
    assert str(d) == (
        '{"input":["CPU, Undefined(AnyLayout), float32","CPU, Undefined(AnyLayout), '
        'Undefined(ALL_DTYPE)","CPU, Undefined(AnyLayout), float32","Undefined, '
        'Undefined(AnyLayout), float32"],"output":["CPU, Undefined(AnyLayout), float32",'
        '"CPU, Undefined(AnyLayout), int64","CPU, Undefined(AnyLayout), float32"],"attribute":'
        '["Scalar","IntArray","int64_t","bool","vector<std::string>","DataType"]}'
    )


def test_kernel_key_prints_as_paddle():
    key = KernelKey(Backend.CPU, DataLayout.ALL_LAYOUT, DataType.FLOAT32)
    assert str(key) == "(CPU, Undefined(AnyLayout), float32)"
    assert str(KernelKey(Backend.GPUDNN, DataLayout.NCHW, DataType.BFLOAT16)) == (
        "(GPUDNN, NCHW, bfloat16)"
    )
    assert key == KernelKey(Backend.CPU, DataLayout.ALL_LAYOUT, DataType.FLOAT32)
    assert hash(key) == hash(KernelKey(Backend.CPU, DataLayout.ALL_LAYOUT, DataType.FLOAT32))
