"""Table-driven OpTest-style cases: one legacy op, its legacy attributes, a reference.

A case is ``Case(id, op_type, inputs, attrs, expect)``: ``inputs`` maps slots to an array (or a
list of arrays), ``expect`` maps output slots to the reference array, or is the string
``"paddle"``: the expected outputs are then Paddle 2.6.2's own CPU outputs, recorded in
``data/<table>.npz`` by tools/fixtures/gen_conformance.py (used where Paddle's result differs
from the numpy reference of its own unit test, e.g. half-precision rounding).

Refresh the recorded outputs of a table (dev-only, needs /work/main/.venv-paddle):

    .venv/bin/python -m tests.conformance.opcase test_activation --write
    .venv/bin/python -m tests.conformance.opcase test_activation    # bridge vs Paddle, all cases
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

import ml_dtypes
import numpy as np
import pytest

from fluid_compat import run_op
from phi.core.errors import PhiError

BF16 = np.dtype(ml_dtypes.bfloat16)
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
PADDLE_PY = "/work/main/.venv-paddle/bin/python"
GEN = os.path.join(os.path.dirname(DATA), "..", "..", "tools", "fixtures", "gen_conformance.py")

# OpTest's default tolerances per output dtype (check_output: atol 1e-5 for float32, float16
# atol 1e-3, bfloat16 1e-2); float64 is held tighter since the bridge computes it in float64.
TOL = {
    "float32": dict(rtol=1e-5, atol=1e-5),
    "float64": dict(rtol=1e-7, atol=1e-7),
    "float16": dict(rtol=1e-3, atol=1e-3),
    "bfloat16": dict(rtol=1e-2, atol=1e-2),
    "complex64": dict(rtol=1e-5, atol=1e-5),
    "complex128": dict(rtol=1e-7, atol=1e-7),
}


@dataclass
class Case:
    id: str
    op_type: str
    inputs: dict
    attrs: dict
    expect: dict | str
    tol: dict | None = None  # the unit test's own tolerance where it sets one
    out_dtype: dict = field(default_factory=dict)  # slot -> dtype when it is not the reference's
    more_outputs: tuple = ()  # outputs the op needs declared but the case does not compare

    def __repr__(self):  # pytest ids
        return self.id


def rs(seed: int) -> np.random.RandomState:
    return np.random.RandomState(seed)


def as_list(v):
    return list(v) if isinstance(v, (list, tuple)) else [v]


def _recorded(table: str) -> dict:
    path = os.path.join(DATA, f"{table}.npz")
    return dict(np.load(path)) if os.path.exists(path) else {}


def _from_record(rec: dict, key: str) -> np.ndarray:
    a = rec[key]
    return a.view(BF16) if f"{key}.bf16" in rec else a


_CACHE: dict = {}


def expected(table: str, case: Case) -> dict:
    """The case's expected outputs: its reference, or Paddle's recorded outputs."""
    if case.expect != "paddle":
        return case.expect
    if table not in _CACHE:
        _CACHE[table] = _recorded(table)
    rec = _CACHE[table]
    outs = {}
    for key in rec:
        if key.startswith(case.id + ".") and not key.endswith(".bf16"):
            slot = key[len(case.id) + 1:].rsplit(".", 1)[0]
            outs[slot] = _from_record(rec, key)
    if f"{case.id}.error" in rec:  # Paddle refused the case: the bridge must refuse it too
        return {"error": str(rec[f"{case.id}.error"])}
    assert outs, f"{case.id}: no Paddle output recorded in data/{table}.npz"
    return outs


def check(table: str, case: Case) -> None:
    """Run the case through run_op and compare every expected output."""
    feeds = {s: v for s, v in case.inputs.items()}
    want = expected(table, case)
    if "error" in want:
        with pytest.raises(PhiError):  # typed, as Paddle's: want["error"]
            run_op(case.op_type, feeds, dict(case.attrs))
        return
    res = run_op(case.op_type, feeds, dict(case.attrs))
    for slot, ref in want.items():
        got = res[slot][0]
        ref = np.asarray(ref)
        want_dtype = np.dtype(case.out_dtype.get(slot, ref.dtype))
        assert got.dtype == want_dtype, f"{case.id} {slot}: dtype {got.dtype} != {want_dtype}"
        assert got.shape == ref.shape, f"{case.id} {slot}: shape {got.shape} != {ref.shape}"
        if want_dtype.kind in "biu":
            np.testing.assert_array_equal(got, ref, err_msg=f"{case.id} {slot}")
            continue
        tol = case.tol or TOL[str(want_dtype)]
        if case.expect == "paddle" and want_dtype in (BF16, np.float16):
            tol = dict(rtol=0, atol=0)  # Paddle's own half bits: exact
        np.testing.assert_allclose(got.astype(np.complex128 if want_dtype.kind == "c"
                                              else np.float64),
                                   ref.astype(np.complex128 if ref.dtype.kind == "c"
                                              else np.float64),
                                   equal_nan=True, err_msg=f"{case.id} {slot}", **tol)


# ---- dev tools: ask Paddle 2.6.2 itself (never imported here; run in its own venv)

def _request(cases: list[Case], path: str) -> None:
    arrays, meta = {}, []
    for c in cases:
        ins = {}
        for slot, v in c.inputs.items():
            ins[slot] = []
            for i, a in enumerate(as_list(v)):
                a = np.asarray(a)
                k = f"{c.id}.{slot}.{i}"
                if a.dtype == BF16:
                    arrays[k], arrays[k + ".bf16"] = a.view(np.uint16), np.zeros(0, np.uint8)
                else:
                    arrays[k] = a
                ins[slot].append(k)
        outs = list(c.expect if isinstance(c.expect, dict) else c.out_dtype or {"Out": None})
        meta.append(dict(id=c.id, op_type=c.op_type, attrs=c.attrs, inputs=ins,
                         outputs={s: 1 for s in outs + list(c.more_outputs)}))
    np.savez(path, meta=np.array(json.dumps(meta)), **arrays)


def ask_paddle(cases: list[Case]) -> dict:
    with tempfile.TemporaryDirectory() as d:
        req, out = os.path.join(d, "req.npz"), os.path.join(d, "out.npz")
        _request(cases, req)
        crashed: list[str] = []
        while True:  # a case that aborts Paddle is recorded as an error, the rest rerun
            p = subprocess.run([PADDLE_PY, os.path.abspath(GEN), req, out, ",".join(crashed)],
                               stderr=subprocess.PIPE, text=True)
            if p.returncode == 0:
                return dict(np.load(out))
            starts = [ln.split()[1] for ln in p.stderr.splitlines() if ln.startswith("START ")]
            if not starts or starts[-1] in crashed:
                raise RuntimeError(p.stderr[-2000:])
            crashed.append(starts[-1])
            print(f"PADDLE-ABORT {starts[-1]}")


def main(argv=None) -> None:
    args = argv or sys.argv[1:]
    table = args[0]
    mod = importlib.import_module(f"tests.conformance.{table}")
    cases = mod.CASES
    if "--write" in args:
        rec = ask_paddle([c for c in cases if c.expect == "paddle"])
        os.makedirs(DATA, exist_ok=True)
        np.savez_compressed(os.path.join(DATA, f"{table}.npz"), **rec)
        print(f"{len(rec)} arrays -> data/{table}.npz")
        return
    rec = ask_paddle(cases)
    bad = 0
    for c in cases:
        if f"{c.id}.error" in rec:
            print(f"PADDLE-ERROR {c.id}: {rec[c.id + '.error']}")
            continue
        c2 = Case(c.id, c.op_type, c.inputs, c.attrs, "paddle", c.tol, c.out_dtype)
        outs = {}
        for key in rec:
            if key.startswith(c.id + ".") and not key.endswith(".bf16") and not any(
                    key.startswith(f"{c.id}.{m}.") for m in c.more_outputs):
                outs[key[len(c.id) + 1:].rsplit(".", 1)[0]] = _from_record(rec, key)
        c2.expect = outs
        try:
            check(table, c2)
        except Exception as e:  # report every difference, not only the first
            bad += 1
            print(f"DIFF {c.id}: {str(e)[:600]}")
    print(f"{len(cases)} cases, {bad} differ from Paddle")


if __name__ == "__main__":
    main()
