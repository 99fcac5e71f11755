"""Irregular mappings that choose a SelectedRows kernel by a variable's type (issue 13, item 4):
Paddle 2.6.2's generated mappings of the optimizers (dense or SelectedRows Grad), of ``sum``
(``add_n_sr`` when every X is a SelectedRows) and of ``lookup_table_v2_grad`` (``is_sparse``)."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.signature import UNREGISTERED, KernelSignature

FAMILY = MappingFamily("selected_rows")

#: optimizer -> (inputs, attrs, outputs), identical for the dense and the sparse-gradient kernel
_OPTIMIZERS = {
    "adagrad": (("Param", "Grad", "Moment", "LearningRate", "MasterParam"),
                ("epsilon", "multi_precision"), ("ParamOut", "MomentOut", "MasterParamOut")),
    "momentum": (("Param", "Grad", "Velocity", "LearningRate", "MasterParam"),
                 ("mu", "use_nesterov", "regularization_method", "regularization_coeff",
                  "multi_precision", "rescale_grad"),
                 ("ParamOut", "VelocityOut", "MasterParamOut")),
    "rmsprop": (("Param", "MeanSquare", "Grad", "Moment", "LearningRate", "MeanGrad",
                 "MasterParam"), ("epsilon", "decay", "momentum", "centered", "multi_precision"),
                ("ParamOut", "MomentOut", "MeanSquareOut", "MeanGradOut", "MasterParamOut")),
}


def _dense_or_sparse_grad(op: str):
    inputs, attrs, outputs = _OPTIMIZERS[op]

    def mapping(ctx: ArgumentMappingContext) -> KernelSignature:
        # Irregular: the kernel is chosen by Grad's variable type (dense or SelectedRows).
        if ctx.is_dense_tensor_input("Grad"):
            return KernelSignature(op, inputs, attrs, outputs)
        if ctx.is_selected_rows_input("Grad"):
            return KernelSignature(f"{op}_dense_param_sparse_grad", inputs, attrs, outputs)
        return UNREGISTERED

    mapping.__name__ = mapping.__qualname__ = f"{op}_dense_or_sparse_grad"
    return mapping


for _op in _OPTIMIZERS:
    FAMILY.arg_mapping(_op)(_dense_or_sparse_grad(_op))


@FAMILY.arg_mapping("sgd")
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


@FAMILY.arg_mapping("adam")
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


@FAMILY.arg_mapping("sum")
def sum_(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: add_n_sr when every X is a SelectedRows; add_n (dense and mixed inputs) else.
    if ctx.is_selected_rows_inputs("X"):
        return KernelSignature("add_n_sr", ("X",), (), ("Out",))
    return KernelSignature("add_n", ("X",), (), ("Out",))


@FAMILY.arg_mapping("lookup_table_v2_grad", attr_values={"is_sparse": (False, True)})
def lookup_table_v2_grad(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: is_sparse chooses the SelectedRows gradient, W's type the sparse-weight form.
    sparse = bool(ctx.attr("is_sparse")) if ctx.has_attr("is_sparse") else False
    name = "embedding_sparse_grad" if sparse else "embedding_grad"
    if not ctx.is_dense_tensor_input("W"):
        name = f"sparse_weight_{name}"
    return KernelSignature(name, ("Ids", "W", "Out@GRAD"), ("padding_idx",), ("W@GRAD",))
