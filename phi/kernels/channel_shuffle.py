"""The ``channel_shuffle`` and ``channel_shuffle_grad`` kernels."""

from __future__ import annotations



from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import owned
from phi.kernels.funcs.manipulation import check_4d

__all__ = ["channel_shuffle"]


SHUFFLE_DTYPES = ["float32", "float64"]


@register_kernel("channel_shuffle", ("CPU", "GPU"), dtypes=SHUFFLE_DTYPES)
def channel_shuffle(ctx, x: Tensor, groups: int, data_format: str) -> Tensor:
    """Channels regrouped: [g, C/g] -> [C/g, g]."""
    xp = ctx.xp
    last = check_4d(x, data_format, "channel_shuffle")
    n, *rest = x.shape
    c = rest[2] if last else rest[0]
    if groups <= 0 or c % groups:
        raise InvalidArgument(f"The number of groups should divide the number of channels, but "
                              f"received groups = {groups}, channels = {c}.")
    if last:
        y = xp.reshape(x, (n, rest[0], rest[1], groups, c // groups))
        y = xp.permute_dims(y, (0, 1, 2, 4, 3))
    else:
        y = xp.reshape(x, (n, groups, c // groups, rest[1], rest[2]))
        y = xp.permute_dims(y, (0, 2, 1, 3, 4))
    return xp.reshape(owned(xp, y), x.shape)


FLOATS = ["float32", "float64"]


@register_kernel("channel_shuffle_grad", ("CPU", "GPU"), dtypes=FLOATS)
def channel_shuffle_grad(ctx, out_grad: Tensor, groups: int, data_format: str) -> Tensor:
    """channel_shuffle of the output gradient with C / groups groups (the inverse regrouping)."""
    c = out_grad.shape[3] if data_format == "NHWC" else out_grad.shape[1]
    return channel_shuffle(ctx, out_grad, c // groups, data_format)
