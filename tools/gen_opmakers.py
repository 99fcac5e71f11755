"""Generate opmakers/ops/<family>.py from Paddle 2.6.2's published op data (dev-only tool).

Inputs (in the corpus directory, by default ``<repo>/../shared/corpus``):
  op_protos.json       every legacy OpProto of Paddle 2.6.2 (``core.get_all_op_protos()``)
  op_extra_attrs.json  the runtime ("extra") attributes per op (``core.get_op_extra_attrs()``)

The manifest (which op goes into which family module, in which order) is read from the
existing modules (their ``@FAMILY.op("...")`` lines), so regenerating keeps every op.

  python tools/gen_opmakers.py                         regenerate every family module
  python tools/gen_opmakers.py add OP [OP...] --family F   add ops to family F, regenerate
  python tools/gen_opmakers.py --check                 exit 1 if a module is out of date

Paddle's OpProto records no checkers: the few we add are in CHECKERS below, each with the
reason.  The runtime attributes whose default is an empty list carry no element type in the
data; their types are in RUNTIME_LIST_TYPES (verified against the bytes of real OpDescs where
a corpus case has the op).  Comments are left out of the generated code (most are Paddle's
boilerplate, "(Tensor), input 0 of conv2d op.").
"""

from __future__ import annotations

import argparse
import ast
import json
import keyword
import math
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"
DEFAULT_OUT = REPO / "opmakers" / "ops"
LINE = 100

GENERATED_ATTR_NAMES = ("op_role", "op_role_var", "op_namescope", "op_callstack", "op_device",
                        "with_quant_attr")

#: (op, attr) -> (builder calls appended to the declaration, why)
CHECKERS: dict[tuple[str, str], tuple[str, str]] = {
    ("dropout", "dropout_prob"): (
        ".greater_equal(0.0).less_equal(1.0)",
        "DropoutOpMaker's checker: a probability",
    ),
    ("dropout", "dropout_implementation"): (
        '.in_set(["downgrade_in_infer", "upscale_in_train"])',
        "DropoutOpMaker's checker: the two modes the kernels implement",
    ),
    ("conv2d", "groups"): (
        ".greater_than(0)",
        "ConvInferMeta fails on groups <= 0 at run time; checked when the program loads",
    ),
    ("depthwise_conv2d", "groups"): (
        ".greater_than(0)",
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

FAMILY_DOC = {
    "activation": "activations",
    "creation": "tensor creation",
    "elementwise": "elementwise arithmetic and scale",
    "io": "feed and fetch",
    "logic": "comparison and logical ops",
    "math": "element-wise math",
    "search": "search and selection (where, arg_max, top_k, argsort)",
    "linalg": "matrix products",
    "manipulation": "shape, layout and dtype manipulation",
    "nn": "neural-network layers",
    "reduction": "reductions",
}


# ---------------------------------------------------------------------------------------------
# Rendering values
# ---------------------------------------------------------------------------------------------


def _float32_literal(value: float) -> str:
    if math.isinf(value) or math.isnan(value):
        return f'float("{value}")'
    text = str(np.float32(value))  # shortest text that rounds to the same float32
    if not re.search(r"[.e]", text):
        text += ".0"
    if np.float32(float(text)) != np.float32(value):
        raise AssertionError(f"float32 literal {text} does not round-trip {value!r}")
    return text


def _float64_literal(value: float) -> str:
    if math.isinf(value) or math.isnan(value):
        return f'float("{value}")'
    return repr(float(value))


def _scalar_literal(elem_type: str, value: Any) -> str:
    if elem_type == "STRING":
        return json.dumps(value)
    if elem_type == "BOOLEAN":
        return repr(bool(value))
    if elem_type in ("INT", "LONG"):
        return repr(int(value))
    if elem_type == "FLOAT":
        return _float32_literal(value)
    if elem_type in ("FLOAT64", "SCALAR"):
        return _float64_literal(value)
    raise ValueError(f"no literal for a {elem_type} value {value!r}")


_ELEM = {"INTS": "INT", "FLOATS": "FLOAT", "STRINGS": "STRING", "BOOLEANS": "BOOLEAN",
         "LONGS": "LONG", "FLOAT64S": "FLOAT64", "SCALARS": "SCALAR", "BLOCKS": "BLOCK",
         "VARS": "VAR"}


def _literal(attr_type: str, value: Any) -> str:
    if attr_type in _ELEM:
        return "[" + ", ".join(_scalar_literal(_ELEM[attr_type], v) for v in value) + "]"
    return _scalar_literal(attr_type, value)


# ---------------------------------------------------------------------------------------------
# Rendering op definitions
# ---------------------------------------------------------------------------------------------


def _function_name(op_type: str) -> str:
    name = re.sub(r"\W", "_", op_type)
    if not name.isidentifier() or keyword.iskeyword(name) or name in ("FAMILY", "AttrType",
                                                                       "OpFamily", "OpMaker"):
        name = f"op_{name}"
    return name


def _call(head: str, args: list[str], tail: str) -> list[str]:
    """``head(args)tail`` on one line, or wrapped after the first argument."""
    line = f"    {head}({', '.join(args)}){tail}"
    if len(line) <= LINE:
        return [line]
    call = f"    ({head}({', '.join(args)})"
    if tail and len(call) <= LINE and len(tail) + 6 <= LINE:
        return [call, f"     {tail})"]
    indent = " " * (len(head) + 5)
    lines = [f"    {head}({args[0]},"]
    for arg in args[1:-1]:
        lines.append(f"{indent}{arg},")
    lines.append(f"{indent}{args[-1]}){tail}")
    return lines


_VAR_MARKS = (("duplicable", "as_duplicable"), ("dispensable", "as_dispensable"),
              ("intermediate", "as_intermediate"), ("extra", "as_extra"), ("quant", "as_quant"))
_ATTR_MARKS = (("extra", "as_extra"), ("quant", "as_quant"), ("generated", "as_generated"),
               ("support_tensor", "support_tensor"))


def render_op(op_type: str, proto: dict[str, Any], runtime: dict[str, Any]) -> str:
    """The DSL definition of one op."""
    body: list[str] = []
    for kind, slots in (("input", proto["inputs"]), ("output", proto["outputs"])):
        for var in slots:
            marks = "".join(f".{m}()" for key, m in _VAR_MARKS if var[key])
            body.append(f"    m.add_{kind}({json.dumps(var['name'])}){marks}")
    own = [a for a in proto["attrs"] if a["name"] not in GENERATED_ATTR_NAMES]
    tail_names = [a["name"] for a in proto["attrs"][len(own):]]
    if tail_names != list(GENERATED_ATTR_NAMES):
        raise ValueError(f"{op_type}: generated attributes not last, in Paddle's order")
    for attr in own:
        args = [json.dumps(attr["name"]), f"AttrType.{attr['type']}"]
        if attr["default"] is not None:
            args.append(f"default={_literal(attr['type'], attr['default'])}")
        tail = "".join(f".{m}()" for key, m in _ATTR_MARKS if attr[key])
        checker = CHECKERS.get((op_type, attr["name"]))
        if checker is not None:
            body.append(f"    # {checker[1]}")
            tail += checker[0]
        body.extend(_call("m.add_attr", args, tail))
    for name, spec in runtime.items():
        attr_type = spec["type"]
        if attr_type.startswith("LIST"):
            attr_type = RUNTIME_LIST_TYPES.get((op_type, name), "")
            if not attr_type:
                raise ValueError(f"{op_type}.{name}: empty-list runtime attribute of unknown "
                                 "element type; add it to RUNTIME_LIST_TYPES")
        args = [json.dumps(name), f"AttrType.{attr_type}",
                f"default={_literal(attr_type, spec['default'])}"]
        body.extend(_call("m.add_runtime_attr", args, ""))
    if not body:
        body.append("    del m  # no slots and no attributes of its own")
    head = [f"@FAMILY.op({json.dumps(op_type)})",
            f"def {_function_name(op_type)}(m: OpMaker) -> None:"]
    return "\n".join(head + body) + "\n"


def render_family(family: str, op_types: list[str], protos: dict[str, Any],
                  extras: dict[str, Any]) -> str:
    what = FAMILY_DOC.get(family, family)
    doc = (f'"""Legacy op definitions: {what}.\n\n'
           "Generated by tools/gen_opmakers.py from Paddle 2.6.2's published op data (the\n"
           "OpProtos of ``core.get_all_op_protos()`` and the runtime attributes of\n"
           "``core.get_op_extra_attrs()``); regenerate rather than edit.  Add an op with\n"
           f"``python tools/gen_opmakers.py add OP --family {family}``.\n"
           '"""\n')
    parts = [doc, "from __future__ import annotations\n",
             "from opmakers.maker import AttrType, OpFamily, OpMaker\n",
             f"FAMILY = OpFamily({json.dumps(family)})\n"]
    uses_attr_type = False
    for op_type in op_types:
        if op_type not in protos:
            raise SystemExit(f"error: {op_type!r} is not in op_protos.json")
        text = render_op(op_type, protos[op_type], extras.get(op_type, {}))
        uses_attr_type |= "AttrType." in text
        parts.append("\n\n" + text)
    source = "\n".join(parts[:4]) + "".join(parts[4:])
    if not uses_attr_type:
        source = source.replace("import AttrType, OpFamily", "import OpFamily")
    return source


def render_init(families: list[str]) -> str:
    imports = ", ".join(families)
    if len(f"from opmakers.ops import {imports}") > LINE:
        imports = "(\n" + "".join(f"    {f},\n" for f in families) + ")"
    members = "".join(f"    {f}.FAMILY,\n" for f in families)
    return ('"""The families of legacy op definitions: the registry reads exactly these.\n\n'
            "Generated by tools/gen_opmakers.py (one module per family).\n"
            '"""\n\n'
            "from __future__ import annotations\n\n"
            "from opmakers.maker import OpFamily\n"
            f"from opmakers.ops import {imports}\n\n"
            f"FAMILIES: tuple[OpFamily, ...] = (\n{members})\n")


# ---------------------------------------------------------------------------------------------
# Manifest and driver
# ---------------------------------------------------------------------------------------------


def read_manifest(out_dir: Path) -> dict[str, list[str]]:
    """family -> op types, from the ``@FAMILY.op("...")`` decorators of the existing modules."""
    manifest: dict[str, list[str]] = {}
    for path in sorted(out_dir.glob("*.py")):
        if path.name == "__init__.py":
            continue
        ops: list[str] = []
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef):
                for deco in node.decorator_list:
                    if (isinstance(deco, ast.Call) and isinstance(deco.func, ast.Attribute)
                            and deco.func.attr == "op" and deco.args
                            and isinstance(deco.args[0], ast.Constant)):
                        ops.append(deco.args[0].value)
        manifest[path.stem] = ops
    return manifest


def render_all(manifest: dict[str, list[str]], corpus: Path) -> dict[str, str]:
    """file name -> source for every family module and ``__init__.py``."""
    protos = json.loads((corpus / "op_protos.json").read_text())["ops"]
    extras = json.loads((corpus / "op_extra_attrs.json").read_text())["ops"]
    seen: dict[str, str] = {}
    for family, ops in manifest.items():
        for op in ops:
            if op in seen:
                raise SystemExit(f"error: {op} is in families {seen[op]} and {family}")
            seen[op] = family
    files = {f"{family}.py": render_family(family, ops, protos, extras)
             for family, ops in sorted(manifest.items()) if ops}
    files["__init__.py"] = render_init(sorted(f[:-3] for f in files))
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", nargs="?", default="regen", choices=("regen", "add"))
    parser.add_argument("ops", nargs="*", help="op types to add (with `add`)")
    parser.add_argument("--family", help="family module of the added ops (with `add`)")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if a module differs from what would be written")
    args = parser.parse_args(argv)

    manifest = read_manifest(args.out) if args.out.is_dir() else {}
    if args.command == "add":
        if not args.ops or not args.family or not args.family.isidentifier():
            parser.error("add needs op types and --family NAME (a Python identifier)")
        present = {op for ops in manifest.values() for op in ops}
        manifest.setdefault(args.family, []).extend(op for op in args.ops if op not in present)
    files = render_all(manifest, args.corpus)

    stale = [name for name, text in files.items()
             if not (args.out / name).is_file() or (args.out / name).read_text() != text]
    if args.check:
        for name in stale:
            print(f"out of date: {args.out / name}")
        return 1 if stale else 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name in stale:
        (args.out / name).write_text(files[name])
        print(f"wrote {args.out / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
