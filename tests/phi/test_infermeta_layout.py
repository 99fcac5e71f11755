"""phi/infermeta follows its rule (phi/infermeta/__init__.py): every InferMeta function that a
YAML row names is defined in the module the rule names for that row, every InferMeta sits in an
arity module, and no module outside the rule's set remains."""

from __future__ import annotations

import ast
import importlib
import inspect
import subprocess
from pathlib import Path

import pytest

import phi.infermeta as im
from phi.api.loader import (
    DEFAULT_OPS_YAML,
    STATIC_OPS_YAML,
    infer_meta_function_name,
    load_ops_yaml,
)

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "phi" / "infermeta"


def _rows():
    """(op, InferMeta function name, the types of its tensor inputs) per YAML row."""
    for path in (DEFAULT_OPS_YAML, STATIC_OPS_YAML):
        for spec in load_ops_yaml(path):
            params = spec.infer_meta.param if spec.infer_meta.param is not None else [
                a.name for a in spec.args]
            inputs = tuple(spec.arg(p).type for p in params if spec.arg(p).is_tensor)
            yield spec.name, infer_meta_function_name(spec.infer_meta.func), inputs


def _defined_in(fn, name: str) -> set[str]:
    """The package modules whose ``__all__`` holds ``name`` bound to ``fn``."""
    found = set()
    for module in im.modules():
        mod = importlib.import_module(f"phi.infermeta.{module}")
        if name in mod.__all__ and getattr(mod, name) is fn:
            found.add(module)
    return found


def test_every_yaml_infer_meta_is_in_the_module_the_rule_names():
    wrong = []
    for op, name, inputs in _rows():
        module = im.module_of(name, inputs)
        fn = im.find(name, inputs)
        if fn is None or _defined_in(fn, name) != {module}:
            where = _defined_in(getattr(im, name, None), name)
            wrong.append(f"{op}: {name} is in {sorted(where) or 'no module'}, the rule says "
                         f"{module}")
    assert not wrong, "\n".join(wrong)


def test_every_infer_meta_sits_in_an_arity_module():
    misplaced = []
    for module in im.modules():
        mod = importlib.import_module(f"phi.infermeta.{module}")
        for name, value in vars(mod).items():
            if name.endswith("_infer_meta") and callable(value) and not name.startswith("_") \
                    and (getattr(value, "__module__", None) == mod.__name__
                         or name in mod.__all__) and module not in im.ARITY:
                misplaced.append(f"{module}.{name}")
    assert not misplaced, misplaced


def test_the_modules_are_the_rules_own():
    on_disk = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__"}
    on_disk |= {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert on_disk <= {"funcs", "sparse", *im.ARITY}, sorted(on_disk)
    assert set(im.modules()) == on_disk - {"sparse"}
    # and each holds at least one InferMeta the rule sends to it (funcs: the helpers)
    sent = {im.module_of(name, inputs) for _, name, inputs in _rows()}
    for module in set(im.modules()) - {"funcs"}:
        mod = importlib.import_module(f"phi.infermeta.{module}")
        assert module in sent or any(n.endswith("_infer_meta") for n in mod.__all__), module


def test_the_placed_table_lists_only_what_the_count_would_place_elsewhere():
    rows = {}
    for _, name, inputs in _rows():
        rows.setdefault(name, set()).add(inputs)
    placed = {n: m for m, names in im.PLACED.items() for n in names}
    for name, module in placed.items():
        assert name in rows, f"{name} (PLACED) is named by no YAML row"
        assert getattr(im, name) is not None
        by_count = {_by_count(name, inputs) for inputs in rows[name]}
        assert by_count != {module}, f"{name}: the count gives {module} already; unlist it"


def _by_count(name: str, inputs: tuple[str, ...]) -> str:
    """Steps 2 and 3 of the rule (what a function not in PLACED gets)."""
    if name.endswith("_grad_infer_meta"):
        return "backward"
    if name.startswith(("fused_", "fusion_")):
        return "fusion"
    if "Tensor[]" in inputs or len(inputs) > 3:
        return "multiary"
    return ("nullary", "unary", "binary", "ternary")[len(inputs)]


@pytest.mark.parametrize("name", ["where_infer_meta", "unchanged_infer_meta",
                                  "concat_infer_meta", "create_infer_meta"])
def test_the_rule_by_example(name):
    expected = {"where_infer_meta": "multiary", "unchanged_infer_meta": "unary",
                "concat_infer_meta": "multiary", "create_infer_meta": "nullary"}[name]
    assert inspect.getmodule(getattr(im, name)).__name__ == f"phi.infermeta.{expected}"
    assert im.module_of("layer_norm_infer_meta", ("Tensor",) * 3) == "ternary"
    assert im.module_of("conv2d_grad_infer_meta", ("Tensor",) * 2) == "backward"
    assert im.module_of("fused_bias_act_infer_meta", ("Tensor",)) == "fusion"
    assert im.module_of("stack_infer_meta", ("Tensor[]",)) == "multiary"


def test_the_arity_modules_import_only_funcs_of_the_package():
    """No arity module imports another (at module level or in a function): each depends on
    funcs alone, so that importing one never pulls in the others."""
    for module in set(im.modules()) - {"funcs"}:
        tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and \
                    node.module.startswith("phi.infermeta"):
                assert node.module == "phi.infermeta.funcs", (module, node.lineno, node.module)
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith("phi.infermeta") for a in node.names), module


def test_no_private_name_is_imported_from_an_infermeta_module():
    files = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.split()
    bad = []
    for rel in files:
        path = ROOT / rel
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        if "infermeta" not in text:
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom) and node.module and \
                    node.module.startswith("phi.infermeta"):
                bad += [f"{rel}:{node.lineno} {a.name}" for a in node.names
                        if a.name.startswith("_")]
    assert not bad, bad
