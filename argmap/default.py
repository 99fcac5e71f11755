"""The default signature of an op that has no mapping of its own (reference §6.2).

Paddle builds it once per op from the OpProto (``InitDefaultKernelSignatureMap`` in
``phi_utils.cc``):

* name: the base kernel name (legacy name -> phi name map, `argmap.registry`);
* inputs: the OpProto inputs in declaration order, skipping extra, quant and dispensable ones
  (an op with optional inputs therefore needs a mapping of its own);
* attributes: the OpProto attributes, skipping extra and quant ones and the names in
  `SKIPPED_ATTR_NAMES`;
* outputs: the OpProto outputs, skipping extra and quant ones (dispensable outputs are kept).
"""

from __future__ import annotations

from argmap.signature import KernelSignature
from opmakers import OpProto

__all__ = ["SKIPPED_ATTR_NAMES", "default_signature"]

#: Attribute names never passed to a kernel by the default rule, even when not marked extra.
SKIPPED_ATTR_NAMES: frozenset[str] = frozenset({
    "use_mkldnn", "use_cudnn", "op_role", "op_role_var", "op_namescope", "op_callstack",
    "op_device",
})


def default_signature(proto: OpProto, kernel_name: str) -> KernelSignature:
    """The §6.2 signature of `proto`, calling the kernel `kernel_name`."""
    inputs = [v.name for v in proto.inputs if not (v.extra or v.quant or v.dispensable)]
    attrs = [a.name for a in proto.attrs
             if not (a.extra or a.quant) and a.name not in SKIPPED_ATTR_NAMES]
    outputs = [v.name for v in proto.outputs if not (v.extra or v.quant)]
    return KernelSignature(kernel_name, inputs, attrs, outputs)
