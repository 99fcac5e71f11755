"""Batch normalization: batch_norm and batch_norm_infer (Paddle's
paddle/phi/kernels/cpu/batch_norm_kernel.cc and batch_norm_kernel.cc).

y = x * (inv_std * scale) + (bias - mean * inv_std * scale), per channel, in x's dtype, with
the statistics Paddle's CPU kernel uses:

* global statistics (``is_test`` without ``trainable_statistics``, or ``use_global_stats``):
  the running Mean/Variance, inv_std = 1 / sqrt(variance + epsilon).  MeanOut/VarianceOut are
  the running values unchanged (Paddle writes them in place into Mean/Variance).  Paddle leaves
  SavedMean/SavedVariance unwritten; here they are zeros.
* otherwise the batch's mean and biased variance; MeanOut = Mean * momentum + batch_mean *
  (1 - momentum) (likewise VarianceOut); SavedMean = batch mean, SavedVariance = the inverse
  standard deviation sqrt(1 / (var + epsilon)), as Paddle saves it for the gradient.  With one
  element per channel y = x and the running statistics stay.

A 2-D input has its channels last whatever ``data_layout`` says (Paddle treats it as NHWC).
ReserveSpace is written by cuDNN only: an empty array here.
"""

from __future__ import annotations

from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import batch_norm_channels
from phi.kernels.funcs import owned, quiet

__all__ = ["batch_norm", "batch_norm_infer", "global_stats_coefficients"]

# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json)
BATCH_NORM_DTYPES = ["float32", "float64"]
BATCH_NORM_INFER_DTYPES = ["float32", "float64"]


def _batch_norm(ctx, x, mean, variance, scale, bias, momentum: float, epsilon: float,
                data_layout: str, global_stats: bool):
    """(y, mean_out, variance_out, saved_mean, saved_variance)."""
    xp = ctx.xp
    c, channel_last = batch_norm_channels(x.shape, data_layout)
    axis = x.ndim - 1 if channel_last or x.ndim == 2 else 1
    reduce_axes = tuple(i for i in range(x.ndim) if i != axis)
    bshape = tuple(c if i == axis else 1 for i in range(x.ndim))
    dt = x.dtype
    one = xp.asarray(1, dtype=dt)
    eps = xp.asarray(epsilon, dtype=dt)  # static_cast<T>(epsilon)
    scale = xp.ones((c,), dtype=dt) if scale is None else scale
    bias = xp.zeros((c,), dtype=dt) if bias is None else bias
    with quiet(xp):
        if global_stats:
            inv_std = _running_inv_std(xp, variance, epsilon, dt)
            used_mean = mean
            saved_mean = xp.zeros((c,), dtype=dt)
            saved_var = xp.zeros((c,), dtype=dt)
            mean_out, var_out = owned(xp, mean), owned(xp, variance)
        else:
            count = x.size // c
            if count == 1:
                zeros = xp.zeros((c,), dtype=dt)
                return (owned(xp, x), owned(xp, mean), owned(xp, variance), zeros,
                        xp.zeros((c,), dtype=dt))
            batch_mean = xp.sum(x, axis=reduce_axes) / xp.asarray(count, dtype=dt)
            centered = x - xp.reshape(batch_mean, bshape)
            batch_var = xp.sum(centered * centered, axis=reduce_axes) / xp.asarray(count,
                                                                                  dtype=dt)
            mom = xp.asarray(momentum, dtype=dt)
            mean_out = mean * mom + batch_mean * (one - mom)
            var_out = variance * mom + batch_var * (one - mom)
            inv_std = xp.sqrt(one / (batch_var + eps))
            used_mean = batch_mean
            saved_mean, saved_var = batch_mean, inv_std
        new_scale, new_bias = _affine_coefficients(inv_std, used_mean, scale, bias)
        y = x * xp.reshape(new_scale, bshape)
        y = _add_into(xp, y, xp.reshape(new_bias, bshape))
    return y, mean_out, var_out, saved_mean, saved_var


def _affine_coefficients(inv_std, mean, scale, bias):
    """(new_scale, new_bias) per channel: y = x * new_scale + new_bias."""
    new_scale = inv_std * scale
    return new_scale, bias - mean * inv_std * scale


def _running_inv_std(xp, variance, epsilon: float, dtype):
    """1 / sqrt(variance + static_cast<T>(epsilon)) of the running variance, in T."""
    return xp.asarray(1, dtype=dtype) / xp.sqrt(variance + xp.asarray(epsilon, dtype=dtype))


def global_stats_coefficients(xp, mean, variance, scale, bias, epsilon: float, dtype):
    """(new_scale, new_bias) of batch_norm with the running statistics, computed exactly as the
    kernel does: y = x * new_scale + new_bias per channel (scale / bias None: 1 / 0)."""
    c = mean.shape[0]
    with quiet(xp):
        inv_std = _running_inv_std(xp, variance, epsilon, dtype)
        scale = xp.ones((c,), dtype=dtype) if scale is None else scale
        bias = xp.zeros((c,), dtype=dtype) if bias is None else bias
        return _affine_coefficients(inv_std, mean, scale, bias)


def _add_into(xp, y, b):
    """y + b, reusing y's memory where the namespace allows it (numpy, cupy): one large
    temporary less per call on the big activations of CNNs."""
    if hasattr(y, "__iadd__") and getattr(xp, "__name__", "") in ("numpy", "cupy"):
        y += b
        return y
    return y + b


@register_kernel("batch_norm", ("CPU", "GPU"), dtypes=BATCH_NORM_DTYPES)
def batch_norm(ctx, x: Tensor, mean: Tensor, variance: Tensor, scale: Tensor | None,
               bias: Tensor | None, is_test: bool, momentum: float, epsilon: float,
               data_layout: str, use_global_stats: bool, trainable_statistics: bool
               ) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
    """Batch normalization, training or inference (see the module doc for the statistics)."""
    global_stats = (is_test and not trainable_statistics) or use_global_stats
    outs = _batch_norm(ctx, x, mean, variance, scale, bias, momentum, epsilon, data_layout,
                       global_stats)
    return (*outs, ctx.xp.empty((0,), dtype=x.dtype))


@register_kernel("batch_norm_infer", ("CPU", "GPU"), dtypes=BATCH_NORM_INFER_DTYPES)
def batch_norm_infer(ctx, x: Tensor, mean: Tensor, variance: Tensor, scale: Tensor | None,
                     bias: Tensor | None, momentum: float, epsilon: float, data_layout: str
                     ) -> tuple[Tensor, Tensor, Tensor]:
    """Batch normalization with the running statistics (batch_norm with is_test)."""
    y, mean_out, var_out, _, _ = _batch_norm(ctx, x, mean, variance, scale, bias, momentum,
                                             epsilon, data_layout, True)
    return y, mean_out, var_out
