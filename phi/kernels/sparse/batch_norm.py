"""Batch normalization of a COO tensor's values (Paddle's phi/kernels/sparse/
batch_norm_kernel.h, batch_norm_kernel.cc): the dense batch_norm kernel on the values
``[nnz, C]`` (each point one sample, the last dimension the channels), the points unchanged;
the running statistics, saved mean / inverse std and reserve space are the dense kernel's.
Absent points are not samples: the statistics are over the stored points only."""

from __future__ import annotations

from phi.core.kernel import Tensor
from phi.kernels.batch_norm import batch_norm_grad
from phi.kernels.batch_norm import batch_norm
from phi.kernels.sparse.funcs import COO, Sparse, register_sparse
from phi.kernels.sparse.unary import with_values

__all__ = ["batch_norm_coo", "batch_norm_coo_grad"]

DTYPES = ["float32", "float64"]


@register_sparse("batch_norm_coo", DTYPES, {"x": COO})
def batch_norm_coo(ctx, x: Sparse, mean: Tensor, variance: Tensor, scale: Tensor,
                   bias: Tensor, is_test: bool, momentum: float, epsilon: float,
                   data_layout: str, use_global_stats: bool, trainable_statistics: bool
                   ) -> tuple[Sparse, Tensor, Tensor, Tensor, Tensor, Tensor]:
    """batch_norm over the values; (out, mean_out, variance_out, saved_mean,
    saved_variance, reserve_space)."""
    y, *rest = batch_norm(ctx, x.values, mean, variance, scale, bias, is_test, momentum,
                          epsilon, data_layout, use_global_stats, trainable_statistics)
    return (with_values(x, y), *rest)


@register_sparse("batch_norm_coo_grad", DTYPES, {"x": COO, "out_grad": COO})
def batch_norm_coo_grad(ctx, x: Sparse, scale: Tensor, bias: Tensor, mean_out: Tensor | None,
                        variance_out: Tensor | None, saved_mean: Tensor,
                        saved_variance: Tensor, reserve_space: Tensor | None,
                        out_grad: Sparse, momentum: float, epsilon: float, data_layout: str,
                        is_test: bool, use_global_stats: bool, trainable_statistics: bool
                        ) -> tuple[Sparse, Tensor, Tensor]:
    """The dense batch_norm_grad on the values: (x_grad with x's points, scale_grad,
    bias_grad)."""
    dx, dscale, dbias = batch_norm_grad(ctx, x.values, scale, bias, mean_out, variance_out,
                                        saved_mean, saved_variance, reserve_space,
                                        out_grad.values, momentum, epsilon, data_layout,
                                        is_test, use_global_stats, trainable_statistics)
    return with_values(x, dx), dscale, dbias
