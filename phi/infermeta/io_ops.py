"""InferMeta of issue 12's control ops (nop, share_buffer)."""

from __future__ import annotations

__all__ = ["nop_infer_meta", "share_buffer_infer_meta"]


def nop_infer_meta(x: list, out: list) -> None:
    """nop sets nothing: its outputs stay as they are."""


def share_buffer_infer_meta(x: list, share_dims_and_dtype, out: list, xout: list) -> None:
    """ShareBufferInferMeta: Out[i] and XOut[i] take X[i]'s meta."""
    for src, o, xo in zip(x, out, xout, strict=False):
        if o is not None:
            o.share_meta(src)
        if xo is not None:
            xo.share_meta(src)
