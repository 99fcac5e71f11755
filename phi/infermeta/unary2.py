"""InferMeta of the element-wise unary family of helper `unary2` (Paddle's
paddle/phi/infermeta/{unary,binary}.cc): the complex-number views real / imag / angle,
as_complex, as_real and complex.  The element-wise math ops use UnchangedInferMeta."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.infermeta._utils import UNKNOWN, fmt_dims
from phi.infermeta.binary import broadcast_dims

__all__ = [
    "as_complex_infer_meta",
    "as_real_infer_meta",
    "complex_infer_meta",
    "real_and_imag_infer_meta",
]

_REAL = {DataType.COMPLEX64: DataType.FLOAT32, DataType.COMPLEX128: DataType.FLOAT64}
_COMPLEX = {DataType.FLOAT32: DataType.COMPLEX64, DataType.FLOAT64: DataType.COMPLEX128}


def real_and_imag_infer_meta(x, out) -> None:
    """RealAndImagInferMeta: x's dims and layout; a complex x gives its real type (a real x
    keeps its dtype: angle's real kernels); no LoD (Paddle sets dims, dtype and layout only)."""
    out.set_dims(x.dims)
    out.set_dtype(_REAL.get(x.dtype, x.dtype))
    out.set_layout(x.layout)


def as_complex_infer_meta(x, out) -> None:
    """AsComplexInferMeta: x's dims without the last, which must be 2; complex of x's type."""
    dims = tuple(x.dims)
    if not dims or dims[-1] not in (2, UNKNOWN):
        raise InvalidArgument(
            f"as_complex: the last dimension of Input(X) must be 2, but received the shape "
            f"{fmt_dims(dims)}."
        )
    out.set_dims(dims[:-1])
    out.set_dtype(_COMPLEX.get(x.dtype, x.dtype))
    out.set_layout(x.layout)


def as_real_infer_meta(x, out) -> None:
    """AsRealInferMeta: x's dims with a last dimension 2 appended; the real type of x."""
    out.set_dims((*tuple(x.dims), 2))
    out.set_dtype(_REAL.get(x.dtype, x.dtype))
    out.set_layout(x.layout)


def complex_infer_meta(x, y, out) -> None:
    """ComplexInferMeta: the broadcast dims of x and y, complex of x's type."""
    out.set_dims(broadcast_dims(x.dims, y.dims))
    out.set_dtype(_COMPLEX.get(x.dtype, x.dtype))
    out.set_layout(x.layout)
