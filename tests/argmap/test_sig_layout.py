"""The layout rule for mapping functions: every hand-written mapping of op type ``<op>`` (or of a
grad op of it) is recorded in ``argmap/sig/<op>.py``; every sig module holds at least one; no
list of modules (``FAMILIES``) exists; the process-wide registry loads by the rule."""

from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap
from pathlib import Path

import argmap.sig
from argmap.registry import SIG_LAYOUT, MappingFamily, default_registry, sig_families

ROOT = Path(__file__).resolve().parents[2]


def test_every_sig_module_records_its_own_ops_only() -> None:
    modules = SIG_LAYOUT.modules()
    assert modules and "argmap.sig.funcs" not in modules
    for module in modules:
        family = importlib.import_module(module).MAPPINGS
        assert isinstance(family, MappingFamily), module
        infos = family.mappings()
        assert infos, f"{module} records no mapping"
        for info in infos:
            assert SIG_LAYOUT.module_of(info.op_type) == module, (
                f"{info.op_type} is recorded in {module}; the rule says "
                f"{SIG_LAYOUT.module_of(info.op_type)}")
            # written in the module itself, or made there by a helper of argmap.sig.funcs
            assert info.fn.__module__ in (module, "argmap.sig.funcs"), (info.op_type, module)


def test_every_hand_written_mapping_is_in_its_sig_module() -> None:
    registry = default_registry()
    functions = [op for op in registry.mapped_op_types() if registry.how_mapped(op) == "function"]
    assert functions
    by_module = {f.name: f for f in sig_families()}
    for op in functions:
        module = SIG_LAYOUT.module_of(op)
        assert (ROOT / (module.replace(".", "/") + ".py")).is_file(), op
        family = importlib.import_module(module).MAPPINGS
        assert family.name in by_module
        assert registry.mapping_fn(op) in family.mappings(), op


def test_funcs_registers_nothing() -> None:
    funcs = importlib.import_module("argmap.sig.funcs")
    assert not any(isinstance(v, MappingFamily) for v in vars(funcs).values())


def test_no_module_list() -> None:
    assert not hasattr(argmap.sig, "FAMILIES")
    assert not (ROOT / "argmap" / "irregular").exists()
    for path in (ROOT / "argmap").rglob("*.py"):
        assert "FAMILIES" not in path.read_text(encoding="utf-8"), path


def test_a_lookup_imports_the_ops_module_only() -> None:
    code = textwrap.dedent("""
        import sys
        from argmap import default_registry
        registry = default_registry()
        before = {m for m in sys.modules if m.startswith("argmap.sig.")}
        assert registry.how_mapped("reshape2") == "function"
        assert registry.how_mapped("repeat_interleave_grad") == "function"
        assert registry.how_mapped("conv2d") == "declared"
        after = {m for m in sys.modules if m.startswith("argmap.sig.")}
        print(sorted(before), sorted(after - before))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout.strip()
    assert out == "[] ['argmap.sig.repeat_interleave', 'argmap.sig.reshape2']", out
