"""Helpers shared by the fused sequence kernels (fusion_gru, fusion_seqconv_eltadd_relu,
fusion_seqexpand_concat_fc): their activations and LoD offsets."""

from __future__ import annotations


import numpy as np

from phi.core.errors import InvalidArgument
from phi.core.kernel import LoDTensor

__all__ = ["jit_act", "seq_offsets"]


# ---- the LoD fusion ops ------------------------------------------------------------------------

def _jit_sigmoid(v):
    t = v.dtype.type
    return t(1) / (t(1) + np.exp(-np.clip(v, t(-40), t(13))))


# Paddle's CPU vector activations (jit refer / VecActivations): sigmoid clips its input to
# [-40, 13], tanh is 2 * sigmoid(2x) - 1
def _jit_tanh(v):
    t = v.dtype.type
    return t(2) * _jit_sigmoid(t(2) * v) - t(1)


_JIT_ACTS = {"sigmoid": _jit_sigmoid, "tanh": _jit_tanh,
             "relu": lambda v: np.maximum(v, v.dtype.type(0)), "identity": lambda v: v}


def jit_act(op: str, name: str):
    if name not in _JIT_ACTS:
        raise InvalidArgument(f"{op}: activation {name!r} is not one of {sorted(_JIT_ACTS)}.")
    return _JIT_ACTS[name]


def seq_offsets(op: str, t: LoDTensor, slot: str) -> list[int]:
    if len(t.lod) != 1:
        raise InvalidArgument(f"{op}: Only support input lod size is 1, but received value is: "
                              f"{len(t.lod)} (input {slot}).")
    return [int(v) for v in t.lod[0]]
