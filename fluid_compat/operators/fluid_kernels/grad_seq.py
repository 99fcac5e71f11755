"""Fluid grad kernels of the sequence / LoD ops Paddle 2.6.2 runs as STRUCTURE kernels (empty
KernelSignature; paddle/fluid/operators/sequence_ops/*_op.h, lod_reset_op.h): each grad scatters
Out@GRAD back onto the rows of the forward input it came from, which keeps that input's LoD."""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.fluid_kernels.grad_loss import wanted
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from fluid_compat.operators.fluid_kernels.sequence2 import _nce_probability
from phi.core.errors import InvalidArgument
from phi.core.lod import to_abs_offset
from phi.kernels.funcs import quiet
from phi.kernels.funcs.elementwise import reduce_to

__all__: list[str] = []

_NUM = ("float32", "float64", "int32", "int64")
_FLOATS = ("float32", "float64")

# the grad ops' InferShape: ShareLoD(X, X@GRAD) (sequence_concat sets each X@GRAD itself)
for _op in ("sequence_conv_grad", "sequence_expand_grad", "sequence_expand_as_grad",
            "sequence_pad_grad", "sequence_reshape_grad", "sequence_slice_grad",
            "sequence_softmax_grad", "sequence_unpad_grad", "lod_reset_grad",
            "sequence_scatter_grad"):
    op_hooks(_op, share_lod={"X@GRAD": "X"})
# run_op: one X@GRAD per X
op_hooks("sequence_concat_grad",
         output_counts=lambda attrs, inputs: {"X@GRAD": len(inputs.get("X") or ())})


def _last_level(ctx, slot: str) -> tuple[int, ...]:
    t = ctx.input(slot)
    if t is None or not t.lod:
        raise InvalidArgument(f"{ctx.type}: Input({slot}) must hold a LoD (sequence offsets).")
    return t.lod[-1]


@register_fluid_kernel("sequence_concat_grad", "CPU", _NUM)
class SequenceConcatGradKernel(FluidKernel):
    """Out@GRAD split back: sequence i of Out is sequence i of each X in turn (level 0's raw
    offsets, as the forward reads them); rows level 0 does not reach get 0."""

    def compute(self, ctx) -> None:
        xs = ctx.multi_input("X")
        dout = ctx.input_array("Out@GRAD")
        grads = [np.zeros_like(t.data) for t in xs]
        row = 0
        for i in range(len(xs[0].lod[0]) - 1):
            for t, g in zip(xs, grads, strict=True):
                a, b = t.lod[0][i], t.lod[0][i + 1]
                g[a:b] = dout[row:row + b - a]
                row += b - a
        names = ctx.op.outputs.get("X@GRAD", ())
        for k, (t, g) in enumerate(zip(xs, grads, strict=True)):
            if k < len(names) and names[k] != "@EMPTY@":
                ctx.set_output("X@GRAD", g, index=k, lod=t.lod)


@register_fluid_kernel("sequence_expand_as_grad", "CPU", _NUM)
class SequenceExpandAsGradKernel(FluidKernel):
    """Row i of X@GRAD: the sum of Out@GRAD over Y's sequence i."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        dout = ctx.input_array("Out@GRAD")
        level = _last_level(ctx, "Y")
        dx = np.zeros_like(x)
        for i, (a, b) in enumerate(pairwise(level)):
            dx[i] = dout[a:b].sum(axis=0, dtype=x.dtype)
        ctx.set_output("X@GRAD", dx)


@register_fluid_kernel("sequence_expand_grad", "CPU", _NUM)
class SequenceExpandGradKernel(FluidKernel):
    """Sequence (row without a LoD) i of X@GRAD: the sum of its copies in Out@GRAD, copied as
    often as Y's sequence i at ref_level holds entries."""

    def compute(self, ctx) -> None:
        x, y = ctx.input("X"), ctx.input("Y")
        dout = ctx.input_array("Out@GRAD")
        ref = int(ctx.attr("ref_level"))
        ref = len(y.lod) - 1 if ref == -1 else ref
        repeats = np.diff(np.asarray(y.lod[ref], np.int64))
        x_level = x.lod[0] if x.lod else tuple(range(x.data.shape[0] + 1))
        dx = np.zeros_like(x.data)
        row = 0
        for (a, b), k in zip(pairwise(x_level), repeats, strict=False):
            n = b - a
            if k > 0:
                block = dout[row:row + k * n].reshape(int(k), n, *dout.shape[1:])
                dx[a:b] = block.sum(axis=0, dtype=dx.dtype)
                row += k * n
        ctx.set_output("X@GRAD", dx)


@register_fluid_kernel("sequence_pad_grad", "CPU", _NUM)
class SequencePadGradKernel(FluidKernel):
    """The first len_i rows of Out@GRAD[i] back onto X's sequence i (level 0, absolute)."""

    def compute(self, ctx) -> None:
        x = ctx.input("X")
        dout = ctx.input_array("Out@GRAD")
        level = to_abs_offset(x.lod)[0]
        dx = np.zeros_like(x.data)
        for i, (a, b) in enumerate(pairwise(level)):
            dx[a:b] = dout[i, :b - a]
        ctx.set_output("X@GRAD", dx)


@register_fluid_kernel("sequence_unpad_grad", "CPU", _NUM)
class SequenceUnpadGradKernel(FluidKernel):
    """X@GRAD [sequences, length, ...]: Out@GRAD's sequence i in the first rows of entry i
    (its LoD gives the lengths), 0 in the padding."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        dout = ctx.input_array("Out@GRAD")
        level = _last_level(ctx, "Out@GRAD")
        dx = np.zeros_like(x)
        for i, (a, b) in enumerate(pairwise(level)):
            dx[i, :b - a] = dout[a:b].reshape(b - a, *x.shape[2:])
        ctx.set_output("X@GRAD", dx)


@register_fluid_kernel("sequence_reshape_grad", "CPU", _NUM)
class SequenceReshapeGradKernel(FluidKernel):
    """Out@GRAD's values in X's shape."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        ctx.set_output("X@GRAD", np.array(ctx.input_array("Out@GRAD")).reshape(x.shape))


@register_fluid_kernel("lod_reset_grad", "CPU", ("float16", *_NUM))
class LodResetGradKernel(FluidKernel):
    """Out@GRAD's values (X's LoD comes back by ShareLoD)."""

    def compute(self, ctx) -> None:
        ctx.set_output("X@GRAD", np.array(ctx.input_array("Out@GRAD")))


@register_fluid_kernel("sequence_scatter_grad", "CPU", _NUM)
class SequenceScatterGradKernel(FluidKernel):
    """X@GRAD = Out@GRAD; Updates@GRAD[k] = Out@GRAD[i, Ids[k]] for k in Ids' sequence i."""

    def compute(self, ctx) -> None:
        dout = ctx.input_array("Out@GRAD")
        if wanted(ctx, "X@GRAD"):
            ctx.set_output("X@GRAD", np.array(dout))
        if wanted(ctx, "Updates@GRAD"):
            ids = np.asarray(ctx.input_array("Ids")).reshape(-1).astype(np.int64)
            updates = ctx.input_array("Updates")
            rows = np.repeat(np.arange(len(_last_level(ctx, "Ids")) - 1),
                             np.diff(np.asarray(_last_level(ctx, "Ids"), np.int64)))
            du = dout[rows, ids].astype(updates.dtype).reshape(updates.shape)
            ctx.set_output("Updates@GRAD", du)


@register_fluid_kernel("sequence_slice_grad", "CPU", _NUM)
class SequenceSliceGradKernel(FluidKernel):
    """Out@GRAD's sequence i back at rows Offset[i] ... of X's sequence i; 0 elsewhere."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        dout = ctx.input_array("Out@GRAD")
        level = _last_level(ctx, "X")
        offset = np.asarray(ctx.input_array("Offset")).reshape(-1).astype(np.int64)
        length = np.asarray(ctx.input_array("Length")).reshape(-1).astype(np.int64)
        dx = np.zeros_like(x)
        row = 0
        for i in range(len(level) - 1):
            start = level[i] + offset[i]
            dx[start:start + length[i]] = dout[row:row + length[i]]
            row += length[i]
        ctx.set_output("X@GRAD", dx)


@register_fluid_kernel("sequence_softmax_grad", "CPU", _FLOATS)
class SequenceSoftmaxGradKernel(FluidKernel):
    """Per sequence (X's last level): out * (dout - sum(out * dout))."""

    def compute(self, ctx) -> None:
        out = ctx.input_array("Out")
        dout = ctx.input_array("Out@GRAD").reshape(-1)
        flat = out.reshape(-1)
        dx = np.zeros_like(flat)
        with quiet(np):
            for a, b in pairwise(_last_level(ctx, "X")):
                s = np.sum(flat[a:b] * dout[a:b], dtype=flat.dtype)
                dx[a:b] = flat[a:b] * (dout[a:b] - s)
        ctx.set_output("X@GRAD", dx.reshape(out.shape))


@register_fluid_kernel("sequence_conv_grad", "CPU", _FLOATS)
class SequenceConvGradKernel(FluidKernel):
    """The context matrix C of the forward (rows t + contextStart ... of each sequence,
    PaddingData rows / zeros beyond its ends): Filter@GRAD = C^T dOut, and dC = dOut Filter^T
    added back onto the X rows (X@GRAD) and PaddingData rows (PaddingData@GRAD) it read."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        w = ctx.input_array("Filter")
        dout = ctx.input_array("Out@GRAD")
        level = _last_level(ctx, "X")
        length, start = int(ctx.attr("contextLength")), int(ctx.attr("contextStart"))
        trainable = bool(ctx.attr("paddingTrainable"))
        pad = ctx.input("PaddingData")
        up = max(0, -start)
        d = x.shape[1]
        cols = np.zeros((x.shape[0], length * d), x.dtype)
        dcols = (dout @ w.T).astype(x.dtype)
        dx = np.zeros_like(x)
        dpad = np.zeros_like(pad.data) if pad is not None else None
        for a, b in pairwise(level):
            n = b - a
            for t in range(n):
                for c in range(length):
                    pos = t + start + c
                    part = dcols[a + t, c * d:(c + 1) * d]
                    if 0 <= pos < n:
                        cols[a + t, c * d:(c + 1) * d] = x[a + pos]
                        dx[a + pos] += part
                    elif trainable:
                        k = pos + up if pos < 0 else up + (pos - n)
                        cols[a + t, c * d:(c + 1) * d] = pad.data[k]
                        dpad[k] += part
        if wanted(ctx, "X@GRAD"):
            ctx.set_output("X@GRAD", dx)
        if wanted(ctx, "Filter@GRAD"):
            ctx.set_output("Filter@GRAD", (cols.T @ dout).astype(w.dtype))
        if trainable and dpad is not None and wanted(ctx, "PaddingData@GRAD"):
            ctx.set_output("PaddingData@GRAD", dpad)


@register_fluid_kernel("row_conv_grad", "CPU", ("float32",))
class RowConvGradKernel(FluidKernel):
    """out[k] = sum_w x[k + w] * filter[w] within each sequence (LoD offsets, or each [T, D]
    slice of [B, T, D]): dx[k + w] += dout[k] * filter[w], dfilter[w] += dout[k] * x[k + w]."""

    def compute(self, ctx) -> None:
        x, f = ctx.input_array("X"), ctx.input_array("Filter")
        dout = ctx.input_array("Out@GRAD")
        lod = ctx.input("X").lod
        rows = x.reshape(-1, x.shape[-1])
        drows = dout.reshape(-1, x.shape[-1])
        if lod:
            offsets = [int(v) for v in lod[-1]]
        else:
            t = x.shape[1] if x.ndim == 3 else rows.shape[0]
            offsets = list(range(0, rows.shape[0] + 1, t)) if t else [0]
        dx, df = np.zeros_like(rows), np.zeros_like(f)
        for a, b in pairwise(offsets):
            for w in range(min(f.shape[0], b - a)):
                dx[a + w:b] += drows[a:b - w] * f[w]
                df[w] += np.sum(drows[a:b - w] * rows[a + w:b], axis=0, dtype=f.dtype)
        if wanted(ctx, "X@GRAD"):
            ctx.set_output("X@GRAD", dx.reshape(x.shape))
        if wanted(ctx, "Filter@GRAD"):
            ctx.set_output("Filter@GRAD", df)


@register_fluid_kernel("im2sequence_grad", "CPU", ("float32",))
class Im2SequenceGradKernel(FluidKernel):
    """Each Out@GRAD row (one patch of C * kh * kw values) added back onto the image positions
    it was read from; padding positions dropped."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        kh, kw = (int(v) for v in ctx.attr("kernels"))
        sh, sw = (int(v) for v in ctx.attr("strides"))
        up, left, down, right = (int(v) for v in ctx.attr("paddings"))
        n, c, h, w = x.shape
        oh, ow = (h + up + down - kh) // sh + 1, (w + left + right - kw) // sw + 1
        dout = ctx.input_array("Out@GRAD").reshape(n, oh, ow, c, kh, kw)
        padded = np.zeros((n, c, h + up + down, w + left + right), x.dtype)
        for i in range(oh):
            for j in range(ow):
                padded[:, :, i * sh:i * sh + kh, j * sw:j * sw + kw] += dout[:, i, j]
        ctx.set_output("X@GRAD", np.ascontiguousarray(padded[:, :, up:up + h, left:left + w]))


def _act_grad(kind: int, y, dy):
    """d act / d x from the activation's output y (identity, sigmoid, tanh, relu)."""
    t = y.dtype.type
    if kind == 1:
        return dy * y * (t(1) - y)
    if kind == 2:
        return dy * (t(1) - y * y)
    if kind == 3:
        return dy * (y > t(0)).astype(y.dtype)
    return dy


@register_fluid_kernel("gru_unit_grad", "CPU", _FLOATS)
class GruUnitGradKernel(FluidKernel):
    """One GRU step backwards from Gate (u, r, c activated), ResetHiddenPrev and Hidden@GRAD;
    Weight's buffer holds [D, 2D] update / reset weights then [D, D] candidate weights."""

    def compute(self, ctx) -> None:
        hp, w = ctx.input_array("HiddenPrev"), ctx.input_array("Weight")
        gate, rhp = ctx.input_array("Gate"), ctx.input_array("ResetHiddenPrev")
        dh = ctx.input_array("Hidden@GRAD")
        d = hp.shape[1]
        t = hp.dtype.type
        flat = w.reshape(-1)
        w_ur, w_c = flat[:2 * d * d].reshape(d, 2 * d), flat[2 * d * d:].reshape(d, d)
        u, r, c = gate[:, :d], gate[:, d:2 * d], gate[:, 2 * d:]
        act, gate_act = int(ctx.attr("activation")), int(ctx.attr("gate_activation"))
        with quiet(np):
            if ctx.attr("origin_mode"):
                dc, du, dhp = dh * (t(1) - u), dh * (hp - c), dh * u
            else:
                dc, du, dhp = dh * u, dh * (c - hp), dh * (t(1) - u)
            dg = np.empty_like(gate)
            dg[:, :d] = _act_grad(gate_act, u, du)
            dg[:, 2 * d:] = _act_grad(act, c, dc)
            drhp = dg[:, 2 * d:] @ w_c.T
            dw_c = rhp.T @ dg[:, 2 * d:]
            dg[:, d:2 * d] = _act_grad(gate_act, r, drhp * hp)
            dhp = dhp + drhp * r + dg[:, :2 * d] @ w_ur.T
            dw_ur = hp.T @ dg[:, :2 * d]
        if wanted(ctx, "Input@GRAD"):
            ctx.set_output("Input@GRAD", dg)
        if wanted(ctx, "HiddenPrev@GRAD"):
            ctx.set_output("HiddenPrev@GRAD", dhp.astype(hp.dtype))
        if wanted(ctx, "Weight@GRAD"):
            dw = np.concatenate([dw_ur.reshape(-1), dw_c.reshape(-1)]).astype(w.dtype)
            ctx.set_output("Weight@GRAD", dw.reshape(w.shape))
        if wanted(ctx, "Bias@GRAD") and ctx.has_input("Bias"):
            bias = ctx.input_array("Bias")
            ctx.set_output("Bias@GRAD", dg.sum(axis=0, dtype=dg.dtype).reshape(bias.shape))


def _normalized(v):
    """NormalizeL1 of a row (a copy)."""
    return v * (v.dtype.type(1) / v.sum())


@register_fluid_kernel("linear_chain_crf_grad", "CPU", _FLOATS)
class LinearChainCrfGradKernel(FluidKernel):
    """Per sequence: beta by the backward recursion over TransitionExps (L1-normalized rows);
    dEmission = ll_grad * (alpha * beta / row sums) - ll_grad at the labels; dTransition:
    start / end rows from the first / last dEmission rows, tag-to-tag rows from the
    normalized pairwise marginals minus the label transitions (Paddle's order of sums)."""

    def compute(self, ctx) -> None:
        em = ctx.input_array("Emission")
        tags = em.shape[-1]
        x_exps = ctx.input_array("EmissionExps").reshape(-1, tags)
        alpha = ctx.input_array("Alpha").reshape(-1, tags)
        w_exps = ctx.input_array("TransitionExps")
        labels = ctx.input_array("Label").reshape(-1).astype(np.int64)
        ll_grad = ctx.input_array("LogLikelihood@GRAD").reshape(-1)
        if ctx.has_input("Length"):
            lengths = ctx.input_array("Length").reshape(-1).tolist()
            ranges = [(i * em.shape[1], i * em.shape[1] + int(n)) for i, n in enumerate(lengths)]
        else:
            ranges = list(pairwise(ctx.input("Label").lod[0]))
        t = em.dtype.type
        dx = np.zeros_like(x_exps)
        dw = np.zeros_like(w_exps)
        trans = w_exps[2:]
        with quiet(np):
            for s, (a, b) in enumerate(ranges):
                if a == b:
                    continue
                n, g = b - a, ll_grad[s]
                beta = np.empty((n, tags), em.dtype)
                beta[-1] = _normalized(w_exps[1].copy())
                for k in range(n - 2, -1, -1):
                    beta[k] = _normalized(trans @ (x_exps[a + k + 1] * beta[k + 1]))
                prob = alpha[a:b] * beta
                dxs = (prob / prob.sum(axis=1, keepdims=True)) * g
                dxs[np.arange(n), labels[a:b]] -= g
                dx[a:b] = dxs
                dw[0] += dxs[0]
                dw[1] += dxs[-1]
                p2 = beta * x_exps[a:b]
                tmp = p2 / p2.sum(axis=1, keepdims=True)
                for k in range(1, n):
                    pair = trans * np.outer(alpha[a + k - 1], tmp[k])
                    dw[2:] += (t(1) / pair.sum()) * pair * g
                    dw[labels[a + k - 1] + 2, labels[a + k]] -= g
        if wanted(ctx, "Emission@GRAD"):
            ctx.set_output("Emission@GRAD", dx.reshape(em.shape), lod=ctx.input("Emission").lod)
        if wanted(ctx, "Transition@GRAD"):
            ctx.set_output("Transition@GRAD", dw)


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
        for (a, b), (c, d) in zip(pairwise(_last_level(ctx, "X")), pairwise(_last_level(ctx, "Y")),
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


@register_fluid_kernel("var_conv_2d_grad", "CPU", ("float32",))
class VarConv2dGradKernel(FluidKernel):
    """Out_b = W Col_b per sample: dW = sum dOut_b Col_b^T; dCol_b = W^T dOut_b added back
    onto the image positions its windows read (zero padding dropped)."""

    def compute(self, ctx) -> None:
        x, w = ctx.input_array("X").reshape(-1), ctx.input_array("W")
        col = ctx.input_array("Col").reshape(-1)
        dout = ctx.input_array("Out@GRAD").reshape(-1)
        xo = _last_level(ctx, "X")
        hs = [b - a for a, b in pairwise(_last_level(ctx, "ROW"))]
        ws = [b - a for a, b in pairwise(_last_level(ctx, "COLUMN"))]
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


# ---- misc: add_position_encoding, cvm, fused_embedding_seq_pool, nce ----------------------

@register_fluid_kernel("add_position_encoding_grad", "CPU", _FLOATS)
class AddPositionEncodingGradKernel(FluidKernel):
    """Out = alpha * X + beta * PE: dX = alpha * dOut."""

    def compute(self, ctx) -> None:
        dout = ctx.input_array("Out@GRAD")
        ctx.set_output("X@GRAD", dout * dout.dtype.type(np.float32(ctx.attr("alpha"))))


@register_fluid_kernel("cvm_grad", "CPU", _FLOATS)
class CvmGradKernel(FluidKernel):
    """dX = dY in X's columns 2.. (use_cvm: Y keeps all columns) and the CVM row of the
    row's sequence (LoD level 0 of X@GRAD, i.e. of X; one CVM row per row without a LoD) in
    columns 0 and 1."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        dy = ctx.input_array("Y@GRAD")
        cvm = ctx.input_array("CVM").reshape(-1, 2)
        offset = 0 if ctx.attr("use_cvm") else 2
        dx = np.empty_like(x)
        dx[:, offset:] = dy.reshape(x.shape[0], -1)[:, :x.shape[1] - offset]
        lod = ctx.input("X").lod
        if lod:
            rows = np.repeat(np.arange(len(lod[0]) - 1), np.diff(np.asarray(lod[0], np.int64)))
        else:
            rows = np.arange(x.shape[0])
        dx[:, :2] = cvm[rows]
        ctx.set_output("X@GRAD", dx, lod=lod)


@register_fluid_kernel("fused_embedding_seq_pool_grad", "CPU", _FLOATS)
class FusedEmbeddingSeqPoolGradKernel(FluidKernel):
    """Dense W@GRAD: each id of sequence i (Ids' LoD; column c of a multi-column Ids feeds
    the c-th block of Out) adds Out@GRAD's row i; padding_idx rows get nothing."""

    def compute(self, ctx) -> None:
        if ctx.attr("is_sparse"):
            raise InvalidArgument("fused_embedding_seq_pool_grad: is_sparse (a SelectedRows "
                                  "gradient) is not supported.")
        w = ctx.input_array("W")
        ids = ctx.input_array("Ids")
        ids = ids.reshape(ids.shape[0], -1).astype(np.int64)
        d = w.shape[1]
        dout = ctx.input_array("Out@GRAD").reshape(-1, ids.shape[1], d)
        pad = int(ctx.attr("padding_idx"))
        dw = np.zeros_like(w)
        for i, (a, b) in enumerate(pairwise(_last_level(ctx, "Ids"))):
            for r in range(a, b):
                for c in range(ids.shape[1]):
                    if ids[r, c] != pad:
                        dw[ids[r, c]] += dout[i, c]
        ctx.set_output("W@GRAD", dw)


@register_fluid_kernel("nce_grad", "CPU", _FLOATS)
class NceGradKernel(FluidKernel):
    """d logit of sample (i, j), o = SampleLogits, b = k * q(label): true labels
    b / (o + b) * (o - 1), negatives o (1 - o) / (o + b), both times SampleWeight[i] and
    Cost@GRAD[i]; then
    dBias[label] += g, dWeight[label] += g * x_i, dInput_i += g * weight[label]."""

    def compute(self, ctx) -> None:
        x, w = ctx.input_array("Input"), ctx.input_array("Weight")
        labels = ctx.input_array("SampleLabels").astype(np.int64)
        o = ctx.input_array("SampleLogits")
        dcost = ctx.input_array("Cost@GRAD").reshape(-1)
        n_true = ctx.input_array("Label").reshape(labels.shape[0], -1).shape[1]
        n_neg, n_classes = int(ctx.attr("num_neg_samples")), int(ctx.attr("num_total_classes"))
        prob, _ = _nce_probability(ctx, int(ctx.attr("sampler")), n_classes)
        t = x.dtype.type
        sw = (ctx.input_array("SampleWeight").reshape(-1) if ctx.has_input("SampleWeight")
              else np.ones(labels.shape[0], x.dtype))
        g = np.empty(labels.shape, x.dtype)
        with quiet(np):
            for i, j in np.ndindex(*labels.shape):
                b = t(prob(int(labels[i, j])) * np.float32(n_neg))
                v = o[i, j]
                g[i, j] = t(sw[i]) * ((b / (v + b)) * (v - t(1)) if j < n_true
                                      else v * (t(1) - v) / (v + b))
            g *= dcost[:, None]
        if wanted(ctx, "Bias@GRAD") and ctx.has_input("Bias"):
            db = np.zeros_like(ctx.input_array("Bias")).reshape(-1)
            np.add.at(db, labels.reshape(-1), g.reshape(-1))
            ctx.set_output("Bias@GRAD", db.reshape(ctx.input_array("Bias").shape))
        if wanted(ctx, "Weight@GRAD"):
            dw = np.zeros_like(w)
            np.add.at(dw, labels.reshape(-1), (g[:, :, None] * x[:, None, :]).reshape(-1,
                                                                                   w.shape[1]))
            ctx.set_output("Weight@GRAD", dw)
        if wanted(ctx, "Input@GRAD"):
            ctx.set_output("Input@GRAD", np.einsum("ij,ijk->ik", g, w[labels]).astype(x.dtype))


# ---- fused_elemwise_activation / fused_elemwise_add_activation -----------------------------

def _unary(name: str, scale):
    """(forward, grad from (input, output, dout)) of the compound's unary functor."""
    if name == "scale":
        return (lambda v: v * scale), (lambda x, y, d: d * scale)
    if name == "relu":
        return (lambda v: np.maximum(v, v.dtype.type(0))), (lambda x, y, d: d * (y > 0))
    if name == "tanh":
        return np.tanh, (lambda x, y, d: d * (y.dtype.type(1) - y * y))
    if name == "sigmoid":
        return ((lambda v: v.dtype.type(1) / (v.dtype.type(1) + np.exp(-v))),
                (lambda x, y, d: d * y * (y.dtype.type(1) - y)))
    if name == "gelu":  # the compound functors' gelu is the tanh approximation
        def gelu_grad(x, y, d):
            t = x.dtype.type
            c, k = t(0.79788456), t(0.044715)
            th = np.tanh(c * x * (t(1) + k * x * x))
            g = (t(0.5) * (t(1) + th)
                 + t(0.5) * x * (t(1) - th * th) * c * (t(1) + t(3) * k * x * x))
            return d * g
        return None, gelu_grad
    raise InvalidArgument(f"fused_elemwise_activation_grad: unary functor {name!r} has not "
                          "been implemented.")


def _broadcast2_quirk(g, shape, axis: int, full):
    """IntermediateOut@GRAD of a Y broadcast along both sides ([pre, n, post], post > 1):
    Paddle's FusedElemwiseAndActGradBroadcast2CPU restarts the sum at every element of the
    first pre row, so only that row's last post element and the later rows add up."""
    if tuple(g.shape) == tuple(shape):
        return full
    axis = g.ndim - len(shape) if axis == -1 else axis
    n = int(np.prod(shape, dtype=np.int64))
    pre = int(np.prod(g.shape[:axis], dtype=np.int64))
    g3 = g.reshape(pre, n, -1)
    if g3.shape[2] == 1:
        return full
    out = g3[0, :, -1] + g3[1:].sum(axis=(0, 2), dtype=g.dtype)
    return out.astype(g.dtype).reshape(shape)


def _expand(y, ndim: int, axis: int):
    axis = ndim - y.ndim if axis == -1 else axis
    return y.reshape((1,) * axis + y.shape + (1,) * (ndim - axis - y.ndim))


class _FusedElemwiseActivationGrad(FluidKernel):
    """Binary(X, Unary(Y)) (functor_list [elementwise_*_grad, unary_grad]) or
    Unary(Binary(X, Y)) ([unary_grad, elementwise_add_grad]): the chain rule through the
    IntermediateOut (given with save_intermediate_out, else recomputed); Y's gradients summed
    over the dims it was broadcast along (``axis``)."""

    def compute(self, ctx) -> None:
        f1, f2 = (f.removesuffix("_grad") for f in ctx.attr("functor_list"))
        y = ctx.input_array("Y")
        dout = ctx.input_array("Out@GRAD")
        x = ctx.input_array("X") if ctx.has_input("X") else dout
        out = ctx.input_array("Out")
        axis = int(ctx.attr("axis"))
        t = dout.dtype.type
        inter = ctx.input_array("IntermediateOut") if ctx.has_input("IntermediateOut") else None
        grads = {}
        with quiet(np):
            if f1.startswith("elementwise_"):  # Binary(X, Unary(Y))
                fwd, back = _unary(f2, t(np.float32(ctx.attr("scale"))))
                inter = fwd(y) if inter is None else inter
                ye = _expand(inter, dout.ndim, axis)
                mul = f1 == "elementwise_mul"
                grads["X@GRAD"] = dout * ye if mul else dout
                d_inter = reduce_to(np, dout * x if mul else dout, y.shape, axis)
                grads["IntermediateOut@GRAD"] = _broadcast2_quirk(dout * x if mul else dout,
                                                                  y.shape, axis, d_inter)
                grads["Y@GRAD"] = back(y, inter, d_inter)
            else:  # Unary(Binary(X, Y)): only elementwise_add
                _, back = _unary(f1, t(np.float32(ctx.attr("scale"))))
                inter = x + _expand(y, x.ndim, axis) if inter is None else inter
                d_inter = back(inter, out, dout)
                grads["IntermediateOut@GRAD"] = d_inter
                grads["X@GRAD"] = d_inter
                grads["Y@GRAD"] = reduce_to(np, d_inter, y.shape, axis)
        for slot, g in grads.items():
            if wanted(ctx, slot):
                ctx.set_output(slot, np.asarray(g).astype(dout.dtype))


for _op in ("fused_elemwise_activation_grad", "fused_elemwise_add_activation_grad"):
    register_fluid_kernel(_op, "CPU", _FLOATS)(
        type(f"{_op.title().replace('_', '')}Kernel", (_FusedElemwiseActivationGrad,), {}))
