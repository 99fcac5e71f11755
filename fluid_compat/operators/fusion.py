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
from phi.common.backend import Backend
from phi.common.data_type import DataType
from phi.core.registry import kernel_factory
from phi.kernels.funcs import jit

from fluid_compat.operators.outputs import dense_output
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


# the kernels whose arithmetic a fused step reproduces.  A runner's kernel is one of them when
# its function is the built-in CPU kernel of that name, by identity (the registered CPU kernels
# of the name whose functions phi's registry calls its own): a plug-in registered under the same
# name is never bypassed, and a test's wrapper on a module attribute changes nothing.  Where a
# kernel is defined plays no part; nothing is imported for it (a program without convolutions
# never imports the conv and norm kernels)
_CONV_KERNELS = ("conv2d", "depthwise_conv2d")
_BN_KERNELS = ("batch_norm", "batch_norm_infer")
_ADD_KERNELS = ("add",)
# activation -> (its in-place arithmetic, a function of the module defining the activation's
# kernel; the compiled epilogue's code: _jit_loops.bn_affine_act)
_ACTIVATIONS = {"relu": ("relu_values", 1), "relu6": ("relu6_values", 2)}
_FUSED = frozenset(_CONV_KERNELS + _BN_KERNELS + _ADD_KERNELS + tuple(_ACTIVATIONS))

_BUILTIN: dict[str, frozenset] = {}  # kernel name -> its built-in CPU kernel functions
_BUILTIN_GENERATION = [-1]  # the registry generation _BUILTIN was read in


def _builtin_fns(name: str) -> frozenset:
    """The functions of the built-in CPU kernels registered under ``name`` now (plan time)."""
    factory = kernel_factory()
    if _BUILTIN_GENERATION[0] != factory.generation:
        _BUILTIN.clear()
        _BUILTIN_GENERATION[0] = factory.generation
    found = _BUILTIN.get(name)
    if found is None:
        found = _BUILTIN[name] = frozenset(
            k.fn for k in (factory.kernels_of(name).values() if factory.has_kernel(name) else ())
            if k.key.backend is Backend.CPU and factory.is_builtin(k.fn))
    return found


def _kernel_function(kernel_fn, name: str):
    """The function ``name`` of the module that defines the built-in kernel ``kernel_fn``
    (looked up when a step arms: plan time only)."""
    return getattr(importlib.import_module(kernel_fn.__module__), name)


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
    return name if choice.phi_kernel.fn in _builtin_fns(name) else None


def _attrs(runner: BoundRunner) -> dict:
    return dict(zip(_choice(runner).signature.attrs, runner.kernel_attrs, strict=True))


def _slot_vars(runner: BoundRunner) -> dict:
    """Input slot -> the Variable the runner reads (single-tensor slots)."""
    slots = [slot for slot, _ in _choice(runner).input_slots]
    return {slot: var for slot, (_, var, _guard) in zip(slots, runner.replay_inputs, strict=True)}


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
        if (conv.simple_inputs is None or not bn.armed or (act and act[0].simple_inputs is None)
                or (add is not None and add.simple_inputs is None)
                or [_kernel_name(runner) for runner in self.members] != self._kinds):
            self._conv = None
            return False
        named = _attrs(conv)
        conv_attrs = tuple(named[k] for k in ("strides", "paddings", "padding_algorithm",
                                              "dilations", "groups", "data_format"))
        self._conv = conv.simple_inputs, conv.kernel_ctx, conv_attrs
        # the conv kernel bound to its attributes and planned inputs (phi.core.bound: geometry
        # and path decided once), else conv_compute on every call
        self._conv_fn = bound.bind(conv.kernel_fn, conv.kernel_ctx, conv.kernel_attrs,
                                   [(dtype, shape) for _v, dtype, _p, shape in conv.simple_inputs])
        self._compute = _kernel_function(conv.kernel_fn, "conv2d_compute")
        self._coefficients = _kernel_function(bn.kernel_fn, "global_stats_coefficients")
        self._epoch = bound.epoch()
        slots = _slot_vars(bn)
        self._bn_inputs = tuple(slots.get(s) for s in ("Mean", "Variance", "Scale", "Bias"))
        guards = dict(zip((slot for slot, _ in _choice(bn).input_slots),
                          (guard for _kind, _var, guard in bn.replay_inputs), strict=True))
        self._bn_guards = tuple(guards.get(s) for s in ("Mean", "Variance", "Scale", "Bias"))
        attrs = _attrs(bn)
        self._epsilon = attrs["epsilon"]
        axis = 3 if attrs["data_layout"] == "NHWC" else 1
        self._bshape = tuple(-1 if i == axis else 1 for i in range(4))  # per-channel vectors
        values, self._act_code = _ACTIVATIONS[self._kinds[-1]] if act else (None, 0)
        self._act = _kernel_function(act[0].kernel_fn, values) if act else None
        last = act[0] if act else add if add is not None else bn
        y_var = bn.scope.find_var(_output_names(bn, "Y")[0])
        self._residual = None
        if add is not None:
            # the residual: the add's input that is not batch_norm's Y, of Y's planned dims
            # and dtype (as find_conv_epilogues planned it; an add that re-learned other dims,
            # a broadcast, runs op by op)
            mine = next(entry for entry in add.simple_inputs if entry[0] is y_var)
            self._residual = next(entry for entry in add.simple_inputs if entry[0] is not y_var)
            if (self._residual[1] is not mine[1]
                    or tuple(self._residual[3]) != tuple(mine[3])):
                self._conv = None
                return False
        # the compiled epilogue (_jit_loops.bn_affine_act / bn_affine_add_act) where the plan
        # pins NCHW float arrays of one dtype: the filter's, the four statistics' (vectors of
        # the filter's output channels) and the residual's; a run then checks only that the
        # arrays are C-contiguous numpy ones of that dtype
        w_entry = conv.simple_inputs[1] if len(conv.simple_inputs) == 2 else None
        dtype = None if w_entry is None else w_entry[1]
        self._compiled = None
        if (dtype is not None and axis == 1 and dtype.to_numpy() in jit.DTYPES
                and all(g is not None and g[0] is dtype and tuple(g[2]) == (w_entry[3][0],)
                        for g in self._bn_guards)
                and (self._residual is None or self._residual[1] is dtype)):
            self._compiled = dtype.to_numpy()
        if act:
            out_var, dtype, place, layout = act[0].simple_output
        elif add is not None:
            out_var, dtype, place, layout = add.simple_output
        else:
            y_index = _choice(bn).signature.outputs.index("Y")
            _kind, out_var, dtype, layout = bn.replay_outputs[y_index]
            place = bn.kernel_ctx.place
        self._out = (out_var, dtype, place, layout)
        self._xp = last.kernel_ctx.xp
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
            # batch_norm's arithmetic, in its order (the batch_norm kernel's: x * new_scale,
            # + new_bias), then the residual's add (the add kernel's: + other) and the activation
            xp = self._xp
            new_scale, new_bias = self._coefficients(xp, *stats, self._epsilon, w.dtype)
            xp.multiply(y, xp.reshape(new_scale, self._bshape), out=y)
            xp.add(y, xp.reshape(new_bias, self._bshape), out=y)
            if other is not None:
                xp.add(y, other, out=y)
            if self._act is not None:
                self._act(xp, y, out=y)
        out_var, dtype, place, layout = self._out
        out_var.value = dense_output(y, dtype, place, layout, True)  # fused steps: CPU only
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
    if _kernel_name(conv) not in _CONV_KERNELS or conv.simple_inputs is None:
        return 0
    if _kernel_name(bn) not in _BN_KERNELS or not bn.armed:
        return 0
    conv_out, out_dtype = conv.simple_output[0], conv.simple_output[1]
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
        span, last = 3, runners[i + 2].simple_output[0]
    if i + span < len(runners):
        act = runners[i + span]
        if (_kernel_name(act) in _ACTIVATIONS and act.simple_inputs is not None
                and act.simple_inputs[0][0] is last and _released_at(release[i + span], last)
                and not _released_at(release[i + span - 1], last)):
            return span + 1
    return span


def _residual_add_at(runners, release, j: int, y_var, conv) -> bool:
    """Whether runner j adds batch_norm's Y (read there only) and another tensor of Y's planned
    dims and dtype (the residual: x + y, no broadcast)."""
    if j >= len(runners):
        return False
    add = runners[j]
    if _kernel_name(add) not in _ADD_KERNELS or add.simple_inputs is None:
        return False
    entries = add.simple_inputs
    if len(entries) != 2 or sum(entry[0] is y_var for entry in entries) != 1:
        return False
    mine = next(entry for entry in entries if entry[0] is y_var)
    other = next(entry for entry in entries if entry[0] is not y_var)
    # Y: released at the add (not kept, not fetched), not before it
    if not _released_at(release[j], y_var) or _released_at(release[j - 1], y_var):
        return False
    return (other[1] is mine[1] and tuple(other[3]) == tuple(mine[3])
            and mine[1] is conv.simple_output[1])


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
