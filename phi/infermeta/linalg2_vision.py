"""InferMeta of helper `linalg2`'s affine / sampling ops (Paddle's AffineChannelInferMeta,
AffineGridInferMeta, GridSampleBaseInferMeta, AddPositionEncodingInferMeta,
BilinearInferMeta); -1 dims are sizes unknown at compile time."""

from __future__ import annotations

from phi.core.errors import InvalidArgument
from phi.infermeta._utils import UNKNOWN, fmt_dims, int_array_data, is_compile_time_tensor_attr

__all__ = [
    "add_position_encoding_infer_meta", "affine_channel_infer_meta", "affine_grid_infer_meta",
    "affine_grid_out_dims", "bilinear_infer_meta", "grid_sample_infer_meta",
]


def _like(src, out, dims) -> None:
    out.set_dims(tuple(dims))
    out.set_dtype(src.dtype)
    out.set_layout(src.layout)


def affine_channel_infer_meta(x, scale, bias, data_layout: str, out) -> None:
    """AffineChannelInferMeta: Scale and Bias are [C] (C: dim 1 for NCHW, else the last)."""
    dims = tuple(x.dims)
    if len(dims) < 2:
        raise InvalidArgument(f"affine_channel: Input(X) must have rank >= 2, got "
                              f"{fmt_dims(dims)}.")
    c = dims[1] if data_layout == "NCHW" else dims[-1]
    for slot, m in (("Scale", scale), ("Bias", bias)):
        if len(m.dims) != 1 or (UNKNOWN not in (c, m.dims[0]) and m.dims[0] != c):
            raise InvalidArgument(f"affine_channel: Input({slot}) must be [{c}] (the channels "
                                  f"of X {fmt_dims(dims)}), got {fmt_dims(m.dims)}.")
    _like(x, out, dims)


def affine_grid_out_dims(theta_dims, output_shape) -> tuple[int, ...]:
    """[N, H, W, 2] for a 4-D output_shape, [N, D, H, W, 3] for a 5-D one."""
    shape = tuple(output_shape)
    if len(shape) not in (4, 5):
        raise InvalidArgument(f"affine_grid: the output shape must have 4 or 5 entries, got "
                              f"{list(shape)}.")
    theta = tuple(theta_dims)
    rows = 2 if len(shape) == 4 else 3
    if len(theta) != 3 or (UNKNOWN not in theta[1:] and theta[1:] != (rows, rows + 1)):
        raise InvalidArgument(f"affine_grid: Input(Theta) must be [N, {rows}, {rows + 1}] for "
                              f"output shape {list(shape)}, got {fmt_dims(theta)}.")
    return (theta[0], *shape[2:], rows)


def affine_grid_infer_meta(input, output_shape, align_corners: bool, output,
                           config=None) -> None:
    """AffineGridInferMeta (an OutputShape tensor at compile time: the spatial dims are -1)."""
    if is_compile_time_tensor_attr(output_shape, config):
        n = len(tuple(input.dims)) and input.dims[1]
        rank = 4 if n == 2 else 5
        dims = (input.dims[0], *([UNKNOWN] * (rank - 2)), rank - 2)
    else:
        dims = affine_grid_out_dims(input.dims, int_array_data(output_shape))
    _like(input, output, dims)


def grid_sample_infer_meta(x, grid, mode: str, padding_mode: str, align_corners: bool,
                           out) -> None:
    """GridSampleBaseInferMeta: X [N, C, (D,) H, W], Grid [N, (D',) H', W', 2|3] ->
    [N, C, (D',) H', W']."""
    xd, gd = tuple(x.dims), tuple(grid.dims)
    if len(xd) not in (4, 5) or len(gd) != len(xd) or gd[-1] not in (len(xd) - 2, UNKNOWN):
        raise InvalidArgument(f"grid_sampler: Input(X) must be 4-D or 5-D and Input(Grid) of "
                              f"the same rank ending in {len(xd) - 2}, got {fmt_dims(xd)} and "
                              f"{fmt_dims(gd)}.")
    if mode not in ("bilinear", "nearest"):
        raise InvalidArgument(f"grid_sampler: Attr(mode) must be bilinear or nearest, got "
                              f"'{mode}'.")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise InvalidArgument(f"grid_sampler: Attr(padding_mode) must be zeros, border or "
                              f"reflection, got '{padding_mode}'.")
    _like(x, out, (xd[0], xd[1], *gd[1:-1]))


def add_position_encoding_infer_meta(x, alpha: float, beta: float, out) -> None:
    """AddPositionEncodingInferMeta: same dims; X is [B, T, D] (or LoD [T, D]), D even."""
    dims = tuple(x.dims)
    if len(dims) not in (2, 3) or (dims[-1] != UNKNOWN and dims[-1] % 2):
        raise InvalidArgument(f"add_position_encoding: Input(X) must be [batch, seq, dim] (or "
                              f"a LoD [seq, dim]) with an even dim, got {fmt_dims(dims)}.")
    _like(x, out, dims)


def bilinear_infer_meta(x, y, weight, bias, out) -> None:
    """BilinearInferMeta: X [B, M], Y [B, N], Weight [S, M, N], Bias [1, S] -> [B, S]."""
    xd, yd, wd = tuple(x.dims), tuple(y.dims), tuple(weight.dims)
    ok = len(xd) == 2 and len(yd) == 2 and len(wd) == 3
    if ok:
        for a, b in ((xd[0], yd[0]), (xd[1], wd[1]), (yd[1], wd[2])):
            ok = ok and (UNKNOWN in (a, b) or a == b)
    if ok and bias is not None:
        bd = tuple(bias.dims)
        ok = (len(bd) == 2 and bd[0] in (1, UNKNOWN) and UNKNOWN in (bd[1], wd[0])) or \
            (len(bd) == 2 and bd[0] in (1, UNKNOWN) and bd[1] == wd[0])
    if not ok:
        raise InvalidArgument(
            f"bilinear_tensor_product: expected X [B, M], Y [B, N], Weight [S, M, N], Bias "
            f"[1, S]; got {fmt_dims(xd)}, {fmt_dims(yd)}, {fmt_dims(wd)}"
            f"{', ' + fmt_dims(bias.dims) if bias is not None else ''}.")
    _like(x, out, (xd[0], wd[0]))
    out.share_lod(x)
