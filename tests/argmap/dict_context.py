"""A dict-backed ArgumentMappingContext for tests: an OpDesc's slots and attribute values."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from argmap import ArgumentMappingContext

KINDS = ("dense", "selected_rows", "tensor_array")


class DictContext(ArgumentMappingContext):
    """Answers from ``inputs`` / ``outputs`` ({slot: [variable names]}) and ``attrs``.

    A slot that is missing or holds no name is absent, as in a legacy OpDesc.  Variables are
    dense unless ``kinds`` says otherwise ({slot: "selected_rows" | "tensor_array"}).
    """

    def __init__(self, inputs: Mapping[str, Sequence[str]] | None = None,
                 outputs: Mapping[str, Sequence[str]] | None = None,
                 attrs: Mapping[str, Any] | None = None, *,
                 kinds: Mapping[str, str] | None = None, for_infer_shape: bool = False,
                 runtime: bool = True) -> None:
        self.inputs = {k: list(v) for k, v in (inputs or {}).items()}
        self.outputs = {k: list(v) for k, v in (outputs or {}).items()}
        self.attrs = dict(attrs or {})
        self.kinds = dict(kinds or {})
        for kind in self.kinds.values():
            if kind not in KINDS:
                raise ValueError(f"unknown variable kind {kind!r}")
        self._for_infer_shape = for_infer_shape
        self._runtime = runtime

    @classmethod
    def from_op_desc(cls, op_desc: Mapping[str, Any], **kwargs: Any) -> DictContext:
        """From a corpus ``op_desc``: attributes may be plain values or {"value": v, ...}."""
        attrs = {k: (v["value"] if isinstance(v, Mapping) else v)
                 for k, v in op_desc.get("attrs", {}).items()}
        return cls(op_desc.get("inputs"), op_desc.get("outputs"), attrs, **kwargs)

    def _kind(self, name: str) -> str:
        return self.kinds.get(name, "dense")

    def has_input(self, name: str) -> bool:
        return len(self.inputs.get(name, ())) > 0

    def has_output(self, name: str) -> bool:
        return len(self.outputs.get(name, ())) > 0

    def has_attr(self, name: str) -> bool:
        return name in self.attrs

    def attr(self, name: str) -> Any:
        if name not in self.attrs:
            raise KeyError(f"the OpDesc has no attribute {name!r}")
        return self.attrs[name]

    def input_size(self, name: str) -> int:
        return len(self.inputs.get(name, ()))

    def output_size(self, name: str) -> int:
        return len(self.outputs.get(name, ()))

    def is_dense_tensor_input(self, name: str) -> bool:
        return self._kind(name) == "dense"

    def is_selected_rows_input(self, name: str) -> bool:
        return self._kind(name) == "selected_rows"

    def is_dense_tensor_vector_input(self, name: str) -> bool:
        return self._kind(name) == "tensor_array"

    def is_dense_tensor_output(self, name: str) -> bool:
        return self._kind(name) == "dense"

    def is_selected_rows_output(self, name: str) -> bool:
        return self._kind(name) == "selected_rows"

    def is_for_infer_shape(self) -> bool:
        return self._for_infer_shape

    def is_runtime(self) -> bool:
        return self._runtime
