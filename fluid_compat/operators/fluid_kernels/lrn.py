"""The fluid kernels of lrn, lrn_grad."""

from __future__ import annotations

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument

__all__: list[str] = []


@register_fluid_kernel("lrn_grad", "CPU", ("float32",))
class LrnGradKernel(FluidKernel):
    """LRNGradFunctor: dX[c] = MidOut[c]^-beta * dOut[c] + sum over the n channels c' centred
    on c of (-2 alpha beta) * dOut[c'] * Out[c'] * X[c] / MidOut[c']."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        nhwc = ctx.attr("data_format") == "NHWC"
        arrays = [ctx.input_array(s) for s in ("X", "Out", "MidOut", "Out@GRAD")]
        if nhwc:
            arrays = [xp.transpose(a, (0, 3, 1, 2)) for a in arrays]
        x, out, mid, dout = arrays
        t = x.dtype.type
        n = ctx.attr("n")
        ratio = t(-2) * t(ctx.attr("alpha")) * t(ctx.attr("beta"))
        channels = x.shape[1]
        with xp.errstate(all="ignore"):
            dx = xp.power(mid, -t(ctx.attr("beta"))) * dout
            term = dout * out / mid  # [N, C, H, W], summed over each channel's window
            start = -(n - 1) // 2
            for c in range(channels):
                lo, hi = max(0, c + start), min(channels, c + start + n)
                dx[:, c] += ratio * xp.sum(term[:, lo:hi], axis=1) * x[:, c]
        if nhwc:
            dx = xp.transpose(dx, (0, 2, 3, 1))
        ctx.set_output("X@GRAD", xp.ascontiguousarray(dx))


@register_fluid_kernel("lrn", "CPU", ("float32",))
class LrnKernel(FluidKernel):
    """Local response normalisation across channels (LRNFunctor<CPU>): MidOut = k + alpha *
    (sum of x**2 over the n channels centred on c), Out = x * MidOut**-beta (alpha is not
    divided by n).  MidOut is built as Paddle builds it, a running sum over the channels in
    x's dtype: channel 0 adds its n squares one by one, channel c adds square c + n - 1 and
    subtracts square c - 1 of the previous one."""

    dtype_tied_inputs = ("X",)

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x = ctx.input_array("X")
        n = ctx.attr("n")
        k, alpha, beta = (x.dtype.type(ctx.attr(a)) for a in ("k", "alpha", "beta"))
        if x.ndim != 4:
            raise InvalidArgument(f"lrn: Input(X)'s dimension must be 4, but received shape "
                                  f"{list(x.shape)}.")
        if n <= 0 or n % 2 != 1:
            raise InvalidArgument(f"Argument(n) should be a positive odd value, but received "
                                  f"n({n}).")
        for name, value in (("k", k), ("alpha", alpha), ("beta", beta)):
            if not value >= 0:
                raise InvalidArgument(f"lrn: Argument({name}) should be non-negative, but "
                                      f"received {name}({value}).")
        nhwc = ctx.attr("data_format") == "NHWC"
        xc = xp.transpose(x, (0, 3, 1, 2)) if nhwc else x
        channels = xc.shape[1]
        pre = (n - 1) // 2
        squared = xp.zeros((xc.shape[0], channels + n - 1, *xc.shape[2:]), dtype=x.dtype)
        squared[:, pre:pre + channels] = xc * xc
        mid = xp.empty_like(xc)
        acc = xp.full((xc.shape[0], *xc.shape[2:]), k, dtype=x.dtype)
        for c in range(n):
            acc = acc + alpha * squared[:, c]
        if channels:
            mid[:, 0] = acc
        for c in range(1, channels):
            acc = acc + alpha * squared[:, c + n - 1]
            acc = acc + (-alpha) * squared[:, c - 1]
            mid[:, c] = acc
        with xp.errstate(all="ignore"):
            out = xp.power(mid, -beta) * xc
        if nhwc:
            out, mid = xp.transpose(out, (0, 2, 3, 1)), xp.transpose(mid, (0, 2, 3, 1))
        ctx.set_output("Out", xp.ascontiguousarray(out))
        ctx.set_output("MidOut", xp.ascontiguousarray(mid))

