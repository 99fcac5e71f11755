"""Sparse tensors and kernels on hand-worked values (the Paddle-made cases are in
tests/fluid_compat/test_sparse_programs.py): the tensor types, the convolution's rulebook and
output order, max pooling, softmax per CSR row, coalesce, the shape kernels, and the CPU dtypes
Paddle 2.6.2 registers."""

from __future__ import annotations

import numpy as np
import pytest

from phi.backends import get_context
from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.core.errors import InvalidArgument, Unimplemented
from phi.core.registry import kernel_factory
from phi.core.sparse_tensor import (
    is_sparse_coo,
    is_sparse_csr,
    sparse_coo_tensor,
    sparse_csr_tensor,
)
from phi.core.tensor import CPU_PLACE
from phi.kernels.sparse import conv, creation, elementwise, manipulation, matmul, pool, softmax
from phi.kernels.sparse.funcs import coo_to_csr_tensor, csr_to_coo_tensor

CTX = get_context(CPU_PLACE)


def test_coo_tensor_fields_and_dense_form():
    x = sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], np.array([[1.0, 2.0], [3.0, 4.0],
                                                            [5.0, 6.0]], "float32"), [2, 3, 2])
    assert is_sparse_coo(x) and not is_sparse_csr(x)
    assert x.dims == (2, 3, 2) and x.nnz == 3 and x.sparse_dim == 2 and x.dense_dim == 1
    assert x.dtype is DataType.FLOAT32
    dense = x.to_dense()
    assert dense[0, 2].tolist() == [1.0, 2.0] and dense[1, 0].tolist() == [3.0, 4.0]
    assert dense.sum() == 21.0


def test_coo_dense_form_keeps_the_last_of_repeated_points():
    # Paddle's coo_to_dense writes each point: of two at (0, 1) the later value stays
    x = sparse_coo_tensor([[0, 0], [1, 1]], np.array([2.0, 5.0], "float32"), [1, 2])
    assert x.to_dense().tolist() == [[0.0, 5.0]]


@pytest.mark.parametrize(("indices", "values", "shape", "match"), [
    ([0, 1], [1.0, 2.0], [2], "2-D integer"),
    ([[0, 1]], [1.0], [2], "first dimension"),
    ([[0, 2]], [1.0, 2.0], [2], "inside the shape"),
    ([[0, 1]], [1.0, 2.0], [2, 3], "sparse dims then"),
])
def test_coo_tensor_checks_its_parts(indices, values, shape, match):
    with pytest.raises(InvalidArgument, match=match):
        sparse_coo_tensor(indices, np.asarray(values, "float32"), shape)


def test_csr_tensor_2d_and_batched():
    x = sparse_csr_tensor([0, 1, 1, 3], [2, 0, 1], np.array([1, 2, 3], "float32"), [3, 3])
    assert x.to_dense().tolist() == [[0, 0, 1], [0, 0, 0], [2, 3, 0]]
    b = sparse_csr_tensor([0, 1, 2, 0, 0, 1], [1, 0, 1], np.array([4, 5, 6], "float32"),
                          [2, 2, 2])
    assert b.to_dense().tolist() == [[[0, 4], [5, 0]], [[0, 0], [0, 6]]]
    coo = csr_to_coo_tensor(b)
    assert coo.indices.tolist() == [[0, 0, 1], [0, 1, 1], [1, 0, 1]]
    back = coo_to_csr_tensor(coo)
    assert back.crows.tolist() == [0, 1, 2, 0, 0, 1] and back.cols.tolist() == [1, 0, 1]
    with pytest.raises(InvalidArgument, match="start at 0"):
        sparse_csr_tensor([1, 1], [0], np.ones(1, "float32"), [1, 2])
    with pytest.raises(InvalidArgument, match="2-D or 3-D"):
        sparse_csr_tensor([0, 0], [], np.ones(0, "float32"), [1, 1, 1, 1])


def test_dense_to_coo_and_csr_keep_row_major_non_zeros():
    a = np.array([[[0, 0], [1, 0]], [[0, 0], [0, -2]]], "float32")
    coo = creation.dense_to_coo(CTX, a, 2)
    assert coo.indices.tolist() == [[0, 1], [1, 1]]
    assert coo.values.tolist() == [[1, 0], [0, -2]] and coo.coalesced
    csr = creation.dense_to_csr(CTX, a[1])
    assert csr.crows.tolist() == [0, 0, 1] and csr.cols.tolist() == [1]


def test_coalesce_sorts_and_sums_repeated_points():
    x = sparse_coo_tensor([[2, 0, 2], [1, 3, 1]], np.array([1.0, 2.0, 3.0], "float32"), [3, 4])
    out = creation.coalesce_coo(CTX, x)
    assert out.indices.tolist() == [[0, 2], [3, 1]] and out.values.tolist() == [2.0, 4.0]
    assert out.coalesced


def test_add_merges_points_as_sorted_lists_without_coalescing():
    # Paddle's merge: x's points (unsorted, (0, 1) twice) meet y's in one pass
    x = sparse_coo_tensor([[0, 0], [1, 1]], np.array([1.0, 2.0], "float32"), [1, 3])
    y = sparse_coo_tensor([[0, 0], [0, 2]], np.array([10.0, 20.0], "float32"), [1, 3])
    out = elementwise.elementwise_coo("add", x, y)
    assert out.indices.tolist() == [[0, 0, 0, 0], [0, 1, 1, 2]]
    assert out.values.tolist() == [10.0, 1.0, 2.0, 20.0]
    sub = elementwise.elementwise_coo("subtract", x, y)
    assert sub.values.tolist() == [-10.0, 1.0, 2.0, -20.0]


def test_divide_covers_every_point():
    x = sparse_coo_tensor([[0], [0]], np.array([3.0], "float32"), [1, 2])
    y = sparse_coo_tensor([[0], [0]], np.array([2.0], "float32"), [1, 2])
    out = elementwise.elementwise_coo("divide", x, y)
    assert out.indices.tolist() == [[0, 0], [0, 1]]
    assert out.values[0] == 1.5 and np.isnan(out.values[1])  # 0 / 0


def _one_point(value=2.0, at=(1, 1, 1), grid=(3, 3, 3), channels=1):
    idx = np.array([[0], *[[a] for a in at]], "int64")
    vals = np.full((1, channels), value, "float32")
    return sparse_coo_tensor(idx, vals, [1, *grid, channels])


def test_conv3d_submanifold_keeps_the_input_points():
    x = sparse_coo_tensor([[0, 0], [0, 0], [0, 0], [0, 1]], np.array([[1.0], [2.0]], "float32"),
                          [1, 1, 1, 2, 1])
    kernel = np.arange(1, 4, dtype="float32").reshape(1, 1, 3, 1, 1)  # w-taps 1, 2, 3
    out, rulebook, counter = conv.conv3d_coo(CTX, x, kernel, [0, 0, 1], [1, 1, 1], [1, 1, 1],
                                             1, True, "")
    assert out.indices.tolist() == x.indices.tolist()
    # out(w) = sum_k in(w + k - 1) * tap_k: w=0: 1*2 + 2*3 = 8; w=1: 1*1 + 2*2 = 5
    assert out.values.ravel().tolist() == [8.0, 5.0]
    assert counter.tolist() == [1, 2, 1]
    # (kernel offset, input point, output point), offsets outermost
    assert rulebook.tolist() == [[0, 1, 1, 2], [0, 0, 1, 1], [1, 0, 1, 0]]


def test_conv3d_output_points_are_sorted_row_major():
    kernel = np.arange(1, 9, dtype="float32").reshape(2, 2, 2, 1, 1)
    out, _, counter = conv.conv3d_coo(CTX, _one_point(), kernel, [0, 0, 0], [1, 1, 1],
                                      [1, 1, 1], 1, False, "")
    assert out.dims == (1, 2, 2, 2, 1)
    # the point (1,1,1) reaches output (1 - kz, 1 - ky, 1 - kx) with tap (kz, ky, kx)
    assert out.indices[1:].T.tolist() == [[d, h, w] for d in (0, 1) for h in (0, 1)
                                          for w in (0, 1)]
    assert out.values.ravel().tolist() == [2.0 * t for t in range(8, 0, -1)]
    assert counter.tolist() == [1] * 8


def test_conv3d_checks_groups_and_kernel():
    with pytest.raises(InvalidArgument, match="groups"):
        conv.conv3d_coo(CTX, _one_point(), np.ones((1, 1, 1, 1, 1), "float32"), [0] * 3,
                        [1] * 3, [1] * 3, 2, False, "")
    with pytest.raises(InvalidArgument, match="kernel must be"):
        conv.conv3d_coo(CTX, _one_point(), np.ones((1, 1, 1, 2, 1), "float32"), [0] * 3,
                        [1] * 3, [1] * 3, 1, False, "")


def test_maxpool_takes_the_largest_present_value():
    # two points in one 2x2x2 window, both negative: the max is -1, absent points are not 0
    x = sparse_coo_tensor([[0, 0], [0, 1], [0, 1], [0, 0]], np.array([[-3.0], [-1.0]],
                                                                     "float32"), [1, 2, 2, 2, 1])
    out, _, _ = pool.maxpool_coo(CTX, x, [2, 2, 2], [0, 0, 0], [1, 1, 1], [2, 2, 2])
    assert out.dims == (1, 1, 1, 1, 1) and out.values.ravel().tolist() == [-1.0]


def test_softmax_csr_normalizes_each_rows_stored_values():
    x = sparse_csr_tensor([0, 2, 2, 3], [0, 2, 1], np.array([1.0, 2.0, 5.0], "float32"),
                          [3, 3])
    out = softmax.softmax_csr(CTX, x, -1)
    e1, e2 = np.exp(-1.0), 1.0  # exp(1 - 2), exp(0)
    np.testing.assert_allclose(out.values, [e1 / (e1 + e2), e2 / (e1 + e2), 1.0], rtol=1e-6)
    assert out.crows.tolist() == [0, 2, 2, 3]
    with pytest.raises(InvalidArgument, match="last axis"):
        softmax.softmax_csr(CTX, x, 0)


def test_shape_kernels():
    x = sparse_coo_tensor([[0, 1], [2, 0], [1, 3]], np.array([1.0, 2.0], "float32"), [2, 3, 4])
    r = manipulation.reshape_coo(CTX, x, IntArray([6, -1]))
    assert r.dims == (6, 4) and r.indices.tolist() == [[2, 3], [1, 3]]
    t = manipulation.transpose_coo(CTX, x, [2, 0, 1])
    assert t.dims == (4, 2, 3) and t.indices.tolist() == [[1, 3], [0, 1], [2, 0]]
    s = manipulation.slice_coo(CTX, x, IntArray([1]), IntArray([1]), IntArray([3]))
    assert s.dims == (2, 2, 4) and s.indices.tolist() == [[0], [1], [1]]
    total = manipulation.sum_coo(CTX, x, IntArray([]), DataType.UNDEFINED, False)
    assert total.dims == (1,) and total.values.shape == () and float(total.values) == 3.0
    part = manipulation.sum_coo(CTX, x, IntArray([0]), DataType.UNDEFINED, True)
    assert part.dims == (1, 3, 4) and part.indices.tolist() == [[0, 0], [0, 2], [3, 1]]


def test_products_have_no_cpu_implementation_as_in_paddle():
    x = coo_to_csr_tensor(sparse_coo_tensor([[0], [0]], np.array([1.0], "float32"), [2, 2]))
    with pytest.raises(Unimplemented, match="sparse.matmul"):
        matmul.matmul_csr_dense(CTX, x, np.ones((2, 2), "float32"))


#: Paddle 2.6.2's CPU registrations (corpus phi_kernels.json), a few of each family
REGISTERED = {
    "relu_coo": {"float32", "float64"},
    "isnan_csr": {"float16", "float32", "float64", "int32", "int64"},
    "add_coo_coo": {"float32", "float64", "int16", "int32", "int64"},
    "add_coo_dense": {"float32", "float64", "int32", "int64"},
    "conv3d_coo": {"float32", "float64"},
    "indices_coo": {"float16", "float32", "float64", "int16", "int32", "int64", "int8",
                    "uint8"},
    "values_coo": {"bool", "float16", "float32", "float64", "int16", "int32", "int64", "int8",
                   "uint8"},
    "coalesce_coo": {"float16", "float32", "float64", "int16", "int32", "int64", "uint8"},
    "sum_csr": {"bool", "float32", "float64", "int16", "int32", "int64"},
}


@pytest.mark.parametrize("name", sorted(REGISTERED))
def test_cpu_dtypes_are_paddles(name):
    keys = kernel_factory().kernels_of(name)
    assert {str(k.dtype) for k in keys} == REGISTERED[name]
    assert all(str(k.backend) == "CPU" for k in keys)


@pytest.mark.parametrize("name", ["acos_coo", "acosh_csr", "matmul_coo_dense",
                                  "fused_attention_csr", "sync_batch_norm_coo"])
def test_kernels_paddle_has_only_on_gpu_are_not_registered(name):
    assert not kernel_factory().has_kernel(name)

