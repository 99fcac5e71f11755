"""Every op the bridge runs, with its OpProto's default attributes, on small inputs of each dtype
its kernels take: it runs, or it raises the project's typed error (PhiError) from a check of
its own.  No raw numpy / Python exception may escape, nor a kernel failure that the
dispatcher had to wrap (errors.Fatal: the kernel met input nobody checked).

Inputs are generic: every non-dispensable input slot gets a tensor of one shape from a small
set (0-d, 1-d, 2-d, 4-d, empty), two tensors for duplicable slots.  Integer-valued slots that
are not tied to the kernel dtype (indices, shapes) get small int64 / int32 values.  Many
combinations are meaningless for an op (a 1-d conv input): then the op must say so with a
typed error naming it, not crash.
"""

from __future__ import annotations

import numpy as np
import pytest

from fluid_compat.framework.op_registry import get_op_info
from fluid_compat.imperative import run_op
from fluid_compat.tools.ops_status import collect
from opmakers import get_op_proto, has_op
from phi.core.errors import Fatal, PhiError

RUNNABLE = ("both", "phi-only", "fluid-only")
SHAPES = [(), (3,), (2, 3), (2, 3, 4, 4), (0, 3)]
# grad ops have no OpProto (their slots come from the grad makers): tested by their cases
_ROWS = [r for r in collect() if r.status in RUNNABLE and has_op(r.op_type)]


def _dtypes(row) -> list[str]:
    names: set[str] = set()
    for keys in row.phi_kernels.values():
        for backend, dtypes in keys.items():
            if backend.startswith("CPU"):
                names.update(dtypes)
    for group, dtypes in row.fluid_groups.items():
        if "cpu" in group.lower():
            names.update(dtypes)
    return sorted(names) or ["float32"]


_NP = {"bfloat16": "bfloat16", "float16": "float16", "float32": "float32",
       "float64": "float64", "int8": "int8", "uint8": "uint8", "int16": "int16",
       "int32": "int32", "int64": "int64", "bool": "bool", "complex64": "complex64",
       "complex128": "complex128"}


def _array(shape, dtype: str, rng) -> np.ndarray:
    if dtype == "bfloat16":
        import ml_dtypes

        return rng.uniform(0.1, 1.0, shape).astype(ml_dtypes.bfloat16)
    dt = np.dtype(_NP.get(dtype, "float32"))
    if dt.kind == "b":
        return rng.integers(0, 2, shape).astype(dt)
    if dt.kind in "iu":
        return rng.integers(0, 2, shape).astype(dt)
    if dt.kind == "c":
        return (rng.uniform(0.1, 1.0, shape) + 1j * rng.uniform(0.1, 1.0, shape)).astype(dt)
    return rng.uniform(0.1, 1.0, shape).astype(dt)


CASES = [(r.op_type, dtype) for r in _ROWS for dtype in _dtypes(r)]


@pytest.mark.parametrize(("op_type", "dtype"), CASES, ids=[f"{o}-{d}" for o, d in CASES])
def test_defaults_run_or_raise_typed_errors(op_type, dtype):
    # a grad op has no OpProto: its slots (all marked dispensable and duplicable) get one
    # tensor each
    grad = get_op_info(op_type).is_grad
    proto = get_op_info(op_type).proto if grad else get_op_proto(op_type)
    rng = np.random.default_rng(0)
    failures = []
    for shape in SHAPES:
        inputs = {}
        for var in proto.inputs:
            if not grad and (var.dispensable or var.extra or var.quant):
                continue
            count = 2 if var.duplicable and not grad else 1
            inputs[var.name] = [_array(shape, dtype, rng) for _ in range(count)]
        try:
            run_op(op_type, inputs, {})
        except Fatal as exc:  # a kernel's own exception, wrapped: a check is missing
            failures.append(f"shape {shape}: {exc}")
        except PhiError:
            pass  # the op said what was wrong, typed
        except Exception as exc:  # the test is about which exceptions escape
            failures.append(f"shape {shape}: {type(exc).__module__}.{type(exc).__name__}: "
                            f"{str(exc)[:200]}")
    assert not failures, f"{op_type} [{dtype}] raised raw exceptions:\n" + "\n".join(failures)


def test_a_kernel_failure_in_a_planned_run_is_typed_and_names_the_op():
    """Input the kernel does not check, met on the replay fast path: errors.Fatal naming the
    op and kernel, the raw exception as its cause."""
    from fluid_compat.framework.op_desc import OpDesc
    from fluid_compat.framework.scope import Scope, as_host_tensor
    from fluid_compat.operators.build import make_operator
    from fluid_compat.operators.runner import BoundRunner
    from phi.common.place import CPUPlace

    scope = Scope()
    desc = OpDesc("relu", {"X": ["x"]}, {"Out": ["y"]}, {})
    runner = BoundRunner(make_operator(0, desc), scope, CPUPlace())
    scope.var("x").value = as_host_tensor(np.ones((2, 2), np.float32), "x")
    runner()  # learns: the fast path is armed
    runner._fn = lambda ctx, x: x.reshape(5)  # a kernel that fails on what it gets
    with pytest.raises(Fatal, match=r"Operator `relu`: kernel `relu` failed.*ValueError") as e:
        runner()
    assert isinstance(e.value.__cause__, ValueError)
