"""Every committed tools/fixtures single-op case (any op type), and every corpus case of the ops
of issues 3 and 5 and of the op types with fixtures, runs through run_op and matches Paddle 2.6.2:
outputs within the case's tolerance, and the expected kernel key, KernelSignature and phi kernel
key Paddle recorded."""

from __future__ import annotations

import pytest

from fluid_compat.imperative import run_op_with_operator
from phi.core.errors import PhiError
from tests.fluid_compat.operators.corpus_cases import (
    ISSUE3_OPS,
    ISSUE5_OPS,
    case_attrs,
    case_inputs,
    case_names,
    check_case,
    fixture_op_types,
    load_case,
)

OPS = ISSUE3_OPS | ISSUE5_OPS | fixture_op_types()
OK_CASES = case_names(OPS) or ["elementwise_add_y_trailing1", "scale_before",
                                                   "reshape2_shape_tensor"]


# Outputs whose LoD is not Paddle's yet (shrink-only): the batch LoD that LoD2Batch gives the
# intermediate outputs of the sequence RNN ops.
LOD_NOT_YET: frozenset = frozenset()


@pytest.mark.parametrize("name", OK_CASES)
def test_case_matches_paddle(name):
    case, arrays = load_case(name)
    check_case(name, case, arrays, lod_not_yet=LOD_NOT_YET)


ERROR_CASES = case_names(OPS, status="run_error") or []


@pytest.mark.parametrize("name", ERROR_CASES)
def test_cases_where_paddle_raises_raise_a_typed_error(name):
    case, arrays = load_case(name)
    with pytest.raises(PhiError):
        run_op_with_operator(case["op_type"], case_inputs(case, arrays), case_attrs(case))
