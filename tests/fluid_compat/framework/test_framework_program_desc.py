"""ProgramDesc / BlockDesc / OpDesc / VarDesc: byte-identical round trips of files Paddle wrote,
decoded values equal to what the corpus recorded, and programs built in memory."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from tests.fluid_compat.framework.framework_testlib import (
    DATA,
    LOCAL_MODEL,
    case_program_bytes,
    corpus_cases,
    corpus_models,
    ids,
    needs_corpus,
)

from fluid_compat.framework import AttrType, OpDesc, ProgramDesc, ProgramFileError, VarDesc, VarType
from fluid_compat.framework.proto import framework_pb2 as pb
from opmakers import VarRef
from phi.common import DataType
from phi.core.errors import AlreadyExists, InvalidArgument, NotFound, PreconditionNotMet

# ---------------------------------------------------------------------------------------------
# byte-identical round trips


def _round_trip(data: bytes) -> ProgramDesc:
    program = ProgramDesc.parse_from_string(data)
    assert program.serialize_to_string() == data
    return program


def test_local_model_round_trip() -> None:
    program = _round_trip((LOCAL_MODEL / "inference.pdmodel").read_bytes())
    assert program.version == 2006002
    assert program.num_blocks == 1


@pytest.mark.parametrize("name", ["reshape2_shape_tensor", "batch_norm_test_nhwc"])
def test_local_single_op_round_trip(name: str) -> None:
    _round_trip((DATA / f"{name}.program_desc").read_bytes())


@needs_corpus
@pytest.mark.parametrize("model", corpus_models(), ids=ids(corpus_models()))
def test_corpus_model_round_trip(model: Path) -> None:
    _round_trip((model / "inference.pdmodel").read_bytes())


@needs_corpus
@pytest.mark.parametrize("npz", corpus_cases(), ids=ids(corpus_cases()))
def test_corpus_single_op_round_trip(npz: Path) -> None:
    _round_trip(case_program_bytes(npz))


def test_load_and_save_file(tmp_path: Path) -> None:
    src = LOCAL_MODEL / "inference.pdmodel"
    program = ProgramDesc.load(src)
    program.save(tmp_path / "copy.pdmodel")
    assert (tmp_path / "copy.pdmodel").read_bytes() == src.read_bytes()
    assert program.clone().serialize_to_string() == src.read_bytes()


# ---------------------------------------------------------------------------------------------
# decoded values equal the corpus JSON (Paddle's own reading of the same bytes)

_JSON_TYPE = {"BOOL": AttrType.BOOLEAN, "BOOLS": AttrType.BOOLEANS}


def _assert_attr(op: OpDesc, name: str, rec: dict) -> None:
    if rec.get("value_omitted") and not op.has_attr(name):
        return  # op_callstack: stripped from the committed bytes (machine paths)
    expected_type = _JSON_TYPE.get(rec["type"]) or AttrType[rec["type"]]
    assert op.attr_type(name) == expected_type, (op.type, name)
    if rec.get("value_omitted"):
        return
    value, want = op.attr(name), rec["value"]
    if expected_type == AttrType.FLOAT:
        assert np.float32(want) == np.float32(value) or (math.isnan(want) and math.isnan(value))
    elif expected_type == AttrType.FLOATS:
        np.testing.assert_array_equal(np.float32(want), np.float32(value))
    elif isinstance(want, list):
        assert list(value) == want, (op.type, name)
    else:
        assert value == want and type(value) is type(want), (op.type, name, value, want)


def _assert_op(op: OpDesc, rec: dict) -> None:
    assert op.type == rec["type"]
    assert {k: list(v) for k, v in op.inputs.items()} == rec["inputs"]
    assert {k: list(v) for k, v in op.outputs.items()} == rec["outputs"]


def _assert_var(var: VarDesc, rec: dict) -> None:
    assert var.type == VarType[rec["var_type"]]
    assert var.persistable == rec["persistable"]
    assert var.stop_gradient == rec["stop_gradient"]
    if "shape" in rec and rec["shape"] is not None:
        assert list(var.shape) == rec["shape"]
        assert var.dtype == DataType.from_proto(rec["dtype"]["enum"])
        assert var.lod_level == rec["lod_level"]


def test_local_model_values() -> None:
    program = ProgramDesc.load(LOCAL_MODEL / "inference.pdmodel")
    record = json.loads((LOCAL_MODEL / "program.json").read_text())
    block, rec = program.global_block, record["blocks"][0]
    assert (block.idx, block.parent_idx) == (rec["idx"], rec["parent_idx"])
    assert [op.type for op in block.ops] == [r["type"] for r in rec["ops"]]
    for op, op_rec in zip(block.ops, rec["ops"], strict=False):
        _assert_op(op, op_rec)
        kept = {k for k, r in op_rec["attrs"].items() if not r.get("value_omitted")}
        assert set(op.attrs) == kept
        for name, attr_rec in op_rec["attrs"].items():
            _assert_attr(op, name, attr_rec)
    assert set(block.vars) == {v["name"] for v in rec["vars"]}
    for v in rec["vars"]:
        _assert_var(block.var(v["name"]), v)


@needs_corpus
@pytest.mark.parametrize("model", corpus_models(), ids=ids(corpus_models()))
def test_corpus_model_values(model: Path) -> None:
    program = ProgramDesc.load(model / "inference.pdmodel")
    record = json.loads((model / "program.json").read_text())
    assert program.version == record["program_desc_version"]
    for block, rec in zip(program.blocks, record["blocks"], strict=True):
        for op, op_rec in zip(block.ops, rec["ops"], strict=True):
            _assert_op(op, op_rec)
            for name, attr_rec in op_rec["attrs"].items():
                _assert_attr(op, name, attr_rec)
        for v in rec["vars"]:
            _assert_var(block.var(v["name"]), v)


@needs_corpus
@pytest.mark.parametrize("npz", corpus_cases(), ids=ids(corpus_cases()))
def test_corpus_single_op_values(npz: Path) -> None:
    case = json.loads(npz.with_suffix(".json").read_text())
    program = ProgramDesc.parse_from_string(case_program_bytes(npz))
    ops = [op for op in program.global_block.ops if op.type == case["op_desc"]["type"]]
    assert len(ops) == 1
    op = ops[0]
    _assert_op(op, case["op_desc"])
    for name, attr_rec in case["op_desc"]["attrs"].items():
        _assert_attr(op, name, attr_rec)
    # the case's compile_time records were taken after InferShape, the bytes before it: compare
    # what InferShape does not change
    for slot in case["outputs"].values():
        for out in slot:
            if "compile_time" in out:
                var, rec = program.global_block.var(out["var"]), out["compile_time"]
                assert var.type == VarType[rec["var_type"]]
                assert (var.persistable, var.stop_gradient) == (
                    rec["persistable"],
                    rec["stop_gradient"],
                )


def test_duplicate_attributes_written_by_paddle() -> None:
    # Paddle 2.6.2 serialized reshape2's runtime attributes twice; the last one wins (as in its
    # C++ reader) and the bytes still round-trip
    data = (DATA / "reshape2_shape_tensor.program_desc").read_bytes()
    program = ProgramDesc.parse_from_string(data)
    op = next(op for op in program.global_block.ops if op.type == "reshape2")
    assert sum(a.name == "use_mkldnn" for a in op.proto.attrs) == 2
    assert op.attr("use_mkldnn") is False
    op.set_attr("use_mkldnn", True)
    assert sum(a.name == "use_mkldnn" for a in op.proto.attrs) == 1
    again = ProgramDesc.parse_from_string(program.serialize_to_string())
    op2 = next(op for op in again.global_block.ops if op.type == "reshape2")
    assert op2.attr("use_mkldnn") is True
    op2.remove_attr("mkldnn_data_type")
    assert not any(a.name == "mkldnn_data_type" for a in op2.proto.attrs)


def test_empty_slots_are_kept() -> None:
    data = (DATA / "reshape2_shape_tensor.program_desc").read_bytes()
    program = ProgramDesc.parse_from_string(data)
    op = next(op for op in program.global_block.ops if op.type == "reshape2")
    lenet_like = ProgramDesc.load(LOCAL_MODEL / "inference.pdmodel")
    assert "X" in op.inputs
    assert all(isinstance(v, tuple) for v in op.inputs.values())
    # a var without TensorDesc (batch_norm's unused SavedMean) reads as dtype/shape None
    bn = ProgramDesc.parse_from_string((DATA / "batch_norm_test_nhwc.program_desc").read_bytes())
    saved = bn.global_block.var("out_SavedMean_0")
    assert saved.type == VarType.LOD_TENSOR and saved.dtype is None and saved.shape is None
    assert lenet_like.global_block.var("feed").type == VarType.FEED_MINIBATCH
    assert lenet_like.global_block.var("feed").dtype is None


def test_attrs_are_decoded_once() -> None:
    program = ProgramDesc.load(LOCAL_MODEL / "inference.pdmodel")
    op = program.global_block.ops[1]
    first = op.attrs
    assert op.attr("op_role_var") is op.attr("op_role_var")  # the cached tuple itself
    assert dict(first) == dict(op.attrs)
    with pytest.raises(TypeError):
        op.attrs["x_num_col_dims"] = 3  # type: ignore[index]


# ---------------------------------------------------------------------------------------------
# programs built in memory

_ALL_KINDS = {
    "i": (7, None, AttrType.INT),
    "l": (2**40, None, AttrType.LONG),
    "l_small": (3, AttrType.LONG, AttrType.LONG),
    "f": (0.5, None, AttrType.FLOAT),
    "f64": (0.1, AttrType.FLOAT64, AttrType.FLOAT64),
    "s": ("NCHW", None, AttrType.STRING),
    "b": (True, None, AttrType.BOOLEAN),
    "ints": ([1, 2], None, AttrType.INTS),
    "longs": ([1, 2**40], None, AttrType.LONGS),
    "floats": ([0.25, 1.5], None, AttrType.FLOATS),
    "f64s": ([0.1, 0.2], AttrType.FLOAT64S, AttrType.FLOAT64S),
    "strs": (["a", "b"], None, AttrType.STRINGS),
    "empty": ([], AttrType.STRINGS, AttrType.STRINGS),
    "bools": ([True, False], None, AttrType.BOOLEANS),
    "blk": (1, AttrType.BLOCK, AttrType.BLOCK),
    "blks": ([0, 1], AttrType.BLOCKS, AttrType.BLOCKS),
    "v": (VarRef("x"), None, AttrType.VAR),  # a VarRef infers VAR and reads back as one
    "vs": ([VarRef("x"), VarRef("y")], None, AttrType.VARS),
    "sc_b": (True, AttrType.SCALAR, AttrType.SCALAR),
    "sc_i": (-3, AttrType.SCALAR, AttrType.SCALAR),
    "sc_f": (2.5, AttrType.SCALAR, AttrType.SCALAR),
    "sc_c": (1 + 2j, None, AttrType.SCALAR),
    "scs": ([1, 2.5, False, 3j], AttrType.SCALARS, AttrType.SCALARS),
}


def _build() -> ProgramDesc:
    program = ProgramDesc()
    block = program.global_block
    block.create_var("x", dtype=DataType.FLOAT32, shape=[-1, 4], need_check_feed=True)
    block.create_var("w", dtype="bfloat16", shape=[4, 3], persistable=True, is_parameter=True)
    block.create_var("y", dtype=np.float16, shape=[], lod_level=1, stop_gradient=True)
    block.create_var("feed", type=VarType.FEED_MINIBATCH, persistable=True)
    sub = program.append_block(block)
    sub.create_var("t", type=VarType.LOD_TENSOR_ARRAY, dtype=DataType.INT64, shape=[2])
    values = {k: v for k, (v, _, _) in _ALL_KINDS.items()}
    types_ = {k: t for k, (_, t, _) in _ALL_KINDS.items() if t is not None}
    block.append_op("kitchen_sink", {"X": ["x"], "Empty": []}, {"Out": ["y"]}, values, types_)
    block.insert_op(0, "feed", {"X": ["feed"]}, {"Out": ["x"]}, {"col": 0})
    program.set_op_version("kitchen_sink", 3)
    return program


def test_built_program_round_trips() -> None:
    program = _build()
    data = program.serialize_to_string()
    back = ProgramDesc.parse_from_string(data)
    assert back.serialize_to_string() == data
    assert back.op_version_map == {"kitchen_sink": 3}
    assert [b.parent_idx for b in back.blocks] == [-1, 0]
    block = back.global_block
    assert [op.type for op in block.ops] == ["feed", "kitchen_sink"]
    op = block.op(1)
    assert dict(op.inputs) == {"X": ("x",), "Empty": ()}
    for name, (value, _, attr_type) in _ALL_KINDS.items():
        assert op.attr_type(name) == attr_type, name
        got = op.attr(name)
        if attr_type == AttrType.FLOAT64:
            assert got == value
        want = tuple(value) if isinstance(value, list) else value
        assert got == want and type(got) is type(want), (name, got, want)
    w = block.var("w")
    assert (w.dtype, w.shape, w.persistable, w.is_parameter) == (
        DataType.BFLOAT16,
        (4, 3),
        True,
        True,
    )
    y = block.var("y")
    assert (y.dtype, y.shape, y.lod_level, y.stop_gradient) == (DataType.FLOAT16, (), 1, True)
    assert block.var("x").need_check_feed and block.var("x").shape == (-1, 4)
    t = back.block(1).var("t")
    assert (t.type, t.dtype, t.shape) == (VarType.LOD_TENSOR_ARRAY, DataType.INT64, (2,))
    assert back.block(1).find_var_recursive("w") is w


def test_float_attribute_is_float32() -> None:
    op = OpDesc("scale", attrs={"scale": 0.1})
    assert op.attr("scale") == float(np.float32(0.1))


def test_set_attr_keeps_position_and_type() -> None:
    op = OpDesc("x", attrs={"a": 1, "names": ["u"], "c": "z"})
    op.set_attr("names", [])  # stays STRINGS
    assert op.attr_type("names") == AttrType.STRINGS and op.attr("names") == ()
    op.set_attr("a", 2.5)  # no longer fits INT: becomes FLOAT
    assert op.attr_type("a") == AttrType.FLOAT
    assert [a.name for a in op.proto.attrs] == ["a", "names", "c"]
    op.remove_attr("names")
    op.remove_attr("not_there")
    assert list(op.attrs) == ["a", "c"]


def test_slot_edits_write_through() -> None:
    program = ProgramDesc()
    op = program.global_block.append_op("relu", {"X": ["a"]}, {"Out": ["b"]})
    op.set_input("X", ["c"])
    op.rename_output("b", "d")
    op.set_output("Extra", [])
    back = ProgramDesc.parse_from_string(program.serialize_to_string()).global_block.op(0)
    assert dict(back.inputs) == {"X": ("c",)}
    assert dict(back.outputs) == {"Out": ("d",), "Extra": ()}
    op.remove_input("X")
    assert (
        ProgramDesc.parse_from_string(program.serialize_to_string()).global_block.op(0).inputs == {}
    )


def test_block_edits() -> None:
    program = ProgramDesc()
    block = program.global_block
    a = block.append_op("a")
    c = block.append_op("c")
    b = block.insert_op(1, "b")
    assert [op.type for op in block.ops] == ["a", "b", "c"]
    b.set_attr("k", 1)
    c.set_attr("k", 2)
    removed = block.remove_op(0)
    assert removed is a and a.block is None
    a.set_attr("gone", 1)  # a standalone op may still be edited
    back = ProgramDesc.parse_from_string(program.serialize_to_string()).global_block
    assert [(op.type, op.attr("k")) for op in back.ops] == [("b", 1), ("c", 2)]
    block.append_op(a)
    assert ProgramDesc.parse_from_string(program.serialize_to_string()).global_block.op(
        2
    ).attrs == {"gone": 1}
    v = block.create_var("v", dtype="float32", shape=[1])
    with pytest.raises(AlreadyExists):
        block.create_var("v", dtype="float32")
    block.remove_var("v")
    assert not block.has_var("v") and v.block is None and v.shape == (1,)
    with pytest.raises(NotFound):
        block.var("v")


def test_errors_of_in_memory_edits() -> None:
    op = OpDesc("conv2d")
    with pytest.raises(InvalidArgument, match="conv2d.*'strides'.*empty list"):
        op.set_attr("strides", [])
    with pytest.raises(InvalidArgument, match="int32"):
        op.set_attr("i", 2**40, AttrType.INT)
    with pytest.raises(InvalidArgument, match="'X'"):
        op.set_input("X", "x")  # a str, not a list of names
    with pytest.raises(NotFound, match="no attribute 'nope'"):
        op.attr("nope")
    with pytest.raises(NotFound, match="no input slot 'Y'"):
        op.input("Y")
    var = VarDesc("f", type=VarType.FETCH_LIST)
    with pytest.raises(InvalidArgument, match="FETCH_LIST"):
        var.dtype = DataType.FLOAT32
    program = ProgramDesc()
    bad = program.global_block.create_var("u")  # a LOD_TENSOR without its TensorDesc is fine
    assert bad.dtype is None
    program.global_block.proto.vars[0].type.lod_tensor.tensor.dims.append(3)  # data_type unset
    with pytest.raises(PreconditionNotMet, match="data_type"):
        program.serialize_to_string()


# ---------------------------------------------------------------------------------------------
# invalid bytes


def _program_bytes(edit) -> bytes:  # type: ignore[no-untyped-def]
    proto = pb.ProgramDesc.FromString((LOCAL_MODEL / "inference.pdmodel").read_bytes())
    edit(proto)
    return proto.SerializePartialToString()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "no block"),
        (b"\xff\xff\xff", "not a valid serialized ProgramDesc"),
        (
            _program_bytes(lambda p: p.blocks[0].ops[1].attrs.add(name="b", type=8, block_idx=5)),
            "refers to block 5",
        ),
        (_program_bytes(lambda p: setattr(p.blocks[0], "idx", 3)), "says its index is 3"),
        (
            _program_bytes(lambda p: p.blocks[0].vars.add().CopyFrom(p.blocks[0].vars[0])),
            "declared twice",
        ),
        (
            _program_bytes(
                lambda p: setattr(p.blocks[0].vars[1].type.lod_tensor.tensor, "data_type", 7)
            ),
            "not a tensor element type",
        ),
        (
            _program_bytes(lambda p: p.blocks[0].ops[1].ClearField("type")),
            "not a valid serialized ProgramDesc",
        ),
    ],
    ids=["empty", "garbage", "block-ref", "block-idx", "dup-var", "dtype", "missing-required"],
)
def test_invalid_programs(data: bytes, message: str) -> None:
    with pytest.raises(ProgramFileError, match=message):
        ProgramDesc.parse_from_string(data, source="model.pdmodel")


def test_invalid_utf8_is_reported() -> None:
    data = (LOCAL_MODEL / "inference.pdmodel").read_bytes()
    bad = data.replace(b"fc_0.w_0", b"fc_0.w_\xff", 1)
    with pytest.raises(ProgramFileError, match="UTF-8"):
        ProgramDesc.parse_from_string(bad)


def test_error_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.pdmodel"
    path.write_bytes((LOCAL_MODEL / "inference.pdmodel").read_bytes()[:100])
    with pytest.raises(ProgramFileError, match="broken.pdmodel") as err:
        ProgramDesc.load(path)
    assert str(err.value).startswith("(InvalidArgument) file '")
    assert err.value.path == str(path)
