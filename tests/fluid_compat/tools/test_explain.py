"""``fluid-compat explain``: the records dispatch wrote while deciding, equal to what run_impl
did on the same program; text, JSON and Graphviz output; refusals explained."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import numpy as np
import pytest

from fluid_compat import Executor, load_inference_model
from fluid_compat.cli import main
from fluid_compat.framework.scope import Scope
from fluid_compat.imperative import run_op_with_operator
from fluid_compat.tools.explain import explain_op_type, explain_program, to_dot

from .toolslib import FIXTURES, corpus_model, model_params, model_prefix


def _executor_run(prefix, **options):
    scope = Scope()
    program, feeds, fetches = load_inference_model(prefix, scope=scope)
    feed = {n: np.load(prefix.parent / f"input_{n}.npy") for n in feeds}
    exe = Executor(**options)
    exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
    return exe


def _explain_json(capsys, *argv) -> tuple[int, dict]:
    rc = main(["explain", *map(str, argv), "--format", "json"])
    return rc, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("model", model_params())
def test_explain_records_equal_what_run_impl_did(model, capsys):
    prefix = model_prefix(model)
    exe = _executor_run(prefix)
    rc, data = _explain_json(capsys, prefix)
    assert rc == 0 and not data["error"]
    explained = {op["index"]: op for op in data["ops"]}
    assert len(explained) == len(exe._last_plan.ops)
    for op in exe._last_plan.ops:
        choice = op.last_choice
        got = explained[op.index]
        assert got["type"] == op.type
        (first,) = got["choices"]
        assert [(r["kind"], r["text"]) for r in first["records"]] == list(choice.records)
        assert first["side"] == ("phi" if choice.is_phi else "fluid")
        assert first["expected"] == str(choice.expected)
        assert first["signature"] == (None if choice.signature is None
                                      else str(choice.signature))
        # the structured data of the lookup that found the kernel names that kernel
        found = [r["data"] for r in first["records"] if r["kind"] == "lookup"
                 and r["data"]["found"]]
        assert found[-1]["kernel"] == str(choice.phi_kernel.key if choice.is_phi
                                          else choice.fluid_kernel.kernel_type)


def test_explain_records_with_pins_equal_run_impl(capsys):
    prefix = corpus_model("lenet")
    exe = _executor_run(prefix, pins={"conv2d": "fluid", "pool2d": "fluid"})
    rc, data = _explain_json(capsys, prefix, "--pin", "conv2d=fluid", "--pin", "pool2d=fluid")
    assert rc == 0
    explained = {op["index"]: op for op in data["ops"]}
    for op in exe._last_plan.ops:
        records = explained[op.index]["choices"][0]["records"]
        assert [(r["kind"], r["text"]) for r in records] == list(op.last_choice.records)
    conv = next(op for op in data["ops"] if op["type"] == "conv2d")
    assert conv["side"] == "fluid" and conv["choices"][0]["records"][0]["data"] == {
        "side": "fluid"}


def test_explain_text_names_every_part_of_the_decision(capsys):
    assert main(["explain", str(model_prefix("example"))]) == 0
    out = capsys.readouterr().out
    block = out.split("op #5 relu(")[1].split("\nop #")[0].splitlines()
    assert block[1] == ("  kernel:     phi `relu` (CPU, Undefined(AnyLayout), float32)")
    assert block[2] == "  expected:   dtype float32 from input `X`"
    assert block[3].strip().startswith("expected kernel type {data_type[float]; ")
    assert block[4] == ("  signature:  name: relu; inputs: X; attributes: ; outputs: Out "
                        "(default)")
    assert block[5] == ("  lookup:     1 phi, expected device: phi `relu` (CPU, "
                        "Undefined(AnyLayout), float32) -> (CPU, Undefined(AnyLayout), float32)")
    assert block[6:8] == ["  fallback:   none", "  transforms: none"]
    assert out.splitlines()[-1] == "summary: 15 ops: 15 phi; 0 input transform(s)"


def test_explain_an_op_type_uses_the_same_decision_as_run_impl(capsys):
    _, op = run_op_with_operator("relu", {"X": np.zeros((1, 1, 1, 1), np.float32)})
    ex = explain_op_type("relu")
    (choice,) = ex.ops[0].choices
    assert list(choice.records) == list(op.last_choice.records)
    rc, data = _explain_json(capsys, "relu", "--pin", "relu=fluid", "--dtype", "float64")
    assert rc == 0
    (c,) = data["ops"][0]["choices"]
    assert c["side"] == "fluid" and c["kernel"].startswith("fluid `relu` {data_type[double]")
    assert [r["kind"] for r in c["records"]] == ["pin", "expected", "signature", "expected",
                                                 "lookup"]
    lookup = c["records"][-1]["data"]
    assert lookup == {"step": "2 fluid, expected device", "side": "fluid", "name": "relu",
                      "key": c["kernel_type"], "found": True, "kernel": c["kernel_type"]}


def test_explain_an_op_type_with_inputs_and_attributes(capsys):
    ex = explain_op_type("conv2d", inputs=["Input=float64:1,3,8,8", "Filter=float64:4,3,3,3"],
                         attrs_=["use_cudnn=true", "data_format=\"NCHW\""])
    (choice,) = ex.ops[0].choices
    assert str(choice.phi_kernel.key) == "(CPU, Undefined(AnyLayout), float64)"
    assert "Input [1, 3, 8, 8] float64" in ex.feed


def test_a_refusal_is_explained_with_the_lookups_tried(capsys):
    assert main(["explain", "conv2d", "--dtype", "float16"]) == 1
    out = capsys.readouterr().out
    assert "  kernel:     none: REFUSED" in out
    assert ("  lookup:     1 phi, expected device: phi `conv2d` (CPU, Undefined(AnyLayout), "
            "float16) -> not registered") in out
    assert "2 fluid, expected device: fluid `conv2d` " in out
    assert "  error:      (NotFound) Operator (conv2d) does not have kernel for" in out
    rc, data = _explain_json(capsys, "conv2d", "--dtype", "float16")
    assert rc == 1 and data["ops"][0]["side"] == "refused"
    assert [r["data"]["found"] for r in data["ops"][0]["refused_records"]
            if r["kind"] == "lookup"] == [False, False]
    # pinned to a side with no kernel: the pin and the one lookup tried
    ex = explain_op_type("hard_swish", pin="fluid")
    assert ex.ops[0].error.startswith("(NotFound) Operator (hard_swish) is pinned to fluid")
    assert ex.ops[0].refused[0][0] == "pin"


def test_explain_argument_errors(capsys):
    assert main(["explain"]) == 2
    assert main(["explain", "relux"]) == 2
    assert "Did you mean: relu" in capsys.readouterr().err
    assert main(["explain", str(model_prefix("example")), "--dtype", "float64"]) == 2
    assert "apply to an OP_TYPE" in capsys.readouterr().err
    assert main(["explain", "relu", "--input", "Y=float32"]) == 2
    assert "has no input slot Y" in capsys.readouterr().err


def test_explain_control_flow_programs(capsys):
    rc, data = _explain_json(capsys, FIXTURES / "while_loop" / "inference")
    assert rc == 0
    loop = next(op for op in data["ops"] if op["type"] == "while")
    assert loop["side"] == "operator" and loop["operator"] == "WhileOp"
    inner = [op for op in data["ops"] if op["parent"] == f"op #{loop['index']} while"]
    assert [op["type"] for op in inner] == ["scale", "scale", "increment", "less_than",
                                            "assign", "assign"]
    assert all(op["block"] == 1 and op["side"] == "phi" for op in inner)
    rc, data = _explain_json(capsys, FIXTURES / "cond_block" / "inference")
    assert rc == 0 and {op["side"] for op in data["ops"]} >= {"phi", "operator"}


def _dot_nodes(dot: str) -> dict[str, str]:
    """Op node id -> its fill colour."""
    nodes = {}
    for line in dot.splitlines():
        line = line.strip()
        if line.startswith("op_") and "fillcolor" in line:
            nodes[line.split()[0]] = line.split('fillcolor="')[1].split('"')[0]
    return nodes


def _dot_vars(dot: str) -> dict[str, str]:
    """Variable name (its label) -> its node id."""
    found = re.findall(r'^\s*(var\d+) \[label="?([^" ]+)"?', dot, flags=re.M)
    return {name: node for node, name in found}


def test_dot_colours_ops_by_side(capsys):
    prefix = model_prefix("example")
    assert main(["explain", str(prefix), "--format", "dot", "--pin", "relu=fluid"]) == 0
    dot = capsys.readouterr().out
    assert dot.startswith("digraph program {") and dot.rstrip().endswith("}")
    assert dot.count("{") == dot.count("}")
    nodes = _dot_nodes(dot)
    assert len(nodes) == 15
    assert nodes["op_0_5"] == "#fdae6b"  # relu on fluid
    assert {c for k, c in nodes.items() if k != "op_0_5"} == {"#9ecae1"}  # the rest on phi
    assert f"{_dot_vars(dot)['image']} -> op_0_1 [label=Input]" in dot
    assert "color=red" not in dot.split("}", 1)[1]  # no transfer on CPU


def test_dot_marks_transfers_and_fallbacks():
    xps = pytest.importorskip("array_api_strict")
    from phi.transform import transform_place
    from phi.core.tensor import DenseTensor
    from tests.phi.strict_device import plug_in

    device1 = plug_in()
    prefix = corpus_model("mlp")
    scope = Scope()
    program, _, fetches = load_inference_model(prefix, scope=scope)
    x = transform_place(DenseTensor.from_numpy(np.load(prefix.parent / "input_x.npy")), device1)
    assert x.data.device == xps.Device("device1")
    # on the CPU: the fed device1 tensor is moved to the CPU for the first op
    ex = explain_program(program, {"x": x}, fetches, scope=scope, source="mlp")
    assert not ex.error
    first = ex.ops[0]
    transforms = [r for r in first.choices[0].records if r[0] == "transform"]
    assert [r.data for r in transforms] == [{"slot": "X", "index": 0, "var": "x",
                                            "place": ["Place(device1:0)", "Place(cpu)"]}]
    dot = to_dot(ex)
    assert (f'{_dot_vars(dot)["x"]} -> op_0_1 [label="X: place Place(device1:0) -> Place(cpu)" '
            'color=red' in dot)
    # on device1: no kernel there, every op falls back to the CPU
    ex = explain_program(program, {"x": x}, fetches, place=device1, scope=scope)
    assert {o.side for o in ex.ops} == {"fallback"}
    assert set(_dot_nodes(to_dot(ex)).values()) == {"#fb6a4a"}


def test_dot_renders_with_graphviz(tmp_path, capsys):
    if shutil.which("dot") is None:
        pytest.skip("graphviz `dot` not installed")
    assert main(["explain", str(model_prefix("example")), "--format", "dot"]) == 0
    src = tmp_path / "model.dot"
    src.write_text(capsys.readouterr().out)
    subprocess.run(["dot", "-Tsvg", str(src), "-o", str(tmp_path / "model.svg")], check=True)
    assert (tmp_path / "model.svg").read_text().lstrip().startswith("<?xml")


def test_explain_a_single_op_case(capsys):
    from .toolslib import LOCAL_CASES

    rc, data = _explain_json(capsys, "--case", LOCAL_CASES / "scale_before.json")
    assert rc == 0 and data["source"] == "case scale_before"
    (op,) = data["ops"]
    assert op["type"] == "scale" and op["side"] == "phi"
    assert op["choices"][0]["signature"].startswith("name: scale; inputs: X; ")
