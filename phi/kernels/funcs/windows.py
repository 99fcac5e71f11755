"""Window helpers shared by the convolution and pooling kernels: bounds-checked strided views
and the trailing padding that keeps every window inside its buffer.

Paddle computes output sizes with C++ ``int`` division, which truncates toward zero: an input
smaller than its (strided, dilated) window still gets one output position when
``in + pads - window`` is negative but larger than ``-stride`` (Python's floor would say none).
That window overhangs the padded input; Paddle's im2col and pooling loops read its
out-of-range taps as zero (or skip them).  Here the padded input is grown at the trailing side
so that the window lies inside it, and every strided view states its bounds: a view whose last
element would fall outside its buffer raises instead of reading memory that is not the
tensor's.
"""

from __future__ import annotations

from phi.core.errors import Fatal

__all__ = ["overhang", "strided_view"]


def overhang(size: int, pad_before: int, pad_after: int, n_out: int, stride: int,
             span: int) -> int:
    """How far the last of ``n_out`` windows of ``span`` elements, ``stride`` apart, ends past
    the input padded by (pad_before, pad_after); 0 when it ends inside."""
    return max(0, (n_out - 1) * stride + span - (size + pad_before + pad_after))


def strided_view(xp, x, shape, strides):
    """``as_strided(x, shape, strides)`` for a C-contiguous x and non-negative strides, after
    checking that the view's last element lies inside x's buffer (a view that reaches past it
    would read memory that is not the tensor's).  Plain loops: this runs on every conv call."""
    last = x.itemsize
    for n, s in zip(shape, strides, strict=False):
        if s < 0:
            last = -1
            break
        last += (n - 1) * s
    if 0 not in shape and (last < 0 or last > x.nbytes or not x.flags.c_contiguous):
        raise Fatal(f"strided_view: a view {tuple(shape)} with strides {tuple(strides)} of a "
                    f"{'C-contiguous' if x.flags.c_contiguous else 'non-contiguous'} "
                    f"{x.nbytes}-byte buffer {tuple(x.shape)} would end at byte {last}: only "
                    f"views inside a C-contiguous buffer, with non-negative strides, are made.")
    return xp.lib.stride_tricks.as_strided(x, shape=shape, strides=strides)
