"""benchmarks/rnn.py runs without Paddle (the bridge alone) and reports the bridge's outputs
against Paddle's recorded ones (its timings are not tested)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_rnn_benchmark_runs_the_bridge_alone(tmp_path):
    out = tmp_path / "rows.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "rnn.py"), "--models", "lstm_tiny",
         "bilstm_seq2vec", "--repeat", "1", "--burst-ms", "1", "--peers", "", "--json",
         str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "the bridge alone" in done.stdout
    rows = json.loads(out.read_text())
    assert [r["model"] for r in rows] == ["lstm_tiny", "bilstm_seq2vec"]
    for row in rows:
        bridge = row["engines"]["bridge"]
        assert bridge["error"] is None and bridge["median_ms"] > 0
        assert bridge["max_diff"] < 1e-4  # output 0 against Paddle's recorded output_0.npy
        assert "paddle" not in row["engines"]
