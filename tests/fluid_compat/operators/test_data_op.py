"""The data op, which no Paddle-made case can cover (Paddle 2.6.2 crashes on it)."""

from __future__ import annotations

import pytest

from fluid_compat.imperative import run_op
from phi.core.errors import PhiError


@pytest.mark.parametrize("dtype", [5, 6, 2])
def test_data_op_raises_a_typed_error(dtype):
    # Paddle 2.6.2 segfaults in DataOp::GetExpectedKernelType (checked with the wheel: a
    # one-op program with name / shape / dtype / place = 0); we raise instead
    with pytest.raises(PhiError, match="data"):
        run_op("data", {}, {"name": "x", "shape": [2, 3], "dtype": dtype, "place": 0})
