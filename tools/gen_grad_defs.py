"""Generate opmakers/grad_defs.json from what Paddle's GradOpMakers emitted (dev-only tool).

Input: tests/fixtures/grad/grad_makers.json, written by tools/fixtures/gen_grad_makers.py with
Paddle 2.6.2 (each legacy op's OpDesc with every slot filled, and the grad OpDescs
``core.get_grad_op_desc`` returned).  Output: one declarative GradOpMaker per op, the data
`opmakers.grad` builds grad op descriptions from:

    {"relu": [{"type": "relu_grad",
               "inputs": {"Out": "Out", "Out@GRAD": "Out@GRAD"},
               "outputs": {"X@GRAD": "X@GRAD"},
               "keep_empty": [],            # grad output slots that keep @EMPTY@ placeholders
               "attrs": "all",              # "all": the forward op's attributes; "only": none
               "drop": [], "set": {}, "copy": {}}], ...}

A source such as ``"Out@GRAD"`` names the forward slot ``Out`` with the gradient suffix on each
of its variables; a plain ``"Out"`` takes the forward slot's variables as they are.  Double
grad makers are keyed by the grad op type (``relu_grad``) and refer to its slots the same way
(``"X@GRAD@GRAD"``).  Makers whose slots depend on a bool attribute (batch_norm's is_test,
sequence_conv's paddingTrainable) have ``variants``: the makers used when the attribute has the
other value.  Makers Paddle could not be asked with default attributes come from the grad
cases' real OpDescs (tests/fixtures/grad_ops).  Makers that cannot be written this way are left
out and listed.

    python tools/gen_grad_defs.py [--check]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "tests" / "fixtures" / "grad" / "grad_makers.json"
CASES = REPO / "tests" / "fixtures" / "grad_ops"
OUT = REPO / "opmakers" / "grad_defs.json"

#: attributes every OpDesc made by Python carries (Paddle's "generated" attributes)
GENERATED = {"op_role", "op_role_var", "op_namescope", "op_callstack", "op_device",
             "with_quant_attr"}


def _source(names: list[str], fwd: dict[str, list[str]]) -> str | None:
    for slot, vs in fwd.items():
        if names == vs:
            return slot
        if names == [v + "@GRAD" for v in vs]:
            return slot + "@GRAD"
    return None


def _maker(g: dict, g_no_grad: dict, fwd: dict[str, list[str]],
           fwd_attrs: dict) -> dict | None:
    spec: dict = {"type": g["type"], "inputs": {}, "outputs": {}, "keep_empty": []}
    for slot, names in g["inputs"].items():
        src = _source(names, fwd)
        if src is None:
            return None
        spec["inputs"][slot] = src
    for slot, names in g["outputs"].items():
        src = _source(names, fwd)
        if src is None:
            return None
        spec["outputs"][slot] = src
        if names and g_no_grad["outputs"].get(slot) and all(
                n == "@EMPTY@" for n in g_no_grad["outputs"][slot]):
            spec["keep_empty"].append(slot)
    dropped = set(g["attrs_dropped"])
    if dropped >= GENERATED:  # the maker sets its own attributes only
        spec["attrs"] = "only"
        spec["drop"] = []
    else:
        spec["attrs"] = "all"
        spec["drop"] = sorted(dropped)
    spec["set"], spec["copy"] = {}, {}
    for name, value in g["attrs_changed"].items():
        others = [k for k, v in fwd_attrs.items() if k != name and v == value
                  and isinstance(v, int) and not isinstance(v, bool) and v >= 5]
        if len(others) == 1:  # a distinct dummy value moved from another attribute
            spec["copy"][name] = others[0]
        else:
            spec["set"][name] = value
    if spec["attrs"] == "only":
        for name in g["attr_names"]:
            if name not in spec["set"] and name not in spec["copy"]:
                spec["copy"][name] = name
    return spec


def _variants(rec: dict, fwd: dict, fwd_attrs: dict) -> list[dict]:
    out = []
    for attr, var in sorted(rec.get("bool_variants", {}).items()):
        specs = [_maker(g, {"outputs": {}}, fwd, fwd_attrs) for g in var["grad_ops"]]
        if all(specs):
            out.append({"attr": attr, "value": var["value"], "makers": specs})
    return out


def _from_cases(makers: dict, skipped: dict) -> None:
    """Makers Paddle could not be asked with default attributes, from the grad cases' real
    forward OpDescs (their attributes are copied: ``attrs: all``)."""
    for path in sorted(CASES.glob("*__grad.json")):
        rec = json.loads(path.read_text())["grad_maker"]
        op_type = rec["forward"]["type"]
        if op_type in makers:
            continue
        fwd = {**rec["forward"]["inputs"], **rec["forward"]["outputs"]}
        specs = []
        for g in rec["grad_ops"]:
            g = dict(g, attr_names=g["attrs"], attrs_changed={}, attrs_dropped=[])
            spec = _maker(g, {"outputs": {}}, fwd, {})
            if spec is None:
                break
            specs.append(spec)
        else:
            makers[op_type] = specs
            skipped.pop(op_type, None)


def build(src: dict) -> tuple[dict, dict, dict]:
    makers, skipped, variants = {}, {}, {}
    for op_type, rec in sorted(src["ops"].items()):
        if rec.get("empty"):
            makers[op_type] = []
            continue
        fwd = {**rec["forward"]["inputs"], **rec["forward"]["outputs"]}
        fwd_attrs = rec["forward"]["attrs"]
        specs = []
        for g, gn in zip(rec["grad_ops"], rec["grad_ops_all_inputs_no_grad"], strict=False):
            spec = _maker(g, gn, fwd, fwd_attrs)
            if spec is None:
                skipped[op_type] = "a grad slot takes variables no forward slot names"
                break
            specs.append(spec)
        else:
            makers[op_type] = specs
            if _variants(rec, fwd, fwd_attrs):
                variants[op_type] = _variants(rec, fwd, fwd_attrs)
        for g_type, doubles in rec.get("double_grad_ops", {}).items():
            if not isinstance(doubles, list) or g_type in makers:
                continue
            g_rec = next(g for g in rec["grad_ops"] if g["type"] == g_type)
            g_slots = {**g_rec["inputs"], **g_rec["outputs"]}
            specs = [_maker(d, {"outputs": {}}, g_slots, {}) for d in doubles]
            if all(specs):
                makers[g_type] = specs
            else:
                skipped[g_type] = "a double grad slot takes variables no grad slot names"
    _from_cases(makers, skipped)
    return makers, skipped, variants


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="exit 1 if the file is out of date")
    args = ap.parse_args(argv)
    src = json.loads(SRC.read_text())
    makers, skipped, variants = build(src)
    out = {
        "paddle_version": src["paddle_version"],
        "generator": "tools/gen_grad_defs.py from tests/fixtures/grad/grad_makers.json",
        "makers": makers,
        "variants": variants,
        "not_declarative": skipped,
    }
    text = json.dumps(out, indent=None, sort_keys=True, separators=(",", ":"))
    text = text.replace('],"', '],\n"').replace('},"', '},\n"') + "\n"
    if args.check:
        same = OUT.exists() and OUT.read_text() == text
        print("up to date" if same else f"{OUT} is out of date")
        return 0 if same else 1
    OUT.write_text(text)
    print(f"{len(makers)} makers, {len(skipped)} not declarative -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
