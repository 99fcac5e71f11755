"""The message classes of ``framework.proto``, as ``framework_pb2`` defines them, for less import.

``framework_pb2`` (generated) goes through ``google.protobuf.descriptor_pool``, which imports
protobuf's pure-Python message implementation, text format and well-known-type helpers
(~25 ms of a cold ``fluid-compat run``) even when the upb backend does all the work.  With upb
(protobuf's default backend) this module adds the same serialized file descriptor to the same
default pool and makes the classes with upb's own metaclass, as ``framework_pb2``'s builder
does: upb keeps one class per message descriptor, so ``framework_pb2.ProgramDesc`` imported
later (a test, a tool) *is* ``messages.ProgramDesc``.  The descriptor is
``framework_pb2.desc`` (written by tools/gen_proto.sh beside the module; a test checks that it
is the generated module's ``DESCRIPTOR.serialized_pb``).  Any other backend, an environment
with ``FLAGS_proto_upb_direct=0``, or ``framework_pb2`` imported already: the generated module.
"""

from __future__ import annotations

import os
import sys

from phi import flags

__all__ = ["BlockDesc", "OpDesc", "ProgramDesc", "Scalar", "VarDesc", "VarType", "direct"]

_PB2 = "fluid_compat.framework.proto.framework_pb2"
_FLAG = "FLAGS_proto_upb_direct"
flags.define_flag(_FLAG, bool, True, "Make the framework.proto message classes with protobuf's "
                  "upb backend directly (read when fluid_compat.framework is first imported)")
_DESC = os.path.join(os.path.dirname(__file__), "framework_pb2.desc")


def _upb_classes() -> dict[str, type] | None:
    """Top-level message classes built from upb directly, or None where that does not apply."""
    if not flags.FLAGS[_FLAG]:
        return None
    if _PB2 in sys.modules:
        return None
    from google.protobuf.internal import api_implementation

    if api_implementation.Type() != "upb":
        return None
    from google._upb import _message
    from google.protobuf import message

    with open(_DESC, "rb") as f:
        serialized = f.read()
    file_des = _message.default_pool.AddSerializedFile(serialized)

    def build(msg_des, prefix: str) -> type:
        # google.protobuf.internal.builder._BuildMessage, with upb's metaclass
        body: dict[str, object] = {name: build(nested, prefix + msg_des.name + ".")
                                   for name, nested in msg_des.nested_types_by_name.items()}
        body.update(DESCRIPTOR=msg_des, __module__=_PB2, __qualname__=prefix + msg_des.name)
        return _message.MessageMeta(msg_des.name, (message.Message,), body)

    return {name: build(des, "") for name, des in file_des.message_types_by_name.items()}


_CLASSES = _upb_classes()
direct = _CLASSES is not None
"""True when the classes came from upb directly (framework_pb2 not imported)."""
if _CLASSES is not None:
    BlockDesc = _CLASSES["BlockDesc"]
    OpDesc = _CLASSES["OpDesc"]
    ProgramDesc = _CLASSES["ProgramDesc"]
    Scalar = _CLASSES["Scalar"]
    VarDesc = _CLASSES["VarDesc"]
    VarType = _CLASSES["VarType"]
else:
    from fluid_compat.framework.proto.framework_pb2 import (
        BlockDesc,
        OpDesc,
        ProgramDesc,
        Scalar,
        VarDesc,
        VarType,
    )
del _CLASSES
