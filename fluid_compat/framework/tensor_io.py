"""Paddle's serialized dense tensor record and the parameter files made of such records.

One record (little-endian, Paddle 2.6.2 ``SerializeToStream`` of a DenseTensor/LoDTensor)::

    uint32  version = 0
    uint64  number of LoD levels L
    L x {uint64 byte size of the level, then that many bytes of uint64 offsets}
    uint32  tensor version = 0
    int32   byte size of the TensorDesc
    bytes   TensorDesc (protobuf VarType.TensorDesc: data_type, dims)
    bytes   numel x itemsize raw C-order elements (numel of dims () is 1)

A combined parameter file (``.pdiparams``, ``__params__``) is the records of the persistable
variables of block 0, except FEED_MINIBATCH / FETCH_LIST / RAW ones, in sorted-name order, with
nothing before, between or after them.  Separate parameter files hold one record each, in a file
named after the variable.

Every failure (truncated or corrupt bytes, a record that disagrees with its VarDesc, missing or
surplus bytes) raises one ProgramFileError naming the file and/or variable; loaders return only
when everything was read and checked.
"""

from __future__ import annotations

import contextlib
import os
import struct
import sys
from collections.abc import Mapping, Sequence
from typing import BinaryIO

import numpy as np
from google.protobuf.message import DecodeError

from fluid_compat.framework.enums import NOT_SAVED_VAR_TYPES
from fluid_compat.framework.errors import ProgramFileError
from fluid_compat.framework.program_desc import ProgramDesc
from fluid_compat.framework.proto import messages as pb
from fluid_compat.framework.var_desc import VarDesc
from phi.common import DataType
from phi.core.errors import InvalidArgument

__all__ = [
    "LoD",
    "combined_param_vars",
    "load_combined_params",
    "load_separate_params",
    "read_tensor",
    "save_combined_params",
    "save_separate_params",
    "serialize_combined_params",
    "selected_rows_from_bytes",
    "selected_rows_to_bytes",
    "tensor_from_bytes",
    "tensor_to_bytes",
    "tensors_from_bytes",
    "write_tensor",
]

LoD = tuple[tuple[int, ...], ...]  # offsets per level, e.g. ((0, 2, 5),)
ParamValue = np.ndarray | tuple[np.ndarray, Sequence[Sequence[int]]]
PathOrBytes = str | os.PathLike[str] | bytes | bytearray | memoryview

_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")
_I32 = struct.Struct("<i")
_CHUNK = 1 << 26  # read big payloads from streams piecewise: a corrupt size never allocates it
_LITTLE = sys.byteorder == "little"


class _Corrupt(Exception):
    """Internal: what is wrong with a record; turned into ProgramFileError with the context."""


# -- byte sources ------------------------------------------------------------------------------


def _truncated(what: str, n: int, pos: int, left: int) -> _Corrupt:
    return _Corrupt(f"truncated: {what} needs {n} bytes at offset {pos}, only {left} left")


class _BufferSource:
    """Reads from an in-memory buffer (the caller's): every array is copied out of it, so none
    aliases the caller's bytes and each is aligned (a record's data starts wherever its header
    ends; numpy hands misaligned operands to slow non-BLAS loops)."""

    def __init__(self, data: bytes | bytearray | memoryview) -> None:
        view = memoryview(data)
        self.view = (view if view.c_contiguous else memoryview(view.tobytes())).cast("B")
        self.pos = 0

    def remaining(self) -> int:
        return len(self.view) - self.pos

    def read(self, n: int, what: str) -> memoryview:
        if n > len(self.view) - self.pos:
            raise _truncated(what, n, self.pos, len(self.view) - self.pos)
        out = self.view[self.pos : self.pos + n]
        self.pos += n
        return out

    def read_array(self, numel: int, dtype: np.dtype, what: str) -> np.ndarray:
        return np.frombuffer(self.read(numel * dtype.itemsize, what), dtype=dtype).copy()


class _StreamSource:
    """Reads from a binary stream (file object)."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.pos = 0

    def read(self, n: int, what: str) -> bytearray:
        # piecewise, so that a corrupt size never allocates more than the stream holds; a
        # bytearray, so that arrays made on it are writable without another copy
        buf = bytearray()
        while len(buf) < n:
            piece = self.stream.read(min(_CHUNK, n - len(buf)))
            if not piece:
                raise _truncated(what, n, self.pos, len(buf))
            buf += piece
        self.pos += n
        return buf

    def read_array(self, numel: int, dtype: np.dtype, what: str) -> np.ndarray:
        array = np.frombuffer(self.read(numel * dtype.itemsize, what), dtype=dtype)
        return array if array.flags.aligned else array.copy()  # the bytes are its own


class _FileSource:
    """Reads a file of known size: the small fields through the file's buffer, each payload
    straight into a fresh numpy array (aligned, writable, read once, no copy of the file);
    a size beyond the file's end is refused before anything is allocated."""

    def __init__(self, f: BinaryIO, size: int) -> None:
        self.f = f
        self.size = size
        self.pos = 0

    def remaining(self) -> int:
        return self.size - self.pos

    def read(self, n: int, what: str) -> bytes:
        if n > self.size - self.pos:
            raise _truncated(what, n, self.pos, self.size - self.pos)
        data = self.f.read(n)
        if len(data) != n:  # the file shrank while being read
            raise _truncated(what, n, self.pos, len(data))
        self.pos += n
        return data

    def read_array(self, numel: int, dtype: np.dtype, what: str) -> np.ndarray:
        n = numel * dtype.itemsize
        if n > self.size - self.pos:
            raise _truncated(what, n, self.pos, self.size - self.pos)
        array = np.empty(numel, dtype=dtype)
        raw = array.view(np.uint8)  # any dtype (bfloat16 has no buffer format of its own)
        got = 0
        while got < n:
            k = self.f.readinto(raw[got:])
            if not k:  # the file shrank while being read
                raise _truncated(what, n, self.pos, got)
            got += k
        self.pos += n
        return array


# -- one record --------------------------------------------------------------------------------


def _read_record(src: _BufferSource | _StreamSource | _FileSource) -> tuple[np.ndarray, LoD]:
    (version,) = _U32.unpack(src.read(4, "the record version"))
    if version != 0:
        raise _Corrupt(f"record version is {version}, only version 0 exists")
    (levels,) = _U64.unpack(src.read(8, "the LoD level count"))
    lod = []
    for level in range(levels):
        (size,) = _U64.unpack(src.read(8, f"the size of LoD level {level}"))
        if size % 8:
            raise _Corrupt(f"LoD level {level} has {size} bytes, not a multiple of 8")
        raw = src.read(size, f"LoD level {level}")
        lod.append(tuple(np.frombuffer(raw, dtype="<u8").tolist()))
    (tensor_version,) = _U32.unpack(src.read(4, "the tensor version"))
    if tensor_version != 0:
        raise _Corrupt(f"tensor version is {tensor_version}, only version 0 exists")
    (desc_size,) = _I32.unpack(src.read(4, "the TensorDesc size"))
    if desc_size < 0:
        raise _Corrupt(f"TensorDesc size is {desc_size}")
    desc = pb.VarType.TensorDesc()
    try:
        desc.ParseFromString(bytes(src.read(desc_size, "the TensorDesc")))
    except (DecodeError, RuntimeError, ValueError) as e:
        raise _Corrupt(f"the TensorDesc is not valid protobuf ({e})") from None
    if not desc.HasField("data_type"):
        raise _Corrupt("the TensorDesc has no data_type")
    try:
        dtype = DataType.from_proto(desc.data_type)
        np_dtype = dtype.to_numpy()
    except InvalidArgument:
        raise _Corrupt(f"data type {desc.data_type} cannot be loaded into an array") from None
    dims = tuple(desc.dims)
    if any(d < 0 for d in dims):
        raise _Corrupt(f"dims {list(dims)} have a negative size")
    numel = 1
    for d in dims:
        numel *= d
    array = src.read_array(numel, np_dtype,
                           f"the data of a {dtype} tensor of shape {list(dims)}").reshape(dims)
    if not _LITTLE:
        array = array.byteswap()
    return array, tuple(lod)


def _record_bytes(array: np.ndarray, lod: Sequence[Sequence[int]]) -> bytes:
    try:
        proto_dtype = int(DataType.from_numpy(array.dtype).to_proto())
    except InvalidArgument as e:
        raise InvalidArgument(f"cannot save an array of dtype {array.dtype}: {e.message}") from None
    out = [_U32.pack(0), _U64.pack(len(lod))]
    for level in lod:
        offsets = np.asarray(level, dtype="<u8")
        if offsets.ndim != 1:
            raise InvalidArgument(f"a LoD level must be a sequence of offsets, got {level!r}")
        out += [_U64.pack(offsets.nbytes), offsets.tobytes()]
    desc = pb.VarType.TensorDesc(data_type=proto_dtype, dims=array.shape)
    desc_bytes = desc.SerializeToString()
    out += [_U32.pack(0), _I32.pack(len(desc_bytes)), desc_bytes]
    data = np.ascontiguousarray(array)
    out.append((data if _LITTLE else data.byteswap()).tobytes())
    return b"".join(out)


def read_tensor(stream: BinaryIO) -> tuple[np.ndarray, LoD]:
    """Read one record from a binary stream: (array, LoD offsets per level)."""
    try:
        return _read_record(_StreamSource(stream))
    except _Corrupt as e:
        raise ProgramFileError(str(e), path=getattr(stream, "name", None)) from None


def write_tensor(stream: BinaryIO, array: np.ndarray, lod: Sequence[Sequence[int]] = ()) -> None:
    """Write one record (the dtype and shape of ``array``; float16, bfloat16, bool ... kept)."""
    stream.write(_record_bytes(np.asarray(array), lod))


def tensor_from_bytes(
    data: bytes | bytearray | memoryview, *, source: str | None = None
) -> tuple[np.ndarray, LoD]:
    """Exactly one record from ``data`` (a file written by Paddle's ``save`` op)."""
    src = _BufferSource(data)
    try:
        result = _read_record(src)
    except _Corrupt as e:
        raise ProgramFileError(str(e), path=source) from None
    if src.remaining():
        raise ProgramFileError(
            f"{src.remaining()} bytes follow the tensor record (expected exactly one record)",
            path=source,
        )
    return result


def tensors_from_bytes(
    data: bytes | bytearray | memoryview, *, source: str | None = None
) -> list[tuple[np.ndarray, LoD]]:
    """Every record of ``data``, in order (a file written by Paddle's ``save_combine`` op)."""
    src = _BufferSource(data)
    out = []
    try:
        while src.remaining():
            out.append(_read_record(src))
    except _Corrupt as e:
        raise ProgramFileError(f"record {len(out)}: {e}", path=source) from None
    return out


def tensor_to_bytes(array: np.ndarray, lod: Sequence[Sequence[int]] = ()) -> bytes:
    """One record as bytes."""
    return _record_bytes(np.asarray(array), lod)


# -- parameter files ---------------------------------------------------------------------------


def combined_param_vars(program: ProgramDesc) -> list[VarDesc]:
    """The variables a combined parameter file holds, in file order: persistable variables of
    block 0 except FEED_MINIBATCH / FETCH_LIST / RAW ones, sorted by name."""
    block = program.global_block
    chosen = [v for v in block.vars.values() if v.persistable and v.type not in NOT_SAVED_VAR_TYPES]
    return sorted(chosen, key=lambda v: v.name)


def _check_against(var: VarDesc, array: np.ndarray, path: str | None, verb: str) -> None:
    """dtype and shape of ``array`` against its VarDesc (-1 dims match any size)."""
    found = DataType.from_numpy(array.dtype)
    if var.dtype is not None and found != var.dtype:
        raise ProgramFileError(
            f"{verb} dtype {found}, but the program declares {var.dtype}",
            path=path,
            var_name=var.name,
        )
    declared = var.shape
    if declared is not None:
        shape = array.shape
        if len(shape) != len(declared) or any(
                d != -1 and d != s for d, s in zip(declared, shape, strict=True)):
            raise ProgramFileError(
                f"{verb} shape {list(shape)}, but the program declares {list(declared)}",
                path=path,
                var_name=var.name,
            )


@contextlib.contextmanager
def _opened(source: PathOrBytes):
    """(source of records, path): a file is read record by record, each payload straight into
    its own array (one read, no copy of the file held beside the arrays); bytes are viewed and
    every array copied out of them (the arrays never alias the caller's buffer)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        yield _BufferSource(source), None
        return
    path = os.fspath(source)
    try:
        with open(path, "rb") as f:
            yield _FileSource(f, os.fstat(f.fileno()).st_size), path
    except OSError as e:
        raise ProgramFileError(f"cannot read: {e.strerror}", path=path) from None


def load_combined_params(
    source: PathOrBytes, program: ProgramDesc
) -> dict[str, tuple[np.ndarray, LoD]]:
    """Read a combined parameter file (path or bytes) for ``program``: name -> (array, LoD).

    Checks that there is one record per variable of :func:`combined_param_vars`, that dtype and
    shape agree with each VarDesc, and that no byte is left over.  The arrays are writable.
    """
    with _opened(source) as (src, path):
        return _read_combined(src, path, program)


def _read_combined(src, path: str | None,
                   program: ProgramDesc) -> dict[str, tuple[np.ndarray, LoD]]:
    names = combined_param_vars(program)
    out: dict[str, tuple[np.ndarray, LoD]] = {}
    for k, var in enumerate(names):
        if src.remaining() == 0:
            missing = [v.name for v in names[k:]]
            raise ProgramFileError(
                f"the file ends after {k} of {len(names)} parameter records; missing "
                f"{_list(missing)}",
                path=path,
                var_name=var.name,
            )
        start = src.pos
        try:
            array, lod = _read_record(src)
        except _Corrupt as e:
            raise ProgramFileError(
                f"record {k + 1} of {len(names)} (from offset {start}): {e}",
                path=path,
                var_name=var.name,
            ) from None
        _check_against(var, array, path, f"record {k + 1} of {len(names)} has")
        out[var.name] = (array, lod)
    if src.remaining():
        raise ProgramFileError(
            f"{src.remaining()} bytes are left after the last of {len(names)} parameter records "
            f"(the file holds more than the program's persistable variables)",
            path=path,
        )
    return out


def _normalize(
    program: ProgramDesc, params: Mapping[str, ParamValue], path: str | None
) -> list[tuple[VarDesc, np.ndarray, Sequence[Sequence[int]]]]:
    wanted = combined_param_vars(program)
    names = {v.name for v in wanted}
    missing = [v.name for v in wanted if v.name not in params]
    if missing:
        raise ProgramFileError(
            f"no value given for persistable {_list(missing)}", path=path, var_name=missing[0]
        )
    extra = sorted(set(params) - names)
    if extra:
        raise ProgramFileError(
            f"{_list(extra)} are not persistable variables of block 0",
            path=path,
            var_name=extra[0],
        )
    out = []
    for var in wanted:
        value = params[var.name]
        array, lod = value if isinstance(value, tuple) else (value, ())
        array = np.asarray(array)
        _check_against(var, array, path, "the value has")
        out.append((var, array, lod))
    return out


def serialize_combined_params(program: ProgramDesc, params: Mapping[str, ParamValue]) -> bytes:
    """The bytes of a combined parameter file; ``params``: name -> array or (array, LoD)."""
    return b"".join(_record_bytes(a, lod) for _, a, lod in _normalize(program, params, None))


def save_combined_params(
    path: str | os.PathLike[str], program: ProgramDesc, params: Mapping[str, ParamValue]
) -> None:
    """Write a combined parameter file (``.pdiparams``), all or nothing."""
    name = os.fspath(path)
    records = _normalize(program, params, name)
    _write_atomically(name, b"".join(_record_bytes(a, lod) for _, a, lod in records))


def load_separate_params(
    dirname: str | os.PathLike[str], program: ProgramDesc
) -> dict[str, tuple[np.ndarray, LoD]]:
    """Read one file per variable (``dirname/<variable name>``), checked as the combined file."""
    base = os.fspath(dirname)
    out: dict[str, tuple[np.ndarray, LoD]] = {}
    for var in combined_param_vars(program):
        path = os.path.join(base, var.name)
        if not os.path.isfile(path):
            raise ProgramFileError(
                "missing: no file for this persistable variable", path=path, var_name=var.name
            )
        with _opened(path) as (src, _):
            try:
                array, lod = _read_record(src)
            except _Corrupt as e:
                raise ProgramFileError(str(e), path=path, var_name=var.name) from None
            if src.remaining():
                raise ProgramFileError(
                    f"{src.remaining()} bytes follow the tensor record (expected exactly one "
                    "record)",
                    path=path,
                    var_name=var.name,
                )
        _check_against(var, array, path, "the file has")
        out[var.name] = (array, lod)
    return out


def save_separate_params(
    dirname: str | os.PathLike[str], program: ProgramDesc, params: Mapping[str, ParamValue]
) -> None:
    """Write one file per variable into ``dirname`` (created when missing)."""
    base = os.fspath(dirname)
    records = _normalize(program, params, base)
    os.makedirs(base, exist_ok=True)
    for var, array, lod in records:
        _write_atomically(os.path.join(base, var.name), _record_bytes(array, lod))


def _write_atomically(path: str, data: bytes) -> None:
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def _list(names: Sequence[str], limit: int = 8) -> str:
    shown = ", ".join(f"'{n}'" for n in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


# -- SelectedRows records ------------------------------------------------------------------------


#: a LoDTensor record's version and LoD level count (u32 + u64) precede TensorToStream's part
_LOD_PART = 12


def selected_rows_to_bytes(rows: Sequence[int], height: int, array: np.ndarray) -> bytes:
    """Paddle's SerializeToStream of a SelectedRows: u32 version 0, u64 number of rows, the
    rows as int64, int64 height, then the value as TensorToStream writes it (a LoDTensor
    record without its LoD part: u32 version, i32 desc size, TensorDesc, data)."""
    head = [_U32.pack(0), _U64.pack(len(rows)), np.asarray(rows, dtype="<i8").tobytes(),
            np.asarray([height], dtype="<i8").tobytes()]
    return b"".join(head) + _record_bytes(np.asarray(array), ())[_LOD_PART:]


def selected_rows_from_bytes(data: bytes | bytearray | memoryview, *, source: str | None = None
                             ) -> tuple[list[int], int, np.ndarray]:
    """(rows, height, value) of exactly one SelectedRows record (Paddle's ``save`` of a
    SELECTED_ROWS variable, DeserializeFromStream)."""
    src = _BufferSource(data)
    try:
        version = _U32.unpack(src.read(4, "SelectedRows version"))[0]
        if version != 0:
            raise _Corrupt(f"only SelectedRows version 0 is supported, got {version}")
        n = _U64.unpack(src.read(8, "number of rows"))[0]
        if n * 8 > src.remaining():
            raise _Corrupt(f"{n} rows do not fit in the {src.remaining()} bytes left")
        rows = np.frombuffer(bytes(src.read(8 * n, "rows")), dtype="<i8").tolist()
        height = int(np.frombuffer(bytes(src.read(8, "height")), dtype="<i8")[0])
        # the value: a tensor record without LoD part; read as one with zero LoD levels
        array, _ = _read_record(_BufferSource(bytes(_LOD_PART) + bytes(
            src.read(src.remaining(), "value"))))
    except _Corrupt as e:
        raise ProgramFileError(str(e), path=source) from None
    if src.remaining():
        raise ProgramFileError(f"{src.remaining()} bytes follow the SelectedRows record",
                               path=source)
    return rows, height, array
