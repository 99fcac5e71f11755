"""Print the table of how each op's expected kernel type is decided (docs/dispatch.md).

    .venv/bin/python tools/expected_kernel_table.py

Ops without a hook use Paddle's default IndicateDataType (the first initialized input
tensor's dtype); the rest read one named input tensor, promote two, read an attribute, or
run a function of their own (named after the op).
"""

from __future__ import annotations

from collections import defaultdict

import fluid_compat.operators.ops  # noqa: F401 - the rows of op_hooks.yaml
from fluid_compat.framework.op_registry import declare_lazy_hooks, declared_hooks
from fluid_compat.operators.fluid_kernels.registry import load_all_fluid_kernels


def main() -> None:
    load_all_fluid_kernels()  # the hooks that are code, in the ops' fluid_kernels modules
    declare_lazy_hooks()  # and the grad ops' rows, declared on first use
    groups: dict[str, list[str]] = defaultdict(list)
    for op, hooks in sorted(declared_hooks().items()):
        fn = hooks.get_expected_kernel_type
        if fn is not None:
            groups[getattr(fn, "__name__", "?")].append(op)
    print("| rule (hook) | dtype from | ops |")
    print("|---|---|---|")
    for name, ops in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        if name.startswith("expected_from_attr_"):
            source = f"attribute `{name.removeprefix('expected_from_attr_')}`"
        elif name.startswith("expected_promote_"):
            a, b = name.removeprefix("expected_promote_").split("_", 1)
            source = f"input tensors `{a}`, `{b}` (complex promotion)"
        elif name.startswith(("expected_from_", "expected_onednn_")):
            source = f"input tensor `{name.rsplit('_', 1)[1]}`"
        else:
            source = "own function (see its docstring)"
        print(f"| `{name}` | {source} | {', '.join(ops)} |")


if __name__ == "__main__":
    main()
