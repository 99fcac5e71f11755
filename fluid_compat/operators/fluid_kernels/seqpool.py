"""The fluid kernels of fused_embedding_seq_pool, fused_embedding_seq_pool_grad, fused_seqpool_cvm,
fusion_seqpool_concat, fusion_seqpool_cvm_concat.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import FLOATS, last_level, one_level_offsets
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument, Unimplemented
from phi.kernels.funcs import quiet

__all__: list[str] = []


@register_fluid_kernel("fused_embedding_seq_pool_grad", "CPU", FLOATS)
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
        for i, (a, b) in enumerate(pairwise(last_level(ctx, "Ids"))):
            for r in range(a, b):
                for c in range(ids.shape[1]):
                    if ids[r, c] != pad:
                        dw[ids[r, c]] += dout[i, c]
        ctx.set_output("W@GRAD", dw)


def _pool(x, offsets, pooltype: str, what: str):
    out = np.zeros((len(offsets) - 1, x.shape[1]), x.dtype)
    t = x.dtype.type
    for s in range(len(offsets) - 1):
        seg = x[offsets[s]:offsets[s + 1]]
        if not len(seg):
            continue
        total = seg[0].copy()
        for row in seg[1:]:  # jit's VAdd row after row
            total = total + row
        if pooltype == "AVERAGE":
            total = total * t(1.0 / len(seg)) if x.dtype == np.float64 else total * (
                t(1) / t(len(seg)))
        elif pooltype == "SQRT":
            total = total * (t(1) / t(np.sqrt(t(len(seg)))))
        elif pooltype != "SUM":
            raise InvalidArgument(f"{what}: pooltype {pooltype!r} is not SUM, AVERAGE or SQRT.")
        out[s] = total
    return out


@register_fluid_kernel("fused_embedding_seq_pool", "CPU", FLOATS)
class FusedEmbeddingSeqPoolKernel(FluidKernel):
    """Out[s] = sum of W[Ids] over sequence s (combiner 'sum'); padding_idx rows add nothing."""

    dtype_tied_inputs = ("W",)

    def compute(self, ctx) -> None:
        w = ctx.input_array("W")
        ids = ctx.input_array("Ids").reshape(-1).astype(np.int64)
        offsets = one_level_offsets(ctx, "Ids")
        if ctx.attr("combiner") != "sum":
            raise Unimplemented(f"{ctx.type}: only the 'sum' combiner is supported.")
        pad = ctx.attr("padding_idx")
        bad = [int(i) for i in ids if (i < 0 or i >= w.shape[0]) and i != pad]
        if bad:
            raise InvalidArgument(f"{ctx.type}: Ids {bad[:3]} out of range [0, {w.shape[0]}).")
        rows = np.where((ids == pad)[:, None], w.dtype.type(0), w[np.where(ids == pad, 0, ids)])
        ctx.set_output("Out", _pool(rows.astype(w.dtype), offsets, "SUM", ctx.type))


def _cvm(pooled, use_cvm: bool):
    """CVM on the first two columns: log(show + 1), log(click + 1) - log(show + 1)."""
    if not use_cvm:
        return pooled[:, 2:]
    out = pooled.copy()
    t = pooled.dtype.type
    out[:, 0] = np.log(pooled[:, 0] + t(1))
    out[:, 1] = np.log(pooled[:, 1] + t(1)) - out[:, 0]
    return out


class _SeqPoolConcat(FluidKernel):
    dtype_tied_inputs = ("X",)
    cvm = False

    def compute(self, ctx) -> None:
        xs = ctx.multi_input("X")
        if not xs:
            raise InvalidArgument(f"{ctx.type}: X holds no tensors.")
        if ctx.attr("axis") != 1:
            raise InvalidArgument(f"{ctx.type}: only axis 1 is supported, got "
                                  f"{ctx.attr('axis')}.")
        if self.cvm and not ctx.attr("use_cvm"):
            raise InvalidArgument(f"{ctx.type} only supports use_cvm is true yet, but received 0.")
        pooled = []
        width = None
        for i, t in enumerate(xs):
            lod = t.lod or ()
            if len(lod) != 1:
                raise InvalidArgument(f"{ctx.type}: X[{i}] must carry one level of LoD.")
            x = t.data
            if width is not None and x.shape[1] != width:
                raise InvalidArgument(f"{ctx.type}: Width of all inputs should be equal, but the "
                                      f"width of the {i}-th input {x.shape[1]} is not equal to "
                                      f"the previous {width}")
            width = x.shape[1]
            with quiet(np):
                p = _pool(x, [int(v) for v in lod[0]], ctx.attr("pooltype"), ctx.type)
                pooled.append(_cvm(p, True) if self.cvm else p)
        n = pooled[0].shape[0]
        if any(p.shape[0] != n for p in pooled):
            raise InvalidArgument(f"{ctx.type}: the inputs hold different numbers of sequences.")
        ctx.set_output("Out", np.concatenate(pooled, axis=1),
                       lod=(tuple(range(n + 1)),))


@register_fluid_kernel("fusion_seqpool_concat", "CPU", FLOATS)
class FusionSeqPoolConcatKernel(_SeqPoolConcat):
    """Each X_i pooled per sequence (SUM / AVERAGE / SQRT), concatenated along axis 1."""


@register_fluid_kernel("fusion_seqpool_cvm_concat", "CPU", FLOATS)
class FusionSeqPoolCvmConcatKernel(_SeqPoolConcat):
    """fusion_seqpool_concat with CVM applied to each pooled input."""

    cvm = True


@register_fluid_kernel("fused_seqpool_cvm", "CPU", ("float32",))
class FusedSeqPoolCvmKernel(FluidKernel):
    """Paddle 2.6.2 registers a CPU kernel that refuses to run (GPU only)."""

    def compute(self, ctx) -> None:
        raise Unimplemented("Unimplemented CPU kernel for FusedSeqpoolCVMOp, only support GPU "
                            "now.")

