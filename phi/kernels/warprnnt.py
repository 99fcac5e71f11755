"""The RNN-T loss of Paddle 2.6.2's warprnnt op on CPU (paddle/phi/kernels/impl/
warprnnt_kernel_impl.h over the vendored warp-transducer, CPU path, batch_first).

On CPU the activations are taken as log-probabilities as they come (paddle.nn.functional.
rnnt_loss applies log_softmax before the op on CPU): loss = -log P(label | input) summed over
the alignment lattice, and warprnntgrad = d loss / d input, non-zero only on the blank and
the next-label entries of the lattice (the label entries scaled by 1 + fastemit_lambda)."""

from __future__ import annotations


import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import quiet

__all__ = ["warprnnt"]


def _check(input, label, input_lengths, label_lengths) -> None:
    for what, t, rank in (("Logits", input, 4), ("Label", label, 2),
                          ("LogitsLength", input_lengths, 1), ("LabelLength", label_lengths, 1)):
        if t.ndim != rank:
            raise InvalidArgument(f"warprnnt: The rank of Input({what}) should be {rank} but "
                                  f"received {t.ndim}. ")
    for i, name in enumerate(("B", "T", "U", "D")):
        if input.shape[i] <= 0:
            raise InvalidArgument(f"warprnnt: dimension {i} of Input(Logits) is {name} should "
                                  f"be greater than zero but received {input.shape[i]}. ")
    for what, t in (("Label", label), ("LogitsLength", input_lengths),
                    ("LabelLength", label_lengths)):
        if t.dtype != np.int32:  # the kernel reads them as int
            raise InvalidArgument(f"warprnnt: Input({what}) must be int32, but received "
                                  f"{t.dtype}.")


def _one(lp, labels, t_len: int, u_len: int, blank: int, fastemit: float, grad) -> float:
    """-log P for one sequence (lp: [T, U, D] log-probabilities); fills grad[:t_len, :u_len]."""
    blank_lp = lp[:t_len, :u_len, blank]
    label_lp = lp[np.arange(t_len)[:, None], np.arange(u_len - 1)[None, :], labels[:u_len - 1]] \
        if u_len > 1 else np.zeros((t_len, 0))
    alpha = np.full((t_len, u_len), -np.inf)
    beta = np.full((t_len, u_len), -np.inf)
    for t in range(t_len):
        for u in range(u_len):
            if t == 0 and u == 0:
                alpha[t, u] = 0.0
                continue
            a = alpha[t - 1, u] + blank_lp[t - 1, u] if t else -np.inf
            b = alpha[t, u - 1] + label_lp[t, u - 1] if u else -np.inf
            alpha[t, u] = np.logaddexp(a, b)
    for t in range(t_len - 1, -1, -1):
        for u in range(u_len - 1, -1, -1):
            if t == t_len - 1 and u == u_len - 1:
                beta[t, u] = blank_lp[t, u]
                continue
            a = beta[t + 1, u] + blank_lp[t, u] if t < t_len - 1 else -np.inf
            b = beta[t, u + 1] + label_lp[t, u] if u < u_len - 1 else -np.inf
            beta[t, u] = np.logaddexp(a, b)
    loglike = alpha[-1, -1] + blank_lp[-1, -1]
    # blank: the arc (t, u) -> (t + 1, u), the last one ending the lattice
    nxt = np.concatenate([beta[1:], np.zeros((1, u_len))], axis=0)
    nxt[-1, :-1] = -np.inf
    grad[:t_len, :u_len, blank] = -np.exp(alpha + blank_lp + nxt - loglike)
    if u_len > 1:
        g = -(1.0 + fastemit) * np.exp(alpha[:, :-1] + label_lp + beta[:, 1:] - loglike)
        grad[np.arange(t_len)[:, None], np.arange(u_len - 1)[None, :], labels[:u_len - 1]] = g
    return -loglike


# the labels and lengths are int32 whatever the kernel's dtype (read as int, never cast)
_INT_ARGS = {n: {"dtype": DataType.ALL_DTYPE} for n in ("label", "input_lengths",
                                                          "label_lengths")}


@register_kernel("warprnnt", "CPU", dtypes=["float32", "float64"], input_defs=_INT_ARGS)
def warprnnt(ctx, input: Tensor, label: Tensor, input_lengths: Tensor, label_lengths: Tensor,
             blank: int, fastemit_lambda: float) -> tuple[Tensor, Tensor]:
    """RNN-T loss [B] and its gradient (input's dims), computed in float64."""
    _check(input, label, input_lengths, label_lengths)
    b, t_max, u_max, d = input.shape
    if not 0 <= blank < d:
        raise InvalidArgument(f"warprnnt: blank ({blank}) must be in [0, {d}).")
    acts = np.asarray(input, np.float64)
    grad = np.zeros(acts.shape, np.float64)
    loss = np.zeros((b,), np.float64)
    for i in range(b):
        t_len, u_len = int(input_lengths[i]), int(label_lengths[i]) + 1
        if not (0 < t_len <= t_max and 0 < u_len <= u_max and u_len - 1 <= label.shape[1]):
            raise InvalidArgument(
                f"warprnnt: sequence {i} has input length {t_len} and label length "
                f"{u_len - 1}; they must fit Input(Logits) [{b}, {t_max}, {u_max}, {d}] "
                f"(T >= input length > 0, U > label length).")
        labels = np.asarray(label[i], np.int64)
        if np.any((labels[:u_len - 1] < 0) | (labels[:u_len - 1] >= d)):
            raise InvalidArgument(f"warprnnt: the labels of sequence {i} must be in [0, {d}).")
        loss[i] = _one(acts[i], labels, t_len, u_len, blank, float(fastemit_lambda), grad[i])
    dtype = input.dtype
    return ctx.xp.asarray(loss.astype(dtype)), ctx.xp.asarray(grad.astype(dtype))


_ANY = {"dtype": DataType.ALL_DTYPE}


@register_kernel("warprnnt_grad", "CPU", dtypes=["float32", "float64"],
                 input_defs={"input_lengths": _ANY})
def warprnnt_grad(ctx, input: Tensor, input_lengths: Tensor, warprnntgrad: Tensor,
                  loss_grad: Tensor, blank: int, fastemit_lambda: float) -> Tensor:
    """warprnntgrad ([B, T, U, D]) times each sample's loss@GRAD."""
    g = np.asarray(warprnntgrad)
    with quiet(np):
        return (g * np.asarray(loss_grad).reshape(-1, 1, 1, 1)).astype(g.dtype)
