"""The ``class_center_sample`` kernel."""

from __future__ import annotations


import numpy as np

from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs.cpu_random import engine_for, uniform_int

__all__ = ["class_center_sample"]


@register_kernel("class_center_sample", "CPU", dtypes=["int32", "int64"])
def class_center_sample(ctx, label: Tensor, num_classes: int, num_samples: int, ring_id: int,
                        rank: int, nranks: int, fix_seed: bool, seed: int
                        ) -> tuple[Tensor, Tensor]:
    """(remapped label, sampled class centers): the positive classes (sorted) first, then
    random negative classes up to ``num_samples``; labels renumbered into that list."""
    flat = label.reshape(-1)
    if flat.size and (flat.min() < 0 or flat.max() >= num_classes):
        raise InvalidArgument(f"class_center_sample: labels must be in [0, {num_classes}), got "
                              f"[{flat.min()}, {flat.max()}].")
    positive = np.unique(flat)
    sampled = list(positive)
    if len(positive) < num_samples:
        negative = np.setdiff1d(np.arange(num_classes), positive)
        engine = engine_for(seed if fix_seed else 0)
        for i in range(negative.size - 1, 0, -1):
            j = int(uniform_int(engine, 1, 0, i)[0])
            negative[i], negative[j] = negative[j], negative[i]
        sampled += list(negative[:num_samples - len(positive)])
    index = {int(c): i for i, c in enumerate(sampled)}
    remapped = np.array([index[int(v)] for v in flat], label.dtype).reshape(label.shape)
    return remapped, np.array(sampled, label.dtype)
