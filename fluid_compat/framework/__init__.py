"""Program descriptions (ProgramDesc/BlockDesc/OpDesc/VarDesc) and Paddle's program and parameter
file formats."""

from __future__ import annotations

from fluid_compat.framework.enums import AttrType, VarType
from fluid_compat.framework.errors import ProgramFileError
from fluid_compat.framework.op_desc import OpDesc
from fluid_compat.framework.program_desc import BlockDesc, ProgramDesc
from fluid_compat.framework.var_desc import VarDesc

__all__ = [
    "AttrType",
    "BlockDesc",
    "OpDesc",
    "ProgramDesc",
    "ProgramFileError",
    "VarDesc",
    "VarType",
]
