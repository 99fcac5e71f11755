"""The ``bce_loss`` and ``bce_loss_grad`` kernels."""

from __future__ import annotations


from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, quiet

__all__ = ["bce_loss"]


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
FLOAT_DTYPES = ["float32", "float64"]


@register_kernel("bce_loss", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def bce_loss(ctx, input: Tensor, label: Tensor) -> Tensor:
    """(label - 1) * max(log(1 - x), -100) - label * max(log(x), -100); x must be in [0, 1]."""
    xp = ctx.xp
    t = input.dtype.type
    if input.size and not bool(xp.all((input >= 0) & (input <= 1))):
        bad = float(input[~((input >= 0) & (input <= 1))].reshape(-1)[0])
        raise InvalidArgument("bce_loss: Input(X) is expected to be within the interval [0, 1], "
                              f"but received {bad:f}.")
    with quiet(xp):
        term1 = xp.maximum(xp.log(input), t(-100))
        term2 = xp.maximum(xp.log(t(1) - input), t(-100))
        return as_array(xp, (label - t(1)) * term2 - label * term1)


# Paddle 2.6.2 CPU registrations of the grad kernels (corpus phi_kernels.json)
FLOATS = ["float32", "float64"]


@register_kernel("bce_loss_grad", ("CPU", "GPU"), dtypes=FLOATS)
def bce_loss_grad(ctx, input: Tensor, label: Tensor, out_grad: Tensor) -> Tensor:
    """dout * (x - label) / max((1 - x) * x, 1e-12)."""
    xp = ctx.xp
    t = input.dtype.type
    with quiet(xp):
        return as_array(xp, out_grad * (input - label)
                        / xp.maximum((t(1) - input) * input, t(1e-12)))
