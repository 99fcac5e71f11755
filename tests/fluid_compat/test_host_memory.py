"""FLAGS_host_keep_freed_memory (phi/backends/host_memory.py): the first plan an executor builds
tells glibc to keep freed memory, so a run's activation arrays reuse the pages of the last
run's instead of faulting fresh ones in; with the flag off glibc keeps its defaults.  Each case
runs in a fresh process (the setting is process-wide and applied once)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from tests.corpus_paths import FIXTURES

pytestmark = pytest.mark.skipif(
    not (hasattr(os, "confstr") and (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc")),
    reason="glibc only")

# Six 4 MB arrays live at once, then all freed: with glibc's defaults the freed heap top
# (24 MB, over twice the raised mmap threshold) is trimmed and the next round faults its
# pages in again; kept, the next rounds reuse them.
_SCRIPT = textwrap.dedent("""
    import json, resource, sys
    import numpy as np
    from fluid_compat import Executor, load_inference_model
    from fluid_compat.framework.scope import Scope
    from phi.backends import host_memory

    model = sys.argv[1]
    scope = Scope()
    program, feeds, fetches = load_inference_model(model + "/inference", scope=scope)
    feed = {n: np.load(f"{model}/input_{n}.npy") for n in feeds}
    out = Executor().run(program, feed=feed, fetch_list=fetches, scope=scope)

    def rounds(n):
        for _ in range(n):
            arrays = [np.ones(1 << 20, np.float32) for _ in range(6)]
            del arrays

    rounds(2)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    rounds(10)
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    print(json.dumps({"kept": host_memory.kept(), "faults": faults,
                      "out": float(np.asarray(out[0]).sum())}))
""")


def _run(flag: str | None) -> dict:
    import json

    env = dict(os.environ)
    env.pop("FLAGS_host_keep_freed_memory", None)
    if flag is not None:
        env["FLAGS_host_keep_freed_memory"] = flag
    done = subprocess.run([sys.executable, "-c", _SCRIPT, str(FIXTURES / "models" / "lenet")],
                          capture_output=True, text=True, env=env, timeout=300, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_kept_by_default_and_pages_are_reused():
    on, off = _run(None), _run("0")
    assert on["kept"] and not off["kept"]
    assert on["out"] == off["out"]  # the same results either way
    # 10 rounds x 6 arrays x 1024 pages: glibc's defaults fault most of them in again
    assert off["faults"] > 10 * 6 * 1024 // 4
    assert on["faults"] < 1024
