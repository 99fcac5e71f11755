"""Bound runners: one op bound to the Variables of one scope, replaying its cached decision.

The executor's plan holds one runner per op.  A run reads the input Variables directly (no name
lookups) and, when the inputs still have the dtypes, places and dims seen when the op last ran
through ``run_impl``, calls the kernel of the cached KernelChoice with the constant attributes
and writes the outputs — no InferMeta, as Paddle's cached RunImpl skips InferShape when no input
dims changed.  Anything else (other dtypes or dims, tensor attributes, transforms, fluid
kernels) goes through ``run_impl``: one dispatch path, the runner only remembers its result.
"""

from __future__ import annotations

from phi.common.place import Place
from phi.core.errors import PhiError, kernel_failed
from phi.core.kernel import ArgKind
from phi.core.tensor import DenseTensor

from fluid_compat.framework.scope import Scope
from fluid_compat.operators.outputs import dense_output, store_outputs
from fluid_compat.operators.with_kernel import OperatorWithKernel

__all__ = ["BoundRunner"]


class BoundRunner:
    """``runner()`` runs ``op`` in ``scope`` on ``place``."""

    __slots__ = ("op", "scope", "place", "_fast", "_spec", "_guards", "_outs", "_fn", "_ctx",
                 "_attrs", "_is_cpu", "_runs", "_fast_runs", "_replays", "_simple")

    def __init__(self, op, scope: Scope, place: Place) -> None:
        self.op = op
        self.scope = scope
        self.place = place
        self._fast = False
        self._simple = None
        self._runs = 0
        self._fast_runs = 0
        self._replays: list = []  # compiled segments that replay this op (their runs count)

    # runs of the op, and how many took the fast path (the cached decision replayed), counting
    # the runs of the compiled segments that replay it: a segment counts its own runs once
    # instead of touching every member's counters on every run
    @property
    def runs(self) -> int:
        return self._runs + sum(s.runs for s in self._replays)

    @runs.setter
    def runs(self, value: int) -> None:
        self._runs += value - self.runs

    @property
    def fast_runs(self) -> int:
        return self._fast_runs + sum(s.runs for s in self._replays)

    @fast_runs.setter
    def fast_runs(self, value: int) -> None:
        self._fast_runs += value - self.fast_runs

    # -- the replay description: what the fast path replays, for the steps that replay it in the
    # runner's place (compiled segments, fused steps); read-only, read when they arm
    @property
    def armed(self) -> bool:
        """Whether the fast path is armed (the last run's decision replays)."""
        return self._fast

    @property
    def kernel_fn(self):
        """The phi kernel function the fast path calls (armed runners)."""
        return self._fn

    @property
    def kernel_ctx(self):
        """Its device context."""
        return self._ctx

    @property
    def kernel_attrs(self) -> tuple:
        """Its attribute values (constants), in the kernel's order."""
        return self._attrs

    @property
    def on_cpu(self) -> bool:
        """Whether the kernel runs on the CPU (its results are made ndarrays)."""
        return self._is_cpu

    @property
    def replay_inputs(self) -> list[tuple]:
        """Per kernel input: (kind, Variable or list of them or None, guard or list of guards
        or None); a guard is the (dtype, place, dims) the input must have."""
        if self._simple is not None:
            return [(ArgKind.DENSE, var, (dtype, place, shape))
                    for var, dtype, place, shape in self._simple[0]]
        return [(kind, var, guard)
                for (kind, var), guard in zip(self._spec, self._guards, strict=True)]

    @property
    def replay_outputs(self) -> list[tuple]:
        """Per kernel output: (kind, target Variable or list of them or None, dtype, layout)."""
        if self._simple is not None:
            out_var, dtype, _place, layout = self._simple[1]
            return [(ArgKind.DENSE, out_var, dtype, layout)]
        return list(self._outs)

    @property
    def simple_inputs(self) -> tuple | None:
        """A simple runner's inputs (every one a present dense tensor, one dense output):
        (Variable, dtype, place, dims) each; None for other runners."""
        simple = self._simple
        return None if simple is None else simple[0]

    @property
    def simple_output(self) -> tuple | None:
        """A simple runner's output: (Variable, dtype, place, layout); None for others."""
        simple = self._simple
        return None if simple is None else simple[1]

    def store(self, result) -> None:
        """Store a kernel's ``result`` in the output Variables as the fast path does."""
        store_outputs(self.replay_outputs, result, self._ctx.place, self._is_cpu)

    def replayed_by(self, segment) -> None:
        """``segment`` (with a ``runs`` counter) replays this op: its runs count as this op's."""
        self._replays.append(segment)

    def __call__(self) -> None:
        self._runs += 1
        simple = self._simple
        if simple is not None:
            # dense inputs, one dense output: the common op, in a tight loop
            args = []
            for var, dtype, place, shape in simple[0]:
                t = var.value
                if t is None:
                    return self._slow()
                data = t.data
                if (data is None or t.dtype is not dtype or data.shape != shape or t.lod
                        or (t.place is not place and t.place != place)):
                    return self._slow()
                args.append(data)
            try:
                r = self._fn(self._ctx, *args, *self._attrs)
            except Exception as exc:  # see kernel_error
                raise self.kernel_error(exc) from exc
            if r is None:  # the kernel leaves its output as it is (nop)
                self._fast_runs += 1
                return None
            out_var, dtype, kplace, layout = simple[1]
            out_var.value = dense_output(r, dtype, kplace, layout, self._is_cpu)
            self._fast_runs += 1
            return None
        if self._fast:
            guards = self._guards
            args = []
            for i, (kind, var) in enumerate(self._spec):
                if kind is ArgKind.VECTOR:
                    ts = [v.value for v in var]
                    if len(ts) != len(guards[i]) or any(
                        t is None or t.data is None or t.lod
                        or (t.dtype, t.place, t.data.shape) != g
                        for t, g in zip(ts, guards[i], strict=False)
                    ):
                        return self._slow()
                    args.append([t.data for t in ts])
                    continue
                t = var.value if var is not None else None
                if t is None:
                    if guards[i] is not None:
                        return self._slow()
                    args.append(None)
                    continue
                g = guards[i]
                data = t.data
                if (g is None or data is None or t.dtype is not g[0] or data.shape != g[2]
                        or t.lod or (t.place is not g[1] and t.place != g[1])):
                    return self._slow()
                args.append(data)
            try:
                result = self._fn(self._ctx, *args, *self._attrs)
            except Exception as exc:  # see kernel_error
                raise self.kernel_error(exc) from exc
            store_outputs(self._outs, result, self._ctx.place, self._is_cpu)
            self._fast_runs += 1
            return None
        return self._slow()

    def kernel_error(self, exc: Exception) -> Exception:
        """A kernel's own exception as the error run_impl raises for it (errors.Fatal); the
        project's typed errors pass unchanged.  No raw exception leaves a run."""
        if isinstance(exc, PhiError):
            return exc
        return kernel_failed(self.op.type, self.op.last_choice.phi_kernel.name, exc)

    def _slow(self) -> None:
        op = self.op
        op.run(self.scope, self.place)
        self._learn()
        return None

    def _learn(self) -> None:
        """After a full run: arm the fast path when the decision allows it."""
        self._fast = False
        self._simple = None
        op = self.op
        last = getattr(op, "last_choice", None)
        if getattr(op, "shadow", None) is not None:
            return  # shadow mode runs both sides: every run goes through run_impl
        if last is None or not last.is_phi or last.transforms or any(
                from_tensor for from_tensor, _, _ in last.attr_builders):
            return
        if type(op).compute is not OperatorWithKernel.compute:
            return  # an operator that adjusts the kernel's outputs (a FixedGradOp): full way
        kdef = last.phi_kernel.args_def
        if op.info.hooks.share_lod or any(d.lod for d in kdef.inputs + kdef.outputs):
            return  # LoD flows through InferMeta and the kernel: every run goes the full way
        sig = last.signature
        scope = self.scope
        if any(type(v.value) is not DenseTensor for names in op.inputs.values() for n in names
               if (v := scope.find_var(n)) is not None and isinstance(v.value, DenseTensor)):
            return  # a SelectedRows input (add_n's mixed sum): its dense form is made per run
        spec = []
        guards = []
        for (slot, kind) in last.input_slots:
            names = op.inputs.get(slot, ())
            if kind is ArgKind.VECTOR:
                vars_ = [scope.find_var(n) for n in names]
                if any(v is None or not isinstance(v.value, DenseTensor) for v in vars_):
                    return
                if any(v.value.lod for v in vars_):
                    return
                spec.append((kind, vars_))
                guards.append([(v.value.dtype, v.value.place, v.value.data.shape)
                               for v in vars_])
            else:
                var = scope.find_var(names[0]) if names else None
                t = var.value if var is not None else None
                if not isinstance(t, DenseTensor) or t.data is None:
                    spec.append((kind, var))
                    guards.append(None)
                else:
                    if t.lod:
                        return
                    spec.append((kind, var))
                    guards.append((t.dtype, t.place, t.data.shape))
        outs = []
        for slot, d in zip(sig.outputs, last.phi_kernel.args_def.outputs, strict=False):
            names = op.outputs.get(slot, ())
            if not names:
                outs.append((d.kind, None, None, None))
                continue
            vars_ = [scope.var(n) if scope.find_var(n) is None else scope.find_var(n)
                     for n in names]
            sample = vars_[0].value
            if not isinstance(sample, DenseTensor):
                return
            if d.kind is ArgKind.VECTOR:
                outs.append((d.kind, vars_, sample.dtype, sample.layout))
            else:
                outs.append((d.kind, vars_[0], sample.dtype, sample.layout))
        self._spec = spec
        self._guards = guards
        self._outs = outs
        self._fn = last.phi_kernel.fn
        self._ctx = last.dev_ctx
        self._attrs = tuple(value for _, value, _ in last.attr_builders)
        self._is_cpu = last.dev_ctx.place.device_type == "cpu"
        self._fast = True
        if (len(outs) == 1 and outs[0][0] is not ArgKind.VECTOR and outs[0][1] is not None
                and all(kind is not ArgKind.VECTOR and g is not None
                        for (kind, _), g in zip(spec, guards, strict=False))):
            dense = tuple((var, g[0], g[1], g[2])
                          for (_, var), g in zip(spec, guards, strict=True))
            _, out_var, dtype, layout = outs[0]
            self._simple = (dense, (out_var, dtype, last.dev_ctx.place, layout))
