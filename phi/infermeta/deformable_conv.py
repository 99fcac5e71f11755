"""InferMeta of deformable_conv."""

from __future__ import annotations

from phi.core.errors import InvalidArgument
from phi.infermeta._utils import set_meta

__all__ = ["deformable_conv_infer_meta"]


def deformable_conv_infer_meta(x, offset, filter, mask, strides, paddings, dilations,
                               deformable_groups, groups, im2col_step, out) -> None:
    """The convolution's output dims [N, M, OH, OW]."""
    if len(x.dims) != 4 or len(filter.dims) != 4:
        raise InvalidArgument(f"deformable_conv: Input and Filter must be 4-D, got dims "
                              f"{list(x.dims)} and {list(filter.dims)}.")
    if len(strides) != 2 or len(paddings) < 2 or len(dilations) != 2:
        raise InvalidArgument("deformable_conv: strides, paddings and dilations must hold 2 "
                              "values each.")
    if min(strides) <= 0 or min(dilations) <= 0:
        raise InvalidArgument(f"deformable_conv: strides and dilations must be positive, got "
                              f"{strides} and {dilations}.")
    n, _, h, w = x.dims
    m, _, kh, kw = filter.dims

    def size(i, k, s, p, d):
        return -1 if i == -1 else (i + 2 * p - (d * (k - 1) + 1)) // s + 1

    set_meta(out, (n, m, size(h, kh, strides[0], paddings[0], dilations[0]),
                   size(w, kw, strides[1], paddings[1], dilations[1])), x.dtype)
