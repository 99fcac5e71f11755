"""LoD tensors: Paddle's offset-form LoD checked as ``set_lod`` checks it,
fed as ``(array, lod)`` or ``lod_tensor``, carried through ops whose InferMeta shares it (also
on planned re-runs, where the runner's fast path must not drop it), set by kernels, fetched
with ``return_numpy=False``, and given on the command line with ``--lod``."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fluid_compat import Executor, FeedError, Program, lod_tensor, run_op_tensors
from fluid_compat.cli import main as cli_main
from fluid_compat.framework import ProgramDesc, VarType
from fluid_compat.framework.scope import Scope
from fluid_compat.framework.tensor_io import tensor_from_bytes, tensor_to_bytes
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import LoDTensor, Tensor
from phi.core.lod import check_lod, from_lengths, lengths, to_abs_offset
from phi.core.registry import KernelFactory, register_kernel


# -- the LoD itself (hand-worked) ----------------------------------------------------------------

def test_lengths_and_offsets_convert_both_ways():
    assert from_lengths([[2, 1], [1, 2, 3]]) == ((0, 2, 3), (0, 1, 3, 6))
    assert lengths(((0, 2, 3), (0, 1, 3, 6))) == ((2, 1), (1, 2, 3))
    assert from_lengths([[0, 2]]) == ((0, 0, 2),)  # an empty sequence


def test_to_abs_offset_expresses_every_level_in_rows():
    # two paragraphs of (2, 1) sentences of (1, 2, 3) words: paragraph 0 = rows 0..3
    assert to_abs_offset(((0, 2, 3), (0, 1, 3, 6))) == ((0, 3, 6), (0, 1, 3, 6))


@pytest.mark.parametrize(("lod", "rows", "why"), [
    (((0,),), 0, "two offsets"),
    (((1, 3),), 3, "start at 0"),
    (((0, 3, 2),), 2, "decreases"),
    (((0, 2, 3), (0, 1, 3)), 3, "holds 2 sequences"),
    (((0, 2, 5),), 4, "tensor has 4 rows"),
])
def test_check_lod_refuses_what_paddle_set_lod_refuses(lod, rows, why):
    with pytest.raises(InvalidArgument, match=why):
        check_lod(lod, rows, "x")


def test_check_lod_accepts_nested_levels_and_empty_sequences():
    check_lod(((0, 2, 3), (0, 1, 1, 6)), 6, "x")


# -- feeds, ops, fetches -------------------------------------------------------------------------

def _program(feed_fetch: bool = False) -> Program:
    desc = ProgramDesc()
    block = desc.global_block
    if feed_fetch:  # as save_inference_model writes it
        block.create_var("feed", type=VarType.FEED_MINIBATCH, persistable=True)
        block.create_var("fetch", type=VarType.FETCH_LIST, persistable=True)
        block.append_op("feed", {"X": ["feed"]}, {"Out": ["x"]}, {"col": 0})
    for name in ("x", "y", "z", "w"):
        block.create_var(name, dtype=DataType.FLOAT32, shape=[-1, 3], lod_level=1)
    block.append_op("relu", {"X": ["x"]}, {"Out": ["y"]}, {})
    block.append_op("scale", {"X": ["y"]}, {"Out": ["z"]}, {"scale": 2.0})
    block.append_op("lod_reset", {"X": ["z"]}, {"Out": ["w"]}, {"target_lod": [0, 1, 5]})
    if feed_fetch:
        block.append_op("fetch", {"X": ["w"]}, {"Out": ["fetch"]}, {"col": 0})
    return Program(desc)


def test_lod_flows_through_a_program_on_every_run():
    x = np.arange(-7, 8, dtype=np.float32).reshape(5, 3)
    program, exe, scope = _program(), Executor(), Scope()
    for lod in ([[0, 2, 5]], [[0, 4, 5]], [[0, 2, 5]]):  # the same shapes: planned re-runs
        y, z, w = exe.run(program, feed={"x": (x, lod)}, fetch_list=["y", "z", "w"],
                          scope=scope, return_numpy=False)
        assert [list(v) for v in y.lod] == lod and [list(v) for v in z.lod] == lod
        assert [list(v) for v in w.lod] == [[0, 1, 5]]  # set by lod_reset's kernel
        np.testing.assert_array_equal(w.numpy(), 2 * np.maximum(x, 0))
    # without a LoD the same plan gives tensors without one (the fast path arms now)
    for _ in range(2):
        (z,) = exe.run(program, feed={"x": x}, fetch_list=["z"], scope=scope, return_numpy=False)
        assert z.lod == ()


def test_a_lod_that_does_not_fit_the_feed_is_refused():
    x = np.zeros((4, 3), np.float32)
    with pytest.raises(FeedError, match="LoD is invalid.*ends at 5.*4 rows"):
        Executor().run(_program(), feed={"x": (x, [[0, 2, 5]])}, fetch_list=["y"])
    with pytest.raises(InvalidArgument, match="must start at 0"):
        lod_tensor(x, [[1, 4]])


def test_lod_tensor_takes_offsets_or_lengths():
    a = lod_tensor(np.zeros((3, 1)), recursive_seq_lens=[[1, 2]])
    assert a.lod == ((0, 1, 3),)
    assert lod_tensor(np.zeros((3, 1)), [[0, 1, 3]]).lod == a.lod


def test_run_op_takes_and_returns_lod_tensors():
    out = run_op_tensors("elementwise_add", {"X": (np.ones((3, 2), np.float32), [[0, 1, 3]]),
                                             "Y": np.ones(2, np.float32)}, {"axis": -1})
    (t,) = out["Out"]
    assert t.lod == ((0, 1, 3),) and t.numpy().tolist() == [[2, 2]] * 3


def test_tensor_stream_round_trips_the_lod():
    data = tensor_to_bytes(np.arange(6, dtype=np.float32).reshape(6, 1), [[0, 1, 3], [0, 2, 3, 6]])
    array, lod = tensor_from_bytes(data)
    assert lod == ((0, 1, 3), (0, 2, 3, 6)) and array.shape == (6, 1)


def test_cli_run_takes_lod_per_feed(tmp_path, capsys):
    from fluid_compat.io import save_inference_model

    prefix = tmp_path / "m"
    save_inference_model(prefix, _program(feed_fetch=True), Scope())
    np.save(tmp_path / "x.npy", np.ones((5, 3), np.float32))
    code = cli_main(["run", str(prefix), "--feed", f"x={tmp_path / 'x.npy'}", "--lod",
                     "x=[[0,2,5]]", "--out", str(tmp_path / "out")])
    text = capsys.readouterr().out
    assert code == 0, text
    assert "lod [[0, 1, 5]]" in text
    assert json.loads((tmp_path / "out" / "output_0.lod.json").read_text()) == [[0, 1, 5]]
    assert cli_main(["run", str(prefix), "--feed", f"x={tmp_path / 'x.npy'}", "--lod",
                     "x=[0,2,5]"]) == 1


# -- phi kernels that read and set a LoD ---------------------------------------------------------

def test_lod_tensor_annotations_mark_the_arguments():
    factory = KernelFactory()

    @register_kernel("seq_first", "CPU", ["float32"], factory=factory)
    def seq_first(ctx, x: LoDTensor, scale: Tensor | None) -> LoDTensor:
        return ctx.lod_tensor(x.data[list(x.lod[-1][:-1])], ())

    (kernel,) = factory.kernels_of("seq_first").values()
    ins, outs = kernel.args_def.inputs, kernel.args_def.outputs
    assert [d.lod for d in ins] == [True, False] and [d.lod for d in outs] == [True]
