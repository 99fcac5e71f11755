"""InferMeta of the window ops added for issue 10 (conv3d, pool3d, max_pool*_with_index,
unpool*, unfold, fold, spp, lrn, maxout; Paddle's paddle/phi/infermeta/{unary,binary}.cc).

Sizes use C++ ``int`` division (truncation toward zero), through the shared helpers of
phi/infermeta/nn.py, so that kernels and InferMeta agree on every window.
"""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.infermeta._utils import (
    UNKNOWN,
    MetaConfig,
    fmt_dims,
    int_array_data,
    is_compile_time_tensor_attr,
)
from phi.infermeta.nn import _cdiv, _check_positive, conv_infer_meta, pool2d_infer_meta

__all__ = ["conv3d_infer_meta"]


def conv3d_infer_meta(input, filter, strides, paddings, padding_algorithm: str, groups: int,
                      dilations, data_format: str, out, *,
                      config: MetaConfig | None = None) -> None:
    """Conv3dInferMeta: ConvInferMeta with conv3d's attribute order (groups first)."""
    conv_infer_meta(input, filter, strides, paddings, padding_algorithm, dilations, groups,
                    data_format, out, config=config)


def _ints(values) -> list[int]:
    return [int(v) for v in values]


def max_pool_with_index_geometry(spatial, kernel_size, strides, paddings,
                                 global_pooling: bool, adaptive: bool):
    """(kernel sizes, paddings, output sizes) of max_pool2d/3d_with_index, with
    MaxPoolWithIndexInferMeta's checks: one symmetric padding per axis; global pooling takes
    the whole input; out = (in - k + 2 * pad) / stride + 1 in C++ ints (0 gives an empty
    output as Paddle; a negative size raises where Paddle crashes: **deviation**)."""
    nd = len(spatial)
    ksize, strides, pads = _ints(kernel_size), _ints(strides), _ints(paddings)
    if global_pooling:
        ksize = list(spatial)
        pads = [0] * len(pads)
    if len(ksize) != nd or len(strides) != nd or len(pads) != nd:
        raise InvalidArgument(
            f"Op(max_pool{nd}d_with_index): Attr(ksize) {fmt_dims(ksize)}, Attr(strides) "
            f"{fmt_dims(strides)} and Attr(paddings) {fmt_dims(pads)} must each hold {nd} "
            f"values (one per spatial axis).")
    if adaptive:
        if any(k <= 0 for k in ksize):
            raise InvalidArgument(f"Op(max_pool{nd}d_with_index): the adaptive output size "
                                  f"{fmt_dims(ksize)} must be positive.")
        return ksize, pads, tuple(ksize)
    _check_positive(strides, "stride", f"max_pool{nd}d_with_index")
    out = []
    for size, k, p, s in zip(spatial, ksize, pads, strides, strict=True):
        if size == UNKNOWN:
            out.append(UNKNOWN)
            continue
        o = _cdiv(size - k + 2 * p, s) + 1
        if o < 0:
            raise InvalidArgument(
                f"Op(max_pool{nd}d_with_index): the output size (input_size - ksize + 2 * "
                f"padding) / stride + 1 = ({size} - {k} + 2 * {p}) / {s} + 1 = {o} is "
                f"negative.")
        out.append(o)
    return ksize, pads, tuple(out)


def max_pool_with_index_infer_meta(x, kernel_size, strides, paddings, global_pooling: bool,
                                   adaptive: bool, out, mask) -> None:
    """MaxPoolWithIndexInferMeta: out [N, C, *sizes] of x's dtype, mask the same dims in
    int32."""
    dims = tuple(x.dims)
    if len(dims) not in (4, 5):
        raise InvalidArgument(f"Pooling intput should be 4-D or 5-D tensor but received "
                              f"{len(dims)}D-Tensor")
    _, _, sizes = max_pool_with_index_geometry(dims[2:], kernel_size, strides, paddings,
                                               global_pooling, adaptive)
    out.set_dims((*dims[:2], *sizes))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)
    mask.set_dims((*dims[:2], *sizes))
    mask.set_dtype(DataType.INT32)
    mask.set_layout(x.layout)


def pool_infer_meta(x, kernel_size, strides, paddings, ceil_mode: bool, exclusive: bool,
                    data_format: str, pooling_type: str, global_pooling: bool, adaptive: bool,
                    padding_algorithm: str, out, *, config: MetaConfig | None = None) -> None:
    """PoolInferMeta (pool3d): Pool2DInferMeta's rules with a plain int list for ksize."""
    pool2d_infer_meta(x, kernel_size, strides, paddings, ceil_mode, exclusive, data_format,
                      pooling_type, global_pooling, adaptive, padding_algorithm, out,
                      config=config)


__all__ += ["max_pool_with_index_geometry", "max_pool_with_index_infer_meta",
            "pool_infer_meta"]


def unpool_infer_meta(x, indices, ksize, strides, paddings, output_size, data_format: str,
                      out, *, config: MetaConfig | None = None) -> None:
    """UnpoolInferMeta / Unpool3dInferMeta: [N, C, *output_size] of x's dtype; x 4-D (5-D for
    unpool3d, by len(ksize)) and Indices of x's dims."""
    runtime = config is None or config.is_runtime
    dims, i_dims = tuple(x.dims), tuple(indices.dims)
    nd = len(ksize)
    op = "unpool" if nd == 2 else "unpool3d"
    if len(dims) != nd + 2:
        raise InvalidArgument(f"Op({op}): Input(X) must be {nd + 2}-dimensional, but received "
                              f"{fmt_dims(dims)}.")
    if UNKNOWN not in i_dims and i_dims != dims:
        raise InvalidArgument(f"Op({op}): the dimensions of Input(X) {fmt_dims(dims)} must "
                              f"equal the dimensions of Input(Indices) {fmt_dims(i_dims)}.")
    sizes = list(int_array_data(output_size))
    if is_compile_time_tensor_attr(output_size, config):
        sizes = [UNKNOWN] * nd
    if len(sizes) != nd:
        raise InvalidArgument(f"Op({op}): Attr(output_size) must hold {nd} values, but "
                              f"received {fmt_dims(sizes)}.")
    shape = [dims[0], dims[1]]
    for i in range(nd):
        shape.append(UNKNOWN if not runtime and dims[i + 2] <= 0 else sizes[i])
    out.set_dims(tuple(shape))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


__all__ += ["unpool_infer_meta"]
