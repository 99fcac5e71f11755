"""pyramid_hash's pieces against independent truth: XXH32 and MurmurHash3_x64_128 against
their published test vectors, rand_r against the C library's, and the DropPos prefix and LoDs
that Paddle 2.6.2 printed for a hand-sized input (its fixtures compare DropPos by shape only,
since Paddle leaves the rest of that tensor unwritten)."""

from __future__ import annotations

import ctypes
import ctypes.util

import numpy as np
import pytest

from fluid_compat import run_op_tensors
from fluid_compat.operators.fluid_kernels.pyramid_hash import (
    murmur3_x64_128_rows,
    rand_r,
    xxh32_rows,
)
from phi.core.errors import InvalidArgument, PreconditionNotMet


def _rows(data: bytes) -> np.ndarray:
    return np.frombuffer(data, np.uint8).reshape(1, -1)


@pytest.mark.parametrize(("data", "seed", "want"), [
    (b"", 0, 0x02CC5D05), (b"", 1, 0x0B2CB792), (b"a", 0, 0x550D7456),
    (b"abc", 0, 0x32D153FF), (b"Nobody inspects the spammish repetition", 0, 0xE2293B2F),
])
def test_xxh32_published_vectors(data, seed, want):
    assert int(xxh32_rows(_rows(data), seed)[0]) == want


def test_xxh32_hashes_every_row_alike():
    rows = np.frombuffer(b"abcdefghijklmnopqrstuvwx", np.uint8).reshape(2, 12)
    got = xxh32_rows(rows, 5)
    assert [int(v) for v in got] == [int(xxh32_rows(r[None], 5)[0]) for r in rows]


@pytest.mark.parametrize(("data", "seed", "want"), [
    (b"", 0, (0, 0)),
    # mmh3's documented hash64("foo") (signed) and hash128("foo", 42)
    (b"foo", 0, (-2129773440516405919 % 2**64, 9128664383759220103)),
    (b"foo", 42, (215966891540331383248189432718888555506 % 2**64,
                  215966891540331383248189432718888555506 >> 64)),
])
def test_murmur3_x64_128_published_vectors(data, seed, want):
    h1, h2 = murmur3_x64_128_rows(_rows(data), seed)
    assert (int(h1[0]), int(h2[0])) == want


def test_rand_r_is_the_c_librarys():
    path = ctypes.util.find_library("c")
    if path is None:
        pytest.skip("no C library to compare with")
    libc = ctypes.CDLL(path)
    for seed in (0, 7, 123456789, 2**32 - 1):
        state, c_state = seed, ctypes.c_uint(seed)
        for _ in range(5):
            value, state = rand_r(state)
            assert value == libc.rand_r(ctypes.byref(c_state)) and state == c_state.value


_X = (np.array([[3], [5], [7], [2], [9], [4], [1]], np.int32), [[0, 4, 5, 7]])
_W = np.arange(1, 21, dtype=np.float32).reshape(20, 1)
_ATTRS = dict(num_emb=4, space_len=18, rand_len=2, pyramid_layer=3, use_filter=False)
_DUMMY = np.zeros((1, 1), np.float32)


def _run(**attrs):
    return run_op_tensors("pyramid_hash", {"X": _X, "W": _W, "WhiteList": _DUMMY,
                                           "BlackList": _DUMMY}, {**_ATTRS, **attrs})


@pytest.mark.parametrize(("attrs", "drop_pos", "out_lod", "drop_lod", "out"), [
    # as Paddle 2.6.2 printed them (DropPos: the first 6 of its 21 rows; the rest unwritten)
    ({"is_training": 1}, [1] * 6, (0, 5, 6, 7), (0, 5, 5, 6), None),
    ({"is_training": 1, "drop_out_percent": 0.5, "seed": 7}, [1, 0, 1, 0, 0, 0],
     (0, 2, 3, 4), (0, 2, 2, 2), [11, 12, 8, 9, 13, 14, 3, 4] + [0] * 8),
])
def test_drop_pos_and_lods_as_paddle_printed(attrs, drop_pos, out_lod, drop_lod, out):
    got = _run(**attrs)
    (o,), (d,), (t,) = got["Out"], got["DropPos"], got["X_Temp_Out"]
    assert d.numpy().shape == (21, 1) and d.numpy()[:6, 0].tolist() == drop_pos
    assert not d.numpy()[6:].any()  # Paddle leaves them unwritten; zero here
    assert o.lod == (out_lod,) and d.lod == (drop_lod,)
    assert t.numpy().ravel().tolist() == [3, 5, 7, 2, 9, 4, 1] and t.lod == ()
    if out is not None:
        assert o.numpy().ravel().tolist() == out


def test_bad_settings_raise_typed_errors():
    with pytest.raises(InvalidArgument, match="multiple of rand_len"):
        _run(num_emb=3)
    with pytest.raises(InvalidArgument, match="space_len \\+ rand_len"):
        _run(space_len=10)
    with pytest.raises(PreconditionNotMet, match="white filter is not loaded"):
        _run(use_filter=True, white_list_len=1)
