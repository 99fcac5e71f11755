"""The ``margin_cross_entropy`` kernel."""

from __future__ import annotations


from phi.common.data_type import DataType
from phi.core.errors import Unavailable
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel

__all__ = ["margin_cross_entropy"]


MARGIN_DTYPES = ["float16", "float32", "float64"]


_ANY = {"dtype": DataType.ALL_DTYPE}  # labels, indices and state tensors of their own dtypes


@register_kernel("margin_cross_entropy", ("CPU", "GPU"), dtypes=MARGIN_DTYPES,
                 input_defs={"label": _ANY})
def margin_cross_entropy(ctx, logits: Tensor, label: Tensor, return_softmax: bool, ring_id: int,
                         rank: int, nranks: int, margin1: float, margin2: float, margin3: float,
                         scale: float) -> tuple[Tensor, Tensor]:
    """Paddle 2.6.2 registers it on the CPU only to refuse it."""
    raise Unavailable("Do not support margin_cross_entropy for cpu kernel now.")
