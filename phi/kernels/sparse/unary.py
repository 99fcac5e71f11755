"""Element-wise unary kernels of sparse tensors (Paddle's phi/kernels/sparse/unary_kernel.h,
cpu/unary_kernel.cc): the function applies to the stored values, the points stay.

Names: ``<op>_coo`` / ``<op>_csr``.  Paddle 2.6.2's CPU wheel registers them for float32 and
float64 (isnan: float16, float32, float64, int32, int64; cast: bool and the integer and float
types); acos / acosh have no CPU kernel there (corpus phi_kernels.json), so none is registered.
"""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.core.sparse_tensor import SparseCooTensor, SparseCsrTensor
from phi.kernels.funcs import cast_array, quiet
from phi.kernels.sparse.funcs import COO, CSR, Sparse, register_sparse

__all__ = ["UNARY_FUNCTIONS", "cast_coo", "cast_csr", "with_values"]

FLOAT_DTYPES = ["float32", "float64"]
ISNAN_DTYPES = ["float16", "float32", "float64", "int32", "int64"]
CAST_DTYPES = ["bool", "float32", "float64", "int16", "int32", "int64", "int8", "uint8"]


def with_values(x, values, dtype: DataType | None = None):
    """``x``'s structure (COO points or CSR rows / columns) with new values."""
    if type(x) is SparseCooTensor:
        return SparseCooTensor(x.indices.copy(), values, x.dense_shape, x.coalesced, dtype,
                               x.place)
    return SparseCsrTensor(x.crows.copy(), x.cols.copy(), values, x.dense_shape, dtype, x.place)


def _typed(fn):
    """``fn`` with its result kept in the input's dtype (Eigen computes in T)."""
    def apply(v):
        with quiet(np):
            return np.asarray(fn(v)).astype(v.dtype, copy=False)
    return apply


#: op -> the function of the values (no attributes)
UNARY_FUNCTIONS = {
    "abs": _typed(np.abs),
    "asin": _typed(np.arcsin),
    "asinh": _typed(np.arcsinh),
    "atan": _typed(np.arctan),
    "atanh": _typed(np.arctanh),
    "expm1": _typed(np.expm1),
    "log1p": _typed(np.log1p),
    "relu": _typed(lambda v: np.fmax(v, v.dtype.type(0))),
    "relu6": _typed(lambda v: np.clip(v, v.dtype.type(0), v.dtype.type(6))),
    "sin": _typed(np.sin),
    "sinh": _typed(np.sinh),
    "sqrt": _typed(np.sqrt),
    "square": _typed(np.square),
    "tan": _typed(np.tan),
    "tanh": _typed(np.tanh),
}


def _register_plain(op: str, fn) -> None:
    def coo(ctx, x: Sparse) -> Sparse:
        return with_values(x, fn(x.values))

    def csr(ctx, x: Sparse) -> Sparse:
        return with_values(x, fn(x.values))

    for kind, kernel, layout in (("coo", coo, COO), ("csr", csr, CSR)):
        kernel.__name__ = kernel.__qualname__ = f"{op}_{kind}"
        kernel.__doc__ = f"{op} of the stored values of a {kind.upper()} tensor."
        register_sparse(f"{op}_{kind}", FLOAT_DTYPES, {"x": layout}, {0: layout})(kernel)
        globals()[kernel.__name__] = kernel


for _op, _fn in UNARY_FUNCTIONS.items():
    _register_plain(_op, _fn)


@register_sparse("leaky_relu_coo", FLOAT_DTYPES, {"x": COO})
def leaky_relu_coo(ctx, x: Sparse, alpha: float) -> Sparse:
    """v > 0 ? v : alpha * v on the values."""
    v = x.values
    return with_values(x, np.where(v > 0, v, v * v.dtype.type(alpha)).astype(v.dtype))


@register_sparse("leaky_relu_csr", FLOAT_DTYPES, {"x": CSR})
def leaky_relu_csr(ctx, x: Sparse, alpha: float) -> Sparse:
    """v > 0 ? v : alpha * v on the values."""
    return leaky_relu_coo(ctx, x, alpha)


def _pow(x, factor: float):
    v = x.values
    with quiet(np):
        return with_values(x, np.power(v, v.dtype.type(factor)).astype(v.dtype))


@register_sparse("pow_coo", FLOAT_DTYPES, {"x": COO})
def pow_coo(ctx, x: Sparse, factor: float) -> Sparse:
    """v ** factor on the values."""
    return _pow(x, factor)


@register_sparse("pow_csr", FLOAT_DTYPES, {"x": CSR})
def pow_csr(ctx, x: Sparse, factor: float) -> Sparse:
    """v ** factor on the values."""
    return _pow(x, factor)


def _scale(x, scale: float, bias: float, bias_after_scale: bool):
    v = x.values
    s, b = v.dtype.type(scale), v.dtype.type(bias)
    out = v * s + b if bias_after_scale else (v + b) * s
    return with_values(x, out.astype(v.dtype))


@register_sparse("scale_coo", FLOAT_DTYPES, {"x": COO})
def scale_coo(ctx, x: Sparse, scale: float, bias: float, bias_after_scale: bool) -> Sparse:
    """scale * v + bias (or (v + bias) * scale) on the stored values only."""
    return _scale(x, scale, bias, bias_after_scale)


@register_sparse("scale_csr", FLOAT_DTYPES, {"x": CSR})
def scale_csr(ctx, x: Sparse, scale: float, bias: float, bias_after_scale: bool) -> Sparse:
    """scale * v + bias (or (v + bias) * scale) on the stored values only."""
    return _scale(x, scale, bias, bias_after_scale)


def _divide_scalar(x, scalar: float):
    v = x.values
    with quiet(np):
        return with_values(x, (v / v.dtype.type(scalar)).astype(v.dtype))


@register_sparse("divide_scalar_coo", FLOAT_DTYPES, {"x": COO})
def divide_scalar_coo(ctx, x: Sparse, scalar: float) -> Sparse:
    """v / scalar on the values."""
    return _divide_scalar(x, scalar)


@register_sparse("divide_scalar_csr", FLOAT_DTYPES, {"x": CSR})
def divide_scalar_csr(ctx, x: Sparse, scalar: float) -> Sparse:
    """v / scalar on the values."""
    return _divide_scalar(x, scalar)


@register_sparse("isnan_coo", ISNAN_DTYPES, {"x": COO}, {0: {"dtype": DataType.BOOL}})
def isnan_coo(ctx, x: Sparse) -> Sparse:
    """isnan of the values (bool values, same points)."""
    return with_values(x, np.isnan(x.values), DataType.BOOL)


@register_sparse("isnan_csr", ISNAN_DTYPES, {"x": CSR}, {0: {"dtype": DataType.BOOL}})
def isnan_csr(ctx, x: Sparse) -> Sparse:
    """isnan of the values (bool values, same structure)."""
    return with_values(x, np.isnan(x.values), DataType.BOOL)


def _cast(ctx, x, index_dtype: DataType, value_dtype: DataType):
    values = x.values
    if value_dtype is not DataType.UNDEFINED and value_dtype != x.dtype:
        values = cast_array(ctx, values, value_dtype)
    dtype = None if value_dtype is DataType.UNDEFINED else value_dtype

    def cast_index(a):
        if index_dtype is DataType.UNDEFINED:
            return a
        return np.asarray(a).astype(index_dtype.to_numpy())

    if type(x) is SparseCooTensor:
        return SparseCooTensor(cast_index(x.indices).copy(), values.copy(), x.dense_shape,
                               x.coalesced, dtype or x.dtype, x.place)
    return SparseCsrTensor(cast_index(x.crows).copy(), cast_index(x.cols).copy(),
                           values.copy(), x.dense_shape, dtype or x.dtype, x.place)


@register_sparse("cast_coo", CAST_DTYPES, {"x": COO}, {0: {"dtype": DataType.ALL_DTYPE}})
def cast_coo(ctx, x: Sparse, index_dtype: DataType, value_dtype: DataType) -> Sparse:
    """indices to index_dtype, values to value_dtype (UNDEFINED: kept)."""
    return _cast(ctx, x, index_dtype, value_dtype)


@register_sparse("cast_csr", CAST_DTYPES, {"x": CSR}, {0: {"dtype": DataType.ALL_DTYPE}})
def cast_csr(ctx, x: Sparse, index_dtype: DataType, value_dtype: DataType) -> Sparse:
    """crows / cols to index_dtype, values to value_dtype (UNDEFINED: kept)."""
    return _cast(ctx, x, index_dtype, value_dtype)


# -- grads (Paddle's sparse/unary_grad_kernel.h): x_grad has x's structure, its values
# out_grad's times the derivative, from x or from out as sparse_backward.yaml passes them --

#: op -> (takes "x" or "out", derivative of the values)
UNARY_GRADS = {
    "abs": ("x", np.sign),
    "asin": ("x", lambda v: 1 / np.sqrt(1 - v * v)),
    "asinh": ("x", lambda v: 1 / np.sqrt(v * v + 1)),
    "atan": ("x", lambda v: 1 / (1 + v * v)),
    "atanh": ("x", lambda v: 1 / (1 - v * v)),
    "expm1": ("out", lambda o: o + 1),
    "log1p": ("x", lambda v: 1 / (1 + v)),
    "relu": ("out", lambda o: (o > 0).astype(o.dtype)),
    "sin": ("x", np.cos),
    "sinh": ("x", np.cosh),
    "sqrt": ("out", lambda o: 0.5 / o),
    "square": ("x", lambda v: 2 * v),
    "tan": ("x", lambda v: 1 + np.tan(v) ** 2),
    "tanh": ("out", lambda o: 1 - o * o),
}


def _grad_of(x, out_grad, derivative):
    v = np.asarray(x.values)
    with quiet(np):
        d = np.asarray(derivative(v)).astype(v.dtype, copy=False)
    return with_values(x, (np.asarray(out_grad.values) * d).astype(v.dtype, copy=False))


def _register_grad(op: str, takes: str, derivative) -> None:
    def coo(ctx, x: Sparse, out_grad: Sparse) -> Sparse:
        return _grad_of(x, out_grad, derivative)

    def csr(ctx, x: Sparse, out_grad: Sparse) -> Sparse:
        return _grad_of(x, out_grad, derivative)

    for kind, kernel, layout in (("coo", coo, COO), ("csr", csr, CSR)):
        kernel.__name__ = kernel.__qualname__ = f"{op}_{kind}_grad"
        kernel.__doc__ = (f"x_grad of {op}_{kind}: out_grad times the derivative (from "
                          f"{takes}).")
        register_sparse(f"{op}_{kind}_grad", FLOAT_DTYPES,
                        {"x": layout, "out_grad": layout})(kernel)
        globals()[kernel.__name__] = kernel


for _op, (_takes, _d) in UNARY_GRADS.items():
    _register_grad(_op, _takes, _d)


@register_sparse("leaky_relu_coo_grad", FLOAT_DTYPES, {"x": COO, "out_grad": COO})
def leaky_relu_coo_grad(ctx, x: Sparse, out_grad: Sparse, alpha: float) -> Sparse:
    """out_grad where x > 0, alpha * out_grad elsewhere."""
    return _grad_of(x, out_grad, lambda v: np.where(v > 0, 1, alpha))


@register_sparse("leaky_relu_csr_grad", FLOAT_DTYPES, {"x": CSR, "out_grad": CSR})
def leaky_relu_csr_grad(ctx, x: Sparse, out_grad: Sparse, alpha: float) -> Sparse:
    """out_grad where x > 0, alpha * out_grad elsewhere."""
    return _grad_of(x, out_grad, lambda v: np.where(v > 0, 1, alpha))


@register_sparse("pow_coo_grad", FLOAT_DTYPES, {"x": COO, "out_grad": COO})
def pow_coo_grad(ctx, x: Sparse, out_grad: Sparse, factor: float) -> Sparse:
    """out_grad * factor * x ** (factor - 1)."""
    return _grad_of(x, out_grad, lambda v: factor * np.power(v, v.dtype.type(factor - 1)))


@register_sparse("pow_csr_grad", FLOAT_DTYPES, {"x": CSR, "out_grad": CSR})
def pow_csr_grad(ctx, x: Sparse, out_grad: Sparse, factor: float) -> Sparse:
    """out_grad * factor * x ** (factor - 1)."""
    return _grad_of(x, out_grad, lambda v: factor * np.power(v, v.dtype.type(factor - 1)))


@register_sparse("relu6_coo_grad", FLOAT_DTYPES, {"out": COO, "out_grad": COO})
def relu6_coo_grad(ctx, out: Sparse, out_grad: Sparse) -> Sparse:
    """out_grad where 0 < out < 6."""
    return _grad_of(out, out_grad, lambda o: ((o > 0) & (o < 6)).astype(o.dtype))


@register_sparse("relu6_csr_grad", FLOAT_DTYPES, {"out": CSR, "out_grad": CSR})
def relu6_csr_grad(ctx, out: Sparse, out_grad: Sparse) -> Sparse:
    """out_grad where 0 < out < 6."""
    return _grad_of(out, out_grad, lambda o: ((o > 0) & (o < 6)).astype(o.dtype))


@register_sparse("cast_coo_grad", CAST_DTYPES, {"x": COO, "out_grad": COO})
def cast_coo_grad(ctx, x: Sparse, out_grad: Sparse, value_dtype: DataType) -> Sparse:
    """out_grad's values cast back to x's dtype."""
    return with_values(x, cast_array(ctx, np.asarray(out_grad.values), x.dtype), x.dtype)


@register_sparse("cast_csr_grad", CAST_DTYPES, {"x": CSR, "out_grad": CSR})
def cast_csr_grad(ctx, x: Sparse, out_grad: Sparse, value_dtype: DataType) -> Sparse:
    """out_grad's values cast back to x's dtype."""
    return with_values(x, cast_array(ctx, np.asarray(out_grad.values), x.dtype), x.dtype)
