"""Data transforms: the only place where tensors change device, dtype or layout.

``prepare_data`` brings one input to what a kernel's argument definition asks for, in Paddle's
order layout -> dtype -> place.  Rules (semantics.md, "Data preparation"):

* place: moves when the argument's backend is not ALL_BACKEND and the tensor is not on the
  kernel's place (``trans_backend``);
* dtype: only when ``trans_dtype`` is set (or the target is complex), and the argument's dtype is
  concrete; kernels never see an implicit cast otherwise;
* layout: NCHW <-> NHWC on 4-D tensors only, when both layouts are concrete and differ.
"""

from __future__ import annotations

from phi.core import records

from phi.backends import get_context
from phi.common.backend import Backend
from phi.common.data_type import DataType
from phi.common.layout import DataLayout
from phi.common.place import Place
from phi.core import trace
from phi.core.errors import Unimplemented
from phi.core.kernel import TensorArgDef
from phi.core.tensor import DenseTensor

__all__ = [
    "DEFAULT_FLAG",
    "TransformFlag",
    "prepare_data",
    "transform_dtype",
    "transform_layout",
    "transform_place",
]

_ALL_LAYOUT = DataLayout.ALL_LAYOUT
_ALL_DTYPE = DataType.ALL_DTYPE
_ALL_BACKEND = Backend.ALL_BACKEND
_COMPLEX = (DataType.COMPLEX64, DataType.COMPLEX128)
_PERM = {
    (DataLayout.NCHW, DataLayout.NHWC): (0, 2, 3, 1),
    (DataLayout.NHWC, DataLayout.NCHW): (0, 3, 1, 2),
}


@records.frozen
class TransformFlag:
    """Paddle's TransformFlag; ``stop_transform`` wins over the three others."""

    stop_transform: bool = False
    trans_dtype: bool = False
    trans_backend: bool = True
    trans_layout: bool = True


DEFAULT_FLAG = TransformFlag()


def prepare_data(
    tensor: DenseTensor | None,
    arg_def: TensorArgDef,
    place: Place,
    flag: TransformFlag = DEFAULT_FLAG,
    *,
    what: str = "",
) -> DenseTensor | None:
    """``tensor`` as argument ``arg_def`` of a kernel running on ``place`` wants it.

    Returns the input itself when nothing is needed (the common case, three comparisons), else a
    new DenseTensor; the input is never modified.  ``what`` names the argument in the trace.
    """
    if tensor is None or tensor.data is None or flag.stop_transform:
        return tensor
    need_layout = (
        flag.trans_layout
        and arg_def.layout is not _ALL_LAYOUT
        and tensor.layout is not _ALL_LAYOUT
        and tensor.layout != arg_def.layout
        and (tensor.layout, arg_def.layout) in _PERM
        and len(tensor.data.shape) == 4
    )
    target_dtype = arg_def.dtype
    need_dtype = (
        target_dtype is not _ALL_DTYPE
        and tensor.dtype != target_dtype
        and (flag.trans_dtype or target_dtype in _COMPLEX)
    )
    need_place = (
        flag.trans_backend and arg_def.backend is not _ALL_BACKEND and tensor.place != place
    )
    if not (need_layout or need_dtype or need_place):
        return tensor
    out = tensor
    if need_layout:
        out = transform_layout(out, arg_def.layout, what=what)
    if need_dtype:
        out = transform_dtype(out, target_dtype, what=what)
    if need_place:
        out = transform_place(out, place, what=what)
    return out


def transform_layout(tensor: DenseTensor, layout: DataLayout, *, what: str = "") -> DenseTensor:
    """Permute a 4-D tensor between NCHW and NHWC (data and dims) and retag it."""
    perm = _PERM.get((tensor.layout, layout))
    if perm is None or len(tensor.dims) != 4:
        raise Unimplemented(
            f"Unsupported layout transform of {what or 'a tensor'}: {tensor.layout} -> {layout} "
            f"on a {len(tensor.dims)}-D tensor (only NCHW <-> NHWC on 4-D tensors)."
        )
    ctx = get_context(tensor.place)
    data = ctx.xp.permute_dims(tensor.data, perm) if hasattr(ctx.xp, "permute_dims") else (
        ctx.xp.transpose(tensor.data, perm)
    )
    if trace.LEVEL >= 2:
        trace.logger.debug("  transform %s layout %s -> %s", what, tensor.layout, layout)
    return DenseTensor(data, tensor.dtype, tensor.place, layout, tensor.lod)


def transform_dtype(tensor: DenseTensor, dtype: DataType, *, what: str = "") -> DenseTensor:
    """Cast to ``dtype`` on the tensor's own device."""
    ctx = get_context(tensor.place)
    if trace.LEVEL >= 2:
        trace.logger.debug("  transform %s dtype %s -> %s", what, tensor.dtype, dtype)
    return DenseTensor(ctx.astype(tensor.data, dtype), dtype, tensor.place, tensor.layout,
                       tensor.lod)


def transform_place(tensor: DenseTensor, place: Place, *, what: str = "") -> DenseTensor:
    """Copy to ``place`` through the two device contexts."""
    src = get_context(tensor.place)
    dst = get_context(place)
    if trace.LEVEL >= 2:
        trace.logger.debug("  transform %s place %s -> %s", what, tensor.place, place)
    data = dst.copy_from(tensor.data, src)
    return DenseTensor(data, tensor.dtype, place, tensor.layout, tensor.lod)
