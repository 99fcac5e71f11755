"""The ``renorm`` and ``renorm_grad`` kernels."""

from __future__ import annotations



from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import (as_array, quiet)

__all__ = ["renorm"]


FLOAT_DTYPES = ["float32", "float64"]


# -- renorm / spectral_norm ------------------------------------------------------------------------

@register_kernel("renorm", ("CPU", "GPU"), dtypes=FLOAT_DTYPES)
def renorm(ctx, x: Tensor, p: float, axis: int, max_norm: float) -> Tensor:
    """Each slice along ``axis`` whose p-norm exceeds ``max_norm`` scaled by max_norm / norm
    (no epsilon: checked on float64 against the wheel)."""
    xp = ctx.xp
    if not 0 <= axis < x.ndim:
        # Paddle 2.6.2 does not normalize a negative axis and fails (std::bad_alloc)
        raise InvalidArgument(f"renorm: attribute axis must be in [0, {x.ndim}) for an input of "
                              f"rank {x.ndim}, but received {axis}.")
    t = x.dtype.type
    rest = tuple(i for i in range(x.ndim) if i != axis)
    with quiet(xp):
        total = xp.sum(xp.abs(x) ** t(p), axis=rest, keepdims=True)
        n = total ** t(1.0 / p)
        scale = xp.where(n > t(max_norm), t(max_norm) / n, t(1))
        return as_array(xp, x * scale)


_F = ["float32", "float64"]


@register_kernel("renorm_grad", ("CPU", "GPU"), dtypes=_F)
def renorm_grad(ctx, x: Tensor, out_grad: Tensor, p: float, axis: int,
                max_norm: float) -> Tensor:
    """Paddle's RenormGradFunctor: per slice along ``axis`` with S = sum |x|^p and norm
    S^(1/p) > max_norm, dx = scale * dout + (-max_norm * S^(-1-1/p)) * sum(dout * x) *
    |x|^(p-1) * sign(x), scale = max_norm / (norm + 1e-7); other slices pass dout."""
    xp = ctx.xp
    t = x.dtype.type
    ax = axis % x.ndim
    others = tuple(i for i in range(x.ndim) if i != ax)
    with quiet(xp):
        s = xp.sum(xp.abs(x) ** t(p), axis=others, keepdims=True, dtype=x.dtype)
        norm = s ** t(1.0 / p)
        over = norm > t(max_norm)
        scale = xp.where(over, t(max_norm) / norm, t(1))
        power = xp.where(over, -t(max_norm) * s ** t(-1.0 - 1.0 / p), t(0))
        wd = xp.sum(out_grad * x, axis=others, keepdims=True, dtype=x.dtype)
        dx = scale * out_grad + power * wd * xp.abs(x) ** t(p - 1.0) * xp.sign(x)
    return as_array(xp, dx.astype(x.dtype, copy=False))
