"""How the kernel tests call an op, and where they find Paddle's recorded outputs.

``run_op(name, *args, **kwargs)`` calls ``phi.api.<name>`` (which checks every kernel's outputs
against its InferMeta) and returns numpy arrays (a list for a ``Tensor[]`` output).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.corpus_paths import SINGLE_OPS

CORPUS = SINGLE_OPS  # this module names the single-op folder CORPUS


def _to_numpy(result):
    if isinstance(result, (list, tuple)):
        return [_to_numpy(r) for r in result]
    return np.asarray(result)


def call_op(op: str, *args, **kwargs):
    """Run ``op`` on CPU through phi.api; numpy results (a list for several outputs)."""
    import phi.api

    return _to_numpy(getattr(phi.api, op)(*args, **kwargs))


@pytest.fixture
def run_op():
    """The function tests call ops with: ``run_op("add", x, y)``."""
    return call_op


# -- Paddle's recorded single-op cases -----------------------------------------------------------

def load_case(name: str):
    """(case JSON, npz arrays) of a corpus case; skips the test when the corpus is absent."""
    path = CORPUS / f"{name}.json"
    if not path.exists():
        pytest.skip(f"Paddle corpus case {name} not available ({CORPUS})")
    case = json.loads(path.read_text())
    with np.load(CORPUS / f"{name}.npz") as npz:
        arrays = {k: npz[k] for k in npz.files if k != "program_desc"}
    return case, arrays


def case_attr(case: dict, name: str):
    """The value of attribute ``name`` in the case's OpDesc."""
    return case["op_desc"]["attrs"][name]["value"]


def assert_array(got, expected, rtol: float = 0.0, atol: float = 0.0) -> None:
    """Same shape and dtype exactly; floats (NaN equal) within rtol/atol, others equal."""
    got = np.asarray(got)
    expected = np.asarray(expected)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    if expected.dtype.kind == "c":
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)
    elif expected.dtype.kind == "f" or expected.dtype.name == "bfloat16":
        np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64),
                                   rtol=rtol, atol=atol)
    else:
        np.testing.assert_array_equal(got, expected)
