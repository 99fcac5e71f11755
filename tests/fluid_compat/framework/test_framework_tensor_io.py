"""Serialized dense tensors and parameter files: the worked bytes of reference §8.3, dtypes and
LoD, corpus parameters re-saved byte for byte, sorted-name order, and the typed errors."""

from __future__ import annotations

import io
import struct
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from tests.fluid_compat.framework.framework_testlib import LOCAL_MODEL, corpus_models, ids

from fluid_compat.framework import ProgramDesc, ProgramFileError, VarType
from fluid_compat.framework.proto import messages as pb
from fluid_compat.framework.tensor_io import (
    combined_param_vars,
    load_combined_params,
    load_separate_params,
    read_tensor,
    save_combined_params,
    save_separate_params,
    serialize_combined_params,
    tensor_from_bytes,
    tensor_to_bytes,
    write_tensor,
)
from phi.common import DataType


def _hex(text: str) -> bytes:
    return bytes.fromhex(text.replace("|", " "))


# ---------------------------------------------------------------------------------------------
# the worked examples of reference §8.3 (bytes written by Paddle 2.6.2)

FLOAT32_7_8 = _hex(
    "00000000 | 0000000000000000 | 00000000 | 04000000 | 08 05 10 02 | 0000e040 00000041"
)
INT64_WITH_LOD = _hex(
    "00000000 | 0100000000000000 | 1800000000000000 | 0000000000000000 0100000000000000 "
    "0200000000000000 | 00000000 | 04000000 | 08 03 10 02 | 0100000000000000 0200000000000000"
)


def test_worked_example_float32() -> None:
    assert tensor_to_bytes(np.array([7, 8], dtype=np.float32)) == FLOAT32_7_8
    array, lod = tensor_from_bytes(FLOAT32_7_8)
    assert array.dtype == np.float32 and array.tolist() == [7.0, 8.0] and lod == ()


def test_worked_example_desc_of_3x2() -> None:
    data = tensor_to_bytes(np.zeros((3, 2), dtype=np.float32))
    assert data[16:20] == _hex("06000000")
    assert data[20:26] == _hex("08 05 10 03 10 02")
    assert len(data) == 26 + 6 * 4


def test_worked_example_int64_with_lod() -> None:
    assert tensor_to_bytes(np.array([1, 2], dtype=np.int64), [[0, 1, 2]]) == INT64_WITH_LOD
    array, lod = tensor_from_bytes(INT64_WITH_LOD)
    assert array.dtype == np.int64 and array.tolist() == [1, 2]
    assert lod == ((0, 1, 2),)


def test_packed_dims_are_accepted() -> None:
    # dims written packed (0x12 len ...) by other writers: same tensor
    packed = _hex(
        "00000000 | 0000000000000000 | 00000000 | 05000000 | 08 05 12 01 02 | 0000e040 00000041"
    )
    array, _ = tensor_from_bytes(packed)
    assert array.tolist() == [7.0, 8.0]


# ---------------------------------------------------------------------------------------------
# dtypes, shapes, LoD

_DTYPES = [
    np.float16,
    ml_dtypes.bfloat16,
    np.float32,
    np.float64,
    np.bool_,
    np.int8,
    np.uint8,
    np.int16,
    np.int32,
    np.int64,
    np.complex64,
    np.complex128,
]


@pytest.mark.parametrize("dtype", _DTYPES, ids=[np.dtype(d).name for d in _DTYPES])
@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 3, 4)], ids=["0d", "empty", "1d", "3d"])
def test_dtype_round_trip(dtype: type, shape: tuple[int, ...]) -> None:
    rng = np.random.default_rng(0)
    array = (rng.standard_normal(shape) * 10).astype(dtype)
    data = tensor_to_bytes(array)
    back, lod = tensor_from_bytes(data)
    assert back.dtype == np.dtype(dtype) and back.shape == shape and lod == ()
    assert back.tobytes() == array.tobytes()
    itemsize = np.dtype(dtype).itemsize
    assert data.endswith(array.tobytes()) and len(array.tobytes()) == array.size * itemsize


def test_bfloat16_bytes_are_the_upper_halves_of_float32() -> None:
    array = np.array([1.0, -2.5], dtype=ml_dtypes.bfloat16)
    data = tensor_to_bytes(array)
    assert (
        data[-4:]
        == (np.array([1.0, -2.5], np.float32).view(np.uint32) >> 16).astype("<u2").tobytes()
    )
    assert data[20] == 0x08 and data[21] == 22  # VarType.BF16


def test_lod_kept_through_streams() -> None:
    stream = io.BytesIO()
    write_tensor(stream, np.arange(10, dtype=np.int32).reshape(5, 2), [[0, 2], [0, 1, 5]])
    write_tensor(stream, np.ones(3, dtype=np.bool_))
    stream.seek(0)
    first, lod = read_tensor(stream)
    second, lod2 = read_tensor(stream)
    assert first.shape == (5, 2) and lod == ((0, 2), (0, 1, 5))
    assert second.dtype == np.bool_ and lod2 == ()
    assert first.flags.writeable
    assert stream.read() == b""


def test_truncated_stream() -> None:
    with pytest.raises(ProgramFileError, match="truncated.*data of a float32 tensor of shape"):
        read_tensor(io.BytesIO(FLOAT32_7_8[:-1]))
    with pytest.raises(ProgramFileError, match="truncated.*record version"):
        read_tensor(io.BytesIO(b""))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (_hex("01000000") + FLOAT32_7_8[4:], "record version is 1"),
        (FLOAT32_7_8[:12] + _hex("02000000") + FLOAT32_7_8[16:], "tensor version is 2"),
        (FLOAT32_7_8[:16] + _hex("ffffffff") + FLOAT32_7_8[20:], "TensorDesc size is -1"),
        (
            FLOAT32_7_8[:4] + _hex("0100000000000000 0300000000000000") + FLOAT32_7_8[12:],
            "not a multiple of 8",
        ),
        (FLOAT32_7_8[:20] + _hex("08 07") + FLOAT32_7_8[22:], "data type 7"),
        (FLOAT32_7_8[:20] + _hex("10 02 10 02") + FLOAT32_7_8[24:], "no data_type"),
        (FLOAT32_7_8[:20] + _hex("08 05 10 7f") + FLOAT32_7_8[24:], "shape \\[127\\]"),
        (FLOAT32_7_8[:20] + _hex("08 05 ff 02") + FLOAT32_7_8[24:], "not valid protobuf"),
        (FLOAT32_7_8 + b"\x00", "1 bytes follow the tensor record"),
    ],
    ids=[
        "version",
        "tensor-version",
        "desc-size",
        "lod-size",
        "not-dtype",
        "no-dtype",
        "too-short",
        "bad-desc",
        "extra",
    ],
)
def test_corrupt_records(data: bytes, message: str) -> None:
    with pytest.raises(ProgramFileError, match=message):
        tensor_from_bytes(data, source="w.bin")


# ---------------------------------------------------------------------------------------------
# combined parameter files of real models


def _model_paths() -> list[Path]:
    return [LOCAL_MODEL, *corpus_models()]


@pytest.mark.parametrize("model", _model_paths(), ids=["local-mlp", *ids(corpus_models())])
def test_model_params_round_trip(model: Path, tmp_path: Path) -> None:
    program = ProgramDesc.load(model / "inference.pdmodel")
    original = (model / "inference.pdiparams").read_bytes()
    params = load_combined_params(model / "inference.pdiparams", program)
    assert list(params) == sorted(params) == [v.name for v in combined_param_vars(program)]
    for name, (array, lod) in params.items():
        var = program.global_block.var(name)
        assert array.shape == var.shape and DataType.from_numpy(array.dtype) == var.dtype
        assert lod == ()
    assert serialize_combined_params(program, params) == original
    save_combined_params(tmp_path / "p.pdiparams", program, params)
    assert (tmp_path / "p.pdiparams").read_bytes() == original
    assert load_combined_params(original, program).keys() == params.keys()
    # one file per variable, as save_vars(filename=None) writes them
    save_separate_params(tmp_path / "sep", program, params)
    back = load_separate_params(tmp_path / "sep", program)
    for name, (array, _) in params.items():
        np.testing.assert_array_equal(back[name][0], array)
        assert (tmp_path / "sep" / name).read_bytes() == tensor_to_bytes(array)


def _out_of_order_program() -> ProgramDesc:
    program = ProgramDesc()
    block = program.global_block
    block.create_var("feed", type=VarType.FEED_MINIBATCH, persistable=True)
    block.create_var("zeta", dtype="float16", shape=[2], persistable=True)
    block.create_var("tmp", dtype="float32", shape=[-1, 2])  # not persistable: not saved
    block.create_var("alpha", dtype="int64", shape=[-1], persistable=True)
    block.create_var("Mid", dtype="bool", shape=[2, 1], persistable=True)
    block.create_var("fetch", type=VarType.FETCH_LIST, persistable=True)
    block.create_var("raw", type=VarType.RAW, persistable=True)
    return program


def test_records_are_in_sorted_name_order(tmp_path: Path) -> None:
    program = _out_of_order_program()
    values = {
        "zeta": np.array([1.5, 2.5], np.float16),
        "alpha": (np.array([4, 5, 6], np.int64), [[0, 1, 3]]),
        "Mid": np.array([[True], [False]]),
    }
    path = tmp_path / "__params__"
    save_combined_params(path, program, values)
    stream = io.BytesIO(path.read_bytes())
    order = [read_tensor(stream) for _ in range(3)]
    assert stream.read() == b""
    assert order[0][0].dtype == np.bool_  # "Mid" < "alpha" < "zeta" (byte order)
    assert order[1][0].tolist() == [4, 5, 6] and order[1][1] == ((0, 1, 3),)
    assert order[2][0].dtype == np.float16
    loaded = load_combined_params(path, program)
    assert list(loaded) == ["Mid", "alpha", "zeta"]
    assert loaded["alpha"][1] == ((0, 1, 3),)


# ---------------------------------------------------------------------------------------------
# files that disagree with the program


def _mlp() -> tuple[ProgramDesc, bytes]:
    return (
        ProgramDesc.load(LOCAL_MODEL / "inference.pdmodel"),
        (LOCAL_MODEL / "inference.pdiparams").read_bytes(),
    )


def test_too_few_records(tmp_path: Path) -> None:
    program, data = _mlp()
    params = load_combined_params(data, program)
    names = list(params)
    short = serialize_combined_params(program, params)[
        : -len(tensor_to_bytes(params[names[-1]][0]))
    ]
    path = tmp_path / "short.pdiparams"
    path.write_bytes(short)
    with pytest.raises(ProgramFileError, match=f"ends after 5 of 6.*missing '{names[-1]}'") as err:
        load_combined_params(path, program)
    assert "short.pdiparams" in str(err.value) and err.value.var_name == names[-1]


def test_too_many_records() -> None:
    program, data = _mlp()
    with pytest.raises(ProgramFileError, match="bytes are left after the last of 6"):
        load_combined_params(data + FLOAT32_7_8, program)


def test_truncated_record_names_the_variable() -> None:
    program, data = _mlp()
    with pytest.raises(ProgramFileError, match="variable 'linear_0.w_0'.*record 6 of 6.*truncated"):
        load_combined_params(data[:-10], program)


def test_wrong_shape_names_the_variable() -> None:
    program, data = _mlp()
    program.global_block.var("fc_0.w_0").shape = (32, 16)
    with pytest.raises(
        ProgramFileError, match=r"variable 'fc_0.w_0'.*shape \[16, 32\].*declares \[32, 16\]"
    ):
        load_combined_params(data, program)


def test_wrong_dtype_names_the_variable() -> None:
    program, data = _mlp()
    program.global_block.var("fc_0.b_0").dtype = DataType.FLOAT64
    with pytest.raises(ProgramFileError, match="variable 'fc_0.b_0'.*float32.*declares float64"):
        load_combined_params(data, program)


def test_wrong_count_in_program() -> None:
    program, data = _mlp()
    program.global_block.create_var("aaa_extra", dtype="float32", shape=[1], persistable=True)
    with pytest.raises(ProgramFileError, match="variable 'aaa_extra'.*shape \\[32\\]"):
        load_combined_params(data, program)


def test_saving_checks_names_and_values(tmp_path: Path) -> None:
    program, data = _mlp()
    params = {k: v[0] for k, v in load_combined_params(data, program).items()}
    with pytest.raises(ProgramFileError, match="no value given for persistable 'fc_0.b_0'"):
        save_combined_params(
            tmp_path / "a", program, {k: v for k, v in params.items() if k != "fc_0.b_0"}
        )
    with pytest.raises(ProgramFileError, match="'nope' are not persistable"):
        save_combined_params(tmp_path / "a", program, {**params, "nope": np.zeros(1)})
    with pytest.raises(ProgramFileError, match="variable 'fc_0.b_0'.*dtype float64"):
        save_combined_params(tmp_path / "a", program, {**params, "fc_0.b_0": np.zeros(32)})
    assert not (tmp_path / "a").exists()


def test_separate_files_errors(tmp_path: Path) -> None:
    program, data = _mlp()
    params = load_combined_params(data, program)
    save_separate_params(tmp_path, program, params)
    (tmp_path / "fc_0.b_0").unlink()
    with pytest.raises(ProgramFileError, match="variable 'fc_0.b_0'.*no file"):
        load_separate_params(tmp_path, program)
    (tmp_path / "fc_0.b_0").write_bytes(tensor_to_bytes(params["fc_0.b_0"][0]) + b"\0")
    with pytest.raises(ProgramFileError, match="variable 'fc_0.b_0'.*1 bytes follow"):
        load_separate_params(tmp_path, program)


def test_missing_file() -> None:
    program, _ = _mlp()
    with pytest.raises(ProgramFileError, match="no_such.pdiparams"):
        load_combined_params("/nonexistent/no_such.pdiparams", program)


# ---------------------------------------------------------------------------------------------
# where the loaded arrays live: a record's data starts wherever its header ends (an odd offset
# after a 3-byte record here), and numpy hands misaligned operands to its slow non-BLAS loops


def _misaligning_program() -> tuple[ProgramDesc, dict[str, np.ndarray]]:
    program = ProgramDesc()
    block = program.global_block
    block.create_var("a", dtype="uint8", shape=[3], persistable=True)
    block.create_var("b", dtype="float32", shape=[4, 3], persistable=True)
    block.create_var("c", dtype="float64", shape=[5], persistable=True)
    block.create_var("d", dtype="bfloat16", shape=[3], persistable=True)
    block.create_var("e", dtype="complex128", shape=[2], persistable=True)
    block.create_var("f", dtype="float32", shape=[0, 4], persistable=True)
    values = {"a": np.array([7, 8, 9], np.uint8),
              "b": np.arange(12, dtype=np.float32).reshape(4, 3) / 7,
              "c": np.linspace(-1, 1, 5),
              "d": np.array([1.5, -2.0, 3.25], ml_dtypes.bfloat16),
              "e": np.array([1 + 2j, -0.5j]),
              "f": np.zeros((0, 4), np.float32)}
    return program, values


def _check_loaded(loaded: dict, values: dict, buffers: tuple = ()) -> None:
    assert list(loaded) == sorted(values)
    for name, value in values.items():
        array, lod = loaded[name]
        assert array.tobytes() == value.tobytes() and array.shape == value.shape
        assert array.dtype == value.dtype and lod == ()
        assert array.flags.aligned and array.flags.c_contiguous and array.flags.writeable
        assert array.ctypes.data % array.dtype.itemsize == 0
        for buf in buffers:  # never a view of the caller's bytes
            assert not np.shares_memory(array, np.frombuffer(buf, np.uint8))


def test_loaded_arrays_are_aligned(tmp_path: Path) -> None:
    program, values = _misaligning_program()
    data = serialize_combined_params(program, values)
    # the float32 record's data really starts at an odd offset of the file
    b_data = len(tensor_to_bytes(values["a"])) + len(tensor_to_bytes(values["b"])) - 48
    assert b_data % 4 != 0
    path = tmp_path / "p.pdiparams"
    path.write_bytes(data)
    _check_loaded(load_combined_params(path, program), values)
    buf = bytearray(data)
    loaded = load_combined_params(buf, program)
    _check_loaded(loaded, values, (buf,))
    loaded["b"][0][0, 0] = 99  # the arrays are the caller's own: the bytes stay as they were
    assert bytes(buf) == data
    # a memoryview of any layout is its bytes in order (a strided one is copied first)
    spaced = np.zeros((len(data), 2), np.uint8)
    spaced[:, 0] = np.frombuffer(data, np.uint8)
    strided = memoryview(spaced[:, 0])
    assert not strided.c_contiguous
    _check_loaded(load_combined_params(strided, program), values, (spaced,))
    save_separate_params(tmp_path / "sep", program, values)
    _check_loaded(load_separate_params(tmp_path / "sep", program), values)
    for raw in (tensor_to_bytes(values["b"]), b"\0" + tensor_to_bytes(values["b"])):
        view = memoryview(raw)[len(raw) - len(tensor_to_bytes(values["b"])):]
        array, _ = tensor_from_bytes(view)
        assert array.flags.aligned and not np.shares_memory(array, np.frombuffer(raw, np.uint8))
        stream = io.BytesIO(bytes(view))
        array, _ = read_tensor(stream)
        np.testing.assert_array_equal(array, values["b"])
        assert array.flags.aligned


def test_truncated_file_is_refused_before_allocating(tmp_path: Path) -> None:
    program, values = _misaligning_program()
    data = serialize_combined_params(program, values)
    path = tmp_path / "p.pdiparams"
    cut = len(data) - len(tensor_to_bytes(values["f"])) - 3  # into the data of "e"
    path.write_bytes(data[:cut])
    with pytest.raises(ProgramFileError, match="variable 'e'.*record 5 of 6.*truncated: the "
                       "data of a complex128 tensor of shape \\[2\\] needs 32 bytes.*only 29 "
                       "left"):
        load_combined_params(path, program)
    # a header claiming 4 TB: refused by size, nothing allocated (no MemoryError)
    big = ProgramDesc()
    big.global_block.create_var("big", dtype="float32", shape=[-1], persistable=True)
    desc = pb.VarType.TensorDesc(data_type=int(DataType.FLOAT32.to_proto()), dims=[1 << 40])
    raw = desc.SerializeToString()
    record = (struct.pack("<IQIi", 0, 0, 0, len(raw)) + raw + bytes(8))
    path.write_bytes(record)
    with pytest.raises(ProgramFileError, match="variable 'big'.*needs 4398046511104 bytes.*"
                       "only 8 left"):
        load_combined_params(path, program=big)
