"""Grad kernels of the element-wise binary ops (Paddle's cpu/elementwise_grad_kernel.cc,
funcs/elementwise_grad_base.h, elementwise_functor.h; atan2, lerp, where, clip grad kernels).

Each gradient is computed on the broadcast output shape and then summed back to its input's
shape (Paddle's ElemwiseGradCompute); the legacy ``axis`` aligns the lower-rank operand as the
forward ``_raw`` kernels do.
"""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import COMPLEX, INTEGERS, as_array, float_to_int, quiet, scalar_as, \
    to_half, trunc_divide

__all__ = ["reduce_to", "sum_to_shape"]


def reduce_to(xp, g, shape, axis: int = -1):
    """``g`` (the broadcast output's gradient) summed back to ``shape``: the lower-rank operand
    sits at ``axis`` (-1: trailing, numpy's rule) and every dim it broadcast along is summed."""
    shape = tuple(int(d) for d in shape)
    if g is None or tuple(g.shape) == shape:
        return g
    n = len(shape)
    if n < g.ndim:
        lead = g.ndim - n if axis == -1 else axis
        aligned = (1,) * lead + shape + (1,) * (g.ndim - n - lead)
    else:
        aligned = shape
    dims = tuple(i for i, (a, b) in enumerate(zip(aligned, g.shape, strict=True))
                 if a == 1 and b != 1)
    with quiet(xp):
        r = xp.sum(g, axis=dims, keepdims=True, dtype=g.dtype) if dims else g
    return xp.reshape(r, shape)


def sum_to_shape(ctx, g, like, axis: int = -1):
    """``reduce_to`` in ``like``'s dtype (half types summed in float32, truncated back)."""
    if g is None:
        return None
    dtype = ctx.data_type(like)
    if dtype in (DataType.FLOAT16, DataType.BFLOAT16):
        return to_half(ctx, reduce_to(ctx.xp, ctx.astype(g, DataType.FLOAT32), like.shape, axis),
                       dtype)
    return as_array(ctx.xp, reduce_to(ctx.xp, g, like.shape, axis))


def _align(xp, x, y, axis: int):
    """x and y as the forward kernels align them (legacy axis), for element-wise formulas."""
    if axis == -1 or x.ndim == y.ndim:
        return x, y
    if x.ndim > y.ndim:
        return x, xp.reshape(y, (1,) * axis + tuple(y.shape) + (1,) * (x.ndim - y.ndim - axis))
    return xp.reshape(x, (1,) * axis + tuple(x.shape) + (1,) * (y.ndim - x.ndim - axis)), y


def _full(xp, g, shape):
    return xp.broadcast_to(g, shape)


# -- the formulas: (xp, x, y, out, dout, dtype) -> (dx, dy) on the broadcast shape -------------

def _add(xp, x, y, out, dout, dtype):
    return dout, dout


def _sub(xp, x, y, out, dout, dtype):
    return dout, -dout


def _mul(xp, x, y, out, dout, dtype):
    # MulGradDX/DY: dout * conj(other); on bool the product is a logical and
    if dtype is DataType.BOOL:
        return dout & y, dout & x
    if dtype in COMPLEX:
        return dout * xp.conj(y), dout * xp.conj(x)
    return dout * y, dout * x


def _div(xp, x, y, out, dout, dtype):
    # DivGradDX: dout / y; DivGradDY: -dout * out / y (conjugates for complex)
    if dtype is DataType.BOOL:
        return dout & y, dout & y
    if dtype in INTEGERS:
        return trunc_divide(xp, dout, y), trunc_divide(xp, -dout * out, y)
    if dtype in COMPLEX:
        return dout / xp.conj(y), -dout * xp.conj(out / y)
    return dout / y, -dout * out / y


def _mask(dout, cond):
    # dout * static_cast<T>(cond): NaN/Inf in dout survive only where cond holds (0 * NaN = NaN)
    return dout * cond.astype(dout.dtype)


def _max(xp, x, y, out, dout, dtype):
    return _mask(dout, x > y), _mask(dout, x <= y)


def _min(xp, x, y, out, dout, dtype):
    return _mask(dout, x < y), _mask(dout, x >= y)


def _fmax(xp, x, y, out, dout, dtype):
    take_x = (x >= y) | xp.isnan(y) if dtype not in INTEGERS else x >= y
    return _mask(dout, take_x), _mask(dout, ~take_x)


def _fmin(xp, x, y, out, dout, dtype):
    take_x = (x <= y) | xp.isnan(y) if dtype not in INTEGERS else x <= y
    return _mask(dout, take_x), _mask(dout, ~take_x)


def _heaviside(xp, x, y, out, dout, dtype):
    return dout * dout.dtype.type(0), _mask(dout, x == 0)


def _pow(xp, x, y, out, dout, dtype):
    # PowGradDX: dout * y * pow(x, y - 1); PowGradDY: dout * log(x) * pow(x, y); integers go
    # through std::pow's double and truncate back
    if dtype in INTEGERS:
        f64 = xp.float64
        xd, yd, dd = x.astype(f64), y.astype(f64), dout.astype(f64)
        dx = dd * yd * xp.power(xd, (y - 1).astype(f64))
        dy = dd * xp.log(xd) * xp.power(xd, yd)
        return dx, dy
    return dout * y * xp.power(x, y - 1), dout * xp.log(x) * xp.power(x, y)


def _compute(ctx, fn, x, y, out, dout, axis):
    xp = ctx.xp
    dtype = ctx.data_type(dout)
    a, b = _align(xp, x, y, axis)
    half = dtype in (DataType.FLOAT16, DataType.BFLOAT16)
    if half:
        a, b, dout = (ctx.astype(v, DataType.FLOAT32) for v in (a, b, dout))
        out = None if out is None else ctx.astype(out, DataType.FLOAT32)
    elif out is not None and axis != -1:
        out = xp.reshape(out, dout.shape)
    shape = tuple(dout.shape)
    with quiet(xp):
        dx, dy = fn(xp, a, b, out, dout, dtype)
        dx, dy = _full(xp, dx, shape), _full(xp, dy, shape)
        if dtype in INTEGERS and dx.dtype != dout.dtype:
            dx, dy = float_to_int(ctx, dx, dtype), float_to_int(ctx, dy, dtype)
    if half:
        gx = to_half(ctx, reduce_to(xp, dx, x.shape, axis), dtype)
        gy = to_half(ctx, reduce_to(xp, dy, y.shape, axis), dtype)
        return gx, gy
    return (as_array(xp, reduce_to(xp, dx, x.shape, axis)),
            as_array(xp, reduce_to(xp, dy, y.shape, axis)))


_ADD = ["float32", "float64", "int16", "int32", "int64", "complex64", "complex128"]
_MIN_MAX = ["float32", "float64", "int32", "int64", "bfloat16"]
_F_I = ["float32", "float64", "int32", "int64"]
# Paddle 2.6.2 CPU registrations of the grad kernels (corpus phi_kernels.json)
_WITH_AXIS = {
    "add_grad": (_add, _ADD),
    "subtract_grad": (_sub, [*_ADD, "bfloat16"]),
    "multiply_grad": (_mul, ["float32", "float64", "int32", "int64", "bool", "complex64",
                             "complex128", "bfloat16"]),
}
_NO_AXIS = {
    "maximum_grad": (_max, _MIN_MAX),
    "minimum_grad": (_min, _MIN_MAX),
    "elementwise_pow_grad": (_pow, _MIN_MAX),
    "fmax_grad": (_fmax, _F_I),
    "fmin_grad": (_fmin, _F_I),
    "heaviside_grad": (_heaviside, _F_I),
}


def _register_with_axis(name, fn, dtypes):
    def kernel(ctx, x: Tensor, y: Tensor, out_grad: Tensor, axis: int) -> tuple[Tensor, Tensor]:
        return _compute(ctx, fn, x, y, None, out_grad, axis)

    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = f"Gradients of {name[:-5]} summed back to x's and y's shapes."
    register_kernel(name, ("CPU", "GPU"), dtypes=dtypes)(kernel)


def _register_no_axis(name, fn, dtypes):
    def kernel(ctx, x: Tensor, y: Tensor, out_grad: Tensor) -> tuple[Tensor, Tensor]:
        return _compute(ctx, fn, x, y, None, out_grad, -1)

    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = f"Gradients of {name[:-5]} summed back to x's and y's shapes."
    register_kernel(name, ("CPU", "GPU"), dtypes=dtypes)(kernel)


for _name, (_fn, _dtypes) in _WITH_AXIS.items():
    _register_with_axis(_name, _fn, _dtypes)
for _name, (_fn, _dtypes) in _NO_AXIS.items():
    _register_no_axis(_name, _fn, _dtypes)


@register_kernel("divide_grad", ("CPU", "GPU"), dtypes=["float32", "float64", "int8", "uint8",
                                                        "int16", "int32", "int64", "bool",
                                                        "complex64", "complex128"])
def divide_grad(ctx, x: Tensor, y: Tensor, out: Tensor, out_grad: Tensor,
                axis: int) -> tuple[Tensor, Tensor]:
    """dx = dout / y, dy = -dout * out / y, summed back to x's and y's shapes."""
    return _compute(ctx, _div, x, y, out, out_grad, axis)


@register_kernel("atan2_grad", ("CPU", "GPU"), dtypes=["float32", "float64", "float16"])
def atan2_grad(ctx, x: Tensor, y: Tensor, out_grad: Tensor) -> tuple[Tensor, Tensor]:
    """dx = dout * y / (x^2 + y^2), dy = -dout * x / (x^2 + y^2)."""
    def fn(xp, a, b, out, dout, dtype):
        den = a * a + b * b
        return dout * b / den, -dout * a / den

    return _compute(ctx, fn, x, y, None, out_grad, -1)


@register_kernel("lerp_grad", ("CPU", "GPU"), dtypes=["float32", "float64"])
def lerp_grad(ctx, x: Tensor, y: Tensor, weight: Tensor, out: Tensor,
              out_grad: Tensor) -> tuple[Tensor, Tensor]:
    """dx = dout * (1 - w), dy = dout * w, each summed back to its input's shape."""
    xp = ctx.xp
    shape = tuple(out_grad.shape)
    with quiet(xp):
        w = xp.broadcast_to(weight, shape)
        one = out_grad.dtype.type(1)
        dx, dy = out_grad * (one - w), out_grad * w
    return sum_to_shape(ctx, dx, x), sum_to_shape(ctx, dy, y)


@register_kernel("where_grad", ("CPU", "GPU"), dtypes=_F_I,
                 input_defs={"condition": {"dtype": DataType.ALL_DTYPE}})
def where_grad(ctx, condition: Tensor, x: Tensor, y: Tensor,
               out_grad: Tensor) -> tuple[Tensor, Tensor]:
    """dx = cond ? dout : 0, dy = cond ? 0 : dout."""
    xp = ctx.xp
    zero = out_grad.dtype.type(0)
    cond = condition.astype(bool)
    dx = xp.where(cond, out_grad, zero)
    dy = xp.where(cond, zero, out_grad)
    return sum_to_shape(ctx, dx, x), sum_to_shape(ctx, dy, y)


@register_kernel("clip_grad", ("CPU", "GPU"), dtypes=_F_I)
def clip_grad(ctx, x: Tensor, out_grad: Tensor, min: Scalar, max: Scalar) -> Tensor:
    """dx = (min < x < max) ? dout : 0 with min, max converted to T."""
    xp = ctx.xp
    dtype = ctx.data_type(x)
    lo = scalar_as(ctx, min.value if isinstance(min, Scalar) else min, dtype)
    hi = scalar_as(ctx, max.value if isinstance(max, Scalar) else max, dtype)
    return as_array(xp, xp.where((x > lo) & (x < hi), out_grad, out_grad.dtype.type(0)))
