"""InferMeta of helper `linalg2`'s fft / signal ops (Paddle's FFTC2CInferMeta, FFTR2CInferMeta,
FFTC2RInferMeta, FrameInferMeta, OverlapAddInferMeta and the stft op's InferShape); -1 dims are
sizes unknown at compile time."""

from __future__ import annotations

from phi.core.errors import InvalidArgument
from phi.infermeta._utils import UNKNOWN, fmt_dims
from phi.infermeta.linalg2 import complex_dtype, real_dtype

__all__ = [
    "fft_axes", "fft_c2c_infer_meta", "fft_c2r_infer_meta", "fft_r2c_infer_meta",
    "frame_infer_meta", "frame_out_dims", "overlap_add_infer_meta", "overlap_add_out_dims",
    "stft_infer_meta",
]

NORMS = ("backward", "ortho", "forward")


def fft_axes(axes, rank: int, normalization: str, op: str) -> list[int]:
    """The transform axes made non-negative, checked as Paddle's fft ops do."""
    if normalization not in NORMS:
        raise InvalidArgument(f"{op}: Attr(normalization) must be one of {', '.join(NORMS)}, "
                              f"but received '{normalization}'.")
    out = []
    for a in axes:
        if not -rank <= a < rank:
            raise InvalidArgument(f"{op}: Attr(axes) value {a} is out of range for an input of "
                                  f"rank {rank}.")
        out.append(a + rank if a < 0 else a)
    if not out or len(set(out)) != len(out):
        raise InvalidArgument(f"{op}: Attr(axes) {list(axes)} must be non-empty and unique.")
    return out


def fft_c2c_infer_meta(x, axes, normalization: str, forward: bool, out) -> None:
    """FFTC2CInferMeta: same dims and dtype."""
    fft_axes(axes, len(x.dims), normalization, "fft_c2c")
    out.set_dims(tuple(x.dims))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


def fft_r2c_infer_meta(x, axes, normalization: str, forward: bool, onesided: bool,
                       out) -> None:
    """FFTR2CInferMeta: complex out; onesided halves the last axis (n // 2 + 1)."""
    ax = fft_axes(axes, len(x.dims), normalization, "fft_r2c")
    dims = list(x.dims)
    if onesided and dims[ax[-1]] != UNKNOWN:
        dims[ax[-1]] = dims[ax[-1]] // 2 + 1
    out.set_dims(tuple(dims))
    out.set_dtype(complex_dtype(x.dtype))
    out.set_layout(x.layout)


def fft_c2r_infer_meta(x, axes, normalization: str, forward: bool, last_dim_size: int,
                       out) -> None:
    """FFTC2RInferMeta: real out; the last axis has last_dim_size (0: 2 * (n - 1))."""
    ax = fft_axes(axes, len(x.dims), normalization, "fft_c2r")
    dims = list(x.dims)
    last = dims[ax[-1]]
    if last_dim_size > 0:
        dims[ax[-1]] = last_dim_size
    elif last != UNKNOWN:
        dims[ax[-1]] = 2 * (last - 1)
    if dims[ax[-1]] not in (UNKNOWN,) and dims[ax[-1]] <= 0:
        raise InvalidArgument(f"fft_c2r: the output size of the last axis ({dims[ax[-1]]}) "
                              "must be positive.")
    out.set_dims(tuple(dims))
    out.set_dtype(real_dtype(x.dtype))
    out.set_layout(x.layout)


def _signal_axis(axis: int, op: str) -> int:
    if axis not in (0, -1):
        raise InvalidArgument(f"{op}: Attr(axis) should be 0 or -1, but received {axis}.")
    return axis


def frame_out_dims(dims, frame_length: int, hop_length: int, axis: int) -> tuple[int, ...]:
    """FrameInferMeta: [..., seq] -> [..., frame_length, n_frames] (axis -1) or [seq, ...] ->
    [n_frames, frame_length, ...] (axis 0); n_frames = 1 + (seq - frame_length) // hop."""
    _signal_axis(axis, "frame")
    dims = tuple(dims)
    if not dims:
        raise InvalidArgument("frame: Input(X) must have rank >= 1, got a 0-D tensor.")
    if hop_length <= 0:
        raise InvalidArgument(f"frame: Attr(hop_length) should be greater than 0, but got "
                              f"{hop_length}.")
    seq = dims[-1] if axis == -1 else dims[0]
    if seq != UNKNOWN and not 0 < frame_length <= seq:
        raise InvalidArgument(f"frame: Attribute(frame_length) should be in range (0, "
                              f"{seq}], but got {frame_length}.")
    n = UNKNOWN if seq == UNKNOWN else 1 + (seq - frame_length) // hop_length
    if axis == -1:
        return (*dims[:-1], frame_length, n)
    return (n, frame_length, *dims[1:])


def frame_infer_meta(x, frame_length: int, hop_length: int, axis: int, out) -> None:
    """FrameInferMeta."""
    out.set_dims(frame_out_dims(x.dims, frame_length, hop_length, axis))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


def overlap_add_out_dims(dims, hop_length: int, axis: int) -> tuple[int, ...]:
    """OverlapAddInferMeta: [..., frame_length, n_frames] -> [..., seq] (axis -1) or
    [n_frames, frame_length, ...] -> [seq, ...]; seq = (n_frames - 1) * hop + frame_length."""
    _signal_axis(axis, "overlap_add")
    dims = tuple(dims)
    if len(dims) < 2:
        raise InvalidArgument(f"overlap_add: Input(X) must have rank >= 2, got "
                              f"{fmt_dims(dims)}.")
    if hop_length <= 0:
        raise InvalidArgument(f"overlap_add: Attr(hop_length) should be greater than 0, but "
                              f"got {hop_length}.")
    fl, nf = (dims[-2], dims[-1]) if axis == -1 else (dims[1], dims[0])
    seq = UNKNOWN if UNKNOWN in (fl, nf) else (nf - 1) * hop_length + fl
    return (*dims[:-2], seq) if axis == -1 else (seq, *dims[2:])


def overlap_add_infer_meta(x, hop_length: int, axis: int, out) -> None:
    """OverlapAddInferMeta."""
    out.set_dims(overlap_add_out_dims(x.dims, hop_length, axis))
    out.set_dtype(x.dtype)
    out.set_layout(x.layout)


def stft_infer_meta(x, window, n_fft: int, hop_length: int, normalized: bool, onesided: bool,
                    out) -> None:
    """StftOp::InferShape: X [B, T], Window [n_fft] -> complex [B, n_fft(/2+1), n_frames]."""
    dims = tuple(x.dims)
    if len(dims) != 2:
        raise InvalidArgument(f"stft: Input(X) must be [batch, seq_length], got "
                              f"{fmt_dims(dims)}.")
    if tuple(window.dims) not in ((n_fft,), (UNKNOWN,)):
        raise InvalidArgument(f"stft: Input(Window) must be [{n_fft}] (n_fft), got "
                              f"{fmt_dims(window.dims)}.")
    fdims = frame_out_dims(dims, n_fft, hop_length, -1)
    out.set_dims((dims[0], n_fft // 2 + 1 if onesided else n_fft, fdims[-1]))
    out.set_dtype(complex_dtype(x.dtype))
    out.set_layout(x.layout)
