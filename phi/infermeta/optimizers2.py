"""InferMeta of dgc_momentum and merged_adam (issue 13): every output takes the meta of the
input it updates, as Paddle's DGCMomentumInferMeta / MergedAdamInferMeta do."""

from __future__ import annotations

from phi.infermeta.optimizers import _like

__all__ = ["dgc_momentum_infer_meta", "merged_adam_infer_meta"]

# (number of inputs + attributes, {output index: argument index})
dgc_momentum_infer_meta = _like(14, {0: 0, 1: 2, 2: 4, 3: 1}, "dgc_momentum_infer_meta")
merged_adam_infer_meta = _like(13, {0: 0, 1: 3, 2: 4, 3: 5, 4: 6, 5: 7},
                               "merged_adam_infer_meta")
