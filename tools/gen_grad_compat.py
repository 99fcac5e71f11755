"""Add the declared mappings of grad ops that Paddle was seen to run (dev-only tool).

Reads the kernel traces of the Paddle-made grad cases (tests/fixtures/grad_ops/*.json: the
KernelSignature Paddle 2.6.2 printed for each grad op it ran) and appends to
argmap/grad_compat.yaml an entry for every grad op type that has none yet.  Entries already in
the file are kept as they are (hand edits win); the tests compare every case's signature with
ours anyway.  A signature Paddle printed with a tensor's name in an attribute position (``Axis``
for gather_grad) is written with the attribute's name and the forward op's ``scalar`` /
``int_array`` source, so one entry covers both forms.  An empty signature is a STRUCTURE
kernel (a fluid kernel in phi's table): such grad ops run fluid kernels and get no entry.
Grad ops seen with two different kernels (``repeat_interleave_grad``) need a mapping function
and are listed, not written.

    python tools/gen_grad_compat.py
"""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import opmakers  # noqa: E402
from argmap.compat import CompatEntry, dump_compat, load_compat, parse_compat  # noqa: E402

CASES = REPO / "tests" / "fixtures" / "grad_ops"
OUT = REPO / "argmap" / "grad_compat.yaml"
HEADER = """\
# Declared argument mappings of grad ops (schema: argmap/compat.py, as op_compat.yaml).
#
# Where the facts come from: the KernelSignature Paddle 2.6.2 printed for each grad op of the
# Paddle-made grad cases (tests/fixtures/grad_ops, made by tools/fixtures/gen_grad_ops.py);
# new entries are appended by tools/gen_grad_compat.py, hand edits are kept.  Names are the
# legacy slot names (X, Out@GRAD, X@GRAD) in the phi grad kernel's argument order.
"""


def _observed() -> dict[str, list[tuple[dict, str]]]:
    seen = collections.defaultdict(list)
    for path in sorted(CASES.glob("*__grad.json")):
        case = json.loads(path.read_text())
        kt = case.get("kernel_trace") or {}
        sig = kt.get("kernel_signature")
        structure = sig and not (sig["inputs"] or sig["attributes"] or sig["outputs"])
        if kt.get("run_phi_kernel") and sig and sig.get("name") and not structure:
            seen[case["op_type"]].append((sig, case["grad_maker"]["forward"]["type"]))
    return seen


def _tensor_attrs(forward: CompatEntry | None) -> dict[str, tuple[str, str, dict]]:
    """tensor name -> (attribute, kind, spec) of the forward op's declared tensor attributes"""
    out = {}
    if forward is None:
        return out
    for kind in ("int_array", "scalar"):
        for attr, spec in (forward.to_dict().get(kind) or {}).items():
            for key in ("tensor_name", "tensors_name"):
                if spec.get(key):
                    out[spec[key]] = (attr, kind, spec)
    return out


def main() -> int:
    forward_entries = {e.op: e for e in load_compat()}
    existing = parse_compat(OUT.read_text(), str(OUT)) if OUT.exists() else ()
    have = {e.op for e in existing}
    new, irregular = [], {}
    for op_type, seen in sorted(_observed().items()):
        if op_type in have or opmakers.has_op(op_type):  # a forward op (assign) maps as such
            continue
        names = {s["name"] for s, _ in seen}
        if len(names) > 1:
            irregular[op_type] = sorted(names)
            continue
        sig, fwd_type = seen[0]
        tensors = _tensor_attrs(forward_entries.get(fwd_type))
        attrs, specs = [], collections.defaultdict(dict)
        for a in sig["attributes"]:
            if a in tensors:
                attr, kind, spec = tensors[a]
                attrs.append(attr)
                specs[kind][attr] = spec
            else:
                attrs.append(a)
        for s, _ in seen:  # attributes whose tensor form is the only one seen elsewhere
            for a in s["attributes"]:
                if a in tensors:
                    attr, kind, spec = tensors[a]
                    specs[kind][attr] = spec
        for attr in attrs:  # forward tensor sources of the same attribute, never seen here
            for kind in ("int_array", "scalar"):
                fwd = forward_entries.get(fwd_type)
                spec = (fwd.to_dict().get(kind) or {}).get(attr) if fwd else None
                if spec:
                    specs[kind][attr] = spec
        item = {"op": op_type, "kernel": sig["name"], "inputs": sig["inputs"],
                "attrs": attrs, "outputs": sig["outputs"], **dict(specs)}
        new.extend(parse_compat(dump_compat_items([item]), "generated"))
    text = (OUT.read_text() if OUT.exists() else HEADER)
    if new:
        text = text.rstrip("\n") + "\n\n" + dump_compat(new)
    OUT.write_text(text)
    print(f"{len(new)} entries added ({len(have)} kept) -> {OUT}")
    if irregular:
        print("need a mapping function (several kernels seen):")
        for op_type, names in irregular.items():
            print(f"  {op_type}: {', '.join(names)}")
    return 0


def dump_compat_items(items: list[dict]) -> str:
    import yaml

    return "\n".join(yaml.safe_dump([i], sort_keys=False, default_flow_style=None, width=100)
                     for i in items)


if __name__ == "__main__":
    sys.exit(main())
