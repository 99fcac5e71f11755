"""A per-op profiler for programs run by the Executor: where the time of a run goes.

    from fluid_compat.profiler import Profiler
    with Profiler() as prof:
        for _ in range(10):
            exe.run(program, feed=feed, fetch_list=fetches)
    print(prof.summary())                   # per op type, and the slowest ops
    prof.export_chrome_trace("trace.json")  # chrome://tracing, Perfetto

While a Profiler is active in a thread, the Executor times every step of the runs that thread
makes: one event per op (its type, block path, kernel and input shapes), a fused step or a
compiled segment as one event naming the ops it stands for, and the ops inside a control-flow
op's blocks as events of their own nested in it.  The first run of each plan (kernel choice,
fusion checks, compilation) is kept apart from the steady-state runs after it.  With no active
Profiler the executor runs its usual loop: the profiler costs one thread-local lookup a run.

The trace file is the Chrome trace-event format (``traceEvents`` of complete "X" events, in
microseconds), as Paddle's profiler and onnxruntime's ``enable_profiling`` write it.
"""

from __future__ import annotations

import json
import threading
import time
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

__all__ = ["OpEvent", "Profiler", "current"]

_LOCAL = threading.local()


def current() -> Profiler | None:
    """The Profiler active in this thread, or None."""
    stack = getattr(_LOCAL, "stack", None)
    return stack[-1] if stack else None


class OpEvent:
    """One timed op (or fused step) of one run."""

    __slots__ = ("depth", "dur_ns", "first", "kernel", "name", "ops", "run", "shapes",
                 "start_ns", "where")

    def __init__(self, name: str, where: str, kernel: str, shapes: tuple, start_ns: int,
                 dur_ns: int, run: int, first: bool, depth: int = 0, ops: int = 1) -> None:
        self.name = name  # the op type, or "conv2d+batch_norm+relu" for a step of several ops
        self.where = where  # "op #3" / "op #172 `while` > block 1 op #5"
        # "phi kernel (CPU, Undefined(AnyLayout), float32)", "operator" (an operator class),
        # or the kind of a step standing for several ops ("ConvEpilogueStep", ...)
        self.kernel = kernel
        self.shapes = shapes  # input shapes: ((slot, [dims, ...]), ...)
        self.start_ns = start_ns
        self.dur_ns = dur_ns
        self.run = run  # the index of the run in its profiler
        self.first = first  # the plan's first run (decisions made, fusions checked)
        self.depth = depth  # 0: a step of block 0; 1+: inside a control-flow op
        self.ops = ops  # ops the event stands for

    def __repr__(self) -> str:
        return f"OpEvent({self.name!r}, {self.where!r}, {self.dur_ns / 1e6:.3f} ms)"


def _shapes(op, scope) -> tuple:
    out = []
    for slot, names in sorted(op.inputs.items()):
        dims = []
        for n in names:
            var = scope.find_var(n) if scope is not None else None
            value = getattr(var, "value", None)
            d = getattr(value, "dims", None)
            if d is not None:
                dims.append(list(d))
            elif isinstance(value, list):
                dims.append(f"array[{len(value)}]")
        if dims:
            out.append((slot, dims))
    return tuple(out)


def _kernel(op) -> str:
    choice = getattr(op, "last_choice", None)
    if choice is not None:
        return str(choice)
    return "operator" if not hasattr(op, "last_choice") else "-"


def _label(op) -> str:
    label = getattr(op, "label", None)
    if label:
        return label
    index = getattr(op, "index", -1)
    return f"op #{index}" if index >= 0 else f"`{op.type}`"


class Profiler:
    """Collects OpEvents of the runs made in this thread while it is active (a context
    manager; ``start`` / ``stop`` too)."""

    def __init__(self) -> None:
        self.events: list[OpEvent] = []
        self.runs: list[tuple[int, int, bool]] = []  # (start_ns, dur_ns, first) per run
        self._depth = 0
        self._first = False
        self._origin = time.perf_counter_ns()

    # -- activation ----------------------------------------------------------------------------
    def start(self) -> Profiler:
        stack = getattr(_LOCAL, "stack", None)
        if stack is None:
            stack = _LOCAL.stack = []
        stack.append(self)
        return self

    def stop(self) -> None:
        stack = getattr(_LOCAL, "stack", [])
        if self in stack:
            stack.remove(self)

    def __enter__(self) -> Profiler:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- recording (the executor and control-flow ops call these) ------------------------------
    def run_steps(self, steps, first: bool) -> None:
        """Run a plan's ``steps`` [(step, released variables, op count)], timing each."""
        run = len(self.runs)
        self._first = first  # for the events of ops nested in this run's steps
        clock = time.perf_counter_ns
        t_run = clock()
        for step, release, count in steps:
            name, where, kernel, shapes, op = self._describe(step, count)
            self._depth += 1
            t0 = clock()
            try:
                step()
            finally:
                t1 = clock()
                self._depth -= 1
            if op is not None and kernel == "-":
                kernel = _kernel(op)
            self.events.append(OpEvent(name, where, kernel, shapes, t0 - self._origin, t1 - t0,
                                       run, first, 0, count))
            for var in release:
                var.value = None
        self.runs.append((t_run - self._origin, clock() - t_run, first))

    def run_op(self, op, scope, place) -> None:
        """Run one op of a control-flow block, timed as an event nested in its parent step."""
        shapes = _shapes(op, scope)
        depth = self._depth
        clock = time.perf_counter_ns
        self._depth += 1
        t0 = clock()
        try:
            op.run(scope, place)
        finally:
            t1 = clock()
            self._depth -= 1
        self.events.append(OpEvent(op.type, _label(op), _kernel(op), shapes, t0 - self._origin,
                                   t1 - t0, len(self.runs), self._first, depth))

    def _describe(self, step, count: int):
        op = getattr(step, "op", None)
        if op is not None:  # a BoundRunner: one op
            return op.type, _label(op), "-", _shapes(op, step.scope), op
        members = getattr(step, "members", None) or getattr(step, "runners", None) or []
        types = [r.op.type for r in members if getattr(r, "op", None) is not None]
        if len(types) > 4:  # a compiled segment of dozens of ops: its ends and its size
            name = f"{types[0]}+...+{types[-1]} ({len(types)} ops)"
        else:
            name = "+".join(types) if types else type(step).__name__
        where = _label(members[0].op) if types else "-"
        shapes = _shapes(members[0].op, members[0].scope) if types else ()
        return name, where, type(step).__name__, shapes, None  # the kind of step as kernel

    # -- reports -------------------------------------------------------------------------------
    def op_type_rows(self, *, first: bool | None = None) -> list[dict]:
        """Per op type: count, total, mean (ms) and share of the op time, slowest first;
        ``first`` True / False: the first runs / the steady-state runs only."""
        events = [e for e in self.events if e.depth == 0 and (first is None or e.first == first)]
        total = sum(e.dur_ns for e in events) or 1
        by: dict[str, list[int]] = defaultdict(list)
        for e in events:
            by[e.name].append(e.dur_ns)
        rows = [{"op": name, "count": len(d), "total_ms": sum(d) / 1e6,
                 "mean_ms": sum(d) / len(d) / 1e6, "share": sum(d) / total}
                for name, d in by.items()]
        return sorted(rows, key=lambda r: -r["total_ms"])

    def slowest_ops(self, n: int = 10, *, first: bool | None = False) -> list[dict]:
        """The ``n`` op instances with the most time (over the chosen runs)."""
        events = [e for e in self.events if first is None or e.first == first]
        by: dict[tuple, list[OpEvent]] = defaultdict(list)
        for e in events:
            by[(e.where, e.name)].append(e)
        total = sum(e.dur_ns for e in events if e.depth == 0) or 1
        rows = []
        for (where, name), es in by.items():
            d = [e.dur_ns for e in es]
            rows.append({"op": name, "where": where, "kernel": es[-1].kernel,
                         "shapes": _fmt_shapes(es[-1].shapes), "count": len(d),
                         "total_ms": sum(d) / 1e6, "mean_ms": sum(d) / len(d) / 1e6,
                         "share": sum(d) / total})
        return sorted(rows, key=lambda r: -r["total_ms"])[:n]

    def run_times_ms(self) -> tuple[list[float], list[float]]:
        """(first-run wall times, steady-state wall times) in ms."""
        first = [d / 1e6 for _, d, f in self.runs if f]
        steady = [d / 1e6 for _, d, f in self.runs if not f]
        return first, steady

    def summary(self, top: int = 10) -> str:
        """The report `fluid-compat run --profile` prints: run times, per op type (first run and
        steady state apart), the slowest ops of the steady state."""
        from fluid_compat.tools.tables import render_table

        first, steady = self.run_times_ms()
        lines = [(f"profiled {len(self.runs)} run(s): first {_ms(first)}, steady state "
                  f"{_ms(steady)}")]
        for label, flag in (("first run", True), ("steady state", False)):
            rows = self.op_type_rows(first=flag)
            if not rows:
                continue
            lines.append(f"\nper op type, {label}:")
            lines.append(render_table(
                ["op", "count", "total ms", "mean ms", "share"],
                [[r["op"], r["count"], f"{r['total_ms']:.3f}", f"{r['mean_ms']:.4f}",
                  f"{100 * r['share']:.1f}%"] for r in rows[:max(top, 15)]]))
        slow = self.slowest_ops(top, first=not steady)
        if slow:
            lines.append(f"\nslowest ops ({'steady state' if steady else 'first run'}):")
            lines.append(render_table(
                ["op", "where", "kernel", "inputs", "count", "total ms", "mean ms", "share"],
                [[r["op"], r["where"], r["kernel"], r["shapes"], r["count"],
                  f"{r['total_ms']:.3f}", f"{r['mean_ms']:.4f}", f"{100 * r['share']:.1f}%"]
                 for r in slow]))
        return "\n".join(lines)

    def chrome_trace(self) -> dict:
        """The events as a Chrome trace-event document."""
        events = [{"name": f"run {i}" + (" (first)" if f else ""), "cat": "run", "ph": "X",
                   "ts": s / 1e3, "dur": d / 1e3, "pid": 0, "tid": 0, "args": {}}
                  for i, (s, d, f) in enumerate(self.runs)]
        for e in self.events:
            events.append({"name": e.name, "cat": "op", "ph": "X", "ts": e.start_ns / 1e3,
                           "dur": e.dur_ns / 1e3, "pid": 0, "tid": 0,
                           "args": {"op_type": e.name, "where": e.where, "kernel": e.kernel,
                                    "input_shapes": {s: d for s, d in e.shapes},
                                    "run": e.run, "first_run": e.first, "ops": e.ops}})
        return {"traceEvents": events, "displayTimeUnit": "ms",
                "otherData": {"producer": "fluid-phi-bridge"}}

    def export_chrome_trace(self, path: str | Path) -> Path:
        """Write the trace file (open it in chrome://tracing or ui.perfetto.dev)."""
        path = Path(path)
        path.write_text(json.dumps(self.chrome_trace()))
        return path


def _ms(values: Iterable[float]) -> str:
    values = list(values)
    if not values:
        return "-"
    if len(values) == 1:
        return f"{values[0]:.2f} ms"
    s = sorted(values)
    return f"{s[len(s) // 2]:.2f} ms median of {len(s)} (min {s[0]:.2f})"


def _fmt_shapes(shapes) -> str:
    return " ".join(f"{slot}={dims[0] if len(dims) == 1 else dims}" for slot, dims in shapes)
