"""Grad ops of the shape / data-movement family: fluid grad kernels where Paddle 2.6.2 keeps
them (reshape v1, flatten2, expand v1, crop v1, lookup_table, top_k v1; partial_concat and
partial_sum as STRUCTURE kernels), and the output LoDs of the phi grad kernels
(phi/kernels/grad_manip.py, grad_index.py); fluid_compat/operators/grad_manip_ops.py gives the
outputs the dims the phi kernels cannot know."""

from __future__ import annotations

import numpy as np

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument
from phi.kernels.funcs.backward import typed_errors

__all__: list[str] = []

EMPTY = "@EMPTY@"


def _register(op_type: str, dtypes):
    """register_fluid_kernel, with bad inputs raising typed errors (typed_errors)."""
    def decorate(cls):
        cls.compute = typed_errors(op_type, cls.compute)
        return register_fluid_kernel(op_type, "CPU", dtypes)(cls)
    return decorate


def wanted(ctx, slot: str, index: int = 0) -> bool:
    """The op asks for output ``slot`` [index] (a variable other than @EMPTY@)."""
    names = ctx.op.outputs.get(slot, ())
    return index < len(names) and names[index] != EMPTY


# Output LoDs of the phi grad kernels: the input whose meta Paddle's grad InferMeta copies
# (UnchangedInferMeta(x) / GeneralUnaryGradInferMeta: share_meta, the LoD included).
for _op, _pairs in {
    "argsort_grad": {"X@GRAD": "X"},
    "expand_v2_grad": {"X@GRAD": "X"},
    "gather_grad": {"X@GRAD": "X"},
    "index_select_grad": {"X@GRAD": "X"},
    "masked_select_grad": {"X@GRAD": "X"},
    "roll_grad": {"X@GRAD": "X"},
    "top_k_v2_grad": {"X@GRAD": "X"},
    "kthvalue_grad": {"X@GRAD": "X"},
    "mode_grad": {"X@GRAD": "X"},
    "index_add_grad": {"X@GRAD": "Out@GRAD"},
    "tril_triu_grad": {"X@GRAD": "Out@GRAD"},
}.items():
    op_hooks(_op, share_lod=_pairs)


# -- fluid grad kernels --------------------------------------------------------------------------

@_register("reshape_grad", ("float32", "float64", "int16", "int32", "int64"))
class ReshapeGradKernel(FluidKernel):
    """X@GRAD = Out@GRAD with X's dims."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X")
        ctx.set_output("X@GRAD", ctx.input_array("Out@GRAD").reshape(x.shape).copy())


@_register("flatten2_grad", ("float32", "float64", "int8", "int32", "int64",
                                                "uint8"))
class Flatten2GradKernel(FluidKernel):
    """X@GRAD = Out@GRAD with XShape's dims without the leading 0."""

    def compute(self, ctx) -> None:
        dims = tuple(ctx.input_array("XShape").shape[1:])
        ctx.set_output("X@GRAD", ctx.input_array("Out@GRAD").reshape(dims).copy())


@_register("expand_grad", ("float32", "float64", "int32", "int64"))
class ExpandGradKernel(FluidKernel):
    """X@GRAD = Out@GRAD summed over the expand_times copies of each dim."""

    def compute(self, ctx) -> None:
        x, dout = ctx.input_array("X"), ctx.input_array("Out@GRAD")
        # (copies, size) per dim, summed over the copies (Paddle's reshape + reduce)
        g = dout.reshape([v for d, o in zip(x.shape, dout.shape, strict=True)
                          for v in (o // d if d else 0, d)])
        axes = tuple(range(0, 2 * x.ndim, 2))
        ctx.set_output("X@GRAD", np.sum(g, axis=axes, dtype=g.dtype).reshape(x.shape))


@_register("crop_grad", ("float32", "float64"))
class CropGradKernel(FluidKernel):
    """X@GRAD = zeros of X's dims with Out@GRAD at the offsets (attribute or Offsets)."""

    def compute(self, ctx) -> None:
        x, dout = ctx.input_array("X"), ctx.input_array("Out@GRAD")
        if ctx.has_input("Offsets"):
            offs = [int(v) for v in ctx.input_array("Offsets").reshape(-1)]
        else:
            offs = list(ctx.attr("offsets")) or [0] * x.ndim
        g = np.zeros(x.shape, dout.dtype)
        g[tuple(slice(o, o + d) for o, d in zip(offs, dout.shape, strict=True))] = dout
        ctx.set_output("X@GRAD", g)


# lookup_table_grad (dense and SelectedRows forms): fluid_kernels/selected_rows.py


@_register("top_k_grad", ("float32", "float64"))
class TopKGradKernel(FluidKernel):
    """X@GRAD = Out@GRAD put at the Indices of X's last dim, zeros elsewhere."""

    def compute(self, ctx) -> None:
        x, dout = ctx.input_array("X"), ctx.input_array("Out@GRAD")
        idx = ctx.input_array("Indices").astype(np.int64)
        g = np.zeros(x.shape, dout.dtype)
        np.put_along_axis(g, idx, dout, axis=-1)
        ctx.set_output("X@GRAD", g)


def _partial(ctx, x0):
    """(start, length) of the partial ops' column window in X's rows of ``x0``'s width."""
    n = x0.shape[1]
    start, length = ctx.attr("start_index"), ctx.attr("length")
    start = start + n if start < 0 else start
    length = n - start if length < 0 else length
    if not 0 <= start < n or start + length > n:
        raise InvalidArgument(f"{ctx.type}: start_index {ctx.attr('start_index')} and length "
                              f"{ctx.attr('length')} do not fit the {n} columns of X.")
    return start, length


@_register("partial_concat_grad", ("float32", "float64", "int32", "int64",
                                                      "complex64", "complex128"))
class PartialConcatGradKernel(FluidKernel):
    """X@GRAD[i] = zeros with the columns [start, start + length) taken from block i of
    Out@GRAD."""

    def compute(self, ctx) -> None:
        xs = ctx.multi_input("X")
        dout = ctx.input_array("Out@GRAD")
        start, length = _partial(ctx, xs[0].data)
        for i, x in enumerate(xs):
            if not wanted(ctx, "X@GRAD", i):
                continue
            g = np.zeros(x.data.shape, dout.dtype)
            g[:, start:start + length] = dout[:, i * length:(i + 1) * length]
            ctx.set_output("X@GRAD", g, index=i)


@_register("partial_sum_grad", ("float32", "float64", "int32", "int64"))
class PartialSumGradKernel(FluidKernel):
    """X@GRAD[i] = zeros with Out@GRAD in the columns [start, start + length)."""

    def compute(self, ctx) -> None:
        xs = ctx.multi_input("X")
        dout = ctx.input_array("Out@GRAD")
        start, length = _partial(ctx, xs[0].data)
        for i, x in enumerate(xs):
            if not wanted(ctx, "X@GRAD", i):
                continue
            g = np.zeros(x.data.shape, dout.dtype)
            g[:, start:start + length] = dout
            ctx.set_output("X@GRAD", g, index=i)
