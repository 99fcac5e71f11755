"""GPU (cupy) kernels agree with the numpy ones.  Skipped cleanly without cupy or a GPU."""

from __future__ import annotations

import numpy as np
import pytest

from phi import api
from phi.common import GPUPlace
from phi.core.errors import Unavailable
from phi.core.tensor import DenseTensor
from phi.transform import transform_place

cupy = pytest.importorskip("cupy")
try:
    if cupy.cuda.runtime.getDeviceCount() < 1:  # pragma: no cover - depends on the machine
        pytest.skip("no CUDA device", allow_module_level=True)
except Exception as exc:  # pragma: no cover - no driver
    pytest.skip(f"CUDA not usable: {exc}", allow_module_level=True)

GPU = GPUPlace(0)


def _gpu(a: np.ndarray) -> DenseTensor:
    return transform_place(DenseTensor.from_numpy(a), GPU)


@pytest.mark.parametrize("name, args", [
    ("add", 2), ("multiply", 2), ("matmul", 2), ("relu", 1), ("softmax", 1), ("exp", 1),
])
def test_gpu_matches_cpu(name, args):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((8, 8)).astype(np.float32) for _ in range(args)]
    fn = getattr(api, name)
    want = fn(*arrays).numpy()
    got = fn(*[_gpu(a) for a in arrays])
    assert got.place == GPU
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)


def test_gpu_context_errors_are_typed():
    with pytest.raises(Unavailable):
        transform_place(DenseTensor.from_numpy(np.ones(1, np.float32)), GPUPlace(1000))
