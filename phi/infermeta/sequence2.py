"""InferMeta of the phi kernels of the sequence / LoD family's non-sequence_* ops
(edit_distance)."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.infermeta._utils import set_meta

__all__ = ["edit_distance_infer_meta"]


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
