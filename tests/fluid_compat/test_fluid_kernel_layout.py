"""The layout rule for fluid_compat/operators/fluid_kernels (phi.core.layout): each fluid kernel
and each hook that a kernel module declares is in the module the rule names for its op type;
every module holds something the rule sends to it; the family table names registered op types
only; the regular hooks are rows of op_hooks.yaml."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import fluid_compat.operators.fluid_kernels as fk
import opmakers
from fluid_compat.operators import ops
from fluid_compat.operators.fluid_kernels.registry import all_fluid_kernels

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "fluid_compat" / "operators" / "fluid_kernels"

# in a fresh interpreter: every op_hooks / declare_hooks_lazily call a kernel module makes on
# import, with the module that makes it
_HOOK_CALLS = """
import json, sys
from fluid_compat.framework import op_registry
calls = []
real, real_lazy = op_registry.op_hooks, op_registry.declare_hooks_lazily

def op_hooks(op_type, **kwargs):
    calls.append([sys._getframe(1).f_globals["__name__"], op_type, sorted(kwargs)])
    return real(op_type, **kwargs)

def declare_hooks_lazily(op_types, declare):
    for t in op_types:
        calls.append([sys._getframe(1).f_globals["__name__"], t, ["lazy"]])
    return real_lazy(op_types, declare)

op_registry.op_hooks, op_registry.declare_hooks_lazily = op_hooks, declare_hooks_lazily
import fluid_compat.operators.fluid_kernels as fk
for m in fk.LAYOUT.modules():
    __import__(m)
print(json.dumps([c for c in calls if c[0].startswith(fk.__name__ + ".")]))
"""


@pytest.fixture(scope="module")
def hook_calls() -> list[tuple[str, str, list[str]]]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    out = subprocess.run([sys.executable, "-c", _HOOK_CALLS], env=env, cwd=ROOT, check=True,
                         capture_output=True, text=True, timeout=300).stdout
    return [tuple(c) for c in json.loads(out.splitlines()[-1])]


def _kernel_modules() -> dict[str, set[str]]:
    """op type -> the modules defining its registered kernels' classes."""
    return {op: {type(k).__module__ for k in kernels.values()}
            for op, kernels in all_fluid_kernels().items()}


def test_every_fluid_kernel_is_in_the_module_the_rule_names():
    wrong = {op: sorted(mods) for op, mods in _kernel_modules().items()
             if mods != {fk.LAYOUT.module_of(op)} and any(fk.LAYOUT.owns(m) for m in mods)}
    assert wrong == {}


def test_every_hook_is_declared_in_the_module_the_rule_names(hook_calls):
    assert len(hook_calls) > 20
    wrong = sorted({(op, module) for module, op, _ in hook_calls
                    if module != fk.LAYOUT.module_of(op)})
    assert wrong == []


def test_every_module_holds_an_op_the_rule_sends_to_it(hook_calls):
    held = {m for op, mods in _kernel_modules().items() for m in mods
            if m == fk.LAYOUT.module_of(op)}
    held |= {module for module, op, _ in hook_calls if module == fk.LAYOUT.module_of(op)}
    assert set(fk.LAYOUT.modules()) - held == set()
    # funcs.py and registry.py hold no op
    assert not held & {f"{fk.__name__}.funcs", f"{fk.__name__}.registry"}


def test_the_family_table_lists_registered_op_types_its_module_holds(hook_calls):
    kernels = _kernel_modules()
    declared = {op for _, op, _ in hook_calls}
    for family, members in fk.FAMILIES.items():
        assert list(members) == sorted(members), family
        for member in members:
            assert opmakers.has_op(member) or member in kernels, member
        # each member has a piece in the family's module (itself, a grad or a variant)
        ops_there = {op for op, mods in kernels.items() if f"{fk.__name__}.{family}" in mods}
        ops_there |= {op for module, op, _ in hook_calls if module == f"{fk.__name__}.{family}"}
        bases = {fk.LAYOUT.base(op) for op in ops_there} | ops_there
        bases |= {op[: -len("_grad")] for op in bases if op.endswith("_grad")}
        missing = [m for m in members if m not in bases]
        assert missing == [], (family, missing, sorted(declared & set(members)))


def test_no_private_name_is_imported_across_modules():
    bad = []
    for path in sorted(PKG.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(fk.__name__):
                bad += [f"{path.name}: {a.name}" for a in node.names if a.name.startswith("_")]
    assert bad == []


def test_the_hook_rows_name_op_types_and_known_keys():
    rows = ops.hook_rows()
    assert len(rows) > 500
    keys = {"expected", "keep", "share_lod", "inplace", "counts"}
    for op, row in rows.items():
        assert set(row) <= keys, op
        assert opmakers.has_op(op) or op.endswith("_grad") or "_grad_" in op, op


def test_an_edited_yaml_is_read_instead_of_the_cache(tmp_path, monkeypatch):
    text = Path(ops.HOOKS_FILE).read_text(encoding="utf-8")
    assert ops.hook_rows() == ops.parse_hook_rows(text)
    edited = tmp_path / "op_hooks.yaml"
    edited.write_text(text + "probe_op: {expected: var X}\n", encoding="utf-8")
    monkeypatch.setattr(ops, "HOOKS_FILE", str(edited))
    assert ops.hook_rows()["probe_op"] == {"expected": "var X"}
