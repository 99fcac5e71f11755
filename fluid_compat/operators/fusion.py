"""Plan-time fusion: conv2d / depthwise_conv2d -> batch_norm (running statistics)
[-> elementwise_add of a residual] [-> relu / relu6] replayed as one step, as Paddle's inference
passes (conv_bn_fuse_pass, conv + elementwise_add + activation fuses) do.

Inference programs of CNNs are mostly this chain.  Run op by op, each op allocates a new
activation-sized array and makes its passes over it; the fused step computes batch_norm's
per-channel coefficients on every run (from the current statistics: nothing is cached, so
replaced or edited parameters take effect), scales and shifts the convolution's result in place
and applies the activation in place with the phi kernel's own ufunc.  Each element goes through
the same float operations in the same order as op by op (``conv``, ``* new_scale``,
``+ new_bias``, ``+ residual``, activation; an IEEE sum is the same either way round, so the
residual may be either operand of the add), so results are bitwise equal to op-by-op results:
the first run of
a plan (op by op, while the runners learn) and every later, fused run give the same bits.
(Paddle's conv_bn_fuse_pass folds the scale into the filter instead: a few ulp off the static
Executor, and here it would make run 1 differ from run 2, so we do not.)
``FLAGS_fuse_conv_bn=0`` runs op by op (kernel timing).

Fusion passes: every kind of fused step is a ``FusionPass`` (a finder of runner spans, the step
class standing for them, and the FLAGS_ switch that turns it off) registered here with
``register_fusion``; the executor asks ``plan_steps`` for the steps of the passes whose flags
are on (spans of an earlier-registered pass win over overlapping later ones).

A chain is fused only when the executor may drop its intermediates: its ops are consecutive,
every member replays on its fast path (phi kernels on the CPU, dense inputs, no transforms, no
shadow), the intermediates are neither fetched nor read by a later op, and batch_norm's running
statistics are written back to themselves (MeanOut is Mean) or not at all.  Fused steps check
the same guards as the runners (dtypes, places, dims); any change runs the members one by one
and re-arms from what they learned.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from phi.core import bound, records
import numpy as np
from phi import flags
from phi.common.data_type import DataType
from phi.core.tensor import DenseTensor
from phi.kernels.funcs import jit

from fluid_compat.operators.runner import BoundRunner

__all__ = ["ConvEpilogueStep", "FusionPass", "enabled_passes", "find_conv_epilogues",
           "fusion_flags", "plan_steps", "register_fusion"]

_FLAG = "FLAGS_fuse_conv_bn"
flags.define_flag(_FLAG, bool, True, "Replay conv2d -> batch_norm (running statistics) "
                  "[-> elementwise_add residual] [-> relu/relu6] chains of planned programs as "
                  "one in-place step.")
_RESIDUAL_FLAG = "FLAGS_fuse_conv_bn_residual"
flags.define_flag(_RESIDUAL_FLAG, bool, True, "With FLAGS_fuse_conv_bn: a residual "
                  "elementwise_add right after the batch_norm (and its relu/relu6) join the "
                  "fused step (off: the step ends at batch_norm or its activation).")
FLAGS = flags.FLAGS


@records.frozen(eq=False)  # one object per kind, compared and hashed by identity (a plan's
class FusionPass:           # steps are cached per tuple of enabled passes, looked up per run)
    """One kind of fused step: ``find(runners, release)`` gives (start, stop) runner ranges,
    ``step(members, released)`` makes the step standing for one; ``flag`` turns it off.  A
    pass with ``rewrite`` instead rewrites the list of steps the span passes made (it runs
    after them, in registration order)."""

    name: str
    flag: str
    find: Callable[[list[BoundRunner], list[list]], list[tuple[int, int]]] | None
    step: Callable[[list[BoundRunner], list], object] | None
    rewrite: Callable[[list[tuple]], list[tuple]] | None = None


_PASSES: list[FusionPass] = []


def register_fusion(fusion: FusionPass) -> FusionPass:
    """Add a fusion pass (module import time); its flag must be defined."""
    if fusion.flag not in flags.FLAGS:
        raise KeyError(f"fusion pass {fusion.name}: flag {fusion.flag} is not defined")
    _PASSES.append(fusion)
    return fusion


def fusion_flags() -> list[str]:
    """The FLAGS_ switches of every registered pass (all off: every op through its runner)."""
    return [p.flag for p in _PASSES]


def enabled_passes() -> tuple[FusionPass, ...]:
    """The passes whose flags are on, in registration order."""
    flag_values = flags.FLAGS
    return tuple(p for p in _PASSES if flag_values[p.flag])


def plan_steps(runners: list[BoundRunner], release: list[list], passes) -> list[tuple]:
    """A plan's steps, (step, variables released after it, ops it stands for), with the spans
    of ``passes`` fused (an earlier pass's span wins over an overlapping later one)."""
    taken = [False] * len(runners)
    spans = []
    for fusion in passes:
        if fusion.find is None:
            continue
        for start, stop in fusion.find(runners, release):
            if any(taken[start:stop]):
                continue
            taken[start:stop] = [True] * (stop - start)
            spans.append((start, stop, fusion))
    spans.sort(key=lambda span: span[0])
    steps, at = [], 0
    for start, stop, fusion in spans:
        steps.extend((r, rel, 1) for r, rel in zip(runners[at:start], release[at:start],
                                                    strict=True))
        released = [v for group in release[start:stop] for v in group]
        steps.append((fusion.step(runners[start:stop], released), released, stop - start))
        at = stop
    steps.extend((r, rel, 1) for r, rel in zip(runners[at:], release[at:], strict=True))
    for fusion in passes:
        if fusion.rewrite is not None:
            steps = fusion.rewrite(steps)
    return steps


# the kernels whose arithmetic a fused step reproduces: kernel name -> its module of
# phi.kernels, where the function of that name is defined.  A runner's kernel is one of them
# when its function is that one (by where it was defined, as the registry tells built-ins, not
# by what the module's attribute holds now: a plug-in registered under the same name, even
# re-exported there, is never bypassed, and a test's wrapper on the attribute changes nothing);
# nothing is imported for it (a program without convolutions never imports the conv and norm
# kernels)
_FUSED = {"conv2d": "conv", "depthwise_conv2d": "conv", "batch_norm": "batch_norm",
          "batch_norm_infer": "batch_norm", "relu": "activation", "relu6": "activation",
          "add": "elementwise"}
_CONV_KERNELS = tuple(name for name, module in _FUSED.items() if module == "conv")
_BN_KERNELS = tuple(name for name, module in _FUSED.items() if module == "batch_norm")
_ADD_KERNELS = tuple(name for name, module in _FUSED.items() if module == "elementwise")
# activation -> (its in-place arithmetic in phi.kernels.activation, the compiled epilogue's
# code: _jit_loops.bn_affine_act)
_ACTIVATIONS = {"relu": ("relu_values", 1), "relu6": ("relu6_values", 2)}


def _kernel_function(module: str, name: str):
    """``phi.kernels.<module>.<name>`` (the module imported on first use; plan time only)."""
    return getattr(importlib.import_module(f"phi.kernels.{module}"), name)


def _choice(runner: BoundRunner):
    return getattr(runner.op, "last_choice", None)


def _kernel_name(runner: BoundRunner) -> str | None:
    """The phi kernel the runner replays, when it is one of this module's (CPU, not shadowed)."""
    choice = _choice(runner)
    if choice is None or not choice.is_phi or getattr(runner.op, "shadow", None) is not None:
        return None
    if choice.dev_ctx.place.device_type != "cpu":
        return None
    name = choice.phi_kernel.name
    if name not in _FUSED:
        return None
    fn = choice.phi_kernel.fn
    return (name if getattr(fn, "__module__", None) == f"phi.kernels.{_FUSED[name]}"
            and getattr(fn, "__qualname__", None) == name else None)


def _attrs(runner: BoundRunner) -> dict:
    return dict(zip(_choice(runner).signature.attrs, runner._attrs, strict=True))


def _slot_vars(runner: BoundRunner) -> dict:
    """Input slot -> the Variable the runner reads (single-tensor slots)."""
    slots = [slot for slot, _ in _choice(runner).input_slots]
    return {slot: var for slot, (_, var) in zip(slots, runner._spec, strict=True)}


def _output_names(runner: BoundRunner, slot: str) -> list[str]:
    return list(runner.op.outputs.get(slot, ()))


class ConvEpilogueStep:
    """One plan step standing for the runners ``members`` (conv, batch_norm[, add][,
    activation])."""

    __slots__ = ("members", "release", "_kinds", "_conv", "_conv_fn", "_epoch", "_bn_inputs",
                 "_bn_guards", "_compiled", "_epsilon", "_bshape", "_act", "_act_code",
                 "_residual", "_out", "_xp", "_compute", "_coefficients", "runs", "last_fused")

    def __init__(self, members: list[BoundRunner], release: list) -> None:
        self.members = members
        self.release = release
        self.runs = 0
        self.last_fused = False  # whether the last call ran as one step
        # the members' kernels as the pass found them (conv, batch_norm[, add][, activation])
        self._kinds = [_kernel_name(runner) for runner in members]
        for runner in members:  # each fused run replays every member's decision
            runner.replayed_by(self)
        self._arm()

    def _arm(self) -> bool:
        """Take the fast-path state of the members; False when one of them has none (or
        re-learned another kernel than the pass fused)."""
        conv, bn, *rest = self.members
        add = rest[0] if rest and self._kinds[2] in _ADD_KERNELS else None
        act = rest[1:] if add is not None else rest
        if (conv._simple is None or not bn._fast or (act and act[0]._simple is None)
                or (add is not None and add._simple is None)
                or [_kernel_name(runner) for runner in self.members] != self._kinds):
            self._conv = None
            return False
        named = _attrs(conv)
        conv_attrs = tuple(named[k] for k in ("strides", "paddings", "padding_algorithm",
                                              "dilations", "groups", "data_format"))
        self._conv = conv._simple[0], conv._ctx, conv_attrs
        # the conv kernel bound to its attributes and planned inputs (phi.core.bound: geometry
        # and path decided once), else conv_compute on every call
        self._conv_fn = bound.bind(conv._fn, conv._ctx, conv._attrs,
                                   [(dtype, shape) for _v, dtype, _p, shape in conv._simple[0]])
        self._compute = _kernel_function("conv", "conv2d_compute")
        self._coefficients = _kernel_function("batch_norm", "global_stats_coefficients")
        self._epoch = bound.epoch()
        slots = _slot_vars(bn)
        self._bn_inputs = tuple(slots.get(s) for s in ("Mean", "Variance", "Scale", "Bias"))
        guards = dict(zip((slot for slot, _ in _choice(bn).input_slots), bn._guards,
                          strict=True))
        self._bn_guards = tuple(guards.get(s) for s in ("Mean", "Variance", "Scale", "Bias"))
        attrs = _attrs(bn)
        self._epsilon = attrs["epsilon"]
        axis = 3 if attrs["data_layout"] == "NHWC" else 1
        self._bshape = tuple(-1 if i == axis else 1 for i in range(4))  # per-channel vectors
        values, self._act_code = _ACTIVATIONS[self._kinds[-1]] if act else (None, 0)
        self._act = _kernel_function("activation", values) if act else None
        last = act[0] if act else add if add is not None else bn
        y_var = bn.scope.find_var(_output_names(bn, "Y")[0])
        self._residual = None
        if add is not None:
            # the residual: the add's input that is not batch_norm's Y, of Y's planned dims
            # and dtype (as find_conv_epilogues planned it; an add that re-learned other dims,
            # a broadcast, runs op by op)
            mine = next(entry for entry in add._simple[0] if entry[0] is y_var)
            self._residual = next(entry for entry in add._simple[0] if entry[0] is not y_var)
            if (self._residual[1] is not mine[1]
                    or tuple(self._residual[3]) != tuple(mine[3])):
                self._conv = None
                return False
        # the compiled epilogue (_jit_loops.bn_affine_act / bn_affine_add_act) where the plan
        # pins NCHW float arrays of one dtype: the filter's, the four statistics' (vectors of
        # the filter's output channels) and the residual's; a run then checks only that the
        # arrays are C-contiguous numpy ones of that dtype
        w_entry = conv._simple[0][1] if len(conv._simple[0]) == 2 else None
        dtype = None if w_entry is None else w_entry[1]
        self._compiled = None
        if (dtype is not None and axis == 1 and dtype.to_numpy() in jit.DTYPES
                and all(g is not None and g[0] is dtype and tuple(g[2]) == (w_entry[3][0],)
                        for g in self._bn_guards)
                and (self._residual is None or self._residual[1] is dtype)):
            self._compiled = dtype.to_numpy()
        if act:
            out_var, dtype, place, layout = act[0]._simple[1]
        elif add is not None:
            out_var, dtype, place, layout = add._simple[1]
        else:
            y_index = _choice(bn).signature.outputs.index("Y")
            _kind, out_var, dtype, layout = bn._outs[y_index]
            place = bn._ctx.place
        self._out = (out_var, dtype, place, layout)
        self._xp = last._ctx.xp
        return True

    def __call__(self) -> None:
        if self._conv is None:
            return self._unfused()
        if self._epoch != bound.epoch() and not self._arm():  # FLAGS_kernel_bind changed
            return self._unfused()
        dense, ctx, attrs = self._conv
        args = []
        for var, dtype, place, shape in dense:
            t = var.value
            if t is None:
                return self._unfused()
            data = t.data
            if (data is None or t.dtype is not dtype or data.shape != shape
                    or (t.place is not place and t.place != place)):
                return self._unfused()
            args.append(data)
        stats = []
        for var, g in zip(self._bn_inputs, self._bn_guards, strict=True):
            t = None if var is None else var.value
            if t is None or t.data is None:
                if g is not None:
                    return self._unfused()
                stats.append(None)
                continue
            if (g is None or t.dtype is not g[0] or t.data.shape != g[2]
                    or (t.place is not g[1] and t.place != g[1])):
                return self._unfused()
            stats.append(t.data)
        other = None
        if self._residual is not None:
            var, dtype, place, shape = self._residual
            t = var.value
            other = None if t is None else t.data
            # a residual with a LoD: the add gives it to its output (op by op keeps it)
            if (other is None or t.dtype is not dtype or other.shape != shape or t.lod
                    or (t.place is not place and t.place != place)):
                return self._unfused()
        self.runs += 1  # fused runs, the members' too (a fallback to the members counts there)
        self.last_fused = True
        x, w = args
        conv_fn = self._conv_fn
        y = conv_fn(x, w) if conv_fn is not None else self._compute(ctx, x, w, *attrs)
        loops = self._loops(y, stats, other)
        if loops is not None:
            # batch_norm's coefficients and the epilogue in one compiled call (the operations
            # below, in their order; channels split over threads)
            y3 = y.reshape(y.shape[0], y.shape[1], -1)
            if other is None:
                jit.split(loops.bn_affine_act, y.shape[1], y.size, y3, *stats, self._epsilon,
                          self._act_code)
            else:
                jit.split(loops.bn_affine_add_act, y.shape[1], y.size, y3, *stats,
                          self._epsilon, other.reshape(y3.shape), self._act_code)
        else:
            # batch_norm's arithmetic, in its order (norm._batch_norm: x * new_scale,
            # + new_bias), then the residual's add (elementwise.add: + other) and the activation
            xp = self._xp
            new_scale, new_bias = self._coefficients(xp, *stats, self._epsilon, w.dtype)
            xp.multiply(y, xp.reshape(new_scale, self._bshape), out=y)
            xp.add(y, xp.reshape(new_bias, self._bshape), out=y)
            if other is not None:
                xp.add(y, other, out=y)
            if self._act is not None:
                self._act(xp, y, out=y)
        out_var, dtype, place, layout = self._out
        out_var.value = DenseTensor(y, dtype, place, layout)
        return None

    def _loops(self, y, stats, other):
        """The compiled loops (module ``phi.kernels.jit``) when the plan allows them (``_arm``)
        and this run's arrays are C-contiguous, aligned numpy arrays of the planned dtype."""
        dt = self._compiled
        if dt is None or y.size == 0:
            return None
        nd = np.ndarray
        for a in (y, *stats) if other is None else (y, other, *stats):
            if type(a) is not nd or a.dtype != dt:
                return None
            flags = a.flags
            if not (flags.c_contiguous and flags.aligned):
                return None
        return jit.kernels()

    def _unfused(self) -> None:
        self.last_fused = False
        for runner in self.members:
            runner()
        self._arm()
        return None


def _released_at(release: list, var) -> bool:
    return any(v is var for v in release)


def find_conv_epilogues(runners: list[BoundRunner], release: list[list],
                        residual: bool = False) -> list[tuple[int, int]]:
    """(start, stop) runner index ranges that form fusable chains (module doc); ``residual``:
    only the chains with a residual add."""
    found = []
    i = 0
    n = len(runners)
    while i < n - 1:
        span = _chain_at(runners, release, i, residual)
        if span:
            found.append((i, i + span))
            i += span
        else:
            i += 1
    return found


def _chain_at(runners, release, i: int, residual: bool = False) -> int:
    conv, bn = runners[i], runners[i + 1]
    if _kernel_name(conv) not in _CONV_KERNELS or conv._simple is None:
        return 0
    if _kernel_name(bn) not in _BN_KERNELS or not bn._fast:
        return 0
    conv_out, out_dtype = conv._simple[1][0], conv._simple[1][1]
    if out_dtype not in (DataType.FLOAT32, DataType.FLOAT64):
        return 0
    # the conv's output is read by batch_norm only (released there: not fetched, not kept)
    if _slot_vars(bn).get("X") is not conv_out or not _released_at(release[i + 1], conv_out):
        return 0
    attrs = _attrs(bn)
    if _kernel_name(bn) == "batch_norm" and not (
            (attrs["is_test"] and not attrs["trainable_statistics"])
            or attrs["use_global_stats"]):
        return 0
    conv_format = _attrs(conv).get("data_format", "NCHW")
    if (conv_format == "NHWC") != (attrs["data_layout"] == "NHWC"):
        return 0
    # batch_norm's other outputs: the running statistics written to themselves, the rest dead
    op = bn.op
    for out_slot, in_slot in (("MeanOut", "Mean"), ("VarianceOut", "Variance")):
        outs = _output_names(bn, out_slot)
        if outs and outs != list(op.inputs.get(in_slot, ())) and not all(
                _released_at(release[i + 1], bn.scope.find_var(n)) for n in outs):
            return 0
    for out_slot in ("SavedMean", "SavedVariance", "ReserveSpace"):
        for name in _output_names(bn, out_slot):
            if not _released_at(release[i + 1], bn.scope.find_var(name)):
                return 0
    y_names = _output_names(bn, "Y")
    if len(y_names) != 1:
        return 0
    y_var = bn.scope.find_var(y_names[0])
    span, last = 2, y_var
    if residual:
        if not _residual_add_at(runners, release, i + 2, y_var, conv):
            return 0
        span, last = 3, runners[i + 2]._simple[1][0]
    if i + span < len(runners):
        act = runners[i + span]
        if (_kernel_name(act) in _ACTIVATIONS and act._simple is not None
                and act._simple[0][0][0] is last and _released_at(release[i + span], last)
                and not _released_at(release[i + span - 1], last)):
            return span + 1
    return span


def _residual_add_at(runners, release, j: int, y_var, conv) -> bool:
    """Whether runner j adds batch_norm's Y (read there only) and another tensor of Y's planned
    dims and dtype (the residual: x + y, no broadcast)."""
    if j >= len(runners):
        return False
    add = runners[j]
    if _kernel_name(add) not in _ADD_KERNELS or add._simple is None:
        return False
    entries = add._simple[0]
    if len(entries) != 2 or sum(entry[0] is y_var for entry in entries) != 1:
        return False
    mine = next(entry for entry in entries if entry[0] is y_var)
    other = next(entry for entry in entries if entry[0] is not y_var)
    # Y: released at the add (not kept, not fetched), not before it
    if not _released_at(release[j], y_var) or _released_at(release[j - 1], y_var):
        return False
    return (other[1] is mine[1] and tuple(other[3]) == tuple(mine[3])
            and mine[1] is conv._simple[1][1])


def find_conv_residual_epilogues(runners: list[BoundRunner], release: list[list]
                                 ) -> list[tuple[int, int]]:
    """The chains with a residual add (none while FLAGS_fuse_conv_bn is off)."""
    if not FLAGS[_FLAG]:
        return []
    return find_conv_epilogues(runners, release, residual=True)


# the residual pass first: its spans win over the shorter conv_bn spans they contain
register_fusion(FusionPass("conv_bn_residual", _RESIDUAL_FLAG, find_conv_residual_epilogues,
                           ConvEpilogueStep))
register_fusion(FusionPass("conv_bn", _FLAG, find_conv_epilogues, ConvEpilogueStep))
