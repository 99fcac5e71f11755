"""Mapping of ``adagrad``: ``adagrad`` for a dense Grad, ``adagrad_dense_param_sparse_grad`` for a
SelectedRows one (the same arguments)."""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import dense_or_sparse_grad

MAPPINGS = MappingFamily("adagrad")

# Irregular: the kernel is chosen by Grad's variable type (dense or SelectedRows).
MAPPINGS.add(
    "adagrad",
    dense_or_sparse_grad(
        "adagrad",
        inputs=("Param", "Grad", "Moment", "LearningRate", "MasterParam"),
        attrs=("epsilon", "multi_precision"),
        outputs=("ParamOut", "MomentOut", "MasterParamOut"),
    ),
)
