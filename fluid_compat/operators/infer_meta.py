"""InferShape of legacy ops through phi's InferMeta functions (Paddle's infershape_utils).

The binding of a phi kernel's arguments to its InferMeta function comes from phi's YAML
(ops.yaml / static_ops.yaml), so legacy ops and the eager API run the very same InferMeta.
"""

from __future__ import annotations

import phi.api

__all__ = ["infer_meta_binding"]


def infer_meta_binding(kernel_name: str):
    """``(fn, ((is_input, index), ...))`` for ``kernel_name``, or None when phi declares none."""
    return phi.api.kernel_infer_meta(kernel_name)
