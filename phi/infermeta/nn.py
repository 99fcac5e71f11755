"""InferMeta of the neural-network ops: conv, pool, batch_norm, flatten, dropout, log_softmax
(Paddle's paddle/phi/infermeta/{binary,unary,multiary}.cc and kernels/funcs/{conv,pooling}_util).

The shape arithmetic the kernels need too (padding resolution, output sizes, adaptive windows,
flatten dims) lives here as plain functions of ints, so that a kernel and its InferMeta can
never compute different sizes.  Sizes use C++ ``int`` division, which truncates toward zero.
Dims of -1 are sizes unknown at compile time; they give -1 outputs as Paddle's compile-time
branches do.
"""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.infermeta._utils import (
    share_lod_if_same_dim0,
    UNKNOWN,
    MetaConfig,
    fmt_dims,
    int_array_data,
    is_compile_time_tensor_attr,
)

__all__ = [
    "adaptive_bounds",
    "batch_norm_channels",
    "batch_norm_infer_infer_meta",
    "batch_norm_infer_meta",
    "check_conv_groups",
    "conv_infer_meta",
    "conv_out_size",
    "depthwise_conv_infer_meta",
    "dropout_infer_meta",
    "flatten_infer_meta",
    "flatten_out_dims",
    "flatten_with_xshape_infer_meta",
    "is_channel_last",
    "pool2d_infer_meta",
    "pool_output_size",
    "resolve_conv_padding",
    "resolve_pool_padding",
    "unchanged_infer_meta_check_axis",
]


def _cdiv(a: int, b: int) -> int:
    """C++ integer division: the quotient truncated toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def is_channel_last(data_format: str) -> bool:
    """Paddle compares the string: only "NHWC"/"NDHWC" are channel-last ("AnyLayout" is NCHW)."""
    return data_format in ("NHWC", "NDHWC")


def _expand_paddings(paddings, n_spatial: int, op: str) -> list[int]:
    """[p0, p1] -> [p0, p0, p1, p1]; [t, b, l, r] stays (Paddle's UpdatePadding... helpers)."""
    pads = [int(p) for p in paddings]
    if len(pads) == n_spatial:
        return [p for p in pads for _ in range(2)]
    if len(pads) != 2 * n_spatial:
        raise InvalidArgument(
            f"Op({op}): Attribute padding's size should be the same or twice as the input's "
            f"dimension. But received: padding's size is {len(pads)}, padding is "
            f"{fmt_dims(pads)}; input's spatial dimension is {n_spatial}."
        )
    return pads


def _same_padding(size: int, stride: int, ksize: int) -> tuple[int, int]:
    out = _cdiv(size + stride - 1, stride)
    pad_sum = max((out - 1) * stride + ksize - size, 0)
    return pad_sum // 2, pad_sum - pad_sum // 2


def resolve_conv_padding(paddings, dilations, padding_algorithm: str, data_dims, strides,
                         ksize) -> tuple[list[int], list[int]]:
    """UpdatePaddingAndDilation: (paddings [before0, after0, before1, after1...], dilations).

    SAME pads so that out = ceil(in / stride) and resets the dilations to 1; VALID pads nothing;
    anything else (EXPLICIT) keeps the given paddings (2 values are used for both sides).
    """
    pads = _expand_paddings(paddings, len(data_dims), "Conv")
    dils = [int(d) for d in dilations]
    if padding_algorithm == "SAME":
        for i, size in enumerate(data_dims):
            pads[2 * i], pads[2 * i + 1] = _same_padding(size, strides[i], ksize[i])
            dils[i] = 1
    elif padding_algorithm == "VALID":
        pads = [0] * len(pads)
    return pads, dils


def conv_out_size(size: int, ksize: int, dilation: int, pad_before: int, pad_after: int,
                  stride: int) -> int:
    """ConvOutSize: (in + pads - (dilation * (k - 1) + 1)) / stride + 1 in C++ ints.

    0 gives an empty output, as Paddle 2.6.2 (its ConvInferMeta checks nothing); a negative size
    raises (Paddle allocates a negative dim and crashes: **deviation**, a typed error instead).
    """
    dkernel = dilation * (ksize - 1) + 1
    out = _cdiv(size + pad_before + pad_after - dkernel, stride) + 1
    if out < 0:
        raise InvalidArgument(
            "The output's size is expected to be at least 0. But received: output's size is "
            f"{out}. The output's size is computed by ((input_size + pad_left + pad_right - "
            "(dilation * (filter_size - 1) + 1)) / stride + 1), where input_size is "
            f"{size}, pad_left is {pad_before}, pad_right is {pad_after}, dilation is "
            f"{dilation}, filter_size is {ksize}, stride is {stride}."
        )
    return out


def resolve_pool_padding(paddings, global_pooling: bool, adaptive: bool,
                         padding_algorithm: str, data_dims, strides, ksize) -> list[int]:
    """Pooling's UpdatePadding: as conv's (without dilations); global or adaptive pads 0."""
    pads = _expand_paddings(paddings, len(data_dims), "pool")
    if padding_algorithm == "SAME":
        for i, size in enumerate(data_dims):
            pads[2 * i], pads[2 * i + 1] = _same_padding(size, strides[i], ksize[i])
    elif padding_algorithm == "VALID":
        pads = [0] * len(pads)
    if global_pooling or adaptive:
        pads = [0] * len(pads)
    return pads


def pool_output_size(size: int, ksize: int, pad_before: int, pad_after: int, stride: int,
                     ceil_mode: bool) -> int:
    """PoolOutputSize: floor (or ceil) of (in - k + pads) / stride, plus 1; must be > 0."""
    extra = stride - 1 if ceil_mode else 0
    out = _cdiv(size - ksize + pad_before + pad_after + extra, stride) + 1
    if out <= 0:
        raise InvalidArgument(
            f"the output size must be greater than 0. But received: output_size = {out} due to "
            f"the settings of input_size({size}), padding({pad_before},{pad_after}), "
            f"k_size({ksize}) and stride({stride}). Please check again!"
        )
    return out


def adaptive_bounds(index: int, in_size: int, out_size: int) -> tuple[int, int]:
    """AdaptStartIndex / AdaptEndIndex: [floor(i * in / out), ceil((i + 1) * in / out))."""
    return (index * in_size) // out_size, -((-(index + 1) * in_size) // out_size)


def _spatial(dims, channel_last: bool) -> list[int]:
    dims = list(dims)
    return dims[1:-1] if channel_last else dims[2:]


def _check_positive(values, what: str, op: str) -> None:
    for v in values:
        if v <= 0:
            raise InvalidArgument(
                f"The {what} of Op({op}) should be larger than 0, but received {what} is {v}."
            )


# -- conv ----------------------------------------------------------------------------------------

def check_conv_groups(in_dims, f_dims, groups: int, data_format: str) -> None:
    """ConvInferMeta's checks of Attr(groups) against the input's and the filter's channels
    (also the conv kernels', which a direct call reaches without InferMeta)."""
    if groups <= 0:
        raise InvalidArgument(f"Op(Conv): Attr(groups) must be positive, but received {groups}.")
    in_channels = in_dims[-1] if is_channel_last(data_format) else in_dims[1]
    if in_channels != UNKNOWN and f_dims[1] != UNKNOWN and in_channels != f_dims[1] * groups:
        raise InvalidArgument(
            "The number of input's channels should be equal to filter's channels * groups for "
            f"Op(Conv). But received: the input's channels is {in_channels}, the input's shape "
            f"is {fmt_dims(in_dims)}; the filter's channels is {f_dims[1]}, the filter's shape "
            f"is {fmt_dims(f_dims)}; the groups is {groups}, the data_format is {data_format}. "
            "The error may come from wrong data_format setting."
        )
    if f_dims[0] != UNKNOWN and f_dims[0] % groups:
        raise InvalidArgument(
            "The number of output's channels (filter's first dimension) of Op(Conv) should be "
            f"divided by groups. But received: the output channels is {f_dims[0]}, the filter's "
            f"shape is {fmt_dims(f_dims)}, the groups is {groups}."
        )


def conv_infer_meta(input, filter, strides, paddings, padding_algorithm: str, dilations,
                    groups: int, data_format: str, out, *,
                    config: MetaConfig | None = None) -> None:
    """ConvInferMeta: [N, filter[0], out sizes...] (channel last: [N, sizes..., filter[0]])."""
    runtime = config is None or config.is_runtime
    in_dims = list(input.dims)
    f_dims = list(filter.dims)
    strides = [int(s) for s in strides]
    _check_positive(dilations, "dilation", "Conv")
    if len(in_dims) not in (4, 5):
        raise InvalidArgument(
            "The input of Op(Conv) should be a 4-D or 5-D Tensor. But received: input's "
            f"dimension is {len(in_dims)}, input's shape is {fmt_dims(in_dims)}."
        )
    if len(in_dims) != len(f_dims):
        raise InvalidArgument(
            "The input's dimension and filter's dimension of Op(Conv) should be equal. But "
            f"received: the input's shape is {fmt_dims(in_dims)}, the input's dimension is "
            f"{len(in_dims)}; the filter's shape is {fmt_dims(f_dims)}, the filter's dimension "
            f"is {len(f_dims)}."
        )
    _check_positive(strides, "stride", "Conv")
    if len(in_dims) != len(strides) + 2:
        raise InvalidArgument(
            "The difference of input's dimension and Attr(strides)'s length must be euqal to 2 "
            f"for Op(Conv). But received: input's dimension is {len(in_dims)}, input's shape is "
            f"{fmt_dims(in_dims)}; Attr(stride)'s length is {len(strides)}, Attr(stride) is "
            f"{fmt_dims(strides)}."
        )
    if len(dilations) != len(strides):
        raise InvalidArgument(
            f"Op(Conv): Attr(dilations) {fmt_dims(dilations)} must have one value per spatial "
            f"dimension ({len(strides)})."
        )
    channel_last = is_channel_last(data_format)
    check_conv_groups(in_dims, f_dims, groups, data_format)
    if runtime and f_dims[0] <= 0:
        raise InvalidArgument("the size of filter at axis 0 should be greater than 0")
    data_dims = _spatial(in_dims, channel_last)
    ksize = f_dims[2:]
    pads, dils = resolve_conv_padding(paddings, dilations, padding_algorithm, data_dims,
                                      strides, ksize)
    sizes = []
    for i, size in enumerate(data_dims):
        if not runtime and (size <= 0 or ksize[i] <= 0):
            sizes.append(UNKNOWN)
        else:
            sizes.append(conv_out_size(size, ksize[i], dils[i], pads[2 * i], pads[2 * i + 1],
                                       strides[i]))
    dims = [in_dims[0], *sizes, f_dims[0]] if channel_last else [in_dims[0], f_dims[0], *sizes]
    out.set_dims(dims)
    out.set_dtype(input.dtype)
    out.set_layout(input.layout)


def depthwise_conv_infer_meta(input, filter, strides, paddings, padding_algorithm: str,
                              groups: int, dilations, data_format: str, out, *,
                              config: MetaConfig | None = None) -> None:
    """DepthwiseConvInferMeta: ConvInferMeta with depthwise_conv2d's order (groups first)."""
    conv_infer_meta(input, filter, strides, paddings, padding_algorithm, dilations, groups,
                    data_format, out, config=config)


# -- pool ----------------------------------------------------------------------------------------

def pool2d_infer_meta(x, kernel_size, strides, paddings, ceil_mode: bool, exclusive: bool,
                      data_format: str, pooling_type: str, global_pooling: bool,
                      adaptive: bool, padding_algorithm: str, out, *,
                      config: MetaConfig | None = None) -> None:
    """Pool2DInferMeta / PoolInferMeta: [N, C, out sizes] (NHWC: [N, sizes, C]).

    Adaptive pooling outputs ``kernel_size``; global pooling uses the whole plane.  A
    ``kernel_size`` fed by a tensor at compile time leaves the spatial sizes -1.
    """
    runtime = config is None or config.is_runtime
    x_dims = list(x.dims)
    channel_last = is_channel_last(data_format)
    ksize = [int(k) for k in int_array_data(kernel_size)]
    if is_compile_time_tensor_attr(kernel_size, config):
        dims = list(x_dims)
        dims[-2] = UNKNOWN
        dims[-3 if channel_last else -1] = UNKNOWN
        out.set_dims(dims)
        out.set_dtype(x.dtype)
        out.set_layout(x.layout)
        return
    if len(x_dims) not in (4, 5):
        raise InvalidArgument(
            "the input of Op(pool) should be 4-D or 5-D Tensor. But received: "
            f"{len(x_dims)}-D Tensor and it's shape is {fmt_dims(x_dims)}."
        )
    if len(x_dims) - len(ksize) != 2:
        raise InvalidArgument(
            "the dimension of input minus the size of Attr(kernel_size_) must be euqal to 2 in "
            f"Op(pool). But received: the dimension of input minus the size of "
            f"Attr(kernel_size_) is {len(x_dims) - len(ksize)}, the input's dimension is "
            f"{len(x_dims)}, the shape of input is {fmt_dims(x_dims)}, the Attr(kernel_size_)'s"
            f" size is {len(ksize)}, the Attr(kernel_size_) is {fmt_dims(ksize)}."
        )
    if len(ksize) != len(strides):
        raise InvalidArgument(
            "the size of Attr(kernel_size_) and Attr(strides) in Op(pool) must be equal. But "
            f"received: Attr(kernel_size_)'s size is {len(ksize)}, Attr(strides)'s size is "
            f"{len(strides)}, Attr(kernel_size_) is {fmt_dims(ksize)}, Attr(strides)is "
            f"{fmt_dims(strides)}."
        )
    if pooling_type not in ("max", "avg"):  # Paddle leaves the output unwritten instead
        raise InvalidArgument(
            f"Op(pool): Attr(pooling_type) must be \"max\" or \"avg\", but received "
            f"\"{pooling_type}\"."
        )
    data_dims = _spatial(x_dims, channel_last)
    strides = [int(s) for s in strides]
    if not adaptive:
        _check_positive(strides, "stride", "pool")
    pads = resolve_pool_padding(paddings, global_pooling, adaptive, padding_algorithm,
                                data_dims, strides, ksize)
    if global_pooling:
        ksize = list(data_dims)
    if adaptive:
        if any(k <= 0 for k in ksize):  # Paddle would return an empty tensor
            raise InvalidArgument(
                f"Op(pool): the adaptive output size {fmt_dims(ksize)} must be positive."
            )
        sizes = list(ksize)
    else:
        sizes = []
        for i, size in enumerate(data_dims):
            if not runtime and size < 0:
                sizes.append(size)
            else:
                sizes.append(pool_output_size(size, ksize[i], pads[2 * i], pads[2 * i + 1],
                                              strides[i], ceil_mode))
    dims = [x_dims[0], *sizes, x_dims[-1]] if channel_last else [x_dims[0], x_dims[1], *sizes]
    out.set_dims(dims)
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)
    out.share_lod(x)


# -- batch_norm ----------------------------------------------------------------------------------

_LAYOUTS = {"NCHW": False, "NHWC": True, "AnyLayout": False, "ANYLAYOUT": False,
            "NCDHW": False, "NDHWC": True}


def batch_norm_channels(x_dims, data_layout: str) -> tuple[int, bool]:
    """(C, channel_last) of batch_norm's input; unknown layouts raise (StringToDataLayout)."""
    if data_layout not in _LAYOUTS:
        raise InvalidArgument(
            f"Op(batch_norm): Attr(data_layout) \"{data_layout}\" is not a data layout "
            f"({', '.join(_LAYOUTS)})."
        )
    channel_last = _LAYOUTS[data_layout]
    return (x_dims[-1] if channel_last else x_dims[1]), channel_last


def batch_norm_infer_meta(x, mean, variance, scale, bias, is_test: bool, momentum: float,
                          epsilon: float, data_layout: str, use_global_stats: bool,
                          trainable_statistics: bool, y, mean_out, variance_out, saved_mean,
                          saved_variance, reserve_space=None, *,
                          config: MetaConfig | None = None) -> None:
    """BatchNormInferMeta: y like x; the statistics [C].

    Paddle leaves the dtype of MeanOut/VarianceOut to the in-place sharing with Mean/Variance
    and SavedMean/SavedVariance unset; here they are set (the kernel writes them in x's dtype).
    ReserveSpace (never written on CPU) is [-1] at compile time and [0] at run time.
    """
    runtime = config is None or config.is_runtime
    x_dims = list(x.dims)
    for d in x_dims:
        if d != UNKNOWN and d <= 0:
            raise InvalidArgument(
                "Each dimension of input tensor is expected to be -1 or a positive number, but "
                f"recieved {d}. Input's shape is {fmt_dims(x_dims)}."
            )
    if not 2 <= len(x_dims) <= 5:
        raise InvalidArgument(
            "ShapeError: the dimension of input X must be in [2, 5]. But received: the shape "
            f"of input X = {fmt_dims(x_dims)}, the dimension of input X =[{len(x_dims)}]"
        )
    c, _ = batch_norm_channels(x_dims, data_layout)
    # mean / variance: Paddle checks only scale and bias and its kernel then reads out of
    # bounds for a wrong-sized statistic; we refuse it (the same check)
    for name, meta in (("scale", scale), ("bias", bias), ("mean", mean),
                       ("variance", variance)):
        if meta is None:
            continue
        dims = list(meta.dims)
        if not runtime and any(d <= 0 for d in dims):
            continue
        if len(dims) != 1:
            raise InvalidArgument(
                f"ShapeError: the dimension of {name} must equal to 1. But received: the shape "
                f"of {name} is {fmt_dims(dims)}, the dimension of {name} is [{len(dims)}]"
            )
        if c != UNKNOWN and dims[0] != c:
            raise InvalidArgument(
                f"ShapeError: the shape of {name} must equal to [{c}] But received: the shape "
                f"of {name} is [{dims[0]}]"
            )
    y.set_dims(x_dims)
    y.set_dtype(x.dtype)
    y.set_layout(x.layout)
    y.share_lod(x)
    for meta, like in ((mean_out, mean), (variance_out, variance)):
        meta.set_dims((c,))
        meta.set_dtype(like.dtype)
    for meta in (saved_mean, saved_variance):
        if meta is not None:
            meta.set_dims((c,))
            meta.set_dtype(x.dtype)
    if reserve_space is not None:
        reserve_space.set_dims((0,) if runtime else (UNKNOWN,))
        reserve_space.set_dtype(x.dtype)


def batch_norm_infer_infer_meta(x, mean, variance, scale, bias, momentum: float,
                                epsilon: float, data_layout: str, y, mean_out, variance_out, *,
                                config: MetaConfig | None = None) -> None:
    """BatchNormInferInferMeta: BatchNormInferMeta in test mode, without the saved outputs."""
    batch_norm_infer_meta(x, mean, variance, scale, bias, True, momentum, epsilon, data_layout,
                          False, False, y, mean_out, variance_out, None, None, None,
                          config=config)


# -- flatten -------------------------------------------------------------------------------------

def flatten_out_dims(x_dims, start_axis: int, stop_axis: int) -> tuple[int, ...]:
    """Dims of flatten: axes start..stop (inclusive, negative from the end) become one.

    A 0-D input accepts only 0 / -1 and gives [1].  Out-of-range axes raise (Paddle reads
    past the dims instead).
    """
    x_dims = tuple(x_dims)
    rank = len(x_dims)
    if rank == 0:
        for name, axis in (("start_axis", start_axis), ("stop_axis", stop_axis)):
            if axis not in (0, -1):
                raise InvalidArgument(
                    f"The {name} should be 0 or -1 when the input tensor is a 0D-Tensor"
                )
        return (1,)
    for name, axis in (("start_axis", start_axis), ("stop_axis", stop_axis)):
        if not -rank <= axis < rank:
            raise InvalidArgument(
                f"The {name} of Op(flatten) should be in range [{-rank}, {rank}) for an input "
                f"of shape {fmt_dims(x_dims)}, but received {axis}."
            )
    start = start_axis + rank if start_axis < 0 else start_axis
    stop = stop_axis + rank if stop_axis < 0 else stop_axis
    if stop < start:
        raise InvalidArgument("The stop_axis should be greater than or equal to start_axis.")
    outer = 1
    for d in x_dims[start:stop + 1]:
        if d == UNKNOWN or outer == UNKNOWN:
            outer = UNKNOWN
        else:
            outer *= d
    return (*x_dims[:start], outer, *x_dims[stop + 1:])


def flatten_infer_meta(x, start_axis: int, stop_axis: int, out) -> None:
    """FlattenInferMeta: see :func:`flatten_out_dims`; x's dtype and layout."""
    out.set_dims(flatten_out_dims(x.dims, start_axis, stop_axis))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)
    share_lod_if_same_dim0(out, x)


def flatten_with_xshape_infer_meta(x, start_axis: int, stop_axis: int, out, xshape) -> None:
    """FlattenWithXShapeInferMeta: out as :func:`flatten_infer_meta`; xshape [0, *x.dims]."""
    flatten_infer_meta(x, start_axis, stop_axis, out)
    xshape.set_dims((0, *tuple(x.dims)))
    xshape.set_dtype(x.dtype)
    xshape.set_layout(x.layout)


# -- dropout, log_softmax ------------------------------------------------------------------------

def dropout_infer_meta(x, seed_tensor, p, is_test: bool, mode: str, seed: int,
                       fix_seed: bool, out, mask=None) -> None:
    """DropoutInferMeta: out like x; mask x's dims in uint8; a seed tensor must be [1]."""
    if seed_tensor is not None and tuple(seed_tensor.dims) != (1,):
        raise InvalidArgument(
            "The dimension of seed tensor must be [1], but received "
            f"{fmt_dims(seed_tensor.dims)}."
        )
    out.set_dims(x.dims)
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)
    out.share_lod(x)
    if mask is not None:
        mask.set_dims(x.dims)
        mask.set_dtype(DataType.UINT8)
        mask.set_layout(x.layout)


def unchanged_infer_meta_check_axis(x, axis: int, out) -> None:
    """UnchangedInferMetaCheckAxis (log_softmax): axis in [-R, R), or [-1, 0] for 0-D."""
    rank = len(x.dims)
    if rank > 0 and not -rank <= axis < rank:
        raise InvalidArgument(
            "Attr(axis) value should be in range [-R, R-1], R is the rank of Input(X). But "
            f"received axis: {axis}, R: {rank}."
        )
    if rank == 0 and axis not in (-1, 0):
        raise InvalidArgument(
            f"Attr(axis) value should be in range [-1, 0] when input is 0D Tensor, but got "
            f"{axis}."
        )
    out.share_meta(x)


def _product(dims) -> int:
    n = 1
    for d in dims:
        n = UNKNOWN if UNKNOWN in (n, d) else n * d
    return n


def prelu_infer_meta(x, alpha, data_format: str, mode: str, out) -> None:
    """PReluInferMeta: Alpha's size fits ``mode`` ('all': one value, 'channel': C values,
    'element': one per element of a sample); the output is x's meta."""
    x_dims, a_dims = tuple(x.dims), tuple(alpha.dims)
    a_size = _product(a_dims)
    if mode == "all":
        if a_size not in (1, UNKNOWN):
            raise InvalidArgument("For mode 'all', size of weight Alpha must be one. But "
                                  f"recevied alpha's size: {a_size}.")
    elif mode == "channel":
        if len(x_dims) < 2:
            raise InvalidArgument("For mode 'channel', rank of input X must be equal or larger "
                                  f"than 2. But recevied X's rank: {len(x_dims)}")
        if data_format not in ("NCHW", "NHWC"):
            raise InvalidArgument("For mode 'channel', data_format must be one of NCHW and "
                                  f"NHWC. But recevied data_format: {data_format}")
        channels = x_dims[1] if data_format == "NCHW" else x_dims[-1]
        if UNKNOWN not in (a_size, channels) and a_size != channels:
            raise InvalidArgument(
                "For mode 'channel', size of weight Alpha must be equal to the number of "
                f"channels of input(x). But recevied alpha's size: {a_size}, x_dim[1]: "
                f"{channels}")
    elif mode == "element":
        if len(x_dims) < 1 or len(a_dims) != len(x_dims):
            raise InvalidArgument(
                "For mode 'element', rank of weight Alpha must be equal to the rank of "
                f"input(x). But recevied alpha's rank: {len(a_dims)}, x's rank: {len(x_dims)}.")
        xs, as_ = _product(x_dims[1:]), _product(a_dims[1:])
        if UNKNOWN not in (xs, as_) and xs != as_:
            raise InvalidArgument(
                "For mode 'element', the size of weight Alpha must be equal to the size of "
                f"input(x). But recevied alpha's size: {as_}, x's size: {xs}.")
    else:
        raise InvalidArgument("Attr(mode) of prelu must be one of 'all', 'channel', or "
                              f"'element'. But recevied mode: '{mode}'.")
    out.share_meta(x)


__all__ += ["prelu_infer_meta"]


def layer_norm_infer_meta(x, scale, bias, epsilon: float, begin_norm_axis: int, out, mean,
                          variance) -> None:
    """LayerNormInferMeta: y has x's meta; mean / variance have dims[:begin_norm_axis]
    (float32 for a float16 / bfloat16 x); scale and bias hold prod(dims[begin_norm_axis:])."""
    dims = tuple(x.dims)
    if not 0 < begin_norm_axis < len(dims):
        raise InvalidArgument(f"'begin_norm_axis' must be less than the dimensions of X, but "
                              f"received 'begin_norm_axis' = {begin_norm_axis}, X's rank "
                              f"{len(dims)}.")
    right = _product(dims[begin_norm_axis:])
    for name, p in (("Scale", scale), ("Bias", bias)):
        if p is None:
            continue
        n = _product(p.dims)
        if UNKNOWN not in (n, right) and n != right:
            raise InvalidArgument(f"The {name} of layer_norm must hold {right} values (the "
                                  f"normalized dims of X {fmt_dims(dims)}), but it has "
                                  f"{fmt_dims(p.dims)}.")
    out.share_meta(x)
    stats = DataType.FLOAT32 if x.dtype in (DataType.FLOAT16, DataType.BFLOAT16) else x.dtype
    for m in (mean, variance):
        m.set_dims(dims[:begin_norm_axis])
        m.set_dtype(stats)
        m.set_layout(x.layout)


def _check_channel_param(name: str, p, channels: int, op: str) -> None:
    if p is None:
        return
    if len(p.dims) != 1 or (UNKNOWN not in (p.dims[0], channels) and p.dims[0] != channels):
        raise InvalidArgument(f"The {name} of {op} must be 1-D with the {channels} channels of "
                              f"X, but received {fmt_dims(p.dims)}.")


def instance_norm_infer_meta(x, scale, bias, epsilon: float, y, saved_mean,
                             saved_variance) -> None:
    """InstanceNormInferMeta: x is 2-D to 5-D; y has x's meta; the saved statistics
    [N * C]."""
    dims = tuple(x.dims)
    if not 2 <= len(dims) <= 5:
        raise InvalidArgument(f"ShapeError: the dimension of input X must greater than or "
                              f"equal to 2 and less than or equal to 5, but received X's "
                              f"dimension {len(dims)}.")
    _check_channel_param("Scale", scale, dims[1], "instance_norm")
    _check_channel_param("Bias", bias, dims[1], "instance_norm")
    y.share_meta(x)
    for m in (saved_mean, saved_variance):
        m.set_dims((_product(dims[:2]),))
        m.set_dtype(x.dtype)
        m.set_layout(x.layout)


def group_norm_infer_meta(x, scale, bias, epsilon: float, groups: int, data_layout: str, y,
                          mean, variance) -> None:
    """GroupNormInferMeta: channels (dim 1, or the last for NHWC) divisible by ``groups``;
    y has x's meta; mean / variance [N, groups]."""
    dims = tuple(x.dims)
    if len(dims) < 2:
        raise InvalidArgument(f"The Input(X)'s dimension of Op(group_norm) must be greater "
                              f"than 1. But received: {len(dims)}-D Tensor.")
    channels = dims[-1] if data_layout == "NHWC" else dims[1]
    if groups < 1 or (channels != UNKNOWN and (groups > channels or channels % groups)):
        raise InvalidArgument(f"The Attr(groups) of Op(group_norm) must be in [1, {channels}] "
                              f"and divide the number of channels {channels}, but received "
                              f"groups {groups}.")
    _check_channel_param("Scale", scale, channels, "group_norm")
    _check_channel_param("Bias", bias, channels, "group_norm")
    y.share_meta(x)
    for m in (mean, variance):
        m.set_dims((dims[0], groups))
        m.set_dtype(x.dtype)
        m.set_layout(x.layout)


__all__ += ["group_norm_infer_meta", "instance_norm_infer_meta", "layer_norm_infer_meta"]


def transpose_channel_last(data_format: str) -> bool:
    """ConvTransposeInferMeta and its kernel compare the layout with kNHWC only: "NDHWC" is
    channel-first there (a Paddle-made case says so: conv3d_transpose_ndhwc_out_pad)."""
    return data_format == "NHWC"


def conv_transpose_geometry(x_dims, filter_dims, strides, paddings, output_padding,
                            output_size, padding_algorithm: str, dilations):
    """(paddings [before0, after0, ...], dilations, output sizes) of an NC* conv_transpose,
    with ConvTransposeInferMeta's checks: out = (in - 1) * stride - pads + dilation * (k - 1)
    + 1, then ``output_size`` (in [that, that + stride)) or + ``output_padding``.  A size of 0
    gives an empty output as in Paddle; a negative one raises (Paddle allocates a negative dim
    and crashes: **deviation**)."""
    data_dims = list(x_dims[2:])
    ksize = list(filter_dims[2:])
    pads, dils = resolve_conv_padding(paddings, dilations, padding_algorithm, data_dims,
                                      strides, ksize)
    if output_size and len(output_size) != len(data_dims):
        raise InvalidArgument(
            f"The Attr(output_size) of Op(conv_transpose) must hold {len(data_dims)} values, "
            f"but received {fmt_dims(output_size)}.")
    if output_padding and len(output_padding) != len(data_dims):
        raise InvalidArgument(
            f"The Attr(output_padding) of Op(conv_transpose) must hold {len(data_dims)} values, "
            f"but received {fmt_dims(output_padding)}.")
    out = []
    for i, size in enumerate(data_dims):
        if size == UNKNOWN:
            out.append(UNKNOWN)
            continue
        infer = (size - 1) * strides[i] - pads[2 * i] - pads[2 * i + 1] + \
            dils[i] * (ksize[i] - 1) + 1
        if output_size:
            want = int(output_size[i])
            if not infer <= want < infer + strides[i]:
                raise InvalidArgument(
                    f"The Attr(output_size) of Op(conv_transpose) should be in appropriate "
                    f"range, i.e. [{infer}, {infer + strides[i]}), but received "
                    f"output_size[{i}] = {want}.")
            size_i = want
        elif output_padding:
            p = int(output_padding[i])
            if not 0 <= p < max(strides[i], dils[i]):
                raise InvalidArgument(
                    f"The output_padding of Op(conv_transpose) should be in appropriate "
                    f"range, i.e. [0, {max(strides[i], dils[i])}), but received "
                    f"output_padding[{i}] = {p}.")
            size_i = infer + p
        else:
            size_i = infer
        if size_i < 0:
            raise InvalidArgument(
                f"The output size of Op(conv_transpose) must be at least 0, but (input_size - "
                f"1) * stride - pads + dilation * (filter_size - 1) + 1 is {size_i} on axis {i}"
                f" (input_size {size}, stride {strides[i]}, pads {pads[2 * i]} and "
                f"{pads[2 * i + 1]}, dilation {dils[i]}, filter_size {ksize[i]}).")
        out.append(size_i)
    return pads, dils, tuple(out)


def conv_transpose_infer_meta(x, filter, strides, paddings, output_padding, output_size,
                              padding_algorithm: str, groups: int, dilations,
                              data_format: str, out, *, config: MetaConfig | None = None) -> None:
    """ConvTransposeInferMeta (4-D and 5-D): [N, C_out, *out] (channels last for NHWC /
    NDHWC), C_out = filter.dims[1] * groups; the input channels must equal filter.dims[0]."""
    dims, f_dims = tuple(x.dims), tuple(filter.dims)
    if len(dims) not in (4, 5) or len(f_dims) != len(dims):
        raise InvalidArgument(f"Input and Filter of Op(conv_transpose) must be 4-D or 5-D of "
                              f"the same rank, but received {fmt_dims(dims)} and "
                              f"{fmt_dims(f_dims)}.")
    nd = len(dims) - 2
    if len(strides) != nd or len(dilations) != nd:
        raise InvalidArgument(f"Op(conv_transpose): Attr(strides) {fmt_dims(strides)} and "
                              f"Attr(dilations) {fmt_dims(dilations)} must hold {nd} values.")
    _check_positive(strides, "stride", "conv_transpose")
    _check_positive(dilations, "dilation", "conv_transpose")
    channel_last = transpose_channel_last(data_format)
    nchw = (dims[0], dims[-1], *dims[1:-1]) if channel_last else dims
    if UNKNOWN not in (nchw[1], f_dims[0]) and nchw[1] != f_dims[0]:
        raise InvalidArgument(
            f"The number of input channels should be equal to filter channels for "
            f"Op(conv_transpose). But received: the input's channels is [{nchw[1]}], the "
            f"shape of input is {fmt_dims(dims)}, the filter's channels is [{f_dims[0]}], "
            f"the shape of filter is {fmt_dims(f_dims)}.")
    if groups < 1 or (nchw[1] != UNKNOWN and nchw[1] % groups):
        raise InvalidArgument(f"The groups of Op(conv_transpose) must be positive and divide "
                              f"the input channels {nchw[1]}, got {groups}.")
    from_tensor = is_compile_time_tensor_attr(output_size, config)
    sizes = () if from_tensor else int_array_data(output_size)
    _, _, spatial = conv_transpose_geometry(nchw, f_dims, strides, paddings, output_padding,
                                            sizes, padding_algorithm, dilations)
    if from_tensor and int_array_data(output_size):
        # Paddle takes the sizes as given (-1s: unknown) and checks their range at run time
        spatial = (UNKNOWN,) * len(spatial)
    c_out = f_dims[1] * groups if f_dims[1] != UNKNOWN else UNKNOWN
    out.set_dims((nchw[0], *spatial, c_out) if channel_last else (nchw[0], c_out, *spatial))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


__all__ += ["conv_transpose_geometry", "conv_transpose_infer_meta", "transpose_channel_last"]
