"""Kernels of sparse tensors (Paddle's phi/kernels/sparse/): SparseCooTensor / SparseCsrTensor
arguments (phi.core.sparse_tensor), names as Paddle's (``relu_coo``, ``add_csr_csr``,
``conv3d_coo``, ``coo_to_dense`` ...), CPU dtypes as Paddle 2.6.2 registers them.

Each module is one entry of phi.kernels.MODULES (``sparse.unary`` ...), imported on the first
lookup of a kernel it registers; importing this package imports none of them.
"""
