"""InferMeta of the communication family's local ops (c_embedding)."""

from __future__ import annotations

from phi.core.errors import InvalidArgument

__all__ = ["cembedding_infer_meta"]


def cembedding_infer_meta(weight, x, start_index: int, out) -> None:
    """CEmbeddingInferMeta: ids' dims + [the table's width], the table's dtype."""
    if len(weight.dims) != 2:
        raise InvalidArgument(f"c_embedding: the table W must be 2-D, got dims "
                              f"{list(weight.dims)}.")
    out.set_dims((*x.dims, weight.dims[1]))
    out.set_dtype(weight.dtype)
    out.set_layout(weight.layout)
