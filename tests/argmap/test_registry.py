"""The registry: lookup order, default signatures, base names, deprecated names, duplicates."""

from __future__ import annotations

import pytest

import argmap
from argmap import (
    BASE_KERNEL_NAMES,
    DEPRECATED_OP_NAMES,
    ArgMappingRegistry,
    KernelSignature,
    MappingFamily,
    base_kernel_name,
    default_registry,
    default_signature,
    get_kernel_signature,
    has_compatible_phi_kernel,
    is_deprecated_op,
    parse_compat,
)
from opmakers import AttrType, OpMaker, OpProto
from phi.core.errors import AlreadyExists, NotFound
from phi.core.registry import KernelFactory
from tests.argmap.corpus import corpus_json, load_data
from tests.argmap.dict_context import DictContext


def _proto(define) -> OpProto:
    maker = OpMaker("my_op")
    define(maker)
    return maker.build()[0]


def _busy_op(m: OpMaker) -> None:
    m.add_input("X")
    m.add_input("Bias").as_dispensable()
    m.add_input("Scale").as_extra()
    m.add_input("QScale").as_quant()
    m.add_input("Y").as_duplicable()
    m.add_output("Out")
    m.add_output("XShape").as_intermediate()
    m.add_output("Reserve").as_dispensable()
    m.add_output("Workspace").as_extra()
    m.add_output("QOut").as_quant()
    m.add_attr("axis", AttrType.INT, default=-1)
    m.add_attr("use_mkldnn", AttrType.BOOLEAN, default=False)  # skipped by name
    m.add_attr("use_cudnn", AttrType.BOOLEAN, default=True)  # skipped by name
    m.add_attr("fuse_alpha", AttrType.FLOAT, default=0.0).as_extra()
    m.add_attr("scale_in", AttrType.FLOAT, default=1.0).as_quant()
    m.add_attr("keep_dim", AttrType.BOOLEAN, default=False)
    m.add_runtime_attr("is_test", AttrType.BOOLEAN, default=False)


def test_default_signature_rule() -> None:
    # §6.2: inputs skip extra, quant and dispensable; attributes skip extra, quant and the named
    # framework ones (op_role ... are extra anyway); outputs skip extra and quant only.
    sig = default_signature(_proto(_busy_op), "my_kernel")
    assert sig == KernelSignature("my_kernel", ("X", "Y"), ("axis", "keep_dim"),
                                  ("Out", "XShape", "Reserve"))


def test_default_signature_keeps_attributes_the_legacy_proto_does_not_mark_extra() -> None:
    # pool2d's use_cudnn is a plain attribute of its OpProto: skipped by name
    proto = default_registry().proto("pool2d")
    assert not proto.attr("use_cudnn").extra
    sig = default_signature(proto, "pool2d")
    assert "use_cudnn" not in sig.attrs and sig.attrs[0] == "ksize"
    # cast's use_mkldnn too, while in_dtype is passed by the rule (cast is declared instead)
    assert default_signature(default_registry().proto("cast"), "cast").attrs == (
        "out_dtype", "in_dtype")


@pytest.mark.parametrize(("op", "expected"), [
    ("relu", "name: relu; inputs: X; attributes: ; outputs: Out"),
    ("feed", "name: feed_dense_tensor; inputs: X; attributes: col; outputs: Out"),
    # X is dispensable: the default rule drops it, which is why assign is declared
    ("assign", "name: assign; inputs: ; attributes: ; outputs: Out"),
    # XShape is intermediate and extra: dropped; the declared entry agrees
    ("transpose2", "name: transpose; inputs: X; attributes: axis; outputs: Out"),
    # Seed (dispensable + extra) and Mask (extra) are dropped: dropout must be declared
    ("dropout", ("name: dropout; inputs: X; attributes: dropout_prob, is_test, "
                "dropout_implementation; outputs: Out")),
])
def test_default_signatures_of_real_protos(op: str, expected: str) -> None:
    assert str(default_registry().default_signature(op)) == expected


def test_lookup_order_function_then_declared_then_default() -> None:
    protos = {"my_op": _proto(_busy_op), "other": _proto(_busy_op)}
    family = MappingFamily("test")

    @family.arg_mapping("my_op")
    def my_op(ctx):
        return KernelSignature("from_function", ("X",), (), ("Out",))

    compat = parse_compat("- {op: declared_op, kernel: from_yaml, inputs: [X], attrs: [axis], "
                          "outputs: [Out]}\n")
    registry = ArgMappingRegistry(compat=compat, families=[family], proto_of=protos.__getitem__,
                                  op_types_with_proto=lambda: protos)
    ctx = DictContext({"X": ["x"]}, {"Out": ["o"]}, {"axis": 0})
    assert registry.get_kernel_signature("my_op", ctx).name == "from_function"
    assert registry.get_kernel_signature("declared_op", ctx).name == "from_yaml"
    assert registry.get_kernel_signature("other", ctx).name == "other"
    assert registry.how_mapped("my_op") == "function"
    assert registry.how_mapped("declared_op") == "declared"
    assert registry.how_mapped("other") == "default"


def test_unknown_op_raises_not_found_with_close_names() -> None:
    with pytest.raises(NotFound, match="reshape2"):
        get_kernel_signature("reshape3", DictContext())


def test_duplicate_registration_raises() -> None:
    registry = ArgMappingRegistry(compat=parse_compat(
        "- {op: concat, kernel: concat, inputs: [X], attrs: [axis], outputs: [Out]}\n"))

    def fn(ctx):
        return KernelSignature("k")

    registry.register("my_op", fn)
    with pytest.raises(AlreadyExists, match="my_op already has a mapping function"):
        registry.register("my_op", fn)
    with pytest.raises(AlreadyExists, match="declared mapping"):
        registry.arg_mapping("concat")(fn)
    family = MappingFamily("f")
    family.add("x", fn)
    with pytest.raises(AlreadyExists, match="defined twice in family f"):
        family.arg_mapping("x")(fn)


def test_the_process_wide_registry_refuses_a_second_mapping() -> None:
    with pytest.raises(AlreadyExists, match="reshape2"):
        argmap.arg_mapping("reshape2")(lambda ctx: KernelSignature("reshape"))
    with pytest.raises(AlreadyExists, match="op_compat.yaml"):
        argmap.arg_mapping("concat")(lambda ctx: KernelSignature("concat"))


# -- deprecated names and base kernel names -----------------------------------------------------

REFERENCE_DEPRECATED = (
    "diag", "flatten", "flatten_grad", "isinf", "isnan", "unsqueeze", "unsqueeze_grad", "squeeze",
    "squeeze_grad", "isfinite", "fill", "matmul", "matmul_grad", "matmul_grad_grad", "max",
    "max_grad", "min", "min_grad", "prod", "prod_grad", "any", "all", "reshape", "reshape_grad",
    "expand", "expand_as", "expand_grad", "expand_as_grad", "one_hot", "top_k", "top_k_grad",
    "linear_interp", "linear_interp_grad", "bilinear_interp", "bilinear_interp_grad",
    "trilinear_interp", "trilinear_interp_grad", "nearest_interp", "nearest_interp_grad",
    "bicubic_interp", "bicubic_interp_grad", "crop", "crop_grad", "generate_proposals",
)


def test_deprecated_names_are_the_reference_list() -> None:
    assert frozenset(REFERENCE_DEPRECATED) == DEPRECATED_OP_NAMES
    assert len(REFERENCE_DEPRECATED) == len(set(REFERENCE_DEPRECATED))


@pytest.mark.parametrize("op", ["matmul", "reshape", "top_k", "nearest_interp", "flatten",
                                "expand", "one_hot"])
def test_deprecated_ops_never_reach_a_phi_kernel(op: str) -> None:
    # a phi kernel of the same name exists (and has other semantics): still not compatible
    factory = KernelFactory()
    factory.has_kernel = lambda name: True  # type: ignore[method-assign]
    assert is_deprecated_op(op)
    assert base_kernel_name(op) == "deprecated"
    assert not has_compatible_phi_kernel(op, factory)
    ctx = DictContext({"X": ["x"], "Y": ["y"]}, {"Out": ["o"]}, {"transpose_X": False})
    assert get_kernel_signature(op, ctx) is None
    assert default_registry().default_signature(op) is None
    assert "deprecated" in default_registry().no_signature_reason(op)


def test_fetch_runs_no_kernel() -> None:
    assert get_kernel_signature("fetch", DictContext({"X": ["x"]}, {"Out": ["f"]})) is None
    assert not has_compatible_phi_kernel("fetch")


def test_has_compatible_phi_kernel() -> None:
    empty = KernelFactory()
    assert has_compatible_phi_kernel("reshape2", empty)  # mapped: no factory needed
    assert has_compatible_phi_kernel("hard_swish", empty)
    assert has_compatible_phi_kernel("lookup_table_v2", empty)  # a renamed base kernel
    assert not has_compatible_phi_kernel("relu", empty)  # default: only with a relu kernel
    assert not has_compatible_phi_kernel("flatten2", empty)

    class HasRelu:
        def has_kernel(self, name: str) -> bool:
            return name == "relu"

    assert has_compatible_phi_kernel("relu", HasRelu())


def test_base_kernel_names_equal_the_corpus_copy() -> None:
    # data/phi_kernel_names.json: Paddle 2.6.2's core._get_phi_kernel_name where it differs
    names = load_data("phi_kernel_names.json")["names"]
    for op, kernel in names.items():
        assert base_kernel_name(op) == kernel, op
    renamed = {op: k for op, k in names.items() if k != "deprecated"}
    assert dict(BASE_KERNEL_NAMES) == renamed


def test_base_kernel_names_equal_the_corpus() -> None:
    protos = corpus_json("op_protos.json")["ops"]
    for op, proto in protos.items():
        assert base_kernel_name(op) == proto["phi_kernel_name"], op


def test_fluid_op_name_reverses_the_base_name_map() -> None:
    assert argmap.fluid_op_name("add") == "elementwise_add"
    assert argmap.fluid_op_name("matmul_with_flatten") == "mul"
    assert argmap.fluid_op_name("relu") == "relu"
