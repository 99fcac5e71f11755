"""Declarative mappings of regular ops: ``argmap/op_compat.yaml`` and its loader.

One list item per legacy op whose signature is fixed up to tensor attributes::

    - op: concat              # legacy op type
      kernel: concat          # phi kernel
      inputs: [X]             # legacy names in phi argument order
      attrs: [axis]
      outputs: [Out]
      scalar:                 # phi Scalar attributes that a tensor may give
        axis: {tensor_name: AxisTensor}

``int_array`` / ``scalar`` follow Paddle's op_compat.yaml (reference §6.4-6.5): for an
attribute ``a`` with ``tensor_name: T`` and ``tensors_name: TL`` the signature names the first
source present, in Paddle's generated order ``HasInput(T) ? T : InputSize(TL) > 0 ? TL : a``;
``support_tensor: true`` means the attribute itself may be a Variable and keeps its name.

The loader rejects unknown keys, duplicate keys and duplicate ops, naming file and line;
records are frozen, remember where they came from, and `dump_compat` writes them back in the
form they were read (tested by round trip).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from phi.core.records import field, frozen

from argmap.context import ArgumentMappingContext
from argmap.signature import KernelSignature
from phi.core.checksum import text_checksum
from phi.core.errors import InvalidArgument

__all__ = [
    "DEFAULT_COMPAT_FILE",
    "GRAD_COMPAT_FILE",
    "CompatEntry",
    "CompatFileError",
    "TensorAttr",
    "dump_compat",
    "load_compat",
    "parse_compat",
]

#: The package's own table (package data; see its header for where the facts came from).
DEFAULT_COMPAT_FILE = "op_compat.yaml"
#: The grad ops' table (same schema).
GRAD_COMPAT_FILE = "grad_compat.yaml"

_ENTRY_KEYS = ("op", "kernel", "inputs", "attrs", "outputs", "int_array", "scalar")
_REQUIRED_KEYS = ("op", "kernel", "inputs", "attrs", "outputs")
_TENSOR_ATTR_KINDS = ("int_array", "scalar")
_TENSOR_ATTR_KEYS = ("tensor_name", "tensors_name", "support_tensor", "data_type")
_DATA_TYPES = ("bool", "int", "int64_t", "float", "double", "std::string")


class CompatFileError(InvalidArgument):
    """A malformed op_compat file; the message starts with ``file:line:``."""

    def __init__(self, source: str, line: int, message: str) -> None:
        super().__init__(f"{source}:{line}: {message}")
        self.source = source
        self.line = line


# -- records ------------------------------------------------------------------------------------


def _opt_name(instance: object, attribute: Any, value: str | None) -> None:
    if value is not None and (not isinstance(value, str) or not value):
        raise InvalidArgument(f"{attribute.name} must be a non-empty str or None, got {value!r}")


@frozen
class TensorAttr:
    """A phi IntArray / Scalar attribute that a tensor input may give instead of the attribute."""

    attr: str
    kind: str = field(validator=lambda i, a, v: _check_kind(v))
    tensor_name: str | None = field(default=None, validator=_opt_name)
    tensors_name: str | None = field(default=None, validator=_opt_name)
    support_tensor: bool = False
    data_type: str | None = None
    line: int = field(default=0, eq=False)

    def sources(self) -> tuple[str, ...]:
        """The names the signature may hold for this attribute, highest priority first."""
        names = [n for n in (self.tensor_name, self.tensors_name) if n is not None]
        return (*names, self.attr)

    def choose(self, ctx: ArgumentMappingContext) -> str:
        """Paddle's generated ternary: ``HasInput(T) ? T : InputSize(TL) > 0 ? TL : attr``."""
        if self.tensor_name is not None and ctx.has_input(self.tensor_name):
            return self.tensor_name
        if self.tensors_name is not None and ctx.input_size(self.tensors_name) > 0:
            return self.tensors_name
        return self.attr

    def condition(self, source: str) -> str:
        """When `choose` answers `source`, in words (for check reports)."""
        if source == self.tensor_name:
            return f"has_input({source})"
        absent = [f"not has_input({self.tensor_name})"] if self.tensor_name else []
        if source == self.tensors_name:
            return ", ".join([*absent, f"input_size({source}) > 0"])
        if self.tensors_name:
            absent.append(f"input_size({self.tensors_name}) == 0")
        return ", ".join(absent) or "always"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.tensor_name is not None:
            out["tensor_name"] = self.tensor_name
        if self.tensors_name is not None:
            out["tensors_name"] = self.tensors_name
        if self.support_tensor:
            out["support_tensor"] = True
        if self.data_type is not None:
            out["data_type"] = self.data_type
        return out


def _check_kind(value: str) -> None:
    if value not in _TENSOR_ATTR_KINDS:
        raise InvalidArgument(f"tensor attribute kind must be one of {_TENSOR_ATTR_KINDS}, "
                              f"got {value!r}")


@frozen
class CompatEntry:
    """The declared mapping of one regular legacy op."""

    op: str
    kernel: str
    inputs: tuple[str, ...] = field(converter=tuple)
    attrs: tuple[str, ...] = field(converter=tuple)
    outputs: tuple[str, ...] = field(converter=tuple)
    tensor_attrs: tuple[TensorAttr, ...] = field(default=(), converter=tuple)
    source: str = field(default="<memory>", eq=False)
    line: int = field(default=0, eq=False)

    @property
    def where(self) -> str:
        """``file:line`` of the entry."""
        return f"{self.source}:{self.line}"

    def _tensor_attr(self, name: str) -> TensorAttr | None:
        for t in self.tensor_attrs:
            if t.attr == name:
                return t
        return None

    def signature(self, ctx: ArgumentMappingContext) -> KernelSignature:
        """The signature for the op described by `ctx`."""
        attrs = []
        for name in self.attrs:
            t = self._tensor_attr(name)
            attrs.append(t.choose(ctx) if t is not None else name)
        return KernelSignature(self.kernel, self.inputs, attrs, self.outputs)

    def possible_signatures(self) -> tuple[tuple[KernelSignature, str], ...]:
        """Every signature `signature` can return, each with its condition in words."""
        choices: list[list[tuple[str, str]]] = []
        for name in self.attrs:
            t = self._tensor_attr(name)
            if t is None:
                choices.append([(name, "")])
            else:
                choices.append([(s, t.condition(s)) for s in t.sources()])
        found = []
        for combo in itertools.product(*choices):
            conditions = [c for _, c in combo if c and c != "always"]
            sig = KernelSignature(self.kernel, self.inputs, [n for n, _ in combo], self.outputs)
            found.append((sig, "; ".join(conditions) or "always"))
        return tuple(found)

    def to_dict(self) -> dict[str, Any]:
        """The entry as it is written in op_compat.yaml."""
        out: dict[str, Any] = {"op": self.op, "kernel": self.kernel, "inputs": list(self.inputs),
                               "attrs": list(self.attrs), "outputs": list(self.outputs)}
        for kind in _TENSOR_ATTR_KINDS:
            group = {t.attr: t.to_dict() for t in self.tensor_attrs if t.kind == kind}
            if group:
                out[kind] = group
        return out


# -- loading ------------------------------------------------------------------------------------


class _Lined(dict):
    """A YAML mapping that remembers its line and the line of each key (1-based)."""

    line: int
    key_lines: dict[Any, int]


_LOADER: list[type] = []


def _line_loader() -> type:
    """The YAML loader class (built on first use: importing yaml is a cold-start cost that a
    program whose compat tables come from the cache never pays)."""
    if _LOADER:
        return _LOADER[0]
    import yaml

    # libyaml's parser when PyYAML was built with it (about 9x faster on ops.yaml: cold start);
    # the same marks and constructors either way
    safe_loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class _LineLoader(safe_loader):
        """SafeLoader whose mappings are `_Lined` and that refuses duplicate keys."""

    _LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
                                _construct_mapping)
    _LOADER.append(_LineLoader)
    return _LineLoader


def _construct_mapping(loader: Any, node: Any) -> _Lined:
    loader.flatten_mapping(node)
    mapping = _Lined()
    mapping.line = node.start_mark.line + 1
    mapping.key_lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        if key in mapping:
            raise CompatFileError(loader.name, line, f"duplicate key {key!r} (first on line "
                                  f"{mapping.key_lines[key]})")
        mapping[key] = loader.construct_object(value_node, deep=True)
        mapping.key_lines[key] = line
    return mapping


_STR_TAG = "tag:yaml.org,2002:str"
_SEQ_TAG = "tag:yaml.org,2002:seq"
_MAP_TAG = "tag:yaml.org,2002:map"


def _construct(loader: Any, node: Any, yaml: Any) -> Any:
    """The document of `node` as ``loader.construct_document`` builds it, walked directly: plain
    strings, lists and mappings (most of a compat file) without the constructor's generator
    machinery, which took most of the time of the first op of a program; anything else (bools,
    ints, anchors and merge keys) through the loader's own constructors."""
    if node is None:
        return None
    if isinstance(node, yaml.ScalarNode) and node.tag == _STR_TAG:
        return node.value
    if isinstance(node, yaml.SequenceNode) and node.tag == _SEQ_TAG:
        return [_construct(loader, item, yaml) for item in node.value]
    if (isinstance(node, yaml.MappingNode) and node.tag == _MAP_TAG
            and not any(k.tag == "tag:yaml.org,2002:merge" for k, _ in node.value)):
        mapping = _Lined()
        mapping.line = node.start_mark.line + 1
        mapping.key_lines = {}
        for key_node, value_node in node.value:
            key = _construct(loader, key_node, yaml)
            line = key_node.start_mark.line + 1
            if key in mapping:
                raise CompatFileError(loader.name, line, f"duplicate key {key!r} (first on line "
                                      f"{mapping.key_lines[key]})")
            mapping[key] = _construct(loader, value_node, yaml)
            mapping.key_lines[key] = line
        return mapping
    return loader.construct_document(node)


def parse_compat(text: str, source: str = "<string>") -> tuple[CompatEntry, ...]:
    """Parse op_compat text; CompatFileError names `source` and the line of any problem."""
    import yaml

    loader = _line_loader()(text)
    loader.name = source
    try:
        data = _construct(loader, loader.get_single_node(), yaml)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 0
        raise CompatFileError(source, line, f"not valid YAML: {exc.problem}") from None
    finally:
        loader.dispose()
    if data is None:
        return ()
    if not isinstance(data, list):
        raise CompatFileError(source, 1, "the file must be a list of op entries")
    entries: list[CompatEntry] = []
    seen: dict[str, int] = {}
    for item in data:
        entry = _entry(item, source)
        if entry.op in seen:
            raise CompatFileError(source, entry.line, f"op {entry.op!r} is declared twice "
                                  f"(first on line {seen[entry.op]})")
        seen[entry.op] = entry.line
        entries.append(entry)
    return tuple(entries)


def load_compat(path: str | Path | None = None) -> tuple[CompatEntry, ...]:
    """Load an op_compat file; by default the package's own ``argmap/op_compat.yaml``; a bare
    file name (``GRAD_COMPAT_FILE``) names another table of the package."""
    if path is None or path == GRAD_COMPAT_FILE:
        name = path or DEFAULT_COMPAT_FILE
        text = (Path(__file__).parent / name).read_text(encoding="utf-8")
        cached = _from_cache(name, text)
        return cached if cached is not None else parse_compat(text, f"argmap/{name}")
    path = Path(path)
    return parse_compat(path.read_text(encoding="utf-8"), str(path))


#: The package's tables as parsed, with a checksum of the text each came from
#: (tools/gen_yaml_caches.py writes it; a test fails when it is stale).  A table whose text
#: no longer matches is parsed from its YAML instead, so an edit is never hidden.
COMPAT_CACHE_FILE = "_compat_cache.json"


compat_checksum = text_checksum


def compat_cache_record(name: str, entries: Iterable[CompatEntry]) -> dict[str, Any]:
    """What the cache holds for table `name` (its entries as `parse_compat` made them)."""
    def tensor_attr(t: TensorAttr) -> list[Any]:
        return [t.attr, t.kind, t.tensor_name, t.tensors_name, t.support_tensor, t.data_type,
                t.line]

    return {"entries": [[e.op, e.kernel, list(e.inputs), list(e.attrs), list(e.outputs),
                         [tensor_attr(t) for t in e.tensor_attrs], e.line] for e in entries]}


def _from_cache(name: str, text: str) -> tuple[CompatEntry, ...] | None:
    import json

    try:
        with open(Path(__file__).parent / COMPAT_CACHE_FILE, encoding="utf-8") as f:
            record = json.load(f)["tables"].get(name)
    except (OSError, ValueError, KeyError):
        return None
    if record is None or record.get("checksum") != compat_checksum(text):
        return None
    source = f"argmap/{name}"
    return tuple(
        CompatEntry(op, kernel, inputs, attrs, outputs,
                    [TensorAttr(a, kind, tn, tsn, st, dt, line=tl)
                     for a, kind, tn, tsn, st, dt, tl in tensor_attrs],
                    source=source, line=line)
        for op, kernel, inputs, attrs, outputs, tensor_attrs, line in record["entries"])


def dump_compat(entries: Iterable[CompatEntry]) -> str:
    """Write entries back in the op_compat.yaml form (`parse_compat` reads them back equal)."""
    chunks = []
    for entry in entries:
        import yaml

        text = yaml.safe_dump([entry.to_dict()], sort_keys=False, default_flow_style=None,
                              width=100)
        chunks.append(text)
    return "\n".join(chunks)


def _entry(item: Any, source: str) -> CompatEntry:
    if not isinstance(item, _Lined):
        raise CompatFileError(source, 0, f"every list item must be a mapping, got {item!r}")
    _reject_unknown(item, _ENTRY_KEYS, source, "entry")
    for key in _REQUIRED_KEYS:
        if key not in item:
            what = f" for op {item['op']!r}" if isinstance(item.get("op"), str) else ""
            raise CompatFileError(source, item.line, f"entry{what} lacks the key {key!r} "
                                  f"(required: {', '.join(_REQUIRED_KEYS)})")
    op = _name(item, "op", source)
    kernel = _name(item, "kernel", source)
    inputs = _name_list(item, "inputs", source)
    attrs = _name_list(item, "attrs", source)
    outputs = _name_list(item, "outputs", source)
    tensor_attrs: list[TensorAttr] = []
    for kind in _TENSOR_ATTR_KINDS:
        if kind not in item:
            continue
        group = item[kind]
        if not isinstance(group, _Lined) or not group:
            raise CompatFileError(source, item.key_lines[kind],
                                  f"{kind} must be a mapping of attribute -> sources")
        for attr_name, spec in group.items():
            tensor_attrs.append(_tensor_attr(op, kind, attr_name, spec, group.key_lines[attr_name],
                                             attrs, inputs, source))
    names = [t.attr for t in tensor_attrs]
    for t in tensor_attrs:
        if names.count(t.attr) > 1:
            raise CompatFileError(source, t.line, f"op {op}: attribute {t.attr!r} is declared "
                                  "both as int_array and as scalar")
    return CompatEntry(op, kernel, inputs, attrs, outputs, tensor_attrs, source=source,
                       line=item.line)


def _tensor_attr(op: str, kind: str, attr_name: Any, spec: Any, line: int,
                 attrs: tuple[str, ...], inputs: tuple[str, ...], source: str) -> TensorAttr:
    if attr_name not in attrs:
        raise CompatFileError(source, line, f"op {op}: {kind} names {attr_name!r}, which is not "
                              f"in its attrs {list(attrs)}")
    if not isinstance(spec, _Lined):
        raise CompatFileError(source, line, f"op {op}: {kind}.{attr_name} must be a mapping "
                              f"with keys among {', '.join(_TENSOR_ATTR_KEYS)}")
    _reject_unknown(spec, _TENSOR_ATTR_KEYS, source, f"{kind}.{attr_name}")
    fields: dict[str, Any] = {}
    for key in ("tensor_name", "tensors_name", "data_type"):
        if key in spec:
            value = spec[key]
            if not isinstance(value, str) or not value:
                raise CompatFileError(source, spec.key_lines[key], f"op {op}: "
                                      f"{kind}.{attr_name}.{key} must be a non-empty string")
            fields[key] = value
    for key in ("tensor_name", "tensors_name"):
        if fields.get(key) in inputs:
            raise CompatFileError(source, spec.key_lines[key], f"op {op}: {fields[key]!r} is a "
                                  "kernel input of this entry; a tensor attribute's slot cannot "
                                  "be one too")
    if "data_type" in fields and fields["data_type"] not in _DATA_TYPES:
        raise CompatFileError(source, spec.key_lines["data_type"], f"op {op}: data_type "
                              f"{fields['data_type']!r} is not one of {', '.join(_DATA_TYPES)}")
    support = spec.get("support_tensor", False)
    if not isinstance(support, bool):
        raise CompatFileError(source, spec.key_lines["support_tensor"], f"op {op}: "
                              f"{kind}.{attr_name}.support_tensor must be true or false")
    if not (support or "tensor_name" in fields or "tensors_name" in fields):
        raise CompatFileError(source, line, f"op {op}: {kind}.{attr_name} names no source: give "
                              "tensor_name, tensors_name or support_tensor: true")
    return TensorAttr(attr_name, kind, support_tensor=support, line=line, **fields)


def _reject_unknown(mapping: _Lined, allowed: tuple[str, ...], source: str, what: str) -> None:
    for key in mapping:
        if key not in allowed:
            raise CompatFileError(source, mapping.key_lines[key], f"unknown key {key!r} in "
                                  f"{what}; allowed: {', '.join(allowed)}")


def _name(item: _Lined, key: str, source: str) -> str:
    value = item[key]
    if not isinstance(value, str) or not value:
        raise CompatFileError(source, item.key_lines[key], f"{key} must be a non-empty string, "
                              f"got {value!r}")
    return value


def _name_list(item: _Lined, key: str, source: str) -> tuple[str, ...]:
    value = item[key]
    line = item.key_lines[key]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise CompatFileError(source, line, f"{key} must be a list of names, got {value!r}")
    duplicates = sorted({v for v in value if value.count(v) > 1})
    if duplicates:
        raise CompatFileError(source, line, f"{key} lists {duplicates} twice")
    return tuple(value)
