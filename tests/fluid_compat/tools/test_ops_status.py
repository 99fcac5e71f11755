"""``fluid-compat ops``: the migration status of every legacy op, read from the registries."""

from __future__ import annotations

import json

import pytest

from fluid_compat.cli import main
from fluid_compat.operators.fluid_kernels import activation as fluid_activation
from fluid_compat.operators.fluid_kernels.registry import (
    fluid_kernels_of,
    register_fluid_kernel,
    unregister_fluid_kernels,
)
from fluid_compat.tools.ops_status import STATUSES, collect, paddle_op_types, totals

from .toolslib import BOTH_KERNEL_OPS, CORPUS


def _by_name(rows):
    return {r.op_type: r for r in rows}


def test_ops_with_both_kernels_are_reported_both():
    rows = _by_name(collect())
    for op in BOTH_KERNEL_OPS:
        assert rows[op].status == "both", op
        assert rows[op].phi_kernels and rows[op].fluid_kernels, op
    relu = rows["relu"]
    assert relu.mapping == "default" and relu.has_proto
    assert relu.phi_kernels["relu"]["CPU"] == ["float32", "float64"]
    assert relu.fluid_groups == {"CPU": ["float32", "float64"]}
    assert relu.fluid_kernels[0] == ("{data_type[float]; data_layout[Undefined(AnyLayout)]; "
                                     "place[Place(cpu)]; library_type[PLAIN]}")
    assert rows["mul"].mapping == "declared" and list(rows["mul"].phi_kernels) == [
        "matmul_with_flatten"]
    assert rows["elementwise_add"].mapping == "function"
    assert set(rows["elementwise_add"].phi_kernels) == {"add", "add_raw"}


@pytest.mark.parametrize(("op", "status", "mapping"), [
    ("matmul", "fluid-only", "none"),         # a deprecated name: fluid kernel only
    ("lookup_table", "fluid-only", "default"),
    ("reshape2", "phi-only", "function"),
    ("while", "operator", "default"),
    ("conditional_block", "operator", "default"),
])
def test_other_statuses(op, status, mapping):
    row = _by_name(collect([op]))[op]
    assert (row.status, row.mapping) == (status, mapping)
    assert row.argmap_result == "ok"


def test_retiring_the_fluid_kernel_makes_the_op_phi_only():
    kernels = fluid_kernels_of("relu")
    unregister_fluid_kernels("relu")
    try:
        assert _by_name(collect(["relu"]))["relu"].status == "phi-only"
    finally:
        register_fluid_kernel("relu", "CPU", [kt.dtype for kt in kernels])(
            fluid_activation.ReluKernel)
    assert _by_name(collect(["relu"]))["relu"].status == "both"


def test_table_json_markdown_and_totals(capsys):
    assert main(["ops"]) == 0  # 100 columns: long cells wrap, proto and mapping left out
    out = capsys.readouterr().out.splitlines()
    table = [line for line in out if not line.startswith("PROBLEM ")]
    assert max(len(line) for line in table) <= 100
    header = next(line for line in out if line.startswith("op "))  # a header may wrap too
    assert header.split()[:2] == ["op", "status"] and "proto" not in header
    assert next(line for line in out if line.startswith("relu ")).split()[:2] == ["relu", "both"]
    assert main(["ops", "--wide"]) == 0  # one line per op, every column
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:4] == ["op", "status", "proto", "mapping"]
    relu = next(line for line in out if line.startswith("relu "))
    assert relu.split()[:4] == ["relu", "both", "yes", "default"]
    assert "relu: CPU,GPU[f32,f64]" in relu and "CPU[f32,f64]" in relu and relu.endswith("ok")
    assert out[-3].startswith("totals: ") and " both" in out[-3]
    assert out[-1].startswith("grad: ") and "ops with grad ops run them" in out[-1]
    assert "relu_grad: phi" in relu  # the grad column: relu's grad op and its kernel
    assert main(["ops", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["totals"]["ops"] == len(data["ops"])
    assert sum(data["totals"]["status"].values()) == len(data["ops"])
    assert data["totals"]["status"]["both"] == len(BOTH_KERNEL_OPS)
    relu_json = next(o for o in data["ops"] if o["op_type"] == "relu")
    by_type = {o["op_type"]: o["grad"] for o in data["ops"]}
    assert by_type["matmul"] == "matmul_grad: fluid"  # Paddle keeps matmul v1's fluid grad
    assert by_type["sum"] == "scale: both"  # sum's maker emits scale ops
    assert by_type["shape"] == "-"  # no grad maker
    assert relu_json["argmap_check"] == "ok" and relu_json["status"] == "both"
    assert main(["ops", "relu", "mul", "--format", "markdown"]) == 0
    md = capsys.readouterr().out.splitlines()
    assert md[0].startswith("| op | status | proto | mapping |")
    assert md[2].startswith("| `mul` | both | yes | declared | matmul_with_flatten: ")
    assert "- totals: 2 ops: 2 both" in md


def test_all_adds_every_paddle_op_type(capsys):
    names = paddle_op_types()
    assert len(names) == 784 and "conv2d" in names and names == sorted(names)
    rows = collect(include_paddle=True)
    t = totals(rows)
    # every Paddle op has its OpProto (opmakers/op_defs.json), and runs or says why not
    assert t["ops"] >= 784 and t["status"].get("not-described", 0) == 0
    assert t["status"].get("description-only", 0) == 0 and t["status"]["unavailable"] > 0
    assert set(t["status"]) <= set(STATUSES)
    described = {r.op_type for r in rows if r.status != "not-described"}
    assert described >= BOTH_KERNEL_OPS
    assert main(["ops", "--all", "--format", "json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["ops"]) == t["ops"]


def test_bundled_op_list_is_the_corpus_one():
    protos = CORPUS / "op_protos.json"
    if not protos.is_file():
        pytest.skip("corpus absent")
    assert paddle_op_types(protos) == paddle_op_types()


def test_missing_protos_file_is_a_clear_error(capsys, tmp_path):
    assert main(["ops", "--all", "--protos", str(tmp_path / "op_protos.json")]) == 2
    err = capsys.readouterr().err
    assert "no such file" in err and "bundled list" in err
