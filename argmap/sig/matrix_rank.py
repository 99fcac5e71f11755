"""Mapping of ``matrix_rank``: a TolTensor input selects matrix_rank_tol."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.signature import KernelSignature

MAPPINGS = MappingFamily("matrix_rank")


@MAPPINGS.arg_mapping("matrix_rank")
def matrix_rank(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: a TolTensor input selects the matrix_rank_tol kernel (Paddle's
    # MatrixRankOpArgumentMapping).
    if ctx.has_input("TolTensor"):
        return KernelSignature("matrix_rank_tol", ("X", "TolTensor"),
                               ("use_default_tol", "hermitian"), ("Out",))
    return KernelSignature("matrix_rank", ("X",), ("tol", "use_default_tol", "hermitian"),
                           ("Out",))
