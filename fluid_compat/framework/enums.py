"""Enums of the program file format: ``AttrType`` and ``VarType`` (protobuf ``VarType.Type``).

They mirror the enums of ``proto/framework.proto`` as Python ``IntEnum``s, so that code outside
this package never has to import the generated module.  ``VarType`` uses the protobuf numbering
(FP32 = 5); phi's ``DataType`` (FLOAT32 = 10) is a different numbering: convert with
``DataType.from_proto`` / ``DataType.to_proto`` at the boundary.
"""

from __future__ import annotations

import enum

from opmakers.attr_types import AttrType as _AttrType
from phi.common.data_type import ProtoVarType

__all__ = [
    "CURRENT_PROGRAM_VERSION",
    "NOT_SAVED_VAR_TYPES",
    "NO_BLOCK_IDX",
    "ROOT_BLOCK_IDX",
    "TENSOR_DESC_VAR_TYPES",
    "AttrType",
    "VarType",
]


# One AttrType for the whole project: the op descriptions (opmakers) define it with the same
# protobuf numbering; the file format uses it as is.
AttrType = _AttrType


# protobuf ``VarType.Type``: the tensor element types (0-6, 19-24, phi's ProtoVarType: one
# table of those numbers in the project) and the variable kinds.
VarType = enum.IntEnum(
    "VarType",
    {
        **{m.name: int(m) for m in ProtoVarType},
        "LOD_TENSOR": 7,
        "SELECTED_ROWS": 8,
        "FEED_MINIBATCH": 9,
        "FETCH_LIST": 10,
        "STEP_SCOPES": 11,
        "LOD_RANK_TABLE": 12,
        "LOD_TENSOR_ARRAY": 13,
        "PLACE_LIST": 14,
        "READER": 15,
        "RAW": 17,
        "TUPLE": 18,
        "STRING": 25,
        "STRINGS": 26,
        "VOCAB": 27,
        "FEED_LIST": 28,
        "PSTRING": 29,
        "SPARSE_COO": 30,
        "SPARSE_CSR": 31,
    },
    module=__name__,
)
VarType.__doc__ = "protobuf ``VarType.Type``: tensor element types and variable kinds."


# Variable kinds whose VarType carries a TensorDesc, and the VarType field that holds it
# (LOD_TENSOR and LOD_TENSOR_ARRAY wrap it once more, with a lod_level beside it).
TENSOR_DESC_VAR_TYPES: dict[VarType, str] = {
    VarType.LOD_TENSOR: "lod_tensor",
    VarType.SELECTED_ROWS: "selected_rows",
    VarType.LOD_TENSOR_ARRAY: "tensor_array",
    VarType.STRINGS: "strings",
    VarType.VOCAB: "vocab",
    VarType.SPARSE_COO: "sparse_coo",
    VarType.SPARSE_CSR: "sparse_csr",
}

# Persistable variables of these kinds are never written to a parameter file.
NOT_SAVED_VAR_TYPES = frozenset({VarType.FEED_MINIBATCH, VarType.FETCH_LIST, VarType.RAW})

ROOT_BLOCK_IDX = 0
NO_BLOCK_IDX = -1  # parent of the root block; forward_block_idx of a block that has none

# major * 10^6 + minor * 10^3 + patch of the Paddle release whose format we write
CURRENT_PROGRAM_VERSION = 2006002
