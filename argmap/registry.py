"""Which phi kernel a legacy op calls: mapping functions, declared mappings, default signatures.

`get_kernel_signature(op_type, ctx)` answers in this order (Paddle's ``GetExpectedPhiKernelArgs``
with our declarative step in between):

1. a deprecated legacy name (`DEPRECATED_OP_NAMES`) or an operator that runs no kernel
   (`KERNELLESS_OPS`): None — the op never reaches a same-named phi kernel;
2. a registered mapping function (irregular ops, ``argmap/sig/<op>.py``, and plug-ins);
3. a declared entry of ``op_compat.yaml`` (regular ops, `argmap.compat`);
4. the default signature built from the op's OpProto (`argmap.default`, reference §6.2).

The process-wide registry is `default_registry()`; it is built on first use from the package's
``op_compat.yaml``, and finds an op's mapping functions by the layout rule (`SIG_LAYOUT`): the
first question about an op imports ``argmap/sig/<op>.py`` (``<op>`` less a grad suffix) when it
exists and adds the mappings recorded in its ``MAPPINGS``; listing imports every module of
``argmap/sig``, so that no listing sees fewer mappings than an eager import holds.  Its contents
never depend on what else was imported.  Tests build private `ArgMappingRegistry` instances.
Registering an op twice raises AlreadyExists; a failed lookup raises NotFound naming the op and
the closest known ones.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from phi.core.records import field, frozen

import opmakers
from argmap.compat import GRAD_COMPAT_FILE, CompatEntry, load_compat
from argmap.context import ArgumentMappingContext
from argmap.default import default_signature
from argmap.signature import KernelSignature
from opmakers import OpProto
from opmakers.grad import grad_op_proto, is_grad_op_type
from phi.core.errors import AlreadyExists, InvalidArgument, NotFound
from phi.core.layout import Layout

__all__ = [
    "BASE_KERNEL_NAMES",
    "DEPRECATED",
    "DEPRECATED_OP_NAMES",
    "KERNELLESS_OPS",
    "ArgMappingRegistry",
    "MappingFamily",
    "MappingFn",
    "MappingInfo",
    "SIG_LAYOUT",
    "arg_mapping",
    "base_kernel_name",
    "default_registry",
    "fluid_op_name",
    "get_kernel_signature",
    "has_compatible_phi_kernel",
    "is_deprecated_op",
    "sig_families",
]

MappingFn = Callable[[ArgumentMappingContext], KernelSignature]

#: Paddle 2.6.2's ``PD_REGISTER_BASE_KERNEL_NAME`` map for forward ops whose phi kernel is named
#: otherwise (reference §6.3, verified with ``core._get_phi_kernel_name`` over all 784 OpProtos).
#: Every other op's base kernel name is its own name.
BASE_KERNEL_NAMES: Mapping[str, str] = {
    "arg_max": "argmax",
    "arg_min": "argmin",
    "bicubic_interp_v2": "bicubic_interp",
    "bilinear_interp_v2": "bilinear_interp",
    "linear_interp_v2": "linear_interp",
    "nearest_interp_v2": "nearest_interp",
    "trilinear_interp_v2": "trilinear_interp",
    "bilinear_tensor_product": "bilinear",
    "brelu": "hardtanh",
    "crop_tensor": "crop",
    "deformable_conv_v1": "deformable_conv",
    "determinant": "det",
    "diag_v2": "diag",
    "elementwise_add": "add",
    "elementwise_sub": "subtract",
    "elementwise_mul": "multiply",
    "elementwise_div": "divide",
    "elementwise_max": "maximum",
    "elementwise_min": "minimum",
    "elementwise_mod": "remainder",
    "elementwise_floordiv": "floor_divide",
    "elementwise_fmax": "fmax",
    "elementwise_fmin": "fmin",
    "elementwise_heaviside": "heaviside",
    "expand_v2": "expand",
    "expand_as_v2": "expand_as",
    "feed": "feed_dense_tensor",
    "fill_any": "fill",
    "fill_any_like": "full_like",
    "fill_constant": "full",
    "fill_constant_batch_size_like": "full_batch_size_like",
    "flatten_contiguous_range": "flatten",
    "gaussian_random": "gaussian",
    "generate_proposals_v2": "generate_proposals",
    "graph_send_recv": "send_u_recv",
    "graph_send_ue_recv": "send_ue_recv",
    "graph_send_uv": "send_uv",
    "graph_reindex": "reindex_graph",
    "grid_sampler": "grid_sample",
    "hard_shrink": "hardshrink",
    "hard_sigmoid": "hardsigmoid",
    "hard_swish": "hardswish",
    "hierarchical_sigmoid": "hsigmoid_loss",
    "isfinite_v2": "isfinite",
    "isinf_v2": "isinf",
    "isnan_v2": "isnan",
    "lookup_table_v2": "embedding",
    "matmul_v2": "matmul",
    "mean": "mean_all",
    "mul": "matmul_with_flatten",
    "one_hot_v2": "one_hot",
    "range": "arange",
    "reduce_all": "all",
    "reduce_any": "any",
    "reduce_amax": "amax",
    "reduce_amin": "amin",
    "reduce_max": "max",
    "reduce_mean": "mean",
    "reduce_min": "min",
    "reduce_prod": "prod",
    "reduce_sum": "sum",
    "reshape2": "reshape",
    "save_combine": "save_combine_tensor",
    "size": "numel",
    "slogdeterminant": "slogdet",
    "softmax_with_cross_entropy": "cross_entropy_with_softmax",
    "squeeze2": "squeeze",
    "sum": "add_n",
    "top_k_v2": "topk",
    "transfer_dtype": "cast",
    "transpose2": "transpose",
    "uniform_random": "uniform",
    "uniform_random_inplace": "uniform_inplace",
    "unsqueeze2": "unsqueeze",
    "where_index": "nonzero",
    "yolov3_loss": "yolo_loss",
}

#: Paddle 2.6.2's ``deprecated_op_names`` (reference §6.3): old fluid ops whose names now belong
#: to phi kernels with other semantics.  They never run a phi kernel; their fluid kernels do.
DEPRECATED_OP_NAMES: frozenset[str] = frozenset({
    "diag", "flatten", "flatten_grad", "isinf", "isnan", "unsqueeze", "unsqueeze_grad",
    "squeeze", "squeeze_grad", "isfinite", "fill", "matmul", "matmul_grad", "matmul_grad_grad",
    "max", "max_grad", "min", "min_grad", "prod", "prod_grad", "any", "all", "reshape",
    "reshape_grad", "expand", "expand_as", "expand_grad", "expand_as_grad", "one_hot", "top_k",
    "top_k_grad", "linear_interp", "linear_interp_grad", "bilinear_interp",
    "bilinear_interp_grad", "trilinear_interp", "trilinear_interp_grad", "nearest_interp",
    "nearest_interp_grad", "bicubic_interp", "bicubic_interp_grad", "crop", "crop_grad",
    "generate_proposals",
})

#: Paddle's ``GetBaseKernelName`` answer for a deprecated op.
DEPRECATED = "deprecated"

#: Legacy ops that are operators without kernels in 2.6.2 (``OperatorBase``), so no argument
#: mapping ever happens for them; the corpus records no signature.  op type -> why.
KERNELLESS_OPS: Mapping[str, str] = {
    "fetch": "FetchOp is an OperatorBase in 2.6.2: it copies its input into the fetch list "
             "itself (the new executor inserts fetch_v2 for it)",
}


@frozen
class MappingInfo:
    """One registered mapping function and what the check needs to drive it."""

    op_type: str
    fn: MappingFn = field(eq=False)
    #: attribute name -> the values `argmap.check` tries for ``ctx.attr(name)``; attributes not
    #: listed get candidates derived from their OpProto type and default.
    attr_values: Mapping[str, tuple[Any, ...]] = field(factory=dict, eq=False)
    origin: str = ""

    def __call__(self, ctx: ArgumentMappingContext) -> KernelSignature:
        return self.fn(ctx)


def _origin(fn: Callable[..., Any]) -> str:
    code = getattr(inspect.unwrap(fn), "__code__", None)
    if code is not None:
        # what inspect.getsourcelines answers (the first decorator's line), without reading
        # and tokenizing the source file: ~1 ms a function, paid at the first op of a program
        path, line = code.co_filename, code.co_firstlineno
        marker = path.rfind("argmap/")
        return f"{path[marker:] if marker >= 0 else path}:{line}"
    try:
        path = inspect.getsourcefile(fn) or "?"
        line = inspect.getsourcelines(fn)[1]
    except (OSError, TypeError):
        return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', '?')}"
    marker = path.rfind("argmap/")
    return f"{path[marker:] if marker >= 0 else path}:{line}"


def _info(op_type: str, fn: MappingFn,
          attr_values: Mapping[str, Iterable[Any]] | None, origin: str | None = None
          ) -> MappingInfo:
    values = {k: tuple(v) for k, v in (attr_values or {}).items()}
    return MappingInfo(op_type, fn, values, origin or _origin(fn))


class MappingFamily:
    """The mapping functions of one module of ``argmap/sig`` (its ``MAPPINGS``; like opmakers'
    OpFamily).

    ``@MAPPINGS.arg_mapping("split", attr_values={"num": (0, 2)})`` records a function here and
    nowhere else; `default_registry` reads a module's family when it imports the module.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._infos: dict[str, MappingInfo] = {}

    def arg_mapping(self, op_type: str, *,
                    attr_values: Mapping[str, Iterable[Any]] | None = None
                    ) -> Callable[[MappingFn], MappingFn]:
        """Decorator: record the decorated function as the mapping of `op_type`."""

        def record(fn: MappingFn) -> MappingFn:
            self._record(op_type, fn, attr_values, None)
            return fn

        return record

    def add(self, op_type: str, fn: MappingFn, *,
            attr_values: Mapping[str, Iterable[Any]] | None = None) -> None:
        """Record `fn` as the mapping of `op_type` (a function made by a helper such as
        ``argmap.sig.funcs.plain_or_raw``).  A function made in another module than the caller's
        has the caller's line as its origin: where the op's mapping is written."""
        caller = sys._getframe(1)
        origin = None
        if caller.f_globals.get("__name__") != getattr(fn, "__module__", None):
            path = caller.f_code.co_filename
            marker = path.rfind("argmap/")
            origin = f"{path[marker:] if marker >= 0 else path}:{caller.f_lineno}"
        self._record(op_type, fn, attr_values, origin)

    def _record(self, op_type: str, fn: MappingFn,
                attr_values: Mapping[str, Iterable[Any]] | None, origin: str | None) -> None:
        if op_type in self._infos:
            raise AlreadyExists(f"argument mapping of {op_type} is defined twice in family "
                                f"{self.name} ({self._infos[op_type].origin})")
        self._infos[op_type] = _info(op_type, fn, attr_values, origin)

    def mappings(self) -> tuple[MappingInfo, ...]:
        """The mappings in the order they were written."""
        return tuple(self._infos.values())

    def __repr__(self) -> str:
        return f"MappingFamily({self.name!r}, {len(self._infos)} ops)"


def _proto_or_grad_proto(op_type: str) -> OpProto:
    """The OpProto of a legacy op, or the proto of a grad op type (opmakers.grad_op_proto:
    its slots duplicable where the forward slots are, the forward op's attributes)."""
    if not opmakers.has_op(op_type) and is_grad_op_type(op_type):
        return grad_op_proto(op_type)
    return opmakers.get_op_proto(op_type)


class ArgMappingRegistry:
    """op type -> how to build its KernelSignature (Paddle's ``OpUtilsMap`` and default map).

    `proto_of` gives an op's OpProto for the default signature (default:
    ``opmakers.get_op_proto``); `op_types_with_proto` lists the ops that have one (default:
    ``opmakers.all_op_types``).
    """

    def __init__(
        self,
        *,
        compat: Iterable[CompatEntry] = (),
        families: Iterable[MappingFamily] = (),
        base_kernel_names: Mapping[str, str] = BASE_KERNEL_NAMES,
        deprecated: Iterable[str] = DEPRECATED_OP_NAMES,
        kernelless: Mapping[str, str] = KERNELLESS_OPS,
        proto_of: Callable[[str], OpProto] | None = None,
        op_types_with_proto: Callable[[], Iterable[str]] = opmakers.all_op_types,
        lazy_grad_compat: Callable[[], Iterable[CompatEntry]] | None = None,
        sig_layout: Layout | None = None,
    ) -> None:
        """`lazy_grad_compat` gives more declared entries, all of grad ops (``*_grad``), read
        on the first question about a grad op or a listing (the process-wide registry reads
        grad_compat.yaml so, which a forward-only program never needs).  `sig_layout` names
        the modules holding mapping families (each in its ``MAPPINGS``): the module the rule
        names for an op is imported, and its family added, on the first question about the
        op; every module on a listing (the process-wide registry passes `SIG_LAYOUT`)."""
        self._fns: dict[str, MappingInfo] = {}
        self._compat: dict[str, CompatEntry] = {}
        self._base_names = dict(base_kernel_names)
        self._fluid_names = {v: k for k, v in self._base_names.items()}
        self._deprecated = frozenset(deprecated)
        self._kernelless = dict(kernelless)
        self._proto_of = proto_of or _proto_or_grad_proto
        self._op_types_with_proto = op_types_with_proto
        self._defaults: dict[str, KernelSignature] = {}
        self._lazy_grad_compat = lazy_grad_compat
        self._lazy_lock = threading.Lock()
        self._sig_layout = sig_layout
        self._sig_asked: set[str] = set()  # op types whose sig module is read (or missing)
        self._sig_read: set[str] = set()  # sig modules whose family is added
        self._sig_done = sig_layout is None  # every sig module read
        self._sig_lock = threading.RLock()
        for entry in compat:
            self.add_compat(entry)
        for family in families:
            for info in family.mappings():
                self._add_info(info)

    def _need(self, op_type: str) -> None:
        """Read the lazy grad entries if `op_type` may be one of them."""
        if self._lazy_grad_compat is not None and op_type.endswith("_grad"):
            self._load_lazy()

    def _need_sig(self, op_type: str) -> None:
        """Read the sig module the layout rule names for `op_type` (once; cheap after)."""
        if self._sig_done or op_type in self._sig_asked:
            return
        with self._sig_lock:
            if self._sig_done or op_type in self._sig_asked:
                return
            layout = self._sig_layout
            module = layout.find(op_type) if layout is not None else None
            if module is not None and module.rpartition(".")[2] not in layout.helpers:
                self._read_sig(module)
            self._sig_asked.add(op_type)

    def _read_sig(self, module: str) -> None:
        """Import one sig module and add its family (the caller holds the sig lock)."""
        if module in self._sig_read:
            return
        family: MappingFamily = importlib.import_module(module).MAPPINGS
        for info in family.mappings():
            self._add_info(info)
        self._sig_read.add(module)

    def _need_all_sigs(self) -> None:
        """Read every sig module (for listings)."""
        if self._sig_done:
            return
        with self._sig_lock:
            if self._sig_done or self._sig_layout is None:
                return
            for module in self._sig_layout.modules():
                self._read_sig(module)
            self._sig_done = True

    def _load_lazy(self) -> None:
        if self._lazy_grad_compat is None:
            return
        with self._lazy_lock:
            load = self._lazy_grad_compat
            if load is None:
                return  # another thread read them while this one waited
            new: dict[str, CompatEntry] = {}
            for entry in load():
                if not entry.op.endswith("_grad"):
                    raise InvalidArgument(f"{entry.where}: {entry.op} is not a grad op; only "
                                          "grad ops (*_grad) may be declared lazily.")
                if entry.op in new:
                    raise AlreadyExists(f"op {entry.op} already has a declared mapping "
                                        f"({new[entry.op].where}); refusing the declared at "
                                        f"{entry.where}")
                self._refuse_taken(entry.op, f"declared at {entry.where}")
                new[entry.op] = entry
            self._compat.update(new)  # published whole, then the flag drops
            self._lazy_grad_compat = None

    # -- registration ---------------------------------------------------------------------
    def arg_mapping(self, op_type: str, *,
                    attr_values: Mapping[str, Iterable[Any]] | None = None
                    ) -> Callable[[MappingFn], MappingFn]:
        """Decorator: register the decorated function as the mapping of `op_type`."""

        def register(fn: MappingFn) -> MappingFn:
            self.register(op_type, fn, attr_values=attr_values)
            return fn

        return register

    def register(self, op_type: str, fn: MappingFn, *,
                 attr_values: Mapping[str, Iterable[Any]] | None = None) -> None:
        """Register a mapping function; AlreadyExists if `op_type` has a mapping."""
        self._need(op_type)
        self._need_sig(op_type)
        self._add_info(_info(op_type, fn, attr_values))

    def add_compat(self, entry: CompatEntry) -> None:
        """Register a declared entry; AlreadyExists if its op has a mapping."""
        self._need(entry.op)
        self._need_sig(entry.op)
        self._refuse_taken(entry.op, f"declared at {entry.where}")
        self._compat[entry.op] = entry

    def _add_info(self, info: MappingInfo) -> None:
        self._refuse_taken(info.op_type, f"function at {info.origin}")
        self._fns[info.op_type] = info

    def _refuse_taken(self, op_type: str, new: str) -> None:
        if op_type in self._fns:
            old = f"a mapping function ({self._fns[op_type].origin})"
        elif op_type in self._compat:
            old = f"a declared mapping ({self._compat[op_type].where})"
        else:
            return
        raise AlreadyExists(f"op {op_type} already has {old}; refusing the {new}")

    # -- names ----------------------------------------------------------------------------
    def is_deprecated(self, op_type: str) -> bool:
        """A legacy name kept off the same-named phi kernel (Paddle's deprecated_op_names)."""
        return op_type in self._deprecated

    def no_signature_reason(self, op_type: str) -> str | None:
        """Why `op_type` never gets a signature, or None when it may have one."""
        if op_type in self._deprecated:
            return (f"{op_type} is a deprecated legacy name in Paddle 2.6.2: the phi kernel of "
                    "that name has other semantics, so the op runs its fluid kernel")
        return self._kernelless.get(op_type)

    def base_kernel_name(self, op_type: str) -> str:
        """Paddle's ``TransToPhiKernelName``: ``"deprecated"``, the mapped name, or `op_type`."""
        if op_type in self._deprecated:
            return DEPRECATED
        return self._base_names.get(op_type, op_type)

    def fluid_op_name(self, kernel_name: str) -> str:
        """Paddle's ``TransToFluidOpName``: the legacy op whose base kernel is `kernel_name`."""
        return self._fluid_names.get(kernel_name, kernel_name)

    # -- lookups --------------------------------------------------------------------------
    def mapping_fn(self, op_type: str) -> MappingInfo | None:
        self._need_sig(op_type)
        return self._fns.get(op_type)

    def compat_entry(self, op_type: str) -> CompatEntry | None:
        self._need(op_type)
        return self._compat.get(op_type)

    def proto(self, op_type: str) -> OpProto:
        """The OpProto of `op_type` (NotFound from opmakers when it has none)."""
        return self._proto_of(op_type)

    def default_signature(self, op_type: str) -> KernelSignature | None:
        """The §6.2 signature from the OpProto (None for ops without signature); cached."""
        if self.no_signature_reason(op_type) is not None:
            return None
        sig = self._defaults.get(op_type)
        if sig is None:
            sig = default_signature(self._proto_of(op_type), self.base_kernel_name(op_type))
            self._defaults[op_type] = sig
        return sig

    def get_kernel_signature(self, op_type: str,
                             ctx: ArgumentMappingContext) -> KernelSignature | None:
        """The signature of one op (see the module docstring for the order).

        None when the op never runs a phi kernel (deprecated name, operator without kernel);
        `KernelSignature.is_unregistered` when no phi kernel serves these variable kinds;
        NotFound when nothing is known about `op_type`.
        """
        # 1. names kept off phi
        if op_type in self._deprecated or op_type in self._kernelless:
            return None
        # 2. hand-written function
        self._need_sig(op_type)
        info = self._fns.get(op_type)
        if info is not None:
            return info.fn(ctx)
        # 3. declared entry
        self._need(op_type)
        entry = self._compat.get(op_type)
        if entry is not None:
            return entry.signature(ctx)
        # 4. default signature from the OpProto (grad ops have none: Paddle maps each one)
        if not opmakers.has_op(op_type) and is_grad_op_type(op_type):  # grad defs: on demand
            raise NotFound(f"Operator `{op_type}` (a grad op) has no declared mapping "
                           "(argmap/grad_compat.yaml) and no mapping function.")
        try:
            return self.default_signature(op_type)
        except NotFound:
            raise NotFound(self._not_found_text(op_type)) from None

    def has_compatible_phi_kernel(self, op_type: str, factory: Any = None) -> bool:
        """Paddle's ``KernelFactory::HasCompatiblePhiKernel``: False for deprecated names and
        kernel-less operators; True when the op has a mapping, a renamed base kernel, or a phi
        kernel of its own name in `factory` (default: the process-wide KernelFactory)."""
        if self.no_signature_reason(op_type) is not None:
            return False
        self._need(op_type)
        self._need_sig(op_type)
        if op_type in self._fns or op_type in self._compat or op_type in self._base_names:
            return True
        if factory is None:
            from phi.core.registry import kernel_factory  # phi is heavy; import on demand

            factory = kernel_factory()
        return bool(factory.has_kernel(op_type))

    def mapped_op_types(self) -> tuple[str, ...]:
        """Ops with a mapping function or a declared entry, sorted."""
        self._load_lazy()
        self._need_all_sigs()
        return tuple(sorted(set(self._fns) | set(self._compat)))

    def op_types(self) -> tuple[str, ...]:
        """Every op this registry can answer for (mapped ones and those with an OpProto), minus
        the ones without signature, sorted."""
        self._load_lazy()
        self._need_all_sigs()
        names = set(self._fns) | set(self._compat) | set(self._op_types_with_proto())
        return tuple(sorted(n for n in names if self.no_signature_reason(n) is None))

    def how_mapped(self, op_type: str) -> str:
        """``function``, ``declared``, ``default`` or ``none`` (for reports and `explain`)."""
        if self.no_signature_reason(op_type) is not None:
            return "none"
        self._need(op_type)
        self._need_sig(op_type)
        if op_type in self._fns:
            return "function"
        if op_type in self._compat:
            return "declared"
        return "default"

    def _not_found_text(self, op_type: str) -> str:
        known = list(self.op_types())
        import difflib  # only for a hint (a cold-start import)

        close = difflib.get_close_matches(op_type, known, n=5, cutoff=0.6)
        hint = f" Close matches: {', '.join(close)}." if close else ""
        return (f"Operator `{op_type}`'s kernel signature is not registered: it has no mapping "
                f"function, no op_compat.yaml entry and no OpProto ({len(known)} ops are "
                f"known).{hint}")


# -- the process-wide registry ------------------------------------------------------------------

#: The layout rule for mapping functions: op type ``<op>`` (or a grad op of it) -> module
#: ``argmap.sig.<op>``; ``argmap.sig.funcs`` holds shared helpers and no mapping.
SIG_LAYOUT = Layout("argmap.sig", helpers=("funcs",))

_DEFAULT: list[ArgMappingRegistry] = []
_DEFAULT_LOCK = threading.Lock()


def default_registry() -> ArgMappingRegistry:
    """The process-wide registry: ``argmap/op_compat.yaml``, ``argmap/grad_compat.yaml`` (grad
    ops) and the modules of ``argmap/sig`` (found by `SIG_LAYOUT`)."""
    if not _DEFAULT:
        with _DEFAULT_LOCK:  # built once, whichever thread asks first
            if not _DEFAULT:
                _DEFAULT.append(ArgMappingRegistry(
                    compat=load_compat(), sig_layout=SIG_LAYOUT,
                    lazy_grad_compat=lambda: load_compat(GRAD_COMPAT_FILE)))
    return _DEFAULT[0]


def sig_families() -> tuple[MappingFamily, ...]:
    """The family of every module of ``argmap/sig`` (each imported), in module order."""
    return tuple(importlib.import_module(m).MAPPINGS for m in SIG_LAYOUT.modules())


def arg_mapping(op_type: str, *, attr_values: Mapping[str, Iterable[Any]] | None = None,
                registry: ArgMappingRegistry | None = None) -> Callable[[MappingFn], MappingFn]:
    """Decorator: register a mapping function in `registry` (default: the process-wide one),
    e.g. for a plug-in's custom op.  AlreadyExists if the op has a mapping."""
    target = registry if registry is not None else default_registry()
    return target.arg_mapping(op_type, attr_values=attr_values)


def get_kernel_signature(op_type: str, ctx: ArgumentMappingContext) -> KernelSignature | None:
    """`ArgMappingRegistry.get_kernel_signature` of the process-wide registry."""
    return default_registry().get_kernel_signature(op_type, ctx)


def has_compatible_phi_kernel(op_type: str, factory: Any = None) -> bool:
    """`ArgMappingRegistry.has_compatible_phi_kernel` of the process-wide registry."""
    return default_registry().has_compatible_phi_kernel(op_type, factory)


def is_deprecated_op(op_type: str) -> bool:
    """Whether `op_type` is one of Paddle 2.6.2's deprecated legacy names."""
    return op_type in DEPRECATED_OP_NAMES


def base_kernel_name(op_type: str) -> str:
    """Paddle's ``TransToPhiKernelName`` (``"deprecated"`` for deprecated names)."""
    if op_type in DEPRECATED_OP_NAMES:
        return DEPRECATED
    return BASE_KERNEL_NAMES.get(op_type, op_type)


def fluid_op_name(kernel_name: str) -> str:
    """Paddle's ``TransToFluidOpName``: the legacy op whose base kernel is `kernel_name`."""
    return default_registry().fluid_op_name(kernel_name)
