"""``fluid-compat inspect``: a model's metadata, read from its program without running it.

    fluid-compat inspect MODEL [--params FILE] [--format text|json]

MODEL is a prefix, a ``.pdmodel`` file or a directory (fluid_compat.framework.model_files.
locate_model).
Printed: the feeds and fetches (name, shape with -1 for a size known at run time, dtype, LoD
level), the parameters (tensors, values, bytes, from the program's declarations), the op types
with their counts over every block, and where each op would run: on phi kernels, on fluid
kernels (or an operator class), by the executor itself (feed, fetch), or unavailable here (the
reason, from ``fluid-compat ops``).  The same in the API: :func:`describe` (a dict, the JSON
output) and :func:`format_text`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np

__all__ = ["add_arguments", "describe", "format_text", "inspect_model", "main_inspect"]

# where an op's `fluid-compat ops` status says it runs
_WHERE = {"both": "phi", "phi-only": "phi", "fluid-only": "fluid", "operator": "fluid",
          "unavailable": "unavailable", "description-only": "unavailable",
          "not-described": "unavailable"}
_EXECUTOR_OPS = ("feed", "fetch", "fetch_v2")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="model path prefix, a .pdmodel file, or a directory holding "
                                 "__model__ / inference.pdmodel / one *.pdmodel")
    p.add_argument("--params", metavar="FILE",
                   help="the parameter file (or directory of per-parameter files); default: "
                        "the one beside the program")
    p.add_argument("--format", choices=("text", "json"), default="text")


def _io(block, name: str) -> dict:
    desc = block.find_var(name)
    if desc is None:
        return {"name": name, "shape": None, "dtype": None, "lod_level": 0}
    dtype = None if desc.dtype is None else np.dtype(desc.dtype.to_numpy()).name
    return {"name": name, "shape": None if desc.shape is None else list(desc.shape),
            "dtype": dtype, "lod_level": desc.lod_level}


def _parameters(program, scope) -> dict:
    from fluid_compat.framework.tensor_io import combined_param_vars

    count = elements = nbytes = 0
    by_dtype: Counter = Counter()
    unknown = []
    for var in combined_param_vars(program.desc):
        count += 1
        held = None if scope is None else scope.find_var(var.name)
        value = None if held is None else held.value
        if value is not None and getattr(value, "data", None) is not None:
            arr = value.numpy()
            n, itemsize, dtype = arr.size, arr.dtype.itemsize, arr.dtype.name
        elif var.shape is not None and all(d >= 0 for d in var.shape) and var.dtype:
            n = int(np.prod(var.shape, dtype=np.int64))
            np_dtype = np.dtype(var.dtype.to_numpy())
            itemsize, dtype = np_dtype.itemsize, np_dtype.name
        else:
            unknown.append(var.name)
            continue
        elements += n
        nbytes += n * itemsize
        by_dtype[dtype] += 1
    return {"count": count, "elements": elements, "bytes": nbytes,
            "dtypes": dict(sorted(by_dtype.items())), "unknown_size": unknown}


def describe(program, scope=None, *, source: str | None = None) -> dict:
    """The metadata of ``program`` (a fluid_compat Program): what ``inspect --format json``
    prints.  With ``scope`` (where its parameters were loaded) parameter sizes are the loaded
    arrays'; without, the program's declarations."""
    from fluid_compat.tools.ops_status import collect

    desc = program.desc
    block = desc.global_block
    types: Counter = Counter()
    for i in range(desc.num_blocks):
        for op in desc.block(i).ops:
            types[op.type] += 1
    statuses = {s.op_type: s for s in collect(sorted(types))}
    where: dict[str, dict] = {"phi": {}, "fluid": {}, "executor": {}, "unavailable": {}}
    reasons = {}
    for op_type, n in sorted(types.items()):
        if op_type in _EXECUTOR_OPS:
            where["executor"][op_type] = n
            continue
        status = statuses.get(op_type)
        side = "unavailable" if status is None else _WHERE[status.status]
        where[side][op_type] = n
        if side == "unavailable":
            reasons[op_type] = (status.note if status is not None and status.note else
                                "no kernel or operator implements it here" if status is not None
                                and status.has_proto else "not an op type known here")
    return {
        "model": source,
        "blocks": desc.num_blocks,
        "feeds": [_io(block, n) for n in program.feed_target_names()],
        "fetches": [_io(block, n) for n in program.fetch_target_names()],
        "parameters": _parameters(program, scope),
        "ops": {"total": sum(types.values()), "block0": block.num_ops,
                "types": dict(types.most_common())},
        "kernels": {side: dict(ops) for side, ops in where.items()},
        "status": {t: statuses[t].status for t in sorted(statuses)},
        "unavailable": reasons,
    }


def inspect_model(path: str | Path, params: str | Path | None = None) -> dict:
    """:func:`describe` of the model at ``path`` (the program only: parameters are not read)."""
    from fluid_compat.executor import Program
    from fluid_compat.framework import ProgramDesc
    from fluid_compat.framework.model_files import locate_model

    files = locate_model(path, params)
    return describe(Program(ProgramDesc.load(files.model)), source=str(files))


def _bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"  # pragma: no cover


def _io_lines(items: list[dict]) -> list[str]:
    if not items:
        return ["  (none)"]
    from fluid_compat.tools.tables import render_table

    rows = [(d["name"], "?" if d["shape"] is None else str(d["shape"]), d["dtype"] or "?",
             f"lod_level {d['lod_level']}" if d["lod_level"] else "") for d in items]
    headers = ("name", "shape", "dtype", "LoD") if any(r[3] for r in rows) else (
        "name", "shape", "dtype")
    return ["  " + line for line in
            render_table(headers, [r[:len(headers)] for r in rows], width=98).splitlines()]


def _counts(ops: dict) -> str:
    return ", ".join(f"{t} {n}" for t, n in ops.items()) or "-"


def format_text(info: dict, width: int = 100) -> str:
    """:func:`describe`'s dict as ``inspect`` prints it (long lists wrapped at ``width``)."""
    import textwrap

    ops = info["ops"]
    blocks = info["blocks"]
    lines = []
    if info.get("model"):
        lines.append(f"model: {info['model']}")
    lines.append(f"program: {blocks} block{'s' if blocks != 1 else ''}, {ops['total']} ops "
                 f"({ops['block0']} in block 0), {len(ops['types'])} op types")
    lines.append("feeds (inputs):")
    lines += _io_lines(info["feeds"])
    lines.append("fetches (outputs):")
    lines += _io_lines(info["fetches"])
    p = info["parameters"]
    dtypes = ", ".join(f"{n} {d}" for d, n in p["dtypes"].items())
    lines.append(f"parameters: {p['count']} tensors, {p['elements']:,} values, "
                 f"{_bytes(p['bytes'])}" + (f" ({dtypes})" if dtypes else ""))
    if p["unknown_size"]:
        lines.append(f"  size not declared: {', '.join(p['unknown_size'])}")
    lines.append("op types (all blocks): " + _counts(ops["types"]))
    k = info["kernels"]
    lines.append("where the ops run:")
    for side, label in (("phi", "phi kernels"), ("fluid", "fluid kernels / operators"),
                        ("executor", "the executor"), ("unavailable", "unavailable here")):
        n = sum(k[side].values())
        lines.append(f"  {label}: {n} op{'s' if n != 1 else ''}"
                     + (f" ({_counts(k[side])})" if n else ""))
    for op_type, reason in info["unavailable"].items():
        lines.append(f"    {op_type}: {reason}")
    return "\n".join(textwrap.fill(line, width, subsequent_indent="      ",
                                   break_on_hyphens=False)
                     if len(line) > width and not line.startswith("model:") else line
                     for line in lines)


def main_inspect(args: argparse.Namespace) -> int:
    from phi.core.errors import PhiError

    try:
        info = inspect_model(args.model, args.params)
    except PhiError as exc:
        print(f"fluid-compat inspect: {exc}", file=sys.stderr)
        return 1
    if args.format == "json":
        print(json.dumps(info, indent=1))
    else:
        print(format_text(info))
    return 0
