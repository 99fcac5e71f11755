"""The layout rule of phi.kernels (phi.core.layout, the table in phi/kernels/__init__.py): every
built-in kernel is defined in the module the rule names for it, every module holds a kernel the
rule sends to it, and the family tables list only registered names."""

from __future__ import annotations

import collections
import importlib
import importlib.util
import re
from pathlib import Path

import phi.kernels
from phi.core.registry import kernel_factory
from phi.kernels import FAMILIES, LAYOUT
from phi.kernels import selected_rows as selected_rows_pkg
from phi.kernels import sparse as sparse_pkg

KERNELS = Path(phi.kernels.__file__).parent


def _registered() -> dict[str, set[str]]:
    """kernel name -> the modules its registered functions come from."""
    factory = kernel_factory()
    factory.load_all()
    return {name: {k.fn.__module__ for k in factory.kernels_of(name).values()}
            for name in factory.names()}


def test_every_kernel_is_defined_where_the_rule_says():
    wrong = sorted((name, sorted(mods), LAYOUT.module_of(name))
                   for name, mods in _registered().items() if mods != {LAYOUT.module_of(name)})
    assert wrong == []


def test_every_module_holds_a_kernel_the_rule_sends_to_it():
    sent = collections.Counter(LAYOUT.module_of(name) for name in _registered())
    empty = [m for m in LAYOUT.modules() if not sent[m]]
    assert empty == []
    assert set(sent) <= set(LAYOUT.modules())


def test_the_family_tables_list_registered_names_or_bases():
    names = set(_registered())
    layouts = [(LAYOUT, FAMILIES), (sparse_pkg.LAYOUT, sparse_pkg.FAMILIES)]
    for layout, table in layouts:
        prefix = layout.package.removeprefix("phi.kernels").lstrip(".")
        bases = {layout.base(n) for n in names if LAYOUT.module_of(n).startswith(
            f"phi.kernels.{prefix}." if prefix else "phi.kernels.")}
        unknown = sorted(m for members in table.values() for m in members
                         if m not in names and m not in bases)
        assert unknown == [], layout.package
        for family, members in table.items():
            assert list(members) == sorted(members), family
            assert importlib.util.find_spec(f"{layout.package}.{family}") is not None, family
    assert selected_rows_pkg.LAYOUT.families == {}


def test_no_module_is_named_by_an_author_a_sequence_or_a_grad_prefix():
    # every module is a family of the table or a kernel's base (the test above); these are the
    # names of the layout before the rule
    old = {"misc1", "misc2", "binary2", "binary2_linalg", "unary2", "unary2_special", "linalg2",
           "linalg2_vision", "scan2", "optimizers2", "detection2", "sequence2", "detection_basic",
           "window_ops", "io_ops", "random_ops", "math_unary", "nn_activation", "manip",
           "manipulation", "normalization", "pooling", "statistics", "spectral"}
    stems = {p.stem for p in KERNELS.glob("*.py")}
    assert sorted(s for s in stems if s.startswith("grad_") or s in old) == []
    assert not (KERNELS / "_index.json").exists()


def test_kernel_modules_import_no_private_name_of_another_module():
    """Helpers shared by modules are public (phi/kernels/funcs/)."""
    found = []
    for path in sorted(KERNELS.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"^\s*from (phi[\w.]*) import \(?([^)\n]*(?:\n[^)\n]*)*?)\)?$", text,
                             re.M):
            names = [n.strip().split(" as ")[0] for n in m.group(2).replace("\n", " ").split(",")]
            # a private module (funcs._jit_loops, which jit / aot import on demand) is not a name
            found += [f"{path.relative_to(KERNELS.parent)}: {m.group(1)}.{n}" for n in names
                      if n.startswith("_") and not n.startswith("__")
                      and importlib.util.find_spec(f"{m.group(1)}.{n}") is None]
    assert found == []


def test_the_rule_routes_sparse_and_selected_rows_names():
    assert LAYOUT.module_of("relu_coo_grad") == "phi.kernels.sparse.unary"
    assert LAYOUT.module_of("add_coo_dense") == "phi.kernels.sparse.elementwise"
    assert LAYOUT.module_of("coo_to_dense") == "phi.kernels.sparse.creation"
    assert LAYOUT.module_of("sgd_sparse_param_sparse_grad") == "phi.kernels.selected_rows.sgd"
    assert LAYOUT.module_of("multiply_raw_sr") == "phi.kernels.selected_rows.multiply"
    assert LAYOUT.module_of("relu_double_grad") == "phi.kernels.activation"
    assert LAYOUT.module_of("unfold_grad") == "phi.kernels.unfold"
    assert LAYOUT.module_of("strided_slice_raw_grad") == "phi.kernels.strided_slice"
