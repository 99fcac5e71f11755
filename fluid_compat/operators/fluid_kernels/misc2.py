"""Fluid kernels of helper `misc2`'s ops that Paddle 2.6.2 runs as STRUCTURE kernels (an empty
KernelSignature): fsp (paddle/fluid/operators/fsp_op.{cc,h}); and `data`, which the legacy
executor of Paddle 2.6.2 cannot run."""

from __future__ import annotations

from phi.core.errors import InvalidArgument, Unimplemented

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel

__all__: list[str] = []


@register_fluid_kernel("fsp", "CPU", ("float32", "float64"))
class FspKernel(FluidKernel):
    """FSP matrix of two feature maps: Out[n] = X[n] (C1 x HW) . Y[n]^T (HW x C2) / (H * W)."""

    dtype_tied_inputs = ("X", "Y")

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x, y = ctx.input_array("X"), ctx.input_array("Y")
        if x.ndim != 4 or y.ndim != 4:
            raise InvalidArgument(f"fsp: Input(X) and Input(Y) must be 4-D (N, C, H, W), but "
                                  f"received shapes {list(x.shape)} and {list(y.shape)}.")
        for axis, what in ((2, "height"), (3, "width")):
            if x.shape[axis] != y.shape[axis]:
                raise InvalidArgument(f"fsp: The Input(X)({x.shape[axis]}) and Input(Y)"
                                      f"({y.shape[axis]}) should have the same {what}.")
        if x.shape[0] != y.shape[0]:
            raise InvalidArgument(f"fsp: The Input(X)({x.shape[0]}) and Input(Y)({y.shape[0]}) "
                                  f"should have the same batch size.")
        n, c1, h, w = x.shape
        hw = h * w
        out = xp.matmul(x.reshape(n, c1, hw), xp.swapaxes(y.reshape(n, y.shape[1], hw), 1, 2))
        # Paddle's blas MatMul with alpha = 1 / (h * w) in T
        ctx.set_output("Out", xp.ascontiguousarray(out * x.dtype.type(1.0 / hw)))


DATA_DTYPES = ("bfloat16", "bool", "complex128", "complex64", "float16", "float32", "float64",
               "int16", "int32", "int64", "int8", "uint8")


@register_fluid_kernel("data", "CPU", DATA_DTYPES)
class DataKernel(FluidKernel):
    """`data` is an op of Paddle's new IR (pd_op.data, fed by the executor): in a legacy program
    Paddle 2.6.2 cannot run it (DataOp's GetExpectedKernelType crashes the process on the INT
    `place` attribute of its OpProto).  Here it raises a typed error instead."""

    def compute(self, ctx) -> None:
        raise Unimplemented("data: the `data` op of Paddle's new IR cannot run in a legacy "
                            "program (Paddle 2.6.2 crashes on it); feed the variable instead.")
