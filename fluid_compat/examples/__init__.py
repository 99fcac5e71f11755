"""Bundled example models, written by PaddlePaddle 2.6.2 (package data, read-only).

``jit_convnet/``: a small CNN exported by ``paddle.jit.save`` (conv2d, batch_norm,
depthwise_conv2d, hard_swish, pool2d, flatten_contiguous_range, matmul_v2, log_softmax ...),
with Paddle's input ``input_image.npy`` and its recorded output ``output_0.npy``.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["example_prefix", "EXAMPLES"]

EXAMPLES = ("jit_convnet",)


def example_prefix(name: str = "jit_convnet") -> Path:
    """The path prefix of a bundled model (``.../jit_convnet/inference``)."""
    if name not in EXAMPLES:
        raise ValueError(f"unknown example {name!r}; bundled: {', '.join(EXAMPLES)}")
    return Path(__file__).with_name(name) / "inference"
