"""Contexts an operator hands to the pieces it calls.

* ``ExecutionContext``: what GetExpectedKernelType and fluid kernels see — inputs by slot name,
  attributes, the place and device context; fluid kernels write outputs with ``set_output``
  into a staging area that the operator commits to the scope only when the op succeeded.
* ``RuntimeArgumentMappingContext``: argmap's questions answered from the op and the
  tensors of this run.
* ``CompileTimeArgumentMappingContext``: the same questions answered from a program
  description (OpDesc + BlockDesc) without data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from argmap.context import ArgumentMappingContext
from phi.common.data_type import DataType
from phi.common.place import Place
from phi.core.errors import InvalidArgument, NotFound
from phi.core.selected_rows import SelectedRows
from phi.core.tensor import DenseTensor

__all__ = [
    "CompileTimeArgumentMappingContext",
    "ExecutionContext",
    "RuntimeArgumentMappingContext",
]


class ExecutionContext:
    """Inputs of one run (slot -> list of DenseTensor or None), attributes, place, outputs."""

    __slots__ = ("dev_ctx", "inputs", "notes", "op", "place", "staged")

    def __init__(self, op, inputs: Mapping[str, list], place: Place, dev_ctx=None) -> None:
        self.op = op
        self.inputs = inputs
        self.place = place
        self.dev_ctx = dev_ctx
        self.staged: dict[str, list] = {}
        self.notes: list[str] = []  # what decided the expected kernel type (trace, explain)

    # -- inputs ------------------------------------------------------------------------------
    @property
    def type(self) -> str:
        return self.op.type

    def has_input(self, slot: str) -> bool:
        values = self.inputs.get(slot)
        return bool(values) and values[0] is not None

    def input(self, slot: str) -> DenseTensor | None:
        values = self.inputs.get(slot)
        if not values:
            return None
        if len(values) > 1:
            raise InvalidArgument(
                f"Operator `{self.op.type}`: input `{slot}` holds {len(values)} variables; "
                "use multi_input."
            )
        return values[0]

    def multi_input(self, slot: str) -> list:
        return list(self.inputs.get(slot, ()))

    def input_names(self, slot: str) -> tuple[str, ...]:
        return self.op.inputs.get(slot, ())

    def input_array(self, slot: str):
        """The array of a required single input (NotFound naming op and slot when absent)."""
        t = self.input(slot)
        if t is None or t.data is None:
            raise NotFound(f"Operator `{self.op.type}`: input `{slot}` is not initialized.")
        return t.data

    # -- attributes --------------------------------------------------------------------------
    def attr(self, name: str):
        try:
            return self.op.attrs[name]
        except KeyError:
            raise NotFound(
                f"Operator `{self.op.type}` has no attribute `{name}`."
            ) from None

    def has_attr(self, name: str) -> bool:
        return name in self.op.attrs

    # -- outputs -----------------------------------------------------------------------------
    def has_output(self, slot: str) -> bool:
        return bool(self.op.outputs.get(slot))

    @property
    def xp(self):
        return self.dev_ctx.xp

    def set_output(self, slot: str, array, dtype: DataType | None = None, index: int = 0,
                   lod: tuple = ()) -> None:
        """Stage ``array`` as output ``slot`` (committed to the scope after success)."""
        n = len(self.op.outputs.get(slot, ()))
        if index >= n:
            if n == 0:
                return  # the program does not ask for this output (e.g. XShape)
            raise InvalidArgument(
                f"Operator `{self.op.type}`: output `{slot}` has {n} variables, index {index}."
            )
        if dtype is None:
            dtype = self.dev_ctx.data_type(array)
        staged = self.staged.setdefault(slot, [None] * n)
        staged[index] = DenseTensor(array, dtype, self.dev_ctx.place, lod=lod)


class RuntimeArgumentMappingContext(ArgumentMappingContext):
    """argmap questions answered at run time from the op and the tensors of this run."""

    __slots__ = ("inputs", "op")

    def __init__(self, op, inputs: Mapping[str, Sequence]) -> None:
        self.op = op
        self.inputs = inputs

    def has_input(self, name: str) -> bool:
        values = self.inputs.get(name)
        return bool(values) and values[0] is not None

    def has_output(self, name: str) -> bool:
        return bool(self.op.outputs.get(name))

    def has_attr(self, name: str) -> bool:
        return name in self.op.attrs

    def attr(self, name: str):
        return self.op.attrs[name]

    def input_size(self, name: str) -> int:
        return len(self.inputs.get(name, ()))

    def output_size(self, name: str) -> int:
        return len(self.op.outputs.get(name, ()))

    def is_dense_tensor_input(self, name: str) -> bool:
        values = self.inputs.get(name)
        return bool(values) and all(isinstance(v, DenseTensor) and type(v) is not SelectedRows
                                    for v in values)

    def is_dense_tensor_inputs(self, name: str) -> bool:
        return self.is_dense_tensor_input(name)

    def is_selected_rows_input(self, name: str) -> bool:
        # the variable's value type, as Paddle's runtime context asks var->IsType<SelectedRows>
        values = self.inputs.get(name)
        return bool(values) and all(type(v) is SelectedRows for v in values)

    def is_selected_rows_inputs(self, name: str) -> bool:
        return self.is_selected_rows_input(name)

    def is_dense_tensor_vector_input(self, name: str) -> bool:
        values = self.inputs.get(name)
        return bool(values) and isinstance(values[0], list)

    def is_dense_tensor_output(self, name: str) -> bool:
        names = self.op.outputs.get(name, ())
        declared = getattr(self.op, "selected_rows_vars", ())
        return bool(names) and not any(n in declared for n in names)

    def is_selected_rows_output(self, name: str) -> bool:
        # the output variables' declared type (SELECTED_ROWS VarDescs, noted by the executor's
        # plan as Paddle's executor creates such variables as SelectedRows)
        names = self.op.outputs.get(name, ())
        declared = getattr(self.op, "selected_rows_vars", ())
        return bool(names) and all(n in declared for n in names)

    def is_for_infer_shape(self) -> bool:
        return False

    def is_runtime(self) -> bool:
        return True


class CompileTimeArgumentMappingContext(ArgumentMappingContext):
    """argmap questions answered from an op description and its block (no data)."""

    __slots__ = ("block", "op_desc")

    def __init__(self, op_desc, block=None) -> None:
        self.op_desc = op_desc
        self.block = block

    def has_input(self, name: str) -> bool:
        return bool(self.op_desc.inputs.get(name))

    def has_output(self, name: str) -> bool:
        return bool(self.op_desc.outputs.get(name))

    def has_attr(self, name: str) -> bool:
        return name in self.op_desc.attrs

    def attr(self, name: str):
        return self.op_desc.attrs[name]

    def input_size(self, name: str) -> int:
        return len(self.op_desc.inputs.get(name, ()))

    def output_size(self, name: str) -> int:
        return len(self.op_desc.outputs.get(name, ()))

    def _var_type(self, var_name: str):
        if self.block is None:
            return None
        desc = self.block.find_var_recursive(var_name)
        return None if desc is None else int(desc.type)

    def is_dense_tensor_input(self, name: str) -> bool:
        names = self.op_desc.inputs.get(name, ())
        return bool(names) and all(self._var_type(n) in (None, 7) for n in names)  # LOD_TENSOR

    def is_dense_tensor_inputs(self, name: str) -> bool:
        return self.is_dense_tensor_input(name)

    def is_selected_rows_input(self, name: str) -> bool:
        names = self.op_desc.inputs.get(name, ())
        return bool(names) and all(self._var_type(n) == 8 for n in names)  # SELECTED_ROWS

    def is_selected_rows_inputs(self, name: str) -> bool:
        return self.is_selected_rows_input(name)

    def is_dense_tensor_vector_input(self, name: str) -> bool:
        names = self.op_desc.inputs.get(name, ())
        return bool(names) and all(self._var_type(n) == 13 for n in names)  # LOD_TENSOR_ARRAY

    def is_dense_tensor_output(self, name: str) -> bool:
        names = self.op_desc.outputs.get(name, ())
        return bool(names) and all(self._var_type(n) in (None, 7) for n in names)

    def is_selected_rows_output(self, name: str) -> bool:
        names = self.op_desc.outputs.get(name, ())
        return bool(names) and all(self._var_type(n) == 8 for n in names)

    def is_for_infer_shape(self) -> bool:
        return True

    def is_runtime(self) -> bool:
        return False
