"""SelectedRows: programs run by Paddle 2.6.2 (tools/fixtures/
gen_selected_rows.py) give the same dense results, SelectedRows (rows, height, value), updated
parameters over 3 optimizer steps and kernel choices here; plus hand-worked values."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fluid_compat import Executor, Program, SelectedRows, run_op_tensors, selected_rows
from fluid_compat.framework.scope import Scope
from phi.core.errors import InvalidArgument, PhiError
from phi.core.tensor import DenseTensor

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "selected_rows"
CASES = sorted(p.stem for p in FIXTURES.glob("*.json"))


def _load(name):
    meta = json.loads((FIXTURES / f"{name}.json").read_text())
    data = np.load(FIXTURES / f"{name}.npz")
    return meta, data


def _prefixed(data, prefix):
    return {k[len(prefix):]: data[k] for k in data.files if k.startswith(prefix)}


#: ops whose kernel here is not Paddle's kind: the bridge's `save` is one fluid kernel for
#: every variable type (Paddle 2.6.2 runs phi save_sr for a SelectedRows); the bytes are equal
_OTHER_KIND = {"save"}


@pytest.mark.parametrize("name", CASES)
def test_paddle_program(name, tmp_path):
    meta, data = _load(name)
    program = Program.parse_from_string(data["program_desc"].tobytes())
    saved = tmp_path / "sr_g.bin"
    for op in program.desc.global_block.ops:
        if op.type == "save":
            op.set_attr("file_path", str(saved))
    scope = Scope()
    for k, a in _prefixed(data, "param.").items():
        scope.var(k).value = DenseTensor.from_numpy(a.copy())
    feeds = _prefixed(data, "feed.")
    exe = Executor()
    tol = meta["tolerance"]
    if meta.get("error"):  # Paddle failed: so does the bridge, with a typed error
        with pytest.raises(PhiError, match=r"Input key\(\d+\) is not found"):
            exe.run(program, feed=feeds, scope=scope)
        return
    for step, rec in enumerate(meta["steps"]):
        got = exe.run(program, feed=feeds, fetch_list=rec["fetch"], scope=scope)
        for k, a in zip(rec["fetch"], got, strict=True):
            np.testing.assert_allclose(a, data[f"step{step}.fetch.{k}"], rtol=tol, atol=tol)
        for k in _prefixed(data, "param."):
            np.testing.assert_allclose(scope.find_var(k).value.numpy(),
                                       data[f"step{step}.param.{k}"], rtol=tol, atol=tol,
                                       err_msg=f"step {step} param {k}")
        for k, sr in rec["selected_rows"].items():
            v = scope.find_var(k).value
            assert type(v) is SelectedRows, k
            assert v.rows == sr["rows"] and v.height == sr["height"], (k, v)
            np.testing.assert_allclose(v.numpy(), data[f"step{step}.sr.{k}"], rtol=tol, atol=tol)
    if "saved.sr_g" in data.files:  # Paddle's save of a SelectedRows, byte for byte
        assert saved.read_bytes() == data["saved.sr_g"].tobytes()
    # kernel choices: Paddle's phi kernel per op, fluid where Paddle's signature is empty
    ops = exe.plans()[-1].ops
    trace = [r for r in meta["kernel_trace"] if r["op_type"] not in ("feed", "fetch_v2")]
    assert [op.type for op in ops] == [r["op_type"] for r in trace]
    for op, r in zip(ops, trace, strict=True):
        choice = op.last_choice
        sig = r["kernel_signature"]
        structure = not sig or not (sig["inputs"] or sig["attributes"] or sig["outputs"])
        if op.type in _OTHER_KIND:
            pass
        elif r["run_phi_kernel"] and not structure:
            assert choice.is_phi and choice.phi_kernel.name == r["phi_kernel_name"], op.type
            assert str(choice.signature) == sig["raw"]
        else:
            assert not choice.is_phi, op.type
        assert str(choice.expected) == r["expected_kernel_key"], op.type


# -- hand-worked values -------------------------------------------------------------------------

def _sr():
    return selected_rows([4, 1, 4], 6, np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], "float32"))


def test_selected_rows_value_type():
    x = _sr()
    assert x.complete_dims() == (6, 2)
    dense = x.to_dense()
    np.testing.assert_array_equal(dense[4], [6.0, 8.0])
    np.testing.assert_array_equal(dense[1], [3.0, 4.0])
    assert dense[0].sum() == 0
    with pytest.raises(InvalidArgument, match="number of rows"):
        selected_rows([1], 3, np.zeros((2, 2)))
    with pytest.raises(InvalidArgument, match="height"):
        selected_rows([3], 3, np.zeros((1, 2)))


def test_run_op_kernels_by_variable_type():
    x = _sr()
    out = run_op_tensors("merge_selected_rows", {"X": x}, {})["Out"][0]
    assert out.rows == [1, 4] and out.height == 6
    np.testing.assert_array_equal(out.numpy(), [[3.0, 4.0], [6.0, 8.0]])
    s = run_op_tensors("scale", {"X": x}, {"scale": 2.0, "bias": 1.0})["Out"][0]
    assert type(s) is SelectedRows and s.rows == [4, 1, 4]
    np.testing.assert_array_equal(s.numpy(), x.numpy() * 2 + 1)
    dense = np.ones((6, 2), "float32")
    mixed = run_op_tensors("sum", {"X": [dense, x]}, {})["Out"][0]
    assert type(mixed) is not SelectedRows
    np.testing.assert_array_equal(mixed.numpy(), 1 + x.to_dense())
    t = run_op_tensors("get_tensor_from_selected_rows", {"X": x}, {})["Out"][0]
    np.testing.assert_array_equal(t.numpy(), x.numpy())


def test_sparse_sgd_and_dense_kernel_refuses_selected_rows():
    x = _sr()
    w = np.zeros((6, 2), "float32")
    out = run_op_tensors("sgd", {"Param": w, "Grad": x, "LearningRate": np.array([0.5], "float32")},
                         {})["ParamOut"][0]
    np.testing.assert_allclose(out.numpy(), -0.5 * x.to_dense())
    with pytest.raises(InvalidArgument, match="SelectedRows"):
        run_op_tensors("relu", {"X": x}, {})
    with pytest.raises(InvalidArgument, match="SelectedRows"):
        run_op_tensors("get_tensor_from_selected_rows", {"X": np.zeros((2, 2), "float32")}, {})


def test_explain_names_the_selected_rows_input():
    from fluid_compat.tools.explain import explain_program

    meta, data = _load("sr_opt_adagrad")
    program = Program.parse_from_string(data["program_desc"].tobytes())
    scope = Scope()
    for k, a in _prefixed(data, "param.").items():
        scope.var(k).value = DenseTensor.from_numpy(a.copy())
    ex = explain_program(program, _prefixed(data, "feed."), [], scope=scope)
    adagrad = next(o for o in ex.ops if o.op_type == "adagrad")
    texts = [rec[1] for rec in adagrad.choices[0].records if rec[0] == "signature"]
    assert texts[0] == "input `Grad` (sr_g) is a SelectedRows: is_selected_rows_input is true"
    assert texts[1].startswith("name: adagrad_dense_param_sparse_grad;")


def test_load_op_into_a_selected_rows_variable_and_feed(tmp_path):
    """Paddle's save of a SelectedRows (fixture bytes) read back by `load` into a SELECTED_ROWS
    variable (load_sr); a SelectedRows feed; a dense feed of such a variable is refused."""
    from fluid_compat import FeedError
    from fluid_compat.framework import ProgramDesc, VarType
    from phi.common.data_type import DataType

    meta, data = _load("sr_fill_save")
    path = tmp_path / "sr.bin"
    path.write_bytes(data["saved.sr_g"].tobytes())
    desc = ProgramDesc()
    block = desc.global_block
    block.create_var("g", type=VarType.SELECTED_ROWS, dtype=DataType.FLOAT32, persistable=True)
    block.create_var("fed", type=VarType.SELECTED_ROWS, dtype=DataType.FLOAT32)
    block.create_var("m", type=VarType.SELECTED_ROWS, dtype=DataType.FLOAT32)
    block.append_op("load", {}, {"Out": ["g"]}, {"file_path": str(path)})
    block.append_op("merge_selected_rows", {"X": ["fed"]}, {"Out": ["m"]}, {})
    scope = Scope()
    exe = Executor()
    exe.run(Program(desc), feed={"fed": _sr()}, scope=scope)
    g = scope.find_var("g").value
    assert type(g) is SelectedRows
    assert (g.rows, g.height) == (meta["steps"][0]["selected_rows"]["sr_g"]["rows"], 7)
    np.testing.assert_array_equal(g.numpy(), data["step0.sr.sr_g"])
    with pytest.raises(FeedError, match="SELECTED_ROWS"):
        exe.run(Program(desc), feed={"fed": np.zeros((2, 2), "float32")}, scope=scope)
