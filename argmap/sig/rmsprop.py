"""Mapping of ``rmsprop``: ``rmsprop`` for a dense Grad, ``rmsprop_dense_param_sparse_grad`` for a
SelectedRows one (the same arguments)."""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import dense_or_sparse_grad

MAPPINGS = MappingFamily("rmsprop")

# Irregular: the kernel is chosen by Grad's variable type (dense or SelectedRows).
MAPPINGS.add(
    "rmsprop",
    dense_or_sparse_grad(
        "rmsprop",
        inputs=("Param", "MeanSquare", "Grad", "Moment", "LearningRate", "MeanGrad", "MasterParam"),
        attrs=("epsilon", "decay", "momentum", "centered", "multi_precision"),
        outputs=("ParamOut", "MomentOut", "MeanSquareOut", "MeanGradOut", "MasterParamOut"),
    ),
)
