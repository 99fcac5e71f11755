"""The command line as a user meets it: each rough edge, run as a user runs
it (``python -m fluid_compat`` in a fresh process): the exit status, no traceback, the message.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
LENET = ROOT / "tests" / "fixtures" / "models" / "lenet" / "inference"


def _env(**extra: str) -> dict[str, str]:
    """This environment without the variables the edges are about, plus ``extra``."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("FLAGS_") and k not in ("GLOG_v", "COLUMNS")}
    env["PYTHONPATH"] = str(ROOT)
    return {**env, **extra}


def _cli(*args: str, env: dict[str, str] | None = None, timeout: int = 300
         ) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fluid_compat", *map(str, args)],
                          env=env or _env(), cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def _clean(done: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout, done.stderr


def test_python_dash_m_is_the_command():
    done = _cli("--version")
    assert done.returncode == 0 and done.stdout.startswith("fluid-compat ")
    done = _cli()
    assert done.returncode == 2 and "COMMAND" in done.stdout  # the help, not a traceback


def test_argmap_check_help():
    for flag in ("--help", "-h"):
        done = _cli("argmap-check", flag)
        _clean(done)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("usage: fluid-compat argmap-check")
        assert "--kinds" in done.stdout


def test_argmap_check_and_ops_agree_and_are_green():
    done = _cli("argmap-check")
    _clean(done)
    found = re.search(r"^-- \d+ ops, \d+ possible signatures, (\d+) problems$", done.stdout,
                      flags=re.M)
    assert found, done.stdout[-500:]
    ops = _cli("ops")
    _clean(ops)
    reported = re.search(r"argmap-check: (\d+) problem\(s\)", ops.stdout)
    assert reported and reported.group(1) == found.group(1)
    # green on a fresh install: lookup_table_v2_grad's sparse-weight kernels are registered
    assert found.group(1) == "0" and done.returncode == 0, done.stdout[-800:]
    assert "sparse_weight_embedding_grad" not in done.stdout


def test_a_bad_flags_value_in_the_environment():
    done = _cli("run", "--example", env=_env(FLAGS_fuse_conv_bn="maybe"))
    _clean(done)
    assert done.returncode == 2
    assert done.stderr.strip() == ("fluid-compat: FLAGS_fuse_conv_bn='maybe' in the environment: "
                                   "a bool is expected (1/0, true/false, yes/no, on/off)")
    done = _cli("kernels", "relu", env=_env(FLAGS_dispatch_trace="two"))
    assert done.returncode == 2 and "FLAGS_dispatch_trace='two'" in done.stderr
    _clean(done)


def test_dataset_naming_a_missing_path_or_a_file(tmp_path):
    done = _cli("run", LENET, "--dataset", tmp_path / "nothing")
    _clean(done)
    assert done.returncode == 2
    assert done.stderr.strip() == (f"fluid-compat run: --dataset {tmp_path / 'nothing'}: no such "
                                   "file or directory")
    row = tmp_path / "row.npy"
    np.save(row, np.zeros((2, 1, 28, 28), np.float32))
    done = _cli("run", LENET, "--dataset", row)
    _clean(done)
    assert done.returncode == 2
    assert f"--dataset {row}: a file, and not a Parquet one (.parquet)" in done.stderr


def test_a_bad_dataset_row_is_named(tmp_path):
    np.save(tmp_path / "a.npy", np.zeros((2, 1, 28, 28), np.float32))
    np.save(tmp_path / "b.npy", np.zeros((1, 1, 28, 28), np.float32))  # lenet takes 2 rows
    done = _cli("run", LENET, "--dataset", tmp_path)
    _clean(done)
    assert done.returncode != 0
    assert f"row {tmp_path / 'b.npy'}: feed `image` has shape [1, 1, 28, 28]" in done.stderr
    (tmp_path / "b.npy").write_text("not numpy\n")
    done = _cli("run", LENET, "--dataset", tmp_path)
    _clean(done)
    assert done.returncode != 0 and f"row {tmp_path / 'b.npy'}: cannot be read" in done.stderr


def test_parquet_without_pyarrow_says_only_that(tmp_path):
    table = tmp_path / "rows.parquet"
    table.write_bytes(b"")
    code = ("import sys; sys.modules['pyarrow'] = None; from fluid_compat.cli import main; "
            f"sys.exit(main(['run', {str(LENET)!r}, '--dataset', {str(table)!r}]))")
    done = subprocess.run([sys.executable, "-c", code], env=_env(), cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    _clean(done)
    assert done.returncode == 2
    assert "Parquet datasets need pyarrow, which is not installed: `pip install pyarrow`" in (
        done.stderr)
    assert "Ray" not in done.stderr


def test_out_naming_an_existing_file(tmp_path):
    out = tmp_path / "taken"
    out.write_text("mine\n")
    done = _cli("run", "--example", "--out", out)
    _clean(done)
    assert done.returncode == 2
    assert done.stderr.strip() == (f"fluid-compat run: --out {out}: exists and is not a "
                                   "directory (--out names the directory output_<i>.npy go to)")
    assert out.read_text() == "mine\n"


def test_pin_of_an_unknown_op_and_an_unknown_place():
    done = _cli("run", "--example", "--pin", "nosuchop=phi")
    _clean(done)
    assert done.returncode == 2
    assert "--pin nosuchop=phi: no op type `nosuchop` is described here" in done.stderr
    done = _cli("run", "--example", "--pin", "reluu=fluid")
    assert done.returncode == 2 and "(closest: relu" in done.stderr
    done = _cli("run", "--example", "--place", "tpu")
    _clean(done)
    assert done.returncode == 2
    assert "--place tpu: `tpu` is not a device here" in done.stderr
    done = _cli("explain", "relu", "--pin", "nosuchop=fluid")
    assert done.returncode == 2 and "no op type `nosuchop`" in done.stderr


def test_ops_table_fits_100_columns_unless_wide():
    done = _cli("ops", "relu", "mul", "lookup_table_v2", "c_allreduce_sum")
    _clean(done)
    lines = done.stdout.splitlines()
    assert max(len(line) for line in lines) <= 100
    assert any(line.startswith("c_allreduce_sum ") for line in lines)  # names stay whole
    wide = _cli("ops", "relu", "mul", "lookup_table_v2", "c_allreduce_sum", "--wide")
    rows = [line for line in wide.stdout.splitlines() if line.startswith("mul ")]
    assert len(rows) == 1 and "matmul_with_flatten: CPU,GPU[f32,f64]" in rows[0]
    assert max(len(line) for line in wide.stdout.splitlines()) > 100


def test_dispatch_trace_logs_each_step_once():
    done = _cli("demo", env=_env(FLAGS_dispatch_trace="2"))
    _clean(done)
    both = done.stdout + done.stderr
    # matmul's lookup: step 3 misses (CPU, NCHW), step 4 finds (CPU, ALL_LAYOUT); once each
    assert both.count("step 4: (CPU, Undefined(AnyLayout), float32) -> found") == both.count(
        "-> kernel ") > 0
    assert "select matmul" not in both
    # an application that configures logging after phi's import sees each record once
    code = ("import logging, numpy as np, phi\n"
            "phi.api.relu(np.ones(2, np.float32))\n"
            "logging.basicConfig(level=logging.DEBUG, format='%(message)s')\n"
            "phi.api.relu(np.ones(2, np.float64))\n")
    done = subprocess.run([sys.executable, "-c", code], env=_env(FLAGS_dispatch_trace="2"),
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("step 4: (CPU, Undefined(AnyLayout), float32) -> found") == 1
    assert done.stderr.count("step 4: (CPU, Undefined(AnyLayout), float64) -> found") == 1


def test_glog_v_says_it_has_no_effect():
    done = _cli("kernels", "relu", env=_env(GLOG_v="3"))
    _clean(done)
    assert done.returncode == 0
    assert done.stderr.strip() == (
        "fluid-compat: note: GLOG_v=3 has no effect here (the bridge has no glog); "
        "FLAGS_dispatch_trace=1 logs each op's kernel choice, 2 also every lookup step and "
        "transform")
    assert _cli("kernels", "relu", env=_env(GLOG_v="0")).stderr == ""


def test_unknown_option_shows_the_subcommands_usage():
    for command, *args in (("run",), ("ops",), ("kernels",), ("train",), ("compare",),
                           ("explain",), ("inspect", LENET)):
        done = _cli(command, *args, "--bogus")
        _clean(done)
        assert done.returncode == 2
        assert done.stderr.startswith(f"usage: fluid-compat {command} "), done.stderr
        assert done.stderr.rstrip().endswith(f"fluid-compat {command}: unrecognized arguments: "
                                             "--bogus")


def test_every_command_prefixes_its_errors_alike(tmp_path):
    done = _cli("train", tmp_path / "missing.pdmodel")
    _clean(done)
    assert done.returncode == 2 and done.stderr.startswith("fluid-compat train: ")
    done = _cli("kernels", "sofmax")
    assert done.returncode == 2 and done.stderr.startswith("fluid-compat kernels: ")
    done = _cli("run", tmp_path / "missing")
    assert done.returncode == 1 and done.stderr.startswith("fluid-compat run: ")
    done = _cli("run", "--repeat", "x")  # argparse's own errors take the same form
    assert done.stderr.rstrip().endswith("fluid-compat run: argument --repeat: invalid int "
                                         "value: 'x'")


def test_a_tensor_shows_its_values():
    done = _cli("demo")
    _clean(done)
    result = done.stdout.split("result ", 1)[1]
    assert result.startswith("DenseTensor(shape=[2, 4], dtype=float32, place=Place(cpu)")
    values = result.split("values=", 1)[1]
    assert values.startswith("[[") and values.count("[") == 3  # a 2 x 4 array, numpy-style
    from phi.core.tensor import DenseTensor

    text = repr(DenseTensor.from_numpy(np.arange(1000, dtype=np.int64)))
    assert "values=[  0,   1,   2, ..., 997, 998, 999]" in text  # a long one is summarized


def test_output_cut_short_by_its_reader_ends_quietly():
    proc = subprocess.Popen([sys.executable, "-m", "fluid_compat", "kernels"], env=_env(),
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline()  # `| head -1`
    proc.stdout.close()
    stderr = proc.communicate(timeout=300)[1].decode()
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr
    assert proc.returncode == 141


@pytest.mark.skipif(not (Path(sys.executable).parent / "fluid-compat").is_file(),
                    reason="no fluid-compat console script beside this interpreter")
def test_the_console_script_is_the_same_command():
    done = subprocess.run([str(Path(sys.executable).parent / "fluid-compat"), "argmap-check",
                           "--help"], env=_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.startswith("usage: fluid-compat argmap-check")


def test_rich_and_graphviz_load_only_to_draw():
    code = ("import sys\nfrom fluid_compat.cli import build_parser\nbuild_parser()\n"
            "from fluid_compat.tools import run, ops_status, compare, explain, inspect_model\n"
            "print(sorted(m for m in ('rich', 'graphviz') if m in sys.modules))\n"
            "from fluid_compat.tools.tables import render_table\nrender_table(['a'], [[1]])\n"
            "print(sorted(m for m in ('rich', 'graphviz') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code], env=_env(), cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["[]", "['rich']"]
