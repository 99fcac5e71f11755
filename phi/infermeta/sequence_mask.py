"""InferMeta of sequence_mask."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.infermeta._utils import set_meta

__all__ = ["sequence_mask_infer_meta"]


def sequence_mask_infer_meta(x, max_len_tensor, maxlen: int, out_dtype: int, y) -> None:
    """x's dims plus maxlen (-1 when a tensor or the data decides it), dtype out_dtype."""
    if (max_len_tensor is None and maxlen == 0) or maxlen < -1:
        raise InvalidArgument(f"sequence_mask: Attr(maxlen) must be -1 or positive, got "
                              f"{maxlen}.")
    last = maxlen if (max_len_tensor is None and maxlen > 0) else -1
    set_meta(y, (*x.dims, last), DataType.from_proto(int(out_dtype)))
