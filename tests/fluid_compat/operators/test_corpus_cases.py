"""Every committed tools/fixtures single-op case (any op type), and every corpus case of the ops
of issues 3 and 5 and of the op types with fixtures, runs through run_op and matches Paddle 2.6.2:
outputs within the case's tolerance, and the expected kernel key, KernelSignature and phi kernel
key Paddle recorded."""

from __future__ import annotations

import numpy as np
import pytest

from fluid_compat.imperative import run_op_with_operator
from phi.core.errors import PhiError
from tests.fluid_compat.operators.corpus_cases import (
    ISSUE3_OPS,
    ISSUE5_OPS,
    case_attrs,
    case_inputs,
    case_names,
    case_outputs,
    fixture_op_types,
    load_case,
)

OPS = ISSUE3_OPS | ISSUE5_OPS | fixture_op_types()
OK_CASES = case_names(OPS) or ["elementwise_add_y_trailing1", "scale_before",
                                                   "reshape2_shape_tensor"]


# Outputs whose LoD is not Paddle's yet (shrink-only): the batch LoD that LoD2Batch gives the
# intermediate outputs of the sequence RNN ops (issue 12).
LOD_NOT_YET: frozenset = frozenset()


@pytest.mark.parametrize("name", OK_CASES)
def test_case_matches_paddle(name):
    case, arrays = load_case(name)
    tensors, op = run_op_with_operator(case["op_type"], case_inputs(case, arrays),
                                       case_attrs(case),
                                       extra_outputs=case["op_desc"]["outputs"], tensors=True)
    result = {slot: [t.numpy() for t in ts] for slot, ts in tensors.items()}
    for slot, items in case["outputs"].items():  # the LoD Paddle gave each output
        for i, item in enumerate(items):
            if item.get("npz_key") and slot in tensors and i < len(tensors[slot]):
                got = [list(level) for level in tensors[slot][i].lod]
                if (name, slot) in LOD_NOT_YET:
                    assert got != (item.get("lod") or []), \
                        f"{name}.{slot} has Paddle's LoD now: drop it from LOD_NOT_YET"
                    continue
                assert got == (item.get("lod") or []), f"{name}.{slot}[{i}] LoD"
    for slot, items in case["outputs"].items():  # values undefined: shape and dtype only
        for i, item in enumerate(items):
            meta = item.get("uncompared")
            if meta:
                got = result[slot][i]
                assert [list(got.shape), str(got.dtype)] == [meta["shape"], meta["dtype"]], \
                    f"{name}.{slot}[{i}]"
    want = case_outputs(case, arrays)
    # a case whose outputs Paddle left uninitialized (nop) records none: ours stay so too
    untouched = all(i.get("fetched") is False and not i.get("uncompared")
                    for items in case["outputs"].values() for i in items)
    if untouched:
        assert not result, f"{name}: Paddle writes no output, the bridge wrote {sorted(result)}"
    assert want or untouched or any(i.get("uncompared") for items in case["outputs"].values()
                                    for i in items), f"case {name} records no outputs"
    for slot, items in want.items():
        assert slot in result, f"{name}: output {slot} missing (got {sorted(result)})"
        assert len(result[slot]) == len(items)
        for got, (ref, tol) in zip(result[slot], items, strict=False):
            assert got.shape == ref.shape, f"{name}.{slot}: {got.shape} vs {ref.shape}"
            assert got.dtype == ref.dtype, f"{name}.{slot}: {got.dtype} vs {ref.dtype}"
            if np.issubdtype(ref.dtype, np.complexfloating):  # real and imaginary parts
                # cases made before the generator knew complex tolerances recorded 0: use the
                # tolerance of the component dtype at least
                least = (1e-5, 1e-6) if ref.dtype == np.complex64 else (1e-10, 1e-12)
                np.testing.assert_allclose(got.astype(np.complex128), ref.astype(np.complex128),
                                           rtol=max(tol.get("rtol", 0), least[0]),
                                           atol=max(tol.get("atol", 0), least[1]),
                                           err_msg=f"{name}.{slot}")
            elif np.issubdtype(ref.dtype, np.floating) or ref.dtype.name == "bfloat16":
                # (ml_dtypes' bfloat16 is no numpy floating subtype; NaN must equal NaN there)
                np.testing.assert_allclose(got.astype(np.float64), ref.astype(np.float64),
                                           rtol=tol.get("rtol", 1e-5), atol=tol.get("atol", 1e-6),
                                           err_msg=f"{name}.{slot}")
            else:
                np.testing.assert_array_equal(got, ref, err_msg=f"{name}.{slot}")
    trace = case.get("kernel_trace") or {}
    if trace.get("expected_kernel_key"):
        (choice,) = op.kernel_choices().values()
        assert str(choice.expected) == trace["expected_kernel_key"]
        sig = trace.get("kernel_signature")
        structure = sig is not None and not (sig.get("inputs") or sig.get("attributes")
                                             or sig.get("outputs"))
        if structure:
            # a STRUCTURE kernel (empty signature): a fluid kernel in Paddle's phi table, a
            # fluid kernel here
            assert not choice.is_phi
        elif trace.get("run_phi_kernel") and sig:
            assert choice.is_phi
            assert str(choice.signature) == sig["raw"]
            assert str(choice.phi_kernel.key) == trace["phi_kernel_key"]
        elif trace.get("run_phi_kernel") is False:
            assert not choice.is_phi


ERROR_CASES = case_names(OPS, status="run_error") or []


@pytest.mark.parametrize("name", ERROR_CASES)
def test_cases_where_paddle_raises_raise_a_typed_error(name):
    case, arrays = load_case(name)
    with pytest.raises(PhiError):
        run_op_with_operator(case["op_type"], case_inputs(case, arrays), case_attrs(case))
