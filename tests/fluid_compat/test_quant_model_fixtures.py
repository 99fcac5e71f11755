"""Quantized models saved by Paddle 2.6.2 (tests/fixtures/models, made by
tools/fixtures/gen_quant_models.py): QAT-style programs with quantize_linear / dequantize_linear
pairs run unchanged through load_inference_model + Executor, op by op through run_op and through
`fluid-compat run`, matching Paddle's outputs and its recorded kernel choices (the checks of
test_model_fixtures.py, applied to these fixtures)."""

from __future__ import annotations

import pytest

from tests.fluid_compat import test_model_fixtures as fixtures

QUANT_MODELS = ["qat_conv_linear"]


def test_quant_fixtures_are_small():
    for model in QUANT_MODELS:
        size = sum(f.stat().st_size for f in (fixtures.FIXTURES / model).iterdir())
        assert size < 400 * 1024, f"{model}: {size} bytes"


@pytest.mark.parametrize("model", QUANT_MODELS)
def test_quant_model_matches_paddle(model):
    fixtures.test_model_matches_paddle(model)


@pytest.mark.parametrize("model", QUANT_MODELS)
def test_quant_model_op_by_op_kernel_choices_match_paddle(model):
    fixtures.test_model_op_by_op_kernel_choices_match_paddle(model)


@pytest.mark.parametrize("model", QUANT_MODELS)
def test_quant_model_fluid_compat_run_matches_paddle(model, capsys):
    fixtures.test_fluid_compat_run_matches_paddle(model, capsys)
