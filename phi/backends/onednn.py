"""The oneDNN device context: the CPU context plus the op's attributes.

Paddle hands a oneDNN kernel, beside its signature's arguments, every attribute of the op it
runs for (``OneDNNContext::SetDnnAttr`` / ``HasDnnAttr`` / ``GetDnnAttr``): fused_conv2d reads
its extra attributes ``fuse_alpha``, ``fuse_beta``, ``Scale_in`` ... there.  One context per
decided op, so kernels stay functions of their arguments and this context.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from phi.backends.cpu import CPUContext
from phi.common.place import Place

__all__ = ["OneDNNContext"]


class OneDNNContext(CPUContext):
    """A CPU context that also answers ``has_dnn_attr`` / ``dnn_attr`` for one op."""

    def __init__(self, place: Place, dnn_attrs: Mapping[str, Any] | None = None) -> None:
        super().__init__(place)
        self.dnn_attrs = dict(dnn_attrs or {})

    def has_dnn_attr(self, name: str) -> bool:
        return name in self.dnn_attrs

    def dnn_attr(self, name: str, default: Any = None) -> Any:
        """The op's attribute ``name`` (``default`` when the op has none)."""
        value = self.dnn_attrs.get(name, default)
        return getattr(value, "value", value)
