"""Mapping of ``adam``: the kernel by Grad's variable type (dense or SelectedRows); the beta and
epsilon tensors replace the attributes when given."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.signature import UNREGISTERED, KernelSignature

MAPPINGS = MappingFamily("adam")


@MAPPINGS.arg_mapping("adam")
def adam(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: the kernel is chosen by Grad's variable type; Beta1Tensor / Beta2Tensor /
    # EpsilonTensor replace the attributes when given.
    attrs = ("Beta1Tensor" if ctx.has_input("Beta1Tensor") else "beta1",
             "Beta2Tensor" if ctx.has_input("Beta2Tensor") else "beta2",
             "EpsilonTensor" if ctx.has_input("EpsilonTensor") else "epsilon",
             "lazy_mode", "min_row_size_to_use_multithread", "multi_precision",
             "use_global_beta_pow")
    inputs = ("Param", "Grad", "LearningRate", "Moment1", "Moment2", "Beta1Pow", "Beta2Pow",
              "MasterParam", "SkipUpdate")
    outputs = ("ParamOut", "Moment1Out", "Moment2Out", "Beta1PowOut", "Beta2PowOut",
               "MasterParamOut")
    if ctx.is_dense_tensor_input("Grad"):
        return KernelSignature("adam", inputs, attrs, outputs)
    if ctx.is_selected_rows_input("Grad"):
        return KernelSignature("adam_dense_param_sparse_grad", inputs, attrs, outputs)
    return UNREGISTERED
