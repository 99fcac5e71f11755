"""The ahead-of-time build of the compiled loops (phi.kernels.funcs.aot): built once into a
temporary cache, it loads without numba's JIT and gives the JIT loops' results bit for bit."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from phi.flags import get_flags, set_flags
from phi.kernels.funcs import aot, jit

pytest.importorskip("numba.pycc", reason="numba is not installed")
from phi.kernels.funcs import _jit_loops  # after the skip: it imports numba

ROOT = Path(__file__).resolve().parents[3]
RNG = np.random.default_rng(20261127)


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """A build in a temporary cache directory (FLUID_PHI_KERNEL_CACHE points at it)."""
    directory = tmp_path_factory.mktemp("kernel-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(aot.CACHE_ENV, str(directory))
        try:
            aot.build()
        except Exception as exc:  # no C compiler on this machine
            pytest.skip(f"the ahead-of-time build failed here: {type(exc).__name__}: {exc}")
        yield directory


@pytest.fixture
def built(cache):
    """The build with no JIT behind it: an argument it refuses raises (so a comparison with
    the JIT below is the build's own result)."""
    loops = aot.load(lambda: None)
    assert isinstance(loops, aot.Loops)
    return loops


@pytest.fixture(autouse=True)
def _fresh_choice(monkeypatch):
    """jit.kernels() decides again in each test (and forgets the test's choice after it)."""
    monkeypatch.setattr(jit, "_STATE", {})
    monkeypatch.setattr(jit, "_BUILT", [])
    saved = get_flags([jit.FLAG, aot.FLAG])
    yield
    set_flags(saved)


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


def _same(loop: str, built, make_args, outputs: tuple[int, ...]):
    """The build's ``loop`` and the JIT's on equal copies of make_args(): the written
    ``outputs`` (argument positions) equal bit for bit."""
    got, want = make_args(), make_args()
    getattr(built, loop)(*got)
    getattr(_jit_loops, loop)(*want)
    for i in outputs:
        assert np.array_equal(_bits(got[i]), _bits(want[i])), (loop, i)


def _special(shape, dtype):
    """Random values with NaN, inf, -0.0 and zeros among them."""
    a = RNG.standard_normal(shape).astype(dtype)
    flat = a.reshape(-1)
    picks = RNG.choice(flat.size, size=min(flat.size, 8), replace=False)
    flat[picks] = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e30, -1e-30, 6.0],
                           dtype=dtype)[:picks.size]
    return a


DTYPES = [np.float32, np.float64]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("geometry", [
    # (C, m, H, W, k, pads top/left, strides, dilations)
    (3, 1, 9, 8, 3, (1, 1), (1, 1), (1, 1)),
    (4, 2, 11, 10, 3, (0, 2), (2, 2), (1, 1)),
    (2, 1, 12, 9, 5, (2, 2), (2, 1), (2, 1)),
    (5, 1, 3, 3, 3, (1, 1), (1, 1), (1, 1)),
])
def test_depthwise_bitwise(built, dtype, geometry):
    c, m, h, w, k, (pt, pl), (sh, sw), (dh, dw) = geometry
    ho = (h + 2 * pt - dh * (k - 1) - 1) // sh + 1
    wo = (w + 2 * pl - dw * (k - 1) - 1) // sw + 1
    x, f = _special((2, c, h, w), dtype), RNG.standard_normal((c * m, k, k)).astype(dtype)

    def args():
        return (x.copy(), f.copy(), np.zeros((2, c * m, ho, wo), dtype), pt, pl, sh, sw, dh,
                dw, 0, c)

    _same("depthwise", built, args, (2,))
    if k == 3:
        _same("depthwise_3x3_small", built, args, (2,))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("contiguous_planes", [True, False])
def test_winograd_transforms_bitwise(built, dtype, contiguous_planes):
    c, o, n, th, tw = 3, 4, 2, 3, 4
    p = _special((c, n, 2 * th + 2, 2 * tw + 2), dtype)
    w = RNG.standard_normal((o, c, 3, 3)).astype(dtype)
    m = RNG.standard_normal((16, o, n * th * tw)).astype(dtype)

    def planes(rows, cols):  # Winograd's planes: views with a gap after each plane
        if contiguous_planes:
            return np.zeros((16, rows, cols), dtype)
        return np.zeros((16, rows * cols + 5), dtype)[:, :rows * cols].reshape(16, rows, cols)

    _same("winograd_input", built, lambda: (p.copy(), planes(c, n * th * tw), th, tw, 0, c),
          (1,))
    _same("winograd_weight", built, lambda: (w.copy(), planes(o, c)), (1,))
    _same("winograd_output", built,
          lambda: (m.copy(), np.zeros((n, o, 2 * th - 1, 2 * tw), dtype), th, tw, 0, o), (1,))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("window", [(3, 3, 2, 2, 1, 1), (2, 2, 2, 2, 0, 0), (3, 2, 1, 2, 1, 0)])
def test_max_pool_bitwise(built, dtype, window):
    kh, kw, sh, sw, pt, pl = window
    x = _special((2, 3, 9, 8), dtype)
    ho, wo = (9 + 2 * pt - kh) // sh + 1, (8 + 2 * pl - kw) // sw + 1
    floor = np.dtype(dtype).type(-np.finfo(dtype).max)
    _same("max_pool2d", built,
          lambda: (x.copy(), np.zeros((2, 3, ho, wo), dtype), kh, kw, sh, sw, pt, pl, floor),
          (1,))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("act", [0, 1, 2])
def test_bn_epilogue_bitwise(built, dtype, act):
    y, other = _special((2, 4, 7), dtype), _special((2, 4, 7), dtype)
    scale, bias = _special((4,), dtype), _special((4,), dtype)
    mean, var = _special((4,), dtype), np.abs(_special((4,), dtype))
    var[0] = 0.0  # 1 / sqrt(0 + 0): inf, as numpy (the loop's numpy error model)
    for c0, c1 in ((0, 4), (1, 3)):
        _same("bn_affine_act", built,
              lambda c0=c0, c1=c1: (y.copy(), mean.copy(), var.copy(), scale.copy(),
                                    bias.copy(), 0.0, act, c0, c1), (0,))
        _same("bn_affine_add_act", built,
              lambda c0=c0, c1=c1: (y.copy(), mean.copy(), var.copy(), scale.copy(),
                                    bias.copy(), 1e-5, other.copy(), act, c0, c1), (0,))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("length", [5, 8, 200])
def test_row_loops_bitwise(built, dtype, length):
    x = _special((3, length), dtype)
    x[2] = RNG.standard_normal(length).astype(dtype) * 50  # a row without specials
    scale, bias = _special((length,), dtype), _special((length,), dtype)
    empty = np.empty(0, dtype)
    for affine, s, b in ((3, scale, bias), (0, empty, empty), (2, empty, bias)):
        _same("layer_norm", built,
              lambda s=s, b=b, affine=affine: (x.copy(), s.copy(), b.copy(), 1e-5,
                                               np.empty_like(x), np.empty(3, dtype),
                                               np.empty(3, dtype), affine), (4, 5, 6))
    _same("gelu_erf", built, lambda: (x.reshape(-1).copy(), np.empty(x.size, dtype)), (1,))
    _same("softmax", built, lambda: (x.copy(), np.empty_like(x), dtype(-64.0)), (1,))


def _misaligned(a: np.ndarray) -> np.ndarray:
    """A C-contiguous copy of ``a`` one byte off its dtype's alignment (np.frombuffer at an
    odd offset, as a user's buffer may be)."""
    buf = bytearray(a.nbytes + 1)
    out = np.frombuffer(buf, a.dtype, a.size, 1).reshape(a.shape)
    out[...] = a
    assert not out.flags.aligned and out.flags.c_contiguous
    return out


def test_misaligned_inputs_run_on_the_build_alone(built, monkeypatch):
    # the kernels hand the loops aligned copies (jit.contiguous): with no numba behind the
    # build a misaligned input runs (before: TypeError from the build's adapter) and gives the
    # numpy path's results
    from types import SimpleNamespace

    from phi.backends.cpu import CPUContext
    from phi.common.int_array import IntArray
    from phi.common.place import CPUPlace
    from phi.kernels import activation, conv, softmax
    from phi.kernels import layer_norm as normalization
    from phi.kernels import pool as pooling

    ctx, cpu = SimpleNamespace(xp=np), CPUContext(CPUPlace())
    x = RNG.standard_normal((1, 8, 14, 14)).astype(np.float32)
    stem = RNG.standard_normal((1, 3, 30, 30)).astype(np.float32)
    wd = RNG.standard_normal((8, 1, 3, 3)).astype(np.float32)
    w3 = RNG.standard_normal((8, 8, 3, 3)).astype(np.float32)
    w7 = RNG.standard_normal((4, 3, 7, 7)).astype(np.float32)
    rows = RNG.standard_normal((6, 16)).astype(np.float32)

    def run(m):
        return [conv.depthwise_conv2d(ctx, m(x), m(wd), [1, 1], [1, 1], "EXPLICIT", 8, [1, 1],
                                      "NCHW"),
                conv.conv2d(ctx, m(x), m(w3), [1, 1], [1, 1], "EXPLICIT", [1, 1], 1, "NCHW"),
                conv.conv2d(ctx, m(stem), m(w7), [2, 2], [3, 3], "EXPLICIT", [1, 1], 1,
                            "NCHW"),
                pooling.pool2d(ctx, m(x), IntArray([3, 3]), [2, 2], [1, 1], False, True,
                               "NCHW", "max", False, False, "EXPLICIT"),
                *normalization.layer_norm(cpu, m(rows), m(rows[0]), m(rows[1]), 1e-5, 1),
                activation.gelu(cpu, m(rows), False),
                softmax.softmax(cpu, m(rows), -1)]

    monkeypatch.setattr(jit, "_STATE", {True: built})  # no JIT behind the build
    on_build = run(_misaligned)
    set_flags({jit.FLAG: False})
    on_numpy = run(lambda a: a)
    for got, want in zip(on_build, on_numpy, strict=True):  # Winograd: sums in another order
        np.testing.assert_allclose(got, want, rtol=0, atol=2e-6 * float(np.abs(want).max()))


def test_every_loop_is_exported():
    # a loop the kernels call but the build lacks would be an AttributeError on the build only
    assert set(aot.EXPORTS) == set(_jit_loops.__all__)
    assert all(callable(getattr(_jit_loops, name)) for name in aot.EXPORTS)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rows", [(0, 4), (1, 3), (3, 4)])
def test_im2col_bitwise(built, dtype, rows):
    x = _special((2, 3, 8, 7), dtype)
    oy0, oy1 = rows
    wo = 4  # ho 4: k 3, stride 2, dilation 1, pads 1 / 1
    _same("im2col", built,
          lambda: (x.copy(), np.full((2, 27, (oy1 - oy0) * wo), 7, dtype), oy0, oy1, wo, 3, 3,
                   2, 2, 1, 1, 1, 1), (1,))
    # a range of output rows is those rows' columns of the whole map's
    whole = np.full((2, 27, 4 * wo), 7, dtype)
    part = np.full((2, 27, (oy1 - oy0) * wo), 7, dtype)
    built.im2col(x, whole, 0, 4, wo, 3, 3, 2, 2, 1, 1, 1, 1)
    built.im2col(x, part, oy0, oy1, wo, 3, 3, 2, 2, 1, 1, 1, 1)
    assert np.array_equal(_bits(part), _bits(whole[:, :, oy0 * wo:oy1 * wo]))


def test_other_arguments_take_the_jit_path(built, monkeypatch):
    x = RNG.standard_normal((1, 2, 6, 6)).astype(np.float32)
    f = RNG.standard_normal((2, 3, 3)).astype(np.float32)
    calls = []

    class Recorder:
        def depthwise(self, *args):
            calls.append(args)

    loops = aot.Loops(built.module, lambda: Recorder())
    out = np.zeros((1, 2, 6, 6), np.float32)
    loops.depthwise(x, f, out, 1, 1, 1, 1, 1, 1, 0, 2)  # taken by the build
    assert not calls and np.abs(out).sum() > 0
    strided = np.zeros((1, 2, 6, 12), np.float32)[..., ::2]
    misaligned = np.frombuffer(bytes(1 + x.nbytes), np.float32, x.size, 1).reshape(x.shape)
    assert misaligned.flags.c_contiguous and not misaligned.flags.aligned
    for odd in (x.astype(">f4"),                  # another byte order
                x.astype(np.float16),             # another dtype
                x[0],                             # another ndim
                strided,                          # not C-contiguous where C is needed
                misaligned):                      # compiled for aligned arrays
        first = odd if odd is not strided else x
        output = strided if odd is strided else np.zeros((1, 2, 6, 6), np.float32)
        loops.depthwise(first, f, output, 1, 1, 1, 1, 1, 1, 0, 2)
    assert len(calls) == 5


def test_without_numba_other_arguments_are_a_clear_error(built):
    loops = aot.Loops(built.module, lambda: None)
    x = np.zeros((1, 2, 6, 6), np.float16)
    with pytest.raises(TypeError, match="depthwise: argument 0 has dtype float16.*numba"):
        loops.depthwise(x, x[0], x, 1, 1, 1, 1, 1, 1, 0, 2)
    y = np.zeros((1, 2, 6, 6), np.float32)
    w = np.zeros((2, 3, 6), np.float32)[:, :, ::2]  # a strided filter view
    with pytest.raises(TypeError, match=r"argument 1 has strides \(72, 24, 8\), expected a "
                                        "3-D C-contiguous numpy array of float32"):
        loops.depthwise(y, w, y, 1, 1, 1, 1, 1, 1, 0, 2)
    odd = np.frombuffer(bytes(1 + y.nbytes), np.float32, y.size, 1).reshape(y.shape)
    with pytest.raises(TypeError, match="argument 2 is not aligned to its dtype, expected a "
                                        "4-D C-contiguous numpy array of float32"):
        loops.depthwise(y, w[:, :, :3].copy(), odd, 1, 1, 1, 1, 1, 1, 0, 2)


def test_a_flipped_filter_runs_on_the_build_without_numba(built, monkeypatch):
    # the kernels hand the build C-contiguous arrays: a filter view (flipped taps) still
    # convolves with no JIT to fall back to
    from types import SimpleNamespace

    from phi.kernels import conv

    monkeypatch.setattr(jit, "_STATE", {True: aot.Loops(built.module, lambda: None)})
    x = RNG.standard_normal((1, 3, 7, 6)).astype(np.float32)
    w = RNG.standard_normal((3, 1, 3, 3)).astype(np.float32)[:, :, ::-1, ::-1]
    got = conv.depthwise_conv2d(SimpleNamespace(xp=np), x, w, [1, 1], [1, 1], "EXPLICIT", 3,
                                [1, 1], "NCHW")
    set_flags({jit.FLAG: False})
    want = conv.depthwise_conv2d(SimpleNamespace(xp=np), x, np.ascontiguousarray(w), [1, 1],
                                 [1, 1], "EXPLICIT", 3, [1, 1], "NCHW")
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_kernels_prefers_the_build_flag_off_takes_the_jit(built):
    assert isinstance(jit.kernels(), aot.Loops)
    set_flags({aot.FLAG: False})
    assert jit.kernels() is _jit_loops
    set_flags({jit.FLAG: False})
    assert jit.kernels() is None


def test_no_build_of_this_key_means_the_jit(cache, tmp_path, monkeypatch):
    monkeypatch.setenv(aot.CACHE_ENV, str(tmp_path))
    assert aot.load(jit.jit_loops) is None
    assert jit.kernels() is _jit_loops
    # a build of another key (another source, CPU or numpy) is never loaded
    other = aot.module_path(tmp_path, "0" * 20)
    other.write_bytes(aot.module_path(cache).read_bytes())
    assert aot.load(jit.jit_loops) is None
    # a damaged file under this key's name does not load either
    mine = aot.module_path(tmp_path)
    mine.write_bytes(b"not an extension module")
    monkeypatch.delitem(sys.modules, mine.name.split(".")[0], raising=False)
    assert aot.load(jit.jit_loops) is None


def test_no_loops_source_means_no_build(cache, monkeypatch, tmp_path):
    # an install without _jit_loops.py has no key to match a build: the JIT (or numpy) path
    monkeypatch.setattr(aot, "_LOOPS_SOURCE", tmp_path / "missing.py")
    assert aot.load(jit.jit_loops) is None
    assert jit.kernels() is _jit_loops


def test_the_key_follows_the_loops_source(monkeypatch, tmp_path):
    edited = tmp_path / "_jit_loops.py"
    edited.write_bytes(aot._LOOPS_SOURCE.read_bytes() + b"\n# edited\n")
    key = aot.tag()
    monkeypatch.setattr(aot, "_LOOPS_SOURCE", edited)
    assert aot.tag() != key


def test_conv_and_pool_kernels_equal_on_the_build_and_the_jit(built, monkeypatch):
    from types import SimpleNamespace

    from phi.common.int_array import IntArray
    from phi.kernels import conv
    from phi.kernels import pool as pooling

    ctx = SimpleNamespace(xp=np)
    x = RNG.standard_normal((1, 8, 14, 14)).astype(np.float32)
    w3 = RNG.standard_normal((8, 8, 3, 3)).astype(np.float32)
    wd = RNG.standard_normal((8, 1, 3, 3)).astype(np.float32)
    w5 = RNG.standard_normal((4, 8, 5, 5)).astype(np.float32)

    def run():
        return [conv.conv2d(ctx, x, w3, [1, 1], [1, 1], "EXPLICIT", [1, 1], 1, "NCHW"),
                conv.depthwise_conv2d(ctx, x, wd, [2, 2], [1, 1], "EXPLICIT", 8, [1, 1],
                                      "NCHW"),
                conv.conv2d(ctx, x, w5, [2, 2], [2, 2], "EXPLICIT", [1, 1], 1, "NCHW"),
                pooling.pool2d(ctx, x, IntArray([3, 3]), [2, 2], [1, 1], False, True, "NCHW",
                               "max", False, False, "EXPLICIT")]

    monkeypatch.setattr(jit, "_STATE", {True: built})  # no JIT behind the build
    on_build = run()
    set_flags({aot.FLAG: False})
    on_jit = run()
    for a, b in zip(on_build, on_jit, strict=True):
        assert np.array_equal(_bits(a), _bits(b))


def test_cli_build_kernels(cache, monkeypatch, capsys):
    from fluid_compat.cli import main

    monkeypatch.setenv(aot.CACHE_ENV, str(cache))
    assert main(["build-kernels"]) == 0
    assert "up to date" in capsys.readouterr().out
    monkeypatch.setitem(sys.modules, "numba.pycc", None)  # numba's compiler absent
    assert main(["build-kernels", "--force"]) == 2
    assert "numba" in capsys.readouterr().err


def test_cli_rebuilds_a_damaged_build(tmp_path, monkeypatch, capsys):
    from fluid_compat.cli import main

    monkeypatch.setenv(aot.CACHE_ENV, str(tmp_path))
    damaged = aot.module_path()
    damaged.write_bytes(b"\x7fELF cut short")
    monkeypatch.delitem(sys.modules, damaged.name.split(".")[0], raising=False)
    builds = []
    monkeypatch.setattr(aot, "build", lambda *a, **kw: builds.append(1) or damaged)
    assert main(["build-kernels"]) == 0
    assert builds and "built" in capsys.readouterr().out

    def broken(*args, **kwargs):
        raise OSError("gcc: not found")

    monkeypatch.setattr(aot, "build", broken)
    assert main(["build-kernels"]) == 1
    err = capsys.readouterr().err
    assert "gcc: not found" in err and f"build into {tmp_path} failed" in err
    blocker = tmp_path / "a file"
    blocker.write_text("")
    monkeypatch.setenv(aot.CACHE_ENV, str(blocker / "cache"))  # under a file: cannot be made
    assert main(["build-kernels"]) == 1
    assert (f"cannot write the build's directory {blocker / 'cache'}"
            in capsys.readouterr().err)


def test_a_process_with_the_build_never_imports_numba(cache):
    # every compiled path of the conv and pool kernels (Winograd, by-rows and whole-map
    # im2col, both depthwise loops, max pooling) and the row kernels (layer_norm, gelu,
    # softmax) runs on the build alone
    code = """import sys
from types import SimpleNamespace
import numpy as np
from phi.common.int_array import IntArray
from phi.kernels import conv, pool as pooling
from phi.kernels.funcs import jit
ctx, rng = SimpleNamespace(xp=np), np.random.default_rng(0)
x = rng.standard_normal((1, 8, 14, 14)).astype(np.float32)
conv.conv2d(ctx, x, rng.standard_normal((8, 8, 3, 3)).astype(np.float32), [1, 1], [1, 1],
            "EXPLICIT", [1, 1], 1, "NCHW")
conv.conv2d(ctx, x, rng.standard_normal((4, 8, 5, 5)).astype(np.float32), [2, 2], [2, 2],
            "EXPLICIT", [1, 1], 1, "NCHW")
stem = rng.standard_normal((1, 3, 224, 224)).astype(np.float32)
conv.conv2d(ctx, stem, rng.standard_normal((4, 3, 7, 7)).astype(np.float32), [2, 2], [3, 3],
            "EXPLICIT", [1, 1], 1, "NCHW")
for h in (14, 2):
    conv.depthwise_conv2d(ctx, x[:, :, :h, :h], rng.standard_normal((8, 1, 3, 3)).astype(
        np.float32), [1, 1], [1, 1], "EXPLICIT", 8, [1, 1], "NCHW")
pooling.pool2d(ctx, x, IntArray([3, 3]), [2, 2], [1, 1], False, True, "NCHW", "max", False,
               False, "EXPLICIT")
from phi.backends.cpu import CPUContext
from phi.common.place import CPUPlace
from phi.kernels import activation, layer_norm as normalization, softmax
cpu, rows = CPUContext(CPUPlace()), rng.standard_normal((4, 16)).astype(np.float32)
normalization.layer_norm(cpu, rows, rows[0], rows[1], 1e-5, 1)
activation.gelu(cpu, rows, False)
softmax.softmax(cpu, rows, -1)
print(type(jit.kernels()).__name__, 'numba' in sys.modules)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT,
                         env={**os.environ, aot.CACHE_ENV: str(cache)})
    assert out.stdout.split() == ["Loops", "False"]


def test_prune_keeps_the_newest_builds(tmp_path):
    import time

    paths = [aot.module_path(tmp_path, f"{i:020d}") for i in range(6)]
    for i, path in enumerate(paths):
        path.write_bytes(b"x")
        os.utime(path, (time.time() - 100 + i, time.time() - 100 + i))  # 5 is the newest
    other = tmp_path / "notes.txt"
    other.write_text("kept")
    deleted = aot.prune(tmp_path, keep=4)
    assert sorted(deleted) == sorted(paths[:2])
    assert all(p.exists() for p in paths[2:]) and other.exists()


def test_built_is_the_build_never_the_jit(built, monkeypatch):
    # the row kernels' loops (jit.built): the build kernels() found, or none when kernels()
    # settled on numba's JIT (no build matched), decided once
    monkeypatch.setattr(jit, "_STATE", {True: _jit_loops})
    assert jit.built() is None
    monkeypatch.setattr(jit, "_STATE", {True: built})  # decided: the JIT case stays None
    assert jit.built() is None
    monkeypatch.setattr(jit, "_BUILT", [])
    assert jit.built() is built
    set_flags({aot.FLAG: False})
    assert jit.built() is None
