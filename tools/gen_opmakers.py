"""Generate opmakers/op_defs.json from Paddle 2.6.2's published op data (dev-only tool).

Inputs (in the corpus directory, by default ``<repo>/../shared/corpus``):
  op_protos.json       every legacy OpProto of Paddle 2.6.2 (``core.get_all_op_protos()``)
  op_extra_attrs.json  the runtime ("extra") attributes per op (``core.get_op_extra_attrs()``)
  cpu_ops.json         the family label of each op Paddle's CPU build runs

The output holds every op (784): one JSON object per line, read lazily by
``opmakers.registry`` and declared through the OpMaker DSL (``opmakers/data.py``), so the
checks of the DSL (types of defaults, checkers, clashes) apply to data as they did to code.
The family of an op already in the file is kept (tests name some), new ops get theirs from
cpu_ops.json's group.

  python tools/gen_opmakers.py            regenerate opmakers/op_defs.json
  python tools/gen_opmakers.py --check    exit 1 if the file is out of date

Paddle's OpProto records no checkers: the few we add are in CHECKERS below, each with the
reason.  The runtime attributes whose default is an empty list carry no element type in the
data; their types are in RUNTIME_LIST_TYPES (verified against the bytes of real OpDescs where
a corpus case has the op).  Comments are left out of the generated code (most are Paddle's
boilerplate, "(Tensor), input 0 of conv2d op.").
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"
DEFAULT_OUT = REPO / "opmakers" / "op_defs.json"

GENERATED_ATTR_NAMES = ("op_role", "op_role_var", "op_namescope", "op_callstack", "op_device",
                        "with_quant_attr")

#: (op, attr) -> (checker calls of the DSL's AttrBuilder as [method, argument] pairs, why)
CHECKERS: dict[tuple[str, str], tuple[list, str]] = {
    ("dropout", "dropout_prob"): (
        [["greater_equal", 0.0], ["less_equal", 1.0]],
        "DropoutOpMaker's checker: a probability",
    ),
    ("dropout", "dropout_implementation"): (
        [["in_set", ["downgrade_in_infer", "upscale_in_train"]]],
        "DropoutOpMaker's checker: the two modes the kernels implement",
    ),
    ("conv2d", "groups"): (
        [["greater_than", 0]],
        "ConvInferMeta fails on groups <= 0 at run time; checked when the program loads",
    ),
    ("depthwise_conv2d", "groups"): (
        [["greater_than", 0]],
        "ConvInferMeta fails on groups <= 0 at run time; checked when the program loads",
    ),
}

#: (op, runtime attr) -> type, for runtime attributes whose default is an empty list
RUNTIME_LIST_TYPES: dict[tuple[str, str], str] = {
    ("conditional_block", "skip_eager_deletion_vars"): "STRINGS",
    ("pylayer", "skip_eager_deletion_vars"): "STRINGS",
    ("while", "skip_eager_deletion_vars"): "STRINGS",
    ("distributed_push_sparse", "slots"): "INTS",
    ("lookup_table_v2", "epmap"): "STRINGS",  # verified: lookup_table_v2_pad bytes
    ("lookup_table_v2", "height_sections"): "LONGS",  # verified
    ("lookup_table_v2", "table_names"): "STRINGS",  # verified
    ("nce", "custom_neg_classes"): "INTS",
    ("nce", "epmap"): "STRINGS",
    ("nce", "height_sections"): "LONGS",
    ("nce", "table_names"): "STRINGS",
}

#: cpu_ops.json group -> family of the ops that do not have one yet
GROUP_FAMILY = {
    "dense math / nn / manipulation": "dense",
    "fused / fusion (inference passes)": "fused",
    "quantization": "quantization",
    "sequence / LoD": "sequence",
    "detection": "detection",
    "io / random / control": "io",
    "optimizer": "optimizer",
    "communication (needs a process group)": "communication",
}


# ---------------------------------------------------------------------------------------------
# Values and op entries
# ---------------------------------------------------------------------------------------------


def _float32_value(value: float) -> float | str:
    """The shortest decimal that rounds to the same float32 (what a C++ float default holds)."""
    if math.isinf(value) or math.isnan(value):
        return str(value)  # "inf", "-inf", "nan": JSON has no literal for them
    text = str(np.float32(value))
    if np.float32(float(text)) != np.float32(value):
        raise AssertionError(f"float32 text {text} does not round-trip {value!r}")
    return float(text)


_ELEM = {"INTS": "INT", "FLOATS": "FLOAT", "STRINGS": "STRING", "BOOLEANS": "BOOLEAN",
         "LONGS": "LONG", "FLOAT64S": "FLOAT64", "SCALARS": "SCALAR", "BLOCKS": "BLOCK",
         "VARS": "VAR"}


def _value(attr_type: str, value: Any) -> Any:
    elem = _ELEM.get(attr_type)
    if elem is not None:
        return [_value(elem, v) for v in value]
    if attr_type == "FLOAT":
        return _float32_value(value)
    if attr_type in ("FLOAT64", "SCALAR") and (math.isinf(value) or math.isnan(value)):
        return str(value)
    return value


_VAR_MARKS = ("duplicable", "dispensable", "intermediate", "extra", "quant")
_ATTR_MARKS = ("extra", "quant", "generated", "support_tensor")


def op_entry(op_type: str, proto: dict[str, Any], runtime: dict[str, Any],
             family: str) -> dict[str, Any]:
    """The data of one op: slots with their marks, attributes, runtime attributes."""
    entry: dict[str, Any] = {"family": family}
    for kind in ("inputs", "outputs"):
        entry[kind] = [[var["name"], *[m for m in _VAR_MARKS if var[m]]]
                       for var in proto[kind]]
    own = [a for a in proto["attrs"] if a["name"] not in GENERATED_ATTR_NAMES]
    tail_names = [a["name"] for a in proto["attrs"][len(own):]]
    if tail_names != list(GENERATED_ATTR_NAMES):
        raise ValueError(f"{op_type}: generated attributes not last, in Paddle's order")
    attrs = []
    for attr in own:
        item: dict[str, Any] = {"name": attr["name"], "type": attr["type"]}
        if attr["default"] is not None:
            item["default"] = _value(attr["type"], attr["default"])
        marks = [m for m in _ATTR_MARKS if attr[m]]
        if marks:
            item["marks"] = marks
        checker = CHECKERS.get((op_type, attr["name"]))
        if checker is not None:
            item["checks"] = checker[0]
        attrs.append(item)
    entry["attrs"] = attrs
    extra = []
    for name, spec in runtime.items():
        attr_type = spec["type"]
        if attr_type.startswith("LIST"):
            attr_type = RUNTIME_LIST_TYPES.get((op_type, name), "")
            if not attr_type:
                raise ValueError(f"{op_type}.{name}: empty-list runtime attribute of unknown "
                                 "element type; add it to RUNTIME_LIST_TYPES")
        extra.append({"name": name, "type": attr_type,
                      "default": _value(attr_type, spec["default"])})
    if extra:
        entry["runtime_attrs"] = extra
    return entry


def render(corpus: Path, previous: dict[str, Any] | None = None) -> str:
    """The text of op_defs.json: a header, then one op per line (sorted), diff-friendly."""
    protos = json.loads((corpus / "op_protos.json").read_text())["ops"]
    extras = json.loads((corpus / "op_extra_attrs.json").read_text())["ops"]
    groups = json.loads((corpus / "cpu_ops.json").read_text())["ops"]
    kept = {op: e["family"] for op, e in (previous or {}).items()}
    lines = []
    for op_type in sorted(protos):
        family = kept.get(op_type) or GROUP_FAMILY.get(
            (groups.get(op_type) or {}).get("group"), "other")
        entry = op_entry(op_type, protos[op_type], extras.get(op_type, {}), family)
        lines.append(f"{json.dumps(op_type)}: {json.dumps(entry, separators=(',', ':'))}")
    header = ('{"paddle_version": "2.6.2",\n'
              ' "source": "tools/gen_opmakers.py from core.get_all_op_protos() and '
              'core.get_op_extra_attrs(); regenerate rather than edit",\n'
              ' "ops": {\n')
    return header + ",\n".join(lines) + "\n}}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if the file differs from what would be written")
    args = parser.parse_args(argv)
    previous = json.loads(args.out.read_text())["ops"] if args.out.is_file() else None
    text = render(args.corpus, previous)
    stale = not args.out.is_file() or args.out.read_text() != text
    if args.check:
        if stale:
            print(f"out of date: {args.out}")
        return 1 if stale else 0
    if stale:
        args.out.write_text(text)
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
