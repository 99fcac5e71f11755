"""The small OperatorBase ops (print, delete_var, depend, fake_init, get_places) and the two
refused at plan time (fill, copy_cross_scope) against Paddle 2.6.2's own runs of the same
programs (tests/fixtures/operator_base, made by tools/fixtures/gen_operator_base_cases.py):
print's text on stdout character for character, the fetched values and LoD bit for bit, and
Paddle's errors as typed errors of the bridge."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pytest

from fluid_compat import Executor, Program, run_op_tensors
from fluid_compat.framework import ProgramDesc, VarType
from fluid_compat.framework.scope import Scope
from phi.common.data_type import DataType
from phi.common.place import CPUPlace
from phi.core.errors import (
    InvalidArgument,
    NotFound,
    PhiError,
    PreconditionNotMet,
    Unavailable,
)
from phi.core.tensor import DenseTensor

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "operator_base"
PRINT_CASES = [c for c in json.loads((CASES / "index.json").read_text())["cases"]
               if c.startswith("print_")]


def _record(name: str) -> dict:
    return json.loads((CASES / f"{name}.json").read_text())


def _array(j: dict):
    """A recorded array (bfloat16 as its uint16 bits, as Paddle's Python side feeds it)."""
    dtype = "uint16" if j["dtype"] == "bfloat16" else j["dtype"]
    a = np.frombuffer(base64.b64decode(j["b64"]), dtype=dtype).reshape(j["shape"]).copy()
    return (a, j["lod"]) if j["lod"] else a


def _program(record: dict) -> Program:
    return Program.parse_from_string(base64.b64decode(record["program_b64"]))


def _scope(record: dict) -> Scope:
    scope = Scope()
    for name, j in record.get("parameters", {}).items():
        scope.var(name).value = DenseTensor.from_numpy(_array(j))
    return scope


def _feed(record: dict) -> dict:
    return {k: _array(v) for k, v in record["feeds"].items()}


def _assert_outputs(got: list, want: list, case: str) -> None:
    assert len(got) == len(want), case
    for i, (t, w) in enumerate(zip(got, want, strict=True)):
        a = t.numpy()
        expect = _array(w)
        lod = []
        if isinstance(expect, tuple):
            expect, lod = expect
        what = f"{case} output {i}"
        assert str(t.dtype) == w["dtype"], what
        assert list(a.shape) == w["shape"], what
        assert a.tobytes() == expect.tobytes(), what
        assert [list(level) for level in t.lod] == lod, what


@pytest.mark.parametrize("case", PRINT_CASES)
def test_print_writes_paddles_text_and_passes_in_to_out(case, capsys):
    record = _record(case)
    program, scope, feed = _program(record), _scope(record), _feed(record)
    exe = Executor(CPUPlace())
    for k, run in enumerate(record["runs"]):
        outs = exe.run(program, feed=feed, fetch_list=record["fetch"], scope=scope,
                       return_numpy=False)
        captured = capsys.readouterr()
        assert captured.out == run["stdout"], f"{case} run {k}"
        assert captured.err == ""  # Paddle writes print's text to std::cout only
        _assert_outputs(outs, run["outputs"], f"{case} run {k}")


def test_print_cases_cover_what_the_formatter_distinguishes():
    """The fixtures hold the formatter's branches (a guard against a table shrinking)."""
    text = "".join(run["stdout"] for c in PRINT_CASES for run in _record(c)["runs"])
    for piece in ("unprintable type: complex128", "unprintable type: uint8", "-nan", "inf",
                  "1.23457e+08", "0.0999756", "9.18355e-41", "- data: []", "- shape: []",
                  "lod: {{0, 1, 3}{0, 2, 3, 6}}", "print_0.tmp_0@GRAD", "-9223372036854775808",
                  "- layout: NCHW", "- data: [1 0 1]"):
        assert piece in text, piece
    # first_n=2 prints on two of three runs, first_n=0 on every run
    runs = _record("print_first_n")["runs"]
    assert [r["stdout"].count("first_n=2") for r in runs] == [1, 1, 0]
    assert [r["stdout"].count("first_n=0") for r in runs] == [1, 1, 1]


def test_print_counts_first_n_per_operator_instance(capsys):
    """A program run by a second Executor is a fresh operator: its first_n count restarts."""
    record = _record("print_first_n")
    program, feed = _program(record), _feed(record)
    for _ in range(2):
        exe = Executor(CPUPlace())
        exe.run(program, feed=feed, fetch_list=record["fetch"], scope=Scope())
        assert capsys.readouterr().out == record["runs"][0]["stdout"]


def _print_program(in_dtype=DataType.FLOAT32, **attrs) -> ProgramDesc:
    desc = ProgramDesc()
    block = desc.global_block
    block.create_var("x", dtype=in_dtype, shape=[-1])
    block.create_var("y", dtype=in_dtype, shape=[-1])
    full = {"first_n": -1, "message": "", "summarize": -1}
    full.update(attrs)
    block.append_op("print", {"In": ["x"]}, {"Out": ["y"]}, full)
    return desc


def test_print_out_is_a_copy_of_in(capsys):
    from fluid_compat.imperative import run_op_with_operator

    x = np.array([1.0, 2.0], "float32")
    _, op = run_op_with_operator("print", {"In": x}, {"first_n": -1, "message": "",
                                                      "summarize": -1})
    scope = Scope()
    scope.var("In@0").value = DenseTensor.from_numpy(x)
    op.run(scope, CPUPlace())
    capsys.readouterr()
    t_in, t_out = scope.find_var("In@0").value, scope.find_var("Out@out0").value
    np.testing.assert_array_equal(t_out.numpy(), x)
    assert t_in.data is not t_out.data  # Paddle's TensorCopy: Out owns its data


def test_print_refuses_a_bad_print_phase_at_plan_time(capsys):
    with pytest.raises(InvalidArgument, match="print_phase must be one of FORWARD, BACKWARD, "
                                              "BOTH, got 'SIDEWAYS'"):
        Executor().run(Program(_print_program(print_phase="SIDEWAYS")),
                       feed={"x": np.ones(1, "float32")}, fetch_list=["y"], scope=Scope())
    assert capsys.readouterr().out == ""


def test_print_of_an_unset_input_names_the_variable():
    desc = _print_program()
    with pytest.raises(PreconditionNotMet, match=r"print: input `In` \(`x`\) must hold an "
                                                 "initialized LoDTensor, it holds nothing"):
        Executor().run(Program(desc), feed={}, fetch_list=[], scope=Scope())


def test_depend_leaves_x_as_it_is():
    record = _record("depend")
    outs = Executor().run(_program(record), feed=_feed(record), fetch_list=record["fetch"],
                          scope=Scope(), return_numpy=False)
    _assert_outputs(outs, record["runs"][0]["outputs"], "depend")


def test_depend_with_another_out_fails_as_paddle():
    record = _record("depend_other_out")
    assert "Input is x and Output is o" in record["runs"][0]["error"]["message"]
    with pytest.raises(PreconditionNotMet, match="Input is x and Output is o"):
        Executor().run(_program(record), feed=_feed(record), fetch_list=record["fetch"],
                       scope=Scope())


def test_delete_var_leaves_a_parameter_of_the_outer_scope():
    record = _record("delete_var_persistable")
    program, scope, feed = _program(record), _scope(record), _feed(record)
    exe = Executor()
    for run in record["runs"]:  # the second run still finds p
        outs = exe.run(program, feed=feed, fetch_list=record["fetch"], scope=scope,
                       return_numpy=False)
        _assert_outputs(outs, run["outputs"], "delete_var_persistable")
    assert scope.find_var("p").value.data.tolist() == [1.0, 2.0]


def test_delete_var_releases_a_temporary():
    """Paddle 2.6.2's new executor segfaults on this program (the case records the crash);
    the bridge releases y: z is still computed, y cannot be fetched any more."""
    record = _record("delete_var_local")
    assert record["crash"]["returncode"] == -11 and record["runs"] == []
    program, feed = _program(record), _feed(record)
    exe = Executor()
    for _ in range(2):  # the plan runs again with its variables intact
        (z,) = exe.run(program, feed=feed, fetch_list=record["fetch"], scope=Scope())
        np.testing.assert_array_equal(z, feed["x"] * 3)  # scale(x, 3.0): hand-worked
    y_name = next(op.input("X")[0] for op in program.desc.global_block.ops
                  if op.type == "delete_var")
    with pytest.raises(NotFound, match=f"fetch target `{y_name}` holds no tensor"):
        exe.run(program, feed=feed, fetch_list=[y_name], scope=Scope())


def test_fake_init_gives_dims_without_data():
    record = _record("fake_init_fetch")
    program = _program(record)
    scope = Scope()
    with pytest.raises(NotFound, match="fetch target `o` holds no tensor"):
        Executor().run(program, feed={}, fetch_list=["o"], scope=scope)
    (t,) = [kid.find_var("o").value for kid in scope.kids]
    assert t.data is None and list(t.dims) == [4] and t.dtype is DataType.FLOAT32
    # alone (no program: no VarDesc), the dtype stays unset as Paddle leaves it
    from fluid_compat.imperative import run_op_with_operator

    _, op = run_op_with_operator("fake_init", {}, {"shape": [3, 0, 2]})
    s = Scope()
    op.run(s, CPUPlace())
    t = s.find_var("Out@out0").value
    assert t.data is None and t.dims == (3, 0, 2) and t.dtype is DataType.UNDEFINED


def test_fake_init_refuses_a_negative_dim_and_a_non_tensor_out():
    from fluid_compat.imperative import run_op_with_operator

    with pytest.raises(InvalidArgument, match=r"fake_init: attribute shape \[2, -1\] of Out "
                                              "`Out@out0` holds a negative dimension"):
        run_op_with_operator("fake_init", {}, {"shape": [2, -1]})
    _, op = run_op_with_operator("fake_init", {}, {"shape": [2]})
    s = Scope()
    s.var("Out@out0").value = [DenseTensor.from_numpy(np.ones(1))]
    with pytest.raises(InvalidArgument, match="holds list; fake_init's output only supports "
                                              "SelectedRows and LoDTensor"):
        op.run(s, CPUPlace())


@pytest.mark.xfail(strict=True, raises=InvalidArgument,
                   reason="the bridge's IndicateVarDataType (operators/expected_kernel.py) wants "
                          "an initialized input; Paddle 2.6.2 runs shape on fake_init's output")
def test_shape_of_fake_init_output_as_paddle():
    """Paddle gives shape(fake_init(shape=[2, 3])) = [2, 3] int32 from the dims alone."""
    record = _record("fake_init_shape")
    outs = Executor().run(_program(record), feed={}, fetch_list=record["fetch"],
                          scope=Scope(), return_numpy=False)
    _assert_outputs(outs, record["runs"][0]["outputs"], "fake_init_shape")


def _places_program(count: int, kind: str) -> Program:
    desc = ProgramDesc()
    block = desc.global_block
    block.create_var("places", type=VarType.PLACE_LIST, persistable=True)  # kept: read after
    block.append_op("get_places", {}, {"Out": ["places"]},
                    {"device_count": count, "device_type": kind})
    return Program(desc)


@pytest.mark.parametrize("case, count, kind", [("get_places_cpu", 2, "CPU"),
                                                ("get_places_auto", 0, "AUTO")])
def test_get_places_on_cpu(case, count, kind):
    import os

    record = _record(case)
    assert "error" not in record["runs"][0]  # Paddle ran it
    program = _program(record)
    op = next(op for op in program.desc.global_block.ops if op.type == "get_places")
    assert (op.attr("device_count"), op.attr("device_type")) == (count, kind)
    Executor().run(program, feed={}, fetch_list=[], scope=Scope())  # runs as in Paddle
    scope = Scope()
    Executor().run(_places_program(count, kind), feed={}, fetch_list=[], scope=scope)
    places = scope.find_var("places").value
    # device_count 0: every hardware thread of the host, as std::thread::hardware_concurrency
    assert list(places) == [CPUPlace()] * (count or os.cpu_count())


@pytest.mark.parametrize("case, text", [
    ("get_places_cuda_zero", "Cannot indicate GPU device count"),
    ("get_places_cuda_one", "Only 0 CUDA devices found, cannot set to 1")])
def test_get_places_without_cuda_fails_as_paddle(case, text):
    from fluid_compat.operators.fluid_kernels.get_places import cuda_device_count

    if cuda_device_count():
        pytest.skip("this machine has a CUDA device")
    record = _record(case)
    assert text in record["runs"][0]["error"]["message"]
    with pytest.raises(InvalidArgument, match=text):
        Executor().run(_program(record), feed={}, fetch_list=[], scope=Scope())


def test_get_places_refuses_an_unknown_device_type():
    with pytest.raises(InvalidArgument, match="device_type must be one of CUDA, CPU, AUTO, "
                                              "got 'XPU'"):
        Executor().run(_places_program(1, "XPU"), feed={}, fetch_list=[], scope=Scope())


@pytest.mark.parametrize("case, reason, paddle_text", [
    ("fill", "lost its kernels in Paddle 2.6.2",
     "There are no kernels which are registered in the fill operator"),
    ("copy_cross_scope", "runs only inside Paddle's pipeline trainer",
     "number of micro scopes (0) should be equal to number of micro batches (2)")])
def test_refused_at_plan_time(case, reason, paddle_text):
    record = _record(case)
    assert paddle_text in record["runs"][0]["error"]["message"]
    scope = Scope()
    with pytest.raises(Unavailable, match=rf"op #\d+ `{case}` cannot run .*: it {reason}"):
        Executor().run(_program(record), feed=_feed(record), fetch_list=[], scope=scope)
    assert scope.kids == ()  # refused before any variable was made


def test_errors_are_typed_and_tagged_with_the_op():
    desc = ProgramDesc()
    block = desc.global_block
    block.create_var("x", dtype=DataType.FLOAT32, shape=[2])
    block.create_var("o", dtype=DataType.FLOAT32, shape=[2])
    block.append_op("depend", {"X": ["x"], "Dep": []}, {"Out": ["o"]}, {})
    with pytest.raises(PhiError, match=r"\[operator < depend > error\]"):
        Executor().run(Program(desc), feed={"x": np.ones(2, "float32")}, fetch_list=[],
                       scope=Scope())


def test_print_through_run_op_names_the_slot_variable(capsys):
    x = np.arange(6, dtype="int32").reshape(2, 3)
    (out,) = run_op_tensors("print", {"In": (x, [[0, 1, 2]])},
                            {"first_n": -1, "message": "m", "summarize": 4,
                             "print_tensor_layout": False})["Out"]
    assert capsys.readouterr().out == (
        "Variable: In@0\n  - message: m\n  - lod: {{0, 1, 2}}\n  - place: Place(cpu)\n"
        "  - shape: [2, 3]\n  - dtype: int32\n  - data: [0 1 2 3]\n")
    assert out.numpy().tolist() == x.tolist() and [list(v) for v in out.lod] == [[0, 1, 2]]


def test_print_grad_from_the_bridges_backward_prints_as_paddles(capsys):
    """The forward ops of Paddle's print_backward program, differentiated by the bridge's
    append_backward: its grad print (is_forward false) prints what Paddle's printed."""
    from fluid_compat import append_backward

    record = _record("print_backward")
    program = _program(record)
    block = program.desc.global_block
    while block.num_ops > 3:  # print, scale, reduce_mean: drop Paddle's backward ops
        block.remove_op(block.num_ops - 1)
    for name in [n for n in block.vars if n.endswith("@GRAD")]:
        block.remove_var(name)
    program.mark_changed()
    append_backward(record["fetch"][0], program=program)
    outs = Executor().run(program, feed=_feed(record), fetch_list=record["fetch"],
                          scope=Scope(), return_numpy=False)
    assert capsys.readouterr().out == record["runs"][0]["stdout"]
    _assert_outputs(outs, record["runs"][0]["outputs"], "print_backward (bridge backward)")


def test_print_refuses_selected_rows_and_tensor_arrays():
    from fluid_compat.framework.scope import LoDTensorArray
    from fluid_compat.imperative import run_op_with_operator
    from phi.core.selected_rows import SelectedRows

    _, op = run_op_with_operator("print", {"In": np.ones(1, "float32")},
                                 {"first_n": -1, "message": "", "summarize": -1})
    for value, what in ((SelectedRows([0], 2, np.ones((1, 2), "float32")), "holds SelectedRows"),
                        (LoDTensorArray([DenseTensor.from_numpy(np.ones(1))]),
                         "must hold an initialized LoDTensor, it holds LoDTensorArray")):
        scope = Scope()
        scope.var("In@0").value = value
        with pytest.raises(PhiError, match=rf"print: input `In` \(`In@0`\) {what}"):
            op.run(scope, CPUPlace())
