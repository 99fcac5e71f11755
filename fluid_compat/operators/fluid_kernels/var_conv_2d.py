"""The fluid kernels of var_conv_2d, var_conv_2d_grad."""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import last_level, lod_offsets, wanted
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument

__all__: list[str] = []


@register_fluid_kernel("var_conv_2d_grad", "CPU", ("float32",))
class VarConv2dGradKernel(FluidKernel):
    """Out_b = W Col_b per sample: dW = sum dOut_b Col_b^T; dCol_b = W^T dOut_b added back
    onto the image positions its windows read (zero padding dropped)."""

    def compute(self, ctx) -> None:
        x, w = ctx.input_array("X").reshape(-1), ctx.input_array("W")
        col = ctx.input_array("Col").reshape(-1)
        dout = ctx.input_array("Out@GRAD").reshape(-1)
        xo = last_level(ctx, "X")
        hs = [b - a for a, b in pairwise(last_level(ctx, "ROW"))]
        ws = [b - a for a, b in pairwise(last_level(ctx, "COLUMN"))]
        c_in, c_out = int(ctx.attr("InputChannel")), int(ctx.attr("OutputChannel"))
        kh, kw = int(ctx.attr("KernelH")), int(ctx.attr("KernelW"))
        sh, sw = int(ctx.attr("StrideH")), int(ctx.attr("StrideW"))
        dx, dw = np.zeros_like(x), np.zeros_like(w)
        col_pos = out_pos = 0
        for b in range(len(xo) - 1):
            h, wd = hs[b], ws[b]
            oy = (h - 1) // sh + 1 if h else 0
            ox = (wd - 1) // sw + 1 if wd else 0
            cb = col[col_pos:col_pos + c_in * kh * kw * oy * ox].reshape(c_in * kh * kw, -1)
            gb = dout[out_pos:out_pos + c_out * oy * ox].reshape(c_out, -1)
            col_pos += cb.size
            out_pos += gb.size
            dw += gb @ cb.T
            if not (h and wd):
                continue
            dcol = (w.T @ gb).reshape(c_in, kh, kw, oy, ox)
            img = np.zeros((c_in, h + kh // 2 + kh, wd + kw // 2 + kw), x.dtype)
            for ky in range(kh):
                for kx in range(kw):
                    img[:, ky:ky + oy * sh:sh, kx:kx + ox * sw:sw] += dcol[:, ky, kx]
            dx[xo[b]:xo[b + 1]] = img[:, kh // 2:kh // 2 + h, kw // 2:kw // 2 + wd].reshape(-1)
        if wanted(ctx, "X@GRAD"):
            ctx.set_output("X@GRAD", dx.reshape(ctx.input_array("X").shape),
                           lod=ctx.input("X").lod)
        if wanted(ctx, "W@GRAD"):
            ctx.set_output("W@GRAD", dw)


@register_fluid_kernel("var_conv_2d", "CPU", ("float32",))
class VarConv2dKernel(FluidKernel):
    """Convolution of variable-size images: sample b is a [C, rows, cols] image (rows / cols
    from the LoDs of ROW / COLUMN), windows centred (kernel // 2 before), zero outside; Col is
    its [C * kh * kw, out positions] im2col, Out = W Col, both flattened with per-sample LoD."""

    def compute(self, ctx) -> None:
        x, w = ctx.input_array("X").reshape(-1), ctx.input_array("W")
        xo = lod_offsets(ctx, "X")
        hs = [b - a for a, b in pairwise(lod_offsets(ctx, "ROW"))]
        ws = [b - a for a, b in pairwise(lod_offsets(ctx, "COLUMN"))]
        c_in, c_out = int(ctx.attr("InputChannel")), int(ctx.attr("OutputChannel"))
        kh, kw = int(ctx.attr("KernelH")), int(ctx.attr("KernelW"))
        sh, sw = int(ctx.attr("StrideH")), int(ctx.attr("StrideW"))
        if w.shape != (c_out, c_in * kh * kw):
            raise InvalidArgument(f"var_conv_2d: W must be [OutputChannel, InputChannel * "
                                  f"KernelH * KernelW] = [{c_out}, {c_in * kh * kw}], got "
                                  f"{list(w.shape)}.")
        cols, outs, col_lod, out_lod = [], [], [0], [0]
        for b in range(len(xo) - 1):
            h, wd = hs[b], ws[b]
            oy = (h - 1) // sh + 1 if h else 0
            ox = (wd - 1) // sw + 1 if wd else 0
            col = np.zeros((c_in * kh * kw, oy * ox), x.dtype)
            if h and wd:
                if xo[b + 1] - xo[b] != c_in * h * wd:
                    raise InvalidArgument(f"var_conv_2d: sample {b} holds {xo[b + 1] - xo[b]} "
                                          f"values, expected InputChannel * rows * cols = "
                                          f"{c_in * h * wd}.")
                img = np.pad(x[xo[b]:xo[b + 1]].reshape(c_in, h, wd),
                             ((0, 0), (kh // 2, kh), (kw // 2, kw)))
                for ky in range(kh):
                    for kx in range(kw):
                        patch = img[:, ky:ky + h:sh, kx:kx + wd:sw][:, :oy, :ox]
                        col[np.arange(c_in) * kh * kw + ky * kw + kx] = patch.reshape(c_in, -1)
            cols.append(col.reshape(-1))
            outs.append((w @ col).reshape(-1))
            col_lod.append(col_lod[-1] + col.size)
            out_lod.append(out_lod[-1] + c_out * oy * ox)
        ctx.set_output("Col", np.concatenate(cols).reshape(-1, 1), lod=(tuple(col_lod),))
        ctx.set_output("Out", np.concatenate(outs).reshape(-1, 1), lod=(tuple(out_lod),))

