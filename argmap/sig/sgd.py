"""Mapping of ``sgd``: the kernel by Param's and Grad's variable types (dense or SelectedRows)."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.signature import UNREGISTERED, KernelSignature

MAPPINGS = MappingFamily("sgd")


@MAPPINGS.arg_mapping("sgd")
def sgd(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: the kernel is chosen by Param's and Grad's variable types.
    args = (("Param", "LearningRate", "Grad", "MasterParam"), ("multi_precision",),
            ("ParamOut", "MasterParamOut"))
    if ctx.is_dense_tensor_input("Grad"):
        return KernelSignature("sgd", *args)
    if ctx.is_selected_rows_input("Grad"):
        if ctx.is_dense_tensor_input("Param"):
            return KernelSignature("sgd_dense_param_sparse_grad", *args)
        if ctx.is_selected_rows_input("Param"):
            return KernelSignature("sgd_sparse_param_sparse_grad", *args)
    return UNREGISTERED
