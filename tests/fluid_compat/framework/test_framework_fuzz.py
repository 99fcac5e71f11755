"""Truncated and corrupted real files: the only possible outcomes are a successful, fully usable
parse or one ProgramFileError (never a protobuf DecodeError, struct.error, UnicodeError ...)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from tests.fluid_compat.framework.framework_testlib import CORPUS, HAVE_CORPUS, LOCAL_MODEL
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fluid_compat.framework import ProgramDesc, ProgramFileError
from fluid_compat.framework.tensor_io import load_combined_params
import contextlib

_MODELS = [LOCAL_MODEL] + ([CORPUS / "models" / "lenet"] if HAVE_CORPUS else [])
_PDMODELS = [(m / "inference.pdmodel").read_bytes() for m in _MODELS]
_PDIPARAMS = [(m / "inference.pdiparams").read_bytes() for m in _MODELS]
_PROGRAMS = [ProgramDesc.parse_from_string(d) for d in _PDMODELS]

_settings = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def _mutated(draw: st.DrawFn, files: list[bytes]) -> tuple[int, bytes]:
    """(which file, its bytes truncated, or with a few bytes overwritten, inserted or deleted)."""
    k = draw(st.integers(0, len(files) - 1))
    data = bytearray(files[k])
    kind = draw(st.sampled_from(["truncate", "overwrite", "insert", "delete"]))
    if kind == "truncate":
        return k, bytes(data[: draw(st.integers(0, len(data) - 1))])
    for _ in range(draw(st.integers(1, 4))):
        pos = draw(st.integers(0, len(data) - 1))
        if kind == "overwrite":
            data[pos] = draw(st.integers(0, 255))
        elif kind == "insert":
            data[pos:pos] = draw(st.binary(min_size=1, max_size=4))
        else:
            del data[pos : pos + draw(st.integers(1, 4))]
    return k, bytes(data)


def _use_everything(program: ProgramDesc) -> None:
    """Touch every decoded value, as a runner would."""
    for block in program.blocks:
        _ = (block.idx, block.parent_idx, block.forward_block_idx, block.parent)
        for var in block.vars.values():
            _ = (
                var.name,
                var.type,
                var.dtype,
                var.shape,
                var.lod_level,
                var.persistable,
                var.need_check_feed,
                var.stop_gradient,
                var.is_parameter,
                dict(var.attrs),
            )
        for op in block.ops:
            _ = (op.type, dict(op.inputs), dict(op.outputs), op.input_arg_names(), repr(op))
            for name in op.attrs:
                _ = (op.attr(name), op.attr_type(name))
    _ = (program.version, dict(program.op_version_map))
    ProgramDesc.parse_from_string(program.serialize_to_string())


@_settings
@given(_mutated(_PDMODELS))
def test_damaged_pdmodel(case: tuple[int, bytes]) -> None:
    k, data = case
    try:
        program = ProgramDesc.parse_from_string(data, source="model.pdmodel")
    except ProgramFileError as e:
        assert "model.pdmodel" in str(e)
        return
    _use_everything(program)
    # a damaged program may declare other parameters than the file holds: typed error or load
    with contextlib.suppress(ProgramFileError):
        load_combined_params(_PDIPARAMS[k], program)


@_settings
@given(_mutated(_PDIPARAMS))
def test_damaged_pdiparams(case: tuple[int, bytes]) -> None:
    k, data = case
    truncated = len(data) < len(_PDIPARAMS[k]) and _PDIPARAMS[k].startswith(data)
    try:
        params = load_combined_params(data, _PROGRAMS[k])
    except ProgramFileError:
        return
    assert not truncated, "a truncated parameter file must not load"
    for var in _PROGRAMS[k].global_block.vars.values():
        if var.name in params:
            array, _ = params[var.name]
            assert array.shape == var.shape and isinstance(array, np.ndarray)


def test_every_truncation_of_the_parameters_fails(tmp_path: Path) -> None:
    data, program = _PDIPARAMS[0], _PROGRAMS[0]
    path = tmp_path / "cut.pdiparams"
    for n in range(0, len(data), 7):
        path.write_bytes(data[:n])
        try:
            load_combined_params(path, program)
        except ProgramFileError as e:
            assert "cut.pdiparams" in str(e)
        else:
            raise AssertionError(f"loaded a file cut at {n} of {len(data)} bytes")
