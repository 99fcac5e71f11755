"""fetch_v2 (the op Paddle's new executor writes in place of fetch) runs like fetch."""

from __future__ import annotations

import numpy as np

from fluid_compat import Executor, Program
from fluid_compat.framework import ProgramDesc, VarType
from fluid_compat.framework.scope import Scope
from phi.common.data_type import DataType


def _program() -> Program:
    desc = ProgramDesc()
    block = desc.global_block
    block.create_var("x", dtype=DataType.FLOAT32, shape=[-1])
    block.create_var("y", dtype=DataType.FLOAT32, shape=[-1])
    block.create_var("z", dtype=DataType.FLOAT32, shape=[-1])
    block.create_var("fetch", type=VarType.FETCH_LIST)
    block.append_op("scale", {"X": ["x"]}, {"Out": ["y"]}, {"scale": 2.0, "bias": 1.0})
    block.append_op("scale", {"X": ["y"]}, {"Out": ["z"]}, {"scale": 0.5, "bias": 0.0})
    # columns out of order: the fetch targets follow `col`, as for fetch
    block.append_op("fetch_v2", {"X": ["z"]}, {"Out": ["fetch"]}, {"col": 1, "deepcopy": True})
    block.append_op("fetch_v2", {"X": ["y"]}, {"Out": ["fetch"]}, {"col": 0, "deepcopy": True})
    return Program(desc)


def test_fetch_v2_program_runs_and_names_its_targets():
    program = _program()
    assert program.fetch_target_names() == ["y", "z"]
    x = np.array([1.0, -3.0], np.float32)
    y, z = Executor().run(program, feed={"x": x}, fetch_list=program.fetch_target_names(),
                          scope=Scope())
    # hand-worked: y = 2x + 1, z = y / 2
    np.testing.assert_array_equal(y, [3.0, -5.0])
    np.testing.assert_array_equal(z, [1.5, -2.5])
