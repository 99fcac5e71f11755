"""The operator class hook of fake_init."""

from __future__ import annotations

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.base import OperatorBase
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument, NotFound
from phi.core.selected_rows import SelectedRows
from phi.core.tensor import DenseTensor

__all__ = ["FakeInitOp"]


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


op_hooks("fake_init", operator_class=FakeInitOp)

