"""``fluid-compat ops``: where every legacy op stands in the migration from fluid to phi.

    fluid-compat ops [OP ...] [--all] [--protos FILE] [--format table|json|markdown] [--wide]

Per op: OpProto present, how it maps to a phi kernel (argmap: ``function``, ``declared`` in
op_compat.yaml, ``default`` from the OpProto, ``none``), the phi kernels its signatures name
with their backends x dtypes, the fluid kernels with their OpKernelTypes, the argmap-check
result, and a status:

* ``both``: phi and fluid kernels (the fluid one kept for comparison until it is retired);
* ``phi-only`` / ``fluid-only``: one side;
* ``operator``: no kernel, an operator class runs it (control flow);
* ``unavailable``: cannot run in one process (needs a process group, a parameter server or a
  GPU-only library; the note says which: fluid_compat/operators/unavailable.py);
* ``description-only``: an OpProto and nothing that runs it;
* ``not-described`` (``--all`` only): an op of Paddle 2.6.2 with no OpProto here.

``--all`` adds every op type of Paddle 2.6.2 (the list bundled beside this module, made from
the corpus's ``op_protos.json``; ``--protos FILE`` reads another such file instead).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import attrs

from fluid_compat.tools.tables import DEFAULT_WIDTH, table_width

__all__ = ["STATUSES", "OpStatus", "add_arguments", "collect", "main_ops", "paddle_op_types"]

STATUSES = ("both", "phi-only", "fluid-only", "operator", "unavailable", "description-only",
            "not-described")
_BUNDLED = Path(__file__).with_name("paddle_op_types.json")


@attrs.frozen
class OpStatus:
    """The migration status of one legacy op type."""

    op_type: str
    status: str
    has_proto: bool
    mapping: str  # function / declared / default / none / "-" (nothing known)
    mapping_where: str
    phi_kernels: dict  # kernel name -> "BACKEND[, layout]" -> [dtype, ...]
    fluid_kernels: tuple[str, ...]  # OpKernelType strings
    fluid_groups: dict  # "place library[ layout]" -> [dtype, ...]
    argmap_problems: tuple[str, ...]
    note: str = ""
    grad: str = "-"  # "relu_grad: phi", "matmul_grad: fluid", "... missing"; "-": no grad op

    @property
    def argmap_result(self) -> str:
        if self.mapping == "-":
            return "-"
        return "ok" if not self.argmap_problems else f"{len(self.argmap_problems)} problem(s)"

    def to_dict(self) -> dict:
        d = attrs.asdict(self)
        d["fluid_kernels"] = list(self.fluid_kernels)
        d["argmap_problems"] = list(self.argmap_problems)
        d["argmap_check"] = self.argmap_result
        return d


def paddle_op_types(protos: Path | None = None) -> list[str]:
    """Paddle 2.6.2's op types: from ``protos`` (a corpus ``op_protos.json``) or the bundled
    list."""
    path = protos if protos is not None else _BUNDLED
    data = json.loads(Path(path).read_text())
    if "op_types" in data:
        return list(data["op_types"])
    if isinstance(data.get("ops"), dict):
        return sorted(data["ops"])
    raise ValueError(f"{path}: neither an `ops` map (op_protos.json) nor an `op_types` list")


def _phi_groups(factory, name: str) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for key in sorted(factory.kernels_of(name),
                      key=lambda k: (int(k.backend), int(k.layout), int(k.dtype))):
        label = str(key.backend)
        if str(key.layout) != "Undefined(AnyLayout)":
            label += f", {key.layout}"
        groups.setdefault(label, []).append(str(key.dtype))
    return groups


def _fluid_groups(kernels) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for kt in sorted(kernels, key=lambda k: (str(k.place), k.library.value, int(k.dtype))):
        label = f"{kt.place.device_type.upper()}"
        if kt.library.value != "PLAIN":
            label += f" {kt.library.value}"
        if str(kt.layout) != "Undefined(AnyLayout)":
            label += f", {kt.layout}"
        groups.setdefault(label, []).append(str(kt.dtype))
    return groups


def collect(op_types: Iterable[str] | None = None, *, include_paddle: bool = False,
            protos: Path | None = None) -> list[OpStatus]:
    """The status of ``op_types`` (default: every op described here, plus with
    ``include_paddle`` every op type of Paddle 2.6.2), sorted by name."""
    import opmakers
    from argmap import default_registry
    from opmakers.grad import is_grad_op_type
    from argmap.check import SUPPORTED_KINDS, argmap_check, enumerate_mappings
    from phi.core.errors import NotFound
    from phi.core.registry import kernel_factory

    from fluid_compat.framework.op_registry import get_op_info
    from fluid_compat.operators.fluid_kernels.registry import fluid_kernels_of
    from fluid_compat.operators.unavailable import unavailable_reason

    registry = default_registry()
    factory = kernel_factory()
    if op_types is None:
        # grad op types are shown in their forward op's `grad` column, not as rows
        names = set(opmakers.all_op_types()) | {
            n for n in registry.mapped_op_types() if opmakers.has_op(n) or not is_grad_op_type(n)}
        if include_paddle:
            names |= set(paddle_op_types(protos))
    else:
        names = set(op_types)
    from opmakers.grad import grad_op_types

    mapped = set(registry.mapped_op_types())
    known = sorted(n for n in names if opmakers.has_op(n) or n in mapped)
    # a grad op's problems are its forward op's row's (grad ops are not rows): the check
    # covers them, so that `ops` counts what `argmap-check` counts
    owner: dict[str, str] = {}
    for name in known:
        if opmakers.has_op(name):
            for t in grad_op_types(name):
                if t not in names and (opmakers.has_op(t) or t in mapped):
                    owner.setdefault(t, name)
    problems: dict[str, list[str]] = {}
    checked = None if op_types is None else [*known, *owner]  # None: what argmap-check checks
    for problem in argmap_check(op_types=checked, tensor_kinds=SUPPORTED_KINDS):
        problems.setdefault(owner.get(problem.op_type, problem.op_type), []).append(str(problem))
    out = []
    for name in sorted(names):
        has_proto = opmakers.has_op(name)
        fluid = fluid_kernels_of(name)
        phi_names: list[str] = []
        note = ""
        if name in known:
            how = registry.how_mapped(name)
            try:
                found = enumerate_mappings(name, registry, tensor_kinds=SUPPORTED_KINDS)
                where = found.where
                sig_names = dict.fromkeys(p.signature.name for p in found.signatures
                                          if not p.signature.is_unregistered)
            except NotFound as exc:
                where, sig_names = "", {}
                note = exc.message
            if registry.has_compatible_phi_kernel(name, factory):
                phi_names = [n for n in sig_names if factory.has_kernel(n)]
            reason = registry.no_signature_reason(name)
            if reason:
                note = reason
        else:
            how, where = "-", ""
            base = registry.base_kernel_name(name)
            if factory.has_kernel(base):
                note = f"phi kernel `{base}` exists; the op needs an OpProto (opmakers) to run"
        if not has_proto and name not in known:
            status = "not-described"
        elif unavailable_reason(name) is not None and not fluid:
            # refused at plan time whatever phi kernels exist (make_operator's rule): the
            # sparse products, whose CPU kernels only raise in Paddle too
            status, note = "unavailable", unavailable_reason(name)
        elif phi_names and fluid:
            status = "both"
        elif phi_names:
            status = "phi-only"
        elif fluid:
            status = "fluid-only"
        elif has_proto and get_op_info(name).hooks.operator_class is not None:
            status = "operator"
        elif name in ("feed", "fetch", "fetch_v2"):
            status, note = "operator", "the Executor feeds and fetches itself"
        elif unavailable_reason(name) is not None:
            status, note = "unavailable", unavailable_reason(name)
        else:
            status = "description-only"
        out.append(OpStatus(
            grad=_grad_status(name, registry, factory, fluid_kernels_of) if has_proto else "-",
            op_type=name, status=status, has_proto=has_proto, mapping=how, mapping_where=where,
            phi_kernels={n: _phi_groups(factory, n) for n in phi_names},
            fluid_kernels=tuple(str(k) for k in fluid), fluid_groups=_fluid_groups(fluid),
            argmap_problems=tuple(problems.get(name, ())), note=note))
    return out


def _grad_status(name: str, registry, factory, fluid_kernels_of) -> str:
    """How the grad ops of ``name`` run: ``relu_grad: phi``, ``matmul_grad: fluid``,
    ``x_grad: missing`` (several joined by ``, ``); ``-`` when Paddle has no grad op."""
    from argmap.check import SUPPORTED_KINDS, enumerate_mappings
    from opmakers.grad import grad_op_types
    from phi.core.errors import PhiError

    from fluid_compat.framework.op_registry import get_op_info

    parts = []
    for t in grad_op_types(name):
        side = "missing"
        try:  # a grad op run by an operator class (read_from_array for write_to_array ...)
            if get_op_info(t).hooks.operator_class is not None:
                parts.append(f"{t}: operator")
                continue
        except PhiError:
            pass
        if fluid_kernels_of(t):
            side = "fluid"
        try:
            found = enumerate_mappings(t, registry, tensor_kinds=SUPPORTED_KINDS)
            if any(factory.has_kernel(p.signature.name) for p in found.signatures
                   if not p.signature.is_unregistered):
                side = "both" if side == "fluid" else "phi"
        except PhiError:
            pass
        parts.append(f"{t}: {side}")
    return ", ".join(parts) or "-"


def totals(rows: list[OpStatus]) -> dict:
    by_status = Counter(r.status for r in rows)
    by_mapping = Counter(r.mapping for r in rows if r.mapping != "-")
    return {
        "ops": len(rows),
        "status": {s: by_status.get(s, 0) for s in STATUSES if by_status.get(s, 0)},
        "mapping": dict(sorted(by_mapping.items())),
        "argmap_problems": sum(len(r.argmap_problems) for r in rows),
        "grad": {"with_grad_ops": sum(1 for r in rows if r.grad != "-"),
                 "running": sum(1 for r in rows if r.grad != "-" and "missing" not in r.grad)},
    }


# -- output ---------------------------------------------------------------------------------------

_SHORT = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16",
          "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
          "complex64": "c64", "complex128": "c128"}


def _groups_text(groups: dict[str, list[str]]) -> str:
    """``CPU,GPU[f32,f64]``: backends with the same dtypes share one bracket."""
    merged: dict[tuple[str, ...], list[str]] = {}
    for label, dtypes in groups.items():
        merged.setdefault(tuple(dtypes), []).append(label)
    return " ".join(f"{','.join(labels)}[{','.join(_SHORT.get(d, d) for d in dtypes)}]"
                    for dtypes, labels in merged.items())


def _cells(r: OpStatus) -> tuple[str, ...]:
    phi = "; ".join(f"{n}: {_groups_text(g)}" for n, g in r.phi_kernels.items()) or "-"
    fluid = _groups_text(r.fluid_groups) or "-"
    status = f"unavailable: {r.note}" if r.status == "unavailable" else r.status
    return (r.op_type, status, "yes" if r.has_proto else "no", r.mapping, phi, fluid,
            r.grad, r.argmap_result)


_HEADER = ("op", "status", "proto", "mapping", "phi kernel: backend[dtypes]",
           "fluid kernels: place[dtypes]", "grad op: kernel", "argmap-check")
_NARROW_HEADER = ("op", "status", "phi kernels", "fluid kernels", "grad ops", "argmap-check")


def _totals_lines(t: dict) -> list[str]:
    status = ", ".join(f"{v} {k}" for k, v in t["status"].items())
    mapping = ", ".join(f"{v} {k}" for k, v in t["mapping"].items())
    grad = t["grad"]
    return [f"totals: {t['ops']} ops: {status}",
            f"mapping: {mapping}; argmap-check: {t['argmap_problems']} problem(s)",
            f"grad: {grad['running']} of {grad['with_grad_ops']} ops with grad ops run them"]


def format_table(rows: list[OpStatus], width: int = DEFAULT_WIDTH) -> list[str]:
    """The rows as a table ``width`` columns wide (long cells wrap; at 100 columns or less
    without the proto and mapping columns), then the argmap problems and the totals."""
    from fluid_compat.tools.tables import render_table

    if width <= DEFAULT_WIDTH:
        # 100 columns hold six: proto (the status says "not-described") and the mapping's
        # kind are left to --wide and the JSON
        keep = (0, 1, 4, 5, 6, 7)
        table = render_table(_NARROW_HEADER, [[_cells(r)[i] for i in keep] for r in rows],
                             width=width)
    else:
        table = render_table(_HEADER, [_cells(r) for r in rows], width=width)
    lines = table.splitlines()
    for r in rows:
        for p in r.argmap_problems:
            lines.append(f"PROBLEM {p}")
    return [*lines, *_totals_lines(totals(rows))]


def format_markdown(rows: list[OpStatus]) -> list[str]:
    def esc(text: str) -> str:
        return text.replace("|", "\\|")

    lines = ["| " + " | ".join(_HEADER) + " |", "|" + "---|" * len(_HEADER)]
    for r in rows:
        cells = list(_cells(r))
        cells[0] = f"`{cells[0]}`"
        lines.append("| " + " | ".join(esc(c) for c in cells) + " |")
    lines.append("")
    lines.extend(f"- {line}" for line in _totals_lines(totals(rows)))
    problems = [p for r in rows for p in r.argmap_problems]
    lines.extend(f"- PROBLEM {esc(p)}" for p in problems)
    return lines


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("ops", nargs="*", metavar="OP", help="only these op types")
    p.add_argument("--all", action="store_true",
                   help="also every op type of Paddle 2.6.2 (the bundled list of its 784 ops)")
    p.add_argument("--protos", type=Path, metavar="FILE",
                   help="with --all: read the op types from this op_protos.json (e.g. "
                        "the corpus's op_protos.json) instead of the bundled list")
    p.add_argument("--format", choices=("table", "json", "markdown"), default="table")
    p.add_argument("--wide", action="store_true",
                   help="one line per op, as wide as the cells need (default: the table fits "
                        "100 columns, long cells wrap)")


def main_ops(args: argparse.Namespace) -> int:
    from phi.core.errors import PhiError

    if args.protos is not None and not args.protos.is_file():
        print(f"fluid-compat ops: --protos {args.protos}: no such file (the corpus is not "
              "here?); without --protos, --all uses the bundled list of Paddle 2.6.2's op "
              "types", file=sys.stderr)
        return 2
    try:
        rows = collect(args.ops or None, include_paddle=args.all or args.protos is not None,
                       protos=args.protos)
    except (PhiError, ValueError, OSError) as exc:
        print(f"fluid-compat ops: {exc}", file=sys.stderr)
        return 2
    if args.format == "json":
        print(json.dumps({"ops": [r.to_dict() for r in rows], "totals": totals(rows)},
                         indent=1))
    elif args.format == "markdown":
        print("\n".join(format_markdown(rows)))
    else:
        print("\n".join(format_table(rows, width=table_width(args.wide))))
    return 0
