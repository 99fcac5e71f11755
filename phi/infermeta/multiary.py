"""InferMeta functions of a list of tensors (Paddle's paddle/phi/infermeta/multiary.cc)."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.infermeta._utils import (
    UNKNOWN,
    MetaConfig,
    fmt_dims,
    is_compile_time_tensor_attr,
    scalar_value,
)

__all__ = ["concat_axis", "concat_infer_meta", "concat_lod", "concat_out_dims"]


def concat_axis(rank: int, axis) -> int:
    """The concat axis in [-rank, rank), normalized."""
    value = int(scalar_value(axis))  # type: ignore[call-overload]  # Scalar::to<int>
    if rank == 0:
        # Paddle's ConcatInferMeta lets rank 0 through (axis becomes 0) and infers a 0-D output
        # whatever the number of inputs; concatenating scalars has no meaning, so refuse it.
        raise InvalidArgument(
            "concat does not support 0-D tensors: x[0] has shape []; reshape them to [1] first."
        )
    if not -rank <= value < rank:
        raise InvalidArgument(
            f"The axis is expected to be in range of [{-rank}, {rank}), but got {value}"
        )
    return value + rank if value < 0 else value


def concat_out_dims(dims_list, axis: int) -> tuple[int, ...]:
    """Paddle's ComputeAndCheckShape: sizes add up on ``axis``, the other dims must agree.

    -1 (unknown) makes the axis size unknown and is filled from a known input elsewhere.
    """
    first = tuple(dims_list[0])
    out = list(first)
    for i, dims in enumerate(dims_list[1:], start=1):
        dims = tuple(dims)
        if len(dims) != len(first):
            raise InvalidArgument(
                f"The shape of input[0] and input[{i}] is expected to be equal. But received "
                f"input[0]'s shape = {fmt_dims(first)}, input[{i}]'s shape = {fmt_dims(dims)}."
            )
        for j, d in enumerate(dims):
            if j == axis:
                out[j] = UNKNOWN if UNKNOWN in (out[j], d) else out[j] + d
            elif out[j] >= 0 and d >= 0:
                if out[j] != d:
                    raise InvalidArgument(
                        f"The {j}-th dimension of input[0] and input[{i}] is expected to be "
                        f"equal. But received input[0]'s shape = {fmt_dims(first)}, input[{i}]'s"
                        f" shape = {fmt_dims(dims)}."
                    )
            elif out[j] == UNKNOWN:
                out[j] = d
    return tuple(out)


def concat_infer_meta(x: list, axis, out, *, config: MetaConfig | None = None) -> None:
    """ConcatInferMeta: :func:`concat_out_dims` along :func:`concat_axis`; x[0]'s dtype/layout."""
    if not x:
        raise InvalidArgument("The size of input meta vector should be greater than 0.")
    first = x[0]
    rank = len(first.dims)
    if is_compile_time_tensor_attr(axis, config):
        out.set_dims((UNKNOWN,) * rank)  # AxisTensor at compile time: the axis is unknown
    else:
        ax = concat_axis(rank, axis)
        out.set_dims(concat_out_dims([t.dims for t in x], ax))
    out.set_dtype(first.dtype)
    out.set_layout(first.layout)
    out.share_lod(first)
    if getattr(first, "lod", ()) and (config is None or config.is_runtime) and ax == 0:
        out.lod = concat_lod([t.lod for t in x])


def concat_lod(lods) -> tuple:
    """The LoD Paddle's concat kernel gives along axis 0: the first input's, each later input's
    sequences appended, when every input has a LoD of as many levels (none when one lacks a
    LoD: the first input's is kept as it is)."""
    out = [list(level) for level in lods[0]]
    for i, lod in enumerate(lods[1:], 1):
        if not lod:
            return lods[0]
        if len(lod) != len(out):
            raise InvalidArgument(f"concat: The lod level of all input LoDTensors should be "
                                  f"same. Maybe different lod level of input LoDTensors can "
                                  f"concat, it is not supported currently. The lod level of "
                                  f"{i}th input is {len(lod)}, the lod level of 1st input is "
                                  f"{len(out)}.")
    for lod in lods[1:]:
        for level, offsets in zip(out, lod, strict=True):
            base = level[-1]
            level.extend(base + b - offsets[0] for b in offsets[1:])
    return tuple(tuple(level) for level in out)


def where_infer_meta(condition, x, y, out) -> None:
    """WhereInferMeta (2.6.2): condition, x and y must have the same dims (no broadcasting;
    paddle.where broadcasts in Python before appending the op); the output is x's meta."""
    cond_dims, x_dims, y_dims = tuple(condition.dims), tuple(x.dims), tuple(y.dims)
    if cond_dims != x_dims:
        raise InvalidArgument(
            "The dims of Inputs(Condition) and Inputs(X) should be same. But received "
            f"Condition's shape is {fmt_dims(cond_dims)}, X's shape is {fmt_dims(x_dims)}"
        )
    if x_dims != y_dims:
        raise InvalidArgument(
            "The dims of Inputs(X) and Inputs(Y) should be same. But received X's shape is "
            f"{fmt_dims(x_dims)}, Y's shape is {fmt_dims(y_dims)}"
        )
    out.share_meta(x)


__all__ += ["where_infer_meta"]


def stack_infer_meta(x: list, axis: int, out) -> None:
    """StackInferMeta: the inputs' common dims with len(x) inserted at ``axis``."""
    if not x:
        raise InvalidArgument("Number of Inputs(x) must be larger than 0, but received value "
                              "is:0.")
    dims = tuple(x[0].dims)
    for i, m in enumerate(x[1:], 1):
        if tuple(m.dims) != dims and UNKNOWN not in m.dims and UNKNOWN not in dims:
            raise InvalidArgument(
                "Dims of all Inputs(X) must be the same, but received input 0 dim is:"
                f"{fmt_dims(dims)} not equal to input {i} dim:{fmt_dims(m.dims)}.")
    rank = len(dims) + 1
    if not -rank <= axis < rank:
        raise InvalidArgument(f"Attr(axis) must be inside [-{rank}, {rank}), but received axis "
                              f"is:{axis}.")
    axis = axis + rank if axis < 0 else axis
    out.set_dims((*dims[:axis], len(x), *dims[axis:]))
    out.set_dtype(x[0].dtype)
    out.set_layout(x[0].layout)
    out.share_lod(x[0])


__all__ += ["stack_infer_meta"]


def addn_infer_meta(x: list, out) -> None:
    """AddNInferMeta: the dims of the first input holding elements (all such inputs agree);
    its dtype."""
    if not x:
        raise InvalidArgument("The input tensor X's dimensions of SumOp should be larger than "
                              "0. But received X's dimensions 0.")
    dims = None
    for i, m in enumerate(x):
        d = tuple(m.dims)
        n = 1
        for v in d:
            n *= v
        if n == 0 and UNKNOWN not in d:
            continue
        if dims is None:
            dims = d
        elif d != dims and UNKNOWN not in d and UNKNOWN not in dims:
            raise InvalidArgument(
                "The input tensor X of SumOp must have same shape. But received X[0]'s shape = "
                f"{fmt_dims(dims)}, X[{i}]'s shape = {fmt_dims(d)}.")
    # every input empty: Paddle's in_dim stays an empty DDim, a 0-D output (checked with the
    # wheel: two [0, 3] inputs sum to a 0-D zero)
    out.set_dims(dims if dims is not None else ())
    out.set_dtype(x[0].dtype)
    out.set_layout(x[0].layout)
    out.share_lod(x[0])


__all__ += ["addn_infer_meta"]


def rnn_infer_meta(x, pre_state: list, weight_list: list, sequence_length, dropout_prob: float,
                   is_bidirec: bool, input_size: int, hidden_size: int, num_layers: int,
                   mode: str, seed: int, is_test: bool, out, dropout_state, state: list,
                   reserve) -> None:
    """RnnInferMeta: Out [T, B, H * dirs]; State as PreState; DropoutState and Reserve carry
    no data here (Paddle fills them for its backward pass)."""
    if len(x.dims) != 3:
        raise InvalidArgument(f"The rank of Input in RNN must be 3, but received Input's "
                              f"dims {list(x.dims)}.")
    if x.dims[2] not in (-1, input_size):
        raise InvalidArgument(f"rnn: Input's last dim {x.dims[2]} must equal input_size "
                              f"{input_size}.")
    dirs = 2 if is_bidirec else 1
    out.set_dims((x.dims[0], x.dims[1], hidden_size * dirs))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)
    for s, p in zip(state, pre_state, strict=False):
        s.set_dims(tuple(p.dims))
        s.set_dtype(x.dtype)
        s.set_layout(x.layout)
    dropout_state.set_dims((0,))
    dropout_state.set_dtype(DataType.UINT8)
    reserve.set_dims((0,))
    reserve.set_dtype(x.dtype)


__all__ += ["rnn_infer_meta"]
