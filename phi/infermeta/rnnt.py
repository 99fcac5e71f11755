"""InferMeta of warprnnt (Paddle 2.6.2's WarprnntInferMeta)."""

from __future__ import annotations

from phi.infermeta._utils import UNKNOWN

__all__ = ["warprnnt_infer_meta"]


def warprnnt_infer_meta(input, label, input_lengths, label_lengths, blank: int,
                        fastemit_lambda: float, loss, warprnntgrad) -> None:
    """Loss [-1] of input's dtype (the kernel gives [B]); warprnntgrad input's dims."""
    loss.set_dims((UNKNOWN,))
    loss.set_dtype(input.dtype)
    warprnntgrad.set_dims(input.dims)
    warprnntgrad.set_dtype(input.dtype)
    warprnntgrad.set_layout(input.layout)
