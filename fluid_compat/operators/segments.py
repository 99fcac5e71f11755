"""Compiled segments: a run of consecutive planned ops replayed by one generated function.

A planned op already replays its cached kernel decision (runner.BoundRunner), but each op
still reads its inputs from Variables, checks every input's dtype, place and dims, wraps its
output in a DenseTensor and stores it, and the executor then clears the dead temporaries: on
tiny tensors that costs as much as the kernel.  Once every runner of a stretch has learned
(the plan ran once op by op), a segment generates one Python function for the stretch:

- the inputs that come from outside the stretch (feeds, parameters, earlier steps) are read
  and checked once, at the start, with the runners' own guards;
- each kernel is called as its runner calls it (same function, context, attribute values), so
  results are bitwise those of the runners;
- values made and used inside the stretch stay Python locals: no DenseTensor, no Variable;
  a value read inside is checked where it is made (an ndarray of the dims its readers'
  runners expect) in place of the readers' guards;
- only the values that outlive the stretch (read later, fetched, persistable) are stored in
  their Variables, as the runners store them.

Anything unexpected (a kernel that returns something else, other dims, an input that changed)
"bails out": the values made so far are stored in their Variables as the runners would have
stored them, and the rest of the stretch runs op by op through the runners (which re-learn);
the segment re-arms from them on its next call, and after ``MAX_BAILS`` bail-outs it stays
op by op.  A kernel's exception is raised as its runner raises it.  The runners' ``runs`` /
``fast_runs`` counters count compiled runs too, so the dispatch records stay true.

``FLAGS_plan_segments=0`` runs every op through its runner.
"""

from __future__ import annotations

import itertools

import numpy as np
from phi import flags
from phi.core import bound
from phi.common import DataType
from phi.core.errors import PhiError
from phi.core.kernel import ArgKind
from phi.core.tensor import DenseTensor

from fluid_compat.operators.fusion import FusionPass, register_fusion
from fluid_compat.operators.outputs import dense_output
from fluid_compat.operators.runner import BoundRunner

__all__ = ["SEGMENTS_FLAG", "CompiledSegment", "compile_segments"]

SEGMENTS_FLAG = _FLAG = "FLAGS_plan_segments"
flags.define_flag(_FLAG, bool, True, "Replay stretches of consecutive planned ops as one "
                  "generated function (values between them kept as locals).")

#: the fewest ops worth a segment
MIN_OPS = 2
#: bail-outs after which a segment stays op by op (inputs that keep changing dims)
MAX_BAILS = 3

_NOT_RUN = object()  # a bail-out before the op's kernel ran
_counter = itertools.count()


class _Bail(Exception):  # control flow: never leaves the module
    """Raised by generated code: op ``index`` met the unexpected (``result``: its kernel's
    result, or _NOT_RUN); ``frame``: the generated function's locals at that point."""

    def __init__(self, index: int, result, frame: dict) -> None:
        super().__init__(index)
        self.index = index
        self.result = result
        self.frame = frame


def _numpy_dtype(dtype: DataType):
    """dtype's numpy dtype, or None where it has none."""
    try:
        return dtype.to_numpy()
    except PhiError:
        return None


class _Builder:
    """Generates the function of one stretch of runners (see the module doc)."""

    def __init__(self, runners: list[BoundRunner], releases: list[list]) -> None:
        self.runners = runners
        self.releases = releases
        self.g: dict = {"nd": np.ndarray, "_Bail": _Bail, "_NOT_RUN": _NOT_RUN,
                        "DT": DenseTensor}
        self.current: dict[int, str] = {}  # id(Variable) -> the local holding its value now
        self.meta: dict[str, tuple] = {}  # local -> (var, dtype, place, layout, made by op)
        self.readers: dict[str, tuple] = {}  # local read inside -> the dims its readers expect
        self.external: dict[int, tuple] = {}  # id(Variable) -> (local, guard, Variable)
        self.ops: list[tuple] = []  # per op: (argument expressions, outputs, locals let go)
        self._names = itertools.count()

    def _read(self, var, guard) -> str | None:
        """The expression of one tensor input, or None when the stretch cannot take it."""
        if var is None:
            return "None"
        name = self.current.get(id(var))
        if name is not None:  # made inside: the readers' guard must be what was made
            _var, dtype, place, _layout, _op = self.meta[name]
            if guard is None or guard[0] is not dtype or not (guard[1] is place
                                                              or guard[1] == place):
                return None
            seen = self.readers.get(name)
            if seen is not None and seen != guard[2]:
                return None
            self.readers[name] = guard[2]
            return name
        known = self.external.get(id(var))
        if known is None:
            known = (f"x{len(self.external)}", guard, var)
            self.external[id(var)] = known
        elif known[1] != guard:
            return None
        return "None" if guard is None else known[0]

    def add(self, index: int) -> bool:
        """Take runner ``index`` into the stretch; False (nothing changed) when it cannot."""
        runner = self.runners[index]
        saved = (dict(self.current), dict(self.readers), dict(self.external))
        args = []
        for kind, var, guard in runner.replay_inputs:
            if kind is ArgKind.VECTOR:
                items = [self._read(v, g) for v, g in zip(var, guard, strict=True)]
                expr = None if any(i is None or i == "None" for i in items) else (
                    "[" + ", ".join(items) + "]")
            else:
                expr = self._read(var, guard)
            if expr is None:
                self.current, self.readers, self.external = saved
                return False
            args.append(expr)
        outputs = []
        place = runner.kernel_ctx.place
        for kind, targets, dtype, layout in runner.replay_outputs:
            if targets is None:
                outputs.append((kind, None))
                continue
            names = []
            for var in (targets if kind is ArgKind.VECTOR else [targets]):
                name = f"v{next(self._names)}"
                self.meta[name] = (var, dtype, place, layout, index)
                self.current[id(var)] = name
                names.append(name)
            outputs.append((kind, names))
        let_go = [self.current.pop(id(var)) for var in self.releases[index]
                  if id(var) in self.current]
        self.ops.append((args, outputs, let_go))
        return True

    def generate(self, filename: str):
        """The function and, per line of its code, the op it runs (for errors)."""
        g = self.g
        lines = ["def segment():"]
        body = lines.append
        bound_fns = []
        dtype_read: set[str] = set()  # locals read by inlined arithmetic: their dtype is checked
        inline_read: set[str] = set()  # inputs from outside read by inlined arithmetic
        for i, (args, outputs, _let_go) in enumerate(self.ops):
            runner = self.runners[i]
            metas = [(guard[0], guard[2]) if kind is not ArgKind.VECTOR and guard is not None
                     else None for kind, _var, guard in runner.replay_inputs]
            bound_fn = bound.bind(runner.kernel_fn, runner.kernel_ctx, runner.kernel_attrs, metas)
            kind, names = outputs[0]
            inline = getattr(bound_fn, "inline", None)
            if inline is not None and not (
                    len(outputs) == 1 and kind is not ArgKind.VECTOR and names is not None
                    and all(a.isidentifier() and a != "None" for a in args)):
                inline = None
            bound_fns.append((bound_fn, inline))
            if inline is not None:
                dtype_read.update(a for a in args if a in self.meta)
                inline_read.update(a for a in args if a not in self.meta)
        known: dict[str, tuple] = {}  # local -> (dims, numpy dtype) it is known to have
        for name, guard, var in self.external.values():
            g[f"V_{name}"] = var
            if guard is None:  # an absent optional input: its runner goes the full way else
                body(f"    if V_{name}.value is not None: raise _Bail(0, _NOT_RUN, None)")
                continue
            g[f"D_{name}"], g[f"P_{name}"], g[f"S_{name}"] = guard
            body(f"    t = V_{name}.value")
            body("    if t is None: raise _Bail(0, _NOT_RUN, None)")
            body(f"    {name} = t.data")
            exact = ""
            dtype = _numpy_dtype(guard[0]) if name in inline_read else None
            if dtype is not None:  # also an exact ndarray of its dtype: known from here on
                g[f"T_{name}"] = dtype
                exact = f" or type({name}) is not nd or {name}.dtype is not T_{name}"
                known[name] = (tuple(guard[2]), dtype)
            body(f"    if ({name} is None or t.dtype is not D_{name} or {name}.shape != S_{name}"
                 f"{exact} or t.lod or (t.place is not P_{name} and t.place != P_{name})):"
                 " raise _Bail(0, _NOT_RUN, None)")
        line_op: list[int | None] = [None] * (len(lines) + 1)  # 1-based line numbers
        for i, (args, outputs, let_go) in enumerate(self.ops):
            runner = self.runners[i]
            bound_fn, inline = bound_fns[i]
            if bound_fn is not None:  # the kernel with its attributes converted once
                g[f"f{i}"] = bound_fn
                call = f"f{i}({', '.join(args)})"
            else:
                g[f"f{i}"], g[f"c{i}"] = runner.kernel_fn, runner.kernel_ctx
                attrs = []
                for k, value in enumerate(runner.kernel_attrs):
                    g[f"a{i}_{k}"] = value
                    attrs.append(f"a{i}_{k}")
                call = f"f{i}(c{i}, {', '.join(args + attrs)})"
            bail = f"raise _Bail({i}, r, locals())"
            made = []
            kind, names = outputs[0]
            if inline is not None:  # the bound form's arithmetic written out (phi.core.bound)
                out = names[0]
                consts = itertools.count()

                def const(value, i=i, consts=consts):
                    name = f"k{i}_{next(consts)}"
                    g[name] = value
                    return name

                for line in inline(out, list(args), const):
                    body(f"    {line}")
                    line_op.append(i)
                bail = f"raise _Bail({i}, {out}, locals())"
                made += names
            elif len(outputs) == 1 and kind is not ArgKind.VECTOR and names is not None:
                body(f"    r = {names[0]} = {call}")
                line_op.append(i)
                made += names
            else:
                body(f"    r = {call}")
                line_op.append(i)
                results = ["r"] if len(outputs) == 1 else [f"r[{k}]" for k in range(len(outputs))]
                if len(outputs) > 1:
                    body(f"    if r is None or len(r) != {len(outputs)}: {bail}")
                for result, (kind, names) in zip(results, outputs, strict=True):
                    if names is None:
                        continue
                    if kind is ArgKind.VECTOR:
                        body(f"    if {result} is None or len({result}) != {len(names)}: {bail}")
                        for j, name in enumerate(names):
                            body(f"    {name} = {result}[{j}]")
                    else:
                        body(f"    {names[0]} = {result}")
                    made += names
            proven = self._proven(inline, args, made, known)
            if proven is not None:  # what the guard would check holds by construction
                known[made[0]] = proven
                made = []
            for name in made:
                if name in self.readers and name in dtype_read:
                    known[name] = (self.readers[name], self.meta[name][1].to_numpy())
                cond = f"type({name}) is not nd"
                if name in self.readers:
                    g[f"S_{name}"] = self.readers[name]
                    cond += f" or {name}.shape != S_{name}"
                if name in dtype_read:  # the dtype the inlined reader was bound to
                    g[f"T_{name}"] = self.meta[name][1].to_numpy()
                    cond += f" or {name}.dtype is not T_{name}"
                body(f"    if {cond}: {bail}")
            for name in let_go:  # dead: let go of the array now (memory)
                body(f"    {name} = None")
            line_op += [i] * (len(lines) + 1 - len(line_op))
        for name in self._outliving():  # the values that outlive the stretch: to Variables
            g[f"V_{name}"], g[f"D_{name}"], g[f"P_{name}"], g[f"L_{name}"] = self.meta[name][:4]
            body(f"    V_{name}.value = DT({name}, D_{name}, P_{name}, L_{name})")
        body("    return None")
        code = compile("\n".join(lines) + "\n", filename, "exec")
        exec(code, g)  # our own generated source
        return g["segment"], line_op

    def _proven(self, inline, args, made, known) -> tuple | None:
        """(dims, dtype) of a written-out op's result when its guard cannot fail, else None.

        The written-out forms (scale, add / subtract / multiply, relu) compute on numpy arrays
        of one dtype with numpy scalars of that dtype: when every input is a local already
        known to be an exact ndarray of that dtype and of non-0-d dims (its own guard ran, or
        was proven so), the result is an exact ndarray of that dtype and of the inputs'
        broadcast dims.  Its guard is then left out where those are the dims its readers
        expect and the dtype the plan says it makes; a chain of such ops keeps only the guards of
        what it reads from outside and of what other kernels made."""
        if inline is None or len(made) != 1 or not args or not all(a in known for a in args):
            return None
        dtypes = {known[a][1] for a in args}
        if len(dtypes) != 1:
            return None
        try:
            dims = np.broadcast_shapes(*(known[a][0] for a in args))
        except ValueError:
            return None
        (dtype,) = dtypes
        name = made[0]
        if not dims or (name in self.readers and tuple(self.readers[name]) != dims):
            return None
        if self.meta[name][1].to_numpy() != dtype:  # not what the plan says it makes
            return None
        return dims, dtype

    def _outliving(self) -> list[str]:
        """Locals that hold their Variable's last value and were not let go."""
        let_go = {name for _args, _outs, names in self.ops for name in names}
        last: dict[int, str] = {}
        for name, (var, *_rest) in self.meta.items():
            last[id(var)] = name
        return [name for name in last.values() if name not in let_go]


class CompiledSegment:
    """One plan step standing for the runners ``members`` (module doc)."""

    __slots__ = ("members", "release", "_releases", "_fn", "_line_op", "_filename",
                 "_builder_meta", "bails", "runs", "last_fused", "last_compiled", "_epoch")

    def __init__(self, members: list[BoundRunner], releases: list[list]) -> None:
        self.members = members
        self._releases = releases
        # what the plan releases after this step (also the names made and dying inside: a
        # compiled run keeps those in locals, but the Variable may still hold an earlier
        # step's value under the same name)
        self.release = [v for group in releases for v in group]
        self.bails = 0
        self.runs = 0
        self.last_fused = False  # a segment replays ops, it fuses none (RunStats)
        self.last_compiled = False
        self._fn = None
        self._filename = f"<segment {next(_counter)}>"
        for runner in members:  # the segment's compiled runs count as each member's runs
            runner.replayed_by(self)
        self._arm()

    def _arm(self) -> bool:
        if not all(r.armed for r in self.members):
            self._fn = None
            return False
        builder = _Builder(self.members, self._releases)
        self._epoch = bound.epoch()
        for i in range(len(self.members)):
            if not builder.add(i):
                self._fn = None
                return False
        self._fn, self._line_op = builder.generate(self._filename)
        self._builder_meta = builder.meta
        return True

    def __call__(self) -> None:
        fn = self._fn
        if fn is not None and self._epoch != bound.epoch():  # FLAGS_kernel_bind changed
            fn = self._fn = None
        if fn is None and (self.bails > MAX_BAILS or not self._arm()):
            self.last_compiled = False
            for runner in self.members:
                runner()
            return None
        try:
            self._fn()
        except _Bail as bail:
            return self._bail(bail)
        except Exception as exc:
            raise self._failed(exc) from exc
        self.runs += 1  # the members' runs and fast runs too (BoundRunner.replayed_by)
        self.last_compiled = True
        return None

    def _failed(self, exc: Exception) -> Exception:
        tb = exc.__traceback__
        op = None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self._filename:
                op = self._line_op[tb.tb_lineno]
            tb = tb.tb_next
        if op is None:  # not raised by a kernel: our own failure
            return exc
        return self.members[op].kernel_error(exc)

    def _bail(self, bail: _Bail) -> None:
        """Store what the stretch made so far as the runners would have, run the rest op by op
        and re-arm on the next call."""
        self.bails += 1
        self._fn = None
        self.last_compiled = False
        index = bail.index
        done = 0
        if bail.result is not _NOT_RUN:
            current: dict[int, tuple] = {}
            for name, (var, dtype, place, layout, op) in self._builder_meta.items():
                if op < index:
                    current[id(var)] = (name, var, dtype, place, layout, op)
            for name, var, dtype, place, layout, op in current.values():
                value = bail.frame.get(name)
                var.value = None if value is None else dense_output(
                    value, dtype, place, layout, self.members[op].on_cpu)
            for runner in self.members[:index + 1]:
                runner.runs += 1
                runner.fast_runs += 1
            self.members[index].store(bail.result)
            done = index + 1
        for runner in self.members[done:]:
            runner()
        return None


def compile_segments(steps: list[tuple]) -> list[tuple]:
    """``steps`` with each stretch of at least MIN_OPS consecutive armed runners replaced by a
    CompiledSegment (other steps, fused ones included, stay as they are)."""
    out: list[tuple] = []
    run: list[tuple] = []

    def flush() -> None:
        while len(run) >= MIN_OPS:
            members = [step for step, _, _ in run]
            releases = [rel for _, rel, _ in run]
            builder = _Builder(members, releases)
            taken = 0
            while taken < len(members) and builder.add(taken):
                taken += 1
            if taken >= MIN_OPS:
                segment = CompiledSegment(members[:taken], releases[:taken])
                if segment._fn is not None:
                    out.append((segment, segment.release, taken))
                    del run[:taken]
                    continue
            out.append(run.pop(0))
        out.extend(run)
        run.clear()

    for step in steps:
        runner, _release, count = step
        if count == 1 and isinstance(runner, BoundRunner) and runner.armed:
            run.append(step)
        else:
            flush()
            out.append(step)
    flush()
    return out


def _segments(steps: list[tuple]) -> list[tuple]:
    return compile_segments(steps)


register_fusion(FusionPass("segments", _FLAG, None, None, rewrite=_segments))
