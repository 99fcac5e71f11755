"""Kernel selection: every step of semantics.md's order, fallback on/off, and the error texts.

A private KernelFactory per test holds exactly the keys that force the step under test.
"""

from __future__ import annotations

import pytest

from phi import flags
from phi.common import Backend, CustomPlace, DataLayout, DataType
from phi.core.errors import AlreadyExists, InvalidArgument, NotFound
from phi.core.kernel import Tensor
from phi.core.kernel_key import KernelKey
from phi.core.registry import KernelFactory, register_kernel

A = DataLayout.ALL_LAYOUT
NCHW = DataLayout.NCHW
NHWC = DataLayout.NHWC
F32 = DataType.FLOAT32
F64 = DataType.FLOAT64
DEVICE1 = CustomPlace("device1", 0).backend


def _fn(ctx, x: Tensor) -> Tensor:
    return x


def make_factory(*keys: tuple) -> KernelFactory:
    """A factory with kernel `k` registered under each (backend, layout, dtype)."""
    factory = KernelFactory()
    for backend, layout, dtype in keys:
        register_kernel("k", backend, [dtype], layout, factory=factory)(_fn)
    return factory


@pytest.fixture(autouse=True)
def _fallback_flag_restored():
    saved = flags.get_flags("FLAGS_enable_api_kernel_fallback")
    yield
    flags.set_flags(saved)


# (registered keys, requested key, expected chosen key, expected step, fell back)
SELECTION_CASES = [
    pytest.param(
        [(Backend.GPUDNN, NCHW, F32), (Backend.GPUDNN, A, F32), (Backend.GPU, NCHW, F32)],
        KernelKey(Backend.GPUDNN, NCHW, F32), KernelKey(Backend.GPUDNN, NCHW, F32), "1", False,
        id="1-gpudnn-layout",
    ),
    pytest.param(
        [(Backend.GPUDNN, A, F32), (Backend.GPU, NCHW, F32)],
        KernelKey(Backend.GPUDNN, NCHW, F32), KernelKey(Backend.GPUDNN, A, F32), "2", False,
        id="2-gpudnn-all-layout",
    ),
    pytest.param(
        [(Backend.GPU, NCHW, F32), (Backend.GPU, A, F32)],
        KernelKey(Backend.GPUDNN, NCHW, F32), KernelKey(Backend.GPU, NCHW, F32), "3", False,
        id="3-gpudnn-key-falls-to-gpu",
    ),
    pytest.param(
        [(Backend.GPUDNN, A, F32), (Backend.GPU, A, F32)],
        KernelKey(Backend.GPU, NCHW, F32), KernelKey(Backend.GPU, A, F32), "4", False,
        id="4-plain-gpu-key-skips-cudnn",
    ),
    pytest.param(
        [(Backend.CPU, NHWC, F32), (Backend.CPU, A, F32)],
        KernelKey(Backend.CPU, NHWC, F32), KernelKey(Backend.CPU, NHWC, F32), "3", False,
        id="3-layout-specific-wins",
    ),
    pytest.param(
        [(Backend.CPU, NHWC, F32), (Backend.CPU, A, F32)],
        KernelKey(Backend.CPU, NCHW, F32), KernelKey(Backend.CPU, A, F32), "4", False,
        id="4-all-layout",
    ),
    pytest.param(
        [(Backend.CUSTOM, A, F32), (Backend.CPU, A, F32)],
        KernelKey(DEVICE1, NCHW, F32), KernelKey(Backend.CUSTOM, A, F32), "4b", False,
        id="4b-custom-wildcard",
    ),
    pytest.param(
        [(DEVICE1, A, F32), (Backend.CUSTOM, A, F32)],
        KernelKey(DEVICE1, NCHW, F32), KernelKey(DEVICE1, A, F32), "4", False,
        id="4-own-custom-backend-before-wildcard",
    ),
    pytest.param(
        [(Backend.CPU, NCHW, F32), (Backend.CPU, A, F32)],
        KernelKey(Backend.GPU, NCHW, F32), KernelKey(Backend.CPU, NCHW, F32), "5", True,
        id="5-cpu-layout-fallback",
    ),
    pytest.param(
        [(Backend.CPU, A, F32)],
        KernelKey(DEVICE1, NCHW, F32), KernelKey(Backend.CPU, A, F32), "6", True,
        id="6-cpu-all-layout-fallback",
    ),
]


@pytest.mark.parametrize("registered, asked, chosen, step, fell_back", SELECTION_CASES)
def test_selection_order(registered, asked, chosen, step, fell_back):
    factory = make_factory(*registered)
    result = factory.select_kernel_or_raise("k", asked)
    assert result.kernel.key == chosen
    assert result.has_fallback_cpu is fell_back
    assert result.steps[-1].step == step and result.steps[-1].found
    assert all(not s.found for s in result.steps[:-1])
    assert result.requested == asked


def test_steps_record_every_attempt_in_order():
    factory = make_factory((Backend.CPU, A, F32))
    result = factory.select_kernel_or_raise("k", KernelKey(Backend.GPUDNN, NCHW, F32))
    assert [(s.step, s.key) for s in result.steps] == [
        ("1", KernelKey(Backend.GPUDNN, NCHW, F32)),
        ("2", KernelKey(Backend.GPUDNN, A, F32)),
        ("3", KernelKey(Backend.GPU, NCHW, F32)),
        ("4", KernelKey(Backend.GPU, A, F32)),
        ("5", KernelKey(Backend.CPU, NCHW, F32)),
        ("6", KernelKey(Backend.CPU, A, F32)),
    ]
    assert str(result.steps[0]) == "step 1: (GPUDNN, NCHW, float32) -> not registered"


def test_fallback_disabled_raises_and_names_the_flag():
    factory = make_factory((Backend.CPU, A, F32))
    flags.set_flags({"FLAGS_enable_api_kernel_fallback": False})
    with pytest.raises(NotFound) as info:
        factory.select_kernel_or_raise("k", KernelKey(Backend.GPU, NCHW, F32))
    text = str(info.value)
    assert text.startswith("(NotFound) The kernel with key (GPU, NCHW, float32) of kernel `k`")
    assert "FLAGS_enable_api_kernel_fallback" in text
    assert "Selected wrong Backend `GPU`. Paddle support following Backends: CPU." in text
    assert "(CPU, Undefined(AnyLayout), float32)" in text
    # turning it back on selects the CPU kernel: the flag is part of the cached decision
    flags.set_flags({"FLAGS_enable_api_kernel_fallback": True})
    assert factory.select_kernel_or_raise("k", KernelKey(Backend.GPU, NCHW, F32)).has_fallback_cpu


def test_cpu_key_never_falls_back_and_hints_wrong_dtype():
    factory = make_factory((Backend.CPU, A, F32), (Backend.CPU, A, F64))
    with pytest.raises(NotFound) as info:
        factory.select_kernel_or_raise("k", KernelKey(Backend.CPU, NCHW, DataType.INT32))
    text = str(info.value)
    assert "key (CPU, NCHW, int32) of kernel `k` is not registered." in text
    assert "Selected wrong DataType `int32`. Paddle support following DataTypes: float32, " \
           "float64." in text
    assert "Registered keys of `k`: (CPU, Undefined(AnyLayout), float32), " \
           "(CPU, Undefined(AnyLayout), float64)." in text


def test_fallback_that_finds_nothing_says_so():
    factory = make_factory((Backend.GPU, A, F64))
    with pytest.raises(NotFound) as info:
        factory.select_kernel_or_raise("k", KernelKey(Backend.GPU, A, F32))
    text = str(info.value)
    assert "is not registered and fail to fallback to CPU one." in text
    assert "Selected wrong DataType `float32`" in text


def test_unknown_kernel_name_lists_closest_names():
    factory = make_factory((Backend.CPU, A, F32))
    register_kernel("kk", "CPU", ["float32"], factory=factory)(_fn)
    with pytest.raises(NotFound) as info:
        factory.select_kernel_or_raise("kx", KernelKey(Backend.CPU, A, F32))
    assert "The kernel `kx` is not registered. Closest registered names: k" in str(info.value)


def test_registering_a_key_twice_raises_and_keeps_the_first():
    factory = make_factory((Backend.CPU, A, F32))
    first = factory.kernels_of("k")[KernelKey(Backend.CPU, A, F32)]

    def other(ctx, x: Tensor) -> Tensor:
        return x

    with pytest.raises(AlreadyExists, match=r"`k` with key \(CPU, Undefined\(AnyLayout\), "
                                            r"float32\) is already registered"):
        register_kernel("k", "CPU", ["float64", "float32"], factory=factory)(other)
    kernels = factory.kernels_of("k")
    assert kernels[KernelKey(Backend.CPU, A, F32)] is first
    # all-or-nothing: float64, listed first, was not registered either
    assert KernelKey(Backend.CPU, A, F64) not in kernels


def test_registration_invalidates_cached_selection():
    factory = make_factory((Backend.CPU, A, F32))
    asked = KernelKey(Backend.GPU, A, F32)
    assert factory.select_kernel_or_raise("k", asked).has_fallback_cpu
    register_kernel("k", "GPU", ["float32"], factory=factory)(_fn)
    result = factory.select_kernel_or_raise("k", asked)
    assert not result.has_fallback_cpu and result.kernel.key == asked


def test_static_select_kernel_has_no_fallback():
    factory = make_factory((Backend.CPU, A, F32), (Backend.CUSTOM, A, F32))
    assert factory.select_kernel("k", KernelKey(Backend.GPU, A, F32)) is None
    assert factory.select_kernel("k", KernelKey(Backend.CPU, NCHW, F32)).key.backend is Backend.CPU
    assert factory.select_kernel("k", KernelKey(DEVICE1, NCHW, F32)).key.backend is Backend.CUSTOM
    assert factory.select_kernel("nope", KernelKey(Backend.CPU, A, F32)) is None


def test_registration_rejects_bad_definitions():
    factory = KernelFactory()

    def attr_before_input(ctx, axis: int, x: Tensor) -> Tensor:
        return x

    with pytest.raises(InvalidArgument, match="comes after attributes"):
        register_kernel("bad", "CPU", ["float32"], factory=factory)(attr_before_input)

    def unknown_type(ctx, x: Tensor, y: dict) -> Tensor:
        return x

    with pytest.raises(InvalidArgument, match="Unsupported kernel argument type"):
        register_kernel("bad", "CPU", ["float32"], factory=factory)(unknown_type)

    with pytest.raises(InvalidArgument, match="not an input"):
        register_kernel("bad", "CPU", ["float32"], input_defs={"y": {}}, factory=factory)(_fn)
    assert not factory.has_kernel("bad")
