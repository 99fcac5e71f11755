"""Helpers shared by the fluid kernel modules (no kernel or hook is registered here)."""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from fluid_compat.framework.op_kernel_type import OpKernelType
from fluid_compat.operators.expected_kernel import indicate_var_data_type
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from fluid_compat.operators.with_kernel import OperatorWithKernel
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument

__all__ = [
    "FixedGradOp",
    "FLOATS",
    "GpuOnly",
    "M64",
    "Mt19937_64",
    "NUM",
    "TO_COMPLEX",
    "algorithm_paddings",
    "as_matrix",
    "back",
    "bbox_overlaps",
    "check_dtype",
    "complex_of_out_grad",
    "four_paddings",
    "grad_out",
    "host_in",
    "set_out",
    "ints",
    "last_level",
    "list_values",
    "lod_offsets",
    "nchw",
    "one_level_offsets",
    "put",
    "rank",
    "register",
    "same_shape",
    "trunc_div",
    "uniform_sampler",
    "wanted",
    "wanted_first",
]


FLOATS = ("float32", "float64")


def wanted_first(ctx, slot: str) -> bool:
    names = ctx.op.outputs.get(slot) or ()
    return bool(names) and names[0] != "@EMPTY@"


def wanted(ctx, slot: str) -> bool:
    """The op asks for ``slot`` (a variable other than the @EMPTY@ placeholder)."""
    return any(n != "@EMPTY@" for n in ctx.op.outputs.get(slot, ()))


def put(ctx, slot: str, array) -> None:
    """Set a gradient output the op asks for (no variable or @EMPTY@: not wanted)."""
    names = ctx.op.outputs.get(slot) or ()
    if names and names[0] != "@EMPTY@" and array is not None:
        ctx.set_output(slot, array)


def register(op_type: str, dtypes):
    """register_fluid_kernel, with bad inputs raising typed errors (typed_errors)."""
    from phi.kernels.funcs.backward import typed_errors

    def decorate(cls):
        cls.compute = typed_errors(op_type, cls.compute)
        return register_fluid_kernel(op_type, "CPU", dtypes)(cls)
    return decorate


def grad_out(ctx, slot: str) -> bool:
    """Whether the op asks for gradient ``slot`` (not absent, not @EMPTY@)."""
    names = ctx.op.outputs.get(slot, ())
    return bool(names) and names[0] != "@EMPTY@"


NUM = ("float32", "float64", "int32", "int64")


def last_level(ctx, slot: str) -> tuple[int, ...]:
    t = ctx.input(slot)
    if t is None or not t.lod:
        raise InvalidArgument(f"{ctx.type}: Input({slot}) must hold a LoD (sequence offsets).")
    return t.lod[-1]


def host_in(ctx, slot: str):
    data = ctx.input_array(slot)
    return data if ctx.xp is np else np.asarray(ctx.dev_ctx.to_host(data))


def set_out(ctx, slot: str, array) -> None:
    ctx.set_output(slot, array if ctx.xp is np else ctx.dev_ctx.from_host(array))


TO_COMPLEX = {DataType.FLOAT32: DataType.COMPLEX64, DataType.FLOAT64: DataType.COMPLEX128}


def complex_of_out_grad(op, ctx) -> OpKernelType:
    """real_grad / imag_grad: the complex type whose real part dout is (ToComplexType)."""
    dtype = indicate_var_data_type(op, ctx, "Out@GRAD")
    return OpKernelType(TO_COMPLEX.get(dtype, dtype), ctx.place)


def same_shape(ctx, a: str, b: str):
    x, y = ctx.input_array(a), ctx.input_array(b)
    if x.shape != y.shape:
        raise InvalidArgument(f"{ctx.type}: Input({a}) and Input({b}) must have the same shape, "
                              f"but received {list(x.shape)} and {list(y.shape)}.")
    return x, y


def check_dtype(ctx, slot: str, dtype: str) -> None:
    """The kernel reads ``slot`` as ``dtype`` (data<int64_t>() ...): another dtype is refused."""
    t = ctx.input(slot)
    if t is not None and str(t.dtype) != dtype:
        raise InvalidArgument(f"{ctx.type}: Input({slot}) holds the wrong type, it holds "
                              f"{t.dtype}, but desires to be {dtype}.")


def as_matrix(ctx, slot: str):
    """X reshaped to [rows, last dim] (ReshapeToMatrix(x, rank - 1))."""
    x = ctx.input_array(slot)
    if x.ndim < 1:
        raise InvalidArgument(f"{ctx.type}: Input({slot}) must have at least one dimension.")
    return x.reshape(-1, x.shape[-1]) if x.ndim > 1 else x.reshape(1, -1)


def ints(ctx, t, slot: str, int32_only: bool) -> list[int]:
    """The values of a shape-like tensor, read as Paddle reads it: ``data<int>()`` (int32 only)
    or int32 / int64 by dtype."""
    allowed = (DataType.INT32,) if int32_only else (DataType.INT32, DataType.INT64)
    if t.dtype not in allowed:
        raise InvalidArgument(
            f"{ctx.type}: Input({slot}) holds the wrong type, it holds {t.dtype}, but desires "
            f"to be {' or '.join(str(d) for d in allowed)}.")
    return [int(v) for v in np.asarray(t.numpy()).reshape(-1)]


def list_values(ctx, slot: str, int32_only: bool) -> list[int]:
    """One value per tensor of a ``*TensorList`` input (each of shape [1] or [])."""
    values = []
    for t in ctx.multi_input(slot):
        if tuple(t.shape) not in ((1,), ()):
            raise InvalidArgument(f"{ctx.type}: the shape of each Tensor in Input({slot}) must "
                                  f"be [1] or [], but received {list(t.shape)}.")
        values += ints(ctx, t, slot, int32_only)
    return values


def trunc_div(a: int, b: int) -> int:
    """C++ ``a / b`` on ints (truncation toward zero)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def four_paddings(paddings, op: str) -> list[int]:
    pads = [int(p) for p in paddings]
    if len(pads) == 2:
        return [pads[0], pads[0], pads[1], pads[1]]
    if len(pads) == 4:
        return pads
    raise InvalidArgument(f"{op}: attribute paddings must hold 2 or 4 values, got {pads}.")


def algorithm_paddings(pads, algorithm: str, sizes, strides, ksize) -> list[int]:
    if algorithm == "VALID":
        return [0, 0, 0, 0]
    if algorithm == "SAME":
        out = []
        for size, stride, k in zip(sizes, strides, ksize, strict=False):
            n_out = (size + stride - 1) // stride
            total = max(0, (n_out - 1) * stride + k - size)
            out += [total // 2, total - total // 2]
        return out
    return pads


def nchw(xp, x, data_format: str):
    return xp.transpose(x, (0, 3, 1, 2)) if data_format == "NHWC" else x


def back(xp, out, data_format: str):
    out = xp.transpose(out, (0, 2, 3, 1)) if data_format == "NHWC" else out
    return xp.ascontiguousarray(out)


def one_level_offsets(ctx, slot: str) -> list[int]:
    """The one level of sequence offsets on input ``slot``."""
    t = ctx.input(slot)
    lod = getattr(t, "lod", ()) or ()
    if len(lod) != 1:
        raise InvalidArgument(f"{ctx.type}: Only support one level sequence now, but got the "
                              f"LoD level is {len(lod)} on input `{slot}`.")
    offsets = [int(v) for v in lod[0]]
    rows = t.data.shape[0]
    if offsets[0] != 0 or offsets[-1] != rows or any(
            b < a for a, b in pairwise(offsets)):
        raise InvalidArgument(f"{ctx.type}: the LoD {offsets} of `{slot}` does not describe "
                              f"its {rows} rows.")
    return offsets


def rank(ctx, slot: str, ranks: tuple[int, ...], what: str = "") -> None:
    """InvalidArgument unless input ``slot`` has one of ``ranks`` dimensions."""
    t = ctx.input(slot)
    nd = t.data.ndim if t is not None and t.data is not None else None
    if nd not in ranks:
        raise InvalidArgument(f"{ctx.type}: input `{slot}` must be a {' or '.join(map(str, ranks))}"
                              f"-D tensor{what}, got {nd}-D.")


def lod_offsets(ctx, slot: str) -> list[int]:
    """The last level of LoD offsets of input ``slot`` (InvalidArgument when it has none)."""
    t = ctx.input(slot)
    lod = getattr(t, "lod", ()) or ()
    if not lod:
        raise InvalidArgument(f"{ctx.type}: input `{slot}` needs a LoD (one level of sequence "
                              f"offsets) when no length input is given, got none.")
    return [int(v) for v in lod[-1]]


class GpuOnly(FluidKernel):
    """Paddle 2.6.2 registers a CPU kernel that refuses to run (GPU only)."""

    message = ""

    def compute(self, ctx) -> None:
        from phi.core.errors import Unimplemented

        raise Unimplemented(self.message)


M64 = (1 << 64) - 1


class Mt19937_64:
    """std::mt19937_64, the engine of Paddle's samplers (GetCPURandomEngine(seed) for a
    non-zero seed; seed 0 means Paddle's global generator: here fresh entropy)."""

    def __init__(self, seed: int) -> None:
        if seed == 0:
            seed = int(np.random.default_rng().integers(1, 2**63))
        mt = [seed & M64]
        for i in range(1, 312):
            mt.append((6364136223846793005 * (mt[-1] ^ (mt[-1] >> 62)) + i) & M64)
        self.mt, self.idx = mt, 312

    def __call__(self) -> int:
        mt = self.mt
        if self.idx >= 312:
            for i in range(312):
                x = (mt[i] & 0xFFFFFFFF80000000) | (mt[(i + 1) % 312] & 0x7FFFFFFF)
                mt[i] = mt[(i + 156) % 312] ^ (x >> 1) ^ (0xB5026F5AA96619E9 if x & 1 else 0)
            self.idx = 0
        x = mt[self.idx]
        self.idx += 1
        x ^= (x >> 29) & 0x5555555555555555
        x ^= (x << 17) & 0x71D67FFFEDA60000
        x ^= (x << 37) & 0xFFF7EEE000000000
        return (x ^ (x >> 43)) & M64

    def uniform_int(self, hi: int) -> int:
        """std::uniform_int_distribution<int>(0, hi) (libstdc++'s downscaling)."""
        n = hi + 1
        scaling = M64 // n
        while True:
            r = self()
            if r < n * scaling:
                return r // scaling

    def uniform_real(self) -> float:
        """std::uniform_real_distribution<double>(0, 1): generate_canonical<double, 53>."""
        u = float(self()) / 2.0 ** 64
        return u if u < 1.0 else float(np.nextafter(1.0, 0.0))


def uniform_sampler(rng_range: int, seed: int):
    """math::UniformSampler(range, seed).Sample: uniform over [0, range]."""
    eng = Mt19937_64(seed)
    return lambda: eng.uniform_int(rng_range)


def bbox_overlaps(t, a, b):
    """Paddle's BboxOverlaps: IoU with the +1 pixel convention, 0 where nothing intersects."""
    one = t(1)
    area_a = (a[:, 2] - a[:, 0] + one) * (a[:, 3] - a[:, 1] + one)
    area_b = (b[:, 2] - b[:, 0] + one) * (b[:, 3] - b[:, 1] + one)
    iw = np.maximum(np.minimum(a[:, None, 2], b[None, :, 2])
                    - np.maximum(a[:, None, 0], b[None, :, 0]) + one, t(0))
    ih = np.maximum(np.minimum(a[:, None, 3], b[None, :, 3])
                    - np.maximum(a[:, None, 1], b[None, :, 1]) + one, t(0))
    inter = iw * ih
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / (area_a[:, None] + area_b[None, :] - inter)
    return np.where(inter == 0, t(0), iou).astype(t)


class FixedGradOp(OperatorWithKernel):
    """A grad op whose outputs take what Paddle's grad InferShape gives them after the kernel
    (``fix(op, inputs, staged)``, a staticmethod of each op's subclass)."""

    fix: staticmethod

    def compute(self, choice, inputs, scope):
        from phi.kernels.funcs.backward import typed_errors

        staged = super().compute(choice, inputs, scope)
        typed_errors(self.type, type(self).fix)(self, inputs, staged)
        return staged
