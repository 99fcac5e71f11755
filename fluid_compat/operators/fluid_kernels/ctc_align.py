"""The fluid kernels of ctc_align."""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import lod_offsets
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel

__all__: list[str] = []


def _ctc_merge(tokens, blank: int, merge: bool) -> list:
    """CTC decoding of one sequence: drop blanks and, when ``merge``, repeats of the token
    just before (a blank in between separates repeats)."""
    out, prev = [], -1
    for t in tokens:
        if t != blank and not (merge and t == prev):
            out.append(t)
        prev = t
    return out


@register_fluid_kernel("ctc_align", "CPU", ("int32", "int64"))
class CtcAlignKernel(FluidKernel):
    """Merge repeated tokens and drop blanks per sequence (LoD mode: Output [n, 1] with the new
    LoD, [[-1]] when every sequence is empty; padding mode: [B, T] padded with padding_value
    and OutputLength)."""

    def compute(self, ctx) -> None:
        data = ctx.input_array("Input")
        blank, merge = int(ctx.attr("blank")), bool(ctx.attr("merge_repeated"))
        if ctx.has_input("InputLength"):
            lengths = ctx.input_array("InputLength").reshape(-1)
            out = np.full_like(data, data.dtype.type(ctx.attr("padding_value")))
            out_len = np.zeros((data.shape[0], 1), data.dtype)
            for b in range(data.shape[0]):
                seq = _ctc_merge(data[b, :int(lengths[b])].tolist(), blank, merge)
                out[b, :len(seq)] = seq
                out_len[b, 0] = len(seq)
            ctx.set_output("Output", out)
            ctx.set_output("OutputLength", out_len)
            return
        offsets = lod_offsets(ctx, "Input")
        flat = data.reshape(-1).tolist()
        tokens, new = [], [0]
        for a, b in pairwise(offsets):
            tokens += _ctc_merge(flat[a:b], blank, merge)
            new.append(len(tokens))
        out = np.array(tokens if tokens else [-1], data.dtype).reshape(-1, 1)
        ctx.set_output("Output", out, lod=(tuple(new),))

