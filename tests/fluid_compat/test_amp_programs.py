"""Programs rewritten by Paddle 2.6.2's static AMP and saved for inference
(tests/fixtures/amp, made by tools/fixtures/gen_amp_models.py, with what Paddle did on CPU).

* float16 O1 on a CPU place: Paddle leaves the program in float32; it runs and matches.
* bfloat16 O1 (decorate_bf16): the casts and the `mkldnn_data_type` attribute the rewrite puts
  on `mul` load unchanged; the bfloat16 `mul` has no plain CPU kernel in Paddle (only oneDNN's,
  on CPUs with AVX512-BF16) and Paddle's run fails on it: here too, with a typed error naming
  the op and the dtype, before anything is written.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fluid_compat import Executor, load_inference_model
from fluid_compat.framework.scope import Scope
from phi.core.errors import PhiError

AMP = Path(__file__).resolve().parents[1] / "fixtures" / "amp"


def _load(mode):
    scope = Scope()
    program, feeds, fetches = load_inference_model(AMP / mode / "inference", scope=scope)
    meta = json.loads((AMP / mode / "meta.json").read_text())
    return program, feeds, fetches, scope, meta, np.load(AMP / mode / "input_x.npy")


def test_float16_amp_program_on_cpu_matches_paddle():
    program, feeds, fetches, scope, meta, x = _load("fp16_o1")
    assert meta["paddle_status"] == "ok"
    (out,) = Executor().run(program, feed={feeds[0]: x}, fetch_list=fetches, scope=scope)
    np.testing.assert_allclose(out, np.load(AMP / "fp16_o1" / "output_0.npy"), rtol=1e-6,
                               atol=1e-7)


def test_bfloat16_amp_program_loads_and_fails_where_paddle_fails():
    program, feeds, fetches, scope, meta, x = _load("bf16_o1")
    ops = [op.type for op in program.desc.global_block.ops]
    assert ops == meta["ops"] and ops.count("cast") == 6
    mul = next(op for op in program.desc.global_block.ops if op.type == "mul")
    assert mul.attr("mkldnn_data_type") == "bfloat16"
    assert meta["paddle_status"] == "run_error" and "mul" in meta["paddle_error"]
    with pytest.raises(PhiError, match=r"mul.*bfloat16"):
        Executor().run(program, feed={feeds[0]: x}, fetch_list=fetches, scope=scope)
