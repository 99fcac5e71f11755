"""Mapping of ``batch_norm``: batch_norm_infer for plain inference, else batch_norm."""

from __future__ import annotations

from argmap.context import ArgumentMappingContext
from argmap.registry import MappingFamily
from argmap.signature import KernelSignature

MAPPINGS = MappingFamily("batch_norm")

_BN_INPUTS = ("X", "Mean", "Variance", "Scale", "Bias")


def _flag(ctx: ArgumentMappingContext, name: str) -> bool:
    # saved programs may lack these (fuse_with_relu is a runtime attribute)
    return bool(ctx.attr(name)) if ctx.has_attr(name) else False


@MAPPINGS.arg_mapping("batch_norm")
def batch_norm(ctx: ArgumentMappingContext) -> KernelSignature:
    # Irregular: batch_norm_infer only for plain inference (is_test without global statistics,
    # trainable statistics or a fused relu); the corpus shows is_test + use_global_stats runs
    # batch_norm.
    if (ctx.attr("is_test") and not _flag(ctx, "use_global_stats")
            and not _flag(ctx, "trainable_statistics") and not _flag(ctx, "fuse_with_relu")):
        return KernelSignature("batch_norm_infer", _BN_INPUTS,
                               ("momentum", "epsilon", "data_layout"),
                               ("Y", "MeanOut", "VarianceOut"))
    return KernelSignature(
        "batch_norm", _BN_INPUTS,
        ("is_test", "momentum", "epsilon", "data_layout", "use_global_stats",
         "trainable_statistics"),
        ("Y", "MeanOut", "VarianceOut", "SavedMean", "SavedVariance", "ReserveSpace"))
