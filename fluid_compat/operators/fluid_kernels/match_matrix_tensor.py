"""The fluid kernels of match_matrix_tensor, match_matrix_tensor_grad."""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import last_level, lod_offsets, rank, wanted
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument

__all__: list[str] = []


@register_fluid_kernel("match_matrix_tensor_grad", "CPU", ("float32",))
class MatchMatrixTensorGradKernel(FluidKernel):
    """Out[b] = (x_b W)_t y_b^T per channel t: dTmp = dOut y, dY += dOut^T Tmp, then
    dX = dTmp W^T and dW = X^T dTmp (Tmp = X W from the forward)."""

    def compute(self, ctx) -> None:
        x, y, w = (ctx.input_array(s) for s in ("X", "Y", "W"))
        dim_t = int(ctx.attr("dim_t"))
        dim_in = x.shape[1]
        tmp = ctx.input_array("Tmp").reshape(-1, dim_t, dim_in)
        dout = ctx.input_array("Out@GRAD").reshape(-1)
        dtmp = np.zeros_like(tmp)
        dy = np.zeros_like(y)
        pos = 0
        for (a, b), (c, d) in zip(pairwise(last_level(ctx, "X")), pairwise(last_level(ctx, "Y")),
                                  strict=True):
            n = dim_t * (b - a) * (d - c)
            g = dout[pos:pos + n].reshape(dim_t, b - a, d - c)
            pos += n
            dtmp[a:b] = (g @ y[c:d]).transpose(1, 0, 2)
            dy[c:d] += np.einsum("tij,itk->jk", g, tmp[a:b]).astype(y.dtype)
        flat_w = w.reshape(dim_in, dim_t * dim_in)
        dflat = dtmp.reshape(-1, dim_t * dim_in)
        if wanted(ctx, "X@GRAD"):
            ctx.set_output("X@GRAD", (dflat @ flat_w.T).astype(x.dtype),
                           lod=ctx.input("X").lod)
        if wanted(ctx, "Y@GRAD"):
            ctx.set_output("Y@GRAD", dy, lod=ctx.input("Y").lod)
        if wanted(ctx, "W@GRAD"):
            ctx.set_output("W@GRAD", (x.T @ dflat).astype(w.dtype).reshape(w.shape))


@register_fluid_kernel("match_matrix_tensor", "CPU", ("float32",))
class MatchMatrixTensorKernel(FluidKernel):
    """Out[b] = x_b W_t y_b^T for each channel t, flattened [dim_t, len_x, len_y] per sequence
    pair (Out's LoD), and Tmp = X W as [Nx * dim_t * D, 1]."""

    def compute(self, ctx) -> None:
        rank(ctx, "X", (2,))
        rank(ctx, "Y", (2,))
        rank(ctx, "W", (3,), " [D, dim_t, D]")
        x, y, w = (ctx.input_array(s) for s in ("X", "Y", "W"))
        dim_t = int(ctx.attr("dim_t"))
        dim_in = x.shape[1]
        if w.shape != (dim_in, dim_t, y.shape[1]) or y.shape[1] != dim_in:
            raise InvalidArgument(f"match_matrix_tensor: W must be [{dim_in}, {dim_t}, "
                                  f"{dim_in}] for X {list(x.shape)}, Y {list(y.shape)}, got "
                                  f"{list(w.shape)}.")
        xo, yo = lod_offsets(ctx, "X"), lod_offsets(ctx, "Y")
        if len(xo) != len(yo):
            raise InvalidArgument(f"match_matrix_tensor: X and Y must hold as many sequences, "
                                  f"got {len(xo) - 1} and {len(yo) - 1}.")
        tmp = x @ w.reshape(dim_in, dim_t * dim_in)
        parts, new = [], [0]
        for (a, b), (c, d) in zip(pairwise(xo), pairwise(yo), strict=True):
            t = tmp[a:b].reshape(b - a, dim_t, dim_in).transpose(1, 0, 2)
            parts.append((t @ y[c:d].T).reshape(-1))
            new.append(new[-1] + parts[-1].size)
        out = np.concatenate(parts) if parts else np.zeros(0, x.dtype)
        ctx.set_output("Out", out.reshape(-1, 1), lod=(tuple(new),))
        ctx.set_output("Tmp", tmp.reshape(-1, 1))

