"""Fluid kernels of the non-sequence_* ops of the sequence / LoD family that Paddle 2.6.2 runs
as STRUCTURE kernels (an empty KernelSignature in their kernel traces): ctc_align, row_conv,
im2sequence, cvm, chunk_eval, tdm_child (paddle/fluid/operators/<op>_op.{cc,h}).

Sequences are one level of LoD offsets on the data input (``ctx.input(slot).lod``); ops with a
padding mode (ctc_align's InputLength, chunk_eval's SeqLength) read [batch, max_len] data and
the lengths instead.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.expected_kernel import expected_from_var
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from fluid_compat.framework.op_kernel_type import OpKernelType
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument

__all__: list[str] = []


def _fixed(dtype: DataType):
    """A GetExpectedKernelType naming one dtype (chunk_eval: FP32)."""

    def hook(op, ctx) -> OpKernelType:
        return OpKernelType(dtype, ctx.place)

    hook.__name__ = f"expected_fixed_{dtype}"
    return hook


for _op, _slot in (("ctc_align", "Input"), ("row_conv", "X"), ("im2sequence", "X"),
                   ("cvm", "X"), ("tdm_child", "X")):
    op_hooks(_op, get_expected_kernel_type=expected_from_var(_slot))
op_hooks("chunk_eval", get_expected_kernel_type=_fixed(DataType.FLOAT32))
# InferShape: ctx->ShareLoD("X", /*->*/ "Out") / ("X", "Y"); the kernels set no LoD
op_hooks("row_conv", share_lod={"Out": "X"})
op_hooks("cvm", share_lod={"Y": "X"})


def _offsets(ctx, slot: str) -> list[int]:
    """The last level of LoD offsets of input ``slot`` (InvalidArgument when it has none)."""
    t = ctx.input(slot)
    lod = getattr(t, "lod", ()) or ()
    if not lod:
        raise InvalidArgument(f"{ctx.type}: input `{slot}` needs a LoD (one level of sequence "
                              f"offsets) when no length input is given, got none.")
    return [int(v) for v in lod[-1]]


# ---- ctc_align -----------------------------------------------------------------------------

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
        offsets = _offsets(ctx, "Input")
        flat = data.reshape(-1).tolist()
        tokens, new = [], [0]
        for a, b in pairwise(offsets):
            tokens += _ctc_merge(flat[a:b], blank, merge)
            new.append(len(tokens))
        out = np.array(tokens if tokens else [-1], data.dtype).reshape(-1, 1)
        ctx.set_output("Output", out, lod=(tuple(new),))


# ---- row_conv ------------------------------------------------------------------------------

@register_fluid_kernel("row_conv", "CPU", ("float32",))
class RowConvKernel(FluidKernel):
    """Lookahead convolution: out[k] = sum_w x[k + w] * filter[w] within each sequence (LoD
    offsets, or each [T, D] slice of a [B, T, D] input without LoD)."""

    def compute(self, ctx) -> None:
        x, f = ctx.input_array("X"), ctx.input_array("Filter")
        lod = ctx.input("X").lod
        if lod:
            offsets = [int(v) for v in lod[-1]]
            rows = x
        else:
            rows = x.reshape(-1, x.shape[-1])
            t = x.shape[1] if x.ndim == 3 else rows.shape[0]
            offsets = list(range(0, rows.shape[0] + 1, t)) if t else [0]
        out = np.zeros_like(rows)
        for a, b in pairwise(offsets):
            for k in range(a, b):
                acc = np.zeros(rows.shape[1], rows.dtype)
                for w in range(min(f.shape[0], b - k)):
                    acc += rows[k + w] * f[w]
                out[k] = acc
        ctx.set_output("Out", out.reshape(x.shape))


# ---- im2sequence ---------------------------------------------------------------------------

@register_fluid_kernel("im2sequence", "CPU", ("float32",))
class Im2SequenceKernel(FluidKernel):
    """Image patches as sequences: one row (C * kh * kw values) per output position, one
    sequence of out_h * out_w rows per image (paddings [up, left, down, right])."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        if ctx.has_input("Y"):
            raise InvalidArgument("im2sequence: the real-size input Y is not supported "
                                  "(Paddle 2.6.2 finds no kernel for it on CPU either).")
        kh, kw = (int(v) for v in ctx.attr("kernels"))
        sh, sw = (int(v) for v in ctx.attr("strides"))
        up, left, down, right = (int(v) for v in ctx.attr("paddings"))
        n, c, h, w = x.shape
        oh, ow = (h + up + down - kh) // sh + 1, (w + left + right - kw) // sw + 1
        if oh <= 0 or ow <= 0:
            raise InvalidArgument(f"im2sequence: the output size ({oh}, {ow}) from input "
                                  f"({h}, {w}), kernels {[kh, kw]} must be positive.")
        padded = np.pad(x, ((0, 0), (0, 0), (up, down), (left, right)))
        out = np.empty((n, oh, ow, c, kh, kw), x.dtype)
        for i in range(oh):
            for j in range(ow):
                out[:, i, j] = padded[:, :, i * sh:i * sh + kh, j * sw:j * sw + kw]
        lod = (tuple(range(0, n * oh * ow + 1, oh * ow)),)
        ctx.set_output("Out", out.reshape(n * oh * ow, c * kh * kw), lod=lod)


# ---- cvm -----------------------------------------------------------------------------------

@register_fluid_kernel("cvm", "CPU", ("float32", "float64"))
class CvmKernel(FluidKernel):
    """Continuous value model: use_cvm keeps the width with log(show + 1) and
    log(click + 1) - log(show + 1) in the first two columns, else drops those two columns."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        if not ctx.attr("use_cvm"):
            ctx.set_output("Y", np.ascontiguousarray(x[:, 2:]))
            return
        y = x.copy()
        one = x.dtype.type(1)
        y[:, 0] = np.log(x[:, 0] + one)
        y[:, 1] = np.log(x[:, 1] + one) - y[:, 0]
        ctx.set_output("Y", y)


# ---- chunk_eval ----------------------------------------------------------------------------

# chunk_scheme -> (num_tag_types, begin, inside, end, single); -1: the scheme has no such tag
_SCHEMES = {"IOB": (2, 0, 1, -1, -1), "IOE": (2, -1, 0, 1, -1), "IOBES": (4, 0, 1, 2, 3),
            "plain": (1, -1, -1, -1, -1)}


def _chunk_end(pt, ptype, t, typ, other, b, i, e, s) -> bool:
    if ptype == other:
        return False
    if typ == other or typ != ptype:
        return True
    if pt in (b, i):
        return t in (b, s)
    return pt in (e, s)


def _chunk_begin(pt, ptype, t, typ, other, b, i, e, s) -> bool:
    if ptype == other:
        return typ != other
    if typ == other:
        return False
    if typ != ptype or t in (b, s):
        return True
    if t in (i, e):
        return pt in (e, s)
    return False


def _segments(labels, num_types: int, scheme) -> list[tuple[int, int, int]]:
    """ChunkEvalKernel::GetSegments: (begin, end, type) of each chunk."""
    ntag, *tags = scheme
    other, out, start, in_chunk, tag, typ = num_types, [], 0, False, -1, num_types
    for k, v in enumerate(labels):
        if v > num_types * ntag:
            raise InvalidArgument(f"chunk_eval: label {v} is out of range (at most "
                                  f"num_chunk_types * num_tag_types = {num_types * ntag}).")
        pt, ptype = tag, typ
        tag, typ = v % ntag, v // ntag
        if in_chunk and _chunk_end(pt, ptype, tag, typ, other, *tags):
            out.append((start, k - 1, ptype))
            in_chunk = False
        if _chunk_begin(pt, ptype, tag, typ, other, *tags):
            start, in_chunk = k, True
    if in_chunk:
        out.append((start, len(labels) - 1, typ))
    return out


@register_fluid_kernel("chunk_eval", "CPU", ("float32",))
class ChunkEvalKernel(FluidKernel):
    """Chunk precision / recall / F1 of Inference against Label over all sequences (IOB, IOE,
    IOBES or plain tags; excluded_chunk_types not counted)."""

    def compute(self, ctx) -> None:
        inf, lab = ctx.input_array("Inference"), ctx.input_array("Label")
        scheme_name = ctx.attr("chunk_scheme")
        if scheme_name not in _SCHEMES:
            raise InvalidArgument(f"chunk_eval: attribute chunk_scheme must be one of "
                                  f"{sorted(_SCHEMES)}, got {scheme_name!r}.")
        scheme, ntypes = _SCHEMES[scheme_name], int(ctx.attr("num_chunk_types"))
        excluded = {int(v) for v in ctx.attr("excluded_chunk_types")}
        if ctx.has_input("SeqLength"):
            lengths = ctx.input_array("SeqLength").reshape(-1).tolist()
            seqs = [(inf[b, :n].tolist(), lab[b, :n].tolist()) for b, n in enumerate(lengths)]
        else:
            fi, fl = inf.reshape(-1).tolist(), lab.reshape(-1).tolist()
            seqs = [(fi[a:b], fl[a:b]) for a, b in pairwise(_offsets(ctx, "Inference"))]
        n_inf = n_lab = n_ok = 0
        for si, sl in seqs:
            o, g = _segments(si, ntypes, scheme), _segments(sl, ntypes, scheme)
            i = j = 0
            while i < len(o) and j < len(g):  # both lists are ordered by end
                n_ok += o[i] == g[j] and o[i][2] not in excluded
                if o[i][1] < g[j][1]:
                    i += 1
                elif o[i][1] > g[j][1]:
                    j += 1
                else:
                    i, j = i + 1, j + 1
            n_lab += sum(s[2] not in excluded for s in g)
            n_inf += sum(s[2] not in excluded for s in o)
        f = np.float32
        p = f(0) if not n_inf else f(n_ok) / f(n_inf)
        r = f(0) if not n_lab else f(n_ok) / f(n_lab)
        f1 = f(0) if not n_ok else f(2) * p * r / (p + r)
        for slot, v, dt in (("Precision", p, f), ("Recall", r, f), ("F1-Score", f1, f),
                            ("NumInferChunks", n_inf, np.int64),
                            ("NumLabelChunks", n_lab, np.int64),
                            ("NumCorrectChunks", n_ok, np.int64)):
            ctx.set_output(slot, np.array([v], dt))


# ---- tdm_child -----------------------------------------------------------------------------

@register_fluid_kernel("tdm_child", "CPU", ("float32", "float64", "int32", "int64"))
class TdmChildKernel(FluidKernel):
    """Children of each tree node from TreeInfo rows [item_id, layer_id, parent_id, children...]
    (zeros for node 0 and leaves) and whether each child is an item (LeafMask)."""

    def compute(self, ctx) -> None:
        x, tree = ctx.input_array("X"), ctx.input_array("TreeInfo")
        k = int(ctx.attr("child_nums"))
        dt = {2: np.int32, 3: np.int64}.get(int(ctx.attr("dtype")))
        if dt is None:
            raise InvalidArgument(f"tdm_child: attribute dtype must be int32 (2) or int64 (3), "
                                  f"got {ctx.attr('dtype')}.")
        ids = x.reshape(-1).astype(np.int64)
        if ids.size and (ids.min() < 0 or ids.max() >= tree.shape[0]):
            raise InvalidArgument(f"tdm_child: input id must be in [0, {tree.shape[0]}) (the "
                                  f"rows of TreeInfo), got {ids.tolist()}.")
        child = np.zeros((ids.size, k), dt)
        mask = np.zeros((ids.size, k), dt)
        for n, node in enumerate(ids.tolist()):
            if node == 0 or tree[node, 3] == 0:
                continue
            child[n] = tree[node, 3:3 + k].astype(dt)
            mask[n] = tree[child[n].astype(np.int64), 0] != 0
        shape = (*x.shape, k)
        ctx.set_output("Child", child.reshape(shape))
        ctx.set_output("LeafMask", mask.reshape(shape))


# edit_distance is a phi kernel (phi/kernels/sequence2.py); EditDistanceOp's expected type: FP32
op_hooks("edit_distance", get_expected_kernel_type=_fixed(DataType.FLOAT32))
