"""The peers of benchmarks/zoo.py: onnxruntime and Paddle Inference on the same models (dev-only).

Run with the Python of a virtualenv that has paddlepaddle 2.6.2 and onnxruntime (the fixtures
tooling's `.venv-paddle`, see tools/fixtures/README.md); zoo.py starts it as a subprocess.  This
file imports only the standard library at the top, so that zoo.py (the project's venv) imports
its driver half: `Worker` and `round_robin`.

    PY _peers.py worker ENGINE MODEL_DIR [--onnx FILE]   # one (model, engine) in its own process
    PY _peers.py bench MODEL_DIR... [--repeat 20]        # the peers alone, round-robin
    PY -c "$COLD_SCRIPT" MODEL_DIR ONNX_FILE              # onnxruntime's first output, cold

Engines: `ort` (onnxruntime, intra_op_num_threads=2, sequential execution), `pd_native` (Paddle
Inference: paddle.inference.Config, disable_mkldnn, 2 CPU math threads), `pd_onednn` (the same
with enable_mkldnn).  Batch as recorded: every feed is the model's input_<name>.npy.

A worker loads its model, runs it three times (the first run's output is compared with the
recorded output_0.npy: `max_diff`, relative to its largest magnitude), then answers commands
on stdin, one a line: `run N` (N back-to-back runs, answers the mean ms per run) and `quit`
(answers its peak RSS in MB and exits).  Its answers are lines starting with `@@ ` on the
real stdout (anything a library prints goes to stderr), so that the driver can interleave the
engines of one model turn by turn and noise on the shared machine hits them all alike, while
each engine's peak memory is its own.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ENGINES = ("ort", "pd_native", "pd_onednn")
ENGINE_LABELS = {"ort": "onnxruntime", "pd_native": "Paddle Inference native",
                 "pd_onednn": "Paddle Inference oneDNN"}
THREADS = 2
GAP_S = 0.25  # pause between two engines' turns (see round_robin)


# ---- worker side (needs numpy and the engine) ----------------------------------------------

def _inputs(model_dir: str, names):
    import numpy as np

    return {n: np.load(os.path.join(model_dir, f"input_{n.replace('/', '_')}.npy")) for n in names}


def _ort_session(onnx_file: str):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = THREADS
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    return ort.InferenceSession(onnx_file, opts, providers=["CPUExecutionProvider"])


def load_ort(model_dir: str, onnx_file: str):
    sess = _ort_session(onnx_file)
    feed = _inputs(model_dir, [i.name for i in sess.get_inputs()])
    return lambda: sess.run(None, feed)


def load_paddle(model_dir: str, onednn: bool):
    from paddle import inference

    config = inference.Config(os.path.join(model_dir, "inference.pdmodel"),
                              os.path.join(model_dir, "inference.pdiparams"))
    config.disable_gpu()
    config.set_cpu_math_library_num_threads(THREADS)
    if onednn:
        config.enable_mkldnn()
    else:
        config.disable_mkldnn()
    config.disable_glog_info()
    predictor = inference.create_predictor(config)
    feed = _inputs(model_dir, predictor.get_input_names())
    inputs = [(predictor.get_input_handle(n), a) for n, a in feed.items()]
    outputs = [predictor.get_output_handle(n) for n in predictor.get_output_names()]

    def run():
        for handle, array in inputs:
            handle.reshape(array.shape)
            handle.copy_from_cpu(array)
        predictor.run()
        return [h.copy_to_cpu() for h in outputs]

    return run


def _max_diff(model_dir: str, outputs) -> float | None:
    """max |output 0 - recorded output_0.npy|, relative to max |recorded| (inf: other shape)."""
    import numpy as np

    want_file = os.path.join(model_dir, "output_0.npy")
    if not outputs or not os.path.isfile(want_file):
        return None
    got = np.asarray(outputs[0])
    want = np.load(want_file)
    if got.shape != want.shape:
        return math.inf
    if not want.size:
        return 0.0
    scale = max(float(np.max(np.abs(want.astype(np.float64)))), 1e-30)
    return float(np.max(np.abs(got.astype(np.float64) - want))) / scale


def serve(model_dir: str, load, check=None) -> None:
    """Load (load() -> a function running the model once), warm, then answer the driver.

    The first answer has the warm run's time, the load + first run's time and what ``check``
    (first run's outputs -> a dict) says of the outputs; by default ``max_diff``, output 0's
    largest difference from ``output_0.npy``."""
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # what libraries print goes to stderr, away from the answers

    def say(obj):
        proto.write("@@ " + json.dumps(obj) + "\n")

    t0 = time.perf_counter()
    run = load()
    first = run()
    first_ms = (time.perf_counter() - t0) * 1e3
    verdict = check(first) if check is not None else {"max_diff": _max_diff(model_dir, first)}
    run()
    t0 = time.perf_counter()
    run()
    say({"warm_ms": (time.perf_counter() - t0) * 1e3, "load_first_ms": first_ms, **verdict})
    for line in sys.stdin:
        cmd = line.split()
        if cmd and cmd[0] == "run":
            n = int(cmd[1])
            t0 = time.perf_counter()
            for _ in range(n):
                run()
            say({"ms": (time.perf_counter() - t0) * 1e3 / n})
        elif cmd and cmd[0] == "quit":
            break
    say({"peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024})


# onnxruntime's time to first output: a fresh `python -c COLD_SCRIPT MODEL_DIR ONNX_FILE` imports
# no more than it needs (not this file's driver half); the caller times it to "output 0"
COLD_SCRIPT = """\
import os, sys
import numpy as np
import onnxruntime as ort
model_dir, onnx_file = sys.argv[1:3]
opts = ort.SessionOptions()
opts.intra_op_num_threads = THREADS
opts.inter_op_num_threads = 1
opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
sess = ort.InferenceSession(onnx_file, opts, providers=["CPUExecutionProvider"])
feed = {i.name: np.load(os.path.join(model_dir, "input_" + i.name.replace("/", "_") + ".npy"))
        for i in sess.get_inputs()}
for k, out in enumerate(sess.run(None, feed)):
    print(f"output {k}: shape {list(out.shape)} dtype {out.dtype}", flush=True)
""".replace("THREADS", str(THREADS))


# ---- driver side (standard library only: zoo.py imports it) --------------------------------

class Worker:
    """One model on one engine in its own process (see the module docstring)."""

    def __init__(self, name: str, argv: list[str] | None, env: dict | None = None,
                 timeout: float = 600.0, why: str | None = None):
        self.name = name
        self.error = None
        self.info: dict = {}
        self.times: list[float] = []
        self._ready = False
        self._timeout = timeout
        self.proc = None
        if argv is None:  # not started: why says why
            self.error = why or "not started"
            return
        # stderr to a file: a worker that logs much never blocks on a full pipe
        self._stderr = tempfile.TemporaryFile("w+")  # noqa: SIM115 (closed in close())
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._stderr, text=True, bufsize=1, env=env)

    @classmethod
    def skipped(cls, name: str, why: str) -> Worker:
        return cls(name, None, why=why)

    def wait_ready(self) -> bool:
        """Wait for the model to be loaded and warm (workers of one model load side by side)."""
        if not self._ready and self.proc is not None and self.error is None:
            self._ready = True
            ready = self._answer()
            if ready is not None:
                self.info.update(ready)
        return self.ok

    def _answer(self):
        for line in self.proc.stdout:
            if line.startswith("@@ "):
                return json.loads(line[3:])
        self.proc.wait()
        self._stderr.seek(0)
        err = self._stderr.read().strip().splitlines()
        self.error = err[-1] if err else f"exit {self.proc.returncode}"
        return None

    @property
    def ok(self) -> bool:
        return self.error is None

    def time(self, number: int) -> None:
        self.proc.stdin.write(f"run {number}\n")
        self.proc.stdin.flush()
        answer = self._answer()
        if answer is not None:
            self.times.append(answer["ms"])

    def close(self) -> None:
        if self.proc is None:
            return
        if self.ok:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.flush()
            answer = self._answer()
            if answer is not None:
                self.info.update(answer)
        self.proc.stdin.close()
        self.proc.wait(timeout=self._timeout)
        self.proc.stdout.close()
        self._stderr.close()

    @property
    def median_ms(self) -> float | None:
        return statistics.median(self.times) if self.times else None

    @property
    def peak_rss_mb(self) -> float | None:
        return self.info.get("peak_rss_mb")


def round_robin(workers: list[Worker], repeat: int, burst_ms: float = 20.0,
                gap_s: float = GAP_S) -> None:
    """`repeat` rounds; in each, every live worker runs its model (back to back, as many times as
    fill burst_ms); the order turns each round; between two workers' turns a pause of gap_s, so
    that one engine's threads spinning after its run (Intel OpenMP's KMP_BLOCKTIME: 200 ms) do
    not take the cores from the next.  Closes the workers."""
    live = [w for w in workers if w.wait_ready()]
    numbers = {w.name: max(1, min(500, math.ceil(burst_ms / max(w.info["warm_ms"], 1e-3))))
               for w in live}
    for r in range(repeat):
        for w in live[r % len(live):] + live[:r % len(live)] if live else []:
            if w.ok:
                time.sleep(gap_s)
                w.time(numbers[w.name])
    for w in workers:
        w.close()


def peer_workers(python: str, model_dir: str, onnx_file: str | None,
                 engines=ENGINES) -> list[Worker]:
    """Start a worker per peer engine (ort only when the ONNX file exists)."""
    env = dict(os.environ, GLOG_minloglevel="3", FLAGS_call_stack_level="0")
    env.pop("PYTHONPATH", None)
    workers = []
    for engine in engines:
        argv = [python, os.path.abspath(__file__), "worker", engine, model_dir]
        if engine == "ort":
            if not onnx_file or not os.path.isfile(onnx_file):
                workers.append(Worker.skipped(engine, "no ONNX file"))
                continue
            argv += ["--onnx", onnx_file]
        workers.append(Worker(engine, argv, env))
    return workers


def time_to_line(argv: list[str], prefix: str, env: dict | None = None) -> float | None:
    """Seconds from starting argv until it prints a line starting with prefix (None: it never
    did); the process is then waited for."""
    env = dict(env if env is not None else os.environ, PYTHONUNBUFFERED="1")
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env=env)
    took = None
    for line in proc.stdout:
        if took is None and line.startswith(prefix):
            took = time.perf_counter() - t0
    proc.wait()
    proc.stdout.close()
    return took if proc.returncode == 0 else None


def cold_argv(python: str, model_dir: str, onnx_file: str) -> list[str]:
    return [python, "-c", COLD_SCRIPT, model_dir, onnx_file]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("worker")
    w.add_argument("engine", choices=ENGINES)
    w.add_argument("model_dir")
    w.add_argument("--onnx")
    b = sub.add_parser("bench")
    b.add_argument("models", nargs="+")
    b.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    if args.cmd == "worker":
        if args.engine == "ort":
            serve(args.model_dir, lambda: load_ort(args.model_dir, args.onnx))
        else:
            serve(args.model_dir,
                  lambda: load_paddle(args.model_dir, onednn=args.engine == "pd_onednn"))
    else:
        for model_dir in args.models:
            onnx_file = os.path.join(model_dir, "inference.onnx")
            workers = peer_workers(sys.executable, model_dir, onnx_file)
            round_robin(workers, args.repeat)
            for w in workers:
                if w.ok:
                    print(f"{os.path.basename(model_dir)} {w.name}: {w.median_ms:.3f} ms, "
                          f"peak RSS {w.peak_rss_mb:.0f} MB, max diff {w.info['max_diff']}")
                else:
                    print(f"{os.path.basename(model_dir)} {w.name}: {w.error}")


if __name__ == "__main__":
    main()
