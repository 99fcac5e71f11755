"""FLAGS_*: environment at start-up, set_flags / get_flags at run time."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import phi
from phi.core.errors import InvalidArgument, NotFound


def test_get_and_set_flags_round_trip():
    before = phi.get_flags(["FLAGS_enable_api_kernel_fallback", "FLAGS_dispatch_trace"])
    assert before == {"FLAGS_enable_api_kernel_fallback": True, "FLAGS_dispatch_trace": 0}
    try:
        phi.set_flags({"FLAGS_enable_api_kernel_fallback": "0", "FLAGS_dispatch_trace": 1})
        assert phi.get_flags("FLAGS_enable_api_kernel_fallback") == {
            "FLAGS_enable_api_kernel_fallback": False}
        assert phi.get_flags("FLAGS_dispatch_trace")["FLAGS_dispatch_trace"] == 1
    finally:
        phi.set_flags(before)


def test_bad_flag_name_or_value_changes_nothing():
    with pytest.raises(NotFound, match="Did you mean FLAGS_dispatch_trace"):
        phi.set_flags({"FLAGS_dispatch_trase": 1})
    with pytest.raises(InvalidArgument, match="expects a bool"):
        phi.set_flags({"FLAGS_dispatch_trace": 2, "FLAGS_enable_api_kernel_fallback": "maybe"})
    assert phi.get_flags("FLAGS_dispatch_trace")["FLAGS_dispatch_trace"] == 0


def test_flags_read_from_environment():
    env = dict(os.environ, FLAGS_enable_api_kernel_fallback="false", FLAGS_dispatch_trace="2")
    code = "import phi; print(phi.get_flags(['FLAGS_enable_api_kernel_fallback', " \
           "'FLAGS_dispatch_trace']))"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "{'FLAGS_enable_api_kernel_fallback': False, " \
                          "'FLAGS_dispatch_trace': 2}"
