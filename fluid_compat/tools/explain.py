"""``fluid-compat explain``: why each op got its kernel, and which inputs were moved.

    fluid-compat explain OP_TYPE [--dtype T] [--input SLOT=DTYPE[:D0,D1,..]] [--attr NAME=VALUE]
    fluid-compat explain MODEL_PREFIX [--feed NAME=FILE.npy ...]
    fluid-compat explain --case CASE.json
    common options: [--place P] [--pin OP=SIDE ...] [--format text|json|dot]

Nothing here knows the dispatch rules.  Every line comes from the records that
``fluid_compat.operators.dispatch.decide`` writes while it decides (the records
``FLAGS_dispatch_trace=2`` logs): what decided the expected kernel type (which input's dtype,
which hint), the KernelSignature and how it was mapped (function / declared in op_compat.yaml /
default from the OpProto / none), each kernel lookup tried and its result, the CPU fallback,
and the transforms per input.

* A model (or a corpus single-op case) is run once through an Executor, and each op's cached
  decisions (``op.kernel_choices()``, ``op.last_choice``) are read back: these are the
  decisions ``run_impl`` made, not a second derivation.  Feeds: ``--feed``, else
  ``input_<name>.npy`` beside the model, else seeded random inputs.
* An op type alone gets one synthetic input per required slot (a [1, 1, 1, 1] tensor of
  ``--dtype`` on the host, or as ``--input`` says) and its attributes' defaults (``--attr``
  overrides them); ``op.decide`` — the function ``run_impl`` calls — decides for it.

``--format dot`` draws the program: ops coloured by the side that ran them (phi blue, fluid
orange, CPU fallback red, no kernel grey), variables as ellipses (parameters dashed), and the
edges of inputs that were transformed (place, dtype or layout) in red with the move as label.
Render it with Graphviz::

    fluid-compat explain model/inference --format dot > model.dot
    dot -Tsvg model.dot -o model.svg      # or -Tpng
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import attrs
import numpy as np
from phi.common.data_type import DataType
from phi.common.place import to_place
from phi.core.errors import InvalidArgument, NotFound, PhiError
from phi.core.tensor import DenseTensor

from fluid_compat.operators.with_kernel import OperatorWithKernel

__all__ = ["OpExplanation", "add_arguments", "explain_model", "explain_op_type",
           "explain_program", "main_explain", "record_dicts", "to_dot"]

_KIND_ORDER = ("pin", "expected", "signature", "lookup", "fallback", "transform")
_COLORS = {"phi": "#9ecae1", "fluid": "#fdae6b", "fallback": "#fb6a4a", "operator": "#d9d9d9",
           "refused": "#cb181d", "not run": "#ffffff"}


def record_dicts(records) -> list[dict]:
    """Dispatch records as dicts: kind, text and the structured data."""
    return [{"kind": rec[0], "text": rec[1], "data": dict(getattr(rec, "data", None) or {})}
            for rec in records]


def kernel_text(choice, op_type: str) -> str:
    """``phi `relu` (CPU, ...)`` / ``fluid `relu` {...}``, `` (CPU fallback)`` when it is one."""
    if choice.is_phi:
        text = f"phi `{choice.phi_kernel.name}` {choice.phi_kernel.key}"
    else:
        text = f"fluid `{op_type}` {choice.fluid_kernel.kernel_type}"
    return text + (" (CPU fallback)" if choice.fallback else "")


@attrs.define
class OpExplanation:
    """One op of a program (or an op type alone) and the decisions dispatch recorded for it."""

    index: int
    op_type: str
    block: int
    inputs: dict
    outputs: dict
    choices: list  # KernelChoice, the last one used first
    operator: str = ""  # the operator class of an op without kernel
    parent: str = ""  # "op #3 while" for the ops of a sub-block
    error: str = ""  # why no kernel could be chosen
    refused: list = attrs.Factory(list)  # the records dispatch wrote before it refused

    @property
    def side(self) -> str:
        if self.operator:
            return "operator"
        if self.error:
            return "refused"
        if not self.choices:
            return "not run"
        last = self.choices[0]
        if last.fallback:
            return "fallback"
        return "phi" if last.is_phi else "fluid"

    def to_dict(self) -> dict:
        d = {"index": self.index, "type": self.op_type, "block": self.block,
             "parent": self.parent, "inputs": self.inputs, "outputs": self.outputs,
             "side": self.side}
        if self.operator:
            d["operator"] = self.operator
        d["choices"] = [_choice_dict(c, self.op_type) for c in self.choices]
        if self.error:
            d["error"] = self.error
            d["refused_records"] = record_dicts(self.refused)
        return d


def _choice_dict(choice, op_type: str) -> dict:
    records = record_dicts(choice.records)
    sig = choice.signature
    return {
        "kernel": kernel_text(choice, op_type),
        "side": "phi" if choice.is_phi else "fluid",
        "fallback": bool(choice.fallback),
        "expected": str(choice.expected),
        "kernel_type": str(choice.kernel_type),
        "place": str(choice.place),
        "signature": None if sig is None else str(sig),
        "phi_kernel": None if choice.phi_kernel is None else {
            "name": choice.phi_kernel.name, "key": str(choice.phi_kernel.key),
            "args_def": str(choice.phi_kernel.args_def)},
        "fluid_kernel": (None if choice.fluid_kernel is None
                         else str(choice.fluid_kernel.kernel_type)),
        "transforms": [r["data"] for r in records if r["kind"] == "transform"],
        "records": records,
    }


def _slots(names: dict) -> dict:
    return {k: list(v) for k, v in names.items() if v}


def _explanations(ops, block: int = 0, parent: str = "") -> list[OpExplanation]:
    out = []
    for op in ops:
        if isinstance(op, OperatorWithKernel):
            choices = list(op.kernel_choices().values())
            last = op.last_choice
            if last is not None:
                choices = [last, *(c for c in choices if c is not last)]
            out.append(OpExplanation(op.index, op.type, block, _slots(op.inputs),
                                     _slots(op.outputs), choices, parent=parent))
            continue
        out.append(OpExplanation(getattr(op, "index", -1), op.type, block, _slots(op.inputs),
                                 _slots(op.outputs), [], operator=type(op).__name__,
                                 parent=parent))
        sub = getattr(op, "sub_ops", None)
        if sub:
            index = out[-1].index
            out.extend(_explanations(sub, op.attrs.get("sub_block", block + 1),
                                     f"op #{index} {op.type}"))
    return out


@attrs.define
class Explanation:
    """What ``explain`` found: per op its decisions, and the error that stopped the run."""

    source: str
    place: str
    feed: str
    ops: list[OpExplanation]
    error: str = ""
    persistables: frozenset = frozenset()
    fetches: tuple = ()

    def to_dict(self) -> dict:
        return {"source": self.source, "place": self.place, "feed": self.feed,
                "ops": [o.to_dict() for o in self.ops], "error": self.error}


def _index_ops(program, plan_ops) -> None:
    """Block-0 operators carry their index already (the executor sets it); nothing to do for
    operators without kernel, whose index is their position in the block."""
    block = program.desc.global_block
    positions = [i for i, d in enumerate(block.ops) if d.type not in ("feed", "fetch")]
    for op, i in zip(plan_ops, positions, strict=False):
        if getattr(op, "index", -1) == -1 or not isinstance(op, OperatorWithKernel):
            op.index = i


def explain_program(program, feed: dict, fetch_names: list[str], *, place="cpu", pins=None,
                    scope=None, source: str = "", feed_text: str = "") -> Explanation:
    """Run ``program`` once and read back every op's recorded decisions."""
    from fluid_compat.executor import Executor
    from fluid_compat.framework.scope import Scope

    place = to_place(place)
    exe = Executor(place, pins=pins)
    error, failed = "", None
    try:
        exe.run(program, feed=feed, fetch_list=fetch_names, scope=scope or Scope())
    except PhiError as exc:
        error = str(exc)
        failed = exc
    plan = exe.last_plan or next(iter(exe.plans()), None)
    ops = []
    if plan is not None:
        _index_ops(program, plan.ops)
        ops = _explanations(plan.ops)
    if error:
        records = _records_of(failed)
        # ops run in order: the first kernel op without a decision is the one refused
        stuck = next((o for o in ops if not o.operator and not o.choices), None)
        if stuck is not None and records is not None:
            stuck.error, stuck.refused = error, list(records)
    persist = frozenset(n for i in range(program.num_blocks)
                        for n, v in program.block(i).vars.items() if v.persistable)
    return Explanation(source, str(place), feed_text, ops, error, persist, tuple(fetch_names))


def _records_of(exc: BaseException | None):
    """The dispatch records an error carries (``decide`` attaches them), through the chain of
    re-raised errors."""
    seen = 0
    while exc is not None and seen < 10:
        records = getattr(exc, "dispatch_records", None)
        if records is not None:
            return records
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return None


def explain_model(prefix: str | Path, *, feed_items=None, place="cpu", seed: int = 0,
                  pins=None) -> Explanation:
    from fluid_compat.framework.scope import Scope
    from fluid_compat.io import load_inference_model
    from fluid_compat.tools.run import load_feed

    scope = Scope()
    program, feed_names, fetch_names = load_inference_model(prefix, scope=scope)
    feed, feed_text = load_feed(program, feed_names, list(feed_items or ()), prefix=Path(prefix),
                                seed=seed)
    return explain_program(program, feed, fetch_names, place=place, pins=pins, scope=scope,
                           source=str(prefix), feed_text=feed_text)


def explain_case(path: str | Path, *, place="cpu", pins=None) -> Explanation:
    from fluid_compat.tools.compare import load_case

    case = load_case(path)
    return explain_program(case.program, case.feed, list(case.expected), place=place, pins=pins,
                           source=f"case {case.name}", feed_text="the case's inputs")


def _parse_value(text: str):
    try:
        return json.loads(text)
    except ValueError:
        return text


def _parse_input(item: str, default: DataType) -> tuple[str, DataType, tuple[int, ...]]:
    slot, sep, spec = item.partition("=")
    if not sep or not slot:
        raise InvalidArgument(f"--input expects SLOT=DTYPE[:D0,D1,..], got {item!r}.")
    dtype_text, _, dims = spec.partition(":")
    dtype = DataType.from_any(dtype_text) if dtype_text else default
    try:
        shape = tuple(int(d) for d in dims.split(",") if d.strip()) if dims else (1, 1, 1, 1)
    except ValueError:
        raise InvalidArgument(f"--input {item!r}: dims must be integers.") from None
    return slot, dtype, shape


def explain_op_type(op_type: str, *, dtype: str = "float32", place="cpu", inputs=(),
                    attrs_=(), pin: str | None = None) -> Explanation:
    """Decide for one op of ``op_type`` on synthetic inputs (see the module docstring)."""
    from fluid_compat.framework.op_registry import create_op, get_op_info

    info = get_op_info(op_type)
    place = to_place(place)
    default = DataType.from_any(dtype)
    given = {}
    for item in inputs:
        slot, dt, shape = _parse_input(item, default)
        given[slot] = (dt, shape)
    attrs_map = {}
    for item in attrs_:
        name, sep, value = item.partition("=")
        if not sep:
            raise InvalidArgument(f"--attr expects NAME=VALUE (a JSON value), got {item!r}.")
        attrs_map[name] = _parse_value(value)
    in_names: dict[str, list[str]] = {}
    tensors: dict[str, list] = {}
    made = []
    for var in info.proto.inputs:
        if var.name not in given and (var.extra or var.dispensable):
            continue
        dt, shape = given.get(var.name, (default, (1, 1, 1, 1)))
        name = f"{var.name}@0"
        in_names[var.name] = [name]
        tensors[var.name] = [DenseTensor.from_numpy(np.zeros(shape, dt.to_numpy()))]
        made.append(f"{var.name} {list(shape)} {dt}")
    unknown = set(given) - set(in_names)
    if unknown:
        raise InvalidArgument(f"--input: `{op_type}` has no input slot "
                              f"{', '.join(sorted(unknown))}; its inputs: "
                              f"{', '.join(v.name for v in info.proto.inputs)}.")
    out_names = {v.name: [f"{v.name}@out"] for v in info.proto.outputs if not v.extra}
    op = create_op(op_type, in_names, out_names, attrs_map)
    feed_text = "synthetic host tensors: " + ", ".join(made)
    if not isinstance(op, OperatorWithKernel):
        ex = OpExplanation(0, op_type, 0, _slots(op.inputs), _slots(op.outputs), [],
                           operator=type(op).__name__)
        return Explanation(op_type, str(place), feed_text, [ex])
    op.index = 0
    op.pin = pin
    ex = OpExplanation(0, op_type, 0, _slots(op.inputs), _slots(op.outputs), [])
    try:
        # the inputs as run_impl reads them: every slot of the op, in sorted order
        ex.choices = [op.decide({slot: tensors.get(slot, []) for slot in sorted(op.inputs)},
                                place)]
    except PhiError as exc:
        ex.error, ex.refused = str(exc), list(_records_of(exc) or ())
    return Explanation(op_type, str(place), feed_text, [ex], ex.error)


# -- output ---------------------------------------------------------------------------------------

def _io_text(slots: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in slots.items())


def format_text(ex: Explanation) -> list[str]:
    lines = [f"explain: {ex.source}  (place {ex.place}; inputs: {ex.feed})"]
    counts: dict[str, int] = {}
    transfers = 0
    for o in ex.ops:
        where = f"  [block {o.block}, in {o.parent}]" if o.parent else ""
        lines.append(f"op #{o.index} {o.op_type}({_io_text(o.inputs)}) -> "
                     f"({_io_text(o.outputs)}){where}")
        counts[o.side] = counts.get(o.side, 0) + 1
        if o.operator:
            lines.append(f"  no kernel: operator class {o.operator} runs it")
            continue
        if o.error:
            lines.append("  kernel:     none: REFUSED")
            lines.extend(_record_lines(o.refused, complete=False))
            lines.append(f"  error:      {o.error}")
            continue
        if not o.choices:
            lines.append("  not run (no decision recorded)")
            continue
        for n, choice in enumerate(o.choices):
            if n:
                lines.append("  -- also decided, for other input dtypes/places: "
                             f"{kernel_text(choice, o.op_type)}")
            else:
                lines.append(f"  kernel:     {kernel_text(choice, o.op_type)}")
                transfers += sum(1 for rec in choice.records if rec[0] == "transform")
            lines.extend(_record_lines(choice.records))
    summary = ", ".join(f"{v} {k}" for k, v in counts.items())
    lines.append(f"summary: {len(ex.ops)} ops: {summary}; {transfers} input transform(s)")
    if ex.error and not any(o.error for o in ex.ops):
        lines.append(f"error: {ex.error}")
    return lines


def _record_lines(records, complete: bool = True) -> list[str]:
    """Records grouped by kind, in decision order; "none" for a decision without fallback or
    transforms."""
    by_kind: dict[str, list[str]] = {}
    for rec in records:
        by_kind.setdefault(rec[0], []).append(rec[1])
    lines = []
    for kind in _KIND_ORDER:
        label = "transforms:" if kind == "transform" else f"{kind}:"
        texts = by_kind.get(kind)
        if not texts:
            if complete and kind in ("fallback", "transform"):
                lines.append(f"  {label:<11} none")
            continue
        for i, text in enumerate(texts):
            lines.append(f"  {label if i == 0 else '':<11} {text}")
    return lines


def _label(text: str) -> str:
    """A DOT label: graphviz quotes it; a line break is DOT's ``\\n`` escape (a backslash of
    the text itself doubled first, so that it stays one)."""
    return str(text).replace("\\", "\\\\").replace("\n", "\\n")


def to_dot(ex: Explanation) -> str:
    """The program as a Graphviz digraph, built with the ``graphviz`` package (DOT text only:
    rendering it needs Graphviz's ``dot``; see the module docstring).  Node ids are
    ``op_<block>_<index>`` and ``var<n>`` (a variable's name is its label: names may hold
    ``:``, which DOT reads as a port in an edge)."""
    import graphviz

    g = graphviz.Digraph("program")
    g.attr(rankdir="TB", label=_label(f"{ex.source} on {ex.place}"), labelloc="t")
    g.attr("node", fontname="Helvetica", fontsize="10")
    g.attr("edge", fontname="Helvetica", fontsize="9")
    with g.subgraph(name="cluster_legend") as legend:
        legend.attr(label="legend", fontsize="10")
        for side, color in _COLORS.items():
            font = {"fontcolor": "white"} if side == "refused" else {}
            legend.node(f"legend_{side.replace(' ', '_')}", label=side, shape="box",
                        style="filled", fillcolor=color, **font)
        legend.node("legend_transfer_a", label="", shape="point")
        legend.node("legend_transfer_b", label="", shape="point")
        legend.edge("legend_transfer_a", "legend_transfer_b", label="input transformed",
                    color="red", fontcolor="red", penwidth="2")
    variables: dict[str, str] = {}  # name -> node id, in order of first use

    def var(name: str) -> str:
        return variables.setdefault(name, f"var{len(variables)}")

    by_block: dict[tuple[int, str], list[tuple[str, dict]]] = {}
    edges: list[tuple[str, str, dict]] = []
    for o in ex.ops:
        node = f"op_{o.block}_{o.index}"
        kernel = (kernel_text(o.choices[0], o.op_type) if o.choices
                  else "REFUSED" if o.error else o.operator or "not run")
        attrs = {"label": _label(f"#{o.index} {o.op_type}\n{kernel}"), "shape": "box",
                 "style": "filled", "fillcolor": _COLORS[o.side]}
        if o.side == "refused":
            attrs["fontcolor"] = "white"
        by_block.setdefault((o.block, o.parent), []).append((node, attrs))
        moved: dict[tuple[str, int], str] = {}
        if o.choices:
            for rec in o.choices[0].records:
                data = getattr(rec, "data", None) or {}
                if rec[0] == "transform" and "slot" in data:
                    moves = [f"{what} {data[what][0]} -> {data[what][1]}"
                             for what in ("layout", "dtype", "place") if what in data]
                    moved[(data["slot"], data["index"])] = ", ".join(moves)
        for slot, names in o.inputs.items():
            for i, name in enumerate(names):
                move = moved.get((slot, i))
                if move:
                    edges.append((var(name), node, {"label": _label(f"{slot}: {move}"),
                                                    "color": "red", "fontcolor": "red",
                                                    "penwidth": "2"}))
                else:
                    edges.append((var(name), node, {"label": _label(slot)}))
        for slot, names in o.outputs.items():
            for name in names:
                edges.append((node, var(name), {"label": _label(slot)}))
    for name, node in variables.items():
        attrs = {"label": _label(name), "shape": "ellipse",
                 "style": "dashed" if name in ex.persistables else "solid"}
        if name in ex.fetches:
            attrs["peripheries"] = "2"
        g.node(node, **attrs)
    for (block, parent), nodes in by_block.items():
        if block == 0 and not parent:
            for node, attrs in nodes:
                g.node(node, **attrs)
            continue
        with g.subgraph(name=f"cluster_block{block}") as sub:
            sub.attr(label=_label(f"block {block} ({parent})"))
            for node, attrs in nodes:
                sub.node(node, **attrs)
    for tail, head, attrs in edges:
        g.edge(tail, head, **attrs)
    return g.source.rstrip("\n")


# -- the command ----------------------------------------------------------------------------------

def add_arguments(p: argparse.ArgumentParser) -> None:
    from fluid_compat.tools.run import add_pin_argument

    p.add_argument("target", nargs="?", metavar="OP_TYPE|MODEL_PREFIX",
                   help="a legacy op type (synthetic inputs) or a model path prefix")
    p.add_argument("--case", type=Path, metavar="FILE",
                   help="explain a corpus single-op case <case>.json (its .npz beside it)")
    p.add_argument("--place", default="cpu", help="cpu, gpu:0 or a custom device TYPE:0")
    p.add_argument("--dtype", help="OP_TYPE only: dtype of the synthetic inputs (float32)")
    p.add_argument("--input", action="append", default=[], metavar="SLOT=DTYPE[:D0,D1,..]",
                   help="OP_TYPE only: one input slot's dtype and dims (also for dispensable "
                        "slots)")
    p.add_argument("--attr", action="append", default=[], metavar="NAME=VALUE",
                   help="OP_TYPE only: an attribute (a JSON value, e.g. use_cudnn=true)")
    p.add_argument("--feed", action="append", default=[], metavar="NAME=FILE.npy",
                   help="MODEL_PREFIX only: an input (default: input_<name>.npy beside the "
                        "model, else seeded random inputs)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    add_pin_argument(p)
    p.add_argument("--format", choices=("text", "json", "dot"), default="text")


def _is_model(target: str) -> bool:
    path = Path(target)
    return (path.with_name(path.name + ".pdmodel").is_file() or path.is_dir()
            or path.suffix == ".pdmodel" or "/" in target or "\\" in target)


def main_explain(args: argparse.Namespace) -> int:
    import opmakers

    from fluid_compat.tools.run import pins_from_args, place_from_arg

    if (args.target is None) == (args.case is None):
        print("fluid-compat explain: give an OP_TYPE, a MODEL_PREFIX or --case FILE",
              file=sys.stderr)
        return 2
    op_mode = args.target is not None and not _is_model(args.target)
    if not op_mode and (args.dtype or args.input or args.attr):
        print("fluid-compat explain: --dtype, --input and --attr apply to an OP_TYPE; a "
              "program's dtypes come from its inputs (use --feed)", file=sys.stderr)
        return 2
    try:
        place_from_arg(args.place)
        pins = pins_from_args(args.pin)
    except PhiError as exc:  # the command line's own mistakes
        print(f"fluid-compat explain: {exc}", file=sys.stderr)
        return 2
    try:
        if op_mode:
            if not opmakers.has_op(args.target):
                # get_op_info names the closest known op types
                from fluid_compat.framework.op_registry import get_op_info

                get_op_info(args.target)
            pin = pins.get(args.target) or pins.get("*")
            ex = explain_op_type(args.target, dtype=args.dtype or "float32", place=args.place,
                                 inputs=args.input, attrs_=args.attr, pin=pin)
        elif args.case is not None:
            ex = explain_case(args.case, place=args.place, pins=pins)
        else:
            ex = explain_model(args.target, feed_items=args.feed, place=args.place,
                               seed=args.seed, pins=pins)
    except (PhiError, ValueError) as exc:
        print(f"fluid-compat explain: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, (InvalidArgument, NotFound, ValueError)) else 1
    if args.format == "json":
        print(json.dumps(ex.to_dict(), indent=1))
    elif args.format == "dot":
        print(to_dot(ex))
    else:
        print("\n".join(format_text(ex)))
    if ex.error:
        if args.format != "text":
            print(f"fluid-compat explain: {ex.error}", file=sys.stderr)
        return 1
    return 0
