"""The fluid kernels of sequence_concat, sequence_concat_grad, sequence_conv, sequence_conv_grad,
sequence_enumerate, sequence_erase, sequence_expand, sequence_expand_as,
sequence_expand_as_grad, sequence_expand_grad, sequence_pad, sequence_pad_grad,
sequence_reshape, sequence_reshape_grad, sequence_reverse, sequence_scatter,
sequence_scatter_grad, sequence_slice, sequence_slice_grad, sequence_softmax,
sequence_softmax_grad, sequence_unpad, sequence_unpad_grad; the output counts hook of
sequence_concat_grad.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.fluid_kernels.funcs import FLOATS, NUM, last_level, wanted
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.lod import from_lengths, to_abs_offset
from phi.kernels.funcs import quiet

__all__: list[str] = []


# run_op: one X@GRAD per X
op_hooks("sequence_concat_grad",
         output_counts=lambda attrs, inputs: {"X@GRAD": len(inputs.get("X") or ())})


@register_fluid_kernel("sequence_concat_grad", "CPU", NUM)
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


@register_fluid_kernel("sequence_expand_as_grad", "CPU", NUM)
class SequenceExpandAsGradKernel(FluidKernel):
    """Row i of X@GRAD: the sum of Out@GRAD over Y's sequence i."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        dout = ctx.input_array("Out@GRAD")
        level = last_level(ctx, "Y")
        dx = np.zeros_like(x)
        for i, (a, b) in enumerate(pairwise(level)):
            dx[i] = dout[a:b].sum(axis=0, dtype=x.dtype)
        ctx.set_output("X@GRAD", dx)


@register_fluid_kernel("sequence_expand_grad", "CPU", NUM)
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


@register_fluid_kernel("sequence_pad_grad", "CPU", NUM)
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


@register_fluid_kernel("sequence_unpad_grad", "CPU", NUM)
class SequenceUnpadGradKernel(FluidKernel):
    """X@GRAD [sequences, length, ...]: Out@GRAD's sequence i in the first rows of entry i
    (its LoD gives the lengths), 0 in the padding."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        dout = ctx.input_array("Out@GRAD")
        level = last_level(ctx, "Out@GRAD")
        dx = np.zeros_like(x)
        for i, (a, b) in enumerate(pairwise(level)):
            dx[i, :b - a] = dout[a:b].reshape(b - a, *x.shape[2:])
        ctx.set_output("X@GRAD", dx)


@register_fluid_kernel("sequence_reshape_grad", "CPU", NUM)
class SequenceReshapeGradKernel(FluidKernel):
    """Out@GRAD's values in X's shape."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        ctx.set_output("X@GRAD", np.array(ctx.input_array("Out@GRAD")).reshape(x.shape))


@register_fluid_kernel("sequence_scatter_grad", "CPU", NUM)
class SequenceScatterGradKernel(FluidKernel):
    """X@GRAD = Out@GRAD; Updates@GRAD[k] = Out@GRAD[i, Ids[k]] for k in Ids' sequence i."""

    def compute(self, ctx) -> None:
        dout = ctx.input_array("Out@GRAD")
        if wanted(ctx, "X@GRAD"):
            ctx.set_output("X@GRAD", np.array(dout))
        if wanted(ctx, "Updates@GRAD"):
            ids = np.asarray(ctx.input_array("Ids")).reshape(-1).astype(np.int64)
            updates = ctx.input_array("Updates")
            rows = np.repeat(np.arange(len(last_level(ctx, "Ids")) - 1),
                             np.diff(np.asarray(last_level(ctx, "Ids"), np.int64)))
            du = dout[rows, ids].astype(updates.dtype).reshape(updates.shape)
            ctx.set_output("Updates@GRAD", du)


@register_fluid_kernel("sequence_slice_grad", "CPU", NUM)
class SequenceSliceGradKernel(FluidKernel):
    """Out@GRAD's sequence i back at rows Offset[i] ... of X's sequence i; 0 elsewhere."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        dout = ctx.input_array("Out@GRAD")
        level = last_level(ctx, "X")
        offset = np.asarray(ctx.input_array("Offset")).reshape(-1).astype(np.int64)
        length = np.asarray(ctx.input_array("Length")).reshape(-1).astype(np.int64)
        dx = np.zeros_like(x)
        row = 0
        for i in range(len(level) - 1):
            start = level[i] + offset[i]
            dx[start:start + length[i]] = dout[row:row + length[i]]
            row += length[i]
        ctx.set_output("X@GRAD", dx)


@register_fluid_kernel("sequence_softmax_grad", "CPU", FLOATS)
class SequenceSoftmaxGradKernel(FluidKernel):
    """Per sequence (X's last level): out * (dout - sum(out * dout))."""

    def compute(self, ctx) -> None:
        out = ctx.input_array("Out")
        dout = ctx.input_array("Out@GRAD").reshape(-1)
        flat = out.reshape(-1)
        dx = np.zeros_like(flat)
        with quiet(np):
            for a, b in pairwise(last_level(ctx, "X")):
                s = np.sum(flat[a:b] * dout[a:b], dtype=flat.dtype)
                dx[a:b] = flat[a:b] * (dout[a:b] - s)
        ctx.set_output("X@GRAD", dx.reshape(out.shape))


@register_fluid_kernel("sequence_conv_grad", "CPU", FLOATS)
class SequenceConvGradKernel(FluidKernel):
    """The context matrix C of the forward (rows t + contextStart ... of each sequence,
    PaddingData rows / zeros beyond its ends): Filter@GRAD = C^T dOut, and dC = dOut Filter^T
    added back onto the X rows (X@GRAD) and PaddingData rows (PaddingData@GRAD) it read."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        w = ctx.input_array("Filter")
        dout = ctx.input_array("Out@GRAD")
        level = last_level(ctx, "X")
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


_NUM = ("float32", "float64", "int32", "int64")


def _level(ctx, slot: str = "X", *, one_level: bool = False) -> tuple[int, ...]:
    """The offsets the op works on: the last LoD level of input ``slot``."""
    t = ctx.input(slot)
    if t is None or t.data is None:
        raise InvalidArgument(f"{ctx.type}: Input({slot}) is not initialized.")
    if not t.lod:
        raise InvalidArgument(f"{ctx.type}: Input({slot}) of {ctx.type} must hold a LoD "
                              "(sequence offsets), it has none.")
    if one_level and len(t.lod) != 1:
        raise InvalidArgument(f"{ctx.type}: only one level of LoD is supported, but Input("
                              f"{slot}) has {len(t.lod)} levels.")
    return t.lod[-1]


@register_fluid_kernel("sequence_reverse", "CPU", (*_NUM, "uint8"))
class SequenceReverseKernel(FluidKernel):
    """Each sequence's rows in reverse order; the LoD stays."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        level = _level(ctx, one_level=True)
        if x.ndim < 1 or level[-1] != x.shape[0]:
            raise InvalidArgument("sequence_reverse: the LoD must end at the rows of X.")
        index = np.concatenate([np.arange(b - 1, a - 1, -1) for a, b in pairwise(level)]
                               + [np.empty(0, np.int64)]).astype(np.int64)
        ctx.set_output("Y", x[index], lod=ctx.input("X").lod)


@register_fluid_kernel("sequence_concat", "CPU", _NUM)
class SequenceConcatKernel(FluidKernel):
    """Sequence i of Out is sequence i of every X, one after the other."""

    def compute(self, ctx) -> None:
        xs = ctx.multi_input("X")
        levels = []
        for i, t in enumerate(xs):
            if t is None or not t.lod:
                raise InvalidArgument(f"sequence_concat: Input(X)[{i}] must hold a LoD.")
            # Paddle's ConcatLoD reads level 0's raw offsets as row indices, whatever the depth
            levels.append(t.lod[0])
        n = len(levels[0]) - 1
        if any(len(lv) - 1 != n for lv in levels):
            raise InvalidArgument(f"sequence_concat: every X must hold the same number of "
                                  f"sequences, got {[len(lv) - 1 for lv in levels]}.")
        tails = {t.data.shape[1:] for t in xs}
        if len(tails) != 1:
            raise InvalidArgument(f"sequence_concat: the inputs' dims after the first must "
                                  f"match, got {sorted(tails)}.")
        parts, lengths = [], []
        for s in range(n):
            total = 0
            for t, lv in zip(xs, levels, strict=True):
                parts.append(t.data[lv[s]:lv[s + 1]])
                total += lv[s + 1] - lv[s]
            lengths.append(total)
        out = np.concatenate(parts) if parts else xs[0].data[:0]
        rows = sum(t.data.shape[0] for t in xs)
        if out.shape[0] < rows:  # Paddle leaves the rows level 0 does not reach unwritten
            out = np.concatenate([out, np.zeros((rows - out.shape[0], *out.shape[1:]),
                                                out.dtype)])
        ctx.set_output("Out", out, lod=from_lengths([lengths]))


@register_fluid_kernel("sequence_slice", "CPU", _NUM)
class SequenceSliceKernel(FluidKernel):
    """Sequence i of Out is rows [Offset[i], Offset[i] + Length[i]) of sequence i of X."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        level = _level(ctx)
        offset = np.asarray(ctx.input_array("Offset")).reshape(-1).astype(np.int64)
        length = np.asarray(ctx.input_array("Length")).reshape(-1).astype(np.int64)
        n = len(level) - 1
        if offset.size != n or length.size != n:
            raise InvalidArgument(f"sequence_slice: Offset and Length must hold one value per "
                                  f"sequence ({n}), got {offset.size} and {length.size}.")
        parts = []
        for i in range(n):
            if offset[i] < 0 or length[i] < 0:
                raise InvalidArgument("sequence_slice: The offset and length must be "
                                      f"non-negative, got {offset[i]} and {length[i]}.")
            if offset[i] + length[i] > level[i + 1] - level[i]:
                raise InvalidArgument(f"sequence_slice: The sum of offset[{i}] and length[{i}] "
                                      f"({offset[i] + length[i]}) exceeds the length of "
                                      f"sequence {i} ({level[i + 1] - level[i]}).")
            start = level[i] + offset[i]
            parts.append(x[start:start + length[i]])
        out = np.concatenate(parts) if parts else x[:0]
        ctx.set_output("Out", out, lod=from_lengths([length]))


@register_fluid_kernel("sequence_reshape", "CPU", _NUM)
class SequenceReshapeKernel(FluidKernel):
    """Each sequence's L x D values re-rowed into rows of new_dim."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        level = _level(ctx, one_level=True)
        new_dim = int(ctx.attr("new_dim"))
        if x.ndim != 2:
            raise InvalidArgument(f"sequence_reshape: Input(X) must be 2-D, got dims "
                                  f"{list(x.shape)}.")
        width = x.shape[1]
        out_level = [0]
        for a, b in pairwise(level):
            if ((b - a) * width) % new_dim:
                raise InvalidArgument(
                    "sequence_reshape: Please make sure (sequence_length * dimension) can be "
                    f"divided by context Attr(new_dim) with no remainder for each sequence; "
                    f"sequence length {b - a}, dimension {width}, new_dim {new_dim}.")
            out_level.append(out_level[-1] + (b - a) * width // new_dim)
        ctx.set_output("Out", x.reshape(-1, new_dim), lod=(tuple(out_level),))


@register_fluid_kernel("sequence_enumerate", "CPU", ("int32", "int64"))
class SequenceEnumerateKernel(FluidKernel):
    """Row j of a sequence becomes its next win_size ids, pad_value past the sequence's end."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        level = _level(ctx)
        win = int(ctx.attr("win_size"))
        if win <= 0:
            raise InvalidArgument(f"sequence_enumerate: win_size must be positive, got {win}.")
        flat = x.reshape(-1)
        out = np.full((flat.size, win), ctx.attr("pad_value"), dtype=x.dtype)
        for a, b in pairwise(level):
            for j in range(a, b):
                take = min(win, b - j)
                out[j, :take] = flat[j:j + take]
        ctx.set_output("Out", out, lod=ctx.input("X").lod)


@register_fluid_kernel("sequence_erase", "CPU", ("int32", "int64"))
class SequenceEraseKernel(FluidKernel):
    """The rows whose id is one of ``tokens`` removed; the LoD shrinks accordingly."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        level = _level(ctx, one_level=True)
        keep = ~np.isin(x.reshape(-1), np.asarray(ctx.attr("tokens"), dtype=x.dtype))
        kept = np.concatenate([[0], np.cumsum(keep, dtype=np.int64)])
        out_level = tuple(int(kept[o]) for o in level)
        ctx.set_output("Out", x.reshape(-1)[keep].reshape(-1, 1), lod=(out_level,))


@register_fluid_kernel("sequence_scatter", "CPU", _NUM)
class SequenceScatterKernel(FluidKernel):
    """Out = X with Updates added at (sequence i, Ids) for each sequence i of Ids."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        ids = np.asarray(ctx.input_array("Ids")).reshape(-1).astype(np.int64)
        updates = np.asarray(ctx.input_array("Updates")).reshape(-1)
        level = _level(ctx, "Ids")
        if updates.size != ids.size:
            raise InvalidArgument(f"sequence_scatter: Ids and Updates must hold as many values, "
                                  f"got {ids.size} and {updates.size}.")
        if len(level) - 1 != x.shape[0]:
            raise InvalidArgument(f"sequence_scatter: Ids holds {len(level) - 1} sequences, X "
                                  f"has {x.shape[0]} rows.")
        out = x.copy()
        for i, (a, b) in enumerate(pairwise(level)):
            cols = ids[a:b]
            if cols.size and (cols.min() < 0 or cols.max() >= x.shape[1]):
                raise InvalidArgument(f"sequence_scatter: an id of sequence {i} is out of "
                                      f"[0, {x.shape[1]}).")
            np.add.at(out[i], cols, updates[a:b].astype(x.dtype))
        ctx.set_output("Out", out)


@register_fluid_kernel("sequence_expand", "CPU", _NUM)
class SequenceExpandKernel(FluidKernel):
    """Sequence (or row, without a LoD) i of X repeated as often as Y's sequence i at
    ref_level holds entries; with a LoD on X every copy is a sequence of Out."""

    def compute(self, ctx) -> None:
        x, y = ctx.input("X"), ctx.input("Y")
        if y is None or not y.lod:
            raise InvalidArgument("sequence_expand: Input(Y) must hold a LoD.")
        ref = int(ctx.attr("ref_level"))
        ref = len(y.lod) - 1 if ref == -1 else ref
        if not 0 <= ref < len(y.lod):
            raise InvalidArgument(f"sequence_expand: ref_level {ref} is out of Y's "
                                  f"{len(y.lod)} LoD levels.")
        if len(x.lod) > 1:
            raise InvalidArgument("sequence_expand: X may hold one LoD level at most.")
        repeats = np.diff(np.asarray(y.lod[ref], np.int64))
        data = x.data
        x_level = x.lod[0] if x.lod else tuple(range(data.shape[0] + 1))
        if len(x_level) - 1 != repeats.size:
            raise InvalidArgument(f"sequence_expand: X holds {len(x_level) - 1} sequences, "
                                  f"Y's level {ref} {repeats.size}.")
        parts, out_level = [], [0]
        for (a, b), k in zip(pairwise(x_level), repeats, strict=True):
            for _ in range(int(k)):
                parts.append(data[a:b])
                out_level.append(out_level[-1] + b - a)
        out = np.concatenate(parts) if parts else data[:0]
        ctx.set_output("Out", out, lod=(tuple(out_level),) if x.lod else ())


@register_fluid_kernel("sequence_expand_as", "CPU", _NUM)
class SequenceExpandAsKernel(FluidKernel):
    """Row i of X repeated as often as Y's sequence i is long; Out takes Y's LoD."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        level = _level(ctx, "Y")
        if len(ctx.input("Y").lod) != 1:
            raise InvalidArgument(f"sequence_expand_as: Level number of Input(Y)'s lod should be "
                                  f"1. But received Y's lod level = {len(ctx.input('Y').lod)}.")
        repeats = np.diff(np.asarray(level, np.int64))
        if repeats.size != x.shape[0]:
            raise InvalidArgument(f"sequence_expand_as: X has {x.shape[0]} rows, Y holds "
                                  f"{repeats.size} sequences.")
        ctx.set_output("Out", np.repeat(x, repeats, axis=0), lod=(tuple(level),))


@register_fluid_kernel("sequence_pad", "CPU", _NUM)
class SequencePadKernel(FluidKernel):
    """Sequences of X laid out as [sequences, padded_length, ...], PadValue (a scalar or one
    row) after each; Length their lengths (int64)."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        _level(ctx)
        # SequencePadOp pads the sequences of LoD level 0 (absolute offsets) and checks that
        # level's raw last offset against X's rows, so a 2-level LoD is refused
        lod = ctx.input("X").lod
        if lod[0][-1] != x.shape[0]:
            raise InvalidArgument(
                f"sequence_pad: The SequencePadOp Input(X)'s lod info mismatches the actual "
                f"tensor shape. The 1st dimension of Input(X)'s lod info is {x.shape[0]}, the "
                f"1st dimension of actual tensor shape is {lod[0][-1]}")
        level = to_abs_offset(lod)[0]
        pad = np.asarray(ctx.input_array("PadValue")).astype(x.dtype)
        lengths = np.diff(np.asarray(level, np.int64))
        longest = int(lengths.max()) if lengths.size else 0
        padded = int(ctx.attr("padded_length"))
        if padded == -1:
            padded = longest
        elif padded < longest:
            raise InvalidArgument(f"sequence_pad: The padded_length ({padded}) must not be "
                                  f"less than the longest sequence ({longest}).")
        row = x.shape[1:]
        if pad.size not in (1, int(np.prod(row, dtype=np.int64))):
            raise InvalidArgument(f"sequence_pad: PadValue must hold one value or one row of "
                                  f"shape {list(row)}, got {list(pad.shape)}.")
        out = np.empty((lengths.size, padded, *row), x.dtype)
        out[...] = pad.reshape(-1)[0] if pad.size == 1 else pad.reshape(row)
        for i, (a, b) in enumerate(pairwise(level)):
            out[i, :b - a] = x[a:b]
        ctx.set_output("Out", out)
        ctx.set_output("Length", lengths, DataType.INT64)


@register_fluid_kernel("sequence_unpad", "CPU", _NUM)
class SequenceUnpadKernel(FluidKernel):
    """The first Length[i] rows of X[i], one after the other; the LoD from the lengths."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        lengths = np.asarray(ctx.input_array("Length"))
        if lengths.dtype != np.int64:  # Paddle's kernel reads Length as int64 only
            raise InvalidArgument(f"sequence_unpad: The type of data we are trying to retrieve "
                                  f"(int64) does not match the type of data ({lengths.dtype}) "
                                  f"currently contained in the container.")
        lengths = lengths.reshape(-1)
        if x.ndim < 2 or lengths.size != x.shape[0]:
            raise InvalidArgument(f"sequence_unpad: X must be [sequences, length, ...] with "
                                  f"one Length per sequence, got {list(x.shape)} and "
                                  f"{lengths.size} lengths.")
        if lengths.size and (lengths.min() < 0 or lengths.max() > x.shape[1]):
            raise InvalidArgument(f"sequence_unpad: a Length is out of [0, {x.shape[1]}].")
        parts = [x[i, :k] for i, k in enumerate(lengths)]
        out = np.concatenate(parts) if parts else x.reshape(-1, *x.shape[2:])[:0]
        if x.ndim == 2:  # [sequences, length] unpads to one column
            out = out.reshape(-1, 1)
        ctx.set_output("Out", out, lod=from_lengths([lengths]))


@register_fluid_kernel("sequence_softmax", "CPU", ("float32", "float64"))
class SequenceSoftmaxKernel(FluidKernel):
    """Softmax over each sequence's values (X [N] or [N, 1]); the LoD stays."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        level = _level(ctx)
        if x.ndim > 2 or (x.ndim == 2 and x.shape[1] != 1):
            raise InvalidArgument(f"sequence_softmax: X must be [N] or [N, 1], got dims "
                                  f"{list(x.shape)}.")
        flat = x.reshape(-1)
        out = np.empty_like(flat)
        for a, b in pairwise(level):
            if a == b:
                continue
            e = np.exp(flat[a:b] - flat[a:b].max())
            out[a:b] = e / e.sum(dtype=x.dtype)
        ctx.set_output("Out", out.reshape(x.shape), lod=ctx.input("X").lod)


@register_fluid_kernel("sequence_conv", "CPU", ("float32", "float64"))
class SequenceConvKernel(FluidKernel):
    """Context projection then a matmul: row t of a sequence sees rows t + contextStart ...
    t + contextStart + contextLength - 1 of its own sequence (zeros, or PaddingData rows when
    paddingTrainable, beyond its ends), concatenated, times Filter."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        w = ctx.input_array("Filter")
        if x.dtype == np.float64:
            # Paddle 2.6.2's CPU kernel is registered for double but reads its tensors as
            # float and fails on every float64 input (Paddle-made cases seq1_conv_*f64*)
            raise InvalidArgument(
                "sequence_conv: The type of data we are trying to retrieve (float32) does not "
                "match the type of data (float64) currently contained in the container.")
        level = _level(ctx)
        length, start = int(ctx.attr("contextLength")), int(ctx.attr("contextStart"))
        if int(ctx.attr("contextStride")) != 1:
            raise InvalidArgument("sequence_conv: Currently, SequenceConvOp only supports "
                                  "contextStride=1.")
        if x.ndim != 2 or w.shape[0] != length * x.shape[1]:
            raise InvalidArgument(f"sequence_conv: Filter must be [contextLength * "
                                  f"{x.shape[-1]}, out], got {list(w.shape)}.")
        trainable = bool(ctx.attr("paddingTrainable"))
        pad = ctx.input("PaddingData")
        up = max(0, -start)
        if trainable and pad is None:
            raise InvalidArgument("sequence_conv: paddingTrainable needs Input(PaddingData).")
        cols = np.zeros((x.shape[0], length * x.shape[1]), x.dtype)
        d = x.shape[1]
        for a, b in pairwise(level):
            n = b - a
            for t in range(n):
                for c in range(length):
                    pos = t + start + c
                    if 0 <= pos < n:
                        cols[a + t, c * d:(c + 1) * d] = x[a + pos]
                    elif trainable:
                        k = pos + up if pos < 0 else up + (pos - n)
                        cols[a + t, c * d:(c + 1) * d] = pad.data[k]
        ctx.set_output("Out", (cols @ w).astype(x.dtype), lod=ctx.input("X").lod)

