"""``fluid-compat where OP...``: the file of each piece of a legacy op type.

For an op type and each of its grad op types: the OpProto (its row of ``opmakers/op_defs.json``),
the mapping to a KernelSignature (a row of ``argmap/op_compat.yaml`` / ``grad_compat.yaml``, a
function in ``argmap/sig/<op>.py``, or the default signature), every phi kernel the mapping can
name and its InferMeta, the fluid kernels and the fluid-only hooks (GetExpectedKernelType,
InferShape, ...).  Each is found from the registries themselves (where the function or class is
defined), so the answer is what runs; docs/architecture.md gives the rule it follows.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import attrs

__all__ = ["Piece", "add_arguments", "main_where", "pieces"]

_ROOT = Path(__file__).resolve().parents[2]
_HOOK_FIELDS = ("operator_class", "get_expected_kernel_type", "get_kernel_type_for_var",
                "infer_shape", "output_counts")


@attrs.frozen
class Piece:
    """One piece of an op type: ``op_type`` (the forward op or one of its grad ops), ``piece``
    (``OpProto``, ``mapping``, ``phi kernel``, ``InferMeta``, ``fluid kernel``, ``hook``),
    ``name`` (the kernel, function or class) and ``where`` (``path:line`` from the repository
    root, or a note)."""

    op_type: str
    piece: str
    name: str
    where: str

    def to_dict(self) -> dict:
        return attrs.asdict(self)


def _where(obj) -> str:
    """``path:line`` of a function's or class's definition, from the repository root."""
    obj = inspect.unwrap(obj)
    try:
        path = inspect.getsourcefile(obj) or ""
        line = inspect.getsourcelines(obj)[1]
    except (OSError, TypeError):
        return getattr(obj, "__module__", "?")
    with contextlib.suppress(ValueError):  # another drive (Windows)
        path = os.path.relpath(path, _ROOT)
    return f"{path}:{line}"


def _row_line(path: str, needle: str) -> str | None:
    """``path:line`` (from the repository root) of the first line of ``path`` that starts
    with ``needle``, or None."""
    with open(_ROOT / path, encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            if line.startswith(needle):
                return f"{path}:{i}"
    return None


def _proto_line(op_type: str) -> str:
    return _row_line("opmakers/op_defs.json", f'"{op_type}": {{') or "-"


def _pieces_of(op_type: str) -> list[Piece]:
    import opmakers
    from argmap.check import SUPPORTED_KINDS, enumerate_mappings
    from phi.api import kernel_infer_meta
    from phi.core.errors import PhiError
    from phi.core.registry import kernel_factory

    from fluid_compat.framework.op_registry import get_op_info
    from fluid_compat.operators.fluid_kernels.registry import fluid_kernels_of

    out: list[Piece] = []
    if opmakers.has_op(op_type):
        out.append(Piece(op_type, "OpProto", op_type, _proto_line(op_type)))
    factory = kernel_factory()
    try:
        found = enumerate_mappings(op_type, tensor_kinds=SUPPORTED_KINDS)
    except PhiError:
        found = None
    if found is not None and found.how != "none":
        out.append(Piece(op_type, "mapping", found.how, found.where))
        names = dict.fromkeys(p.signature.name for p in found.signatures
                              if not p.signature.is_unregistered)
        for name in names:
            if not factory.has_kernel(name):
                continue
            for where in dict.fromkeys(_where(k.fn) for k in factory.kernels_of(name).values()):
                out.append(Piece(op_type, "phi kernel", name, where))
            meta = kernel_infer_meta(name)
            if meta is not None:
                out.append(Piece(op_type, "InferMeta", meta[0].__name__, _where(meta[0])))
    for cls in dict.fromkeys(type(k) for k in fluid_kernels_of(op_type).values()):
        out.append(Piece(op_type, "fluid kernel", cls.__name__, _where(cls)))
    try:
        hooks = get_op_info(op_type).hooks
    except PhiError:
        hooks = None
    row = _hook_row_line(op_type)
    if row is not None:
        out.append(Piece(op_type, "hook row", op_type, row))
    if hooks is not None:
        for field in _HOOK_FIELDS:
            fn = getattr(hooks, field)
            if fn is None:
                continue
            module = getattr(fn, "__module__", "") or ""
            if row is not None and not module.startswith(_FLUID_KERNELS):
                continue  # made from the op's row (a generic rule of ops / expected_kernel)
            out.append(Piece(op_type, "hook", field, _where(fn)))
    return out


_FLUID_KERNELS = "fluid_compat.operators.fluid_kernels."


def _hook_row_line(op_type: str) -> str | None:
    """``fluid_compat/operators/op_hooks.yaml:<line>`` of the op's row, or None."""
    from fluid_compat.operators.ops import HOOKS_FILE

    return _row_line(os.path.relpath(HOOKS_FILE, _ROOT), f"{op_type}: {{")


def pieces(op_types: Iterable[str], *, grads: bool = True) -> list[Piece]:
    """Every piece of ``op_types`` and (with ``grads``) of their grad op types."""
    from opmakers.grad import grad_op_types

    out: list[Piece] = []
    for t in op_types:
        out.extend(_pieces_of(t))
        if grads:
            for g in grad_op_types(t):
                out.extend(_pieces_of(g))
    return out


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("op_types", nargs="+", metavar="OP", help="legacy op types")
    p.add_argument("--no-grad", action="store_true", help="leave out the grad op types")
    p.add_argument("--format", choices=("table", "json"), default="table")


def main_where(args: argparse.Namespace) -> int:
    import opmakers

    from fluid_compat.tools.tables import render_table

    unknown = [t for t in args.op_types if not opmakers.has_op(t)]
    found = pieces(args.op_types, grads=not args.no_grad)
    if args.format == "json":
        print(json.dumps([p.to_dict() for p in found], indent=1))
    else:
        print(render_table(["op", "piece", "name", "where"],
                           [[p.op_type, p.piece, p.name, p.where] for p in found]))
    for t in unknown:
        print(f"{t}: no OpProto (not a legacy op type of Paddle 2.6.2 described here)")
    return 1 if unknown else 0


def _main(argv: Sequence[str] | None = None) -> int:  # pragma: no cover - python -m
    p = argparse.ArgumentParser(prog="fluid-compat where")
    add_arguments(p)
    return main_where(p.parse_args(argv))
