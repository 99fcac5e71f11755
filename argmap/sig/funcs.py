"""Helpers shared by the mapping modules of ``argmap/sig``: mapping-function makers for ops
whose mappings differ only by names (the elementwise ops' axis, the reductions' reduce_all,
the optimizers' gradient kind, the sparse ops' tensor kinds) and the shape source of the
random ops.  This module registers no mapping; each op's module calls these.

Sparse legacy ops (``sparse_relu``, ``sparse_conv3d``, ``sparse_to_dense`` ...): Paddle 2.6.2
generates their mappings from phi's sparse_ops.yaml (generated_sparse_sig.cc, template
sparse_ks.c.j2 ``sparse_op_name_map``).  Irregular: the kernel is chosen by the tensor kinds of
the inputs.  Each YAML kernel ``func`` lists ``name {kind, ... -> ...}`` candidates; the
mapping tries them in order and keeps the LAST whose every input kind matches (the generated
code assigns ``kernel_name`` in a chain of independent ``if``s, no ``else``), else
"unregistered".  Inputs: the op's inputs that are kernel arguments; attributes: a Scalar
attribute becomes its ``<Name>Tensor`` input when given, an IntArray one its ``<Name>Tensor`` or
``<Name>TensorList`` (the op makers add those dispensable inputs); outputs: all of them.
"""

from __future__ import annotations

from collections.abc import Sequence

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFn
from argmap.signature import UNREGISTERED, KernelSignature

__all__ = [
    "GPU_ONLY_KERNELS",
    "dense_or_sparse_grad",
    "plain_or_raw",
    "reduce_or_raw",
    "shape_source",
    "sparse_mapping",
]


def plain_or_raw(kernel: str) -> MappingFn:
    """The mapping of an elementwise op whose phi kernel ``<kernel>_raw`` takes the legacy
    axis."""

    def mapping(ctx: ArgumentMappingContext) -> KernelSignature:
        # Irregular: the legacy axis only reaches the kernel (`<kernel>_raw`) when it is not -1.
        if ctx.attr("axis") == -1:
            return KernelSignature(kernel, ("X", "Y"), (), ("Out",))
        return KernelSignature(f"{kernel}_raw", ("X", "Y"), ("axis",), ("Out",))

    mapping.__name__ = mapping.__qualname__ = f"{kernel}_or_{kernel}_raw"
    return mapping


def reduce_or_raw(kernel: str, raw: str) -> MappingFn:
    """The mapping of a reduce op: the plain kernel, or `raw` (which takes reduce_all)."""

    def mapping(ctx: ArgumentMappingContext) -> KernelSignature:
        # Irregular: the `raw` kernel (with reduce_all) when reduce_all is set or InferShape
        # asks, since InferMeta needs reduce_all; else the plain one.
        if not ctx.is_dense_tensor_input("X"):
            return UNREGISTERED
        if ctx.is_for_infer_shape() or ctx.attr("reduce_all"):
            return KernelSignature(raw, ("X",), ("dim", "keep_dim", "reduce_all"), ("Out",))
        return KernelSignature(kernel, ("X",), ("dim", "keep_dim"), ("Out",))

    mapping.__name__ = mapping.__qualname__ = f"{kernel}_or_{raw}"
    return mapping


def dense_or_sparse_grad(op: str, inputs: tuple[str, ...], attrs: tuple[str, ...],
                         outputs: tuple[str, ...]) -> MappingFn:
    """The mapping of an optimizer whose dense and sparse-gradient kernels
    (``<op>_dense_param_sparse_grad``) take the same arguments."""

    def mapping(ctx: ArgumentMappingContext) -> KernelSignature:
        # Irregular: the kernel is chosen by Grad's variable type (dense or SelectedRows).
        if ctx.is_dense_tensor_input("Grad"):
            return KernelSignature(op, inputs, attrs, outputs)
        if ctx.is_selected_rows_input("Grad"):
            return KernelSignature(f"{op}_dense_param_sparse_grad", inputs, attrs, outputs)
        return UNREGISTERED

    mapping.__name__ = mapping.__qualname__ = f"{op}_dense_or_sparse_grad"
    return mapping


def shape_source(ctx: ArgumentMappingContext) -> str:
    """The random ops' shape: ShapeTensorList > ShapeTensor (only when ``shape`` is empty) >
    shape."""
    if ctx.input_size("ShapeTensorList") > 0:
        return "ShapeTensorList"
    if ctx.has_input("ShapeTensor") and not ctx.attr("shape"):
        return "ShapeTensor"
    return "shape"


# -- sparse ops ---------------------------------------------------------------------------------

#: kernels the sparse mappings name that Paddle 2.6.2 registers for GPUs only (cuSPARSE / CUDA;
#: absent from the CPU wheel's registry, corpus phi_kernels.json): on CPU the lookup fails
#: with NotFound as in Paddle; `argmap check` accepts the names
GPU_ONLY_KERNELS = frozenset({
    "acos_coo", "acos_csr", "acosh_coo", "acosh_csr", "addmm_coo_coo", "addmm_csr_csr",
    "fused_attention_csr", "matmul_coo_coo", "matmul_coo_dense", "matmul_csr_csr",
    "sync_batch_norm_coo"})


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


def sparse_mapping(op: str, inputs: tuple[str, ...], attrs: tuple, outputs: tuple[str, ...],
                   candidates: Sequence[tuple[str, tuple[str, ...]]],
                   optional: tuple[str, ...] = ()) -> MappingFn:
    """The mapping of ``sparse_<op>`` (see the module docstring).  `candidates`: (kernel,
    input kinds), kinds "coo", "csr", "dense"; `attrs`: a name, ("int_array", name, tensor
    slot, tensors slot) or ("scalar", name, tensor slot); `optional`: inputs the kernel may
    lack (absent counts as a match)."""

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
