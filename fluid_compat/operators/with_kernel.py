"""OperatorBase and OperatorWithKernel: how one legacy op runs (Paddle's RunImpl).

``run(scope, place)``:

1. read the op's input tensors from the scope (RuntimeContext);
2. look up the *decision* for this input signature (dtypes, places, layouts of the inputs) —
   made once by ``decide`` and cached per op instance (a deliberate improvement over Paddle,
   which decides on the first run only):
   a. expected kernel type (``get_expected_kernel_type`` + hints use_cudnn, use_mkldnn,
      op_device, force_cpu);
   b. the KernelSignature from argmap (only when the op has a compatible phi kernel);
   c. kernel: phi on the expected device > fluid on the expected device > phi on CPU > fluid on
      CPU (CPU fallback only for custom devices / XPU, for GPU only with
      FLAGS_static_gpu_fallback_to_cpu);
   d. per input, the transform its argument definition asks for, and a dtype check;
3. prepare inputs into a transfer scope (the caller's scope is never modified by preparation);
4. InferMeta / InferShape, kernel call, outputs checked against the inferred meta;
5. commit outputs to the scope — only now, so a failing op writes nothing.
"""

from __future__ import annotations


from fluid_compat.framework.op_kernel_type import OpKernelType
from fluid_compat.framework.scope import Scope
from fluid_compat.operators import expected_kernel, pinning  # noqa: F401 - defines the flag
from fluid_compat.operators.base import OperatorBase
from fluid_compat.operators.context import ExecutionContext
from fluid_compat.operators.kernel_choice import KernelChoice, generation
from opmakers.grad import EMPTY_VAR_NAME
from phi.common.place import Place
from phi import flags
from phi.core import trace
from phi.core.errors import NotFound
from phi.core.tensor import DenseTensor

__all__ = ["OperatorBase", "OperatorWithKernel"]


class OperatorWithKernel(OperatorBase):
    """An op computed by a kernel: phi preferred, fluid kept beside it, CPU fallback."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self._choices: dict[tuple, KernelChoice] = {}
        self._slots = tuple(sorted(self.inputs))  # Paddle's RuntimeContext is a sorted map
        self.last_choice: KernelChoice | None = None
        self.pin: str | None = None  # "phi" / "fluid": set by the executor (pinning.py)
        self.shadow = None  # a ShadowRecorder: also run the other side and compare
        self.index = -1  # the op's index in its block, for reports

    # -- overridable pieces ------------------------------------------------------------------
    def get_expected_kernel_type(self, ctx: ExecutionContext) -> OpKernelType:
        hook = self.info.hooks.get_expected_kernel_type
        if hook is not None:
            return hook(self, ctx)
        if self.info.is_grad:  # generated grad ops: `data_type : out_grad` (backward.yaml)
            for slot in self._slots:
                if slot.endswith("@GRAD") and any(t is not None
                                                  for t in ctx.inputs.get(slot) or ()):
                    return OpKernelType(expected_kernel.indicate_var_data_type(self, ctx, slot),
                                        ctx.place)
        return OpKernelType(expected_kernel.indicate_data_type(self, ctx), ctx.place)

    def get_kernel_type_for_var(self, slot: str, tensor: DenseTensor,
                                expected: OpKernelType) -> OpKernelType:
        hook = self.info.hooks.get_kernel_type_for_var
        if hook is not None:
            return hook(self, slot, tensor, expected)
        return OpKernelType(expected.dtype, tensor.place, tensor.layout)

    # -- the run -----------------------------------------------------------------------------
    def _read_inputs(self, scope: Scope) -> dict[str, list]:
        inputs: dict[str, list] = {}
        for slot in self._slots:
            values = []
            for name in self.inputs[slot]:
                var = scope.find_var(name)
                if var is None:
                    if slot in self.attr_vars:
                        raise NotFound(
                            f"Operator `{self.type}`: attribute `{slot}` is given by variable "
                            f"`{name}` (a VAR/VARS attribute), which is not found in the scope."
                        )
                    raise NotFound(
                        f"Operator `{self.type}`: input `{slot}` variable `{name}` is not "
                        "found in the scope."
                    )
                value = var.value
                values.append(value if isinstance(value, DenseTensor) and value.data is not None
                              else value if isinstance(value, list) else None)
            inputs[slot] = values
        return inputs

    @staticmethod
    def _signature_of(inputs: dict[str, list]) -> tuple:
        sig = []
        for values in inputs.values():
            for t in values:
                if t is None:
                    sig.append(None)
                elif isinstance(t, DenseTensor):
                    # a SelectedRows input maps to other kernels than a dense one
                    sig.append((t.dtype, t.place, t.layout, type(t)))
                else:
                    sig.append(type(t))
        return tuple(sig)

    def run_impl(self, scope: Scope, place: Place) -> None:
        inputs = self._read_inputs(scope)
        key = (place, self._signature_of(inputs), flags.FLAGS["FLAGS_kernel_pins"])
        choice = self._choices.get(key)
        if choice is None or choice.generation != generation():
            choice = self.decide(inputs, place)
            self._choices[key] = choice
        elif trace.LEVEL:
            trace.logger.info("%s: cached decision, %s", self.type, choice)
        staged = self.compute(choice, inputs, scope)
        if self.shadow is not None:
            self.shadow.observe(self, choice, inputs, scope, staged, place)
        self._commit(staged, scope)
        self.last_choice = choice

    def decide(self, inputs: dict[str, list], place: Place, pin: str | None = None
               ) -> KernelChoice:
        """Choose the kernel, the signature and the transforms for these inputs."""
        from fluid_compat.operators import dispatch
        from fluid_compat.operators.pinning import resolve_pin

        if pin is None:
            pin = self.pin or resolve_pin(self.type)
        return dispatch.decide(self, inputs, place, pin)

    def compute(self, choice: KernelChoice, inputs: dict[str, list], scope: Scope
                ) -> dict[str, list]:
        from fluid_compat.operators.dispatch import compute

        return compute(self, choice, inputs, scope)

    def _commit(self, staged: dict[str, list], scope: Scope) -> None:
        for slot, values in staged.items():
            names = self.outputs.get(slot, ())
            for name, value in zip(names, values, strict=False):
                if value is None or name == EMPTY_VAR_NAME:  # a gradient nobody asked for
                    continue
                var = scope.find_var(name)  # an output of an enclosing block, or in place
                if var is None:
                    var = scope.var(name)
                var.value = value

    def kernel_choices(self) -> dict[tuple, KernelChoice]:
        """The cached decisions, by (place, input signature) — for explain and tests."""
        return dict(self._choices)

