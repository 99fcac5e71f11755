"""Kernels and their argument definitions, derived from the kernel function's signature.

A phi kernel is a plain function::

    def scale(ctx: DeviceContext, x: Tensor, scale: Scalar, bias: float,
              bias_after_scale: bool) -> Tensor: ...

Parameters after ``ctx`` are read in order: tensor inputs (``Tensor``, ``Tensor | None``,
``list[Tensor]``), then attributes (Python types map to Paddle's attribute type tags, see
``ATTRIBUTE_TYPES``).  The return annotation declares the outputs: ``Tensor``, ``list[Tensor]``
or a ``tuple[...]`` of those.  A kernel receives its inputs as arrays of ``ctx.xp`` (None for a
missing optional input, a list for a vector input) and returns arrays.

A kernel that reads or writes Paddle's level-of-detail (the sequence kernels, NMS) annotates
those arguments ``LoDTensor`` instead of ``Tensor``: it receives that input as the DenseTensor
(``.data`` and ``.lod``) and returns that output as a DenseTensor whose ``lod`` it set
(``ctx.lod_tensor(array, lod)``), as Paddle's kernels call ``x.lod()`` and ``out->set_lod()``.

As in Paddle, attribute names are not part of the definition: attributes are matched by
position, the names come from the caller (the API's YAML entry, or a legacy op's
KernelSignature).
"""

from __future__ import annotations

import enum
import inspect
import typing
from collections.abc import Callable
from typing import NewType

from phi.core import records

from phi.common.backend import Backend, CustomBackend
from phi.common.data_type import DataType
from phi.common.int_array import IntArray
from phi.common.layout import DataLayout
from phi.common.place import Place
from phi.common.scalar import Scalar
from phi.core.errors import InvalidArgument
from phi.core.kernel_key import KernelKey

__all__ = [
    "ArgKind",
    "AttributeArgDef",
    "AttributeType",
    "Float64",
    "Int64",
    "Kernel",
    "KernelArgsDef",
    "LoDTensor",
    "Tensor",
    "TensorArgDef",
    "parse_kernel_args",
]


class Tensor:
    """Annotation marker for a dense tensor argument (the kernel sees its array)."""

    def __init__(self) -> None:  # pragma: no cover - a marker, never instantiated
        raise TypeError("phi.core.kernel.Tensor is an annotation marker")


class LoDTensor:
    """Annotation marker for a dense tensor argument whose LoD the kernel reads or sets (the
    kernel sees, or returns, the DenseTensor itself)."""

    def __init__(self) -> None:  # pragma: no cover - a marker, never instantiated
        raise TypeError("phi.core.kernel.LoDTensor is an annotation marker")


Int64 = NewType("Int64", int)
"""Annotation for an int64 attribute (plain ``int`` is Paddle's ``int``, tagged INT32)."""
Float64 = NewType("Float64", float)
"""Annotation for a double attribute (plain ``float`` is Paddle's ``float``, tagged FLOAT32)."""


class AttributeType(enum.Enum):
    """Paddle's ``phi::AttributeType`` tags of kernel attributes."""

    BOOL = "bool"
    INT32 = "int"
    INT64 = "int64_t"
    FLOAT32 = "float"
    FLOAT64 = "double"
    STRING = "std::string"
    BOOLS = "vector<bool>"
    INT32S = "vector<int>"
    INT64S = "vector<int64_t>"
    FLOAT32S = "vector<float>"
    FLOAT64S = "vector<double>"
    STRINGS = "vector<std::string>"
    SCALAR = "Scalar"
    SCALARS = "vector<Scalar>"
    INT_ARRAY = "IntArray"
    DATA_TYPE = "DataType"
    DATA_LAYOUT = "DataLayout"
    PLACE = "Place"

    def __str__(self) -> str:
        return self.value


ATTRIBUTE_TYPES: dict[object, AttributeType] = {
    bool: AttributeType.BOOL,
    int: AttributeType.INT32,
    Int64: AttributeType.INT64,
    float: AttributeType.FLOAT32,
    Float64: AttributeType.FLOAT64,
    str: AttributeType.STRING,
    list[bool]: AttributeType.BOOLS,
    list[int]: AttributeType.INT32S,
    list[Int64]: AttributeType.INT64S,
    list[float]: AttributeType.FLOAT32S,
    list[Float64]: AttributeType.FLOAT64S,
    list[str]: AttributeType.STRINGS,
    Scalar: AttributeType.SCALAR,
    list[Scalar]: AttributeType.SCALARS,
    IntArray: AttributeType.INT_ARRAY,
    DataType: AttributeType.DATA_TYPE,
    DataLayout: AttributeType.DATA_LAYOUT,
    Place: AttributeType.PLACE,
}


class ArgKind(enum.Enum):
    DENSE = "DenseTensor"
    OPTIONAL = "optional<DenseTensor>"
    VECTOR = "vector<DenseTensor>"

    def __str__(self) -> str:
        return self.value


@records.frozen
class TensorArgDef:
    """Where and in which form one tensor argument must be: Paddle's TensorArgDef.

    ``backend`` ALL_BACKEND: never moved to another device (a host-side shape tensor);
    ``dtype`` ALL_DTYPE: not tied to the kernel dtype (an index); ``layout`` ALL_LAYOUT: no
    layout transform.
    """

    name: str
    kind: ArgKind
    backend: Backend | CustomBackend
    layout: DataLayout
    dtype: DataType
    lod: bool = False  # the kernel sees / returns the DenseTensor with its LoD, not the array

    def __str__(self) -> str:
        backend = "Undefined" if self.backend is Backend.ALL_BACKEND else str(self.backend)
        return f"{backend}, {self.layout}, {self.dtype}"


@records.frozen
class AttributeArgDef:
    name: str  # the kernel function's parameter name: documentation only, matched by position
    type: AttributeType


@records.frozen
class KernelArgsDef:
    inputs: tuple[TensorArgDef, ...]
    attributes: tuple[AttributeArgDef, ...]
    outputs: tuple[TensorArgDef, ...]

    def __str__(self) -> str:
        ins = ",".join(f'"{d}"' for d in self.inputs)
        outs = ",".join(f'"{d}"' for d in self.outputs)
        ats = ",".join(f'"{a.type}"' for a in self.attributes)
        return f'{{"input":[{ins}],"output":[{outs}],"attribute":[{ats}]}}'


@records.frozen(eq=False)
class Kernel:
    """One registered kernel: its name, key, function and argument definitions."""

    name: str
    key: KernelKey
    fn: Callable
    args_def: KernelArgsDef

    def __call__(self, ctx, *args):
        return self.fn(ctx, *args)

    def __repr__(self) -> str:
        return f"Kernel({self.name}, {self.key}, {self.fn.__module__}.{self.fn.__qualname__})"


# -- signature parsing --------------------------------------------------------------------------

_TENSOR_KINDS: dict[object, ArgKind] = {
    Tensor: ArgKind.DENSE,
    Tensor | None: ArgKind.OPTIONAL,
    typing.Optional[Tensor]: ArgKind.OPTIONAL,  # noqa: UP045 - both spellings are accepted
    list[Tensor]: ArgKind.VECTOR,
}
_LOD_KINDS: dict[object, ArgKind] = {
    LoDTensor: ArgKind.DENSE,
    LoDTensor | None: ArgKind.OPTIONAL,
    list[LoDTensor]: ArgKind.VECTOR,
}


def _tensor_kind(annotation: object) -> ArgKind | None:
    try:
        return _TENSOR_KINDS.get(annotation) or _LOD_KINDS.get(annotation)
    except TypeError:  # unhashable annotation
        return None


_ANNOTATIONS: dict[tuple[object, str], object] = {}


def type_hints(fn: Callable) -> dict[str, object]:
    """``fn``'s annotations evaluated, each distinct annotation string once per module.

    typing.get_type_hints compiles every string annotation anew on every call: with a few
    thousand kernel parameters that was most of ``import phi``'s time."""
    out = {}
    glb = fn.__globals__
    for name, ann in getattr(fn, "__annotations__", {}).items():
        if isinstance(ann, str):
            key = (glb.get("__name__"), ann)
            value = _ANNOTATIONS.get(key, _ANNOTATIONS)
            if value is _ANNOTATIONS:
                value = _ANNOTATIONS[key] = eval(ann, glb)
            ann = value
        out[name] = ann
    return out


def lod_arguments(fn: Callable) -> tuple[frozenset[str], frozenset[int]]:
    """The input names and output positions ``fn`` annotates ``LoDTensor``."""
    hints = type_hints(fn)
    ins = frozenset(n for n, a in hints.items() if n != "return" and _is_lod(a))
    ret = hints.get("return")
    members = typing.get_args(ret) if typing.get_origin(ret) is tuple else (ret,)
    return ins, frozenset(i for i, m in enumerate(members) if _is_lod(m))


def _is_lod(annotation: object) -> bool:
    try:
        return annotation in _LOD_KINDS
    except TypeError:
        return False


def parse_kernel_args(fn: Callable) -> tuple[list[tuple[str, ArgKind]], list[AttributeArgDef],
                                              list[ArgKind]]:
    """Read (inputs, attributes, outputs) from ``fn``'s annotations; order is enforced."""
    where = f"kernel function {fn.__module__}.{fn.__qualname__}"
    try:
        hints = type_hints(fn)
    except Exception as exc:  # NameError on an unknown annotation, ...
        raise InvalidArgument(f"Cannot read the annotations of {where}: {exc}") from exc
    params = list(inspect.signature(fn).parameters.values())
    if not params:
        raise InvalidArgument(f"{where} must take the device context as first parameter.")
    inputs: list[tuple[str, ArgKind]] = []
    attributes: list[AttributeArgDef] = []
    for p in params[1:]:
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            raise InvalidArgument(f"{where}: parameter {p.name!r} must be positional.")
        if p.name not in hints:
            raise InvalidArgument(f"{where}: parameter {p.name!r} has no annotation.")
        ann = hints[p.name]
        kind = _tensor_kind(ann)
        if kind is not None:
            if attributes:
                raise InvalidArgument(
                    f"{where}: tensor input {p.name!r} comes after attributes; Paddle's order is"
                    " context, inputs, attributes."
                )
            inputs.append((p.name, kind))
            continue
        try:
            tag = ATTRIBUTE_TYPES.get(ann)
        except TypeError:
            tag = None
        if tag is None:
            raise InvalidArgument(
                f"{where}: Unsupported kernel argument type {ann!r} for parameter {p.name!r}."
            )
        attributes.append(AttributeArgDef(p.name, tag))
    ret = hints.get("return")
    outputs: list[ArgKind] = []
    members = typing.get_args(ret) if typing.get_origin(ret) is tuple else (ret,)
    for m in members:
        kind = _tensor_kind(m)
        if kind is None or kind is ArgKind.OPTIONAL:
            raise InvalidArgument(
                f"{where}: the return annotation must be Tensor, list[Tensor] or a tuple of "
                f"those, got {ret!r}."
            )
        outputs.append(kind)
    return inputs, attributes, outputs

