"""The io / control ops of issue 12: save, load, save_combine, load_combine (files byte for
byte Paddle's: fluid_compat/framework/tensor_io.py writes SerializeToStream records),
read_file, share_data and seed (paddle/fluid/operators/{save,load,save_combine,load_combine,
seed}_op.*, share_data_op.cc); assert is an operator class (control_flow.py).  memcpy*, nop and
share_buffer are phi kernels (phi/kernels/io_ops.py)."""

from __future__ import annotations

import os

import numpy as np
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument, NotFound, PreconditionNotMet, Unimplemented
from phi.core.selected_rows import SelectedRows, is_selected_rows
from phi.core.sparse_tensor import is_sparse
from phi.core.tensor import DenseTensor
from phi.kernels.funcs.cpu_random import engine_for
from phi.kernels.funcs import cast_array

from fluid_compat.framework.errors import ProgramFileError
from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.expected_kernel import expected_fixed
from fluid_compat.framework.tensor_io import (
    selected_rows_from_bytes,
    selected_rows_to_bytes,
    tensor_to_bytes,
    tensors_from_bytes,
)
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel

__all__: list[str] = []


for _op in ("load", "load_combine", "save_combine"):
    op_hooks(_op, get_expected_kernel_type=expected_fixed(DataType.FLOAT32))
op_hooks("read_file", get_expected_kernel_type=expected_fixed(DataType.UINT8))
op_hooks("seed", get_expected_kernel_type=expected_fixed(DataType.INT32))


def _host(ctx, t: DenseTensor) -> np.ndarray:
    return np.asarray(t.numpy())


def _as_fp16(ctx, array: np.ndarray, on: bool) -> np.ndarray:
    """save_as_fp16 / load_as_fp16: float32 tensors converted to float16 as Paddle casts."""
    if on and array.dtype == np.float32:
        return np.asarray(cast_array(ctx.dev_ctx, array, DataType.FLOAT16))
    return array


def _writable(path: str, overwrite: bool, op: str) -> None:
    if not path:
        raise InvalidArgument(f"{op}: the attribute file_path must be set.")
    if os.path.exists(path) and not overwrite:
        raise PreconditionNotMet(f"{op}: {path} exists!, cannot save to it when overwrite is "
                                 "set to false.")
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)


def _write(path: str, data: bytes) -> None:
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:  # nothing half-written: the file appears complete or not at all
        f.write(data)
    os.replace(tmp, path)


def _read(path: str, op: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as exc:
        raise NotFound(f"{op}: Cannot open file {path} for load op: {exc.strerror}.") from None


@register_fluid_kernel("save", "CPU", ("bfloat16", "float16", "float32", "float64", "int16",
                                       "int32", "int64", "int8", "uint8"))
class SaveKernel(FluidKernel):
    """X as one SerializeToStream record in ``file_path``."""

    def compute(self, ctx) -> None:
        path = ctx.attr("file_path")
        _writable(path, ctx.attr("overwrite"), "save")
        t = ctx.input("X")
        if t is None or t.data is None:
            raise NotFound("save: The variable to be saved is not initialized.")
        if is_sparse(t):  # Paddle 2.6.2 has no save kernel for them either
            raise Unimplemented(f"save: `{ctx.op.inputs['X'][0]}` holds a {type(t).__name__}; "
                                "Paddle 2.6.2 registers no save kernel for sparse tensors "
                                "(\"There are no kernels which are registered in the save "
                                "operator\"): save its to_dense() instead.")
        array = _as_fp16(ctx, _host(ctx, t), ctx.attr("save_as_fp16"))
        if is_selected_rows(t):  # Paddle's save_sr: rows, height, then the value
            _write(path, selected_rows_to_bytes(t.rows, t.height, array))
            return
        _write(path, tensor_to_bytes(array, t.lod))


@register_fluid_kernel("save_combine", "CPU", ("bfloat16", "float32", "float64", "int32",
                                               "int64"))
class SaveCombineKernel(FluidKernel):
    """Every X, in order, as consecutive records in ``file_path``."""

    def compute(self, ctx) -> None:
        if ctx.attr("save_to_memory"):
            raise Unimplemented("save_combine: save_to_memory writes a RAW string variable, "
                                "which this bridge does not hold; save to a file instead.")
        path = ctx.attr("file_path")
        _writable(path, ctx.attr("overwrite"), "save_combine")
        fp16 = ctx.attr("save_as_fp16")
        parts = []
        for name, t in zip(ctx.input_names("X"), ctx.multi_input("X"), strict=False):
            if t is None or t.data is None:
                raise NotFound(f"save_combine: The Tensor `{name}` to be saved is not "
                               "initialized.")
            parts.append(tensor_to_bytes(_as_fp16(ctx, _host(ctx, t), fp16), t.lod))
        _write(path, b"".join(parts))


def _records(data: bytes, path: str, op: str):
    """Consecutive records of ``data``: [(array, lod), ...]."""
    try:
        return tensors_from_bytes(data, source=path)
    except ProgramFileError as exc:
        raise ProgramFileError(f"{op}: {exc.message}") from None


@register_fluid_kernel("load", "CPU", ("float32",))
class LoadKernel(FluidKernel):
    """Out = the record in ``file_path``."""

    def compute(self, ctx) -> None:
        path = ctx.attr("file_path")
        if ctx.attr("seek") != -1:
            raise Unimplemented("load: seek / shape (a slice of a saved tensor) is not "
                                "supported; load the whole tensor.")
        out = ctx.op.outputs.get("Out", ())
        if out and out[0] in getattr(ctx.op, "selected_rows_vars", ()):
            # a SELECTED_ROWS Out (Paddle's load_sr): rows, height, then the value
            rows, height, array = selected_rows_from_bytes(_read(path, "load"), source=path)
            t = DenseTensor.from_numpy(array)
            ctx.staged["Out"] = [SelectedRows(rows, height, t.data, t.dtype)]
            return
        records = _records(_read(path, "load"), path, "load")
        if len(records) != 1:
            raise ProgramFileError(f"load: {path} holds {len(records)} tensors, expected one "
                                   "(load_combine reads combined files).")
        array, lod = records[0]
        array = _as_fp16(ctx, array, ctx.attr("load_as_fp16"))
        ctx.set_output("Out", array, DataType.from_numpy(array.dtype), lod=lod)


@register_fluid_kernel("load_combine", "CPU", ("bfloat16", "float32", "float64", "int32",
                                               "int64", "int8"))
class LoadCombineKernel(FluidKernel):
    """Out[i] = the i-th record of ``file_path`` (or of the bytes in it, model_from_memory)."""

    def compute(self, ctx) -> None:
        path = ctx.attr("file_path")
        data = (path.encode("latin-1") if isinstance(path, str) else bytes(path)) \
            if ctx.attr("model_from_memory") else _read(path, "load_combine")
        where = "<memory>" if ctx.attr("model_from_memory") else path
        records = _records(data, where, "load_combine")
        names = ctx.op.outputs.get("Out", ())
        if len(records) != len(names):
            raise ProgramFileError(f"load_combine: {where} holds {len(records)} tensors, the "
                                   f"op loads {len(names)}.")
        fp16 = ctx.attr("load_as_fp16")
        for i, (array, lod) in enumerate(records):
            array = _as_fp16(ctx, array, fp16)
            ctx.set_output("Out", array, DataType.from_numpy(array.dtype), index=i, lod=lod)


@register_fluid_kernel("read_file", "CPU", ("uint8",))
class ReadFileKernel(FluidKernel):
    """Out = the bytes of ``filename`` as a 1-D uint8 tensor."""

    def compute(self, ctx) -> None:
        data = _read(ctx.attr("filename"), "read_file")
        ctx.set_output("Out", np.frombuffer(data, np.uint8).copy(), DataType.UINT8)


@register_fluid_kernel("share_data", "CPU", ("bool", "float16", "float32", "float64", "int32",
                                             "int64", "int8", "uint8"))
class ShareDataKernel(FluidKernel):
    """Out holds X's data (and LoD)."""

    def compute(self, ctx) -> None:
        t = ctx.input("X")
        ctx.set_output("Out", ctx.input_array("X"), t.dtype, lod=t.lod)


@register_fluid_kernel("seed", "CPU", ("int32",))
class SeedKernel(FluidKernel):
    """Out = [seed] (int32), a random one when ``seed`` is 0."""

    def compute(self, ctx) -> None:
        seed = int(ctx.attr("seed"))
        if seed == 0:
            seed = int(engine_for(0).draw(1)[0] % np.uint64(2**31 - 1)) or 1
        ctx.set_output("Out", np.array([seed], np.int32), DataType.INT32)
