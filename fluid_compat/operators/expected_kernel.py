"""GetExpectedKernelType: which dtype and place a legacy op's kernel should have.

The default is Paddle's IndicateDataType (the last initialized single input in slot-name order
wins; duplicable slots must agree).  Ops override it as Paddle's do (registered with
a rule of fluid_compat/operators/op_hooks.yaml, or a function of the op's module in
fluid_compat.operators.fluid_kernels); the truth is the
``expected_kernel_key`` Paddle recorded for each corpus case.  ``apply_hints`` then applies the
generic hints (use_mkldnn, use_cudnn, op_device) as InnerGetExpectedKernelType does.

Each function notes in ``ctx.notes`` what decided the dtype, for the trace and ``explain``.
"""

from __future__ import annotations

from fluid_compat.framework.op_kernel_type import LibraryType, OpKernelType
from phi.common.backend import Backend
from phi.common.data_type import DataType
from phi.common.layout import DataLayout
from phi.common.place import CPUPlace, GPUPlace, Place
from phi.core.errors import InvalidArgument, NotFound
from phi.core.tensor import DenseTensor

__all__ = [
    "apply_hints",
    "expected_from_attr",
    "expected_fixed",
    "expected_from_var",
    "expected_on_x_place",
    "expected_onednn",
    "expected_promote",
    "indicate_data_type",
    "indicate_or_promote_var_data_types",
    "indicate_var_data_type",
    "note",
]

_COMPLEX = (DataType.COMPLEX64, DataType.COMPLEX128)


def note(ctx, text: str) -> None:
    notes = getattr(ctx, "notes", None)
    if notes is not None:
        notes.append(text)


def _as_tensor(value):
    """A DenseTensor input as is; a LoDTensorArray by its last initialized step (Paddle's
    ParseInputDataType)."""
    if isinstance(value, list):
        steps = [t for t in value if isinstance(t, DenseTensor) and t.data is not None]
        return steps[-1] if steps else None
    return value


def indicate_data_type(op, ctx) -> DataType:
    """Paddle's IndicateDataType: slots in sorted order, the last initialized one wins."""
    found = DataType.UNDEFINED
    source = None
    for slot in sorted(ctx.inputs):
        values = ctx.inputs[slot]
        if len(values) == 1:
            t = _as_tensor(values[0])
            if isinstance(t, DenseTensor) and t.data is not None:
                found, source = t.dtype, slot
        elif len(values) > 1:
            for i, t in enumerate(values):
                if not isinstance(t, DenseTensor) or t.data is None:
                    raise InvalidArgument(
                        f"The {op.type} Op's Input Variable `{op.inputs[slot][i]}` contains "
                        "uninitialized DenseTensor."
                    )
                if found is not DataType.UNDEFINED and t.dtype != found:
                    raise InvalidArgument(
                        f"The DataType of {op.type} Op's duplicable or different slot Variable "
                        f"{slot} must be consistent or register GetExpectedKernelType. The "
                        f"current variable type is ({t.dtype}), but the previous variable type "
                        f"is ({found})."
                    )
                found, source = t.dtype, slot
    if found is DataType.UNDEFINED:
        raise NotFound(f"DataType should be indicated by input Variable at {op.type}.")
    note(ctx, f"dtype {found} from input `{source}` (IndicateDataType: last initialized input "
               "in slot-name order)")
    return found


def indicate_var_data_type(op, ctx, slot: str) -> DataType:
    """Paddle's IndicateVarDataType: the dtype of one slot (all its tensors must agree)."""
    values = ctx.inputs.get(slot, ())
    found = None
    for t in map(_as_tensor, values):
        if isinstance(t, DenseTensor) and t.data is not None:
            if found is not None and t.dtype != found:
                raise InvalidArgument(
                    f"The DataType of {op.type} Op's duplicable Variable {slot} must be "
                    f"consistent. The current variable type is ({t.dtype}), but the previous "
                    f"variable type is ({found})."
                )
            found = t.dtype
    if found is None:
        raise InvalidArgument(
            f"The Input Variable({slot}) of ({op.type}) Operator used to determine kernel data "
            "type is empty or not DenseTensor or SelectedRows or LoDTensorArray."
        )
    note(ctx, f"dtype {found} from input `{slot}`")
    return found


def _promote_complex(a: DataType, b: DataType) -> DataType:
    if a not in _COMPLEX and b not in _COMPLEX:
        return a
    if DataType.COMPLEX128 in (a, b) or DataType.FLOAT64 in (a, b):
        return DataType.COMPLEX128
    return DataType.COMPLEX64


def indicate_or_promote_var_data_types(op, ctx, a: str, b: str) -> DataType:
    """Paddle's IndicateOrPromoteVarDataTypes: a's dtype unless one side is complex."""
    ta, tb = ctx.input(a), ctx.input(b)
    for slot, t in ((a, ta), (b, tb)):
        if t is None:
            raise NotFound(f"The variable {slot} is not found when promote complex types.")
    dtype = _promote_complex(ta.dtype, tb.dtype)
    note(ctx, f"dtype {dtype} from input `{a}`" + (
        f" promoted with `{b}`" if dtype != ta.dtype else ""))
    return dtype


def expected_from_var(slot: str):
    """A GetExpectedKernelType hook: IndicateVarDataType(slot) on the context's place."""

    def hook(op, ctx) -> OpKernelType:
        return OpKernelType(indicate_var_data_type(op, ctx, slot), ctx.place)

    hook.__name__ = f"expected_from_{slot}"
    return hook


def expected_onednn(slot: str):
    """A hook for ops that exist only as oneDNN kernels: the slot's dtype, ONEDNN layout, MKLDNN
    library (quantize / requantize)."""

    def hook(op, ctx) -> OpKernelType:
        dtype = indicate_var_data_type(op, ctx, slot)
        note(ctx, "oneDNN-only op: layout ONEDNN, library MKLDNN")
        return OpKernelType(dtype, ctx.place, DataLayout.ONEDNN, LibraryType.MKLDNN)

    hook.__name__ = f"expected_onednn_{slot}"
    return hook


def expected_promote(a: str, b: str):
    def hook(op, ctx) -> OpKernelType:
        return OpKernelType(indicate_or_promote_var_data_types(op, ctx, a, b), ctx.place)

    hook.__name__ = f"expected_promote_{a}_{b}"
    return hook


def expected_from_attr(attr: str):
    """A hook reading the dtype from a proto-numbered attribute (fill_constant's ``dtype``)."""

    def hook(op, ctx) -> OpKernelType:
        dtype = DataType.from_proto(op.attrs[attr])
        note(ctx, f"dtype {dtype} from attribute `{attr}`={op.attrs[attr]}")
        return OpKernelType(dtype, ctx.place)

    hook.__name__ = f"expected_from_attr_{attr}"
    return hook


def expected_fixed(dtype: DataType):
    """A hook for ops whose GetExpectedKernelType names one dtype whatever the inputs (load:
    FP32, read_file: UINT8, seed: INT32, chunk_eval: FP32 ...)."""

    def hook(op, ctx) -> OpKernelType:
        note(ctx, f"dtype {dtype} fixed by the op")
        return OpKernelType(dtype, ctx.place)

    hook.__name__ = f"expected_fixed_{dtype}"
    return hook


def expected_on_x_place(*, force_cpu_attr: bool = False):
    """CompareOp / LogicalOp / IncrementOp: IndicateDataType, and the kernel runs where X lives
    (compare ops: on the CPU when ``force_cpu``)."""

    def hook(op, ctx) -> OpKernelType:
        dtype = indicate_data_type(op, ctx)
        if force_cpu_attr and op.attrs.get("force_cpu"):
            note(ctx, "force_cpu=true: CPU place")
            return OpKernelType(dtype, CPUPlace())
        x = ctx.input("X")
        place = x.place if x is not None else ctx.place
        note(ctx, f"place {place} of input `X`")
        return OpKernelType(dtype, place)

    hook.__name__ = "expected_on_x_place" + ("_or_cpu" if force_cpu_attr else "")
    return hook


def apply_hints(op, expected: OpKernelType, place: Place, *, has_gpudnn: bool,
                has_onednn: bool, supports_gpu: bool, notes: list) -> OpKernelType:
    """InnerGetExpectedKernelType's adjustments, in Paddle's order."""
    attrs = op.attrs
    kt = expected
    # 1. oneDNN on CPU when asked for and a oneDNN kernel exists
    if attrs.get("use_mkldnn") and kt.place.backend is Backend.CPU and has_onednn:
        kt = OpKernelType(kt.dtype, kt.place, DataLayout.ONEDNN, LibraryType.MKLDNN)
        notes.append("use_mkldnn=true and a oneDNN kernel exists: library MKLDNN")
    # 2. cuDNN on GPU when asked for and a cuDNN kernel exists
    if attrs.get("use_cudnn") and kt.place.backend is Backend.GPU and has_gpudnn:
        kt = OpKernelType(kt.dtype, kt.place, kt.layout, LibraryType.CUDNN)
        notes.append("use_cudnn=true and a cuDNN kernel exists: library CUDNN")
    # 3. op_device pins the op to a device type
    op_device = attrs.get("op_device") or ""
    if op_device == "cpu":
        kt = OpKernelType(kt.dtype, CPUPlace(), kt.layout, LibraryType.PLAIN)
        notes.append("op_device='cpu': CPU place")
    elif "gpu" in op_device:
        if supports_gpu:
            gpu = place if place.backend is Backend.GPU else GPUPlace(0)
            kt = OpKernelType(kt.dtype, gpu, kt.layout, kt.library)
            notes.append(f"op_device='{op_device}': GPU place")
        else:
            kt = OpKernelType(kt.dtype, CPUPlace(), kt.layout, LibraryType.PLAIN)
            notes.append(f"Op({op.type}) has no CUDA implementation. It will be assigned to "
                         "CPUPlace.")
    # 4. same device class as the run's place: take its device id
    if kt.place.is_same_class(place) and kt.place != place:
        kt = kt.with_place(place)
    return kt
