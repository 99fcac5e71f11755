"""The ``eigvals`` kernel."""

from __future__ import annotations


from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.linalg import eig_values_vectors

__all__ = ["eigvals"]


REAL_COMPLEX = ["float32", "float64", "complex64", "complex128"]


@register_kernel("eigvals", ("CPU", "GPU"), dtypes=REAL_COMPLEX)
def eigvals(ctx, x: Tensor) -> Tensor:
    """Complex eigenvalues (LAPACK geev order)."""
    return eig_values_vectors(ctx, x, "eigvals")[0]
