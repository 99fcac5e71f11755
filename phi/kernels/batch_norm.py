"""The ``batch_norm``, ``batch_norm_grad`` and ``batch_norm_infer`` kernels."""

from __future__ import annotations


from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import batch_norm_channels
from phi.kernels.funcs import owned, quiet
from phi.kernels.funcs.norm import centered_grad

__all__ = ["batch_norm", "batch_norm_grad", "batch_norm_infer", "global_stats_coefficients"]


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


# Paddle 2.6.2 CPU registrations (corpus phi_kernels.json): float and double
NORM_GRAD_DTYPES = ["float32", "float64"]


@register_kernel("batch_norm_grad", ("CPU", "GPU"), dtypes=NORM_GRAD_DTYPES)
def batch_norm_grad(ctx, x: Tensor, scale: Tensor | None, bias: Tensor | None,
                    mean: Tensor | None, variance: Tensor | None, saved_mean: Tensor,
                    saved_variance: Tensor, reserve_space: Tensor | None, y_grad: Tensor,
                    momentum: float, epsilon: float, data_layout: str, is_test: bool,
                    use_global_stats: bool, trainable_statistics: bool
                    ) -> tuple[Tensor, Tensor, Tensor]:
    """(dx, dscale, dbias) of batch_norm: the batch's saved statistics in training, the running
    Mean / Variance when use_global_stats (or is_test without trainable_statistics)."""
    xp = ctx.xp
    t = x.dtype.type
    c_axis = x.ndim - 1 if data_layout == "NHWC" and x.ndim > 2 else 1
    c = x.shape[c_axis]
    shape = [1] * x.ndim
    shape[c_axis] = c
    axes = tuple(a for a in range(x.ndim) if a != c_axis)
    fixed = use_global_stats or (is_test and not trainable_statistics)
    with quiet(xp):
        if fixed:
            mu = xp.reshape(mean, shape)
            s = t(1) / xp.sqrt(xp.reshape(variance, shape) + t(epsilon))
        else:
            mu = xp.reshape(saved_mean, shape)
            s = xp.reshape(saved_variance, shape)
        gamma = xp.reshape(scale, shape) if scale is not None else t(1)
        xhat = (x - mu) * s
        dbias = xp.sum(y_grad, axis=axes)
        dscale = xp.sum(y_grad * xhat, axis=axes)
        g = y_grad * gamma
        dx = s * g if fixed else centered_grad(xp, g, xhat, s, axes)
    return xp.asarray(dx, dtype=x.dtype), dscale.astype(x.dtype), dbias.astype(x.dtype)
