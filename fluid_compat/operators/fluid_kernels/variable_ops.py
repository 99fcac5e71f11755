"""OperatorBase ops that act on variables rather than on values: delete_var, depend, fake_init
(paddle/fluid/operators/delete_var_op.cc, controlflow/depend_op.cc, fake_init_op.cc in Paddle
2.6.2).

* ``depend``: Out is X itself (the op only orders X after its ``Dep`` inputs for a parallel
  executor); Paddle refuses an Out named otherwise than X (PreconditionNotMet).  Nothing runs.
* ``delete_var``: Paddle erases the variables named by X from the scope the op runs in (only
  that scope: a parameter of the outer scope stays, as Paddle-made cases show).  Paddle 2.6.2's
  new executor segfaults when the erased variable is one of the run's own temporaries; the
  bridge releases those variables' values instead (the variable stays declared, so a plan that
  runs again still finds it): reading or fetching one afterwards fails with a typed error.
* ``fake_init``: Out becomes a tensor of dims ``shape`` with no data (Paddle resizes it and
  allocates nothing: dims-only readers such as ``shape`` work, fetching it yields no values); a
  SELECTED_ROWS Out gets that as its value's dims.  Its dtype is the one Out already held, else
  Out's declared (VarDesc) dtype, else Undefined.
"""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument, NotFound, PreconditionNotMet
from phi.core.selected_rows import SelectedRows
from phi.core.tensor import DenseTensor

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.base import OperatorBase

__all__ = ["DeleteVarOp", "DependOp", "FakeInitOp"]


class DependOp(OperatorBase):
    """X and Out are one variable: checks that, does nothing else."""

    def run_impl(self, scope, place) -> None:
        x, out = self.input("X"), (self.outputs.get("Out") or (None,))[0]
        if x is None:
            raise NotFound("depend: Input(X) of depend is not found.")
        if out is None:
            raise NotFound("depend: Output(Out) of depend is not found.")
        if x != out:
            raise PreconditionNotMet(f"depend: Input(X) and Output(Out) variable should be the "
                                     f"same, but got Input is {x} and Output is {out}.")


class DeleteVarOp(OperatorBase):
    """Releases the values of the variables X names that live in the op's own scope."""

    def run_impl(self, scope, place) -> None:
        for name in self.inputs.get("X", ()):
            var = scope.find_local_var(name)
            if var is not None:
                var.value = None


class FakeInitOp(OperatorBase):
    """Out = a tensor of dims ``shape`` holding no data."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self._dtype = DataType.UNDEFINED  # Out's VarDesc dtype, once the program is known

    def bind_block(self, block, label: str, **_) -> None:
        """Called when the program is planned: Out's declared dtype (what dtype readers such as
        ``shape`` choose their kernel by; Paddle's variable carries it from its VarDesc)."""
        outs = self.outputs.get("Out", ())
        desc = block.find_var_recursive(outs[0]) if outs else None
        if desc is not None and desc.dtype is not None:
            self._dtype = desc.dtype

    def run_impl(self, scope, place) -> None:
        outs = self.outputs.get("Out", ())
        if not outs:
            raise NotFound("fake_init: Output(Out) of fake_init is not found.")
        var = scope.find_var(outs[0]) or scope.var(outs[0])  # run_op declares none
        shape = [int(d) for d in self.attrs.get("shape", ())]
        if any(d < 0 for d in shape):
            raise InvalidArgument(f"fake_init: attribute shape {shape} of Out `{outs[0]}` "
                                  "holds a negative dimension.")
        old = var.value
        if old is not None and not isinstance(old, DenseTensor):
            raise InvalidArgument(f"fake_init: Out `{outs[0]}` holds {type(old).__name__}; "
                                  "fake_init's output only supports SelectedRows and LoDTensor.")
        dtype = old.dtype if isinstance(old, DenseTensor) and old.dtype is not \
            DataType.UNDEFINED else self._dtype
        if isinstance(old, SelectedRows) or outs[0] in getattr(self, "selected_rows_vars", ()):
            rows = old.rows if isinstance(old, SelectedRows) else ()
            height = old.height if isinstance(old, SelectedRows) else 0
            value = SelectedRows(rows, height, None, dtype)
            # the value's dims without data: the DenseTensor part of the SelectedRows
            DenseTensor.__init__(value, None, dtype, value.place, value.layout, (), tuple(shape))
            var.value = value
        else:
            var.value = DenseTensor(None, dtype, dims=tuple(shape))


# Paddle runs depend with an empty Dep (the op then only checks X is Out)
op_hooks("depend", operator_class=DependOp, may_be_empty=frozenset({"Dep"}))
op_hooks("delete_var", operator_class=DeleteVarOp)
op_hooks("fake_init", operator_class=FakeInitOp)
