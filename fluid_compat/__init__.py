"""fluid_compat: the legacy (fluid) operator system on top of phi kernels.

    from fluid_compat import run_op, legacy_ops
    run_op("elementwise_add", {"X": x, "Y": y}, {"axis": -1})
"""

from __future__ import annotations

from fluid_compat.imperative import legacy_ops, run_op

__all__ = ["legacy_ops", "run_op"]
