"""InferMeta of the phi kernels of the sequence / LoD family's non-sequence_* ops
(edit_distance)."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.infermeta._utils import set_meta

__all__ = ["edit_distance_infer_meta", "fusion_gru_infer_meta",
           "fusion_seqconv_eltadd_relu_infer_meta", "fusion_seqexpand_concat_fc_infer_meta",
           "hsigmoid_loss_infer_meta", "shuffle_batch_infer_meta",
           "warpctc_infer_meta"]


def _need_rank(op: str, slot: str, meta, ranks: tuple[int, ...]) -> tuple:
    d = tuple(meta.dims)
    if len(d) not in ranks:
        raise InvalidArgument(f"{op}: Input({slot}) must be {' or '.join(map(str, ranks))}-D, "
                              f"got {list(d)}.")
    return d


def edit_distance_infer_meta(hyps, refs, hypslength, refslength, normalized: bool,
                             sequencenum, out) -> None:
    """EditDistanceInferMeta: Out [num pairs, 1] float32 (-1 rows in LoD mode: the number of
    sequences), SequenceNum [1] (int64, the dtype the kernel registers for it)."""
    hd, rd = tuple(hyps.dims), tuple(refs.dims)
    if hypslength is not None and refslength is not None:
        hl, rl = tuple(hypslength.dims), tuple(refslength.dims)
        if not ((len(hd) == 2 and len(rd) == 2 and -1 in (hd[0], rd[0])) or
                (len(hd) == 2 and len(rd) == 2 and hd[0] == rd[0])):
            raise InvalidArgument(
                f"edit_distance: Input(Hyps) and Input(Refs) must be 2-D Tensors with identical "
                f"first dimension, got Hyps {list(hd)} and Refs {list(rd)}.")
        if -1 not in (hl[0], rl[0], hd[0]) and not hl[0] == rl[0] == hd[0]:
            raise InvalidArgument(
                f"edit_distance: Input(HypsLength), Input(RefsLength) and Input(Hyps) should "
                f"have identical first dimension, got {hl[0]}, {rl[0]} and {hd[0]}.")
        rows = hd[0]
    else:
        for slot, d in (("Hyps", hd), ("Refs", rd)):
            if len(d) != 2 or d[1] not in (1, -1):
                raise InvalidArgument(f"edit_distance: Input({slot}) must be a 2-D Tensor with "
                                      f"the 2nd dimension equal to 1, got {list(d)}.")
        rows = -1
    set_meta(out, (rows, 1), DataType.FLOAT32)
    set_meta(sequencenum, (1,), DataType.INT64)


def warpctc_infer_meta(logits, label, logits_length, labels_length, blank: int,
                       norm_by_times: bool, loss, warpctcgrad) -> None:
    """WarpctcInferMeta: Loss [num sequences (-1 in LoD mode), 1] in the logits' dtype."""
    d = tuple(logits.dims)
    if len(d) < 2:
        raise InvalidArgument(f"warpctc: Input(Logits) must be [T, C] with a LoD or [T_max, B, "
                              f"C] with LogitsLength, got {list(d)}.")
    if logits_length is not None and labels_length is not None:
        if len(d) != 3:
            raise InvalidArgument(f"warpctc: Input(Logits) must be [T_max, B, C] with "
                                  f"LogitsLength, got {list(d)}.")
        n, width = d[1], d[2]
    else:
        n, width = -1, d[-1]
    if width > 0 and not 0 <= blank < width:
        raise InvalidArgument(f"warpctc: Attr(blank) should be in interval [0, {width}), but "
                              f"received {blank}.")
    set_meta(loss, (n, 1), logits.dtype)
    set_meta(warpctcgrad, (-1, n, width), logits.dtype)


def hsigmoid_loss_infer_meta(x, label, w, bias, path, code, num_classes: int, is_sparse: bool,
                             out, pre_out, w_out) -> None:
    """HSigmoidLossInferMeta: Out [N, 1], PreOut [N, code length] in X's dtype."""
    xd, wd = tuple(x.dims), tuple(w.dims)
    if len(xd) != 2 or len(wd) != 2 or (-1 not in (xd[1], wd[1]) and xd[1] != wd[1]):
        raise InvalidArgument(f"hsigmoid_loss: X [N, D] and W [num_classes - 1, D] must be 2-D "
                              f"with the same width, got {list(xd)} and {list(wd)}.")
    if path is not None and (len(tuple(path.dims)) != 2 or code is None):
        raise InvalidArgument(f"hsigmoid_loss: PathTable must be 2-D [N, code length] and come "
                              f"with PathCode, got {list(path.dims)}.")
    if num_classes < 2 and path is None:
        raise InvalidArgument(f"hsigmoid_loss: num_classes must be at least 2, got "
                              f"{num_classes}.")
    n = xd[0]
    width = tuple(path.dims)[1] if path is not None else (num_classes - 1).bit_length()
    set_meta(out, (n, 1), x.dtype)
    set_meta(pre_out, (n, width), x.dtype)
    if w_out is not None:
        w_out.share_meta(w)


def fusion_seqexpand_concat_fc_infer_meta(x: list, fc_weight, fc_bias, fc_activation: str,
                                          out, fc_out) -> None:
    """FusionSeqExpandConcatFCInferMeta: Out [T, D] with X[0]'s LoD, FCOut [-1, D]."""
    if len(x) < 2:
        raise InvalidArgument(f"fusion_seqexpand_concat_fc: Inputs(X) of "
                              f"FusionSeqExpandConcatFCOp should larger than 1, got {len(x)}.")
    op = "fusion_seqexpand_concat_fc"
    for i, t in enumerate(x):
        _need_rank(op, f"X[{i}]", t, (2,))
    dw = _need_rank(op, "FCWeight", fc_weight, (2,))
    set_meta(out, (next(iter(x[0].dims)), dw[1]), x[0].dtype)
    out.share_lod(x[0])
    set_meta(fc_out, (-1, dw[1]), x[0].dtype)


def fusion_seqconv_eltadd_relu_infer_meta(x, filter, bias, context_length: int,
                                          context_start: int, context_stride: int, out,
                                          col_mat) -> None:
    """FusionSeqConvEltAddReluInferMeta: Out [T, N] with X's LoD, ColMat [T, filter rows]."""
    op = "fusion_seqconv_eltadd_relu"
    xd, fd = _need_rank(op, "X", x, (2,)), _need_rank(op, "Filter", filter, (2,))
    set_meta(out, (xd[0], fd[1]), x.dtype)
    out.share_lod(x)
    set_meta(col_mat, (xd[0], fd[0]), x.dtype)


def fusion_gru_infer_meta(x, h0, weight_x, weight_h, bias, activation: str,
                          gate_activation: str, is_reverse: bool, use_seq: bool,
                          origin_mode: bool, use_mkldnn: bool, mkldnn_data_type: str,
                          scale_data: float, shift_data: float, scale_weights: list,
                          force_fp32_output: bool, reordered_h0, xx, batched_input,
                          batched_out, hidden) -> None:
    """FusionGRUInferMeta: Hidden [T, D] with X's LoD, XX [T, 3D] (batch mode with M <= 3D:
    [T, M], X reordered), the batch outputs [T, 3D] / [T, D]."""
    op = "fusion_gru"
    xd, wd = _need_rank(op, "X", x, (2,)), _need_rank(op, "WeightH", weight_h, (2,))
    _need_rank(op, "WeightX", weight_x, (2,))
    t, dim = xd[0], wd[0]
    set_meta(hidden, (t, dim), x.dtype)
    hidden.share_lod(x)
    xx_width = xd[1] if not use_seq and xd[1] <= 3 * dim else 3 * dim
    set_meta(xx, (t, xx_width), x.dtype)
    xx.share_lod(x)
    if not use_seq:
        set_meta(batched_input, (t, 3 * dim), x.dtype)
        set_meta(batched_out, (t, dim), x.dtype)
        if h0 is not None:
            set_meta(reordered_h0, tuple(h0.dims), x.dtype)


def shuffle_batch_infer_meta(x, seed, startup_seed: int, out, shuffle_idx, seed_out) -> None:
    """ShuffleBatchInferMeta: Out like X, ShuffleIdx [-1] int64, SeedOut [1] int64."""
    out.share_meta(x)
    set_meta(shuffle_idx, (-1,), DataType.INT64)
    set_meta(seed_out, (1,), DataType.INT64)
