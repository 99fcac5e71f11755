"""Products with sparse tensors (Paddle's phi/kernels/sparse/matmul_kernel.h, mv_kernel.h,
addmm_kernel.h): matmul_csr_dense, masked_matmul_csr, mv_coo / _csr, addmm_coo_dense /
_csr_dense.

Paddle 2.6.2's CPU wheel registers these kernels, but their CPU bodies only raise
Unimplemented ("Not support CPU kernel of 'sparse.matmul' now.", cpu/matmul_kernel.cc,
mv_kernel.cc, addmm_kernel.cc; the fixtures in tests/fixtures/sparse record it): the products
run on GPUs with cuSPARSE.  The kernels here are registered for the same dtypes and raise the
same way, so that a program fails here where it fails in Paddle.  matmul_coo_dense,
matmul_csr_csr, matmul_coo_coo, addmm_csr_csr and addmm_coo_coo are not registered on CPU at all
(argmap.irregular.sparse.GPU_ONLY_KERNELS).
"""

from __future__ import annotations

from phi.core.errors import Unimplemented
from phi.core.kernel import Tensor
from phi.kernels.sparse.funcs import COO, CSR, Sparse, register_sparse

__all__ = ["addmm_coo_dense", "addmm_csr_dense", "masked_matmul_csr", "matmul_csr_dense",
           "mv_coo", "mv_csr"]

DTYPES = ["float32", "float64"]


def _no_cpu(what: str):
    raise Unimplemented(f"Not support CPU kernel of 'sparse.{what}' now (Paddle 2.6.2 runs it "
                        "on GPUs only, with cuSPARSE).")


@register_sparse("matmul_csr_dense", DTYPES, {"x": CSR})
def matmul_csr_dense(ctx, x: Sparse, y: Tensor) -> Tensor:
    """x @ y (CSR by dense): no CPU implementation in Paddle 2.6.2."""
    _no_cpu("matmul")


@register_sparse("masked_matmul_csr", DTYPES, {"mask": CSR})
def masked_matmul_csr(ctx, x: Tensor, y: Tensor, mask: Sparse) -> Sparse:
    """(x @ y) at mask's non-zeros: no CPU implementation in Paddle 2.6.2."""
    _no_cpu("masked_matmul")


@register_sparse("mv_coo", DTYPES, {"x": COO})
def mv_coo(ctx, x: Sparse, vec: Tensor) -> Tensor:
    """x @ vec (COO): no CPU implementation in Paddle 2.6.2."""
    _no_cpu("mv")


@register_sparse("mv_csr", DTYPES, {"x": CSR})
def mv_csr(ctx, x: Sparse, vec: Tensor) -> Tensor:
    """x @ vec (CSR): no CPU implementation in Paddle 2.6.2."""
    _no_cpu("mv")


@register_sparse("addmm_coo_dense", DTYPES, {"x": COO})
def addmm_coo_dense(ctx, input: Tensor, x: Sparse, y: Tensor, beta: float, alpha: float
                    ) -> Tensor:
    """beta * input + alpha * (x @ y), x COO: no CPU implementation in Paddle 2.6.2."""
    _no_cpu("addmm")


@register_sparse("addmm_csr_dense", DTYPES, {"x": CSR})
def addmm_csr_dense(ctx, input: Tensor, x: Sparse, y: Tensor, beta: float, alpha: float
                    ) -> Tensor:
    """beta * input + alpha * (x @ y), x CSR: no CPU implementation in Paddle 2.6.2."""
    _no_cpu("addmm")


# -- grads: no CPU implementation either (Paddle's CPU grad kernels raise the same way) ----

@register_sparse("matmul_csr_dense_grad", DTYPES, {"x": CSR})
def matmul_csr_dense_grad(ctx, x: Sparse, y: Tensor, out_grad: Tensor) -> tuple[Sparse, Tensor]:
    """(x_grad, y_grad) of matmul_csr_dense: no CPU implementation in Paddle 2.6.2."""
    _no_cpu("matmul")


@register_sparse("masked_matmul_csr_grad", DTYPES, {"out_grad": CSR})
def masked_matmul_csr_grad(ctx, x: Tensor, y: Tensor, out_grad: Sparse
                           ) -> tuple[Tensor, Tensor]:
    """(x_grad, y_grad) of masked_matmul_csr: no CPU implementation in Paddle 2.6.2."""
    _no_cpu("masked_matmul")


@register_sparse("mv_coo_grad", DTYPES, {"x": COO})
def mv_coo_grad(ctx, x: Sparse, vec: Tensor, out_grad: Tensor) -> tuple[Sparse, Tensor]:
    """(x_grad, vec_grad) of mv_coo: no CPU implementation in Paddle 2.6.2."""
    _no_cpu("mv")


@register_sparse("mv_csr_grad", DTYPES, {"x": CSR})
def mv_csr_grad(ctx, x: Sparse, vec: Tensor, out_grad: Tensor) -> tuple[Sparse, Tensor]:
    """(x_grad, vec_grad) of mv_csr: no CPU implementation in Paddle 2.6.2."""
    _no_cpu("mv")


@register_sparse("addmm_coo_dense_grad", DTYPES, {"x": COO})
def addmm_coo_dense_grad(ctx, input: Tensor, x: Sparse, y: Tensor, out_grad: Tensor,
                         alpha: float, beta: float) -> tuple[Tensor, Sparse, Tensor]:
    """(input_grad, x_grad, y_grad) of addmm_coo_dense: no CPU implementation in Paddle."""
    _no_cpu("addmm")


@register_sparse("addmm_csr_dense_grad", DTYPES, {"x": CSR})
def addmm_csr_dense_grad(ctx, input: Tensor, x: Sparse, y: Tensor, out_grad: Tensor,
                         alpha: float, beta: float) -> tuple[Tensor, Sparse, Tensor]:
    """(input_grad, x_grad, y_grad) of addmm_csr_dense: no CPU implementation in Paddle."""
    _no_cpu("addmm")
