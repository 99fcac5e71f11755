"""Sparse programs (SPARSE_COO / SPARSE_CSR variables): Paddle-made cases of every sparse
legacy op (tools/fixtures/gen_sparse_cases.py, tests/fixtures/sparse/) give Paddle's values and
kernel choices here, or fail where Paddle fails; the Paddle-saved sparse convolution model
(SubmConv3D + BatchNorm + ReLU + Conv3D) gives Paddle's output; feeds and fetches of sparse
tensors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fluid_compat import Executor, Program
from fluid_compat.executor import FeedError
from fluid_compat.framework.enums import VarType
from fluid_compat.framework.scope import Scope
from fluid_compat.io import load_inference_model
from fluid_compat.operators.context import RuntimeArgumentMappingContext
from phi.core.errors import PhiError, Unavailable
from phi.core.sparse_tensor import (
    SparseCooTensor,
    SparseCsrTensor,
    sparse_coo_tensor,
)
from phi.kernels.sparse.funcs import coo_to_csr_tensor

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "sparse"
META = json.loads((FIXTURES / "cases.json").read_text())["cases"]
DATA = np.load(FIXTURES / "cases.npz")
STATIC = sorted(n for n, m in META.items() if m["made_by"] == "static" and "error_at" not in m)
DYGRAPH = sorted(n for n, m in META.items() if m["made_by"] == "dygraph")
#: cases Paddle refused while building the program (compile-time InferShape): no program kept
REFUSED = sorted(n for n, m in META.items() if "error_at" in m)


def _prefixed(prefix: str) -> dict:
    return {k[len(prefix):]: DATA[k] for k in DATA.files if k.startswith(prefix)}


def _assert_close(got, ref, tol, what):
    got = np.asarray(got)
    assert got.shape == ref.shape and got.dtype == ref.dtype, (what, got.shape, got.dtype,
                                                               ref.shape, ref.dtype)
    if ref.dtype.kind in "biu":
        np.testing.assert_array_equal(got, ref, err_msg=what)
    else:
        np.testing.assert_allclose(got, ref, rtol=tol, atol=tol, equal_nan=True, err_msg=what)


@pytest.mark.parametrize("name", STATIC)
def test_paddle_static_case(name):
    meta = META[name]
    program = Program.parse_from_string(DATA[f"{name}/program_desc"].tobytes())
    feeds = _prefixed(f"{name}/feed/")
    exe = Executor()
    if meta["error"]:  # Paddle failed: so does the bridge, with a typed error
        with pytest.raises(PhiError):
            exe.run(program, feed=feeds, fetch_list=[], scope=Scope())
        return
    got = exe.run(program, feed=feeds, fetch_list=meta["fetch"], scope=Scope())
    for k, a in zip(meta["fetch"], got, strict=True):
        _assert_close(a, DATA[f"{name}/fetch/{k}"], meta["tolerance"], f"{name}: {k}")
    # the op under test chose Paddle's kernel and signature
    ops = {op.type: op for op in exe.plans()[-1].ops}
    for rec in meta["kernel_trace"]:
        if rec["op_type"] != meta["op"]:
            continue
        choice = ops[meta["op"]].last_choice
        assert choice.phi_kernel.name == rec["phi_kernel_name"]
        assert str(choice.signature) == f"KernelSignature({rec['kernel_signature']})" or (
            _sig_text(choice.signature) == rec["kernel_signature"])
        assert str(choice.phi_kernel.key) == rec["phi_kernel_key"]


def _sig_text(sig) -> str:
    return (f"name: {sig.name}; inputs: {', '.join(sig.inputs)}; attributes: "
            f"{', '.join(sig.attrs)}; outputs: {', '.join(sig.outputs)}")


_OUT_TYPES = {"coo": VarType.SPARSE_COO, "csr": VarType.SPARSE_CSR}


def _sparse_input(name: str, slot: str, kind: str, shape):
    t = sparse_coo_tensor(DATA[f"{name}/input/{slot}/indices"],
                          DATA[f"{name}/input/{slot}/values"], shape)
    return coo_to_csr_tensor(t) if kind == "csr" else t


def _program(op_type: str, inputs: dict, outputs: dict, attrs: dict):
    """A one-op program: SPARSE_COO / SPARSE_CSR variables for sparse inputs and outputs."""
    program = Program()
    block = program.desc.global_block
    for slot, value in inputs.items():
        vt = (VarType.SPARSE_COO if isinstance(value, SparseCooTensor) else
              VarType.SPARSE_CSR if isinstance(value, SparseCsrTensor) else VarType.LOD_TENSOR)
        if vt is VarType.LOD_TENSOR:
            block.create_var(slot, dtype=value.dtype, shape=value.shape)
        else:
            block.create_var(slot, type=vt)
    for slot, (kind, dtype) in outputs.items():
        vt = _OUT_TYPES.get(kind)
        if vt is None:
            block.create_var(f"out.{slot}", dtype=np.dtype(dtype))
        else:
            block.create_var(f"out.{slot}", type=vt)
    block.append_op(op_type, {k: [k] for k in inputs},
                    {k: [f"out.{k}"] for k in outputs}, attrs)
    return program


@pytest.mark.parametrize("name", DYGRAPH)
def test_paddle_dygraph_case(name):
    """CSR cases (Paddle 2.6.2 cannot hold a SPARSE_CSR variable in a static program) ran
    through Paddle's dygraph API, the same phi kernels: here in a one-op static program."""
    meta = META[name]
    inputs = {}
    for slot, kind in meta["inputs"].items():
        if kind == "dense":
            inputs[slot] = DATA[f"{name}/input/{slot}"]
        else:
            inputs[slot] = _sparse_input(name, slot, kind[0], kind[1])
    outputs = {k: tuple(v) for k, v in meta["outputs"].items()}
    try:
        program = _program(meta["op"], inputs, outputs, meta["attrs"])
        run = lambda: Executor().run(program, feed=inputs,  # noqa: E731
                                     fetch_list=[f"out.{k}" for k in outputs], scope=Scope())
    except PhiError:
        if meta["error"]:
            return
        raise
    if meta["error"]:
        with pytest.raises(PhiError):
            run()
        return
    got = run()
    tol = meta["tolerance"]
    for (slot, (kind, _)), value in zip(outputs.items(), got, strict=True):
        key = f"{name}/output/{slot}"
        assert list(value.shape) == DATA[f"{key}/shape"].tolist()
        if kind == "csr":
            assert type(value) is SparseCsrTensor
            _assert_close(value.crows, DATA[f"{key}/crows"], tol, f"{name} crows")
            _assert_close(value.cols, DATA[f"{key}/cols"], tol, f"{name} cols")
            _assert_close(value.values, DATA[f"{key}/values"], tol, f"{name} values")
        elif kind == "coo":
            assert type(value) is SparseCooTensor
            _assert_close(value.indices, DATA[f"{key}/indices"], tol, f"{name} indices")
            _assert_close(value.values, DATA[f"{key}/values"], tol, f"{name} values")
        else:
            _assert_close(value, DATA[key], tol, f"{name} {slot}")


@pytest.mark.parametrize("name", REFUSED)
def test_paddle_refused_case(name):
    """Ops Paddle 2.6.2's CPU build has no kernel for (acos / acosh / sync_batch_norm /
    matmul of a COO x): refused here before anything runs, with a typed error."""
    meta = META[name]
    x = sparse_coo_tensor([[0, 1], [1, 2]], np.array([0.5, 0.25], "float32"), [2, 3])
    if meta["op"] == "sparse_matmul":
        inputs = {"x": x, "y": np.ones((3, 2), "float32")}
    elif meta["op"] == "sparse_sync_batch_norm":
        pytest.skip("needs a 5-D input; covered by the argmap check (GPU-only kernel)")
    else:
        inputs = {"x": x}
    program = _program(meta["op"], inputs, {"out": ("coo", "float32")}, {})
    scope = Scope()
    with pytest.raises(Unavailable, match=r"cannot run .* (GPUs only|only raises).* Nothing "
                                          "was run"):
        Executor().run(program, feed=inputs, fetch_list=["out.out"], scope=scope)
    assert scope.kids == ()  # refused at plan time


def test_sparse_conv_model_saved_by_paddle():
    """save_inference_model of SubmConv3D + BatchNorm + ReLU + Conv3D(stride 2) + to_dense:
    the bridge loads it and gives Paddle's output."""
    d = FIXTURES / "subm_conv_model"
    scope = Scope()
    program, feeds, fetches = load_inference_model(d / "inference", scope=scope)
    assert feeds == ["indices", "values"]
    types = [op.type for op in program.desc.global_block.ops]
    assert "sparse_conv3d" in types and "sparse_batch_norm" in types
    feed = {n: np.load(d / f"input_{n}.npy") for n in feeds}
    (out,) = Executor().run(program, feed=feed, fetch_list=fetches, scope=scope)
    np.testing.assert_allclose(out, np.load(d / "output_0.npy"), rtol=1e-5, atol=1e-5)


def test_feed_and_fetch_sparse_tensors():
    """A SPARSE_COO variable takes a SparseCooTensor feed and is fetched as one; a dense value
    for it (or a sparse one for a LOD_TENSOR variable) is refused naming the variable."""
    x = sparse_coo_tensor([[0, 1, 1], [2, 0, 1]], np.array([-1.0, 2.0, -3.0], "float32"),
                          [2, 3])
    program = _program("sparse_relu", {"x": x}, {"out": ("coo", "float32")}, {})
    exe = Executor()
    (out,) = exe.run(program, feed={"x": x}, fetch_list=["out.out"], scope=Scope())
    assert type(out) is SparseCooTensor
    np.testing.assert_array_equal(out.indices, [[0, 1, 1], [2, 0, 1]])
    np.testing.assert_array_equal(out.values, [0.0, 2.0, 0.0])
    np.testing.assert_array_equal(out.to_dense(), [[0, 0, 0], [2, 0, 0]])
    with pytest.raises(FeedError, match="`x` is a SPARSE_COO variable"):
        exe.run(program, feed={"x": x.to_dense()}, fetch_list=["out.out"], scope=Scope())
    dense = _program("relu", {"X": np.zeros((2, 3), "float32")}, {"Out": ("dense", "float32")},
                     {})
    with pytest.raises(FeedError, match="SparseCooTensor was fed"):
        exe.run(dense, feed={"X": x}, fetch_list=["out.Out"], scope=Scope())


def test_csr_feed_picks_the_csr_kernel_and_a_coo_feed_the_coo_one():
    """The kernel follows the tensor kind of the variable (Paddle's IsSparseCooTensorInput /
    IsSparseCsrTensorInput)."""
    coo = sparse_coo_tensor([[0, 1], [1, 0]], np.array([-2.0, 3.0], "float32"), [2, 2])
    for x, kernel in ((coo, "abs_coo"), (coo_to_csr_tensor(coo), "abs_csr")):
        program = _program("sparse_abs", {"x": x}, {"out": ("coo" if kernel.endswith("coo")
                                                             else "csr", "float32")}, {})
        exe = Executor()
        (out,) = exe.run(program, feed={"x": x}, fetch_list=["out.out"], scope=Scope())
        assert exe.plans()[-1].ops[0].last_choice.phi_kernel.name == kernel
        np.testing.assert_array_equal(out.to_dense(), [[0, 2], [3, 0]])


def test_sparse_tensors_are_not_dense_for_the_mapping():
    """The runtime mapping context tells the three kinds apart (a sparse tensor is a
    DenseTensor subclass, but never a dense input)."""
    coo = sparse_coo_tensor([[0], [0]], np.array([1.0], "float32"), [1, 1])
    csr = coo_to_csr_tensor(coo)

    op = type("Op", (), {"outputs": {}, "attrs": {}})()  # what the context reads of an op

    for value, dense, is_coo, is_csr in ((coo, False, True, False), (csr, False, False, True)):
        ctx = RuntimeArgumentMappingContext(op, {"x": [value]})
        assert (ctx.is_dense_tensor_input("x"), ctx.is_sparse_coo_tensor_input("x"),
                ctx.is_sparse_csr_tensor_input("x")) == (dense, is_coo, is_csr)
    assert isinstance(coo, SparseCooTensor) and isinstance(csr, SparseCsrTensor)


def test_reshape_takes_its_shape_from_a_shape_tensor():
    """sparse_reshape maps ``shape`` to ShapeTensor when the op has one (Paddle's generated
    mapping of an IntArray attribute): [2, 3] -> [3, 2] by a fed int64 tensor."""
    x = sparse_coo_tensor([[0, 1], [2, 0]], np.array([1.0, 2.0], "float32"), [2, 3])
    program = _program("sparse_reshape", {"x": x, "ShapeTensor": np.array([3, 2], "int64")},
                       {"out": ("coo", "float32")}, {"shape": [6]})
    exe = Executor()
    feed = {"x": x, "ShapeTensor": np.array([3, 2], "int64")}
    (out,) = exe.run(program, feed=feed, fetch_list=["out.out"], scope=Scope())
    assert exe.plans()[-1].ops[0].last_choice.signature.attrs == ("ShapeTensor",)
    assert out.dims == (3, 2)
    np.testing.assert_array_equal(out.to_dense(), x.to_dense().reshape(3, 2))


def test_a_plan_is_reused_across_runs_and_new_point_counts():
    """The sparse model runs again on the same plan, and on fewer points."""
    d = FIXTURES / "subm_conv_model"
    scope = Scope()
    program, feeds, fetches = load_inference_model(d / "inference", scope=scope)
    feed = {n: np.load(d / f"input_{n}.npy") for n in feeds}
    exe = Executor()
    first = exe.run(program, feed=feed, fetch_list=fetches, scope=scope)[0]
    again = exe.run(program, feed=feed, fetch_list=fetches, scope=scope)[0]
    np.testing.assert_array_equal(first, again)
    fewer = {"indices": feed["indices"][:, :1], "values": feed["values"][:1]}
    (out,) = exe.run(program, feed=fewer, fetch_list=fetches, scope=scope)
    assert out.shape == first.shape and np.count_nonzero(out) <= np.count_nonzero(first)


def test_saving_a_sparse_variable_is_refused_as_paddle_refuses_it(tmp_path):
    """Paddle 2.6.2 has no save kernel for SPARSE_COO: the bridge's save must not write the
    stored values alone as if they were the tensor."""
    from fluid_compat import run_op

    x = sparse_coo_tensor([[0, 1], [1, 2]], np.array([0.5, 0.25], "float32"), [2, 3])
    path = tmp_path / "x.pdtensor"
    with pytest.raises(PhiError, match=r"save: .* holds a SparseCooTensor.*no save kernel"):
        run_op("save", {"X": x}, {"file_path": str(path)})
    assert not path.exists()
