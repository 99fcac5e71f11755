"""Load ``ops.yaml`` into frozen OpSpec records (Paddle's api_gen input, read by Python).

Every record remembers the file and line it came from; unknown keys are rejected with that
location; :meth:`OpSpec.to_yaml_dict` writes a record back in the form it was read from, so a
load -> dump -> load round trip is the identity (tested).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import attrs
import yaml

from phi.core.errors import InvalidArgument

__all__ = [
    "DEFAULT_OPS_YAML",
    "STATIC_OPS_YAML",
    "ArgSpec",
    "InferMetaSpec",
    "KernelSpec",
    "OpSpec",
    "OutputSpec",
    "load_ops_yaml",
]

DEFAULT_OPS_YAML = Path(__file__).with_name("ops.yaml")
STATIC_OPS_YAML = Path(__file__).with_name("static_ops.yaml")
"""Kernels that legacy ops reach but that have no eager API function (Paddle's static_ops.yaml):
same format; only their InferMeta binding is used."""

ARG_TYPES = (
    "Tensor", "Tensor[]", "Scalar", "IntArray", "int", "int64_t", "float", "double", "bool",
    "str", "DataType", "DataLayout", "Place", "int[]", "int64_t[]", "float[]", "double[]",
    "bool[]", "str[]", "Scalar[]",
)
_NO_DEFAULT = None


@attrs.frozen
class ArgSpec:
    name: str
    type: str
    default: str | None = None  # the default as written in the YAML (None: required)

    @property
    def is_tensor(self) -> bool:
        return self.type in ("Tensor", "Tensor[]")

    def __str__(self) -> str:
        return f"{self.type} {self.name}" + ("" if self.default is None else f"={self.default}")


@attrs.frozen
class OutputSpec:
    name: str
    type: str  # "Tensor" or "Tensor[]"
    count: str | None = None  # for Tensor[]: an expression such as "sections.size()"

    def __str__(self) -> str:
        if self.type == "Tensor[]":
            return f"Tensor[]({self.name}){{{self.count}}}" if self.count else (
                f"Tensor[]({self.name})")
        return f"Tensor({self.name})"


@attrs.frozen
class InferMetaSpec:
    func: str
    param: tuple[str, ...] | None = None


@attrs.frozen
class KernelSpec:
    func: str
    param: tuple[str, ...] | None = None
    data_type: str | None = None
    backend: str | None = None
    layout: str | None = None


@attrs.frozen
class OpSpec:
    name: str
    args: tuple[ArgSpec, ...]
    outputs: tuple[OutputSpec, ...]
    infer_meta: InferMetaSpec
    kernel: KernelSpec
    optional: tuple[str, ...] = ()
    inplace: tuple[tuple[str, str], ...] = ()
    skip_transform: tuple[str, ...] = ()
    support_trans_dtype: tuple[str, ...] = ()
    intermediate: tuple[str, ...] = ()
    source: str = attrs.field(default="", eq=False)  # "file:line"

    def arg(self, name: str) -> ArgSpec:
        for a in self.args:
            if a.name == name:
                return a
        raise KeyError(name)

    def to_yaml_dict(self) -> dict:
        """This record in the form of its ops.yaml entry."""
        d: dict = {
            "op": self.name,
            "args": "(" + ", ".join(str(a) for a in self.args) + ")",
            "output": ", ".join(str(o) for o in self.outputs),
        }
        im: dict = {"func": self.infer_meta.func}
        if self.infer_meta.param is not None:
            im["param"] = list(self.infer_meta.param)
        d["infer_meta"] = im
        k: dict = {"func": self.kernel.func}
        for field in ("param", "data_type", "backend", "layout"):
            value = getattr(self.kernel, field)
            if value is not None:
                k[field] = list(value) if field == "param" else value
        d["kernel"] = k
        if self.optional:
            d["optional"] = ", ".join(self.optional)
        if self.inplace:
            d["inplace"] = ", ".join(f"({a} -> {b})" for a, b in self.inplace)
        dt: dict = {}
        if self.skip_transform:
            dt["skip_transform"] = list(self.skip_transform)
        if self.support_trans_dtype:
            dt["support_trans_dtype"] = list(self.support_trans_dtype)
        if dt:
            d["data_transform"] = dt
        if self.intermediate:
            d["intermediate"] = ", ".join(self.intermediate)
        return d


# -- parsing ----------------------------------------------------------------------------------

# libyaml's parser when PyYAML was built with it (about 9x faster on ops.yaml: cold start);
# the same marks and constructors either way
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _LineLoader(_SafeLoader):
    """A SafeLoader that records the line of every mapping under the key ``__line__``."""


def _construct_mapping(loader, node, deep=False):
    mapping = _SafeLoader.construct_mapping(loader, node, deep=deep)
    mapping["__line__"] = node.start_mark.line + 1
    return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)

_TOP_KEYS = {"op", "args", "output", "infer_meta", "kernel", "optional", "inplace",
             "data_transform", "intermediate"}
_SUB_KEYS = {
    "infer_meta": {"func", "param"},
    "kernel": {"func", "param", "data_type", "backend", "layout"},
    "data_transform": {"skip_transform", "support_trans_dtype"},
}
_ARG_RE = re.compile(r"^\s*([A-Za-z_][\w:]*(?:\[\])?)\s+([A-Za-z_]\w*)\s*(?:=\s*(.+?))?\s*$")
_OUT_RE = re.compile(r"^\s*(Tensor(?:\[\])?)\s*\(\s*([A-Za-z_]\w*)\s*\)\s*(?:\{\s*(.+?)\s*\})?\s*$")
_INPLACE_RE = re.compile(r"\(\s*([A-Za-z_]\w*)\s*->\s*([A-Za-z_]\w*)\s*\)")


def infer_meta_function_name(name: str) -> str:
    """Paddle's CamelCase InferMeta name in the YAML -> the phi.infermeta function's name
    (Pool2DInferMeta -> pool2d_infer_meta, BatchNormInferInferMeta ->
    batch_norm_infer_infer_meta)."""
    name = re.sub(r"(\d)D(?=[A-Z]|$)", r"\1d", name)  # 2D / 3D are one word
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def _split_top_level(text: str) -> list[str]:
    """Split on commas not inside (), {} or []."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur))
    return [p.strip() for p in parts]


def _names(value, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(v.strip() for v in value.split(",") if v.strip())
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise InvalidArgument(f"{where}: expected a list of names, got {value!r}.")


def _parse_entry(entry: Mapping, path: str) -> OpSpec:
    line = entry.get("__line__", "?")
    where = f"{path}:{line}"
    unknown = set(entry) - _TOP_KEYS - {"__line__"}
    if unknown:
        raise InvalidArgument(f"{where}: unknown key(s) {sorted(unknown)} in op entry; "
                              f"allowed: {sorted(_TOP_KEYS)}.")
    for key in ("op", "args", "output", "infer_meta", "kernel"):
        if key not in entry:
            raise InvalidArgument(f"{where}: op entry lacks the required key {key!r}.")
    name = entry["op"]
    where = f"{path}:{line} (op {name})"
    for sub, allowed in _SUB_KEYS.items():
        value = entry.get(sub)
        if value is None:
            continue
        if not isinstance(value, Mapping):
            raise InvalidArgument(f"{where}: {sub!r} must be a mapping.")
        bad = set(value) - allowed - {"__line__"}
        if bad:
            raise InvalidArgument(
                f"{path}:{value.get('__line__', line)} (op {name}): unknown key(s) "
                f"{sorted(bad)} under {sub!r}; allowed: {sorted(allowed)}."
            )
    args_text = str(entry["args"]).strip()
    if not (args_text.startswith("(") and args_text.endswith(")")):
        raise InvalidArgument(f"{where}: args must be written as (Type name, ...).")
    args = []
    for part in _split_top_level(args_text[1:-1]):
        m = _ARG_RE.match(part)
        if m is None or m.group(1) not in ARG_TYPES:
            raise InvalidArgument(f"{where}: cannot parse argument {part!r}; types are "
                                  f"{', '.join(ARG_TYPES)}.")
        args.append(ArgSpec(m.group(2), m.group(1), m.group(3)))
    arg_names = [a.name for a in args]
    if len(set(arg_names)) != len(arg_names):
        raise InvalidArgument(f"{where}: duplicate argument names in {arg_names}.")
    outputs = []
    for part in _split_top_level(str(entry["output"])):
        m = _OUT_RE.match(part)
        if m is None:
            raise InvalidArgument(f"{where}: cannot parse output {part!r}.")
        outputs.append(OutputSpec(m.group(2), m.group(1), m.group(3)))
    im = entry["infer_meta"]
    infer_meta = InferMetaSpec(
        im["func"], None if "param" not in im else _names(im["param"], where)
    )
    k = entry["kernel"]
    kernel = KernelSpec(
        k["func"],
        None if "param" not in k else _names(k["param"], where),
        k.get("data_type"),
        k.get("backend"),
        k.get("layout"),
    )
    inplace = tuple(_INPLACE_RE.findall(str(entry.get("inplace", ""))))
    dt = entry.get("data_transform") or {}
    spec = OpSpec(
        name=name,
        args=tuple(args),
        outputs=tuple(outputs),
        infer_meta=infer_meta,
        kernel=kernel,
        optional=_names(entry.get("optional"), where),
        inplace=inplace,
        skip_transform=_names(dt.get("skip_transform"), where),
        support_trans_dtype=_names(dt.get("support_trans_dtype"), where),
        intermediate=_names(entry.get("intermediate"), where),
        source=f"{path}:{line}",
    )
    _check_names(spec, arg_names, where)
    return spec


def _check_names(spec: OpSpec, arg_names: list[str], where: str) -> None:
    out_names = [o.name for o in spec.outputs]
    for label, names in (
        ("infer_meta.param", spec.infer_meta.param or ()),
        ("kernel.param", spec.kernel.param or ()),
        ("optional", spec.optional),
        ("data_transform", spec.skip_transform + spec.support_trans_dtype),
    ):
        for n in names:
            if n not in arg_names:
                raise InvalidArgument(f"{where}: {label} names {n!r}, not an argument "
                                      f"({arg_names}).")
    for n in spec.intermediate:
        if n not in out_names:
            raise InvalidArgument(f"{where}: intermediate names {n!r}, not an output "
                                  f"({out_names}).")
    for src, dst in spec.inplace:
        if src not in arg_names or dst not in out_names:
            raise InvalidArgument(f"{where}: inplace ({src} -> {dst}) must map an argument to "
                                  "an output.")
    for rule_name in ("data_type", "backend", "layout"):
        rule = getattr(spec.kernel, rule_name)
        if rule is None:
            continue
        for n in (p.strip() for p in rule.split(">")):
            if n not in arg_names:
                raise InvalidArgument(f"{where}: kernel.{rule_name} names {n!r}, not an "
                                      "argument.")
    for o in spec.outputs:
        if o.type == "Tensor[]" and o.count is not None:
            m = re.fullmatch(r"([A-Za-z_]\w*)(\.size\(\))?", o.count)
            if m is None or m.group(1) not in arg_names:
                raise InvalidArgument(f"{where}: output count {{{o.count}}} must be "
                                      "`<argument>.size()` or an int `<argument>`.")


def load_ops_yaml(path: str | Path = DEFAULT_OPS_YAML) -> list[OpSpec]:
    """Parse an ops.yaml file into OpSpec records (errors name the file and line)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidArgument(f"Cannot read {path}: {exc}") from exc
    return loads_ops_yaml(text, str(path))


def loads_ops_yaml(text: str, path: str = "<string>") -> list[OpSpec]:
    try:
        data = yaml.load(text, Loader=_LineLoader)
    except yaml.YAMLError as exc:
        raise InvalidArgument(f"{path}: not valid YAML: {exc}") from exc
    if data is None:
        return []
    if not isinstance(data, list):
        raise InvalidArgument(f"{path}: expected a list of op entries at the top level.")
    specs = []
    seen: dict[str, str] = {}
    for entry in data:
        if not isinstance(entry, Mapping):
            raise InvalidArgument(f"{path}: every top-level item must be an op mapping, got "
                                  f"{entry!r}.")
        spec = _parse_entry(entry, path)
        if spec.name in seen:
            raise InvalidArgument(f"{spec.source}: op {spec.name!r} already defined at "
                                  f"{seen[spec.name]}.")
        seen[spec.name] = spec.source
        specs.append(spec)
    return specs
