"""InferMeta functions without tensor inputs (Paddle's paddle/phi/infermeta/nullary.cc): the
creation ops (full / create, assign_value, eye, tril / triu indices) and the random generators.
"""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.common.layout import DataLayout
from phi.core.errors import InvalidArgument
from phi.infermeta.funcs import (
    MetaConfig,
    UNKNOWN,
    fmt_dims,
    int_array_data,
    is_compile_time_tensor_attr,
    scalar_value,
    set_meta,
)

__all__ = [
    "assign_value_infer_meta", "create_infer_meta", "eye_infer_meta", "full_int_array_infer_meta",
    "gaussian_infer_meta", "randint_infer_meta", "randint_with_seed_infer_meta",
    "randperm_infer_meta", "tril_indices_count", "tril_indices_infer_meta",
    "triu_indices_infer_meta", "truncated_gaussian_random_infer_meta", "uniform_random_infer_meta",
]


def create_infer_meta(shape, dtype: DataType, out) -> None:
    """CreateInferMeta (full): dims from ``shape``, the given dtype, layout NCHW.

    -1 is accepted as a size unknown at compile time (a shape fed by a tensor); any other negative
    size is refused here rather than at allocation, where Paddle reports it.
    """
    dims = int_array_data(shape)
    for i, d in enumerate(dims):
        if d < UNKNOWN:
            raise InvalidArgument(
                f"The shape of the output must not contain negative sizes (except -1 for a size "
                f"unknown at compile time), but received shape = {fmt_dims(dims)}, "
                f"shape[{i}] = {d}."
            )
    out.set_dims(dims)
    out.set_dtype(dtype)
    # Paddle's CreateInferMetaBase fixes the layout to NCHW
    out.set_layout(DataLayout.NCHW)


def assign_value_infer_meta(shape, dtype, out) -> None:
    """AssignValueInferMeta: ``shape`` and ``dtype``."""
    out.set_dims(tuple(shape))
    out.set_dtype(dtype)


# -- manipulation and creation -----------------------------------------------------------------

# -- diag / diag_embed / diagonal / eye / fill_diagonal_tensor ---------------------------------

def eye_infer_meta(num_rows, num_columns, dtype: DataType, out, *,
                   config: MetaConfig | None = None) -> None:
    """EyeInferMeta: [rows, columns] (-1 columns: rows) of ``dtype``."""
    rows = UNKNOWN if is_compile_time_tensor_attr(num_rows, config) else \
        int(scalar_value(num_rows))
    if is_compile_time_tensor_attr(num_columns, config):
        cols = UNKNOWN  # Paddle: a tensor's columns stay unknown (not "-1 means rows")
    else:
        cols = int(scalar_value(num_columns))
        if cols == -1:
            cols = rows
    if rows < UNKNOWN or cols < UNKNOWN:
        raise InvalidArgument(f"eye: num_rows and num_columns must be non-negative, but "
                              f"received ({rows}, {cols}).")
    out.set_dims((rows, cols))
    out.set_dtype(dtype)


# -- creation like an input --------------------------------------------------------------------

def full_int_array_infer_meta(value, dtype: DataType, out) -> None:
    """CreateVecShapeInferMeta-like: [len(value)] of ``dtype``."""
    out.set_dims((len(value),))
    out.set_dtype(dtype)


# -- tril / triu indices -----------------------------------------------------------------------

def tril_indices_count(rows: int, cols: int, offset: int) -> int:
    """The number of (r, c) with 0 <= r < rows, 0 <= c < cols, c - r <= offset."""
    return sum(max(0, min(cols, r + offset + 1)) for r in range(rows))


def tril_indices_infer_meta(rows: int, cols: int, offset: int, dtype: DataType, out) -> None:
    """TrilIndicesInferMeta: [2, count]."""
    if rows < 0 or cols < 0:
        raise InvalidArgument(f"tril_indices: rows and cols must be non-negative, but received "
                              f"({rows}, {cols}).")
    out.set_dims((2, tril_indices_count(rows, cols, offset)))
    out.set_dtype(dtype)


def triu_indices_infer_meta(row: int, col: int, offset: int, dtype: DataType, out) -> None:
    """TriuIndicesInferMeta: [2, row * col - tril count(offset - 1)]."""
    if row < 0 or col < 0:
        raise InvalidArgument(f"triu_indices: row and col must be non-negative, but received "
                              f"({row}, {col}).")
    out.set_dims((2, row * col - tril_indices_count(row, col, offset - 1)))
    out.set_dtype(dtype)


# -- random ------------------------------------------------------------------------------------

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
