"""Legacy op descriptions: the OpMaker DSL, the OpProtos of the legacy ops, the checker.

``get_op_proto("conv2d")`` gives the OpProto Paddle 2.6.2 registers for conv2d (inputs,
outputs, attributes with types, defaults and marks); ``get_runtime_attrs("conv2d")`` its runtime
("extra") attributes such as ``use_cudnn``; ``check_attrs(proto, attrs)`` validates an OpDesc's
attributes and returns them with every default filled in.  The definitions live in
``opmakers/ops/<family>.py``, written in the DSL of `opmakers.maker`.

This package imports nothing of the project but ``phi.core.errors``.
"""

from __future__ import annotations

from opmakers.attr_types import AttrType, VarRef
from opmakers.checker import check_attrs
from opmakers.maker import (
    GENERATED_ATTR_NAMES,
    OP_ROLES,
    REQUIRED,
    AttrProto,
    Compare,
    InSet,
    OpDef,
    OpFamily,
    OpMaker,
    OpProto,
    VarProto,
)
from opmakers.registry import (
    all_op_types,
    get_op_def,
    get_op_proto,
    get_runtime_attrs,
    has_op,
    register_op,
)

__all__ = [
    "GENERATED_ATTR_NAMES",
    "OP_ROLES",
    "REQUIRED",
    "AttrProto",
    "AttrType",
    "Compare",
    "InSet",
    "OpDef",
    "OpFamily",
    "OpMaker",
    "OpProto",
    "VarProto",
    "VarRef",
    "all_op_types",
    "check_attrs",
    "get_op_def",
    "get_op_proto",
    "get_runtime_attrs",
    "has_op",
    "register_op",
]
