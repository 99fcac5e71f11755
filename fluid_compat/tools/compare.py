"""``fluid-compat compare``: run every op that has both a fluid and a phi kernel both ways.

    fluid-compat compare MODEL_PREFIX [--feed NAME=FILE.npy ...] [--place P] [--format F]
    fluid-compat compare --op TYPE --case CASE.json [--place P] [--format F]
    fluid-compat compare PATH [PATH ...] [--ray [ADDRESS]] [--max-failures N]   a sweep
    fluid-compat compare MODEL --feeds-dir DIR [--ray [ADDRESS]]    shadow runs over feed files

A model runs once through an Executor in shadow mode (fluid_compat.operators.shadow): each op
runs its chosen kernel, and the kernel of the other side runs on the same prepared inputs, so
every op sees the real inputs that reach it in the program.  Each output is compared at the
dtype's tolerance (``shadow.TOLERANCES``: float64 tight, float32 1e-5, float16 1e-3, bfloat16
1e-2, integers and bools exact).  A corpus single-op case (``<case>.json`` with ``<case>.npz``
beside it: Paddle's one-op ProgramDesc bytes, inputs and outputs) runs its op the same way and
the kept result is also checked against Paddle's recorded output.  Exit status: 0 when
everything agrees, 1 on a divergence, 2 when there is nothing to compare or the input is bad.
A sweep (several models or cases, a directory, a glob, ``--ray``) runs each item on its own
(fluid_compat.scaleout) and prints one line per item; exit 1 when any diverged or failed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import attrs
import numpy as np
from phi.common.place import to_place
from phi.core.errors import InvalidArgument, NotFound, PhiError

from fluid_compat.executor import Executor, Program
from fluid_compat.framework.scope import Scope
from fluid_compat.operators.shadow import ShadowRecorder
from fluid_compat.operators.with_kernel import OperatorWithKernel
from fluid_compat.tools.shadow_summary import (
    OutputComparison,
    format_number,
    json_number,
    summarize,
)

__all__ = [
    "CompareReport",
    "OutputComparison",
    "SingleOpCase",
    "add_arguments",
    "compare_case",
    "compare_model",
    "format_number",
    "kernel_ops",
    "load_case",
    "main_compare",
    "summarize",
]


@attrs.define
class CompareReport:
    """What one ``compare`` found: the comparisons, the ops with one side only, and for a
    single-op case the check of the kept result against Paddle's recorded output."""

    source: str
    place: str
    feed: str
    rows: list[OutputComparison]
    one_sided: list[tuple[int, str, str, int]]  # (index, op type, the side that ran, block)
    ops_run: int
    reference: list[dict] = attrs.Factory(list)

    @property
    def diverged(self) -> list[OutputComparison]:
        return [r for r in self.rows if not r.passed]

    @property
    def reference_mismatches(self) -> list[dict]:
        return [r for r in self.reference if not r["passed"]]

    @property
    def ok(self) -> bool:
        return not self.diverged and not self.reference_mismatches

    def summary(self) -> dict:
        compared = {(r.block, r.index, r.op_type) for r in self.rows}
        return {
            "ops_run": self.ops_run,
            "ops_compared": len(compared),
            "outputs_compared": len(self.rows),
            "diverged": len(self.diverged),
            "one_sided": len(self.one_sided),
            "reference_mismatches": len(self.reference_mismatches),
            "ok": self.ok,
        }

    def to_dict(self) -> dict:
        return {
            "source": self.source,
            "place": self.place,
            "feed": self.feed,
            "comparisons": [r.to_dict() for r in self.rows],
            "one_sided": [{"index": i, "op_type": t, "side": s, "block": b}
                          for i, t, s, b in self.one_sided],
            "reference": [{k: json_number(v) for k, v in r.items()} for r in self.reference],
            "summary": self.summary(),
        }


# -- running --------------------------------------------------------------------------------------

def kernel_ops(ops, block: int = 0) -> list[tuple[int, OperatorWithKernel]]:
    """(block, operator) of the kernel operators of a plan, with those of control-flow
    sub-blocks after their op."""
    out = []
    for op in ops:
        if isinstance(op, OperatorWithKernel):
            out.append((block, op))
        sub = getattr(op, "sub_ops", None)
        if sub:
            out.extend(kernel_ops(sub, op.attrs.get("sub_block", block + 1)))
    return out


class _Recorder(ShadowRecorder):
    """A ShadowRecorder that remembers which operator wrote each record and, when asked,
    moves a progress bar (one tick per op run)."""

    def __init__(self, total: int = 0, progress: bool = False) -> None:
        from fluid_compat.tools.progress import ProgressBar

        super().__init__()
        self.origins: list = []
        self._total = total
        self._show = ProgressBar(total, progress, "op")
        self._done = 0

    def observe(self, op, *args) -> None:
        before = len(self.records)
        super().observe(op, *args)
        self.origins.extend([op] * (len(self.records) - before))
        self._done += 1
        if self._done < self._total:  # a loop's ops tick once per iteration
            self._show(self._done)

    def finish(self) -> None:
        self._show(self._total)
        self._show.close()


def _op_count(program: Program) -> int:
    """Ops of every block but feed and fetch: the progress bar's length."""
    return sum(1 for i in range(program.num_blocks) for op in program.block(i).ops
               if op.type not in ("feed", "fetch"))


def _run_shadowed(program: Program, feed: dict, fetch_names: list[str], place, scope: Scope,
                  *, pins=None, progress: bool = False) -> tuple[Executor, list]:
    exe = Executor(place, pins=pins, shadow=True)
    recorder = exe.shadow_report = _Recorder(_op_count(program), progress)
    try:
        outs = exe.run(program, feed=feed, fetch_list=fetch_names, scope=scope)
    finally:
        recorder.finish()
    return exe, outs


def _report(exe: Executor, source: str, place, feed_text: str) -> CompareReport:
    recorder = exe.shadow_report
    ops = kernel_ops(exe.last_plan.ops) if exe.last_plan is not None else []
    blocks = {id(op): block for block, op in ops}
    rows = summarize(recorder.records, recorder.origins, blocks)
    compared = {id(op) for op in recorder.origins}
    ran = [op for _, op in ops if op.last_choice is not None]
    one_sided = [(op.index, op.type, "phi" if op.last_choice.is_phi else "fluid", blocks[id(op)])
                 for op in ran if id(op) not in compared]
    return CompareReport(source, str(place), feed_text, rows, one_sided, len(ran))


def compare_model(prefix: str | Path, *, feed_items: list[str] | None = None, place="cpu",
                  seed: int = 0, pins=None, progress: bool = False,
                  feed: dict | None = None) -> CompareReport:
    """Run the model at ``prefix`` once in shadow mode and report every comparison (``feed``:
    the feed arrays by name, instead of ``feed_items`` / the files beside the model)."""
    from fluid_compat.io import load_inference_model
    from fluid_compat.tools.run import load_feed

    place = to_place(place)
    scope = Scope()
    program, feed_names, fetch_names = load_inference_model(prefix, scope=scope)
    if feed is not None:
        feed_text = "given arrays: " + ", ".join(f"{k}{list(np.shape(v))}" for k, v in
                                                 feed.items())
    else:
        feed, feed_text = load_feed(program, feed_names, list(feed_items or ()),
                                    prefix=Path(prefix), seed=seed)
    exe, _ = _run_shadowed(program, feed, fetch_names, place, scope, pins=pins,
                           progress=progress)
    return _report(exe, str(prefix), place, feed_text)


# -- single-op cases ------------------------------------------------------------------------------

@attrs.frozen
class SingleOpCase:
    """A corpus single-op case: Paddle's one-op program, its feed and its recorded outputs."""

    name: str
    op_type: str
    program: Program
    feed: dict
    expected: dict  # fetch var -> (array, {"rtol": .., "atol": ..})
    status: str
    error: str = ""


def load_case(path: str | Path) -> SingleOpCase:
    """Read ``<case>.json`` and the ``<case>.npz`` beside it (corpus single-op format)."""
    path = Path(path)
    if path.suffix != ".json":
        path = path.with_suffix(".json")
    npz_path = path.with_suffix(".npz")
    if not path.is_file():
        raise NotFound(f"case file {str(path)!r} does not exist.")
    if not npz_path.is_file():
        raise NotFound(f"case {path.name}: its arrays {npz_path.name} are not beside it.")
    try:
        case = json.loads(path.read_text())
        with np.load(npz_path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (OSError, ValueError) as exc:
        raise InvalidArgument(f"case {path.name}: cannot read it: {exc}") from None
    for key in ("op_type", "inputs", "outputs"):
        if key not in case:
            raise InvalidArgument(f"case {path.name}: not a single-op case (no `{key}`).")
    if "program_desc" not in arrays:
        raise InvalidArgument(f"case {npz_path.name}: no `program_desc` array.")
    program = Program.parse_from_string(arrays["program_desc"].tobytes())
    feed = {}
    for items in case["inputs"].values():
        for item in items:
            if item.get("npz_key") in arrays:
                feed[item["var"]] = arrays[item["npz_key"]]
    expected = {}
    for items in case["outputs"].values():
        for item in items:
            if item.get("npz_key") in arrays:
                expected[item["var"]] = (arrays[item["npz_key"]], item.get("tolerance") or {})
    status = case.get("status", "ok")
    error = "" if status == "ok" else str(case.get("error") or case.get("run_error") or "")
    return SingleOpCase(case.get("name", path.stem), case["op_type"], program, feed, expected,
                        status, error)


def compare_case(path: str | Path, *, op_type: str | None = None, place="cpu", pins=None
                 ) -> CompareReport:
    """Run a single-op case both ways (shadow mode) and against Paddle's recorded output."""
    case = load_case(path)
    if op_type is not None and op_type != case.op_type:
        raise InvalidArgument(f"--op {op_type}: case {case.name} runs `{case.op_type}`.")
    if case.status != "ok":
        raise InvalidArgument(f"case {case.name} is a `{case.status}` case (Paddle refused it"
                              + (f": {case.error}" if case.error else "") + "): nothing to "
                              "compare.")
    place = to_place(place)
    fetch = list(case.expected)
    exe, outs = _run_shadowed(case.program, case.feed, fetch, place, Scope(), pins=pins)
    report = _report(exe, f"case {case.name} ({Path(path)})", place, "the case's inputs")
    for name, out in zip(fetch, outs, strict=True):
        ref, tol = case.expected[name]
        rtol, atol = tol.get("rtol", 1e-5), tol.get("atol", 1e-6)
        same_shape = out.shape == ref.shape and out.dtype == ref.dtype
        if same_shape and np.issubdtype(ref.dtype, np.inexact):
            ok = bool(np.allclose(out, ref, rtol=rtol, atol=atol, equal_nan=True))
        else:
            ok = same_shape and bool(np.array_equal(out, ref))
        diff = (float(np.max(np.abs(out.astype(np.float64) - ref.astype(np.float64))))
                if same_shape and out.size and ref.dtype != np.bool_ else 0.0 if same_shape
                else float("inf"))
        report.reference.append({"var": name, "dtype": str(ref.dtype), "max_abs": diff,
                                 "tolerance": f"rtol {rtol:g} atol {atol:g}", "passed": ok})
    return report


# -- the command ----------------------------------------------------------------------------------

def add_arguments(p: argparse.ArgumentParser) -> None:
    from fluid_compat.tools.run import add_pin_argument

    p.add_argument("model", nargs="*",
                   help="model path prefix (without .pdmodel); several, a directory of models "
                        "or cases, a glob or @LIST.txt make a sweep")
    p.add_argument("--op", metavar="TYPE", help="with --case: the op type the case must run")
    p.add_argument("--case", type=Path, metavar="FILE",
                   help="a corpus single-op case <case>.json (its .npz beside it)")
    p.add_argument("--feed", action="append", default=[], metavar="NAME=FILE.npy",
                   help="an input; default: input_<name>.npy beside the model, else seeded "
                        "random inputs")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    p.add_argument("--place", default="cpu", help="cpu, gpu:0 or a custom device TYPE:0")
    add_pin_argument(p)
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.add_argument("--wide", action="store_true",
                   help="one line per output, as wide as the cells need (default: 100 "
                        "columns, long cells wrap)")
    p.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="sweep on Ray: one task per model or case (a local Ray without ADDRESS;"
                        " needs the [ray] extra)")
    p.add_argument("--max-failures", type=int, default=None, metavar="N",
                   help="stop a sweep once more than N items failed")
    p.add_argument("--feeds-dir", type=Path, metavar="DIR",
                   help="with one MODEL: a shadow run per .npz feed file in DIR (a sweep)")


def main_compare(args: argparse.Namespace) -> int:
    from fluid_compat.tools.run import pins_from_args, place_from_arg

    if args.op is not None and args.case is None:
        print("fluid-compat compare: --op needs --case FILE", file=sys.stderr)
        return 2
    args.model = args.model[0] if args.model else None
    if (args.model is None) == (args.case is None):
        print("fluid-compat compare: give a MODEL_PREFIX or --op TYPE --case FILE",
              file=sys.stderr)
        return 2
    try:
        place_from_arg(args.place)
        pins = pins_from_args(args.pin)
    except PhiError as exc:  # the command line's own mistakes
        print(f"fluid-compat compare: {exc}", file=sys.stderr)
        return 2
    try:
        if args.case is not None:
            report = compare_case(args.case, op_type=args.op, place=args.place, pins=pins)
        else:
            progress = sys.stderr.isatty() and args.format == "table"
            report = compare_model(args.model, feed_items=args.feed, place=args.place,
                                   seed=args.seed, pins=pins, progress=progress)
    except PhiError as exc:
        print(f"fluid-compat compare: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, (InvalidArgument, NotFound)) and args.case else 1
    if args.format == "json":
        print(json.dumps(report.to_dict(), indent=1))
    else:
        from fluid_compat.tools.tables import table_width

        print("\n".join(format_table(report, width=table_width(args.wide))))
    if not report.rows and args.case is not None:
        side = report.one_sided[0][2] if report.one_sided else "no"
        print(f"fluid-compat compare: `{args.op or 'the op'}` has a {side} kernel only: "
              "nothing to compare", file=sys.stderr)
        return 2
    return 0 if report.ok else 1


def format_table(report: CompareReport, width: int = 100) -> list[str]:
    """The report as ``compare`` prints it: one table row per compared output (``width``
    columns in all, long cells wrap), Paddle's recorded outputs, the summary."""
    lines = [f"compare: {report.source}  (place {report.place}; inputs: {report.feed})"]
    header = ("op", "type", "output", "dtype", "kept/other", "max abs", "max rel", "tolerance",
              "result")
    table = [header]
    for r in report.rows:
        result = "ok" if r.passed else "DIVERGED" + (f" ({r.error})" if r.error else "")
        runs = f" x{r.runs}" if r.runs > 1 else ""
        where = f"{r.block}:" if r.block else ""
        table.append((f"#{where}{r.index}", r.op_type, r.slot, r.dtype or "-",
                      f"{r.chosen}/{r.other}{runs}", format_number(r.max_abs),
                      format_number(r.max_rel), r.tolerance, result))
    if len(table) > 1:
        from fluid_compat.tools.tables import render_table

        lines.extend("  " + line for line in
                     render_table(header, table[1:], width=width - 2).splitlines())
    for ref in report.reference:
        lines.append(f"  Paddle's recorded {ref['var']} ({ref['dtype']}): kept result "
                     f"{'matches' if ref['passed'] else 'DIFFERS'} (max abs "
                     f"{format_number(ref['max_abs'])}, {ref['tolerance']})")
    s = report.summary()
    one = ""
    if report.one_sided:
        names = ", ".join(f"#{f'{b}:' if b else ''}{i} {t} ({side} only)"
                          for i, t, side, b in report.one_sided[:8])
        more = f", ... {len(report.one_sided) - 8} more" if len(report.one_sided) > 8 else ""
        one = f"; not compared, one side only: {names}{more}"
    lines.append(f"summary: {s['ops_compared']} of {s['ops_run']} ops run both ways, "
                 f"{s['outputs_compared']} outputs compared, {s['diverged']} diverged{one}")
    lines.append("result: " + ("agree" if report.ok else "DIVERGENCE"))
    return lines
