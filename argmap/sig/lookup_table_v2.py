"""Mapping of ``lookup_table_v2_grad`` (the forward op needs none: its default signature):
is_sparse chooses the SelectedRows gradient, W's type the sparse-weight form."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.signature import KernelSignature

MAPPINGS = MappingFamily("lookup_table_v2")


@MAPPINGS.arg_mapping("lookup_table_v2_grad", attr_values={"is_sparse": (False, True)})
def lookup_table_v2_grad(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: is_sparse chooses the SelectedRows gradient, W's type the sparse-weight form.
    sparse = bool(ctx.attr("is_sparse")) if ctx.has_attr("is_sparse") else False
    name = "embedding_sparse_grad" if sparse else "embedding_grad"
    if not ctx.is_dense_tensor_input("W"):
        name = f"sparse_weight_{name}"
    return KernelSignature(name, ("Ids", "W", "Out@GRAD"), ("padding_idx",), ("W@GRAD",))
