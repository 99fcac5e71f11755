"""Mappings of the sparse legacy ops (``sparse_relu``, ``sparse_conv3d``, ``sparse_to_dense``
...): Paddle 2.6.2 generates them from phi's sparse_ops.yaml (generated_sparse_sig.cc, template
sparse_ks.c.j2 ``sparse_op_name_map``).  Irregular: the kernel is chosen by the tensor kinds of
the inputs.  Each YAML kernel ``func`` lists ``name {kind, ... -> ...}`` candidates; the
mapping tries them in order and keeps the LAST whose every input kind matches (the generated
code assigns ``kernel_name`` in a chain of independent ``if``s, no ``else``), else
"unregistered".  Inputs: the op's inputs that are kernel arguments; attributes: a Scalar
attribute becomes its ``<Name>Tensor`` input when given, an IntArray one its ``<Name>Tensor`` or
``<Name>TensorList`` (the op makers add those dispensable inputs); outputs: all of them.
"""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.signature import UNREGISTERED, KernelSignature

FAMILY = MappingFamily("sparse")

_UNARY = ("abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "expm1", "isnan", "log1p",
          "relu", "relu6", "sin", "sinh", "sqrt", "square", "tan", "tanh")

#: op (without ``sparse_``) -> (inputs, attrs, outputs, ((kernel, input kinds), ...)).
#: Attribute entries: a name, ("int_array", name, tensor slot, tensors slot) or
#: ("scalar", name, tensor slot).  Kinds: "coo", "csr", "dense".
SPARSE_OPS: dict[str, tuple] = {
    **{op: (("x",), (), ("out",), ((f"{op}_coo", ("coo",)), (f"{op}_csr", ("csr",))))
       for op in _UNARY},
    "leaky_relu": (("x",), ("alpha",), ("out",),
                   (("leaky_relu_coo", ("coo",)), ("leaky_relu_csr", ("csr",)))),
    "pow": (("x",), ("factor",), ("out",), (("pow_coo", ("coo",)), ("pow_csr", ("csr",)))),
    "scale": (("x",), ("scale", "bias", "bias_after_scale"), ("out",),
              (("scale_coo", ("coo",)), ("scale_csr", ("csr",)))),
    "divide_scalar": (("x",), ("scalar",), ("out",),
                      (("divide_scalar_coo", ("coo",)), ("divide_scalar_csr", ("csr",)))),
    "cast": (("x",), ("index_dtype", "value_dtype"), ("out",),
             (("cast_coo", ("coo",)), ("cast_csr", ("csr",)))),
    "add": (("x", "y"), (), ("out",),
            (("add_coo_coo", ("coo", "coo")), ("add_csr_csr", ("csr", "csr")),
             ("add_coo_dense", ("coo", "dense")))),
    **{op: (("x", "y"), (), ("out",),
            ((f"{op}_coo_coo", ("coo", "coo")), (f"{op}_csr_csr", ("csr", "csr"))))
       for op in ("subtract", "multiply", "divide")},
    "conv3d": (("x", "kernel"), ("paddings", "dilations", "strides", "groups", "subm", "key"),
               ("out", "rulebook", "counter"), (("conv3d_coo", ("coo", "dense")),)),
    "maxpool": (("x",), ("kernel_sizes", "paddings", "dilations", "strides"),
                ("out", "rulebook", "counter"), (("maxpool_coo", ("coo",)),)),
    "batch_norm": (("x", "mean", "variance", "scale", "bias"),
                   ("is_test", "momentum", "epsilon", "data_layout", "use_global_stats",
                    "trainable_statistics"),
                   ("out", "mean_out", "variance_out", "saved_mean", "saved_variance",
                    "reserve_space"),
                   (("batch_norm_coo", ("coo", "dense", "dense", "dense", "dense")),)),
    "sync_batch_norm": (("x", "mean", "variance", "scale", "bias"),
                        ("is_test", "momentum", "epsilon", "data_layout", "use_global_stats",
                         "trainable_statistics"),
                        ("out", "mean_out", "variance_out", "saved_mean", "saved_variance",
                         "reserve_space"),
                        (("sync_batch_norm_coo", ("coo", "dense", "dense", "dense", "dense")),)),
    "softmax": (("x",), ("axis",), ("out",),
                (("softmax_coo", ("coo",)), ("softmax_csr", ("csr",)))),
    "sparse_coo_tensor": (("values", "indices"), ("shape",), ("out",),
                          (("sparse_coo_tensor", ("dense", "dense")),)),
    "to_dense": (("x",), (), ("out",), (("coo_to_dense", ("coo",)), ("csr_to_dense", ("csr",)))),
    "to_sparse_coo": (("x",), ("sparse_dim",), ("out",),
                      (("dense_to_coo", ("dense",)), ("csr_to_coo", ("csr",)))),
    "to_sparse_csr": (("x",), (), ("out",),
                      (("dense_to_csr", ("dense",)), ("coo_to_csr", ("coo",)))),
    "values": (("x",), (), ("out",), (("values_coo", ("coo",)), ("values_csr", ("csr",)))),
    "indices": (("x",), (), ("out",), (("indices_coo", ("coo",)),)),
    "coalesce": (("x",), (), ("out",), (("coalesce_coo", ("coo",)),)),
    "full_like": (("x",), (("scalar", "value", "ValueTensor"), "dtype"), ("out",),
                  (("full_like_coo", ("coo",)), ("full_like_csr", ("csr",)))),
    "addmm": (("input", "x", "y"), ("beta", "alpha"), ("out",),
              (("addmm_csr_dense", ("dense", "csr", "dense")),
               ("addmm_csr_csr", ("csr", "csr", "csr")),
               ("addmm_coo_dense", ("dense", "coo", "dense")),
               ("addmm_coo_coo", ("coo", "coo", "coo")))),
    "matmul": (("x", "y"), (), ("out",),
               (("matmul_csr_dense", ("csr", "dense")), ("matmul_csr_csr", ("csr", "csr")),
                ("matmul_coo_dense", ("coo", "dense")), ("matmul_coo_coo", ("coo", "coo")))),
    "masked_matmul": (("x", "y", "mask"), (), ("out",),
                      (("masked_matmul_csr", ("dense", "dense", "csr")),)),
    "mv": (("x", "vec"), (), ("out",), (("mv_coo", ("coo", "dense")),
                                        ("mv_csr", ("csr", "dense")))),
    "fused_attention": (("query", "key", "value", "sparse_mask", "key_padding_mask",
                         "attn_mask"), (), ("out", "softmax"),
                        (("fused_attention_csr",
                          ("dense", "dense", "dense", "csr", "dense", "dense")),)),
    "transpose": (("x",), ("perm",), ("out",),
                  (("transpose_coo", ("coo",)), ("transpose_csr", ("csr",)))),
    "reshape": (("x",), (("int_array", "shape", "ShapeTensor", "ShapeTensorList"),), ("out",),
                (("reshape_coo", ("coo",)), ("reshape_csr", ("csr",)))),
    "slice": (("x",), (("int_array", "axes", "AxesTensor", "AxesTensorList"),
                       ("int_array", "starts", "StartsTensor", "StartsTensorList"),
                       ("int_array", "ends", "EndsTensor", "EndsTensorList")), ("out",),
              (("slice_coo", ("coo",)), ("slice_csr", ("csr",)))),
    "sum": (("x",), (("int_array", "axis", "AxisTensor", "AxisTensorList"), "dtype", "keepdim"),
            ("out",), (("sum_coo", ("coo",)), ("sum_csr", ("csr",)))),
}

#: kernels these mappings name that Paddle 2.6.2 registers for GPUs only (cuSPARSE / CUDA;
#: absent from the CPU wheel's registry, corpus phi_kernels.json): on CPU the lookup fails
#: with NotFound as in Paddle; `argmap check` accepts the names
GPU_ONLY_KERNELS = frozenset({
    "acos_coo", "acos_csr", "acosh_coo", "acosh_csr", "addmm_coo_coo", "addmm_csr_csr",
    "fused_attention_csr", "matmul_coo_coo", "matmul_coo_dense", "matmul_csr_csr",
    "sync_batch_norm_coo"})

#: optional inputs of the kernels (fused_attention's masks): absent counts as a match
_OPTIONAL = {"fused_attention": ("key_padding_mask", "attn_mask")}


def _kind_matches(ctx: ArgumentMappingContext, slot: str, kind: str, optional: bool) -> bool:
    if optional and not ctx.has_input(slot):
        return True
    if kind == "coo":
        return ctx.is_sparse_coo_tensor_input(slot)
    if kind == "csr":
        return ctx.is_sparse_csr_tensor_input(slot)
    return ctx.is_dense_tensor_input(slot)


def _attr_name(ctx: ArgumentMappingContext, attr) -> str:
    if isinstance(attr, str):
        return attr
    if attr[0] == "scalar":
        return attr[2] if ctx.has_input(attr[2]) else attr[1]
    _, name, tensor, tensors = attr
    if ctx.has_input(tensor):
        return tensor
    return tensors if ctx.input_size(tensors) > 0 else name


def _sparse_mapping(op: str):
    inputs, attrs, outputs, candidates = SPARSE_OPS[op]
    optional = _OPTIONAL.get(op, ())

    def mapping(ctx: ArgumentMappingContext) -> KernelSignature:
        # Irregular: the kernel is chosen by the inputs' tensor kinds (COO / CSR / dense).
        name = None
        for kernel, kinds in candidates:
            if all(_kind_matches(ctx, slot, kind, slot in optional)
                   for slot, kind in zip(inputs, kinds, strict=True)):
                name = kernel  # a later match wins, as in the generated chain of ifs
        if name is None:
            return UNREGISTERED
        return KernelSignature(name, inputs, tuple(_attr_name(ctx, a) for a in attrs), outputs)

    mapping.__name__ = mapping.__qualname__ = f"sparse_{op}_mapping"
    return mapping


for _op in SPARSE_OPS:
    FAMILY.arg_mapping(f"sparse_{_op}")(_sparse_mapping(_op))
