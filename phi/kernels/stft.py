"""The ``stft`` kernel."""

from __future__ import annotations


from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.fft import fft_r2c
from phi.kernels.funcs.fft import frame_array

__all__ = ["stft"]


REAL = ["float32", "float64"]


@register_kernel("stft", ("CPU", "GPU"), dtypes=REAL)
def stft(ctx, x: Tensor, window: Tensor, n_fft: int, hop_length: int, normalized: bool,
         onesided: bool) -> Tensor:
    """Windowed frames of x [B, T] transformed: [B, n_fft // 2 + 1, n_frames] complex; the
    two-sided transform of a real input fails in Paddle's kernel (it reads the real frames as
    complex), so it raises here too."""
    if not onesided:
        raise InvalidArgument("stft: onesided=False needs a complex input, but Input(X) is "
                              f"{x.dtype} (Paddle's stft kernel fails on it as well).")
    frames = frame_array(ctx.xp, x, n_fft, hop_length, -1) * window[:, None]
    return fft_r2c(ctx, frames.astype(x.dtype), [1], "ortho" if normalized else "backward",
                   True, onesided)
