"""Checkpoints: files Paddle 2.6.2 wrote (tools/fixtures/gen_checkpoints.py)
load here, and files the bridge writes load in Paddle (the verdict Paddle recorded in
tests/fixtures/checkpoints/bridge/paddle_read.json; the bridge must still write those files)."""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path

import numpy as np
import pytest

from fluid_compat import Program, selected_rows
from fluid_compat.framework.scope import Scope
from fluid_compat.io import load, load_vars, save, save_vars
from phi.core.errors import InvalidArgument, NotFound
from phi.core.tensor import DenseTensor

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "checkpoints"
PADDLE = ROOT / "paddle"
BRIDGE = ROOT / "bridge"
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools" / "fixtures"))
import write_bridge_checkpoints  # noqa: E402

META = json.loads((PADDLE / "meta.json").read_text())


def _program() -> Program:
    return Program.parse_from_string((PADDLE / "model.pdmodel").read_bytes())


def _values(path: Path) -> dict:
    return dict(np.load(path))


def _assert_scope(scope: Scope, want: dict, names) -> None:
    for name in names:
        got = scope.find_var(name).value.numpy()
        assert got.dtype == want[name].dtype and np.array_equal(got, want[name]), name


def test_paddle_static_save_loads_here():
    scope = Scope()
    load(_program(), PADDLE / "model", scope=scope)
    _assert_scope(scope, _values(PADDLE / "paddle_values.npz"), META["persistables"])
    assert set(scope.local_var_names()) == set(META["persistables"])


def test_parameters_and_optimizer_vars_as_paddle_splits_them():
    from fluid_compat.checkpoint import optimizer_vars, parameters

    program = _program()
    assert sorted(v.name for v in parameters(program)) == META["parameters"]
    assert sorted(v.name for v in optimizer_vars(program)) == META["optimizer_vars"]


@pytest.mark.parametrize("form", ["dir", "combined"])
def test_paddle_save_vars_load_here(form):
    scope = Scope()
    program = _program()
    names = META["persistables"]
    if form == "dir":
        load(program, PADDLE / "vars", scope=scope)  # load's fallback: a directory of files
    else:
        load_vars(None, PADDLE, program, vars=names, filename="combined", scope=scope)
    _assert_scope(scope, _values(PADDLE / "paddle_values.npz"), names)


def test_bridge_files_are_what_paddle_read(tmp_path):
    verdict = json.loads((BRIDGE / "paddle_read.json").read_text())
    for how in ("static.load(prefix)", "static.load(vars dir)",
                "static.load(combined, var_list)"):
        assert "error" not in verdict[how] and all(verdict[how].values()), how
        assert sorted(verdict[how]) == META["persistables"]
    assert verdict["pdmodel parses, same vars"]
    # the bridge still writes those files: same bytes where the format is deterministic,
    # the same dicts of arrays in the pickles
    write_bridge_checkpoints.write(tmp_path)
    for rel in ["model.pdmodel", "combined", *(f"vars/{n}" for n in META["persistables"])]:
        assert (tmp_path / rel).read_bytes() == (BRIDGE / rel).read_bytes(), rel
    for rel in ("model.pdparams", "model.pdopt"):
        ours = pickle.loads((tmp_path / rel).read_bytes())
        theirs = pickle.loads((BRIDGE / rel).read_bytes())
        assert sorted(ours) == sorted(theirs)
        assert all(np.array_equal(ours[k], theirs[k]) for k in ours)


def test_round_trip_and_resume(tmp_path):
    program = _program()
    scope = Scope()
    load(program, PADDLE / "model", scope=scope)
    save(program, tmp_path / "ck" / "m", scope=scope)
    again = Scope()
    load(program, str(tmp_path / "ck" / "m.pdparams"), scope=again)  # a suffix is accepted
    _assert_scope(again, _values(PADDLE / "paddle_values.npz"), META["persistables"])
    with open(tmp_path / "ck" / "m.pdparams", "rb") as f:
        params = pickle.load(f)
    assert sorted(params) == META["parameters"]


def test_bad_files_leave_the_scope_alone(tmp_path):
    program = _program()
    scope = Scope()
    scope.var("fc_0.w_0").value = DenseTensor.from_numpy(np.zeros((5, 6), "float32"))
    params = pickle.loads((PADDLE / "model.pdparams").read_bytes())
    del params["fc_1.b_0"]
    (tmp_path / "m.pdparams").write_bytes(pickle.dumps(params))
    (tmp_path / "m.pdopt").write_bytes((PADDLE / "model.pdopt").read_bytes())
    with pytest.raises(NotFound, match="fc_1.b_0"):
        load(program, tmp_path / "m", scope=scope)
    assert not scope.find_var("fc_0.w_0").value.numpy().any()

    class Evil:
        def __reduce__(self):
            return (print, ("never",))

    (tmp_path / "e.pdparams").write_bytes(pickle.dumps({"fc_0.w_0": Evil()}))
    with pytest.raises(InvalidArgument, match="only hold numpy arrays"):
        load(program, tmp_path / "e", scope=scope)
    with pytest.raises(InvalidArgument, match="protocol"):
        save(program, tmp_path / "p", protocol=5, scope=scope)
    with pytest.raises(NotFound):
        load(program, tmp_path / "nothing", scope=scope)


def test_save_vars_selected_rows(tmp_path):
    from fluid_compat.framework import VarType

    program = _program()
    block = program.desc.global_block
    block.create_var("emb@GRAD", type=VarType.SELECTED_ROWS, persistable=True)
    scope = Scope()
    sr = selected_rows([3, 0, 3], 5, np.arange(6, dtype="float32").reshape(3, 2))
    scope.var("emb@GRAD").value = sr
    save_vars(None, tmp_path, program, vars=["emb@GRAD"], scope=scope)
    back = Scope()
    load_vars(None, tmp_path, program, vars=["emb@GRAD"], scope=back)
    got = back.find_var("emb@GRAD").value
    assert got.rows == [3, 0, 3] and got.height == 5
    np.testing.assert_array_equal(got.numpy(), sr.numpy())
