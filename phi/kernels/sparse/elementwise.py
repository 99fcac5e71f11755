"""Element-wise binary kernels of sparse tensors (Paddle's phi/kernels/sparse/
elementwise_kernel.h, cpu/elementwise_kernel.cc).

COO (x) COO: the two point lists are merged as if sorted by linear index (Paddle does not
coalesce them: repeated points stay), a point absent on one side counting as zero (multiply
stores zeros); divide works on every point of the sparse dimensions (inf / nan where y has no
point), as Paddle 2.6.2's CPU kernels do (fixtures: tests/fixtures/sparse).  CSR (x) CSR goes
through COO and back.
``add_coo_dense``: a dense y of the values' shape (or a bias over the last dimension) added to
the values.
"""

from __future__ import annotations

import numpy as np

from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.sparse_tensor import SparseCooTensor
from phi.kernels.funcs import quiet, trunc_divide
from phi.kernels.sparse.funcs import (
    COO,
    CSR,
    Sparse,
    coo_to_csr_tensor,
    csr_to_coo_tensor,
    linear_index,
    register_sparse,
    unravel,
)
from phi.kernels.sparse.unary import with_values

__all__ = ["elementwise_coo"]

DTYPES = ["float32", "float64", "int16", "int32", "int64"]
ADD_DENSE_DTYPES = ["float32", "float64", "int32", "int64"]


def _divide(x, y):
    if np.issubdtype(x.dtype, np.integer):
        return trunc_divide(np, x, y)
    return x / y


_OPS = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": _divide}


def _merge(xl, yl):
    """Paddle's merge of two point lists taken as sorted by linear index (they are not
    coalesced first): per step the smaller index goes out, equal ones meet.  Returns the
    output's linear indices and, per output point, the x and y positions (-1: absent)."""
    out, xs, ys = [], [], []
    i = j = 0
    nx, ny = len(xl), len(yl)
    while i < nx or j < ny:
        if j >= ny or (i < nx and xl[i] < yl[j]):
            out.append(xl[i]), xs.append(i), ys.append(-1)
            i += 1
        elif i >= nx or yl[j] < xl[i]:
            out.append(yl[j]), xs.append(-1), ys.append(j)
            j += 1
        else:
            out.append(xl[i]), xs.append(i), ys.append(j)
            i += 1
            j += 1
    return (np.asarray(out, dtype=np.int64), np.asarray(xs, dtype=np.int64),
            np.asarray(ys, dtype=np.int64))


def _take(values, pos):
    out = np.zeros((pos.size, *values.shape[1:]), dtype=values.dtype)
    has = pos >= 0
    out[has] = values[pos[has]]
    return out


def elementwise_coo(op: str, x: SparseCooTensor, y: SparseCooTensor) -> SparseCooTensor:
    """``op`` over the merged points of ``x`` and ``y`` (same shape and sparse_dim), a point
    absent on one side counting as zero; divide covers every point of the sparse dimensions
    (x / y of the dense forms: 0 / 0 is nan where neither has a point)."""
    if tuple(x.dense_shape) != tuple(y.dense_shape) or x.sparse_dim != y.sparse_dim:
        raise InvalidArgument(f"{op}_coo_coo: x and y must have the same shape and sparse_dim, "
                              f"got {list(x.dense_shape)} / {x.sparse_dim} and "
                              f"{list(y.dense_shape)} / {y.sparse_dim}.")
    sdims = x.dense_shape[:x.sparse_dim]
    xl = linear_index(np.asarray(x.indices), sdims)
    yl = linear_index(np.asarray(y.indices), sdims)
    if op == "divide":
        lin = np.arange(int(np.prod(sdims)), dtype=np.int64)
        xa = _dense_rows(x.values, xl, lin.size)
        ya = _dense_rows(y.values, yl, lin.size)
    else:
        lin, xs, ys = _merge(xl, yl)
        xa, ya = _take(x.values, xs), _take(y.values, ys)
    with quiet(np):
        values = np.asarray(_OPS[op](xa, ya)).astype(x.values.dtype, copy=False)
    indices = unravel(lin, sdims).astype(np.asarray(x.indices).dtype)
    return SparseCooTensor(indices, values, x.dense_shape, False, x.dtype, x.place)


def _dense_rows(values, lin, n: int):
    """One row per linear index of the sparse dims (a later point overwrites an earlier)."""
    out = np.zeros((n, *values.shape[1:]), dtype=values.dtype)
    out[lin] = values
    return out


def _register(op: str) -> None:
    def coo(ctx, x: Sparse, y: Sparse) -> Sparse:
        return elementwise_coo(op, x, y)

    def csr(ctx, x: Sparse, y: Sparse) -> Sparse:
        out = elementwise_coo(op, csr_to_coo_tensor(x), csr_to_coo_tensor(y))
        return coo_to_csr_tensor(out, f"{op}_csr_csr")

    for kind, kernel, layout in (("coo_coo", coo, COO), ("csr_csr", csr, CSR)):
        kernel.__name__ = kernel.__qualname__ = f"{op}_{kind}"
        kernel.__doc__ = f"{op} of two {layout} tensors over the union of their points."
        register_sparse(f"{op}_{kind}", DTYPES, {"x": layout, "y": layout}, {0: layout})(kernel)
        globals()[kernel.__name__] = kernel


for _op in _OPS:
    _register(_op)


@register_sparse("add_coo_dense", ADD_DENSE_DTYPES, {"x": COO})
def add_coo_dense(ctx, x: Sparse, y: Tensor) -> Sparse:
    """values + y, y broadcast against the values (a bias over the last dimension)."""
    v = x.values
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != x.dense_shape[-1]:
        raise InvalidArgument(f"add_coo_dense: y must be 1-D of the last dimension "
                              f"{x.dense_shape[-1]} of x, got {list(y.shape)}.")
    return with_values(x, (v + y).astype(v.dtype))



# -- grads (Paddle's sparse/cpu/elementwise_grad_kernel.cc): the gradients keep out_grad's
# points (Paddle copies dout into dx / dy), scaled by the other operand for multiply / divide

def _like(t, values):
    return with_values(t, np.asarray(values).astype(t.values.dtype, copy=False))


def _grad_coo(op: str, x, y, out_grad, out=None):
    g = out_grad
    if op == "add":
        return _like(g, g.values.copy()), _like(g, g.values.copy())
    if op == "subtract":
        return _like(g, g.values.copy()), _like(g, -g.values)
    if op == "multiply":
        return elementwise_coo("multiply", g, y), elementwise_coo("multiply", g, x)
    dx = elementwise_coo("divide", g, y)
    dy = elementwise_coo("divide", elementwise_coo("multiply", g, out), y)
    return dx, _like(dy, -dy.values)


def _register_grad(op: str) -> None:
    if op == "divide":
        def coo(ctx, x: Sparse, y: Sparse, out: Sparse, out_grad: Sparse
                ) -> tuple[Sparse, Sparse]:
            return _grad_coo(op, x, y, out_grad, out)

        def csr(ctx, x: Sparse, y: Sparse, out: Sparse, out_grad: Sparse
                ) -> tuple[Sparse, Sparse]:
            dx, dy = _grad_coo(op, *(csr_to_coo_tensor(t) for t in (x, y, out_grad)),
                               csr_to_coo_tensor(out))
            return coo_to_csr_tensor(dx), coo_to_csr_tensor(dy)
        layouts = ("x", "y", "out", "out_grad")
    else:
        def coo(ctx, x: Sparse, y: Sparse, out_grad: Sparse) -> tuple[Sparse, Sparse]:
            return _grad_coo(op, x, y, out_grad)

        def csr(ctx, x: Sparse, y: Sparse, out_grad: Sparse) -> tuple[Sparse, Sparse]:
            dx, dy = _grad_coo(op, *(csr_to_coo_tensor(t) for t in (x, y, out_grad)))
            return coo_to_csr_tensor(dx), coo_to_csr_tensor(dy)
        layouts = ("x", "y", "out_grad")
    for kind, kernel, layout in (("coo_coo", coo, COO), ("csr_csr", csr, CSR)):
        kernel.__name__ = kernel.__qualname__ = f"{op}_{kind}_grad"
        kernel.__doc__ = f"(x_grad, y_grad) of {op}_{kind}."
        register_sparse(f"{op}_{kind}_grad", DTYPES, dict.fromkeys(layouts, layout))(kernel)
        globals()[kernel.__name__] = kernel


for _op in _OPS:
    _register_grad(_op)


@register_sparse("add_coo_dense_grad", ADD_DENSE_DTYPES, {"x": COO, "out_grad": COO})
def add_coo_dense_grad(ctx, x: Sparse, y: Tensor, out_grad: Sparse) -> tuple[Sparse, Tensor]:
    """(out_grad as x_grad, the bias gradient: out_grad's values summed over the points)."""
    g = np.asarray(out_grad.values)
    return _like(out_grad, g.copy()), g.reshape(-1, np.asarray(y).shape[-1]).sum(axis=0)
