"""InferMeta of the random ops (issue 12): shapes from attributes or tensors, dtypes as
Paddle's InferMeta sets them."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.infermeta._utils import UNKNOWN, MetaConfig, is_compile_time_tensor_attr, set_meta
from phi.infermeta.nullary import create_infer_meta

__all__ = ["class_center_sample_infer_meta", "dropout_nd_infer_meta", "gaussian_infer_meta",
           "multinomial_infer_meta", "randint_infer_meta", "randint_with_seed_infer_meta",
           "randperm_infer_meta", "truncated_gaussian_random_infer_meta",
           "uniform_random_infer_meta"]


def uniform_random_infer_meta(shape, dtype: DataType, out) -> None:
    """UniformRandomInferMeta: dims from ``shape``, the given dtype."""
    create_infer_meta(shape, dtype, out)


def gaussian_infer_meta(shape, mean, std, seed, dtype: DataType, out) -> None:
    """GaussianInferMeta."""
    create_infer_meta(shape, dtype, out)


def truncated_gaussian_random_infer_meta(shape, mean, std, seed, dtype: DataType, out) -> None:
    """TruncatedGaussianRandomInferMeta."""
    create_infer_meta(list(shape), dtype, out)


def randint_infer_meta(low: int, high: int, shape, dtype: DataType, out) -> None:
    """RandintInferMeta: low < high; dims from ``shape``."""
    if low >= high:
        raise InvalidArgument(f"randint's low must less then high, but received: low = {low}, "
                              f"high = {high}.")
    create_infer_meta(shape, dtype, out)


def randint_with_seed_infer_meta(low: int, high: int, shape, seed_attr, dtype_attr, out) -> None:
    """randint_with_seed's meta: the dtype attribute arrives last (see the kernel)."""
    randint_infer_meta(low, high, shape, DataType.from_proto(int(dtype_attr)), out)


def randperm_infer_meta(n: int, dtype: DataType, out) -> None:
    """RandpermInferMeta: [n]."""
    set_meta(out, (n,), dtype)


def multinomial_infer_meta(x, num_samples, replacement: bool, out, *,
                           config: MetaConfig | None = None) -> None:
    """MultinomialInferMeta: x 1-D or 2-D; [num_samples] per row, int64 (-1 at compile time
    when a tensor gives num_samples)."""
    dims = tuple(x.dims)
    if len(dims) not in (1, 2):
        raise InvalidArgument(f"The number of dimensions of the input probability distribution "
                              f"should be > 0 and <= 2, but got {len(dims)}.")
    if is_compile_time_tensor_attr(num_samples, config):
        set_meta(out, (*dims[:-1], UNKNOWN), DataType.INT64)
        return
    n = int(getattr(num_samples, "value", num_samples))
    if n <= 0:
        raise InvalidArgument(f"The number of samples should be > 0, but got {n}.")
    set_meta(out, (*dims[:-1], n), DataType.INT64)


def dropout_nd_infer_meta(x, seed_tensor, p, is_test: bool, mode: str, seed: int,
                          fix_seed: bool, axis, out, mask=None) -> None:
    """DropoutNdInferMeta: out like x; mask uint8 with x's dims on ``axis``, 1 elsewhere."""
    out.share_meta(x)
    if mask is not None:
        ndim = len(x.dims)
        axes = {a + ndim if a < 0 else a for a in axis}
        set_meta(mask, tuple(d if i in axes else 1 for i, d in enumerate(x.dims)),
                 DataType.UINT8)


def class_center_sample_infer_meta(label, num_classes: int, num_samples: int, ring_id: int,
                                   rank: int, nranks: int, fix_seed: bool, seed: int,
                                   remapped_label, sampled_local_class_center) -> None:
    """ClassCenterSampleInferMeta: label 1-D; the sampled count is decided by the kernel."""
    if len(label.dims) != 1:
        raise InvalidArgument(f"Rank of Input(Label) should be equal to 1, but the value given "
                              f"is {len(label.dims)}.")
    set_meta(remapped_label, label.dims, label.dtype)
    set_meta(sampled_local_class_center, (-1,), label.dtype)
