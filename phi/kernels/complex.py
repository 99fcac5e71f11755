"""The ``as_complex``, ``as_real``, ``complex``, ``complex_grad``, ``conj``, ``imag``,
``imag_grad``, ``real`` and ``real_grad`` kernels."""

from __future__ import annotations



from phi.common.data_type import DataType
from phi.core.errors import PreconditionNotMet
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, owned
from phi.kernels.funcs.activation import SAME_DTYPE_OUT
from phi.kernels.funcs.elementwise import reduce_to
from phi.kernels.funcs.fft import FFT_COMPLEX

__all__ = ["as_complex", "as_real", "complex", "complex_grad", "conj", "imag", "imag_grad", "real",
           "real_grad"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
COMPLEX_DTYPES = ["complex64", "complex128"]
REAL = ["float32", "float64"]


# Paddle 2.6.2 CPU registrations (corpus cpu_ops.json)
F = ["float32", "float64"]


INTS = ["int32", "int64"]


_COMPLEX_OF = {DataType.FLOAT32: DataType.COMPLEX64, DataType.FLOAT64: DataType.COMPLEX128}


@register_kernel("conj", ("CPU", "GPU"), dtypes=["complex64", "complex128"])
def conj(ctx, x: Tensor) -> Tensor:
    """The complex conjugate."""
    return as_array(ctx.xp, ctx.xp.conj(x))


def _conj_real(ctx, x: Tensor) -> Tensor:
    """x itself (conj of a real tensor)."""
    return owned(ctx.xp, x)


register_kernel("conj", ("CPU", "GPU"), dtypes=F + INTS)(_conj_real)


def _part(ctx, x, imag_part: bool):
    xp = ctx.xp
    return owned(xp, xp.imag(x) if imag_part else xp.real(x))


@register_kernel("real", ("CPU", "GPU"), dtypes=["complex64"],
                 output_defs=SAME_DTYPE_OUT[DataType.FLOAT32])
def real_c64(ctx, x: Tensor) -> Tensor:
    """The real part of a complex64 tensor (float32)."""
    return _part(ctx, x, False)


@register_kernel("real", ("CPU", "GPU"), dtypes=["complex128"],
                 output_defs=SAME_DTYPE_OUT[DataType.FLOAT64])
def real(ctx, x: Tensor) -> Tensor:
    """The real part of a complex128 tensor (float64)."""
    return _part(ctx, x, False)


@register_kernel("imag", ("CPU", "GPU"), dtypes=["complex64"],
                 output_defs=SAME_DTYPE_OUT[DataType.FLOAT32])
def imag_c64(ctx, x: Tensor) -> Tensor:
    """The imaginary part of a complex64 tensor (float32)."""
    return _part(ctx, x, True)


@register_kernel("imag", ("CPU", "GPU"), dtypes=["complex128"],
                 output_defs=SAME_DTYPE_OUT[DataType.FLOAT64])
def imag(ctx, x: Tensor) -> Tensor:
    """The imaginary part of a complex128 tensor (float64)."""
    return _part(ctx, x, True)


def _assemble(ctx, re, im):
    """complex(re, im) built part by part (re + 1j * im would turn inf / -0.0 parts into
    NaN or +0.0)."""
    xp = ctx.xp
    out = xp.empty(re.shape, dtype=ctx.xp_dtype(_COMPLEX_OF[ctx.data_type(re)]))
    out.real[...] = re
    out.imag[...] = im
    return out


@register_kernel("as_complex", ("CPU", "GPU"), dtypes=["float32"],
                 output_defs=SAME_DTYPE_OUT[DataType.COMPLEX64])
def as_complex_f32(ctx, x: Tensor) -> Tensor:
    """[..., 2] float32 pairs (re, im) -> complex64 [...]."""
    return as_complex(ctx, x)


@register_kernel("as_complex", ("CPU", "GPU"), dtypes=["float64"],
                 output_defs=SAME_DTYPE_OUT[DataType.COMPLEX128])
def as_complex(ctx, x: Tensor) -> Tensor:
    """[..., 2] float64 pairs (re, im) -> complex128 [...]."""
    return _assemble(ctx, x[..., 0], x[..., 1])


@register_kernel("as_real", ("CPU", "GPU"), dtypes=["complex64"],
                 output_defs=SAME_DTYPE_OUT[DataType.FLOAT32])
def as_real_c64(ctx, x: Tensor) -> Tensor:
    """complex64 [...] -> float32 [..., 2] pairs (re, im)."""
    return as_real(ctx, x)


@register_kernel("as_real", ("CPU", "GPU"), dtypes=["complex128"],
                 output_defs=SAME_DTYPE_OUT[DataType.FLOAT64])
def as_real(ctx, x: Tensor) -> Tensor:
    """complex128 [...] -> float64 [..., 2] pairs (re, im)."""
    xp = ctx.xp
    return as_array(xp, xp.stack([xp.real(x), xp.imag(x)], axis=-1))


@register_kernel("complex", ("CPU", "GPU"), dtypes=["float32"],
                 output_defs=SAME_DTYPE_OUT[DataType.COMPLEX64])
def complex_f32(ctx, x: Tensor, y: Tensor) -> Tensor:
    """x + i y of float32 tensors (broadcast), complex64."""
    return complex(ctx, x, y)


@register_kernel("complex", ("CPU", "GPU"), dtypes=["float64"],
                 output_defs=SAME_DTYPE_OUT[DataType.COMPLEX128])
def complex(ctx, x: Tensor, y: Tensor) -> Tensor:  # shadows a builtin: Paddle's kernel name
    """x + i y of float64 tensors (broadcast), complex128.  An empty result of a broadcast
    is refused as Paddle 2.6.2 refuses it (its broadcast path allocates no valid output)."""
    xp = ctx.xp
    if tuple(x.shape) != tuple(y.shape) and 0 in xp.broadcast_shapes(x.shape, y.shape):
        raise PreconditionNotMet(
            f"complex: the broadcast of Input(X) {list(x.shape)} and Input(Y) {list(y.shape)} "
            f"is empty; the meta data must be valid when call the mutable data function.")
    re, im = xp.broadcast_arrays(x, y)
    return _assemble(ctx, re, im)


#: the output gradient is the real (or complex) counterpart of the kernel's dtype
_ANY_OUT_GRAD = {"out_grad": {"dtype": DataType.ALL_DTYPE}}


@register_kernel("real_grad", ("CPU", "GPU"), dtypes=COMPLEX_DTYPES, input_defs=_ANY_OUT_GRAD)
def real_grad(ctx, out_grad: Tensor) -> Tensor:
    """dx = dout + 0i."""
    return out_grad.astype(FFT_COMPLEX[out_grad.dtype])


@register_kernel("imag_grad", ("CPU", "GPU"), dtypes=COMPLEX_DTYPES, input_defs=_ANY_OUT_GRAD)
def imag_grad(ctx, out_grad: Tensor) -> Tensor:
    """dx = 0 + dout i."""
    return (1j * out_grad).astype(FFT_COMPLEX[out_grad.dtype])


@register_kernel("complex_grad", ("CPU", "GPU"), dtypes=REAL, input_defs=_ANY_OUT_GRAD)
def complex_grad(ctx, x: Tensor, y: Tensor, out_grad: Tensor) -> tuple[Tensor, Tensor]:
    """dx = Re(dout), dy = Im(dout), each summed back over the broadcast axes."""
    xp = ctx.xp
    dx = reduce_to(xp, xp.real(out_grad), x.shape).astype(x.dtype)
    dy = reduce_to(xp, xp.imag(out_grad), y.shape).astype(y.dtype)
    return xp.asarray(dx), xp.asarray(dy)  # (ascontiguousarray makes a 0-d array 1-d)
