"""InferMeta of the phi kernels of the sequence / LoD family's non-sequence_* ops
(edit_distance)."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.infermeta._utils import set_meta

__all__ = ["edit_distance_infer_meta", "hsigmoid_loss_infer_meta", "warpctc_infer_meta"]


def edit_distance_infer_meta(hyps, refs, hypslength, refslength, normalized: bool,
                             sequencenum, out) -> None:
    """EditDistanceInferMeta: Out [num pairs, 1] float32 (-1 rows in LoD mode: the number of
    sequences), SequenceNum [1] (int64, the dtype the kernel registers for it)."""
    hd, rd = tuple(hyps.dims), tuple(refs.dims)
    if hypslength is not None and refslength is not None:
        hl, rl = tuple(hypslength.dims), tuple(refslength.dims)
        if not (len(hd) == 2 and len(rd) == 2 and -1 in (hd[0], rd[0]) or
                len(hd) == 2 and len(rd) == 2 and hd[0] == rd[0]):
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
    n = tuple(x.dims)[0]
    width = tuple(path.dims)[1] if path is not None else (num_classes - 1).bit_length()
    set_meta(out, (n, 1), x.dtype)
    set_meta(pre_out, (n, width), x.dtype)
    if w_out is not None:
        w_out.share_meta(w)
