"""``fluid-compat run``: load a legacy model, feed it, run it, write and summarize the outputs."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from phi.common.data_type import DataType
from phi.common.place import to_place
from phi.core.errors import InvalidArgument, PhiError

from fluid_compat.executor import Executor
from fluid_compat.framework.scope import Scope
from fluid_compat.io import load_inference_model

__all__ = ["add_arguments", "load_feed", "main_run", "pins_from_args", "random_feed",
           "shadow_report_lines"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", nargs="?", help="model path prefix (without .pdmodel) or a directory "
                                            "holding __model__")
    p.add_argument("--example", action="store_true",
                   help="run the bundled example model and compare with Paddle's output")
    p.add_argument("--feed", action="append", default=[], metavar="NAME=FILE.npy",
                   help="an input; without --feed, seeded random inputs are made")
    p.add_argument("--lod", action="append", default=[], metavar="NAME=JSON",
                   help="the LoD of feed NAME as offsets per level, e.g. x='[[0,2,5]]' "
                        "(a LoDTensor feed, as Paddle's set_lod takes it)")
    p.add_argument("--place", default="cpu", help="cpu, gpu:0 or a custom device TYPE:0")
    p.add_argument("--out", type=Path, help="write output_<i>.npy here, in fetch order")
    p.add_argument("--expect", type=Path, metavar="DIR",
                   help="compare with DIR/output_<i>.npy (rtol 1e-4, atol 1e-4); non-zero exit "
                        "on mismatch")
    p.add_argument("--repeat", type=int, default=1, help="run this many times (planned re-runs)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    add_pin_argument(p)
    p.add_argument("--dataset", type=Path, metavar="PATH",
                   help="batch inference over a directory of row files (<row>.npy for a "
                        "one-input model, <row>.npz by feed name) or a Parquet file (a column "
                        "per feed); outputs are written beside the inputs")
    p.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="with --dataset: run on Ray Data (a local Ray without ADDRESS; needs "
                        "the [ray] extra)")
    p.add_argument("--concurrency", type=int, default=2,
                   help="with --dataset --ray: actors, each loading the model once")
    p.add_argument("--shadow", action="store_true",
                   help="shadow mode: also run the other side (fluid or phi) of every op that "
                        "has both kernels and print the divergences; results are unchanged")


def add_pin_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--pin", action="append", default=[], metavar="OP=SIDE",
                   help="run op type OP on SIDE (phi or fluid) kernels only; repeatable; "
                        "'*=fluid' pins every op (also FLAGS_kernel_pins='relu=fluid,...')")


def pins_from_args(items: list[str]) -> dict[str, str]:
    """``["relu=fluid", "*=phi"]`` -> ``{"relu": "fluid", "*": "phi"}`` (checked)."""
    from fluid_compat.operators.pinning import parse_pins

    pins: dict[str, str] = {}
    for item in items:
        op_type, sep, side = item.partition("=")
        if not sep or not op_type.strip():
            raise InvalidArgument(f"--pin expects OP=SIDE (e.g. relu=fluid or '*=phi'), got "
                                  f"{item!r}.")
        pins.update(parse_pins({op_type: side}))
    return pins


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
        feed[name] = (np.asarray(feed[name]), lod)
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
    made = ", ".join(f"{n}{list(a.shape)} {a.dtype}" for n, a in feed.items())
    return feed, f"seeded random inputs (seed {seed}): {made}"


def shadow_report_lines(report, limit: int = 20) -> list[str]:
    """A shadow run's summary and its divergences, one line each."""
    from fluid_compat.tools.compare import format_number, summarize

    rows = summarize(report.records)
    bad = [r for r in rows if not r.passed]
    ops = {(r.index, r.op_type) for r in rows}
    lines = [(f"shadow: {len(rows)} outputs of {len(ops)} ops compared with the other side, "
              f"{len(bad)} diverged")]
    for r in bad[:limit]:
        lines.append(f"  DIVERGED op #{r.index} {r.op_type}.{r.slot} ({r.dtype}): {r.chosen} vs "
                     f"{r.other} max abs {format_number(r.max_abs)} max rel "
                     f"{format_number(r.max_rel)}" + (f" ({r.error})" if r.error else ""))
    if len(bad) > limit:
        lines.append(f"  ... and {len(bad) - limit} more (fluid-compat compare lists them all)")
    return lines


def random_feed(program, names: list[str], seed: int) -> dict[str, np.ndarray]:
    """Seeded inputs shaped and typed as the feed variables' descriptions (-1 dims -> 1)."""
    rng = np.random.default_rng(seed)
    block = program.desc.global_block
    feed = {}
    for name in names:
        desc = block.find_var(name)
        shape = tuple(1 if d < 0 else d for d in (desc.shape or ()))
        dtype = desc.dtype or DataType.FLOAT32
        np_dtype = dtype.to_numpy()
        if dtype.is_floating_point:
            arr = rng.standard_normal(shape).astype(np_dtype)
        elif dtype is DataType.BOOL:
            arr = rng.integers(0, 2, shape).astype(np_dtype)
        else:
            arr = rng.integers(0, 10, shape).astype(np_dtype)
        feed[name] = arr
    return feed


def _progress(total: int, enabled: bool, label: str = "run"):
    if not enabled or total < 2:
        return lambda done: None
    width = 30

    def show(done: int) -> None:
        done = min(done, total)
        filled = width * done // total
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {label} {done}/{total}")
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show


def main_dataset(args: argparse.Namespace) -> int:
    """``run MODEL --dataset PATH [--ray]``: every row of the dataset, outputs beside it."""
    from fluid_compat import scaleout

    if args.model is None:
        print("fluid-compat run: --dataset needs a MODEL_PREFIX", file=sys.stderr)
        return 2
    try:
        if args.ray is not None:
            scaleout.require_ray()
        stats = scaleout.run_dataset(args.model, args.dataset, use_ray=args.ray is not None,
                                     address=args.ray or None, place=args.place,
                                     concurrency=args.concurrency)
    except PhiError as exc:
        print(f"fluid-compat run: {exc}", file=sys.stderr)
        return 2
    where = "on Ray" if args.ray is not None else "in this process"
    print(f"{stats['rows']} rows {where} in {stats['seconds']:.2f} s "
          f"({stats['rows_per_s']:.1f} rows/s); outputs: {stats['outputs']}")
    return 0


def main_run(args: argparse.Namespace) -> int:
    if getattr(args, "dataset", None) is not None:
        return main_dataset(args)
    if getattr(args, "ray", None) is not None:
        print("fluid-compat run: --ray goes with --dataset", file=sys.stderr)
        return 2
    if args.example:
        from fluid_compat.examples import example_prefix

        prefix = example_prefix()
        expect = args.expect or prefix.parent
        if not args.feed:
            args.feed = [f"image={prefix.parent / 'input_image.npy'}"]
    elif args.model is None:
        print("fluid-compat run: give a MODEL_PREFIX or --example", file=sys.stderr)
        return 2
    else:
        prefix = Path(args.model)
        expect = args.expect
    try:
        place = to_place(args.place)
        scope = Scope()
        program, feed_names, fetch_names = load_inference_model(prefix, scope=scope)
        feed, source = load_feed(program, feed_names, args.feed, seed=args.seed)
        if source != "--feed":
            print(f"no --feed given: {source}")
        feed = with_lods(feed, getattr(args, "lod", []))
        pins = pins_from_args(getattr(args, "pin", []))
        exe = Executor(place, pins=pins, shadow=getattr(args, "shadow", False))
        # a progress bar over ops (all runs together) when stderr is a terminal and the work is
        # long enough to want one
        repeat = max(1, args.repeat)
        n_ops = sum(op.type not in ("feed", "fetch") for op in program.desc.global_block.ops)
        tty = sys.stderr.isatty() and n_ops * repeat >= 100
        bar = _progress(n_ops * repeat, tty, label="ops")
        outs = []
        for i in range(repeat):
            fetched = exe.run(program, feed=feed, fetch_list=fetch_names, scope=scope,
                              return_numpy=False,
                              progress=(lambda done, total, i=i: bar(i * total + done))
                              if tty else None)
            outs = [t.numpy() for t in fetched]
            lods = [t.lod for t in fetched]
    except PhiError as exc:
        print(f"fluid-compat run: {exc}", file=sys.stderr)
        return 1
    print(f"model: {prefix}  ({len(program.desc.global_block.ops)} ops in block 0, place "
          f"{place})")
    for i, (name, out) in enumerate(zip(fetch_names, outs, strict=True)):
        lod = f"  lod {[list(level) for level in lods[i]]}" if lods[i] else ""
        print(f"output {i}: {name}  shape {list(out.shape)}  dtype {out.dtype}{lod}")
    s = exe.last_stats
    print(f"ops: {s.ops} ran: {s.phi} on phi kernels, {s.fluid} on fluid kernels, "
          f"{s.fallback} fell back to CPU")
    if s.fused_steps:
        print(f"fused: {s.fused_ops} ops ran as {s.fused_steps} fused steps "
              "(each kind's FLAGS_fuse_* flag set to 0 runs its ops one by one)")
    if pins:
        print("pins: " + ", ".join(f"{k}={v}" for k, v in pins.items()))
    if exe.shadow_report is not None:
        for line in shadow_report_lines(exe.shadow_report):
            print(line)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        for i, out in enumerate(outs):
            np.save(args.out / f"output_{i}.npy", out)
            if lods[i]:
                (args.out / f"output_{i}.lod.json").write_text(
                    json.dumps([list(level) for level in lods[i]]) + "\n")
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
