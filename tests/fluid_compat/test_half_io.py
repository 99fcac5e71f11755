"""Half-precision tensors in Paddle 2.6.2's files: the save / save_combine
ops write Paddle's bytes for bfloat16 and float16 tensors, save_as_fp16 / load_as_fp16
convert as Paddle does (truncation; 70000 -> inf), and load_combine reads Paddle's bfloat16 /
float16 tensors back bit for bit (files made by tools/fixtures/gen_half_io.py)."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from fluid_compat import Executor, Program, run_op
from fluid_compat.framework import ProgramDesc
from fluid_compat.framework.scope import Scope

HALF_IO = Path(__file__).resolve().parents[1] / "fixtures" / "io" / "half"


@pytest.fixture
def inputs():
    with np.load(HALF_IO / "inputs.npz") as z:
        return {k: z[k] for k in z.files}


@pytest.mark.parametrize(("name", "key", "extra"), [
    ("save_bf16.bin", "bf", {}), ("save_f16.bin", "f16", {}),
    ("save_as_fp16_wide.bin", "wide", {"save_as_fp16": True})])
def test_save_writes_paddles_bytes(tmp_path, inputs, name, key, extra):
    x = inputs[key].view(ml_dtypes.bfloat16) if key == "bf" else inputs[key]
    run_op("save", {"X": x}, {"file_path": str(tmp_path / name), **extra})
    assert (tmp_path / name).read_bytes() == (HALF_IO / name).read_bytes()


def test_save_combine_writes_paddles_bytes(tmp_path, inputs):
    path = tmp_path / "c.bin"
    run_op("save_combine", {"X": [inputs["bf"].view(ml_dtypes.bfloat16), inputs["wide"],
                                  inputs["f16"]]}, {"file_path": str(path)})
    assert path.read_bytes() == (HALF_IO / "save_combine_half.bin").read_bytes()


def test_load_as_fp16_converts_as_paddle(tmp_path, inputs):
    path = tmp_path / "wide.bin"
    run_op("save", {"X": inputs["wide"]}, {"file_path": str(path)})
    (h,) = run_op("load", {}, {"file_path": str(path), "load_as_fp16": True})["Out"]
    assert h.dtype == np.float16
    assert h.tobytes() == np.load(HALF_IO / "load_fp16_wide.npy").tobytes()


def test_load_combine_reads_paddles_half_tensors_bit_for_bit():
    desc = ProgramDesc()
    block = desc.global_block
    for n in "abc":
        block.create_var(n, persistable=True)
    block.append_op("load_combine", {}, {"Out": ["a", "b", "c"]},
                    {"file_path": str(HALF_IO / "save_combine_half.bin")})
    scope = Scope()
    Executor().run(Program(desc), feed={}, fetch_list=[], scope=scope)
    with np.load(HALF_IO / "load_combine_half.npz") as want:
        for n, dtype in (("a", ml_dtypes.bfloat16), ("b", np.float32), ("c", np.float16)):
            got = scope.find_var(n).value.numpy()
            assert got.dtype == dtype
            assert got.tobytes() == want[n].tobytes(), n
