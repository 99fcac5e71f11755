"""The one dispatch path of legacy ops: ``decide`` (once per op and input signature) and
``compute`` (every run).  The executor's plans and ``explain`` use these same functions.

Order of kernels (semantics.md, reference §5.1): phi kernel on the expected device > fluid
kernel on the expected device > phi CPU kernel > fluid CPU kernel.  CPU fallback happens for
custom devices and XPU; for GPU only with ``FLAGS_static_gpu_fallback_to_cpu``.
"""

from __future__ import annotations

import numpy as np

import argmap
from fluid_compat.framework.op_kernel_type import LibraryType, OpKernelType
from fluid_compat.operators.unavailable import unavailable_message, unavailable_reason
from fluid_compat.operators.context import (
    ExecutionContext,
    RuntimeArgumentMappingContext,
    attr_var_arrays,
)
from fluid_compat.operators.expected_kernel import apply_hints
from fluid_compat.operators.fluid_kernels.registry import find_fluid_kernel, fluid_kernels_of
from fluid_compat.operators.infer_meta import infer_meta_binding
from fluid_compat.operators.kernel_choice import KernelChoice, generation
from fluid_compat.operators.outputs import dense_output
from phi import flags
from phi.backends import get_context
from phi.common.backend import Backend
from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.common.layout import DataLayout
from phi.common.place import Place
from phi.common.scalar import Scalar
from phi.core import trace
from phi.core.errors import (
    InvalidArgument,
    NotFound,
    PhiError,
    PreconditionNotMet,
    Unavailable,
    kernel_failed,
)
from phi.core.kernel import ArgKind, AttributeType
from phi.core.registry import kernel_factory
from phi.core.selected_rows import SelectedRows
from phi.core.sparse_tensor import is_sparse
from phi.core.tensor import CPU_PLACE, DenseTensor, MetaTensor
from phi.infermeta import decided_by_kernel
from phi.transform import transform_dtype, transform_layout, transform_place

__all__ = ["DispatchRecord", "compute", "decide"]

_ALL_DTYPE = DataType.ALL_DTYPE
_ALL_LAYOUT = DataLayout.ALL_LAYOUT
_SAME_DEVICE = {Backend.GPUDNN: Backend.GPU, Backend.ONEDNN: Backend.CPU, Backend.KPS: Backend.XPU}
_GPU_FALLBACK_FLAG = "FLAGS_static_gpu_fallback_to_cpu"
#: phi kernels with dense tensor arguments that Paddle lets take SelectedRows too (add_n: a sum
#: of dense and SelectedRows inputs, CPU AddNKernel's SelectedRows branch): they get its dense form
_SR_AS_DENSE = frozenset({"add_n"})


class DispatchRecord(tuple):
    """One record written by ``decide`` while it decides: unpacks as ``(kind, text)`` (what
    FLAGS_dispatch_trace prints); ``data`` holds the same facts as fields, for
    ``fluid-compat explain --format json|dot``."""

    def __new__(cls, kind: str, text: str, **data):
        self = super().__new__(cls, (kind, text))
        self.data = data
        return self

    @property
    def kind(self) -> str:
        return self[0]

    @property
    def text(self) -> str:
        return self[1]


def _phi_has(name: str, backend: Backend) -> bool:
    factory = kernel_factory()
    if not factory.has_kernel(name):
        return False
    return any(k.backend is backend for k in factory.kernels_of(name))


def _fluid_has_library(op_type: str, library: LibraryType) -> bool:
    return any(kt.library is library for kt in fluid_kernels_of(op_type))


def decide(op, inputs: dict[str, list], place: Place, pin: str | None = None):
    """Everything about running ``op`` on these inputs that does not depend on their values.

    ``pin`` ("phi" / "fluid") restricts the choice to one side of the bridge.  When no kernel
    can be chosen, the error carries the records written so far (``dispatch_records``)."""
    records: list[DispatchRecord] = []
    reason = unavailable_reason(op.type)
    if reason is not None:
        raise Unavailable(unavailable_message(f"Operator `{op.type}`", reason))
    try:
        return _decide(op, inputs, place, pin, records)
    except PhiError as exc:
        exc.dispatch_records = records  # type: ignore[attr-defined] - for explain
        raise


def _decide(op, inputs: dict[str, list], place: Place, pin: str | None,
            records: list[DispatchRecord]):
    if pin is not None:
        records.append(DispatchRecord("pin", f"pinned to {pin} kernels", side=pin))
    ctx = ExecutionContext(op, inputs, place)
    expected = op.get_expected_kernel_type(ctx)
    for note in ctx.notes:
        records.append(DispatchRecord("expected", note, source="dtype"))
    # b. the KernelSignature, when a phi kernel may serve this op
    sig = None
    for slot, values in inputs.items():  # variable types the mapping asks about
        for i, t in enumerate(values):  # sparse tensors choose the _coo / _csr kernels
            if is_sparse(t):
                kind = "coo" if type(t).__name__ == "SparseCooTensor" else "csr"
                records.append(DispatchRecord(
                    "signature", f"input `{slot}` ({op.inputs[slot][i]}) is a "
                    f"{type(t).__name__}: is_sparse_{kind}_tensor_input is true", slot=slot,
                    var_type=f"SPARSE_{kind.upper()}"))
        srs = [i for i, t in enumerate(values) if type(t) is SelectedRows]
        if srs:
            names = ", ".join(op.inputs[slot][i] for i in srs)
            records.append(DispatchRecord(
                "signature", f"input `{slot}` ({names}) is a SelectedRows: "
                "is_selected_rows_input is true", slot=slot, var_type="SELECTED_ROWS"))
    sr_outs = [slot for slot, names in op.outputs.items()
               if names and all(n in getattr(op, "selected_rows_vars", ()) for n in names)]
    for slot in sr_outs:
        records.append(DispatchRecord(
            "signature", f"output `{slot}` is declared SELECTED_ROWS: is_selected_rows_output "
            "is true", slot=slot, var_type="SELECTED_ROWS"))
    if argmap.has_compatible_phi_kernel(op.type):
        sig = argmap.get_kernel_signature(op.type, RuntimeArgumentMappingContext(op, inputs))
        how = argmap.default_registry().how_mapped(op.type)
        records.append(DispatchRecord("signature", f"{sig} ({how})", signature=str(sig),
                                      name=sig.name, how=how))
    else:
        records.append(DispatchRecord("signature", "none: no compatible phi kernel (fluid only)",
                                      signature=None, name=None, how="none"))
    notes: list[str] = []
    expected = apply_hints(
        op, expected, place,
        has_gpudnn=(sig is not None and _phi_has(sig.name, Backend.GPUDNN))
        or _fluid_has_library(op.type, LibraryType.CUDNN),
        has_onednn=(sig is not None and _phi_has(sig.name, Backend.ONEDNN))
        or _fluid_has_library(op.type, LibraryType.MKLDNN),
        supports_gpu=(sig is not None and _phi_has(sig.name, Backend.GPU))
        or any(kt.place.backend is Backend.GPU for kt in fluid_kernels_of(op.type)),
        notes=notes,
    )
    records.extend(DispatchRecord("expected", n, source="hint") for n in notes)
    records.append(DispatchRecord("expected", f"expected kernel type {expected}",
                                  kernel_type=str(expected)))
    factory = kernel_factory()

    def phi_lookup(kt: OpKernelType, label: str):
        if sig is None or pin == "fluid":
            return None
        key = kt.to_phi_key()
        found = factory.select_kernel(sig.name, key)
        if found is None and key.backend is Backend.GPUDNN:  # SelectKernelWithGPUDNN
            found = factory.select_kernel(sig.name, key.with_backend(Backend.GPU))
        records.append(DispatchRecord(
            "lookup", (f"{label}: phi `{sig.name}` {key} -> "
                       f"{found.key if found else 'not registered'}"),
            step=label, side="phi", name=sig.name, key=str(key), found=found is not None,
            kernel=str(found.key) if found else None))
        return found

    def fluid_lookup(kt: OpKernelType, label: str):
        if pin == "phi":
            return None
        found = find_fluid_kernel(op.type, kt)
        records.append(DispatchRecord(
            "lookup", (f"{label}: fluid `{op.type}` {kt} -> "
                       f"{'found' if found else 'not registered'}"),
            step=label, side="fluid", name=op.type, key=str(kt), found=found is not None,
            kernel=str(kt) if found else None))
        return found

    # c. phi on device > fluid on device > phi on CPU > fluid on CPU
    fallback = False
    kernel_type = expected
    phi_kernel = phi_lookup(expected, "1 phi, expected device")
    fluid_kernel = None if phi_kernel is not None else fluid_lookup(
        expected, "2 fluid, expected device")
    if phi_kernel is None and fluid_kernel is None and expected.place.backend is not Backend.CPU:
        if expected.place.backend is Backend.GPU and not flags.FLAGS[_GPU_FALLBACK_FLAG]:
            raise NotFound(
                f"The kernel ({sig.name if sig else op.type}) with key "
                f"{expected.to_phi_key()} is not found and GPU kernel cannot fallback to CPU "
                f"one. Set {_GPU_FALLBACK_FLAG}=1 to allow it. "
                + _registered_text(op.type, sig)
            )
        kernel_type = OpKernelType(expected.dtype, CPU_PLACE, _ALL_LAYOUT, LibraryType.PLAIN)
        phi_kernel = phi_lookup(kernel_type, "3 phi, CPU fallback")
        if phi_kernel is None:
            fluid_kernel = fluid_lookup(kernel_type, "4 fluid, CPU fallback")
        fallback = True
    if phi_kernel is None and fluid_kernel is None:
        if pin is not None:
            raise NotFound(f"Operator ({op.type}) is pinned to {pin} kernels and has none for "
                           f"{kernel_type}. " + _registered_text(op.type, sig))
        if sig is None and not fluid_kernels_of(op.type):
            raise NotFound(f"There are no kernels which are registered in the {op.type} "
                           "operator.")
        raise NotFound(f"Operator ({op.type}) does not have kernel for {kernel_type}. "
                       + _registered_text(op.type, sig))
    choice = KernelChoice()
    choice.expected = expected
    choice.kernel_type = kernel_type
    choice.fallback = fallback
    choice.signature = sig
    choice.is_phi = phi_kernel is not None
    choice.phi_kernel = phi_kernel
    choice.fluid_kernel = fluid_kernel
    if phi_kernel is not None:
        kplace = CPU_PLACE if phi_kernel.key.backend in (Backend.CPU, Backend.ONEDNN) else (
            kernel_type.place)
    else:
        kplace = fluid_kernel.kernel_type.place if fluid_kernel.kernel_type.place.backend is (
            Backend.CPU) else kernel_type.place
    choice.place = kplace
    choice.dev_ctx = get_context(kplace)
    if phi_kernel is not None and phi_kernel.key.backend is Backend.ONEDNN:
        # Paddle's OneDNNContext carries the op's attributes to oneDNN kernels (DnnAttrs):
        # fused_conv2d reads its extra fuse_alpha / fuse_beta / Scale_* there
        from phi.backends.onednn import OneDNNContext

        choice.dev_ctx = OneDNNContext(kplace, op.attrs)
    if fallback:
        records.append(DispatchRecord("fallback", (f"no kernel on {expected.place}: CPU "
                                                   "fallback, outputs stay on CPU"),
                                      place=str(expected.place), to=str(kernel_type.place)))
    choice.records = records
    choice.generation = generation()
    if choice.is_phi:
        _plan_phi(op, choice, inputs)
    else:
        _plan_fluid(op, choice, inputs)
    if trace.LEVEL:
        trace.logger.info("%s: %s", op.type, choice)
        if trace.LEVEL >= 2:
            for kind, text in records:
                trace.logger.debug("  [%s] %s", kind, text)
    return choice


def _registered_text(op_type: str, sig) -> str:
    parts = []
    if sig is not None and kernel_factory().has_kernel(sig.name):
        keys = sorted(kernel_factory().kernels_of(sig.name),
                      key=lambda k: (int(k.backend), int(k.layout), int(k.dtype)))
        parts.append(f"Registered phi keys of `{sig.name}`: {', '.join(map(str, keys))}.")
    fluid = fluid_kernels_of(op_type)
    if fluid:
        parts.append(f"Registered fluid kernels of `{op_type}`: "
                     f"{', '.join(str(k) for k in fluid)}.")
    return " ".join(parts) or "No kernel is registered for it."


# -- planning the data path ---------------------------------------------------------------------

def _transform_for(op, choice, slot: str, index: int, t: DenseTensor, arg_def) -> tuple | None:
    """(slot, index, place, dtype, layout) to apply to input ``t``, or None."""
    var_kt = op.get_kernel_type_for_var(slot, t, choice.kernel_type)
    target_place = None
    if arg_def is not None:
        if arg_def.backend is not Backend.ALL_BACKEND and t.place != choice.place and (
                var_kt.place.backend is not Backend.ALL_BACKEND):
            target_place = choice.place
        target_layout = arg_def.layout
    else:  # fluid kernel: move when the device class differs
        if not var_kt.place.is_same_class(choice.place):
            target_place = choice.place
        target_layout = choice.kernel_type.layout
    target_dtype = None
    if var_kt.dtype != choice.kernel_type.dtype and var_kt.dtype is not _ALL_DTYPE and (
            choice.kernel_type.dtype is not _ALL_DTYPE):
        target_dtype = choice.kernel_type.dtype  # an override asked for a real conversion
    need_layout = (target_layout is not _ALL_LAYOUT and t.layout is not _ALL_LAYOUT
                   and t.layout != target_layout and len(t.dims) == 4
                   and {t.layout, target_layout} == {DataLayout.NCHW, DataLayout.NHWC})
    if target_place is None and target_dtype is None and not need_layout:
        return None
    return (slot, index, target_place, target_dtype, target_layout if need_layout else None)


def _check_dtype(op, choice, slot: str, t: DenseTensor, want: DataType) -> None:
    if want is _ALL_DTYPE or t.dtype == want:
        return
    kernel = choice.phi_kernel.name if choice.is_phi else op.type
    raise InvalidArgument(
        f"Operator `{op.type}`: input `{slot}` has dtype {t.dtype}, but the kernel "
        f"`{kernel}` chosen for {choice.kernel_type} takes {want}. Cast the input "
        f"(e.g. with a cast op) so that the dtypes agree."
    )


def _plan_phi(op, choice, inputs: dict[str, list]) -> None:
    sig = choice.signature
    kernel = choice.phi_kernel
    defs = kernel.args_def
    for label, names, kdefs in (("inputs", sig.inputs, defs.inputs),
                                ("attribute", sig.attrs, defs.attributes),
                                ("outputs", sig.outputs, defs.outputs)):
        if len(names) != len(kdefs):
            raise PreconditionNotMet(
                f"Operator `{op.type}`: The size of {label}_args names ({len(names)}) must be "
                f"equal to the size of kernel {label} defs ({len(kdefs)}) of `{kernel.name}` "
                f"({sig})."
            )
    transforms = []
    input_slots = []
    for slot, d in zip(sig.inputs, defs.inputs, strict=False):
        values = inputs.get(slot, [])
        present = [t for t in values if t is not None]
        if not present and d.kind is not ArgKind.OPTIONAL and d.kind is not ArgKind.VECTOR:
            raise InvalidArgument(f"Operator `{op.type}`: input `{slot}` is required by kernel "
                                  f"`{kernel.name}` but is missing or not initialized.")
        for i, t in enumerate(values):
            if t is None:
                continue
            if type(t) is SelectedRows and not d.lod and kernel.name not in _SR_AS_DENSE:
                raise InvalidArgument(
                    f"Operator `{op.type}`: input `{slot}` ({op.inputs[slot][i]}) is a "
                    f"SelectedRows, but kernel `{kernel.name}` ({sig}) takes a DenseTensor "
                    "there (Paddle: the input's type does not match the kernel's argument).")
            if is_sparse(t) and not d.lod:
                raise InvalidArgument(
                    f"Operator `{op.type}`: input `{slot}` ({op.inputs[slot][i]}) is a "
                    f"{type(t).__name__}, but kernel `{kernel.name}` ({sig}) takes a "
                    "DenseTensor there (Paddle: the input's type does not match the kernel's "
                    "argument).")
            tr = _transform_for(op, choice, slot, i, t, d)
            if tr is not None:
                transforms.append(tr)
                choice.records.append(_transform_record(op, tr, t))
            dtype_after = tr[3] if tr is not None and tr[3] is not None else t.dtype
            if dtype_after != d.dtype and d.dtype is not _ALL_DTYPE:
                _check_dtype(op, choice, slot, DenseTensor(dtype=dtype_after), d.dtype)
        input_slots.append((slot, d.kind))
    choice.transforms = tuple(transforms)
    choice.input_slots = tuple(input_slots)
    builders = []
    attr_vars = getattr(op, "attr_vars", ())
    for name, adef in zip(sig.attrs, defs.attributes, strict=False):
        # a tensor input (ShapeTensor ...) or an attribute given by variables (VAR / VARS, read
        # as the input of its name): built from this run's tensors, never planned as a value
        if name in op.info.input_slots or name in attr_vars:
            builders.append((True, name, adef.type))
        else:
            builders.append((False, _attr_value(op, name, adef.type), None))
    choice.attr_builders = tuple(builders)
    choice.attr_values = (None if any(from_tensor for from_tensor, _, _ in builders)
                          else tuple(value for _, value, _ in builders))
    choice.outputs = tuple((slot, d.kind is ArgKind.VECTOR, len(op.outputs.get(slot, ())))
                           for slot, d in zip(sig.outputs, defs.outputs, strict=True))
    choice.infer = infer_meta_binding(kernel.name)


def _plan_fluid(op, choice, inputs: dict[str, list]) -> None:
    transforms = []
    tied = getattr(choice.fluid_kernel, "dtype_tied_inputs", ())
    for slot, values in inputs.items():
        for i, t in enumerate(values):
            if not isinstance(t, DenseTensor):
                continue
            tr = _transform_for(op, choice, slot, i, t, None)
            if tr is not None:
                transforms.append(tr)
                choice.records.append(_transform_record(op, tr, t))
            if slot in tied:
                _check_dtype(op, choice, slot, t, choice.kernel_type.dtype)
    choice.transforms = tuple(transforms)
    choice.input_slots = ()
    choice.attr_builders = ()
    choice.attr_values = ()
    choice.outputs = ()
    choice.infer = None


def _transform_record(op, tr, t: DenseTensor) -> DispatchRecord:
    slot, index, place, dtype, layout = tr
    parts = []
    moves = {}
    if layout is not None:
        parts.append(f"layout {t.layout} -> {layout}")
        moves["layout"] = [str(t.layout), str(layout)]
    if dtype is not None:
        parts.append(f"dtype {t.dtype} -> {dtype}")
        moves["dtype"] = [str(t.dtype), str(dtype)]
    if place is not None:
        parts.append(f"place {t.place} -> {place}")
        moves["place"] = [str(t.place), str(place)]
    var = op.inputs[slot][index]
    return DispatchRecord("transform", f"input `{slot}`[{index}] ({var}): {', '.join(parts)}",
                          slot=slot, index=index, var=var, **moves)


_PLAIN_CONVERT = {
    AttributeType.FLOAT32: float,
    AttributeType.FLOAT64: float,
    AttributeType.INT32: int,
    AttributeType.INT64: int,
    AttributeType.BOOL: bool,
    AttributeType.STRING: str,
}


def _attr_value(op, name: str, tag: AttributeType):
    """A plain attribute converted to the kernel's attribute type (decided once per op)."""
    if name not in op.attrs:
        raise NotFound(f"Operator `{op.type}`: ({name}) is not found in AttributeMap when "
                       "building static KernelContext.")
    value = op.attrs[name]
    try:
        if tag is AttributeType.SCALAR:
            return Scalar(value)
        if tag is AttributeType.INT_ARRAY:
            return IntArray(value)
        if tag is AttributeType.DATA_TYPE:
            return DataType.from_proto(int(value))
        if tag is AttributeType.SCALARS:
            return [Scalar(v) for v in value]
        if tag in (AttributeType.INT32S, AttributeType.INT64S):
            return [int(v) for v in value]
        if tag in (AttributeType.FLOAT32S, AttributeType.FLOAT64S):
            return [float(v) for v in value]
        convert = _PLAIN_CONVERT.get(tag)
        return convert(value) if convert is not None else value
    except (PhiError, TypeError, ValueError) as exc:
        raise InvalidArgument(f"Operator `{op.type}`: attribute `{name}`={value!r} cannot be "
                              f"passed as kernel attribute type {tag}: {exc}") from exc


def _tensor_attr(op, slot: str, values: list, tag: AttributeType):
    """A Scalar / IntArray attribute read from tensor input(s), copied to the host."""
    if slot in getattr(op, "attr_vars", ()):  # a VAR / VARS attribute: checked, naming the var
        if tag not in (AttributeType.SCALAR, AttributeType.INT_ARRAY):
            raise InvalidArgument(
                f"Operator `{op.type}`: attribute `{slot}` is given by variables "
                f"{list(op.attr_vars[slot])}, but the kernel takes it as {tag}, which cannot "
                "come from a tensor.")
        kind = "scalar" if tag is AttributeType.SCALAR else "int_array"
        host = attr_var_arrays(op, slot, values, kind)
    else:
        host = [np.asarray(t.numpy()) for t in values if t is not None]
    if tag is AttributeType.SCALAR:
        if len(host) != 1 or host[0].size != 1:
            n = sum(h.size for h in host)
            raise InvalidArgument(
                f"Operator `{op.type}`: The DenseTensor `{slot}` used to construct the Scalar "
                f"contains more than 1 value, it contains `{n}` values.")
        return Scalar(host[0].reshape(()).item(), from_tensor=True)
    if tag is AttributeType.INT_ARRAY:
        for h in host:
            if h.dtype not in (np.int32, np.int64):
                raise InvalidArgument(
                    f"Operator `{op.type}`: Data type error. When cast a DenseTensor to "
                    f"VectorTensor, the data type of DenseTensor `{slot}` must be int32 or "
                    f"int64, but got {h.dtype}.")
        if len(host) == 1:
            return IntArray(host[0].reshape(-1).tolist(), from_tensor=True)
        return IntArray([int(h.reshape(-1)[0]) for h in host], from_tensor=True)
    raise InvalidArgument(f"Operator `{op.type}`: attribute `{slot}` of type {tag} cannot come "
                          "from a tensor.")


# -- running ------------------------------------------------------------------------------------

def compute(op, choice, inputs: dict[str, list], scope) -> dict[str, list]:
    """Run the decided kernel; return the staged outputs (slot -> list of DenseTensor)."""
    transfer = None
    if choice.transforms:
        inputs = {k: list(v) for k, v in inputs.items()}
        transfer = scope.new_scope()
        for slot, index, place, dtype, layout in choice.transforms:
            t = inputs[slot][index]
            what = f"{op.type}.{slot}"
            if layout is not None:
                t = transform_layout(t, layout, what=what)
            if dtype is not None:
                t = transform_dtype(t, dtype, what=what)
            if place is not None:
                t = transform_place(t, place, what=what)
            inputs[slot][index] = t
            transfer.var(op.inputs[slot][index]).value = t
    try:
        if choice.is_phi:
            staged = _run_phi(op, choice, inputs)
        else:
            ctx = ExecutionContext(op, inputs, choice.place, choice.dev_ctx)
            try:
                choice.fluid_kernel.compute(ctx)
            except PhiError:
                raise
            except Exception as exc:  # no raw exception escapes (errors.Fatal)
                raise kernel_failed(op.type, f"{op.type} (fluid)", exc) from exc
            staged = ctx.staged
        pairs = op.info.hooks.share_lod
        if pairs:
            _share_lod(op, pairs.items(), inputs, staged)
        return staged
    finally:
        if transfer is not None:
            scope.delete_scope(transfer)


def _run_phi(op, choice, inputs: dict[str, list]) -> dict[str, list]:
    kernel_inputs = []
    meta_inputs = []
    lod_args = choice.phi_kernel.args_def.inputs  # a LoDTensor argument takes the tensor
    for (slot, kind), d in zip(choice.input_slots, lod_args, strict=True):
        values = inputs.get(slot) or ()
        if kind is ArgKind.VECTOR:
            ts = [t for t in values if t is not None]
            kernel_inputs.append(ts if d.lod else [
                t.to_dense(choice.dev_ctx.xp) if type(t) is SelectedRows else t.data
                for t in ts])
            # InferMeta sees a SelectedRows by its complete dims, as phi's MetaTensor does
            meta_inputs.append([DenseTensor(None, t.dtype, t.place, dims=t.complete_dims())
                                if type(t) is SelectedRows else t for t in ts])
        else:
            t = values[0] if values else None
            kernel_inputs.append(None if t is None else t if d.lod else t.data)
            meta_inputs.append(t)
    attrs = choice.attr_values
    if attrs is None:  # some attribute comes from a tensor: build them for this run
        attrs = [_tensor_attr(op, value, inputs.get(value, []), tag) if from_tensor else value
                 for from_tensor, value, tag in choice.attr_builders]
    outputs = choice.outputs  # ((slot, is_vector, n variables), ...), decided once
    metas = [[MetaTensor() for _ in range(n)] if is_vector else MetaTensor()
             for _, is_vector, n in outputs]
    infer = choice.infer
    if infer is not None:
        fn, params = infer
        try:
            fn(*[meta_inputs[i] if is_input else attrs[i] for is_input, i in params], *metas)
        except PhiError as exc:
            raise type(exc)(f"Operator `{op.type}` InferMeta: {exc.message}") from exc
    try:
        result = choice.phi_kernel.fn(choice.dev_ctx, *kernel_inputs, *attrs)
    except PhiError:
        raise
    except Exception as exc:  # no raw exception escapes (errors.Fatal)
        raise kernel_failed(op.type, choice.phi_kernel.name, exc) from exc
    if len(outputs) == 1:
        result = (result,)
    staged: dict[str, list] = {}
    ctx = choice.dev_ctx
    on_cpu = ctx.place is CPU_PLACE
    for (slot, is_vector, n), r, m in zip(outputs, result, metas, strict=True):
        if not n:
            continue
        arrays = ([None] * n if r is None else r) if is_vector else (r,)
        ms = m if is_vector else (m,)
        if len(arrays) != n:
            raise PreconditionNotMet(
                f"Operator `{op.type}`: kernel `{choice.phi_kernel.name}` returned "
                f"{len(arrays)} tensors for output `{slot}`, the op has {n} variables.")
        out = []
        for a, mt in zip(arrays, ms, strict=True):
            if a is None:  # the kernel leaves this output as it is (nop)
                out.append(None)
                continue
            if type(a) is SelectedRows or is_sparse(a):  # SelectedRows / sparse: complete
                out.append(a)
                continue
            lod = mt.lod
            if type(a) is DenseTensor:  # a LoDTensor output: the kernel set its LoD
                lod = a.lod
                a = a.data
            if infer is None:  # the array's own dtype (the context's data_type of it)
                out.append(dense_output(a, None, ctx.place, DataLayout.NCHW, on_cpu, lod))
                continue
            dtype = mt.dtype
            t = dense_output(a, dtype, ctx.place, mt.layout, on_cpu, lod)
            a = t.data
            if (a.shape != mt.dims and not decided_by_kernel(a.shape, mt.dims)) or (
                    ctx.data_type(a) != dtype):
                raise PreconditionNotMet(
                    f"Operator `{op.type}`: kernel `{choice.phi_kernel.name}` returned "
                    f"{list(a.shape)} {ctx.data_type(a)} for `{slot}`, but InferMeta says "
                    f"{list(mt.dims)} {dtype}.")
            out.append(t)
        staged[slot] = out
    return staged


def _share_lod(op, pairs, inputs: dict[str, list], staged: dict[str, list]) -> None:
    """The op's own InferShape ShareLoD(input, output): an output the kernel left without LoD
    keeps the input's sequences.  A pair (input, SAME_DIM0) shares only while the output keeps
    the input's first dimension (Paddle's "only pass LoD when the first dimension ... are the
    same")."""
    for out_slot, in_slot in pairs:
        only_same_dim0 = isinstance(in_slot, tuple)
        if only_same_dim0:
            in_slot = in_slot[0]
        src = (inputs.get(in_slot) or (None,))[0]
        if src is None or not getattr(src, "lod", None):
            continue
        for t in staged.get(out_slot) or ():
            if t is None or t.lod:
                continue
            if only_same_dim0 and not (t.data.ndim and src.data.ndim
                                       and t.data.shape[0] == src.data.shape[0]):
                continue
            t.lod = src.lod

