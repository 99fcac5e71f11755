"""Grad kernels of the complex-number and fft ops (Paddle's real_grad, imag_grad, complex_grad,
fft_*_grad, eig_grad), computed with numpy.

Paddle's complex gradients are the conjugate-linear ones: the gradient of a linear map L is
L^H applied to the output gradient.  For the fft ops that is the transform of the other sign
with the forward op's scaling (Paddle calls its fft functor with ``!forward`` and the forward
op's norm type); numpy names a scaling by its (forward, inverse) pair, so the other sign with
the same scaling is numpy's other function with the swapped ``norm``.
"""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.infermeta.funcs import fft_axes
from phi.kernels.grad_elementwise import reduce_to
from phi.kernels.spectral import _CPLX, _SWAP, COMPLEX, REAL

__all__ = ["complex_grad", "eig_grad", "fft_c2c_grad", "fft_c2r_grad", "fft_r2c_grad",
           "imag_grad", "real_grad"]


#: the output gradient is the real (or complex) counterpart of the kernel's dtype
_ANY_OUT_GRAD = {"out_grad": {"dtype": DataType.ALL_DTYPE}}


@register_kernel("real_grad", ("CPU", "GPU"), dtypes=COMPLEX, input_defs=_ANY_OUT_GRAD)
def real_grad(ctx, out_grad: Tensor) -> Tensor:
    """dx = dout + 0i."""
    return out_grad.astype(_CPLX[out_grad.dtype])


@register_kernel("imag_grad", ("CPU", "GPU"), dtypes=COMPLEX, input_defs=_ANY_OUT_GRAD)
def imag_grad(ctx, out_grad: Tensor) -> Tensor:
    """dx = 0 + dout i."""
    return (1j * out_grad).astype(_CPLX[out_grad.dtype])


@register_kernel("complex_grad", ("CPU", "GPU"), dtypes=REAL, input_defs=_ANY_OUT_GRAD)
def complex_grad(ctx, x: Tensor, y: Tensor, out_grad: Tensor) -> tuple[Tensor, Tensor]:
    """dx = Re(dout), dy = Im(dout), each summed back over the broadcast axes."""
    xp = ctx.xp
    dx = reduce_to(xp, xp.real(out_grad), x.shape).astype(x.dtype)
    dy = reduce_to(xp, xp.imag(out_grad), y.shape).astype(y.dtype)
    return xp.asarray(dx), xp.asarray(dy)  # (ascontiguousarray makes a 0-d array 1-d)


def _other_sign(xp, forward: bool):
    return xp.fft.ifftn if forward else xp.fft.fftn


@register_kernel("fft_c2c_grad", ("CPU", "GPU"), dtypes=COMPLEX)
def fft_c2c_grad(ctx, out_grad: Tensor, axes: list[int], normalization: str,
                 forward: bool) -> Tensor:
    """The transform of the other sign with the forward op's scaling."""
    ax = fft_axes(axes, out_grad.ndim, normalization, "fft_c2c_grad")
    fn = _other_sign(ctx.xp, forward)
    return fn(out_grad, axes=ax, norm=_SWAP[normalization]).astype(out_grad.dtype)


@register_kernel("fft_r2c_grad", ("CPU", "GPU"), dtypes=COMPLEX,
                 input_defs={"x": {"dtype": DataType.ALL_DTYPE}})
def fft_r2c_grad(ctx, x: Tensor, out_grad: Tensor, axes: list[int], normalization: str,
                 forward: bool, onesided: bool) -> Tensor:
    """A onesided dout is zero-padded to x's length, transformed back (other sign, same
    scaling); dx is the real part."""
    xp = ctx.xp
    ax = fft_axes(axes, x.ndim, normalization, "fft_r2c_grad")
    dy = out_grad
    if onesided:
        pad = [(0, 0)] * dy.ndim
        pad[ax[-1]] = (0, x.shape[ax[-1]] - dy.shape[ax[-1]])
        dy = xp.pad(dy, pad)
    full = _other_sign(xp, forward)(dy, axes=ax, norm=_SWAP[normalization])
    return xp.ascontiguousarray(xp.real(full)).astype(x.dtype)


@register_kernel("fft_c2r_grad", ("CPU", "GPU"), dtypes=REAL)
def fft_c2r_grad(ctx, out_grad: Tensor, axes: list[int], normalization: str, forward: bool,
                 last_dim_size: int) -> Tensor:
    """The onesided transform of dout (other sign, same scaling), with the entries that
    stand for two conjugate frequencies (1 .. n - n_half) doubled."""
    xp = ctx.xp
    ax = fft_axes(axes, out_grad.ndim, normalization, "fft_c2r_grad")
    n = out_grad.shape[ax[-1]]
    full = _other_sign(xp, forward)(out_grad, axes=ax, norm=_SWAP[normalization])
    half = n // 2 + 1
    index = [slice(None)] * out_grad.ndim
    index[ax[-1]] = slice(0, half)
    dx = xp.array(full[tuple(index)])
    index[ax[-1]] = slice(1, n - half + 1)
    dx[tuple(index)] *= 2
    return dx.astype(_CPLX[out_grad.dtype])


@register_kernel("eig_grad", ("CPU",), dtypes=["float32", "float64", *COMPLEX])
def eig_grad(ctx, eigenvalues: Tensor, eigenvectors: Tensor, eigenvalues_grad: Tensor,
             eigenvectors_grad: Tensor) -> Tensor:
    """dA = V^-H (diag(dL) + (V^H dV - V^H V Re(diag(V^H dV))) / conj(L_j - L_i)) V^H
    (the off-diagonal quotient; Paddle's EigGradKernel), batched over leading axes.

    Paddle 2.6.2 quirk, kept (case eig_batch_c128__grad): in a batch, the diag(dL) term of
    every matrix is built from the FIRST matrix's eigenvalue gradient."""
    xp = ctx.xp
    w, v = eigenvalues, eigenvectors
    gw = eigenvalues_grad if eigenvalues_grad is not None else xp.zeros_like(w)
    gv = eigenvectors_grad if eigenvectors_grad is not None else xp.zeros_like(v)
    vh = xp.conj(xp.swapaxes(v, -1, -2))
    vh_gv = vh @ gv
    diag_re = xp.real(xp.diagonal(vh_gv, axis1=-2, axis2=-1))
    tmp = vh_gv - (vh @ v) * diag_re[..., None, :]
    diff = xp.conj(w[..., None, :] - w[..., :, None])
    n = w.shape[-1]
    eye = xp.eye(n, dtype=bool)
    with _quiet(xp):
        quot = xp.where(eye, 0, tmp / xp.where(eye, 1, diff))
    first = gw.reshape(-1, n)[0] if gw.ndim > 1 and gw.size else gw
    inner = quot + xp.eye(n, dtype=v.dtype) * first[..., None, :]
    out = xp.linalg.solve(vh, inner @ vh)
    return xp.ascontiguousarray(out).astype(v.dtype)


def _quiet(xp):
    return xp.errstate(divide="ignore", invalid="ignore")

