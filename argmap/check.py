"""``argmap check``: every signature a mapping can return, checked against the phi kernels.

Mappings return names only, so all their possible results can be enumerated:

* a declared entry (op_compat.yaml): every combination of its tensor-attribute sources;
* a mapping function: it is run with an `EnumeratingContext`, which answers each question with
  one of its possible answers and records it; the function is then re-run with every other
  answer to every question it asked (a depth-first walk of its decision tree).  Possible
  answers come from the op's OpProto: an input slot holds 1 variable, or 0 when dispensable or
  extra, or 2 when duplicable; a variable is dense, SelectedRows or a TensorArray; a bool
  attribute is True or False, an int one its default, -1, 0 or 1, a string one its default,
  "" or a non-empty one (or the values its checker allows) ...; a function may declare its
  own values (``attr_values`` at registration);
* a default signature: the one signature of §6.2.

Each signature must name a registered phi kernel whose argument definition matches: as many
inputs, attributes and outputs; a vector input (output) exactly for a duplicable slot; an
IntArray or Scalar attribute wherever the name is an input slot (a tensor attribute) or a
``support_tensor`` attribute; and every name must exist in the OpProto (or the runtime
attributes).  Ops that only have a default signature and no phi kernel of that name are
fluid-only ops, not problems.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from attrs import field, frozen

import opmakers
from opmakers.grad import is_grad_op_type
from argmap.context import ArgumentMappingContext
from argmap.sig.funcs import GPU_ONLY_KERNELS
from argmap.registry import ArgMappingRegistry, MappingInfo, default_registry
from argmap.signature import KernelSignature
from opmakers import AttrProto, AttrType, OpProto
from phi.core.errors import NotFound
from phi.core.kernel import ArgKind, AttributeType, KernelArgsDef

__all__ = [
    "SUPPORTED_KINDS",
    "TENSOR_KINDS",
    "EnumeratingContext",
    "OpMappings",
    "PossibleSignature",
    "Problem",
    "argmap_check",
    "enumerate_mappings",
    "main_argmap_check",
    "signature_problems",
]

#: The variable kinds a mapping function's questions can be answered with.
TENSOR_KINDS: tuple[str, ...] = ("dense", "selected_rows", "tensor_array")
#: The kinds fluid_compat feeds to kernel ops (tensor arrays only reach control-flow ops), the
#: default of the CLI: dense tensors and SelectedRows (phi.core.selected_rows).
SUPPORTED_KINDS: tuple[str, ...] = ("dense", "selected_rows")
#: The sparse kinds (phi.core.sparse_tensor), answered only for the ``sparse_*`` ops: Paddle asks
#: IsSparseCooTensorInput / IsSparseCsrTensorInput only in their generated mappings (from
#: sparse_ops.yaml), and widening every other op's answers would multiply its runs for nothing.
SPARSE_KINDS: tuple[str, ...] = ("sparse_coo", "sparse_csr")

#: More runs of one mapping function than this is reported (a function asking about
#: unbounded sets of names).
MAX_RUNS = 4096

_TENSOR_ATTR_TYPES = frozenset({AttributeType.INT_ARRAY, AttributeType.SCALAR,
                                AttributeType.SCALARS})


@frozen
class Problem:
    """One thing wrong with a mapping: the op, the signature concerned (if any), what."""

    op_type: str
    signature: KernelSignature | None
    message: str
    where: str = ""

    def __str__(self) -> str:
        sig = f" [{self.signature}]" if self.signature is not None else ""
        where = f" ({self.where})" if self.where else ""
        return f"{self.op_type}{sig}: {self.message}{where}"


@frozen
class PossibleSignature:
    """A signature a mapping can return and (one of) the conditions under which it does."""

    signature: KernelSignature
    condition: str


@frozen
class OpMappings:
    """What `enumerate_mappings` found for one op."""

    op_type: str
    how: str  # "function", "declared", "default" or "none"
    where: str
    signatures: tuple[PossibleSignature, ...]
    problems: tuple[Problem, ...] = field(factory=tuple)


# -- the enumerating context --------------------------------------------------------------------

_Key = tuple[str, str]


def _freeze(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _dedupe(values: Iterable[Any]) -> tuple[Any, ...]:
    out: list[Any] = []
    for v in values:
        v = _freeze(v)
        if not any(type(v) is type(o) and v == o for o in out):
            out.append(v)
    return tuple(out)


def _attr_candidates(attr: AttrProto) -> tuple[Any, ...]:
    """Values worth trying for `attr`: its default, then values of its type that tend to
    decide branches (checker values when the attribute has an InSet checker)."""
    default = () if attr.required else (attr.default,)
    for check in attr.checks:
        values = getattr(check, "values", None)
        if values is not None and attr.type in (AttrType.INT, AttrType.LONG, AttrType.STRING):
            return _dedupe((*default, *values))
    t = attr.type
    if t is AttrType.BOOLEAN:
        return _dedupe((*default, False, True))
    if t in (AttrType.INT, AttrType.LONG):
        return _dedupe((*default, -1, 0, 1))
    if t in (AttrType.FLOAT, AttrType.FLOAT64):
        return _dedupe((*default, 0.0, 1.0))
    if t is AttrType.STRING:
        return _dedupe((*default, "", "0"))
    if t in (AttrType.INTS, AttrType.LONGS):
        return _dedupe((*default, (), (1,)))
    if t in (AttrType.FLOATS, AttrType.FLOAT64S, AttrType.BOOLEANS, AttrType.STRINGS):
        return _dedupe((*default, ()))
    return default or (None,)


class _Oracle:
    """The possible answers to each question about one op, and what was asked amiss."""

    def __init__(self, op_type: str, proto: OpProto | None, runtime: Sequence[AttrProto],
                 attr_values: Mapping[str, tuple[Any, ...]], tensor_kinds: Sequence[str]) -> None:
        self.op_type = op_type
        self._inputs = {v.name: v for v in proto.inputs} if proto is not None else None
        self._outputs = {v.name: v for v in proto.outputs} if proto is not None else None
        self._proto_attrs = {a.name: a for a in proto.attrs} if proto is not None else {}
        self._runtime_attrs = {a.name: a for a in runtime}
        self._attr_values = attr_values
        self._kinds = tuple(tensor_kinds)
        self.notes: dict[str, None] = {}  # ordered set of messages

    def note(self, message: str) -> None:
        self.notes[message] = None

    def candidates(self, key: _Key) -> tuple[Any, ...]:
        kind, name = key
        if kind in ("input", "output"):
            slots = self._inputs if kind == "input" else self._outputs
            if slots is None:
                return (1, 0)
            slot = slots.get(name)
            if slot is None:
                self.note(f"asks about {kind} slot {name!r}, which {self.op_type} does not have "
                          f"(its {kind}s: {', '.join(slots) or 'none'})")
                return (1, 0)
            optional = slot.dispensable or slot.extra or (kind == "output" and slot.intermediate)
            return (1, *((0,) if optional else ()), *((2,) if slot.duplicable else ()))
        if kind in ("input_kind", "output_kind"):
            if kind == "input_kind" and self.op_type.startswith("sparse_"):
                return self._kinds + tuple(k for k in SPARSE_KINDS if k not in self._kinds)
            return self._kinds
        if kind == "has_attr":
            return (True,) if name in self._proto_attrs else (True, False)
        if kind == "attr":
            if name in self._attr_values:
                return self._attr_values[name]
            attr = self._proto_attrs.get(name) or self._runtime_attrs.get(name)
            if attr is None:
                self.note(f"asks for attribute {name!r}, which {self.op_type} does not have")
                return (None,)
            return _attr_candidates(attr)
        if kind == "infer_shape":
            return (False, True)
        if kind == "runtime":
            return (True, False)
        raise AssertionError(f"unknown question kind {kind!r}")  # pragma: no cover

    def is_duplicable_input(self, name: str) -> bool:
        slot = (self._inputs or {}).get(name)
        return slot is not None and slot.duplicable


class EnumeratingContext(ArgumentMappingContext):
    """Answers each question from `forced`, else with its first possible answer, and records
    every question with its possible answers in the order asked."""

    def __init__(self, oracle: _Oracle, forced: Mapping[_Key, Any]) -> None:
        self._oracle = oracle
        self._forced = forced
        self._answers: dict[_Key, Any] = {}
        self.asked: list[tuple[_Key, tuple[Any, ...], Any]] = []

    def _answer(self, kind: str, name: str) -> Any:
        key = (kind, name)
        if key in self._answers:
            return self._answers[key]
        candidates = self._oracle.candidates(key)
        answer = self._forced.get(key, candidates[0])
        self._answers[key] = answer
        self.asked.append((key, candidates, answer))
        return answer

    def has_input(self, name: str) -> bool:
        if self._oracle.is_duplicable_input(name):
            self._oracle.note(f"calls has_input({name!r}) on a duplicable slot; Paddle's "
                              "HasInput raises when it holds several variables: use input_size")
        return self._answer("input", name) > 0

    def has_output(self, name: str) -> bool:
        return self._answer("output", name) > 0

    def has_attr(self, name: str) -> bool:
        return bool(self._answer("has_attr", name))

    def attr(self, name: str) -> Any:
        return self._answer("attr", name)

    def input_size(self, name: str) -> int:
        return int(self._answer("input", name))

    def output_size(self, name: str) -> int:
        return int(self._answer("output", name))

    def is_dense_tensor_input(self, name: str) -> bool:
        return self._answer("input_kind", name) == "dense"

    def is_selected_rows_input(self, name: str) -> bool:
        return self._answer("input_kind", name) == "selected_rows"

    def is_sparse_coo_tensor_input(self, name: str) -> bool:
        return self._answer("input_kind", name) == "sparse_coo"

    def is_sparse_csr_tensor_input(self, name: str) -> bool:
        return self._answer("input_kind", name) == "sparse_csr"

    def is_dense_tensor_vector_input(self, name: str) -> bool:
        return self._answer("input_kind", name) == "tensor_array"

    def is_dense_tensor_output(self, name: str) -> bool:
        return self._answer("output_kind", name) == "dense"

    def is_selected_rows_output(self, name: str) -> bool:
        return self._answer("output_kind", name) == "selected_rows"

    def is_for_infer_shape(self) -> bool:
        return bool(self._answer("infer_shape", ""))

    def is_runtime(self) -> bool:
        return bool(self._answer("runtime", ""))

    def condition(self) -> str:
        """The answers of this run, in words."""
        words = {"input": "input_size({})={}", "output": "output_size({})={}",
                 "input_kind": "kind({})={}", "output_kind": "kind({})={}",
                 "has_attr": "has_attr({})={}", "attr": "attr({})={!r}",
                 "infer_shape": "is_for_infer_shape(){}={}", "runtime": "is_runtime(){}={}"}
        return "; ".join(words[k].format(n, a) for (k, n), _, a in self.asked) or "always"


def _explore(info: MappingInfo, oracle: _Oracle) -> tuple[list[PossibleSignature], list[str]]:
    """Run `info`'s function down every branch; its distinct signatures and its failures."""
    found: dict[KernelSignature, PossibleSignature] = {}
    failures: list[str] = []
    pending: list[dict[_Key, Any]] = [{}]
    scheduled: set[frozenset[tuple[_Key, Any]]] = {frozenset()}
    runs = 0
    while pending:
        forced = pending.pop()
        runs += 1
        if runs > MAX_RUNS:
            failures.append(f"more than {MAX_RUNS} branches; not all were explored")
            break
        ctx = EnumeratingContext(oracle, forced)
        try:
            result = info.fn(ctx)
        except Exception as exc:
            failures.append(f"raised {type(exc).__name__}: {exc} when {ctx.condition()}")
        else:
            if not isinstance(result, KernelSignature):
                failures.append(f"returned {result!r}, not a KernelSignature, when "
                                f"{ctx.condition()}")
            elif result not in found:
                found[result] = PossibleSignature(result, ctx.condition())
        earlier: dict[_Key, Any] = {}
        for key, candidates, answer in ctx.asked:
            if key not in forced:
                for other in candidates:
                    if other == answer and type(other) is type(answer):
                        continue
                    script = {**forced, **earlier, key: other}
                    frozen_script = frozenset(script.items())
                    if frozen_script not in scheduled:
                        scheduled.add(frozen_script)
                        pending.append(script)
            earlier[key] = answer
    return list(found.values()), failures


def _proto_or_none(registry: ArgMappingRegistry, op_type: str) -> OpProto | None:
    try:
        return registry.proto(op_type)
    except NotFound:
        return None


def enumerate_mappings(op_type: str, registry: ArgMappingRegistry | None = None, *,
                       tensor_kinds: Sequence[str] = TENSOR_KINDS) -> OpMappings:
    """Every signature the mapping of `op_type` can return, with conditions."""
    registry = registry if registry is not None else default_registry()
    how = registry.how_mapped(op_type)
    if how == "none":
        return OpMappings(op_type, how, registry.no_signature_reason(op_type) or "", ())
    if how == "declared":
        entry = registry.compat_entry(op_type)
        assert entry is not None
        sigs = tuple(PossibleSignature(s, c) for s, c in entry.possible_signatures())
        return OpMappings(op_type, how, entry.where, sigs)
    if how == "default":
        sig = registry.default_signature(op_type)
        assert sig is not None
        return OpMappings(op_type, how, "default signature from the OpProto",
                          (PossibleSignature(sig, "always"),))
    info = registry.mapping_fn(op_type)
    assert info is not None
    proto = _proto_or_none(registry, op_type)
    runtime = opmakers.get_runtime_attrs(op_type) if opmakers.has_op(op_type) else ()
    oracle = _Oracle(op_type, proto, runtime, info.attr_values, tensor_kinds)
    sigs, failures = _explore(info, oracle)
    problems = [Problem(op_type, None, f"the mapping function {m}", info.origin)
                for m in failures]
    problems += [Problem(op_type, None, f"the mapping function {m}", info.origin)
                 for m in oracle.notes]
    return OpMappings(op_type, how, info.origin, tuple(sigs), tuple(problems))


# -- checking one signature ---------------------------------------------------------------------


def _distinct_defs(factory: Any, name: str) -> list[tuple[str, KernelArgsDef]]:
    seen: dict[tuple, tuple[str, KernelArgsDef]] = {}
    for key, kernel in factory.kernels_of(name).items():
        d = kernel.args_def
        shape = (tuple(i.kind for i in d.inputs), tuple(a.type for a in d.attributes),
                 tuple(o.kind for o in d.outputs))
        seen.setdefault(shape, (str(key), d))
    return list(seen.values())


def _kinds(defs: Iterable[Any]) -> str:
    return ", ".join(str(d.kind) for d in defs) or "none"


#: input names Paddle's own mapping gives an op that its OpProto lacks (the kernel then gets no
#: tensor there): (op type, input) -> why
FOREIGN_INPUTS: dict[tuple[str, str], str] = {
    ("deformable_conv_v1", "Mask"): "Paddle maps deformable_conv_v1 with deformable_conv's "
                                    "signature; v1 has no Mask slot, so every tap weighs 1",
    ("deformable_conv_v1_grad", "Mask"): "the same for the grad op (deformable_conv_grad)",
    ("deformable_conv_v1_grad", "Mask@GRAD"): "the same for the grad op's outputs",
}


def signature_problems(op_type: str, sig: KernelSignature, proto: OpProto | None,
                       factory: Any, *, runtime_attr_names: Iterable[str] = (),
                       tensor_attr_kinds: Mapping[str, str] | None = None) -> list[str]:
    """What is wrong with `sig` for `op_type` against the kernels of `factory` (empty: nothing).

    `tensor_attr_kinds` maps attribute names declared ``int_array`` / ``scalar`` to that kind.
    """
    messages: list[str] = []
    inputs = {v.name: v for v in proto.inputs} if proto is not None else {}
    outputs = {v.name: v for v in proto.outputs} if proto is not None else {}
    proto_attrs = {a.name: a for a in proto.attrs} if proto is not None else {}
    runtime = set(runtime_attr_names)
    tensor_attr_kinds = dict(tensor_attr_kinds or {})
    if proto is None:
        messages.append(f"{op_type} has no OpProto: names cannot be checked")
    else:
        for name in sig.inputs:
            if name not in inputs and (op_type, name) not in FOREIGN_INPUTS:
                messages.append(f"input {name!r} is not an input slot of {op_type} "
                                f"(slots: {', '.join(inputs) or 'none'})")
        for name in sig.attrs:
            if name not in proto_attrs and name not in runtime and name not in inputs:
                messages.append(f"attribute {name!r} is neither an attribute nor an input slot "
                                f"of {op_type}")
        for name in sig.outputs:
            if name not in outputs and (op_type, name) not in FOREIGN_INPUTS:
                messages.append(f"output {name!r} is not an output slot of {op_type} "
                                f"(slots: {', '.join(outputs) or 'none'})")
    if sig.name in GPU_ONLY_KERNELS and not factory.has_kernel(sig.name):
        return messages  # Paddle's CPU build has no such kernel either: nothing to compare
    if not factory.has_kernel(sig.name):
        close = difflib.get_close_matches(sig.name, factory.names(), n=4)
        hint = f" (closest registered: {', '.join(close)})" if close else ""
        messages.append(f"phi kernel `{sig.name}` is not registered{hint}")
        return messages
    defs = _distinct_defs(factory, sig.name)
    for key, d in defs:
        at = f" [{key}]" if len(defs) > 1 else ""
        messages += _compare(sig, d, at, inputs, outputs, proto_attrs, tensor_attr_kinds)
    return messages


def _compare(sig: KernelSignature, d: KernelArgsDef, at: str, inputs: Mapping[str, Any],
             outputs: Mapping[str, Any], proto_attrs: Mapping[str, AttrProto],
             tensor_attr_kinds: Mapping[str, str]) -> list[str]:
    messages = []
    kernel = f"kernel `{sig.name}`{at}"
    if len(sig.inputs) != len(d.inputs):
        messages.append(f"{len(sig.inputs)} inputs ({', '.join(sig.inputs) or 'none'}) but "
                        f"{kernel} takes {len(d.inputs)} ({_kinds(d.inputs)})")
    else:
        for i, (name, arg) in enumerate(zip(sig.inputs, d.inputs, strict=False)):
            messages += _slot_kind("input", name, inputs.get(name), arg.kind, i, kernel)
    if len(sig.attrs) != len(d.attributes):
        kernel_types = ", ".join(str(a.type) for a in d.attributes) or "none"
        messages.append(f"{len(sig.attrs)} attributes ({', '.join(sig.attrs) or 'none'}) but "
                        f"{kernel} takes {len(d.attributes)} ({kernel_types})")
    else:
        for i, (name, arg) in enumerate(zip(sig.attrs, d.attributes, strict=False)):
            if name in inputs:
                why = f"{name!r} is an input slot (a tensor attribute)"
            elif name in tensor_attr_kinds:
                why = f"{name!r} is declared {tensor_attr_kinds[name]}"
            elif name in proto_attrs and proto_attrs[name].support_tensor:
                why = f"attribute {name!r} supports a Variable value"
            else:
                continue
            if arg.type not in _TENSOR_ATTR_TYPES:
                messages.append(f"{why}, but attribute #{i} of {kernel} is {arg.type}; only "
                                "IntArray or Scalar can come from a tensor")
    if len(sig.outputs) != len(d.outputs):
        messages.append(f"{len(sig.outputs)} outputs ({', '.join(sig.outputs) or 'none'}) but "
                        f"{kernel} returns {len(d.outputs)} ({_kinds(d.outputs)})")
    else:
        for i, (name, arg) in enumerate(zip(sig.outputs, d.outputs, strict=False)):
            messages += _slot_kind("output", name, outputs.get(name), arg.kind, i, kernel)
    return messages


def _slot_kind(what: str, name: str, slot: Any, kind: ArgKind, i: int, kernel: str) -> list[str]:
    if slot is None:
        return []
    if slot.duplicable and kind is not ArgKind.VECTOR:
        return [f"{what} slot {name!r} is duplicable but {what} #{i} of {kernel} is {kind}"]
    if not slot.duplicable and kind is ArgKind.VECTOR:
        return [f"{what} slot {name!r} holds one variable but {what} #{i} of {kernel} is {kind}"]
    return []


# -- the whole registry -------------------------------------------------------------------------


def argmap_check(factory: Any = None, registry: ArgMappingRegistry | None = None, *,
                 op_types: Iterable[str] | None = None,
                 tensor_kinds: Sequence[str] = TENSOR_KINDS) -> list[Problem]:
    """Check every possible signature of every op of `registry` (default: the process-wide
    one), or of `op_types`, against `factory` (default: the process-wide KernelFactory);
    [] when all is well."""
    return _run_check(factory, registry, op_types, tensor_kinds)[1]


def _run_check(factory: Any, registry: ArgMappingRegistry | None,
               op_types: Iterable[str] | None, tensor_kinds: Sequence[str]
               ) -> tuple[list[OpMappings], list[Problem], Any]:
    if factory is None:
        from phi.core.registry import kernel_factory  # phi registers its kernels on import

        factory = kernel_factory()
    registry = registry if registry is not None else default_registry()
    wanted = None if op_types is None else tuple(op_types)
    problems: list[Problem] = []
    for op_type in registry.mapped_op_types():
        reason = registry.no_signature_reason(op_type)
        if reason is not None and (wanted is None or op_type in wanted):
            problems.append(Problem(op_type, None, f"has a mapping that is never used: {reason}"))
    found_all = _enumerate_all(registry, wanted, tensor_kinds)
    for found in found_all:
        problems += _check_op(found, registry, factory)
    return found_all, problems, factory


def _enumerate_all(registry: ArgMappingRegistry, op_types: Iterable[str] | None,
                   tensor_kinds: Sequence[str]) -> list[OpMappings]:
    names = registry.op_types() if op_types is None else tuple(op_types)
    return [enumerate_mappings(n, registry, tensor_kinds=tensor_kinds) for n in names]


def _is_fluid_only(found: OpMappings, factory: Any) -> bool:
    # a default signature is only used when a phi kernel of that name exists (Paddle builds
    # default signatures for ops with a compatible phi kernel only)
    return found.how == "default" and not factory.has_kernel(found.signatures[0].signature.name)


def is_pending_grad(op_type: str, kernel_name: str, factory: Any) -> bool:
    """A grad op whose phi grad kernel is not written yet: its mapping (Paddle's, from the
    grad cases' traces) waits for the kernel; tests/fluid_compat/test_grad_cases.py's NOT_YET
    tracks it."""
    return is_grad_op_type(op_type) and not factory.has_kernel(kernel_name)


def _check_op(found: OpMappings, registry: ArgMappingRegistry, factory: Any) -> list[Problem]:
    problems = list(found.problems)
    if found.how == "none" or _is_fluid_only(found, factory):
        return problems
    if found.signatures and all(is_pending_grad(found.op_type, p.signature.name, factory)
                                for p in found.signatures):
        return problems
    proto = _proto_or_none(registry, found.op_type)
    runtime = ([a.name for a in opmakers.get_runtime_attrs(found.op_type)]
               if opmakers.has_op(found.op_type) else [])
    entry = registry.compat_entry(found.op_type)
    kinds = {t.attr: t.kind for t in entry.tensor_attrs} if entry is not None else {}
    for possible in found.signatures:
        sig = possible.signature
        if sig.is_unregistered:
            continue
        for message in signature_problems(found.op_type, sig, proto, factory,
                                          runtime_attr_names=runtime, tensor_attr_kinds=kinds):
            problems.append(Problem(found.op_type, sig, message, found.where))
    return problems


def main_argmap_check(argv: Sequence[str] | None = None) -> int:
    """``fluid-compat argmap-check``: print every op's possible signatures and the problems;
    exit status 1 when there are problems."""
    parser = argparse.ArgumentParser(
        prog="fluid-compat argmap-check",
        description="Check every possible KernelSignature of the legacy ops against the "
                    "registered phi kernels.")
    parser.add_argument("ops", nargs="*", help="only these op types (default: all)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="list every possible signature with its condition")
    parser.add_argument("--kinds", default=",".join(SUPPORTED_KINDS),
                        help="variable kinds to try, among "
                             f"{', '.join(TENSOR_KINDS)} (default: %(default)s, the kinds "
                             "fluid_compat's scopes hold)")
    args = parser.parse_args(list(argv) if argv is not None else None)
    kinds = tuple(k for k in args.kinds.split(",") if k)
    unknown = [k for k in kinds if k not in TENSOR_KINDS]
    if unknown or not kinds:
        parser.error(f"--kinds takes a comma list of {', '.join(TENSOR_KINDS)}")
    try:
        found_all, problems, factory = _run_check(None, None, args.ops or None, kinds)
    except NotFound as exc:
        print(exc, file=sys.stderr)
        return 2
    fluid_only = [f.op_type for f in found_all if _is_fluid_only(f, factory)]
    n_sigs = 0
    for found in found_all:
        n_sigs += len(found.signatures)
        if args.verbose:
            print(f"{found.op_type}: {found.how} ({found.where})")
            for possible in found.signatures:
                print(f"    {possible.signature}    when {possible.condition}")
    if fluid_only:
        print(f"fluid only (no phi kernel of the default name): {', '.join(fluid_only)}")
    for problem in problems:
        print(f"PROBLEM {problem}")
    print(f"-- {len(found_all)} ops, {n_sigs} possible signatures, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main_argmap_check(sys.argv[1:]))
