"""The ``diag_embed`` kernel."""

from __future__ import annotations



from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import norm_axis
from phi.kernels.funcs import owned
from phi.kernels.funcs.manipulation import DIAG_EMBED_DTYPES

__all__ = ["diag_embed"]


@register_kernel("diag_embed", ("CPU", "GPU"), dtypes=DIAG_EMBED_DTYPES)
def diag_embed(ctx, input: Tensor, offset: int, dim1: int, dim2: int) -> Tensor:
    """Matrices (at dims dim1, dim2) holding input's last dim on their ``offset`` diagonal."""
    xp = ctx.xp
    if input.ndim == 0:
        raise InvalidArgument("diag_embed: Input must be at least 1-D, but received a 0-D "
                              "tensor.")
    rank = input.ndim + 1
    d1 = norm_axis(dim1, rank, "diag_embed", "dim1")
    d2 = norm_axis(dim2, rank, "diag_embed", "dim2")
    if d1 == d2:
        raise InvalidArgument(f"diag_embed: dim1 and dim2 cannot be the same dimension, but "
                              f"received dim1 = {dim1}, dim2 = {dim2}.")
    m = input.shape[-1]
    n = m + abs(offset)
    out = xp.zeros((*input.shape[:-1], n, n), dtype=input.dtype)
    i = xp.arange(m)
    rows, cols = (i, i + offset) if offset >= 0 else (i - offset, i)
    out[..., rows, cols] = input
    return owned(xp, xp.moveaxis(out, (-2, -1), (d1, d2)))
