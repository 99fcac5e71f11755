"""What a user is told about the compiled loops (phi.kernels.funcs.jit, phi.kernels.funcs.aot):
numba's first compile is announced once, before it, and only when numba really
compiles (a cold cache); never from a warm cache, never with the ahead-of-time build, never while
``build-kernels`` builds; library code stays silent unless asked; the build reports its
progress; ``path_taken`` says which path ran.

Each check runs in a fresh interpreter with its own numba cache (``NUMBA_CACHE_DIR``: numba
reads it at import) and kernel cache (``FLUID_PHI_KERNEL_CACHE``), so whether a compile happens
is the test's choice, not this machine's history.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("numba", reason="numba is not installed")

ROOT = Path(__file__).resolve().parents[3]

#: the issue's words, with the estimate the module gives
NOTICE_START = "compiling kernels, once: ~"
NOTICE_END = " s; `fluid-compat build-kernels` does it ahead of time"

#: two loops compiled in turn (a first compile, then one more that must not announce again)
TWO_LOOPS = """
import numpy as np
from phi.kernels.funcs import jit
x = np.linspace(-3.0, 3.0, 12, dtype=np.float32)
out = np.empty_like(x)
loops = jit.kernels()
loops.gelu_erf(x, out)
x2 = x.reshape(3, 4)
loops.softmax(x2, np.empty_like(x2), np.float32(-1e30))
"""


def _code(*pieces: str) -> str:
    """The pieces (each indented as it likes) as one program."""
    return "\n".join(textwrap.dedent(p) for p in pieces)


def _python(code: str, numba_cache: Path, kernel_cache: Path, timeout: int = 600):
    """(stdout, stderr) of ``code`` in a fresh interpreter with those caches."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_CACHE_DIR=str(numba_cache),
               FLUID_PHI_KERNEL_CACHE=str(kernel_cache))
    env.pop("FLAGS_kernel_numba", None)
    env.pop("FLAGS_kernel_aot", None)
    done = subprocess.run([sys.executable, "-c", _code(code)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr
    return done.stdout, done.stderr


def _notices(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if "compiling kernels" in ln]


def test_a_cold_cache_is_announced_once_before_the_compile_a_warm_one_not(tmp_path):
    code = _code("""
    import sys
    from phi.kernels.funcs import jit
    jit.enable_notices()
    print("before", file=sys.stderr)
    """, TWO_LOOPS, """
    print("after", file=sys.stderr)
    print(jit.path_taken())
    print(jit.path_summary())
    """)
    out, err = _python(code, tmp_path / "numba", tmp_path / "no-build")
    lines = err.splitlines()
    (notice,) = _notices(err)  # two loops compiled, one notice
    assert notice.startswith(NOTICE_START) and notice.endswith(NOTICE_END)
    seconds = notice[len(NOTICE_START):-len(NOTICE_END)]
    assert seconds.isdigit() and 5 <= int(seconds) <= 120
    assert lines.index("before") < lines.index(notice) < lines.index("after")
    taken, summary = out.splitlines()
    assert taken == "JIT"
    assert summary.startswith("numba JIT (compiled in ")
    # the same loops again: numba's cache has them, nothing is compiled, nothing said
    out, err = _python(code, tmp_path / "numba", tmp_path / "no-build")
    assert _notices(err) == []
    assert out.splitlines() == ["JIT", "numba JIT (from numba's cache)"]


def test_library_code_is_silent_unless_logging_or_the_cli_asks(tmp_path):
    # an API user who configured nothing sees nothing, even while numba compiles
    _, err = _python(TWO_LOOPS, tmp_path / "numba1", tmp_path / "no-build")
    assert err == ""
    # one who configured logging gets the record, from the jit's logger, at INFO
    _, err = _python(_code("""
    import logging
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    """, TWO_LOOPS), tmp_path / "numba2", tmp_path / "no-build")
    (notice,) = _notices(err)
    assert notice.startswith("INFO phi.kernels.jit: " + NOTICE_START)
    # the command line's stderr notice, silenced through the logger
    _, err = _python(_code("""
    import logging
    from phi.kernels.funcs import jit
    jit.enable_notices()
    logging.getLogger("phi.kernels.jit").setLevel(logging.WARNING)
    """, TWO_LOOPS), tmp_path / "numba3", tmp_path / "no-build")
    assert err == ""


def test_numpy_path_reports_why(tmp_path):
    out, _ = _python("""
    import numpy as np
    from phi.flags import set_flags
    from phi.kernels.funcs import jit
    set_flags({"FLAGS_kernel_numba": False})
    assert jit.kernels() is None
    print(jit.path_taken())
    print(jit.path_summary())
    """, tmp_path / "numba", tmp_path / "no-build")
    assert out.splitlines() == ["numpy", "numpy (FLAGS_kernel_numba is off)"]


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    """A build made through ``build_showing_progress`` in a fresh process whose numba cache is
    cold and whose compile notice is on (the build must not announce the JIT's compiles):
    (kernel cache directory, the progress calls, the process's stderr)."""
    pytest.importorskip("numba.pycc", reason="numba's ahead-of-time compiler is absent")
    base = tmp_path_factory.mktemp("notice-build")
    code = """
    import json
    from phi.kernels.funcs import aot, jit
    jit.enable_notices()
    assert jit.jit_loops() is not None  # the JIT's compile listener is on
    calls = []
    real = aot.build
    def spy(directory=None, progress=None):
        def both(done, total, step):
            calls.append((done, total, step))
            progress(done, total, step)
        return real(directory, progress=both)
    aot.build = spy
    try:
        path = aot.build_showing_progress()
    except Exception as exc:  # no C compiler here
        print(json.dumps({"failed": f"{type(exc).__name__}: {exc}"}))
    else:
        print(json.dumps({"path": str(path), "calls": calls}))
    """
    out, err = _python(code, base / "numba", base / "kernels")
    result = json.loads(out.splitlines()[-1])
    if "failed" in result:
        pytest.skip(f"the ahead-of-time build failed here: {result['failed']}")
    assert Path(result["path"]).parent == base / "kernels"
    return base, result["calls"], err


def test_the_build_shows_progress_and_no_compile_notice(build):
    _, calls, err = build
    assert _notices(err) == []
    dones = [c[0] for c in calls]
    totals = {c[1] for c in calls}
    assert len(totals) == 1 and dones == sorted(dones)
    assert dones[0] == 0 and dones[-1] == totals.pop()
    steps = [c[2] for c in calls]
    # 12 loops x 2 dtypes, pycc's order (by symbol), then the finishing steps, then ""
    assert steps[0] == "bn_affine_act float32" and "depthwise float64" in steps
    assert "optimising" in steps and steps[-1] == ""
    assert len([s for s in steps if s.endswith(("float32", "float64"))]) == 24
    # the bar, drawn on stderr (off a terminal: once, at the end)
    assert "building kernels" in err and "100%" in err


def test_with_the_build_nothing_compiles_nothing_is_said(build, tmp_path):
    base, _, _ = build
    out, err = _python(_code("""
    import sys
    from phi.kernels.funcs import jit
    jit.enable_notices()
    """, TWO_LOOPS, """
    print(jit.path_taken())
    print(jit.path_summary())
    print("numba" in sys.modules)
    """), tmp_path / "cold-numba", base / "kernels")
    assert _notices(err) == []
    taken, summary, numba_imported = out.splitlines()
    assert taken == "ahead-of-time build" and numba_imported == "False"
    assert summary.startswith("ahead-of-time build (") and str(base / "kernels") in summary
