"""Half precision as Paddle 2.6.2 computes it.

1. Every non-communication op that Paddle registers for float16 / bfloat16 on CPU has a kernel
   here for exactly the same half dtypes (phi kernels of the op's signatures, or its plain CPU
   fluid kernels).
2. The Paddle-made cases tagged ``half-bits`` (tools/fixtures/cases/half.py: hundreds of values
   per case, wide magnitudes, subnormals, signed zeros, inf and NaN) are reproduced bit for bit:
   every float output compared as raw bits (NaN against NaN), not within a tolerance.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from fluid_compat.imperative import run_op_with_operator
from fluid_compat.tools.ops_status import collect
from tests.corpus_paths import CORPUS
from tests.fluid_compat.operators.corpus_cases import (
    FIXTURES,
    case_attrs,
    case_inputs,
    case_outputs,
    load_case,
)

HALF = frozenset({"float16", "bfloat16"})
_CPU_OPS = json.loads((FIXTURES.parent / "cpu_ops.json").read_text())["ops"]
_PHI = CORPUS / "phi_kernels.json"
#: ops run by an operator without kernels (the executor feeds and fetches any dtype) or refused
#: as a whole (a process group), and the issue-12 op another helper adds
NO_KERNEL_EXPECTED = {"feed": "operator", "fetch": "operator", "fetch_v2": "operator",
                      "beam_search_decode": "not yet"}


def _paddle_half(op: str, phi_keys: dict) -> set[str]:
    """Paddle's half dtypes of ``op`` on CPU: the (CPU, AnyLayout) keys of its phi kernel (the
    STRIDED-only float16 keys of flatten / unsqueeze do not run in static programs: Paddle-made
    cases flatten_contiguous_range_f16, unsqueeze2_f16), else cpu_ops.json's list."""
    v = _CPU_OPS[op]
    entry = phi_keys.get(v["phi_kernel"] or "")
    if entry is not None:
        prefix = "(CPU, Undefined(AnyLayout), "
        return {k[len(prefix):-1] for k in entry["keys"] if k.startswith(prefix)} & HALF
    return set(v["cpu_dtypes"] or ()) & HALF


def _half_ops() -> list[str]:
    return sorted(op for op, v in _CPU_OPS.items() if set(v["cpu_dtypes"] or ()) & HALF
                  and not v["group"].startswith("communication"))


def test_every_half_kernel_of_paddle_is_registered_for_the_same_half_dtypes():
    if not _PHI.exists():
        pytest.skip("Paddle corpus phi_kernels.json not available")
    phi_keys = json.loads(_PHI.read_text())["phi_kernels"]
    wrong = {}
    for row in collect(_half_ops()):
        if row.status in ("unavailable", "operator") or row.op_type in NO_KERNEL_EXPECTED:
            continue
        ours = set()
        for groups in row.phi_kernels.values():
            ours |= set(groups.get("CPU", ()))
        ours |= set(row.fluid_groups.get("CPU", ()))  # plain CPU fluid kernels only
        want = _paddle_half(row.op_type, phi_keys)
        if ours & HALF != want:
            wrong[row.op_type] = (sorted(want), sorted(ours & HALF))
    assert not wrong, f"op: (Paddle's half dtypes, ours): {wrong}"


def test_every_phi_kernel_named_as_paddles_has_its_half_dtypes():
    """Kernel by kernel too (a legacy op can reach several: elementwise_pow with an axis runs
    elementwise_pow_raw, which Paddle registers for bfloat16)."""
    if not _PHI.exists():
        pytest.skip("Paddle corpus phi_kernels.json not available")
    from phi.common import Backend
    from phi.core.registry import kernel_factory

    phi_keys = json.loads(_PHI.read_text())["phi_kernels"]
    prefix = "(CPU, Undefined(AnyLayout), "
    factory = kernel_factory()
    wrong = {}
    for name in factory.names():
        if name not in phi_keys:
            continue
        want = {k[len(prefix):-1] for k in phi_keys[name]["keys"] if k.startswith(prefix)}
        ours = {str(k.dtype) for k in factory.kernels_of(name)
                if k.backend == Backend.CPU and str(k.layout) == "Undefined(AnyLayout)"}
        if want & HALF != ours & HALF:
            wrong[name] = (sorted(want & HALF), sorted(ours & HALF))
    assert not wrong, f"kernel: (Paddle's half dtypes, ours): {wrong}"


def test_every_fluid_kernel_of_paddle_has_its_half_dtypes():
    """Fluid kernels alike (lookup_table v1: Paddle registers bfloat16, a case runs it)."""
    if not _PHI.exists():
        pytest.skip("Paddle corpus phi_kernels.json not available")
    import re

    from fluid_compat.operators.fluid_kernels.registry import fluid_kernels_of
    from fluid_compat.operators.unavailable import UNAVAILABLE

    names = {"::paddle::platform::float16": "float16", "::paddle::platform::bfloat16": "bfloat16"}
    wrong = {}
    for op, keys in json.loads(_PHI.read_text())["op_kernels_fluid"].items():
        if op in UNAVAILABLE or op.endswith("_grad"):
            continue
        want = {names[m.group(1)] for k in keys if "Place(cpu)" in k and "PLAIN" in k
                for m in [re.search(r"data_type\[([^\]]+)\]", k)] if m and m.group(1) in names}
        ours = {str(kt.dtype) for kt in fluid_kernels_of(op)
                if kt.place.device_type == "cpu" and kt.library.value == "PLAIN"} & HALF
        if want != ours:
            wrong[op] = (sorted(want), sorted(ours))
    assert not wrong, f"op: (Paddle's half fluid kernels, ours): {wrong}"


def test_the_exemptions_are_real():
    rows = {r.op_type: r.status for r in collect(list(NO_KERNEL_EXPECTED))}
    assert {op for op, s in rows.items() if s == "operator"} == {"feed", "fetch", "fetch_v2"}


def _half_bit_cases() -> list[str]:
    out = []
    for p in sorted(FIXTURES.glob("hb_*.json")):
        c = json.loads(p.read_text())
        if "half-bits" in c["tags"] and c["status"] == "ok":
            out.append(p.stem)
    return out


def _bits(a: np.ndarray) -> np.ndarray:
    """Raw bits of a float array with every NaN made one pattern (payloads are not compared);
    complex arrays as their real and imaginary parts."""
    if a.dtype.kind == "c":
        a = a.view(np.float32 if a.dtype == np.complex64 else np.float64)
    if a.dtype.kind not in "fV" and a.dtype.name != "bfloat16":
        return a
    f = a.astype(np.float64)
    width = {2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize]
    b = a.view(width).copy()
    b[np.isnan(f)] = 0 if a.dtype.itemsize != 2 else 0x7E00
    return b


@pytest.mark.parametrize("name", _half_bit_cases())
def test_half_case_equals_paddle_bit_for_bit(name):
    case, arrays = load_case(name)
    tensors, _ = run_op_with_operator(case["op_type"], case_inputs(case, arrays),
                                      case_attrs(case), extra_outputs=case["op_desc"]["outputs"],
                                      tensors=True)
    for slot, items in case_outputs(case, arrays).items():
        for i, (ref, _tol) in enumerate(items):
            got = tensors[slot][i].numpy()
            assert got.dtype == ref.dtype and got.shape == ref.shape, f"{name}.{slot}"
            bad = _bits(got) != _bits(ref)
            if bad.any():
                at = tuple(np.argwhere(bad)[0])
                raise AssertionError(
                    f"{name}.{slot}[{i}]: {int(bad.sum())} of {bad.size} values differ from "
                    f"Paddle's bits; first at {at}: ours {got[at]!r}, Paddle {ref[at]!r}")


def test_there_are_half_bit_cases():
    assert len(_half_bit_cases()) >= 100
