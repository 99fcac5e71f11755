"""Control-flow and tensor-array edges on hand-built programs: Paddle's scope rules (a variable
a sub-block declares lives in the sub-block's scope and is seen by that block's later ops; a
variable of an enclosing block is written where it lives), while's two scope modes, and bad input
(a condition never written, the step limit, a non-bool condition, a read past an array's end, a
negative index, values of the wrong kind), each a typed error naming op, block and variable.

Paddle-made whole programs are checked in test_loop_programs.py; the values here are worked by
hand (a counter loop: 0 + 1 + ... )."""

from __future__ import annotations

import numpy as np
import pytest

import phi
from fluid_compat import Executor, Program
from fluid_compat.framework import ProgramDesc, VarType
from fluid_compat.framework.scope import Scope
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument, NotFound, OutOfRange, PreconditionNotMet

F32, I64, BOOL = DataType.FLOAT32, DataType.INT64, DataType.BOOL


def _fill(block, name, value, dtype=I64, shape=(1,)):
    block.create_var(name, dtype=dtype, shape=list(shape))
    block.append_op("fill_constant", {}, {"Out": [name]},
                    {"shape": list(shape), "value": float(value), "dtype": _proto_dtype(dtype)})


def _proto_dtype(dtype: DataType) -> int:
    """The VarType number fill_constant's dtype attribute takes."""
    return {DataType.INT64: 3, DataType.FLOAT32: 5, DataType.BOOL: 0, DataType.INT32: 2}[dtype]


def _counter_loop(n: int, *, is_test: bool, write_cond: bool = True, cond_dtype=BOOL):
    """i = 0; acc = 0; arr = []; while i < n: arr[i] = acc; acc += i; i += 1  (block 1 also
    declares `tmp`, written by a conditional_block nested in the step and read after it)."""
    desc = ProgramDesc()
    b0 = desc.global_block
    _fill(b0, "i", 0)
    _fill(b0, "n", n)
    _fill(b0, "acc", 0, F32)
    b0.create_var("arr", type=VarType.LOD_TENSOR_ARRAY, dtype=F32)
    b0.create_var("cond", dtype=cond_dtype, shape=[1])
    if cond_dtype is BOOL:
        b0.append_op("less_than", {"X": ["i"], "Y": ["n"]}, {"Out": ["cond"]}, {})
    else:
        b0.append_op("fill_constant", {}, {"Out": ["cond"]},
                     {"shape": [1], "value": 1.0, "dtype": _proto_dtype(cond_dtype)})
    b0.create_var("scopes", type=VarType.STEP_SCOPES)
    b1 = desc.append_block(b0)
    b1.create_var("tmp", dtype=F32, shape=[1])
    b1.create_var("i_f", dtype=F32, shape=[1])
    b1.create_var("always", dtype=BOOL, shape=[1])
    b1.create_var("cb_scope", type=VarType.STEP_SCOPES)
    b1.append_op("write_to_array", {"X": ["acc"], "I": ["i"]}, {"Out": ["arr"]}, {})
    b1.append_op("cast", {"X": ["i"]}, {"Out": ["i_f"]}, {"in_dtype": 3, "out_dtype": 5})
    # a conditional block inside the step writes `tmp`, declared by block 1 (the SLANet shape)
    b1.append_op("fill_constant", {}, {"Out": ["always"]},
                 {"shape": [1], "value": 1.0, "dtype": 0})
    b2 = desc.append_block(b1)
    b2.append_op("assign", {"X": ["i_f"]}, {"Out": ["tmp"]}, {})
    b1.append_op("conditional_block", {"Cond": ["always"], "Input": ["i_f"]},
                 {"Out": ["tmp"], "Scope": ["cb_scope"]},
                 {"sub_block": b2.idx, "is_scalar_condition": True})
    b1.append_op("elementwise_add", {"X": ["acc"], "Y": ["tmp"]}, {"Out": ["acc"]}, {"axis": -1})
    b1.append_op("increment", {"X": ["i"]}, {"Out": ["i"]}, {"step": 1.0})
    if write_cond:
        b1.append_op("less_than", {"X": ["i"], "Y": ["n"]}, {"Out": ["cond"]}, {})
    b0.append_op("while", {"X": ["i", "n", "acc", "arr"], "Condition": ["cond"]},
                 {"Out": ["i", "acc", "arr"], "StepScopes": ["scopes"]},
                 {"sub_block": b1.idx, "is_test": is_test})
    b0.create_var("len", dtype=I64, shape=[1])
    b0.append_op("lod_array_length", {"X": ["arr"]}, {"Out": ["len"]}, {})
    b0.create_var("stacked", dtype=F32, shape=[-1, 1])
    b0.create_var("sizes", dtype=DataType.INT32, shape=[-1])
    b0.append_op("tensor_array_to_tensor", {"X": ["arr"]},
                 {"Out": ["stacked"], "OutIndex": ["sizes"]}, {"axis": 0, "use_stack": False})
    return Program(desc)


@pytest.mark.parametrize("is_test", [True, False])
def test_a_counter_loop_with_a_nested_conditional_block(is_test):
    exe, scope = Executor(), Scope()
    for _ in range(2):  # the replayed plan too: the array starts empty at every run
        acc, length, stacked, sizes = exe.run(_counter_loop(5, is_test=is_test),
                                              fetch_list=["acc", "len", "stacked", "sizes"],
                                              scope=scope)
        # acc after step k is 0 + 1 + ... + k; arr[k] holds acc before step k
        assert acc.tolist() == [10.0]
        assert length.tolist() == [5] and length.dtype == np.int64
        assert stacked.ravel().tolist() == [0.0, 0.0, 1.0, 3.0, 6.0]
        assert sizes.tolist() == [1] * 5 and sizes.dtype == np.int32


def test_a_loop_that_never_runs_leaves_an_empty_array():
    with pytest.raises(InvalidArgument, match=r"tensor_array_to_tensor.*`arr`.*empty"):
        Executor().run(_counter_loop(0, is_test=True), fetch_list=["acc"], scope=Scope())


def test_a_condition_that_no_op_writes_is_refused_before_the_loop_runs():
    with pytest.raises(PreconditionNotMet, match=r"op #\d+ `while`.*`cond`.*never end"):
        Executor().run(_counter_loop(3, is_test=True, write_cond=False), fetch_list=["acc"],
                       scope=Scope())


def test_the_step_limit_stops_a_long_loop_with_the_flag_named():
    old = phi.get_flags(["FLAGS_while_max_steps"])
    phi.set_flags({"FLAGS_while_max_steps": 4})
    try:
        with pytest.raises(PreconditionNotMet, match=r"`while`.*ran 4 steps.*"
                                                     r"FLAGS_while_max_steps=4"):
            Executor().run(_counter_loop(10, is_test=False), fetch_list=["acc"], scope=Scope())
        # 4 steps exactly is within the limit
        acc, = Executor().run(_counter_loop(4, is_test=False), fetch_list=["acc"], scope=Scope())
        assert acc.tolist() == [6.0]
    finally:
        phi.set_flags(old)


def test_a_condition_that_is_not_bool_is_refused():
    with pytest.raises(InvalidArgument, match=r"`while`.*Condition \(`cond`\) must be a bool"):
        Executor().run(_counter_loop(3, is_test=True, cond_dtype=DataType.INT32),
                       fetch_list=["acc"], scope=Scope())


def _array_program(index: int, *, read: bool = True, x_is_array: bool = False):
    desc = ProgramDesc()
    b0 = desc.global_block
    _fill(b0, "x", 2.5, F32, (2,))
    _fill(b0, "zero", 0)
    _fill(b0, "k", index)
    b0.create_var("arr", type=VarType.LOD_TENSOR_ARRAY, dtype=F32)
    b0.append_op("write_to_array", {"X": ["arr" if x_is_array else "x"], "I": ["zero"]},
                 {"Out": ["arr"]}, {})
    b0.create_var("y", dtype=F32, shape=[2])
    if read:
        b0.append_op("read_from_array", {"X": ["arr"], "I": ["k"]}, {"Out": ["y"]}, {})
    else:
        b0.append_op("write_to_array", {"X": ["x"], "I": ["k"]}, {"Out": ["arr"]}, {})
        b0.append_op("read_from_array", {"X": ["arr"], "I": ["zero"]}, {"Out": ["y"]}, {})
    return Program(desc)


def test_read_and_write_by_index():
    y, = Executor().run(_array_program(0), fetch_list=["y"], scope=Scope())
    assert y.tolist() == [2.5, 2.5]
    # writing at 3 grows the array to 4; steps 1 and 2 stay unwritten
    exe = Executor()
    y, arr = exe.run(_array_program(3, read=False), fetch_list=["y", "arr"], scope=Scope(),
                     return_numpy=False)
    assert y.numpy().tolist() == [2.5, 2.5] and len(arr) == 4
    assert [t.data is None for t in arr] == [False, True, True, False]
    with pytest.raises(NotFound, match=r"fetch target `arr`.*steps \[1, 2\] were never written"):
        exe.run(_array_program(3, read=False), fetch_list=["arr"], scope=Scope())
    arr, = exe.run(_array_program(0), fetch_list=["arr"], scope=Scope())
    assert isinstance(arr, list) and [a.tolist() for a in arr] == [[2.5, 2.5]]


def test_a_read_past_the_end_names_the_array_and_its_length():
    # a deliberate deviation: Paddle leaves Out untouched (docs/control-flow.md)
    with pytest.raises(OutOfRange, match=r"`read_from_array`.*I = 1 reads past the end of the "
                                         r"array X \(`arr`\), which has 1 steps"):
        Executor().run(_array_program(1), fetch_list=["y"], scope=Scope())


def test_a_read_of_a_step_never_written_is_refused():
    prog = _array_program(3, read=False)
    block = prog.desc.global_block
    _fill(block, "two", 2)
    block.create_var("z", dtype=F32, shape=[2])
    block.append_op("read_from_array", {"X": ["arr"], "I": ["two"]}, {"Out": ["z"]}, {})
    with pytest.raises(PreconditionNotMet, match=r"step 2 of the array X \(`arr`\) was never "
                                                 "written"):
        Executor().run(prog, fetch_list=["z"], scope=Scope())


def test_a_negative_index_is_refused():
    with pytest.raises(OutOfRange, match=r"index I \(`k`\) is -1"):
        Executor().run(_array_program(-1), fetch_list=["y"], scope=Scope())


def test_an_array_where_a_tensor_belongs_and_a_tensor_where_an_array_belongs():
    with pytest.raises(InvalidArgument, match=r"`write_to_array`.*X \(`arr`\) must hold a "
                                              "tensor, it holds LoDTensorArray"):
        Executor().run(_array_program(0, x_is_array=True), fetch_list=["y"], scope=Scope())
    desc = ProgramDesc()
    b0 = desc.global_block
    _fill(b0, "x", 1.0, F32, (2,))
    b0.create_var("n", dtype=I64, shape=[1])
    b0.append_op("lod_array_length", {"X": ["x"]}, {"Out": ["n"]}, {})
    with pytest.raises(InvalidArgument, match=r"`lod_array_length`.*input `X` \(`x`\) must hold "
                                              "a tensor array, it holds a tensor"):
        Executor().run(Program(desc), fetch_list=["n"], scope=Scope())


def test_an_index_that_is_not_one_integer_is_refused():
    desc = ProgramDesc()
    b0 = desc.global_block
    _fill(b0, "x", 1.0, F32, (2,))
    _fill(b0, "two", 0, I64, (2,))
    _fill(b0, "half", 0.5, F32)
    b0.create_var("arr", type=VarType.LOD_TENSOR_ARRAY, dtype=F32)
    b0.append_op("write_to_array", {"X": ["x"], "I": ["two"]}, {"Out": ["arr"]}, {})
    with pytest.raises(InvalidArgument, match=r"index I \(`two`\) must hold one element, it "
                                              r"holds 2"):
        Executor().run(Program(desc), fetch_list=["arr"], scope=Scope())
    b0.remove_op(b0.num_ops - 1)
    b0.append_op("write_to_array", {"X": ["x"], "I": ["half"]}, {"Out": ["arr"]}, {})
    prog = Program(desc)
    with pytest.raises(InvalidArgument, match=r"index I \(`half`\) must be an integer"):
        Executor().run(prog, fetch_list=["arr"], scope=Scope())


def test_select_input_of_a_variable_no_branch_wrote_names_it():
    desc = ProgramDesc()
    b0 = desc.global_block
    _fill(b0, "a", 1.0, F32)
    b0.create_var("never", dtype=F32, shape=[1])
    _fill(b0, "mask", 1, DataType.INT32)
    b0.create_var("out", dtype=F32, shape=[1])
    b0.append_op("select_input", {"X": ["a", "never"], "Mask": ["mask"]}, {"Out": ["out"]}, {})
    with pytest.raises(PreconditionNotMet, match=r"`select_input`.*`X` \(`never`\) holds no "
                                                 "tensor"):
        Executor().run(Program(desc), fetch_list=["out"], scope=Scope())
    with pytest.raises(NotFound):
        Executor().run(Program(desc), fetch_list=["nothing_here"], scope=Scope())


def test_a_loop_body_replays_its_kernel_decisions_and_starts_each_run_fresh():
    """The body's ops run as bound runners (block 0's fast path) in a kid scope kept between
    runs, which is emptied at each run's start as Paddle's fresh scope would be."""
    exe, scope = Executor(), Scope()
    program = _counter_loop(5, is_test=True)
    for _ in range(3):
        acc, = exe.run(program, fetch_list=["acc"], scope=scope)
        assert acc.tolist() == [10.0]
    (plan,) = exe.plans()
    loop = next(op for op in plan.ops if op.type == "while")
    parent, _, kid, runners = loop._bound
    assert parent is plan.local and len(runners) == len(loop.sub_ops)
    fast = {r.op.type: r.fast_runs for r in runners}
    assert fast["elementwise_add"] > 0 and fast["cast"] > 0  # replayed without dispatch
    # a body-local value of the last run is gone when the next run starts
    kid.find_local_var("i_f").value = "stale"
    acc, = exe.run(program, fetch_list=["acc"], scope=scope)
    assert acc.tolist() == [10.0] and kid.find_local_var("i_f").value != "stale"
