"""Kernels of sparse tensors (Paddle's phi/kernels/sparse/): SparseCooTensor / SparseCsrTensor
arguments (phi.core.sparse_tensor), names as Paddle's (``relu_coo``, ``add_csr_csr``,
``conv3d_coo``, ``coo_to_dense`` ...), CPU dtypes as Paddle 2.6.2 registers them.

A kernel is in the module ``FAMILIES`` lists its base in (the name less a grad suffix and its
``_coo`` / ``_csr`` / ``_coo_dense`` ... suffix), else in the module named by that base;
phi.kernels' rule sends every name with a ``coo`` / ``csr`` word here.  Importing this package
imports none of them; ``funcs`` holds their shared helpers.
"""

from __future__ import annotations

from phi.core.layout import Layout

__all__ = ["FAMILIES", "LAYOUT"]

FAMILIES = {
    "conv": ("conv3d",),
    "creation": ("coalesce", "coo_to_csr", "coo_to_dense", "csr_to_coo", "csr_to_dense",
                 "dense_to_coo", "dense_to_csr", "empty_like", "full_like", "indices", "mask",
                 "mask_helper", "sparse_coo_tensor", "values"),
    "elementwise": ("add", "divide", "multiply", "subtract"),
    "manipulation": ("reshape", "slice", "sum", "transpose"),
    "matmul": ("addmm", "masked_matmul", "matmul", "mv"),
    "pool": ("maxpool",),
    "unary": ("abs", "asin", "asinh", "atan", "atanh", "cast", "divide_scalar", "expm1", "isnan",
              "leaky_relu", "log1p", "pow", "relu", "relu6", "scale", "sin", "sinh", "sqrt",
              "square", "tan", "tanh"),
}
"""Family module -> the bases it holds (Paddle's sparse headers: unary, elementwise,
sparse_utils / creation, conv, pool ...)."""

LAYOUT = Layout(__name__, FAMILIES, helpers=("funcs",),
                variants=("_coo_coo", "_coo_dense", "_csr_csr", "_csr_dense", "_coo", "_csr"))
