"""The rank-table / LoD routing ops (lod_rank_table, max_sequence_len, reorder_lod_tensor_by_rank
(+ _grad), shrink_rnn_memory (+ _grad), lod_tensor_to_array, array_to_lod_tensor,
split_lod_tensor, merge_lod_tensor(_infer)).

Truth: whole programs run by Paddle 2.6.2 (tests/fixtures/lod_array, made by
tools/fixtures/gen_lod_array_programs.py: the DynamicRNN and IfElse patterns and the grads
paddle.static.gradients adds), values and LoD of every fetch, tensor-array steps included; the
single-op cases of split / merge are in tests/fixtures/single_ops (test_corpus_cases).  Beside
them: hand-worked rank tables and typed errors naming op and variable."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fluid_compat import Executor, Program
from fluid_compat.framework import ProgramDesc, VarType
from fluid_compat.framework.lod_rank_table import LoDRankTable, append_lod, sub_lod_and_offset
from fluid_compat.framework.op_registry import create_op
from fluid_compat.framework.scope import LoDTensorArray, Scope, lod_tensor
from phi.common.data_type import DataType
from phi.common.place import CPUPlace
from phi.core.errors import InvalidArgument, OutOfRange, PreconditionNotMet
from phi.core.tensor import DenseTensor

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "lod_array"
#: the recurrent cases of the same directory are test_recurrent.py's
CASES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir()
               and not p.name.startswith("static_rnn"))


def _load(case: str):
    d = FIXTURES / case
    meta = json.loads((d / "meta.json").read_text())
    data = np.load(d / "data.npz")
    feed = {n: (data[f["npz_key"]], f["lod"]) if f["lod"] else data[f["npz_key"]]
            for n, f in meta["feeds"].items()}
    return Program.parse_from_string((d / "program.pb").read_bytes()), meta, data, feed


def _lod(t) -> list:
    return [list(level) for level in t.lod]


def check_fetches(meta, data, outs) -> None:
    """Every fetch equal to Paddle's: dtype, shape, LoD and values (of an array: each step)."""
    for f, got in zip(meta["fetches"], outs, strict=True):
        if f["kind"] == "array":
            assert isinstance(got, LoDTensorArray), f["name"]
            assert len(got) == len(f["steps"]), f["name"]
            pairs = [(s, t) for s, t in zip(f["steps"], got, strict=True)]
        else:
            pairs = [(f, got)]
        for want_meta, t in pairs:
            want = data[want_meta["npz_key"]]
            host = t.numpy()
            assert _lod(t) == want_meta["lod"], f["name"]
            assert host.shape == want.shape and host.dtype == want.dtype, f["name"]
            # rows past the LoD's end are memory Paddle never wrote (merge's empty-sequence case)
            rows = want_meta["lod"][-1][-1] if want_meta["lod"] else None
            np.testing.assert_allclose(host[:rows], want[:rows], rtol=1e-5, atol=1e-6,
                                       err_msg=f["name"])


@pytest.mark.parametrize("case", CASES)
def test_program_matches_paddle(case):
    program, meta, data, feed = _load(case)
    exe, scope = Executor(), Scope()
    for _ in range(2):  # the planned re-run too
        outs = exe.run(program, feed=feed, fetch_list=[f["name"] for f in meta["fetches"]],
                       scope=scope, return_numpy=False)
        check_fetches(meta, data, outs)


def test_the_fixtures_cover_every_op_and_grad():
    ops = set()
    for case in CASES:
        ops |= set(json.loads((FIXTURES / case / "meta.json").read_text())["ops"])
    assert {"lod_rank_table", "max_sequence_len", "reorder_lod_tensor_by_rank",
            "reorder_lod_tensor_by_rank_grad", "shrink_rnn_memory", "shrink_rnn_memory_grad",
            "lod_tensor_to_array", "array_to_lod_tensor", "split_lod_tensor",
            "merge_lod_tensor", "merge_lod_tensor_infer"} <= ops


# ---- the rank table and the LoD arithmetic, worked by hand ----------------------------------

def test_rank_table_is_longest_first_and_stable_on_ties():
    t = LoDRankTable.from_lod(((0, 2, 5, 7, 11, 14),), 0)
    assert t.items == ((3, 4), (1, 3), (4, 3), (0, 2), (2, 2)) and t.level == 0
    t1 = LoDRankTable.from_lod(((0, 2, 5), (0, 1, 4, 6, 8, 9)), 1)
    assert t1.items == ((1, 3), (2, 2), (3, 2), (0, 1), (4, 1))
    assert t1.coarse_lod == ((0, 2, 5),) and t1.level == 1


def test_sub_lod_and_append_lod():
    lod = ((0, 2, 5), (0, 1, 4, 6, 8, 9))
    # sentence 1 = words 2..4 = rows 4..9, words of 2, 2, 1 rows
    assert sub_lod_and_offset(lod, 1, 2, 0, "t") == (((3,), (2, 2, 1)), (4, 9))
    assert sub_lod_and_offset((), 3, 4, 0, "t") == ((), (3, 4))  # no LoD: rows
    grown: list[list[int]] = []
    append_lod(grown, ((3,), (2, 2, 1)), "t")
    append_lod(grown, ((1,), (4,)), "t")
    assert grown == [[0, 3, 4], [0, 2, 4, 5, 9]]
    with pytest.raises(InvalidArgument, match="past the end"):
        sub_lod_and_offset(lod, 2, 3, 0, "t")


# ---- typed errors -----------------------------------------------------------------------------

def _run(op_type, inputs, outputs, attrs=None):
    """Run one operator class on values put straight into a scope; the scope back."""
    scope = Scope()
    names = {}
    for slot, value in inputs.items():
        names[slot] = [f"in_{slot}"]
        scope.var(f"in_{slot}").value = value
    op = create_op(op_type, names, {s: [f"out_{s}"] for s in outputs}, attrs or {})
    op.run(scope, CPUPlace())
    return scope


def _x(rows=6, lod=((0, 2, 5, 6),)):
    return lod_tensor(np.arange(rows * 2, dtype=np.float32).reshape(rows, 2), list(lod))


def _table(lod=((0, 2, 5, 6),), level=0):
    return LoDRankTable.from_lod(lod, level)


def test_a_rank_table_input_that_is_no_rank_table():
    with pytest.raises(InvalidArgument, match=r"reorder_lod_tensor_by_rank.*RankTable.*"
                                              r"`in_RankTable`.*LoDRankTable.*a tensor"):
        _run("reorder_lod_tensor_by_rank", {"X": _x(), "RankTable": _x()}, ["Out"])
    with pytest.raises(InvalidArgument, match=r"max_sequence_len.*`in_RankTable`.*nothing"):
        _run("max_sequence_len", {"RankTable": None}, ["Out"])


def test_lod_rank_table_needs_the_level_it_ranks():
    with pytest.raises(InvalidArgument, match=r"lod_rank_table.*`in_X`.*level 0.*0 LoD"):
        _run("lod_rank_table", {"X": DenseTensor.from_numpy(np.zeros((3, 2), np.float32))},
             ["Out"], {"level": 0})
    with pytest.raises(InvalidArgument, match="level 1"):
        _run("lod_rank_table", {"X": _x()}, ["Out"], {"level": 1})


def test_lod_tensor_to_array_needs_a_lod_deep_enough():
    table = _table(((0, 1, 3), (0, 2, 5, 6)), level=1)
    with pytest.raises(InvalidArgument, match=r"lod_tensor_to_array.*`in_X`.*at least 2"):
        _run("lod_tensor_to_array", {"X": _x(), "RankTable": table}, ["Out"])


def test_array_to_lod_tensor_errors():
    table = _table()  # lengths 2, 3, 1: three steps needed
    with pytest.raises(PreconditionNotMet, match=r"array_to_lod_tensor.*no element.*`in_X`"):
        _run("array_to_lod_tensor", {"X": LoDTensorArray(), "RankTable": table}, ["Out"])
    step = DenseTensor.from_numpy(np.zeros((3, 2), np.float32))
    with pytest.raises(InvalidArgument, match=r"sequence 1 has 3 steps.*`in_X` holds 2"):
        _run("array_to_lod_tensor", {"X": LoDTensorArray([step, step]), "RankTable": table},
             ["Out"])
    short = DenseTensor.from_numpy(np.zeros((1, 2), np.float32))
    with pytest.raises(InvalidArgument, match=r"element 1 of `in_X` has 1 rows.*past the end"):
        _run("array_to_lod_tensor", {"X": LoDTensorArray([step, short, short]),
                                     "RankTable": table}, ["Out"])
    wide = DenseTensor.from_numpy(np.zeros((2, 3), np.float32))
    with pytest.raises(InvalidArgument, match=r"dimension of element 1"):
        _run("array_to_lod_tensor", {"X": LoDTensorArray([step, wide, short]),
                                     "RankTable": table}, ["Out"])
    with pytest.raises(InvalidArgument, match=r"array_to_lod_tensor.*`in_X`.*tensor array.*"
                                              r"a tensor"):
        _run("array_to_lod_tensor", {"X": step, "RankTable": table}, ["Out"])


def test_reorder_by_a_table_of_another_batch_out_of_range():
    table = _table(((0, 1, 2, 3, 4),))  # four sequences; X has three
    with pytest.raises(OutOfRange, match=r"names sequence 3.*`in_X`.*has 3"):
        _run("reorder_lod_tensor_by_rank", {"X": _x(), "RankTable": table}, ["Out"])


def test_shrink_rnn_memory_worked_by_hand_and_its_index():
    mem = DenseTensor.from_numpy(np.arange(6, dtype=np.float32).reshape(3, 2))
    table = _table()  # lengths 3, 2, 1
    i = DenseTensor.from_numpy(np.array([1], np.int64))
    out = _run("shrink_rnn_memory", {"X": mem, "RankTable": table, "I": i},
               ["Out"]).find_var("out_Out").value
    assert out.numpy().tolist() == [[0, 1], [2, 3]]  # two sequences run past step 1
    two = DenseTensor.from_numpy(np.array([1, 2], np.int64))
    with pytest.raises(InvalidArgument, match=r"shrink_rnn_memory.*`I` \(`in_I`\).*numel 1"):
        _run("shrink_rnn_memory", {"X": mem, "RankTable": table, "I": two}, ["Out"])
    fl = DenseTensor.from_numpy(np.array([1.0], np.float32))
    with pytest.raises(InvalidArgument, match="integer index"):
        _run("shrink_rnn_memory", {"X": mem, "RankTable": table, "I": fl}, ["Out"])


def test_shrink_rnn_memory_grad_without_out_grad_is_zeros():
    mem = _x()
    scope = Scope()
    scope.var("x").value = mem
    op = create_op("shrink_rnn_memory_grad", {"X": ["x"], "Out@GRAD": ["dout"]},
                   {"X@GRAD": ["dx"]}, {})
    op.run(scope, CPUPlace())  # Out@GRAD never computed: X@GRAD = 0 with X's LoD
    dx = scope.find_var("dx").value
    assert dx.lod == mem.lod and not dx.numpy().any() and dx.numpy().shape == (6, 2)


def test_split_and_merge_errors():
    x = _x()
    f32_mask = DenseTensor.from_numpy(np.ones((3, 1), np.float32))
    with pytest.raises(InvalidArgument, match=r"split_lod_tensor.*Mask \(`in_Mask`\).*bool"):
        _run("split_lod_tensor", {"X": x, "Mask": f32_mask}, ["OutTrue", "OutFalse"])
    flat = DenseTensor.from_numpy(np.ones((3,), bool))
    with pytest.raises(InvalidArgument, match=r"2-D"):
        _run("split_lod_tensor", {"X": x, "Mask": flat}, ["OutTrue", "OutFalse"])
    long_mask = DenseTensor.from_numpy(np.ones((4, 1), bool))
    with pytest.raises(InvalidArgument, match=r"split_lod_tensor.*Mask entry 3.*past the end"):
        _run("split_lod_tensor", {"X": x, "Mask": long_mask}, ["OutTrue", "OutFalse"])
    mask = DenseTensor.from_numpy(np.array([[True], [False]]))
    empty = DenseTensor.from_numpy(np.zeros((0, 2), np.float32))
    with pytest.raises(InvalidArgument, match=r"InTrue\) \(`in_InTrue`\) or Input\(InFalse\)"):
        _run("merge_lod_tensor", {"X": x, "Mask": mask, "InTrue": empty, "InFalse": empty},
             ["Out"])
    one = DenseTensor.from_numpy(np.ones((1, 2), np.float32))
    with pytest.raises(InvalidArgument, match=r"more rows of InTrue \(`in_InTrue`\)"):
        _run("merge_lod_tensor", {"X": x, "Mask": DenseTensor.from_numpy(np.ones((2, 1), bool)),
                                  "InTrue": one, "InFalse": empty}, ["Out"])


def test_merge_lod_tensor_infer_empties_the_branches():
    x = DenseTensor.from_numpy(np.zeros((3, 2), np.float32))
    mask = DenseTensor.from_numpy(np.array([[True], [False], [True]]))
    t = DenseTensor.from_numpy(np.array([[1, 1], [3, 3]], np.float32))
    f = DenseTensor.from_numpy(np.array([[2, 2]], np.float32))
    scope = _run("merge_lod_tensor_infer", {"X": x, "Mask": mask, "InTrue": t, "InFalse": f},
                 ["Out"])
    assert scope.find_var("out_Out").value.numpy().tolist() == [[1, 1], [2, 2], [3, 3]]
    assert scope.find_var("in_InTrue").value.data is None
    assert scope.find_var("in_InFalse").value.data is None


def test_errors_name_where_the_op_sits_in_a_program():
    desc = ProgramDesc()
    b0 = desc.global_block
    b0.create_var("x", dtype=DataType.FLOAT32, shape=[-1, 2], lod_level=1)
    b0.create_var("table", type=VarType.LOD_RANK_TABLE)
    b0.create_var("arr", type=VarType.LOD_TENSOR_ARRAY, dtype=DataType.FLOAT32)
    b0.append_op("lod_rank_table", {"X": ["x"]}, {"Out": ["table"]}, {"level": 0})
    b0.append_op("lod_tensor_to_array", {"X": ["x"], "RankTable": ["x"]}, {"Out": ["arr"]}, {})
    feed = {"x": (np.zeros((3, 2), np.float32), [[0, 1, 3]])}
    with pytest.raises(InvalidArgument, match=r"op #1 `lod_tensor_to_array`.*RankTable.*`x`"):
        Executor().run(Program(desc), feed=feed, fetch_list=["arr"], scope=Scope())
