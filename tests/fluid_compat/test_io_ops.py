"""The io / control ops against files Paddle 2.6.2's own save / save_combine ops
wrote (tests/fixtures/io, made by tools/fixtures/gen_io_files.py): byte-identical files, the
same tensors and LoD read back, load_as_fp16 as Paddle converts; assert, read_file, seed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fluid_compat import run_op, run_op_tensors
from phi.core.errors import InvalidArgument, NotFound, PhiError, PreconditionNotMet

IO = Path(__file__).resolve().parents[1] / "fixtures" / "io"
LOD = [[0, 1, 3], [0, 2, 3, 6]]


@pytest.fixture
def inputs():
    with np.load(IO / "inputs.npz") as z:
        return {k: z[k] for k in z.files}


def test_save_writes_paddles_bytes(tmp_path, inputs):
    for name, extra in (("save.bin", {}), ("save_fp16.bin", {"save_as_fp16": True})):
        path = tmp_path / name
        run_op("save", {"X": (inputs["a"], LOD)}, {"file_path": str(path), **extra})
        assert path.read_bytes() == (IO / name).read_bytes(), name


def test_save_combine_writes_paddles_bytes(tmp_path, inputs):
    path = tmp_path / "c.bin"
    run_op("save_combine", {"X": [inputs["a"], inputs["b"], inputs["c"]]},
           {"file_path": str(path)})
    assert path.read_bytes() == (IO / "save_combine.bin").read_bytes()


def test_load_reads_paddles_file_with_its_lod(inputs):
    (t,) = run_op_tensors("load", {}, {"file_path": str(IO / "save.bin")})["Out"]
    np.testing.assert_array_equal(t.numpy(), inputs["a"])
    assert [list(level) for level in t.lod] == LOD
    (h,) = run_op("load", {}, {"file_path": str(IO / "save.bin"), "load_as_fp16": True})["Out"]
    want = np.load(IO / "load_fp16.npy")
    assert h.dtype == np.float16 and h.tobytes() == want.tobytes()  # Paddle's truncation, inf


def test_load_combine_checks_the_count_and_reads_all(inputs, tmp_path):
    from fluid_compat import Executor, Program
    from fluid_compat.framework import ProgramDesc
    from fluid_compat.framework.scope import Scope

    desc = ProgramDesc()
    block = desc.global_block
    for n in ("a", "b", "c"):
        block.create_var(n, persistable=True)
    block.append_op("load_combine", {}, {"Out": ["a", "b", "c"]},
                    {"file_path": str(IO / "save_combine.bin")})
    scope = Scope()
    Executor().run(Program(desc), feed={}, fetch_list=[], scope=scope)
    for n in ("a", "b", "c"):
        got = scope.find_var(n).value.numpy()
        assert got.dtype == inputs[n].dtype
        np.testing.assert_array_equal(got, inputs[n])
    with pytest.raises(PhiError, match="holds 3 tensors, the op loads 1"):
        run_op("load_combine", {}, {"file_path": str(IO / "save_combine.bin")})


def test_save_refuses_to_overwrite_when_asked_and_load_names_a_missing_file(tmp_path):
    path = tmp_path / "x.bin"
    run_op("save", {"X": np.ones(2, np.float32)}, {"file_path": str(path)})
    with pytest.raises(PreconditionNotMet, match="exists"):
        run_op("save", {"X": np.ones(2, np.float32)}, {"file_path": str(path),
                                                        "overwrite": False})
    with pytest.raises(NotFound, match="Cannot open file"):
        run_op("load", {}, {"file_path": str(tmp_path / "missing.bin")})
    path.write_bytes(path.read_bytes()[:-3])  # truncated
    with pytest.raises(PhiError, match="load"):
        run_op("load", {}, {"file_path": str(path)})


def test_read_file_and_seed(tmp_path):
    f = tmp_path / "img.jpg"
    f.write_bytes(bytes([0, 255, 7]))
    (out,) = run_op("read_file", {}, {"filename": str(f)})["Out"]
    assert out.dtype == np.uint8 and out.tolist() == [0, 255, 7]
    assert run_op("seed", {}, {"seed": 1234})["Out"][0].tolist() == [1234]
    (r,) = run_op("seed", {}, {"seed": 0})["Out"]
    assert r.dtype == np.int32 and r[0] > 0


def test_assert_raises_with_the_data_summarised():
    run_op("assert", {"Cond": np.array([True]), "Data": [np.arange(3.0)]}, {})
    with pytest.raises(InvalidArgument, match=r"must be true.*data \[0, 1, 2, 3\]"):
        run_op("assert", {"Cond": np.array([False]),
                          "Data": [np.arange(30, dtype=np.int64)]}, {"summarize": 4})
