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
from opmakers.attr_types import VarRef
from phi.common.data_type import DataType
from phi.common.place import Place
from phi.core.errors import InvalidArgument, NotFound, PreconditionNotMet
from phi.core.selected_rows import SelectedRows
from phi.core.sparse_tensor import is_sparse, is_sparse_coo, is_sparse_csr
from phi.core.tensor import DenseTensor

__all__ = [
    "CompileTimeArgumentMappingContext",
    "ExecutionContext",
    "RuntimeArgumentMappingContext",
    "attr_var_arrays",
    "attr_var_value",
    "compile_time_attr_var",
]


# -- attributes given by variables (AttrType VAR / VARS) -----------------------------------------

_INT_DTYPES = ("int32", "int64")


def attr_var_arrays(op, name: str, values: Sequence, kind: str) -> list:
    """The host arrays of the tensors that VAR / VARS attribute `name` of `op` names (``values``:
    this run's tensors of the input ``name``, see OperatorBase.attr_vars), checked for what
    `kind` needs, as Paddle builds an IntArray / Scalar from them:

    * ``"int_array"``: int32 / int64 tensors; one tensor (VAR) gives all its values, several
      (VARS) one value each;
    * ``"scalar"``: one tensor holding one number (bool, integer, float or complex).

    Raises PreconditionNotMet for a variable that holds no tensor and InvalidArgument for a
    wrong dtype or element count, naming the op, the attribute and the variable."""
    import numpy as np

    names = op.attr_vars.get(name, ()) if hasattr(op, "attr_vars") else ()
    what = f"Operator `{op.type}`: attribute `{name}`"
    if len(values) != len(names) or not values:
        raise PreconditionNotMet(f"{what} names variables {list(names)}, but {len(values)} "
                                 "tensors were read for it.")
    arrays = []
    for var, t in zip(names, values, strict=True):
        data = getattr(t, "data", None) if isinstance(t, DenseTensor) else None
        if data is None:
            got = "nothing" if t is None else type(t).__name__
            raise PreconditionNotMet(
                f"{what} is given by variable `{var}`, which holds no initialized DenseTensor "
                f"(it holds {got}): the op that writes it must run first.")
        host = np.asarray(t.numpy())
        kind_ok = (host.dtype.name in _INT_DTYPES if kind == "int_array"
                   else host.dtype.kind in "biufc")
        if not kind_ok:
            want = ("int32 or int64" if kind == "int_array"
                    else "a bool, integer, float or complex dtype")
            raise InvalidArgument(f"{what} is given by variable `{var}`, whose tensor has dtype "
                                  f"{t.dtype}; expected {want}.")
        single = kind == "scalar" or len(names) > 1
        if single and host.size != 1:
            form = "VARS: one value per variable" if len(names) > 1 else "a single number"
            raise InvalidArgument(
                f"{what} is given by variable `{var}`, whose tensor holds {host.size} values "
                f"(shape {list(host.shape)}); expected 1 ({form}).")
        arrays.append(host)
    return arrays


def attr_var_value(op, name: str, values: Sequence):
    """The plain value (as the OpDesc would hold it) of VAR / VARS attribute `name` of `op`, read
    from this run's tensors: a list of ints for a list attribute (every support_tensor list
    attribute of Paddle 2.6.2 is INTS), a number otherwise.  For fluid kernels, which read
    attributes as values; phi kernels get the IntArray / Scalar (dispatch)."""
    from opmakers.attr_types import LIST_TYPES, AttrType

    attr_type = next((a.type for a in op.info.proto.attrs if a.name == name), None)
    if attr_type in LIST_TYPES:
        arrays = attr_var_arrays(op, name, values, "int_array")
        return [int(v) for a in arrays for v in a.reshape(-1).tolist()]
    (host,) = attr_var_arrays(op, name, values, "scalar")
    v = host.reshape(()).item()
    if attr_type is AttrType.BOOLEAN:
        return bool(v)
    return int(v) if attr_type in (AttrType.INT, AttrType.LONG) else float(v)


def compile_time_attr_var(op_desc, name: str, kind: str, block=None):
    """The IntArray / Scalar that compile-time InferMeta gets for VAR / VARS attribute `name` of
    an op description (no data yet), as Paddle's infershape_utils builds it: a Scalar -1, or an
    IntArray of -1s (one per variable of a VARS; for one variable, as many as its VarDesc's
    dims hold, or its rank when those are unknown), marked from_tensor so that InferMeta's
    compile-time branches leave what depends on the values -1.  None when `name` is not such an
    attribute."""
    import math

    from opmakers.attr_types import attr_var_names
    from phi.common.int_array import IntArray
    from phi.common.scalar import Scalar

    names = attr_var_names({name: op_desc.attrs.get(name)}).get(name)
    if names is None:
        return None
    if kind == "scalar":
        return Scalar(-1, from_tensor=True)
    count = len(names)
    if count == 1:
        desc = block.find_var_recursive(names[0]) if block is not None else None
        dims = tuple(desc.shape) if desc is not None else ()
        count = math.prod(dims)  # a 0-d tensor: one value
        if count <= 0:  # unknown (-1) dims: Paddle falls back to the rank
            count = len(dims)
    return IntArray([-1] * count, from_tensor=True)


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
        """The attribute's value; one given by variables (VAR / VARS) is read from this run's
        tensors, as Paddle's runtime context does."""
        try:
            value = self.op.attrs[name]
        except KeyError:
            raise NotFound(
                f"Operator `{self.op.type}` has no attribute `{name}`."
            ) from None
        if name in getattr(self.op, "attr_vars", ()):
            return attr_var_value(self.op, name, self.inputs.get(name) or ())
        return value

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
                                    and not is_sparse(v) for v in values)

    def is_dense_tensor_inputs(self, name: str) -> bool:
        return self.is_dense_tensor_input(name)

    def is_selected_rows_input(self, name: str) -> bool:
        # the variable's value type, as Paddle's runtime context asks var->IsType<SelectedRows>
        values = self.inputs.get(name)
        return bool(values) and all(type(v) is SelectedRows for v in values)

    def is_selected_rows_inputs(self, name: str) -> bool:
        return self.is_selected_rows_input(name)

    def is_sparse_coo_tensor_input(self, name: str) -> bool:
        # the variable's value type, as Paddle asks var->IsType<phi::SparseCooTensor>
        values = self.inputs.get(name)
        return bool(values) and all(is_sparse_coo(v) for v in values)

    def is_sparse_csr_tensor_input(self, name: str) -> bool:
        values = self.inputs.get(name)
        return bool(values) and all(is_sparse_csr(v) for v in values)

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

    def _inputs(self, name: str) -> tuple:
        # a VAR / VARS attribute counts as an input of its name, as Paddle's OpDesc::Inputs
        # with attribute variables (compile-time InferShape asks HasInput(attr) for it)
        names = self.op_desc.inputs.get(name)
        if not names:
            value = self.op_desc.attrs.get(name)
            if isinstance(value, VarRef):
                return (value.name,)
            if (isinstance(value, (list, tuple)) and value
                    and all(isinstance(v, VarRef) for v in value)):
                return tuple(v.name for v in value)
        return tuple(names or ())

    def has_input(self, name: str) -> bool:
        return bool(self._inputs(name))

    def has_output(self, name: str) -> bool:
        return bool(self.op_desc.outputs.get(name))

    def has_attr(self, name: str) -> bool:
        return name in self.op_desc.attrs

    def attr(self, name: str):
        return self.op_desc.attrs[name]

    def input_size(self, name: str) -> int:
        return len(self._inputs(name))

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

    def is_sparse_coo_tensor_input(self, name: str) -> bool:
        names = self.op_desc.inputs.get(name, ())
        return bool(names) and all(self._var_type(n) == 30 for n in names)  # SPARSE_COO

    def is_sparse_csr_tensor_input(self, name: str) -> bool:
        names = self.op_desc.inputs.get(name, ())
        return bool(names) and all(self._var_type(n) == 31 for n in names)  # SPARSE_CSR

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
