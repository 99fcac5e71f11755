"""Programs in half precision: bfloat16 fed as Paddle's uint16 storage or as ml_dtypes
bfloat16, float16 scale chains rounding like Paddle 2.6.2's CPU (truncation per operation)."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from fluid_compat import Executor, Program
from fluid_compat.framework import ProgramDesc
from fluid_compat.framework.scope import Scope
from phi.common.data_type import DataType


def _scale_program(dtype: DataType) -> Program:
    desc = ProgramDesc()
    block = desc.global_block
    block.create_var("x", dtype=dtype, shape=[-1])
    block.create_var("y", dtype=dtype, shape=[-1])
    block.create_var("z", dtype=dtype, shape=[-1])
    block.append_op("scale", {"X": ["x"]}, {"Out": ["y"]},
                    {"scale": 2.8, "bias": 3.2, "bias_after_scale": True})
    block.append_op("scale", {"X": ["y"]}, {"Out": ["z"]}, {"scale": 0.5, "bias": 0.0})
    return Program(desc)


def test_bfloat16_feed_as_uint16_storage_equals_bfloat16_feed():
    program = _scale_program(DataType.BFLOAT16)
    x = np.array([1.0, -2.5, 3.140625], ml_dtypes.bfloat16)
    exe = Executor()
    a = exe.run(program, feed={"x": x}, fetch_list=["z"], scope=Scope())[0]
    b = exe.run(program, feed={"x": x.view(np.uint16)}, fetch_list=["z"], scope=Scope())[0]
    assert a.dtype == ml_dtypes.bfloat16 and a.tobytes() == b.tobytes()
    # hand-worked with Paddle's truncation: bf16(2.8) = 2.796875, bf16(3.2) = 3.1875;
    # 1 * 2.796875 + 3.1875 = 5.984375, truncated to bfloat16's 1/32 steps: 5.96875;
    # * 0.5 = 2.984375 (round-to-nearest would give 6.0, then 3.0)
    assert float(a[0]) == 2.984375


def test_float16_chain_truncates_after_every_operation():
    program = _scale_program(DataType.FLOAT16)
    z = Executor().run(program, feed={"x": np.array([1.0], np.float16)}, fetch_list=["z"],
                       scope=Scope())[0]
    # scale(1.0, 2.8, 3.2) is 5.99609375 in Paddle 2.6.2 (see test_half_rounding), halved
    assert z.tolist() == [2.998046875]
