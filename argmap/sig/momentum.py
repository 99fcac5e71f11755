"""Mapping of ``momentum``: ``momentum`` for a dense Grad, ``momentum_dense_param_sparse_grad`` for
a SelectedRows one (the same arguments)."""

from __future__ import annotations

from argmap.registry import MappingFamily
from argmap.sig.funcs import dense_or_sparse_grad

MAPPINGS = MappingFamily("momentum")

# Irregular: the kernel is chosen by Grad's variable type (dense or SelectedRows).
MAPPINGS.add(
    "momentum",
    dense_or_sparse_grad(
        "momentum",
        inputs=("Param", "Grad", "Velocity", "LearningRate", "MasterParam"),
        attrs=(
            "mu",
            "use_nesterov",
            "regularization_method",
            "regularization_coeff",
            "multi_precision",
            "rescale_grad",
        ),
        outputs=("ParamOut", "VelocityOut", "MasterParamOut"),
    ),
)
