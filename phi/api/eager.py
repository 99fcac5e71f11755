"""The eager API: one Python function per ops.yaml entry, built when first used.

A call does what Paddle's generated C++ API does (reference §3.5):

1. parse the kernel key from the tensor arguments (highest-priority backend, last tensor's
   layout and dtype, complex promotion) and the entry's data_type / backend overrides;
2. select the kernel (with CPU fallback) -- decided once per (op, key, place) and cached as an
   ``_Plan`` until the kernel table or a flag changes;
3. prepare each input for the kernel's argument definition (place, dtype, layout);
4. run InferMeta, call the kernel, check its outputs against the inferred meta;
5. after a CPU fallback, move the outputs back to the requested device.

The functions are generated as Python source (like Paddle's api_gen.py) so that each has a real
signature, its defaults from the YAML, and argument checks inlined without per-call loops.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

import phi.infermeta as infermeta_module
from phi.api.loader import infer_meta_function_name
from phi.infermeta import decided_by_kernel
from phi.backends import get_context
from phi.common.backend import Backend
from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.common.layout import DataLayout
from phi.common.place import CPUPlace, Place, to_place
from phi.common.scalar import Scalar
from phi.core import trace
from phi.core.errors import InvalidArgument, PhiError, PreconditionNotMet
from phi.core.kernel_key import KernelKey
from phi.core.registry import KernelFactory, KernelResult, kernel_factory
from phi.core.tensor import CPU_PLACE, DenseTensor, MetaTensor
from phi.transform import DEFAULT_FLAG, TransformFlag, prepare_data, transform_place

__all__ = ["ApiOp", "build_api"]

_ALL_DTYPE = DataType.ALL_DTYPE
_UNDEFINED = DataType.UNDEFINED
_COMPLEX = (DataType.COMPLEX64, DataType.COMPLEX128)
_GPU = Backend.GPU
_GPUDNN = Backend.GPUDNN
_NP_DTYPES = {d: d.to_numpy() for d in DataType
              if d not in (DataType.UNDEFINED, DataType.PSTRING, DataType.NUM_DATA_TYPES)}


class _Plan:
    """What one (op, key, place) resolves to; rebuilt when the factory changes."""

    __slots__ = (
        "ctx",
        "fallback_place",
        "fast",
        "fn",
        "generation",
        "in_defs",
        "kernel",
        "place",
        "requested",
        "result",
    )

    def __init__(self, result: KernelResult, place: Place, requested: Place, generation: int):
        self.result = result
        self.kernel = result.kernel
        self.fn = result.kernel.fn
        self.place = place
        self.ctx = get_context(place)
        self.in_defs = result.kernel.args_def.inputs
        self.fallback_place = requested if result.has_fallback_cpu else None
        self.generation = generation
        self.requested = requested
        self.fast: tuple | None = None  # ((arg index, dtype to check or None), ...)


class ApiOp:
    """The run-time form of one OpSpec: argument positions resolved once."""

    def __init__(self, spec, factory: KernelFactory) -> None:
        self.spec = spec
        self.name = spec.name
        self.factory = factory
        names = [a.name for a in spec.args]
        self.index = {n: i for i, n in enumerate(names)}
        self.tensor_idx = tuple(i for i, a in enumerate(spec.args) if a.is_tensor)
        self.vector_idx = frozenset(i for i, a in enumerate(spec.args) if a.type == "Tensor[]")
        kparam = spec.kernel.param if spec.kernel.param is not None else names
        self.kernel_name = spec.kernel.func
        self.kernel_inputs = tuple(self.index[n] for n in kparam if spec.arg(n).is_tensor)
        self.kernel_attrs = tuple(self.index[n] for n in kparam if not spec.arg(n).is_tensor)
        iparam = spec.infer_meta.param if spec.infer_meta.param is not None else names
        self.infer_args = tuple(self.index[n] for n in iparam)
        fname = infer_meta_function_name(spec.infer_meta.func)
        fn = getattr(infermeta_module, fname, None)
        if fn is None:
            raise InvalidArgument(
                f"{spec.source}: infer_meta func {spec.infer_meta.func} has no function "
                f"phi.infermeta.{fname}."
            )
        self.infer_meta = fn
        self.outputs = spec.outputs
        # for Tensor[] outputs: (argument index, whether the count is len(arg) or arg itself)
        self.count_arg = tuple(
            (self.index[o.count.split(".")[0]], o.count.endswith(".size()")) if o.count
            else None for o in spec.outputs
        )
        self.flags = tuple(
            TransformFlag(stop_transform=True) if spec.args[i].name in spec.skip_transform
            else TransformFlag(trans_dtype=True) if spec.args[i].name in spec.support_trans_dtype
            else DEFAULT_FLAG
            for i in self.kernel_inputs
        )
        self.data_type_rule = self._rule(spec.kernel.data_type)
        self.backend_rule = self._rule(spec.kernel.backend)
        self.layout_rule = self._rule(spec.kernel.layout)
        self.plans: dict[KernelKey, _Plan] = {}
        self.vector_out = any(o.type == "Tensor[]" for o in spec.outputs)
        # positions of the outputs the API returns (intermediate ones are computed, not returned)
        self.returned = tuple(i for i, o in enumerate(spec.outputs)
                              if o.name not in spec.intermediate)
        self.n_out = len(spec.outputs)

    def _rule(self, text: str | None) -> tuple[int, ...] | None:
        if text is None:
            return None
        return tuple(self.index[p.strip()] for p in text.split(">"))

    # -- 1. the kernel key ------------------------------------------------------------------
    def kernel_key(self, args) -> tuple[KernelKey, Place]:
        backend = 0
        place = None
        layout = DataLayout.ALL_LAYOUT
        dtype = _UNDEFINED
        complex_seen = False
        for i in self.tensor_idx:
            t = args[i]
            if t is None:
                continue
            if i in self.vector_idx:
                if not t:
                    continue
                for e in t:
                    if e.data is not None:
                        b = e.place.backend
                        if b is _GPU:
                            b = _GPUDNN
                        if b > backend:
                            backend, place = b, e.place
                t = t[0]
            elif t.data is not None:
                b = t.place.backend
                if b is _GPU:
                    b = _GPUDNN  # a GPU tensor also allows cuDNN kernels (use_gpudnn default)
                if b > backend:
                    backend, place = b, t.place
            layout = t.layout
            dtype = t.dtype
            if dtype in _COMPLEX:
                complex_seen = True
        if complex_seen:
            dtype = self._promote_complex(args)
        if self.data_type_rule is not None:
            dtype = self._data_type(args, dtype)
        if self.backend_rule is not None:
            for i in self.backend_rule:
                v = args[i]
                if isinstance(v, Place):
                    backend, place = v.backend, v
                    break
                if isinstance(v, DenseTensor) and v.data is not None:
                    backend, place = v.place.backend, v.place
                    if backend is _GPU:
                        backend = _GPUDNN
                    break
        if place is None:
            backend, place = Backend.CPU, CPU_PLACE
        return KernelKey(backend, layout, dtype), place

    def _promote_complex(self, args) -> DataType:
        dtypes = set()
        last = _UNDEFINED
        for i in self.tensor_idx:
            t = args[i]
            if t is None:
                continue
            t = t[0] if i in self.vector_idx and t else t
            if isinstance(t, DenseTensor):
                dtypes.add(t.dtype)
                last = t.dtype
        if DataType.COMPLEX128 in dtypes:
            return DataType.COMPLEX128
        if DataType.COMPLEX64 in dtypes:
            return DataType.COMPLEX128 if DataType.FLOAT64 in dtypes else DataType.COMPLEX64
        return last

    def _data_type(self, args, dtype: DataType) -> DataType:
        for i in self.data_type_rule:  # type: ignore[union-attr]
            v = args[i]
            if isinstance(v, DataType):
                if v is not _UNDEFINED:
                    return v
            elif isinstance(v, DenseTensor):
                return v.dtype
            elif isinstance(v, list) and v:
                first = v[0].dtype
                for e in v:
                    if e.dtype != first:
                        raise InvalidArgument(
                            f"{self.name}: The data_type of input tensor in list isn't "
                            f"consistent, the first tensor is {first}, but got {e.dtype}."
                        )
                return first
        return dtype

    # -- 2. the plan -----------------------------------------------------------------------
    def plan(self, key: KernelKey, place: Place) -> _Plan:
        result = self.factory.select_kernel_or_raise(self.kernel_name, key)
        kernel_place = CPU_PLACE if result.has_fallback_cpu else place
        if result.kernel.key.backend is Backend.CPU:
            kernel_place = CPU_PLACE
        n_defs = len(result.kernel.args_def.inputs)
        if n_defs != len(self.kernel_inputs):
            raise PreconditionNotMet(
                f"{self.name}: ops.yaml gives kernel `{self.kernel_name}` "
                f"{len(self.kernel_inputs)} tensor inputs but the kernel defines {n_defs}."
            )
        p = _Plan(result, kernel_place, place, self.factory.generation)
        simple = (
            not result.has_fallback_cpu
            and not self.vector_idx
            and not self.spec.optional
            and all(f is DEFAULT_FLAG for f in self.flags)
            and all(d.layout is DataLayout.ALL_LAYOUT for d in p.in_defs)
        )
        if simple:
            p.fast = tuple(
                (i, None if d.dtype is _ALL_DTYPE else d.dtype)
                for i, d in zip(self.kernel_inputs, p.in_defs, strict=False)
            )
        self.plans[key] = p
        return p

    # -- the call --------------------------------------------------------------------------
    def __call__(self, args: list) -> Any:
        key, place = self.kernel_key(args)
        plan = self.plans.get(key)
        if (plan is None or plan.generation != self.factory.generation
                or (plan.requested is not place and plan.requested != place)):
            plan = self.plan(key, place)
        if plan.fast is None:
            return self._call_general(args, key, plan)
        # fast path: dense inputs already where and what the kernel wants (the usual case)
        kplace = plan.place
        kernel_args = []
        for i, want in plan.fast:
            t = args[i]
            if (t.place is not kplace and t.place != kplace) or (
                    want is not None and t.dtype is not want):
                return self._call_general(args, key, plan)
            kernel_args.append(t.data)
        for i in self.kernel_attrs:
            kernel_args.append(args[i])
        metas = (self._new_metas(args) if self.vector_out or self.n_out > 1
                 else [MetaTensor()])
        try:
            self.infer_meta(*[args[i] for i in self.infer_args], *metas)
        except PhiError as exc:
            raise type(exc)(f"{self.name}: {exc.message}") from exc
        if trace.LEVEL:
            self._trace(args, key, plan)
        result = plan.fn(plan.ctx, *kernel_args)
        if self.n_out == 1 and not self.vector_out:
            return self._wrap(result, metas[0], plan)
        return self._wrap_all(result, metas, plan)

    def _call_general(self, args: list, key: KernelKey, plan: _Plan) -> Any:
        kplace = plan.place
        # 3. prepare inputs in kernel order; check dtypes the kernel is tied to
        prepared = list(args)
        kernel_args = []
        for j, i in enumerate(self.kernel_inputs):
            d = plan.in_defs[j]
            t = args[i]
            if t is None:
                kernel_args.append(None)
                continue
            flag = self.flags[j]
            what = self.spec.args[i].name
            if i in self.vector_idx:
                ts = [prepare_data(e, d, kplace, flag, what=what) for e in t]
                for e in ts:
                    self._check_dtype(e, d, i)
                prepared[i] = ts
                kernel_args.append([e.data for e in ts])
            else:
                t = prepare_data(t, d, kplace, flag, what=what)
                prepared[i] = t
                if flag is DEFAULT_FLAG:
                    self._check_dtype(t, d, i)
                kernel_args.append(t.data)
        for i in self.kernel_attrs:
            kernel_args.append(args[i])
        # 4. infer meta, call, check
        metas = self._new_metas(args)
        try:
            self.infer_meta(*[prepared[i] for i in self.infer_args], *metas)
        except PhiError as exc:
            raise type(exc)(f"{self.name}: {exc.message}") from exc
        if trace.LEVEL:
            self._trace(args, key, plan)
        result = plan.fn(plan.ctx, *kernel_args)
        return self._wrap_all(result, metas, plan)

    def _wrap_all(self, result, metas, plan: _Plan):
        if self.n_out == 1:
            return self._wrap(result, metas[0], plan)
        if len(result) != self.n_out:
            raise PreconditionNotMet(f"{self.name}: kernel `{self.kernel_name}` returned "
                                     f"{len(result)} outputs, ops.yaml declares {self.n_out}.")
        outs = [self._wrap(result[i], metas[i], plan) for i in self.returned]
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _check_dtype(self, t: DenseTensor, d, i: int) -> None:
        if d.dtype is _ALL_DTYPE or t.dtype == d.dtype:
            return
        raise InvalidArgument(
            f"{self.name}: argument `{self.spec.args[i].name}` has dtype {t.dtype}, but the "
            f"selected kernel `{self.kernel_name}` takes {d.dtype} (the kernel "
            f"key's dtype comes from the last tensor argument). Cast the inputs to one dtype."
        )

    def _new_metas(self, args) -> list:
        metas: list = []
        for o, ci in zip(self.outputs, self.count_arg, strict=False):
            if o.type == "Tensor[]":
                if ci is None:
                    n = 0
                else:
                    v = args[ci[0]]
                    n = len(v) if ci[1] else int(v)
                metas.append([MetaTensor() for _ in range(n)])
            else:
                metas.append(MetaTensor())
        return metas

    def _wrap(self, array, meta, plan: _Plan):
        if isinstance(meta, list):
            if len(array) != len(meta):
                raise PreconditionNotMet(
                    f"{self.name}: kernel `{self.kernel_name}` returned {len(array)} tensors, "
                    f"InferMeta expected {len(meta)}."
                )
            return [self._wrap(a, m, plan) for a, m in zip(array, meta, strict=False)]
        if type(array) is np.ndarray:
            bad = array.dtype != _NP_DTYPES.get(meta.dtype)
        elif plan.place is CPU_PLACE:
            array = np.asarray(array)
            bad = array.dtype != _NP_DTYPES.get(meta.dtype)
        else:
            bad = plan.ctx.data_type(array) != meta.dtype
        shape = array.shape
        if shape != meta.dims and decided_by_kernel(shape, meta.dims):
            meta.set_dims(shape)  # a data-dependent size (-1 in InferMeta): the kernel's
        if shape != meta.dims or bad:
            raise PreconditionNotMet(
                f"{self.name}: kernel `{plan.kernel.name}` {plan.kernel.key} returned "
                f"{list(shape)} {plan.ctx.data_type(array)}, but InferMeta says "
                f"{list(meta.dims)} {meta.dtype}: the kernel and its InferMeta disagree."
            )
        out = DenseTensor(array, meta.dtype, plan.place, meta.layout)
        if plan.fallback_place is not None:
            out = transform_place(out, plan.fallback_place, what=f"{self.name} output")
        return out

    def _trace(self, args, key: KernelKey, plan: _Plan) -> None:
        parts = []
        for i in self.tensor_idx:
            t = args[i]
            name = self.spec.args[i].name
            if t is None:
                parts.append(f"{name}=None")
            elif isinstance(t, list):
                parts.append(f"{name}=[{len(t)} tensors]")
            else:
                parts.append(f"{name}:{t.dtype}{list(t.dims)}@{t.place}")
        fb = " (CPU fallback, outputs go back to " + str(plan.fallback_place) + ")" if (
            plan.fallback_place is not None) else ""
        trace.logger.info(
            "%s(%s) key %s -> kernel %s %s%s", self.name, ", ".join(parts), key,
            plan.kernel.name, plan.kernel.key, fb,
        )
        if trace.LEVEL >= 2:
            for s in plan.result.steps:
                trace.logger.debug("  %s", s)


# -- argument conversion used by the generated functions ------------------------------------

def to_tensor(value: object, op: str, arg: str) -> DenseTensor:
    if isinstance(value, DenseTensor):
        return value
    if isinstance(value, np.ndarray) or (np.isscalar(value) and not isinstance(value, str)):
        return DenseTensor.from_numpy(value)
    if hasattr(value, "__array__") and not isinstance(value, (list, tuple)):
        return DenseTensor.from_numpy(np.asarray(value))
    raise InvalidArgument(
        f"{op}: argument `{arg}` expects a DenseTensor or numpy array, got "
        f"{type(value).__name__}."
    )


def to_tensor_list(value: object, op: str, arg: str) -> list[DenseTensor]:
    if not isinstance(value, (list, tuple)):
        raise InvalidArgument(
            f"{op}: argument `{arg}` expects a list of tensors, got {type(value).__name__}."
        )
    return [to_tensor(v, op, f"{arg}[{k}]") for k, v in enumerate(value)]


def to_optional_tensor(value: object, op: str, arg: str) -> DenseTensor | None:
    return None if value is None else to_tensor(value, op, arg)


def to_scalar(value: object, op: str, arg: str) -> Scalar:
    try:
        if isinstance(value, DenseTensor):
            return Scalar(value.numpy(), from_tensor=True)
        return Scalar(value)
    except PhiError as exc:
        raise InvalidArgument(f"{op}: argument `{arg}`: {exc.message}") from exc


def to_int_array(value: object, op: str, arg: str) -> IntArray:
    try:
        if isinstance(value, DenseTensor):
            return IntArray(value.numpy().reshape(-1), from_tensor=True)
        if isinstance(value, (list, tuple)) and any(isinstance(v, DenseTensor) for v in value):
            return IntArray([to_tensor(v, op, arg).numpy().reshape(-1)[0] for v in value],
                            from_tensor=True)
        return IntArray(value)
    except PhiError as exc:
        raise InvalidArgument(f"{op}: argument `{arg}`: {exc.message}") from exc


def to_data_type(value: object, op: str, arg: str) -> DataType:
    try:
        return DataType.from_any(value)
    except PhiError as exc:
        raise InvalidArgument(f"{op}: argument `{arg}`: {exc.message}") from exc


def to_place_arg(value: object, op: str, arg: str) -> Place | None:
    if value is None:
        return None
    try:
        return to_place(value)
    except PhiError as exc:
        raise InvalidArgument(f"{op}: argument `{arg}`: {exc.message}") from exc


def to_layout(value: object, op: str, arg: str) -> DataLayout:
    try:
        return DataLayout.from_any(value)
    except PhiError as exc:
        raise InvalidArgument(f"{op}: argument `{arg}`: {exc.message}") from exc


def _plain(kind: type, label: str) -> Callable:
    def convert(value: object, op: str, arg: str):
        if kind is float and isinstance(value, (int, float, np.floating, np.integer)) and not (
            isinstance(value, bool)
        ):
            return float(value)
        if kind is int and isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            return int(value)
        if kind is bool and isinstance(value, (bool, np.bool_)):
            return bool(value)
        if kind is str and isinstance(value, str):
            return value
        raise InvalidArgument(f"{op}: argument `{arg}` expects {label}, got {value!r}.")

    return convert


def _plain_list(kind: type, label: str) -> Callable:
    item = _plain(kind, label)

    def convert(value: object, op: str, arg: str):
        if not isinstance(value, (list, tuple)):
            raise InvalidArgument(f"{op}: argument `{arg}` expects a list of {label}, got "
                                  f"{value!r}.")
        return [item(v, op, arg) for v in value]

    return convert


def _scalar_list(value: object, op: str, arg: str) -> list:
    if not isinstance(value, (list, tuple)):
        raise InvalidArgument(f"{op}: argument `{arg}` expects a list of scalars, got "
                              f"{value!r}.")
    return [to_scalar(v, op, arg) for v in value]


# (converter, exact class that needs no conversion) per YAML type
_CONVERTERS: dict[str, tuple[Callable, type | None]] = {
    "Tensor": (to_tensor, DenseTensor),
    "Tensor[]": (to_tensor_list, None),
    "Scalar": (to_scalar, Scalar),
    "IntArray": (to_int_array, IntArray),
    "DataType": (to_data_type, DataType),
    "DataLayout": (to_layout, DataLayout),
    "Place": (to_place_arg, None),
    "int": (_plain(int, "an int"), int),
    "int64_t": (_plain(int, "an int"), int),
    "float": (_plain(float, "a float"), float),
    "double": (_plain(float, "a float"), float),
    "bool": (_plain(bool, "a bool"), bool),
    "str": (_plain(str, "a str"), str),
    "int[]": (_plain_list(int, "ints"), None),
    "int64_t[]": (_plain_list(int, "ints"), None),
    "float[]": (_plain_list(float, "floats"), None),
    "double[]": (_plain_list(float, "floats"), None),
    "bool[]": (_plain_list(bool, "bools"), None),
    "str[]": (_plain_list(str, "strs"), None),
    "Scalar[]": (_scalar_list, None),
}


def _default_source(arg) -> str:
    """The Python expression of a YAML default."""
    text = arg.default.strip()
    if text in ("true", "false"):
        return "True" if text == "true" else "False"
    if text.startswith("DataType::"):
        return f"_DataType.{text.split('::', 1)[1]}"
    if text.startswith("DataLayout::"):
        return f"_DataLayout.{text.split('::', 1)[1]}"
    if text == "CPUPlace()":
        return "_CPU_PLACE"
    if text == "{}":
        return "None" if arg.type == "Place" else "()"
    if text.startswith("{") and text.endswith("}"):
        return "(" + text[1:-1] + ",)"
    if re.fullmatch(r"-?\d+(\.\d*)?([eE]-?\d+)?f?", text):
        return text.rstrip("f")
    if text.startswith('"') and text.endswith('"'):
        return repr(text[1:-1])
    raise InvalidArgument(f"{arg}: cannot read the default {text!r}.")


def _function_source(spec, inplace: bool) -> str:
    params = []
    for a in spec.args:
        params.append(a.name if a.default is None else f"{a.name}={_default_source(a)}")
    fname = spec.name + ("_" if inplace else "")
    lines = [f"def {fname}({', '.join(params)}):"]
    lines.append(f'    """{spec.name}{"_ (in place)" if inplace else ""}: see ops.yaml '
                 f'({spec.source.rsplit("/", 1)[-1]})."""')
    for a in spec.args:
        conv = "to_optional_tensor" if a.name in spec.optional else None
        exact = None if conv else _CONVERTERS[a.type][1]
        conv = conv or f"_conv_{a.type.replace('[]', '_list').replace('::', '_')}"
        if exact is not None:
            lines.append(f"    if {a.name}.__class__ is not _exact_{a.type}:")
            lines.append(f"        {a.name} = {conv}({a.name}, {spec.name!r}, {a.name!r})")
        else:
            lines.append(f"    {a.name} = {conv}({a.name}, {spec.name!r}, {a.name!r})")
    call = f"_op([{', '.join(a.name for a in spec.args)}])"
    if not inplace:
        lines.append(f"    return {call}")
    else:
        src, _dst = spec.inplace[0]
        lines.append(f"    _out = {call}")
        lines.append(f"    return _write_back({src}, _out, {spec.name!r})")
    return "\n".join(lines) + "\n"


def _write_back(target: DenseTensor, out: DenseTensor, op: str) -> DenseTensor:
    if tuple(out.dims) != tuple(target.dims):
        raise InvalidArgument(
            f"{op}_: the in-place output has shape {list(out.dims)} but the input being "
            f"overwritten has shape {list(target.dims)}."
        )
    target.data = out.data
    target.dtype = out.dtype
    target.place = out.place
    target.layout = out.layout
    return target


def build_api(specs, factory: KernelFactory | None = None) -> dict[str, Callable]:
    """Build ``{name: function}`` (and ``name_`` for in-place entries) from OpSpec records."""
    factory = factory or kernel_factory()
    namespace: dict[str, Callable] = {}
    for spec in specs:
        op = ApiOp(spec, factory)
        env: dict[str, Any] = {
            "_op": op,
            "_DataType": DataType,
            "_DataLayout": DataLayout,
            "_CPU_PLACE": CPUPlace(),
            "to_optional_tensor": to_optional_tensor,
            "_write_back": _write_back,
        }
        for type_name, (conv, exact) in _CONVERTERS.items():
            env[f"_conv_{type_name.replace('[]', '_list').replace('::', '_')}"] = conv
            env[f"_exact_{type_name}"] = exact
        variants = [False] + ([True] if spec.inplace else [])
        for inplace in variants:
            source = _function_source(spec, inplace)
            try:
                code = compile(source, f"<phi.api {spec.name}>", "exec")
            except SyntaxError as exc:  # pragma: no cover - a bug in this generator
                raise PreconditionNotMet(f"{spec.source}: generated code is invalid: {exc}\n"
                                         f"{source}") from exc
            exec(code, env)
            fname = spec.name + ("_" if inplace else "")
            fn = env[fname]
            fn.__module__ = "phi.api"
            fn.__source__ = source
            fn.op = op
            namespace[fname] = fn
    return namespace
