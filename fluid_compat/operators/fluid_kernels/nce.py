"""The fluid kernels of nce, nce_grad."""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import FLOATS, Mt19937_64, uniform_sampler, wanted
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument
from phi.kernels.funcs import quiet

__all__: list[str] = []


@register_fluid_kernel("nce_grad", "CPU", FLOATS)
class NceGradKernel(FluidKernel):
    """d logit of sample (i, j), o = SampleLogits, b = k * q(label): true labels
    b / (o + b) * (o - 1), negatives o (1 - o) / (o + b), both times SampleWeight[i] and
    Cost@GRAD[i]; then
    dBias[label] += g, dWeight[label] += g * x_i, dInput_i += g * weight[label]."""

    def compute(self, ctx) -> None:
        x, w = ctx.input_array("Input"), ctx.input_array("Weight")
        labels = ctx.input_array("SampleLabels").astype(np.int64)
        o = ctx.input_array("SampleLogits")
        dcost = ctx.input_array("Cost@GRAD").reshape(-1)
        n_true = ctx.input_array("Label").reshape(labels.shape[0], -1).shape[1]
        n_neg, n_classes = int(ctx.attr("num_neg_samples")), int(ctx.attr("num_total_classes"))
        prob, _ = _nce_probability(ctx, int(ctx.attr("sampler")), n_classes)
        t = x.dtype.type
        sw = (ctx.input_array("SampleWeight").reshape(-1) if ctx.has_input("SampleWeight")
              else np.ones(labels.shape[0], x.dtype))
        g = np.empty(labels.shape, x.dtype)
        with quiet(np):
            for i, j in np.ndindex(*labels.shape):
                b = t(prob(int(labels[i, j])) * np.float32(n_neg))
                v = o[i, j]
                g[i, j] = t(sw[i]) * ((b / (v + b)) * (v - t(1)) if j < n_true
                                      else v * (t(1) - v) / (v + b))
            g *= dcost[:, None]
        if wanted(ctx, "Bias@GRAD") and ctx.has_input("Bias"):
            db = np.zeros_like(ctx.input_array("Bias")).reshape(-1)
            np.add.at(db, labels.reshape(-1), g.reshape(-1))
            ctx.set_output("Bias@GRAD", db.reshape(ctx.input_array("Bias").shape))
        if wanted(ctx, "Weight@GRAD"):
            dw = np.zeros_like(w)
            np.add.at(dw, labels.reshape(-1), (g[:, :, None] * x[:, None, :]).reshape(-1,
                                                                                   w.shape[1]))
            ctx.set_output("Weight@GRAD", dw)
        if wanted(ctx, "Input@GRAD"):
            ctx.set_output("Input@GRAD", np.einsum("ij,ijk->ik", g, w[labels]).astype(x.dtype))


def _nce_probability(ctx, sampler: int, n_classes: int):
    """Sampler::Probability as float32 (uniform 1 / n, log-uniform log((v + 2) / (v + 1)) /
    log(n), custom_dist CustomDistProbs[v]) and Sample() on Paddle's mt19937_64 stream."""
    f = np.float32
    seed = int(ctx.attr("seed"))
    rng_range = n_classes - 1
    if sampler == 0:
        return (lambda v: f(1.0 / (rng_range + 1))), uniform_sampler(rng_range, seed)
    eng = Mt19937_64(seed)
    if sampler == 1:
        log_range = float(f(np.log(rng_range + 1.0)))  # LogUniformSampler keeps it as float
        return (lambda v: f(np.log((v + 2.0) / (v + 1.0)) / log_range)), \
            (lambda: (int(np.exp(eng.uniform_real() * log_range)) - 1) % rng_range)
    if sampler == 2:
        probs = ctx.input_array("CustomDistProbs").reshape(-1).astype(np.float32)
        alias = ctx.input_array("CustomDistAlias").reshape(-1).tolist()
        alias_p = ctx.input_array("CustomDistAliasProbs").reshape(-1).astype(np.float32)

        def draw() -> int:  # CustomSampler: alias method, -1 = no alias
            index = eng.uniform_int(rng_range)
            p = eng.uniform_real()
            if p > alias_p[index]:
                return int(alias[index]) if alias[index] != -1 else (index + 1) % rng_range
            return index

        return (lambda v: f(probs[v])), draw
    raise InvalidArgument(f"nce: Unsupported sampler type {sampler}: it must be 0 (uniform), "
                          f"1 (log_uniform) or 2 (custom_dist).")


@register_fluid_kernel("nce", "CPU", ("float32", "float64"))
class NceKernel(FluidKernel):
    """Noise-contrastive estimation: per row the true labels and num_neg_samples negatives
    (custom_neg_classes, else sampled), o = sigmoid(x . w[label] + b[label]) (SampleLogits) and
    Cost = weight * sum(-log(o / (o + k p)) for true, -log(k p / (o + k p)) for negatives)."""

    def compute(self, ctx) -> None:
        x, w = ctx.input_array("Input"), ctx.input_array("Weight")
        label = ctx.input_array("Label")
        label = label.reshape(label.shape[0], -1).astype(np.int64)
        n, n_true = label.shape
        n_neg, n_classes = int(ctx.attr("num_neg_samples")), int(ctx.attr("num_total_classes"))
        prob, draw = _nce_probability(ctx, int(ctx.attr("sampler")), n_classes)
        custom = [int(v) for v in (ctx.attr("custom_neg_classes")
                                   if ctx.has_attr("custom_neg_classes") else [])]
        labels = np.empty((n, n_true + n_neg), np.int64)
        labels[:, :n_true] = label
        for i in range(n):
            labels[i, n_true:] = custom[:n_neg] if custom else [draw() for _ in range(n_neg)]
        if labels.size and (labels.min() < 0 or labels.max() >= w.shape[0]):
            raise InvalidArgument(f"nce: sample labels must be in [0, {w.shape[0]}) (the rows "
                                  f"of Weight), got {labels.tolist()}.")
        t = x.dtype.type
        logits = np.zeros(labels.shape, x.dtype)
        if ctx.has_input("Bias"):
            logits += ctx.input_array("Bias").reshape(-1)[labels]
        logits += np.einsum("ik,ijk->ij", x, w[labels])
        logits = t(1) / (t(1) + np.exp(-logits))
        sw = ctx.input_array("SampleWeight").reshape(-1) if ctx.has_input("SampleWeight") \
            else np.ones(n, x.dtype)
        cost = np.zeros((n, 1), x.dtype)
        for i in range(n):
            acc = t(0)
            for j in range(labels.shape[1]):
                o = logits[i, j]
                b = t(prob(int(labels[i, j])) * np.float32(n_neg))
                acc += -np.log(o / (o + b)) if j < n_true else -np.log(b / (o + b))
            cost[i, 0] = acc * t(sw[i])
        ctx.set_output("Cost", cost)
        ctx.set_output("SampleLogits", logits)
        ctx.set_output("SampleLabels", labels)

