"""The fluid kernels of tdm_sampler."""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import uniform_sampler
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument

__all__: list[str] = []


@register_fluid_kernel("tdm_sampler", "CPU", ("float32", "float64", "int32", "int64"))
class TdmSamplerKernel(FluidKernel):
    """Per input id and tree layer: the positive node of its Travel row (label 1, when
    output_positive) then neg_samples_num_list[layer] distinct other nodes of that layer
    (label 0), drawn by Paddle's UniformSampler per layer; a 0 in Travel (padding) gives zeros
    with mask 0."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("X").reshape(-1)
        travel, layer = ctx.input_array("Travel"), ctx.input_array("Layer").reshape(-1)
        for slot, a in (("X", x), ("Travel", travel), ("Layer", layer)):
            if a.dtype.kind not in "iu":
                raise InvalidArgument(f"tdm_sampler: Input({slot}) holds the wrong type, it "
                                      f"holds {a.dtype}, but desires to be int32 or int64.")
        if travel.dtype != layer.dtype:
            raise InvalidArgument(f"tdm_sampler: Input(Travel) must holds the same type with "
                                  f"Input(Layer), but Travel holds {travel.dtype}, and Layer "
                                  f"holds {layer.dtype}.")
        negs = [int(v) for v in ctx.attr("neg_samples_num_list")]
        offs = [int(v) for v in ctx.attr("layer_offset_lod")]
        pos_out = bool(ctx.attr("output_positive"))
        dt = {2: np.int32, 3: np.int64}.get(int(ctx.attr("dtype")))
        if dt is None or len(offs) != len(negs) + 1 or travel.ndim != 2 or \
                travel.shape[1] < len(negs) or (offs and offs[-1] > layer.size):
            raise InvalidArgument(f"tdm_sampler: dtype {ctx.attr('dtype')} (int32 2 / int64 3), "
                                  f"layer_offset_lod {offs}, neg_samples_num_list {negs}, "
                                  f"Travel {list(travel.shape)} and Layer [{layer.size}] "
                                  f"disagree.")
        width = sum(n + pos_out for n in negs)
        out, lab = np.zeros((x.size, width), dt), np.zeros((x.size, width), dt)
        mask = np.ones((x.size, width), dt)
        samplers = [uniform_sampler(offs[li + 1] - offs[li] - 1, int(ctx.attr("seed")))
                    for li in range(len(negs))]
        for i, item in enumerate(x.tolist()):
            if not 0 <= item < travel.shape[0]:
                raise InvalidArgument(f"tdm_sampler: Variable value (input) of OP(tdm_sampler) "
                                      f"expected >= 0 and < {travel.shape[0]}, but got {item}.")
            col = 0
            for li, n in enumerate(negs):
                lo, hi = offs[li], offs[li + 1]
                if n > hi - lo - 1:
                    raise InvalidArgument(f"tdm_sampler: Neg sample nums id of OP(tdm_sampler) "
                                          f"at layer {li} expected <= {hi - lo} - 1 (positive "
                                          f"included), but got {n}.")
                positive = int(travel[item, li])
                k = n + pos_out
                if positive == 0:  # padding
                    mask[i, col:col + k] = 0
                    col += k
                    continue
                if pos_out:
                    out[i, col], lab[i, col] = positive, 1
                    col += 1
                picked: list[int] = []
                for _ in range(n):  # redraw the positive and repeats, as Paddle does
                    j = samplers[li]()
                    while int(layer[lo + j]) == positive or j in picked:
                        j = samplers[li]()
                    picked.append(j)
                    out[i, col] = layer[lo + j]
                    col += 1
        ctx.set_output("Out", out)
        ctx.set_output("Labels", lab)
        ctx.set_output("Mask", mask)

