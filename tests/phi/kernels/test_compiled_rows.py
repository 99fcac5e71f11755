"""The compiled row kernels (layer_norm, gelu's exact form, softmax over the last
axis: ``_jit_loops.layer_norm / gelu_erf / softmax``) against the numpy path they replace
(FLAGS_kernel_numba off) and against independent truth (float64 formulas, hand-worked rows).

layer_norm and gelu repeat the numpy path's operations in its order (numpy's pairwise sums
included), so they must give the same bits; softmax takes exp from the C library where numpy
may use its own SIMD exp, so it must agree within 8 ulp."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from phi.backends.cpu import CPUContext
from phi.common.place import CPUPlace
from phi.flags import get_flags, set_flags
from phi.kernels.funcs import jit
from phi.kernels.activation import gelu
from phi.kernels.layer_norm import layer_norm
from phi.kernels.softmax import softmax

CTX = CPUContext(CPUPlace())
FLAG = jit.FLAG

needs_loops = pytest.mark.skipif(jit.kernels() is None, reason="numba is not installed")


@pytest.fixture(autouse=True)
def _loops_with_or_without_a_build(monkeypatch):
    """The row kernels take their loops from the ahead-of-time build only (``jit.built``);
    here from whatever ``jit.kernels()`` gives (the build, else numba's JIT: the same code,
    test_aot compares the two), so that the loops are tested where no build was made."""
    monkeypatch.setattr(jit, "built", jit.kernels)


@pytest.fixture(autouse=True)
def _restore_flags():
    saved = get_flags([FLAG, "FLAGS_gelu_fast_erf"])
    yield
    set_flags(saved)


def both(fn, *args):
    """fn(*args) with the compiled loops on, then off (the numpy path)."""
    set_flags({FLAG: True})
    fast = fn(*args)
    set_flags({FLAG: False})
    slow = fn(*args)
    set_flags({FLAG: True})
    return fast, slow


def assert_same_bits(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))


@pytest.fixture
def calls(monkeypatch):
    """Calls of the compiled row loops, by name."""
    counts: dict[str, int] = {}
    loops = jit.kernels()
    for name in ("layer_norm", "gelu_erf", "softmax"):
        fn = getattr(loops, name)

        def counted(*args, _fn=fn, _name=name):
            counts[_name] = counts.get(_name, 0) + 1
            return _fn(*args)

        monkeypatch.setattr(loops, name, counted)
    return counts


@pytest.fixture(autouse=True)
def rng(request):
    """Each test's own generator, seeded by its name: its data does not depend on which tests
    ran before it."""
    global RNG
    RNG = np.random.default_rng(list(request.node.name.encode()))
    return RNG


def rows(shape, dtype, scale=1.0, offset=0.0):
    return (RNG.standard_normal(shape) * scale + offset).astype(dtype)


# row lengths on each side of numpy's pairwise-sum thresholds (8 accumulators from 8, halves
# above 128, and the iterator's 8192-element buffer)
LENGTHS = [1, 2, 7, 8, 9, 16, 31, 127, 128, 129, 136, 257, 1000, 8193, 20000]


@needs_loops
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("length", LENGTHS)
def test_layer_norm_same_bits_as_numpy(calls, dtype, length):
    x = rows((3, length), dtype, scale=100.0, offset=-7.5)
    scale, bias = rows((length,), dtype), rows((length,), dtype)
    fast, slow = both(layer_norm, CTX, x, scale, bias, 1e-5, 1)
    assert calls == {"layer_norm": 1}
    for a, b in zip(fast, slow, strict=True):
        assert_same_bits(a, b)


@needs_loops
@pytest.mark.parametrize("affine", ["none", "scale", "bias"])
def test_layer_norm_without_scale_or_bias(calls, affine):
    x = rows((2, 5, 12), np.float32, scale=3.0)
    p = rows((60,), np.float32)
    scale, bias = (p if affine == "scale" else None), (p if affine == "bias" else None)
    fast, slow = both(layer_norm, CTX, x, scale, bias, 1e-3, 1)
    assert calls == {"layer_norm": 1}
    for a, b in zip(fast, slow, strict=True):
        assert_same_bits(a, b)
    assert fast[0].shape == (2, 5, 12) and fast[1].shape == fast[2].shape == (2,)


@needs_loops
def test_layer_norm_hand_worked_and_specials():
    # row [1, 2, 3, 6]: mean 3, variance (4 + 1 + 0 + 9) / 4 = 3.5; y = (x - 3) / sqrt(3.5 + eps)
    x = np.array([[1, 2, 3, 6], [np.nan, 1, 2, 3], [np.inf, 1, 2, 3], [5, 5, 5, 5]], np.float32)
    with np.errstate(all="ignore"):
        y, mean, var = layer_norm(CTX, x, None, None, 0.0, 1)
    np.testing.assert_allclose(y[0], (np.array([1, 2, 3, 6]) - 3) / math.sqrt(3.5), rtol=1e-6)
    assert mean[0] == 3 and var[0] == 3.5
    assert np.isnan(y[1]).all() and np.isnan(mean[1]) and np.isnan(var[1])
    assert np.isnan(y[2]).all() and mean[2] == np.inf
    assert mean[3] == 5 and var[3] == 0 and np.isnan(y[3]).all()  # 0 / sqrt(0): numpy's NaN


@needs_loops
def test_layer_norm_other_inputs_take_the_numpy_path(calls):
    x = rows((4, 6), np.float32)
    y, _, _ = layer_norm(CTX, x, rows((6,), np.float64), None, 1e-5, 1)  # scale of another dtype
    assert calls == {} and y.dtype == np.float32
    strided = rows((4, 12), np.float32)[:, ::2]  # a strided view: copied, then compiled
    fast, slow = both(layer_norm, CTX, strided, None, None, 1e-5, 1)
    assert calls == {"layer_norm": 1}
    assert_same_bits(fast[0], slow[0])
    empty = np.zeros((0, 5), np.float32)  # no rows: compiled, nothing to do
    y, mean, _ = layer_norm(CTX, empty, None, None, 1e-5, 1)
    assert y.shape == (0, 5) and mean.shape == (0,)


@needs_loops
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gelu_same_bits_as_numpy(calls, dtype):
    x = np.concatenate([rows((4991,), dtype, scale=4.0), rows((200,), dtype, scale=40.0),
                        np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, -1e-30, 9.0, -9.0],
                                 dtype)]).reshape(4, -1)
    with np.errstate(all="ignore"):
        fast, slow = both(gelu, CTX, x, False)
    assert calls == {"gelu_erf": 1}
    # numpy's float64 exp is the C library's on CPUs without AVX-512: the same bits; with
    # AVX-512 numpy's own SIMD exp rounds apart (6 ulp seen in float64 on such a machine)
    np.testing.assert_array_max_ulp(fast, slow, maxulp=1 if dtype == np.float32 else 8)
    assert np.isnan(fast.ravel()[-9]) and fast.ravel()[-8] == np.inf
    assert np.signbit(fast.ravel()[-5])  # gelu(-0.0) = -0.0


@needs_loops
def test_gelu_against_math_erf_and_shapes(calls):
    x = np.linspace(-6, 6, 241, dtype=np.float32)
    want = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x.astype(np.float64)])
    got = gelu(CTX, x, False)
    big = np.abs(want) > 1e-6
    np.testing.assert_allclose(got[big], want[big], rtol=2e-7)
    assert gelu(CTX, np.ones((), np.float32), False).shape == ()
    assert gelu(CTX, np.zeros((0, 3), np.float32), False).shape == (0, 3)
    assert calls == {"gelu_erf": 3}
    gelu(CTX, x, True)  # the tanh form stays numpy's
    set_flags({"FLAGS_gelu_fast_erf": False})  # the fdlibm form too
    gelu(CTX, x, False)
    assert calls == {"gelu_erf": 3}


@needs_loops
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("length", [1, 3, 8, 9, 128, 129, 1000])
def test_softmax_close_to_numpy(calls, dtype, length):
    x = rows((2, 3, length), dtype, scale=20.0)
    x[0, 0, 0] = -np.inf  # clipped at -64 below the row maximum, not 0
    fast, slow = both(softmax, CTX, x, -1)
    assert calls == {"softmax": 1}
    assert fast.dtype == dtype and fast.shape == x.shape
    np.testing.assert_array_max_ulp(fast, slow, maxulp=8)


@needs_loops
def test_softmax_hand_worked_and_specials(calls):
    x = np.array([[0.0, math.log(3.0)], [np.nan, 1.0], [-np.inf, -np.inf], [0.0, -100.0]],
                 np.float32)
    with np.errstate(all="ignore"):
        got = softmax(CTX, x, -1)
    np.testing.assert_allclose(got[0], [0.25, 0.75], rtol=1e-6)
    assert np.isnan(got[1]).all() and np.isnan(got[2]).all()  # -inf - -inf = NaN, as Paddle
    np.testing.assert_allclose(got[3], [1.0, math.exp(-64)], rtol=1e-6)  # clipped at -64
    assert calls == {"softmax": 1}
    softmax(CTX, x, 0)  # another axis: the numpy path
    assert calls == {"softmax": 1}


@needs_loops
def test_layout_changes_no_bits(calls):
    # a transposed input is F-ordered: the numpy path takes it in C order too (add.reduce sums
    # a strided row element by element, a contiguous one pairwise), so both paths agree
    x = rows((100, 40), np.float32, scale=30.0).T  # [40, 100], F-ordered
    assert x.flags.f_contiguous and not x.flags.c_contiguous
    fast, slow = both(layer_norm, CTX, x, None, None, 1e-5, 1)
    for a, b in zip(fast, slow, strict=True):
        assert_same_bits(a, b)
    c_fast, _, _ = layer_norm(CTX, np.ascontiguousarray(x), None, None, 1e-5, 1)
    assert_same_bits(fast[0], c_fast)
    fast, slow = both(softmax, CTX, x, -1)
    np.testing.assert_array_max_ulp(fast, slow, maxulp=8)
    set_flags({FLAG: False})
    assert_same_bits(softmax(CTX, x, -1), softmax(CTX, np.ascontiguousarray(x), -1))
    assert calls == {"layer_norm": 2, "softmax": 1}


def test_loops_keep_their_own_copy_of_gelus_constants():
    # numba's cache is keyed by _jit_loops.py alone: the loop compiles in its own copy
    from phi.kernels import activation

    loops = pytest.importorskip("phi.kernels.funcs._jit_loops", reason="numba is not installed")
    assert loops._ERFC_P == activation._ERFC_P


def test_without_a_build_the_row_kernels_never_import_numba(tmp_path):
    # numba's import (~0.5 s) would cost a short transformer run more than the loops save: with
    # no ahead-of-time build (an empty cache) the row kernels keep their numpy path
    code = textwrap.dedent("""
        import sys
        import numpy as np
        from phi.backends.cpu import CPUContext
        from phi.common.place import CPUPlace
        from phi.kernels import activation, layer_norm as normalization, softmax
        from phi.kernels.funcs import jit
        cpu, rows = CPUContext(CPUPlace()), np.random.default_rng(0).standard_normal((4, 16))
        rows = rows.astype(np.float32)
        normalization.layer_norm(cpu, rows, rows[0], rows[1], 1e-5, 1)
        activation.gelu(cpu, rows, False)
        softmax.softmax(cpu, rows, -1)
        print(jit.built(), "numba" in sys.modules)
    """)
    root = Path(__file__).resolve().parents[3]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=root,
                         env={**os.environ, "PYTHONPATH": str(root),
                              "FLUID_PHI_KERNEL_CACHE": str(tmp_path)})
    assert out.stdout.split() == ["None", "False"]
