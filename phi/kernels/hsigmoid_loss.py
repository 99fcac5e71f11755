"""The ``hsigmoid_loss`` and ``hsigmoid_loss_grad`` kernels."""

from __future__ import annotations


import numpy as np

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import quiet

__all__ = ["hsigmoid_loss"]


_ANY = {"dtype": DataType.ALL_DTYPE}


# ---- hsigmoid_loss ---------------------------------------------------------------------------

def _bit_codes(label, num_classes: int, path, code) -> list[list[tuple[int, int]]]:
    """MatrixBitCodeFunctor: per sample, (weight row, bit) of each node on its path (SimpleCode:
    the heap path of label + num_classes; CustomCode: the sample's PathTable / PathCode row up
    to its first negative entry)."""
    out = []
    for i, c in enumerate(label.tolist()):
        if path is None:
            v = int(c) + num_classes
            out.append([((v >> (j + 1)) - 1, (v >> j) & 1) for j in range(v.bit_length() - 1)])
        else:
            row = []
            for idx, bit in zip(path[i].tolist(), code[i].tolist(), strict=True):
                if idx < 0:
                    break
                row.append((int(idx), int(bit)))
            out.append(row)
    return out


_HS_ANY = {n: _ANY for n in ("label", "path", "code")}


@register_kernel("hsigmoid_loss", "CPU", dtypes=["float32", "float64"], input_defs=_HS_ANY)
def hsigmoid_loss(ctx, x: Tensor, label: Tensor, w: Tensor, bias: Tensor | None,
                  path: Tensor | None, code: Tensor | None, num_classes: int, is_sparse: bool
                  ) -> tuple[Tensor, Tensor, Tensor]:
    """Hierarchical sigmoid loss; PreOut holds softrelu(clip(w x + b, -40, 40)) with 0 before
    the softrelu past each path's end, whose log(2) Paddle keeps in the loss."""
    n = x.shape[0]
    width = path.shape[1] if path is not None else (num_classes - 1).bit_length()
    if np.size(label) != n:
        raise InvalidArgument(f"hsigmoid_loss: Label must hold one class per row of X ({n}), "
                              f"got {np.size(label)}.")
    codes = _bit_codes(np.asarray(label).reshape(-1), num_classes, path, code)
    t = x.dtype.type
    pre = np.zeros((n, width), x.dtype)
    for i, row in enumerate(codes):
        for j, (idx, _) in enumerate(row):
            if not 0 <= idx < w.shape[0]:
                raise InvalidArgument(f"hsigmoid_loss: the path node {idx} of sample {i} is "
                                      f"out of W's {w.shape[0]} rows.")
            if bias is not None and idx >= bias.size:
                raise InvalidArgument(f"hsigmoid_loss: the path node {idx} of sample {i} is "
                                      f"out of Bias's {bias.size} values.")
            v = t(0) if bias is None else bias.reshape(-1)[idx]
            pre[i, j] = v + w[idx] @ x[i]
    pre = np.clip(pre, t(-40), t(40))
    out = np.array([[-sum(pre[i, j] for j, (_, bit) in enumerate(row) if bit)]
                    for i, row in enumerate(codes)], x.dtype).reshape(n, 1)
    pre = np.log(t(1) + np.exp(pre))
    out = pre.sum(axis=1, keepdims=True) + out
    return out, pre, None


# -- hierarchical sigmoid ---------------------------------------------------------------------

@register_kernel("hsigmoid_loss_grad", "CPU", dtypes=["float32", "float64"],
                 input_defs={"label": _ANY, "path": _ANY, "code": _ANY})
def hsigmoid_loss_grad(ctx, x: Tensor, w: Tensor, label: Tensor, path: Tensor | None,
                       code: Tensor | None, bias: Tensor | None, pre_out: Tensor,
                       out_grad: Tensor, num_classes: int, is_sparse: bool
                       ) -> tuple[Tensor, Tensor, Tensor]:
    """g[i, j] = (sigmoid from PreOut: 1 - 1 / exp(pre_out) - bit j of sample i's code) *
    dOut[i] along each sample's path; dX[i] += g w[node], dW[node] += g x[i], dBias[node] +=
    g (the clip of the forward is not differentiated, as in Paddle)."""
    x, w = np.asarray(x), np.asarray(w)
    t = x.dtype.type
    codes = _bit_codes(np.asarray(label).reshape(-1), num_classes, path, code)
    pre = np.asarray(pre_out)
    bits = np.zeros_like(pre)
    for i, row in enumerate(codes):
        for j, (_, bit) in enumerate(row):
            bits[i, j] = bit
    with quiet(np):
        g = (t(1) - t(1) / np.exp(pre) - bits) * np.asarray(out_grad).reshape(-1, 1)
    dx, dw = np.zeros_like(x), np.zeros_like(w)
    db = None if bias is None else np.zeros_like(np.asarray(bias)).reshape(-1)
    for i, row in enumerate(codes):
        for j, (idx, _) in enumerate(row):
            dx[i] += g[i, j] * w[idx]
            dw[idx] += g[i, j] * x[i]
            if db is not None:
                db[idx] += g[i, j]
    return dx, dw, None if db is None else db.reshape(np.shape(bias))
