"""``fluid-compat run``: load a legacy model, feed it, run it, write and summarize the outputs."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from phi.common.data_type import DataType
from phi.common.place import to_place
from phi.core.errors import InvalidArgument, PhiError

from fluid_compat.executor import Executor
from fluid_compat.framework.scope import Scope
from fluid_compat.inference import load_model, locate_model
from fluid_compat.tools.progress import ProgressBar

__all__ = ["add_arguments", "feed_constraints", "load_feed", "main_run", "pins_from_args",
           "place_from_arg", "random_feed"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", nargs="?", help="model path prefix (X for X.pdmodel), a .pdmodel "
                                            "file, or a directory holding __model__, "
                                            "inference.pdmodel or one *.pdmodel")
    p.add_argument("--params", metavar="FILE",
                   help="the parameter file (or directory of per-parameter files), when it is "
                        "not the one beside the program")
    p.add_argument("--example", action="store_true",
                   help="run the bundled example model and compare with Paddle's output")
    p.add_argument("--feed", action="append", default=[], metavar="NAME=FILE.npy",
                   help="an input; without --feed, the input_<NAME>.npy files beside the model "
                        "when there is one per feed, else seeded random inputs")
    p.add_argument("--lod", action="append", default=[], metavar="NAME=JSON",
                   help="the LoD of feed NAME as offsets per level, e.g. x='[[0,2,5]]' "
                        "(a LoDTensor feed, as Paddle's set_lod takes it)")
    p.add_argument("--place", default="cpu", help="cpu, gpu:0 or a custom device TYPE:0")
    p.add_argument("--out", type=Path, help="write output_<i>.npy here, in fetch order")
    p.add_argument("--expect", type=Path, metavar="DIR",
                   help="compare with DIR/output_<i>.npy (rtol 1e-4, atol 1e-4); non-zero exit "
                        "on mismatch")
    p.add_argument("--repeat", type=int, default=1,
                   help="run this many times (planned re-runs); prints the first run's and the "
                        "steady-state latency")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    p.add_argument("--profile", action="store_true",
                   help="time every op: per op type and the slowest ops, first run and steady "
                        "state apart (with --repeat N)")
    p.add_argument("--profile-json", type=Path, metavar="FILE",
                   help="write a Chrome trace-event file of the profiled runs (chrome://tracing "
                        "or ui.perfetto.dev): one event per op with its kernel and input shapes")
    add_pin_argument(p)
    p.add_argument("--dataset", type=Path, metavar="PATH",
                   help="batch inference over a directory of row files (<row>.npy for a "
                        "one-input model, <row>.npz by feed name) or a Parquet file (a column "
                        "per feed); outputs are written beside the inputs")
    p.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="with --dataset: run on Ray Data (a local Ray without ADDRESS; needs "
                        "the [ray] extra)")
    p.add_argument("--concurrency", type=int, default=2,
                   help="with --dataset --ray: Ray tasks running at once, each worker "
                        "process loading the model once")
    p.add_argument("--shadow", action="store_true",
                   help="shadow mode: also run the other side (fluid or phi) of every op that "
                        "has both kernels and print the divergences; results are unchanged")


def add_pin_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--pin", action="append", default=[], metavar="OP=SIDE",
                   help="run op type OP on SIDE (phi or fluid) kernels only; repeatable; "
                        "'*=fluid' pins every op (also FLAGS_kernel_pins='relu=fluid,...')")


def pins_from_args(items: list[str]) -> dict[str, str]:
    """``["relu=fluid", "*=phi"]`` -> ``{"relu": "fluid", "*": "phi"}`` (checked: the side,
    and that OP is an op type described here, so that a typo is not a pin of nothing)."""
    from fluid_compat.operators.pinning import parse_pins

    pins: dict[str, str] = {}
    for item in items:
        op_type, sep, side = item.partition("=")
        op_type = op_type.strip()
        if not sep or not op_type:
            raise InvalidArgument(f"--pin expects OP=SIDE (e.g. relu=fluid or '*=phi'), got "
                                  f"{item!r}.")
        if op_type != "*":
            _check_op_type(op_type, item)
        pins.update(parse_pins({op_type: side}))
    return pins


def _check_op_type(op_type: str, item: str) -> None:
    import difflib

    import opmakers

    if opmakers.has_op(op_type):
        return
    close = difflib.get_close_matches(op_type, opmakers.all_op_types(), n=3)
    hint = f" (closest: {', '.join(close)})" if close else ""
    raise InvalidArgument(f"--pin {item}: no op type `{op_type}` is described here{hint}; OP "
                          "is a legacy op type as a program names it (relu, conv2d ...) or '*'.")


def place_from_arg(text: str):
    """``--place``'s Place: cpu, gpu[:N], or a plug-in device type registered with
    ``phi.backends.register_custom_device``; any other type is refused here, before a run
    would fall back to the CPU with it unnoticed."""
    from phi.backends import get_context
    from phi.common.place import CustomPlace

    place = to_place(text)
    if isinstance(place, CustomPlace):
        try:
            get_context(place)
        except PhiError:
            raise InvalidArgument(
                f"--place {text}: `{place.device_type}` is not a device here: give cpu, "
                "gpu[:N] (needs cupy) or a plug-in device type registered with "
                "phi.backends.register_custom_device.") from None
    return place


def with_lods(feed: dict, items: list[str]) -> dict:
    """``--lod NAME=JSON`` items applied to the feed: NAME becomes ``(array, lod)``."""
    feed = dict(feed)
    for item in items:
        name, sep, text = item.partition("=")
        if not sep:
            raise InvalidArgument(f"--lod expects NAME=JSON (offsets per level), got {item!r}.")
        if name not in feed:
            raise InvalidArgument(f"--lod {name}: no feed of that name (feeds: {sorted(feed)}).")
        try:
            lod = json.loads(text)
        except ValueError as exc:
            raise InvalidArgument(f"--lod {name}: not JSON: {exc}") from None
        if not isinstance(lod, list) or not all(isinstance(level, list) for level in lod):
            raise InvalidArgument(f"--lod {name}: expected a list of levels of offsets, e.g. "
                                  f"[[0,2,5]], got {text!r}.")
        value = feed[name]
        feed[name] = (np.asarray(value[0] if isinstance(value, tuple) else value), lod)
    return feed


def load_feed(program, feed_names: list[str], items: list[str], *, prefix: Path | None = None,
              seed: int = 0) -> tuple[dict[str, np.ndarray], str]:
    """The feed of a run and where it came from: ``--feed NAME=FILE.npy`` items, else (when
    ``prefix`` is given) ``input_<name>.npy`` beside the model for every feed target, as the
    corpus models and the bundled example carry, else seeded random inputs."""
    feed = {}
    for item in items:
        name, sep, file = item.partition("=")
        if not sep:
            raise InvalidArgument(f"--feed expects NAME=FILE.npy, got {item!r}.")
        try:
            feed[name] = np.load(file, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise InvalidArgument(f"--feed {name}: cannot read {file!r}: {exc}") from None
    if feed:
        return feed, "--feed"
    if prefix is not None and feed_names:
        files = [Path(prefix).parent / f"input_{name}.npy" for name in feed_names]
        if all(f.is_file() for f in files):
            feed = {n: np.load(f, allow_pickle=False)
                    for n, f in zip(feed_names, files, strict=True)}
            return feed, ", ".join(f.name for f in files) + " beside the model"
    feed = random_feed(program, feed_names, seed)
    made = _feed_text(feed, feed_constraints(program, feed_names))
    return feed, f"{RANDOM} (seed {seed}): {made}"


#: how `load_feed` names seeded random inputs (the start of its description)
RANDOM = "seeded random inputs"


#: ops that hand an integer input's values on unchanged (an id reshaped or cast is still an id)
_PASS_THROUGH = frozenset((
    "reshape", "reshape2", "unsqueeze", "unsqueeze2", "squeeze", "squeeze2", "cast", "assign",
    "flatten", "flatten2", "flatten_contiguous_range", "transpose", "transpose2", "slice",
    "expand", "expand_v2", "expand_as_v2", "share_buffer", "concat", "split", "stack",
    "unstack", "tile"))


def feed_constraints(program, names: list[str]) -> dict[str, dict]:
    """What the program implies about the values of integer feeds, found without running it:
    ``{"high": n}`` for ids that index a table of n rows (lookup_table(_v2) W's first dim,
    one_hot's depth, gather's indexed dim), ``{"fill": [h, w]}`` for yolo_box's image size
    (the grid times the downsample ratio).  A feed reaches such an op directly or through ops
    that keep its values (reshape, cast, slice ...)."""
    origin = {n: n for n in names}
    found: dict[str, dict] = {}

    def limit(var: str, high: int) -> None:
        feed = origin.get(var)
        if feed is not None and high > 0:
            old = found.get(feed, {}).get("high")
            found[feed] = {"high": high if old is None else min(old, high)}

    def dims(block, name: str):
        desc = block.find_var(name)
        return None if desc is None or desc.shape is None else tuple(desc.shape)

    desc = program.desc
    for b in range(desc.num_blocks):
        block = desc.block(b)
        for op in block.ops:
            t = op.type
            ins = op.inputs
            if t in _PASS_THROUGH:
                sources = [origin[n] for names_ in ins.values() for n in names_ if n in origin]
                if sources:
                    for outs in op.outputs.values():
                        for out in outs:
                            origin.setdefault(out, sources[0])
            elif t in ("lookup_table", "lookup_table_v2"):
                w = dims(block, (ins.get("W") or [""])[0])
                for ids in ins.get("Ids", ()):
                    if w:
                        limit(ids, w[0])
            elif (t in ("one_hot", "one_hot_v2") and not ins.get("depth_tensor")
                  and op.has_attr("depth")):
                for x in ins.get("X", ()):
                    limit(x, int(op.attr("depth")))
            elif t in ("gather", "index_select"):
                x = dims(block, (ins.get("X") or [""])[0])
                key = "axis" if t == "gather" else "dim"
                axis = int(op.attr(key)) if op.has_attr(key) and not ins.get("Axis") else 0
                for index in ins.get("Index", ()):
                    if x and -len(x) <= axis < len(x) and x[axis] > 0:
                        limit(index, x[axis])
            elif t == "yolo_box":
                x = dims(block, (ins.get("X") or [""])[0])
                for size in ins.get("ImgSize", ()):
                    if (size in origin and x and len(x) == 4 and min(x[2:]) > 0
                            and op.has_attr("downsample_ratio")):
                        ratio = int(op.attr("downsample_ratio"))
                        found[origin[size]] = {"fill": [x[2] * ratio, x[3] * ratio]}
    return found


def random_feed(program, names: list[str], seed: int) -> dict[str, np.ndarray]:
    """Seeded inputs shaped and typed as the feed variables' descriptions (-1 dims -> 1);
    integer values kept where the program implies (:func:`feed_constraints`: ids inside the
    embedding's vocabulary ...); a LoD feed gets one sequence of all its rows."""
    rng = np.random.default_rng(seed)
    block = program.desc.global_block
    constraints = feed_constraints(program, names)
    feed = {}
    for name in names:
        desc = block.find_var(name)
        shape = tuple(1 if d < 0 else d for d in (desc.shape or ()))
        dtype = desc.dtype or DataType.FLOAT32
        np_dtype = dtype.to_numpy()
        rule = constraints.get(name, {})
        if "fill" in rule and shape and shape[-1] == len(rule["fill"]):
            arr = np.broadcast_to(np.asarray(rule["fill"], np_dtype), shape).copy()
        elif dtype.is_floating_point:
            arr = rng.standard_normal(shape).astype(np_dtype)
        elif dtype is DataType.BOOL:
            arr = rng.integers(0, 2, shape).astype(np_dtype)
        else:
            arr = rng.integers(0, rule.get("high", 10), shape).astype(np_dtype)
        feed[name] = arr
        if desc.lod_level and arr.ndim:
            feed[name] = (arr, [[0, arr.shape[0]]] * desc.lod_level)
    return feed


def _feed_text(feed: dict, constraints: dict) -> str:
    parts = []
    for n, value in feed.items():
        arr = value[0] if isinstance(value, tuple) else value
        text = f"{n}{list(arr.shape)} {arr.dtype}"
        rule = constraints.get(n, {})
        if "high" in rule:
            text += f" in [0, {rule['high']})"
        elif "fill" in rule:
            text += f" = {rule['fill']}"
        if isinstance(value, tuple):
            text += f" lod {value[1]}"
        parts.append(text)
    return ", ".join(parts)


def _out_problem(out: Path) -> str | None:
    """Why ``--out DIR`` cannot take the outputs; None when it can (made when missing)."""
    if out.exists() and not out.is_dir():
        return "exists and is not a directory (--out names the directory output_<i>.npy go to)"
    parent = next((p for p in out.absolute().parents if p.exists()), None)
    if parent is not None and not parent.is_dir():
        return f"{parent} is a file, not a directory"
    return None


def _latency_line(times: list[float]) -> str:
    """First run and steady state (the runs after it) in ms."""
    first = f"first run {times[0] * 1e3:.2f} ms"
    if len(times) == 1:
        return f"latency: {first} (--repeat N for the steady state)"
    rest = np.asarray(times[1:]) * 1e3
    return (f"latency: {first}; steady state over {len(rest)} run{'s' if len(rest) != 1 else ''}"
            f": median {np.median(rest):.2f} ms, min {rest.min():.2f} ms, "
            f"mean {rest.mean():.2f} ms")


def main_run(args: argparse.Namespace) -> int:
    if getattr(args, "ray", None) is not None:
        print("fluid-compat run: --ray goes with --dataset", file=sys.stderr)
        return 2
    if args.example:
        from fluid_compat.examples import example_prefix

        model = example_prefix()
        expect = args.expect or model.parent
    elif args.model is None:
        print("fluid-compat run: give a MODEL (prefix, .pdmodel file or directory) or --example",
              file=sys.stderr)
        return 2
    else:
        model = Path(args.model)
        expect = args.expect
    repeat = args.repeat
    if repeat < 1:
        print(f"fluid-compat run: --repeat expects a count >= 1, got {repeat}", file=sys.stderr)
        return 2
    problem = _out_problem(args.out) if args.out is not None else None
    if problem:
        print(f"fluid-compat run: --out {args.out}: {problem}", file=sys.stderr)
        return 2
    try:
        place = place_from_arg(args.place)
        pins = pins_from_args(getattr(args, "pin", []))
    except PhiError as exc:
        print(f"fluid-compat run: {exc}", file=sys.stderr)
        return 2
    profiling = args.profile or args.profile_json is not None
    if profiling:
        from fluid_compat.profiler import Profiler

        profiler = Profiler()
    bar = ProgressBar(0, False)
    try:
        scope = Scope()
        files = locate_model(model, getattr(args, "params", None))
        program, feed_names, fetch_names = load_model(files, scope)
        feed, source = load_feed(program, feed_names, args.feed, prefix=files.model,
                                 seed=args.seed)
        if expect is not None and source.startswith(RANDOM):
            print(f"fluid-compat run: --expect compares with outputs Paddle computed from "
                  f"recorded inputs, and this run's inputs would be random: give --feed "
                  f"NAME=FILE.npy or keep input_<feed>.npy beside the model (feeds: "
                  f"{feed_names})", file=sys.stderr)
            return 2
        if source != "--feed":
            print(f"no --feed given: {source}")
        feed = with_lods(feed, getattr(args, "lod", []))
        exe = Executor(place, pins=pins, shadow=getattr(args, "shadow", False))
        # a progress bar over ops (all runs together) when stderr is a terminal and the work is
        # long enough to want one
        n_ops = sum(op.type not in ("feed", "fetch") for op in program.desc.global_block.ops)
        tty = sys.stderr.isatty() and n_ops * repeat >= 100
        bar = ProgressBar(n_ops * repeat, tty, label="ops")
        outs = []
        times = []
        if profiling:
            profiler.start()
        for i in range(repeat):
            start = time.perf_counter()
            fetched = exe.run(program, feed=feed, fetch_list=fetch_names, scope=scope,
                              return_numpy=False,
                              progress=(lambda done, total, i=i: bar(i * total + done))
                              if tty else None)
            times.append(time.perf_counter() - start)
            outs = [t.numpy() for t in fetched]
            lods = [t.lod for t in fetched]
    except PhiError as exc:
        bar.close()
        print(f"fluid-compat run: {exc}", file=sys.stderr)
        return 1
    finally:
        bar.close()
        if profiling:
            profiler.stop()
    print(f"model: {files}  ({len(program.desc.global_block.ops)} ops in block 0, place "
          f"{place})")
    for i, (name, out) in enumerate(zip(fetch_names, outs, strict=True)):
        lod = f"  lod {[list(level) for level in lods[i]]}" if lods[i] else ""
        print(f"output {i}: {name}  shape {list(out.shape)}  dtype {out.dtype}{lod}")
    s = exe.last_stats
    print(f"ops: {s.ops} ran: {s.phi} on phi kernels, {s.fluid} on fluid kernels, "
          f"{s.fallback} fell back to CPU")
    from phi.kernels.funcs import jit

    print(f"kernels: {jit.path_summary()}")
    if s.fused_steps:
        print(f"fused: {s.fused_ops} ops ran as {s.fused_steps} fused steps "
              "(each kind's FLAGS_fuse_* flag set to 0 runs its ops one by one)")
    print(_latency_line(times))
    if args.profile:
        print(profiler.summary())
    if args.profile_json is not None:
        try:
            path = profiler.export_chrome_trace(args.profile_json)
        except OSError as exc:
            print(f"fluid-compat run: cannot write --profile-json {args.profile_json}: "
                  f"{exc.strerror}", file=sys.stderr)
            return 1
        print(f"wrote a Chrome trace of {len(profiler.events)} op events to {path}")
    if pins:
        print("pins: " + ", ".join(f"{k}={v}" for k, v in pins.items()))
    if exe.shadow_report is not None:
        from fluid_compat.tools.shadow_summary import shadow_report_lines

        for line in shadow_report_lines(exe.shadow_report):
            print(line)
    if args.out is not None:
        try:
            args.out.mkdir(parents=True, exist_ok=True)
            for i, out in enumerate(outs):
                np.save(args.out / f"output_{i}.npy", out)
                if lods[i]:
                    (args.out / f"output_{i}.lod.json").write_text(
                        json.dumps([list(level) for level in lods[i]]) + "\n")
        except OSError as exc:
            print(f"fluid-compat run: cannot write --out {args.out}: {exc.strerror}",
                  file=sys.stderr)
            return 1
        print(f"wrote {len(outs)} outputs to {args.out}/output_<i>.npy")
    if expect is not None:
        bad = 0
        for i, out in enumerate(outs):
            ref_file = Path(expect) / f"output_{i}.npy"
            if not ref_file.is_file():
                print(f"output {i}: no {ref_file} to compare with")
                bad += 1
                continue
            ref = np.load(ref_file)
            ok = out.shape == ref.shape and np.allclose(out, ref, rtol=1e-4, atol=1e-4)
            diff = float(np.max(np.abs(out.astype(np.float64) - ref))) if (
                out.shape == ref.shape and out.size) else float("nan")
            print(f"output {i}: {'matches' if ok else 'DIFFERS FROM'} Paddle's recorded output "
                  f"(max abs diff {diff:.3g})")
            bad += not ok
        return 1 if bad else 0
    return 0
