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


def _check_lengths(op: str, **lists) -> None:
    for name, (values, n) in lists.items():
        if len(values) != n:
            raise InvalidArgument(f"Op({op}): Attr({name}) must hold {n} values, but received "
                                  f"{fmt_dims(values)}.")


def _check_all_positive(op: str, **lists) -> None:
    for name, values in lists.items():
        if any(v <= 0 for v in values):
            raise InvalidArgument(f"Op({op}): every value of Attr({name}) must be greater than "
                                  f"0, but received {fmt_dims(values)}.")


def unfold_geometry(spatial, kernel_sizes, strides, paddings, dilations):
    """(paddings [top, bottom, left, right], block counts) of unfold, with UnfoldInferMeta's
    checks; its ``paddings`` are [top, left, bottom, right] and the counts CalcOutputSize's:
    (in + pads - (dilation * (k - 1) + 1)) / stride + 1 in C++ ints, which must be > 0."""
    ksize, strides, dils = _ints(kernel_sizes), _ints(strides), _ints(dilations)
    pads = _ints(paddings)
    _check_lengths("unfold", kernel_sizes=(ksize, 2), strides=(strides, 2),
                   paddings=(pads, 4), dilations=(dils, 2))
    _check_all_positive("unfold", kernel_sizes=ksize, strides=strides, dilations=dils)
    blocks = [UNKNOWN if size == UNKNOWN else
              _cdiv(size + pads[i] + pads[i + 2] - (dils[i] * (ksize[i] - 1) + 1),
                    strides[i]) + 1 for i, size in enumerate(spatial)]
    if UNKNOWN not in spatial and min(blocks) <= 0:
        raise InvalidArgument(
            f"The sliding blocks calculated from input spatial size ({spatial[0]}, "
            f"{spatial[1]}), kernel_sizes ({ksize[0]}, {ksize[1]}), strides ({strides[0]}, "
            f"{strides[1]}), dilations ({dils[0]}, {dils[1]}), is ({blocks[0]}, {blocks[1]}), "
            f"which should be a positive integer.")
    return [pads[0], pads[2], pads[1], pads[3]], blocks


def unfold_infer_meta(x, kernel_sizes, strides, paddings, dilations, out) -> None:
    """UnfoldInferMeta: [N, C * kh * kw, blocks_h * blocks_w] of x's dtype."""
    dims = tuple(x.dims)
    if len(dims) != 4:
        raise InvalidArgument(f"Input should be 4-D tensor of format [N, C, H, W], but get "
                              f"{len(dims)}")
    _, blocks = unfold_geometry(dims[2:], kernel_sizes, strides, paddings, dilations)
    k = int(kernel_sizes[0]) * int(kernel_sizes[1])
    length = UNKNOWN if UNKNOWN in blocks else blocks[0] * blocks[1]
    out.set_dims((dims[0], UNKNOWN if dims[1] == UNKNOWN else dims[1] * k, length))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


def fold_geometry(x_dims, output_sizes, kernel_sizes, strides, paddings, dilations):
    """(paddings [top, bottom, left, right], block counts) of fold, with FoldInferMeta's and
    col2im's checks: FoldInferMeta (and the kernel's column shape) count blocks with
    2 * paddings[0|1], col2im with both sides (paddings [top, left, bottom, right]); both must
    give the same counts, and their product must be the input's last dim."""
    outs, ksize, strides = _ints(output_sizes), _ints(kernel_sizes), _ints(strides)
    pads, dils = _ints(paddings), _ints(dilations)
    _check_lengths("fold", output_sizes=(outs, 2), kernel_sizes=(ksize, 2),
                   strides=(strides, 2), paddings=(pads, 4), dilations=(dils, 2))
    _check_all_positive("fold", output_sizes=outs, kernel_sizes=ksize, strides=strides,
                        dilations=dils)
    blocks = []
    for i in range(2):
        span = dils[i] * (ksize[i] - 1) + 1
        b = _cdiv(outs[i] + 2 * pads[i] - span, strides[i]) + 1
        both = _cdiv(outs[i] + pads[i] + pads[i + 2] - span, strides[i]) + 1
        if b != both:
            raise InvalidArgument(
                f"Op(fold): Output_{'height' if i == 0 else 'width'} and padding"
                f"{fmt_dims([pads[i], pads[i + 2]])} are inconsistent: {b} blocks counted with "
                f"2 * padding, {both} with both sides.")
        blocks.append(b)
    channels, length = x_dims[1], x_dims[2]
    if length != UNKNOWN and blocks[0] * blocks[1] != length:
        raise InvalidArgument(
            f"Given input output_size ({outs[0]}, {outs[1]}), kernel_sizes ({ksize[0]}, "
            f"{ksize[1]}), strides ({strides[0]}, {strides[1]}), dilations ({dils[0]}, "
            f"{dils[1]}), which should be expected size of input's dimension 2 to match the "
            f"calculated number of {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but "
            f"got {length}")
    if channels != UNKNOWN and channels % (ksize[0] * ksize[1]):
        raise InvalidArgument(
            f"Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={channels} and kernel_size=({ksize[0]}, "
            f"{ksize[1]}).")
    return [pads[0], pads[2], pads[1], pads[3]], blocks


def fold_infer_meta(x, output_sizes, kernel_sizes, strides, paddings, dilations, out) -> None:
    """FoldInferMeta: [N, C / (kh * kw), *output_sizes] of x's dtype."""
    dims = tuple(x.dims)
    if len(dims) != 3:
        raise InvalidArgument(f"Input should be 3-D tensor of format [N, C, L], but get "
                              f"{len(dims)}")
    fold_geometry(dims, output_sizes, kernel_sizes, strides, paddings, dilations)
    k = int(kernel_sizes[0]) * int(kernel_sizes[1])
    out.set_dims((dims[0], UNKNOWN if dims[1] == UNKNOWN else dims[1] // k,
                  *_ints(output_sizes)))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


def maxout_axis(x_dims, groups: int, axis: int) -> int:
    """MaxOutInferMeta's checks; the channel axis (1 or 3: -1 means 3)."""
    if len(x_dims) != 4:
        raise InvalidArgument(f"x's dimension of Op(maxout) must be 4, but received "
                              f"{len(x_dims)}: {fmt_dims(x_dims)}.")
    if axis not in (1, -1, 3):
        raise InvalidArgument(f"axis only supported 1, -1 or 3, but recevied axis is: {axis}")
    axis = 3 if axis == -1 else axis
    if groups <= 0:
        raise InvalidArgument(f"Attr(groups) of Op(maxout) should be larger than 0. But "
                              f"received {groups}.")
    channels = x_dims[axis]
    if channels != UNKNOWN and channels % groups:
        raise InvalidArgument(
            f"The number of input channels for Op(maxout) should be divisible by Attr(groups)."
            f" But received: the input's channels is [{channels}], the shape of input is "
            f"{fmt_dims(x_dims)}, the Attr(groups) is [{groups}], the Attr(axis) is [{axis}].")
    return axis


def max_out_infer_meta(x, groups: int, axis: int, out) -> None:
    """MaxOutInferMeta: x's dims with the channel axis divided by ``groups``."""
    dims = list(x.dims)
    axis = maxout_axis(dims, groups, axis)
    if dims[axis] != UNKNOWN:
        dims[axis] //= groups
    out.set_dims(tuple(dims))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


__all__ += ["fold_geometry", "fold_infer_meta", "max_out_infer_meta", "maxout_axis",
            "unfold_geometry", "unfold_infer_meta"]
