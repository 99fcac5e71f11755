"""FLAGS_quiet_run: a planned run enters numpy's errstate('ignore') once for all its kernels
(phi.kernels.funcs.quiet_run), so kernels' own ``quiet(np)`` cost nothing inside it.  Paddle's
kernels give inf/NaN silently: no RuntimeWarning from any kernel of a run, numpy's settings
back as they were afterwards (errors included), and other threads untouched."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

from fluid_compat import Executor, Program
from fluid_compat.framework import ProgramDesc
from fluid_compat.framework.scope import Scope
from phi.common import DataType
from phi.flags import set_flags
from phi.kernels import funcs


@pytest.fixture(autouse=True)
def _flag_back():
    yield
    set_flags({"FLAGS_quiet_run": True})


def _overflowing_add() -> Program:
    desc = ProgramDesc()
    block = desc.global_block
    for name in ("x", "y", "out"):
        block.create_var(name, dtype=DataType.FLOAT32, shape=[2])
    block.append_op("elementwise_add", {"X": ["x"], "Y": ["y"]}, {"Out": ["out"]}, {"axis": -1})
    return Program(desc)


@pytest.mark.parametrize("on", [True, False])
def test_a_run_overflowing_to_inf_gives_paddles_values(on):
    set_flags({"FLAGS_quiet_run": on})
    big = np.array([3e38, -3e38], np.float32)
    before = np.geterr()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = Executor().run(_overflowing_add(), feed={"x": big, "y": big}, fetch_list=["out"],
                             scope=Scope())[0]
    np.testing.assert_array_equal(out, [np.inf, -np.inf])
    overflow = [w for w in caught if "overflow" in str(w.message)]
    # the hot add kernel skips np.errstate (elementwise.py): only the run-wide one silences it
    assert (overflow == []) is on
    assert np.geterr() == before


def test_settings_come_back_after_an_error_and_nest():
    before = np.geterr()
    with pytest.raises(ZeroDivisionError), funcs.quiet_run():
        assert np.geterr()["over"] == "ignore"
        assert funcs.quiet(np) is funcs.quiet(np)  # the shared no-op context
        with funcs.quiet_run():
            pass
        assert funcs.quiet(np) is funcs._NO_CONTEXT  # the inner exit kept the outer on
        raise ZeroDivisionError
    assert np.geterr() == before
    assert funcs.quiet(np) is not funcs._NO_CONTEXT


def test_other_threads_keep_their_own_settings():
    seen = {}

    def other():
        seen["quiet"] = funcs.quiet(np) is funcs._NO_CONTEXT
        seen["over"] = np.geterr()["over"]

    with funcs.quiet_run():
        t = threading.Thread(target=other)
        t.start()
        t.join()
    assert seen == {"quiet": False, "over": np.geterr()["over"]}
