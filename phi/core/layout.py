"""Where an op's pieces live: the layout rule (docs/architecture.md), as code.

From a name (a kernel name, an op type) a :class:`Layout` gives the module that defines it:

1. a name listed in the package's family table goes to that family's module;
2. else its *base*: the name less one grad suffix (``_triple_grad``, ``_double_grad``,
   ``_grad``), then less one of the package's variant suffixes (``_raw``, ``_infer`` ...); a
   base listed in the family table goes to that family's module;
3. else the module named by the base.

A package with sub-packages of its own rule (``phi.kernels.sparse``) gives each as a *part*: a
pattern and the sub-package's Layout; a name the pattern finds (``re.search``) goes by the
part's rule (``relu_coo_grad`` -> ``sparse.unary``).

``relu_grad`` -> base ``relu`` -> family ``activation``; ``unfold_grad`` -> ``unfold`` (its own
module); ``multiply_raw`` -> ``multiply`` -> ``elementwise``.  No index is generated: the
family table is written by hand, short, and the layout tests check that every registered
piece is defined where the rule says.

A :class:`RuleIndex` loads by the rule: the first lookup of a name imports the module the rule
names for it (once, under a lock, whichever thread asks first); listing a table imports every
module of the package, so that no public call sees fewer entries than an eager import
registers.  phi's KernelFactory (kernel names) and the fluid kernel registry (op types) each
hold one.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
import threading
from collections.abc import Iterable, Mapping

__all__ = ["GRAD_SUFFIXES", "Layout", "RuleIndex", "module_imported"]

GRAD_SUFFIXES = ("_triple_grad", "_double_grad", "_grad")


def _less_grad(name: str) -> str:
    """``name`` less one grad suffix (the longest that fits)."""
    for s in GRAD_SUFFIXES:
        if name.endswith(s) and len(name) > len(s):
            return name[: -len(s)]
    return name


def module_imported(module: str) -> bool:
    """Whether ``module`` is imported and done initialising."""
    found = sys.modules.get(module)
    return found is not None and not getattr(getattr(found, "__spec__", None), "_initializing",
                                             False)


class Layout:
    """The rule for one package: ``package`` (``"phi.kernels"``), its family table (family
    module -> the names and bases it holds), the variant suffixes it strips, and the modules of
    the package that hold no pieces (``funcs``, ``registry`` ...), which listing skips."""

    __slots__ = ("_exists", "_family", "families", "helpers", "package", "parts", "variants")

    def __init__(self, package: str, families: Mapping[str, Iterable[str]] | None = None, *,
                 variants: Iterable[str] = (), helpers: Iterable[str] = (),
                 parts: Iterable[tuple[str, Layout]] = ()) -> None:
        self.package = package
        self.families = {f: tuple(m) for f, m in (families or {}).items()}
        self.variants = tuple(variants)
        self.parts = tuple((re.compile(p), sub) for p, sub in parts)
        """(pattern, Layout of a sub-package): names the pattern finds go by that rule."""
        helpers = set(helpers)
        for _, sub in self.parts:
            if not sub.package.startswith(package + "."):
                raise ValueError(f"{package}: part {sub.package!r} is not a sub-package")
            rel = sub.package[len(package) + 1:]
            helpers |= {f"{rel}.{h}" for h in sub.helpers}
        self.helpers = frozenset(helpers)
        family: dict[str, str] = {}
        for fam, members in self.families.items():
            for m in members:
                if family.setdefault(m, fam) != fam:
                    raise ValueError(f"{package}: {m!r} is listed in two families, "
                                     f"{family[m]!r} and {fam!r}")
        self._family = family
        self._exists: dict[str, bool] = {}

    def base(self, name: str) -> str:
        """``name`` less one grad suffix, then less one variant suffix."""
        for pattern, sub in self.parts:
            if pattern.search(name):
                return sub.base(name)
        name = _less_grad(name)
        for s in self.variants:
            if name.endswith(s) and len(name) > len(s):
                return name[: -len(s)]
        return name

    def module_name(self, name: str) -> str:
        """The module (relative to the package, dotted for a sub-package) the rule names."""
        for pattern, sub in self.parts:
            if pattern.search(name):
                return f"{sub.package[len(self.package) + 1:]}.{sub.module_name(name)}"
        fam = self._family.get(name)
        if fam is not None:
            return fam
        fam = self._family.get(_less_grad(name))
        if fam is not None:
            return fam
        base = self.base(name)
        return self._family.get(base, base)

    def module_of(self, name: str) -> str:
        """The module's full dotted name."""
        return f"{self.package}.{self.module_name(name)}"

    def find(self, name: str) -> str | None:
        """The module the rule names for ``name`` when that module exists, else None."""
        module = self.module_of(name)
        found = self._exists.get(module)
        if found is None:
            try:
                found = importlib.util.find_spec(module) is not None
            except (ImportError, ValueError):
                found = False
            self._exists[module] = found
        return module if found else None

    def modules(self) -> tuple[str, ...]:
        """Every module of the package that holds pieces (sub-packages' modules included),
        sorted, helper modules left out."""
        root = importlib.import_module(self.package)
        found: list[str] = []

        def walk(path: str, prefix: str) -> None:
            for entry in sorted(os.listdir(path)):
                full = os.path.join(path, entry)
                if entry.startswith(("_", ".")):
                    continue
                if os.path.isdir(full):
                    if os.path.exists(os.path.join(full, "__init__.py")) and \
                            prefix + entry not in self.helpers:
                        walk(full, f"{prefix}{entry}.")
                elif entry.endswith(".py"):
                    rel = prefix + entry[:-3]
                    if rel not in self.helpers:
                        found.append(rel)

        for path in root.__path__:
            walk(path, "")
        return tuple(f"{self.package}.{m}" for m in found)

    def owns(self, module: str) -> bool:
        """Whether ``module`` is one of the package's piece modules (a built-in one)."""
        return module.startswith(self.package + ".")


class RuleIndex:
    """Loading by the rule (see the module's docstring).  ``layout`` is None until the package
    installs its rule: then nothing is loaded on demand and everything counts as registered
    by hand (a test's own registry)."""

    __slots__ = ("_done", "_tried", "layout", "lock")

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.layout: Layout | None = None
        self._tried: set[str] = set()  # names whose module is imported (or missing)
        self._done = False  # every module imported

    def set(self, layout: Layout) -> None:
        with self.lock:
            self.layout = layout
            self._tried.clear()
            self._done = False

    @property
    def active(self) -> bool:
        """Whether loading on demand is on (a layout is set)."""
        return self.layout is not None

    @property
    def done(self) -> bool:
        """Whether every module of the package is imported (or no rule is set)."""
        return self.layout is None or self._done

    def is_builtin(self, module: str) -> bool:
        """Whether ``module`` is one of the package's own piece modules."""
        return self.layout is not None and self.layout.owns(module)

    def pending(self, name: str) -> bool:
        """Whether a lookup of ``name`` would import something (cheap)."""
        return self.layout is not None and not self._done and name not in self._tried

    def import_for(self, name: str) -> None:
        """Import the module the rule names for ``name`` when it exists (the caller holds
        ``lock`` when it must; ``ensure`` does)."""
        layout = self.layout
        if layout is None or self._done or name in self._tried:
            return
        module = layout.find(name)
        if module is not None and not module_imported(module):
            importlib.import_module(module)
        self._tried.add(name)

    def ensure(self, name: str) -> None:
        """Import ``name``'s module unless done (cheap when it is)."""
        if not self.pending(name):
            return
        with self.lock:
            self.import_for(name)

    def import_all(self) -> None:
        """Import every module of the package not imported yet (cheap when done)."""
        if self.done:
            return
        with self.lock:
            if self._done or self.layout is None:
                return
            for m in self.layout.modules():
                importlib.import_module(m)
            self._done = True
