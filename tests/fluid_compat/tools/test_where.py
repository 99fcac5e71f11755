"""`fluid-compat where`: each piece of an op type in the one file the layout rule names.

The ops of the layout issue's sample (rrelu, unfold, warpctc, multiplex, prelu, eig,
bilinear_tensor_product, ...) and more: for every piece `where` reports, the file is the one
docs/architecture.md's rule gives from the names alone (the family tables, else the base name;
the arity modules; argmap/sig/<op>.py), and relu's pieces are the hand-checked files.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from fluid_compat.tools.where import pieces

ROOT = Path(__file__).resolve().parents[3]

SAMPLE = ("rrelu", "unfold", "warpctc", "multiplex", "prelu", "eig", "bilinear_tensor_product",
          "relu", "conv2d", "reduce_sum", "split", "sequence_pool", "lookup_table_v2",
          "multiclass_nms3", "lstm", "crop", "softmax", "matmul_v2", "scale", "top_k")

ARITY = {f"phi/infermeta/{m}.py" for m in ("nullary", "unary", "binary", "ternary", "multiary",
                                           "backward", "fusion")}


def _file(where: str) -> str:
    return where.rsplit(":", 1)[0]


def _kernel_file(name: str) -> str:
    import phi.kernels

    return "phi/kernels/" + phi.kernels.LAYOUT.module_name(name).replace(".", "/") + ".py"


def _fluid_file(op_type: str) -> str:
    import fluid_compat.operators.fluid_kernels as fk

    return "fluid_compat/operators/fluid_kernels/" + fk.LAYOUT.module_name(op_type) + ".py"


def _sig_file(op_type: str) -> str:
    from argmap.registry import SIG_LAYOUT

    return "argmap/sig/" + SIG_LAYOUT.module_name(op_type) + ".py"


@pytest.mark.parametrize("op_type", SAMPLE)
def test_each_piece_is_in_the_file_the_rule_names(op_type):
    found = pieces([op_type])
    kinds = {p.piece for p in found if p.op_type == op_type}
    assert "OpProto" in kinds
    assert "phi kernel" in kinds or "fluid kernel" in kinds
    if "phi kernel" in kinds:
        assert "mapping" in kinds
    for p in found:
        where = _file(p.where)
        if p.piece == "OpProto":
            assert where == "opmakers/op_defs.json"
        elif p.piece == "mapping":
            expected = {"declared": {"argmap/op_compat.yaml", "argmap/grad_compat.yaml"},
                        "function": {_sig_file(p.op_type)}}.get(p.name)
            if expected is None:
                assert p.name == "default" and p.where.startswith("default signature")
            else:
                assert where in expected, p
        elif p.piece == "phi kernel":
            assert where == _kernel_file(p.name), p
        elif p.piece == "InferMeta":
            assert where in ARITY, p
        elif p.piece in ("fluid kernel", "hook"):
            assert where == _fluid_file(p.op_type), p
        elif p.piece == "hook row":
            assert where == "fluid_compat/operators/op_hooks.yaml"
        else:
            pytest.fail(f"unknown piece {p}")


def test_relu_pieces_are_the_hand_checked_files():
    got = {(p.op_type, p.piece, p.name): _file(p.where) for p in pieces(["relu"])}
    assert got[("relu", "OpProto", "relu")] == "opmakers/op_defs.json"
    assert got[("relu", "phi kernel", "relu")] == "phi/kernels/activation.py"
    assert got[("relu", "InferMeta", "unchanged_infer_meta")] == "phi/infermeta/unary.py"
    assert got[("relu", "fluid kernel", "ReluKernel")] == \
        "fluid_compat/operators/fluid_kernels/activation.py"
    assert got[("relu", "hook row", "relu")] == "fluid_compat/operators/op_hooks.yaml"
    assert got[("relu_grad", "phi kernel", "relu_grad")] == "phi/kernels/activation.py"
    assert got[("relu_grad", "mapping", "declared")] == "argmap/grad_compat.yaml"


def test_a_branching_mapping_points_at_its_ops_sig_file():
    got = {(p.op_type, p.piece): p.where for p in pieces(["reduce_sum"], grads=False)}
    assert _file(got[("reduce_sum", "mapping")]) == "argmap/sig/reduce_sum.py"
    kernels = {p.name: _file(p.where) for p in pieces(["reduce_sum"], grads=False)
               if p.piece == "phi kernel"}
    assert kernels == {"sum": "phi/kernels/reduce.py", "sum_raw": "phi/kernels/reduce.py"}


def test_every_location_names_an_existing_line():
    for p in pieces(SAMPLE):
        if ":" not in p.where:
            continue
        path, line = p.where.rsplit(":", 1)
        lines = (ROOT / path).read_text(encoding="utf-8").splitlines()
        assert 1 <= int(line) <= len(lines), p


def test_cli_prints_the_table_and_refuses_an_unknown_op():
    cmd = [sys.executable, "-m", "fluid_compat", "where", "rrelu", "--format", "json"]
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert '"phi/kernels/rrelu.py:' in out.stdout
    bad = subprocess.run([sys.executable, "-m", "fluid_compat", "where", "no_such_op"],
                         capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 1
    assert "no_such_op: no OpProto" in bad.stdout
