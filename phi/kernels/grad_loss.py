"""Grad kernels of the softmax / loss / dropout family (issue 13): softmax, log_softmax,
cross_entropy_with_softmax, sigmoid_cross_entropy_with_logits, bce_loss, nll_loss, kldiv_loss,
huber_loss, log_loss, label_smooth, identity_loss, dropout(_nd), fused_softmax_mask and
gumbel_softmax (Paddle 2.6.2's paddle/phi/kernels/cpu/*_grad_kernel.cc and impl/ of the same
names).  Each computes in its input dtype as Paddle's Eigen expressions do."""

from __future__ import annotations

import numpy as np

from phi.common.data_type import DataType
from phi.common.scalar import Scalar
from phi.core.kernel import Tensor
from phi.core.registry import register_kernel
from phi.kernels.funcs import as_array, bf16_op, quiet

__all__: list[str] = []

# Paddle 2.6.2 CPU registrations of the grad kernels (corpus phi_kernels.json)
FLOATS = ["float32", "float64"]
F32 = ["float32"]
DROPOUT_GRAD_DTYPES = ["bfloat16", "float32", "float64"]
_ANY = {"dtype": DataType.ALL_DTYPE}  # labels and masks keep their own dtypes


def _axis(axis: int, ndim: int) -> int:
    return axis + ndim if axis < 0 else axis


def _softmax_backward(xp, out, dout, axis: int):
    """out * (dout - sum(dout * out)) along ``axis`` (SoftmaxGrad / fused_softmax_mask_grad)."""
    with quiet(xp):
        return as_array(xp, out * (dout - xp.sum(dout * out, axis=axis, keepdims=True)))


@register_kernel("gumbel_softmax_grad", ("CPU", "GPU"), dtypes=FLOATS)
@register_kernel("softmax_grad", ("CPU", "GPU"), dtypes=FLOATS)
def softmax_grad(ctx, out: Tensor, out_grad: Tensor, axis: int) -> Tensor:
    """out * (dout - sum(dout * out, axis)); a 0-D softmax (constant 1) has gradient 0.  Also
    gumbel_softmax_grad: the softmax gradient of Out (with ``hard``, Out is the one-hot
    sample)."""
    xp = ctx.xp
    if out.ndim == 0:
        return xp.zeros_like(out)
    return _softmax_backward(xp, out, out_grad, _axis(axis, out.ndim))


@register_kernel("fused_softmax_mask_grad", ("CPU", "GPU"), dtypes=FLOATS)
def fused_softmax_mask_grad(ctx, softmax: Tensor, out_grad: Tensor) -> Tensor:
    """The softmax gradient along the last axis (the mask is a constant addend)."""
    return _softmax_backward(ctx.xp, softmax, out_grad, softmax.ndim - 1)


@register_kernel("log_softmax_grad", ("CPU", "GPU"), dtypes=FLOATS)
def log_softmax_grad(ctx, out: Tensor, out_grad: Tensor, axis: int) -> Tensor:
    """dout - exp(out) * sum(dout, axis); 0-D gives 0."""
    xp = ctx.xp
    if out.ndim == 0:
        return xp.zeros_like(out)
    with quiet(xp):
        total = xp.sum(out_grad, axis=_axis(axis, out.ndim), keepdims=True)
        return as_array(xp, out_grad - xp.exp(out) * total)


@register_kernel("cross_entropy_with_softmax_grad", ("CPU", "GPU"), dtypes=FLOATS,
                 input_defs={"label": _ANY})
def cross_entropy_with_softmax_grad(ctx, label: Tensor, softmax: Tensor, loss_grad: Tensor,
                                    soft_label: bool, use_softmax: bool,
                                    numeric_stable_mode: bool, ignore_index: int,
                                    axis: int) -> Tensor:
    """use_softmax: (softmax - label) * dloss (hard labels: -1 at the label's class, 0 for
    ``ignore_index``); without it Softmax holds the probabilities themselves and the gradient
    is -label / p * dloss (hard: only at the label's class)."""
    xp = ctx.xp
    if softmax.size == 0:
        return xp.zeros_like(softmax)
    axis = _axis(axis, softmax.ndim)
    t = softmax.dtype.type
    dloss = loss_grad.reshape(label.shape) if loss_grad.size == label.size else loss_grad
    with quiet(xp):
        if soft_label:
            if use_softmax:
                return as_array(xp, dloss * (softmax - label))
            return as_array(xp, dloss * (-label / softmax))
        lbl = label.astype(xp.int64)
        ignored = lbl == ignore_index
        onehot = xp.arange(softmax.shape[axis]).reshape(
            [-1 if d == axis else 1 for d in range(softmax.ndim)]) == lbl
        if use_softmax:
            grad = softmax * dloss - xp.where(onehot, dloss, t(0))
        else:
            grad = xp.where(onehot, (t(-1) / softmax) * dloss, t(0))
        return as_array(xp, xp.where(ignored, t(0), grad))


@register_kernel("sigmoid_cross_entropy_with_logits_grad", ("CPU", "GPU"), dtypes=FLOATS)
def sigmoid_cross_entropy_with_logits_grad(ctx, x: Tensor, label: Tensor,
                                           pos_weight: Tensor | None, out_grad: Tensor,
                                           normalize: bool, ignore_index: int) -> Tensor:
    """dout * (sigmoid(x) - label) in Paddle's stable form (with pos_weight: sigmoid(x) *
    pos_weight - label), 0 where int(label) is ``ignore_index``; ``normalize`` divides by the
    count of other labels (at least 1e-5, kept in an int: 0 labels divide by 0)."""
    xp = ctx.xp
    t = x.dtype.type
    with quiet(xp):
        if pos_weight is None:
            e_x = xp.exp(-xp.abs(x))
            sign = xp.where(x >= 0, t(1), t(-1))
            diff = xp.where(x > 0, t(1), t(0)) - label + (-e_x * sign) / (t(1) + e_x)
        else:  # Paddle 2.6.2: sigmoid(x) * pos_weight - label (not the forward's derivative)
            diff = t(1) / (t(1) + xp.exp(-x)) * pos_weight - label
        dx = xp.where(xp.trunc(label) == ignore_index, t(0), out_grad * diff)
        if normalize:
            d = label - t(ignore_index)
            norm = int(xp.sum((d < t(-1e-6)) | (d > t(1e-6))))
            dx = dx / t(norm)
    return as_array(xp, dx)


@register_kernel("bce_loss_grad", ("CPU", "GPU"), dtypes=FLOATS)
def bce_loss_grad(ctx, input: Tensor, label: Tensor, out_grad: Tensor) -> Tensor:
    """dout * (x - label) / max((1 - x) * x, 1e-12)."""
    xp = ctx.xp
    t = input.dtype.type
    with quiet(xp):
        return as_array(xp, out_grad * (input - label)
                        / xp.maximum((t(1) - input) * input, t(1e-12)))


@register_kernel("nll_loss_grad", ("CPU", "GPU"), dtypes=FLOATS, input_defs={"label": _ANY})
def nll_loss_grad(ctx, input: Tensor, label: Tensor, weight: Tensor | None,
                  total_weight: Tensor, out_grad: Tensor, ignore_index: int,
                  reduction: str) -> Tensor:
    """-w[label] * dout at each sample's label class (0 for ``ignore_index``), dout per sample
    for "none", divided by the total weight for "mean"."""
    xp = ctx.xp
    t = input.dtype.type
    c = input.shape[1] if input.ndim > 1 else input.shape[0]
    lbl = label.astype(xp.int64)
    ignored = lbl == ignore_index
    safe = xp.where(ignored, 0, lbl)
    w = xp.ones((c,), dtype=input.dtype) if weight is None else weight
    with quiet(xp):
        g = -w[safe] * (out_grad if reduction == "none" else out_grad.reshape(()))
        if reduction == "mean":
            g = g / total_weight.reshape(())
        g = xp.where(ignored, t(0), g)
    dx = xp.zeros_like(input)
    if input.ndim == 1:
        dx[safe] = g
        return dx
    xp.put_along_axis(dx, xp.expand_dims(safe, 1), xp.expand_dims(g, 1), axis=1)
    return dx


@register_kernel("kldiv_loss_grad", ("CPU", "GPU"), dtypes=FLOATS)
def kldiv_loss_grad(ctx, x: Tensor, label: Tensor, out_grad: Tensor, reduction: str) -> Tensor:
    """-target * dout where target > 0 (else 0); "mean" divides by the element count,
    "batchmean" by x's first dimension."""
    xp = ctx.xp
    t = x.dtype.type
    if x.size == 0:
        return xp.zeros_like(x)
    with quiet(xp):
        dout = (out_grad.reshape(x.shape) if out_grad.size == x.size
                else xp.broadcast_to(out_grad.reshape(()), x.shape))
        g = xp.where(label > 0, -(label * dout), t(0))
        if reduction == "mean":
            g = g / t(x.size)
        elif reduction == "batchmean":
            g = g / t(x.shape[0] if x.ndim else 0)  # a 0-D dims()[0] reads 0
    return as_array(xp, g)


@register_kernel("huber_loss_grad", ("CPU", "GPU"), dtypes=FLOATS)
def huber_loss_grad(ctx, residual: Tensor, out_grad: Tensor, delta: float
                    ) -> tuple[Tensor, Tensor]:
    """(dX, dY) = (-dout, dout) * clip(residual, -delta, delta) (residual = Y - X)."""
    xp = ctx.xp
    t = residual.dtype.type
    d = t(delta)
    with quiet(xp):
        inner = xp.abs(residual) <= d
        dy = xp.where(inner, residual, xp.where(residual > 0, d, -d))
        dx = xp.where(inner, -residual, xp.where(residual > 0, -d, d))
        return as_array(xp, out_grad * dx), as_array(xp, out_grad * dy)


@register_kernel("log_loss_grad", ("CPU", "GPU"), dtypes=F32)
def log_loss_grad(ctx, input: Tensor, label: Tensor, out_grad: Tensor, epsilon: float
                  ) -> Tensor:
    """dout * (-label / (p + eps) + (1 - label) / (1 - p + eps))."""
    xp = ctx.xp
    t = input.dtype.type
    e = t(epsilon)
    with quiet(xp):
        return as_array(xp, out_grad * (-(label / (input + e))
                                        + (t(1) - label) / (t(1) - input + e)))


@register_kernel("label_smooth_grad", ("CPU", "GPU"), dtypes=FLOATS)
def label_smooth_grad(ctx, out_grad: Tensor, epsilon: float) -> Tensor:
    """(1 - eps) * dout (eps in the float attribute's precision, as static_cast<T>)."""
    xp = ctx.xp
    t = out_grad.dtype.type
    with quiet(xp):
        return as_array(xp, t(1 - np.float32(epsilon)) * out_grad)


@register_kernel("identity_loss_grad", ("CPU", "GPU"), dtypes=FLOATS)
def identity_loss_grad(ctx, x: Tensor, out_grad: Tensor, reduction: int) -> Tensor:
    """reduction 0 (sum): dout everywhere; 1 (mean): dout / numel; 2 (none): dout."""
    xp = ctx.xp
    t = x.dtype.type
    if reduction == 2:
        return as_array(xp, xp.array(out_grad, copy=True).reshape(x.shape))
    g = out_grad.reshape(())
    with quiet(xp):
        if reduction == 1:
            g = g / t(x.size)
    return as_array(xp, xp.full(x.shape, g, dtype=x.dtype))


def _dropout_backward(ctx, mask, out_grad, p, is_test: bool, mode: str, cyclic: bool):
    """DropoutNdGradKernel: ``cyclic``: the mask of dropout_nd, read as Eigen's broadcast of
    the flattened mask does, element i using mask[i % mask.size]."""
    xp = ctx.xp
    dtype = ctx.data_type(out_grad)
    prob = np.float32(p.value if isinstance(p, Scalar) else p)
    keep = np.float32(1.0) - prob  # static_cast<T>(1.0f - prob)
    upscale = mode == "upscale_in_train"
    if is_test:
        m = None
        scale = None if upscale else keep
    else:
        flat = mask.reshape(-1)
        if cyclic and flat.size and flat.size != out_grad.size:
            flat = flat[xp.arange(out_grad.size) % flat.size]
        m = flat.reshape(out_grad.shape)
        scale = None if not upscale else keep
        if upscale and prob == np.float32(1.0):
            m, scale = xp.zeros_like(m), None

    def fn(dy, *rest):
        r = dy
        if m is not None:
            r = r * ctx.astype(m, ctx.data_type(dy))
        if scale is not None:
            s = xp.asarray(scale, dtype=dy.dtype)
            r = r * s if is_test else r / s
        return r

    if dtype is DataType.BFLOAT16:
        return bf16_op(ctx, fn, out_grad)
    with quiet(xp):
        return as_array(xp, fn(out_grad))


@register_kernel("dropout_grad", ("CPU", "GPU"), dtypes=DROPOUT_GRAD_DTYPES,
                 input_defs={"mask": _ANY})
def dropout_grad(ctx, mask: Tensor, out_grad: Tensor, p: Scalar, is_test: bool, mode: str
                 ) -> Tensor:
    """Training: dout * mask (/ (1 - p) for ``upscale_in_train``, 0 when p is 1); test:
    dout, or dout * (1 - p) for ``downgrade_in_infer``."""
    return _dropout_backward(ctx, mask, out_grad, p, is_test, mode, cyclic=False)


@register_kernel("dropout_nd_grad", ("CPU", "GPU"), dtypes=FLOATS, input_defs={"mask": _ANY})
def dropout_nd_grad(ctx, mask: Tensor, out_grad: Tensor, p: Scalar, is_test: bool, mode: str,
                    axis: list[int]) -> Tensor:
    """dropout_grad with the mask of the kept ``axis`` dims; Paddle reads that smaller mask
    cyclically over the flattened gradient (its Eigen broadcast of a flat vector), not
    broadcast by dims: reproduced."""
    return _dropout_backward(ctx, mask, out_grad, p, is_test, mode, cyclic=bool(axis))


# -- yolov3_loss ------------------------------------------------------------------------------

def _sce_grad(t, x, label):
    """SigmoidCrossEntropyGrad<T>: 1.0 / (1.0 + exp(-x)) - label, exp in T, the rest in double,
    returned as T."""
    return t(1.0 / (1.0 + float(np.exp(-t(x)))) - float(label))


@register_kernel("yolo_loss_grad", "CPU", dtypes=FLOATS,
                 input_defs={"gt_label": _ANY, "gt_match_mask": _ANY})
def yolo_loss_grad(ctx, x: Tensor, gt_box: Tensor, gt_label: Tensor, gt_score: Tensor | None,
                   objectness_mask: Tensor, gt_match_mask: Tensor, loss_grad: Tensor,
                   anchors: list[int], anchor_mask: list[int], class_num: int,
                   ignore_thresh: float, downsample_ratio: int, use_label_smooth: bool,
                   scale_x_y: float) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """X@GRAD only (Paddle writes no GTBox / GTLabel / GTScore gradient): for each matched
    ground truth the location entries (sigmoid CE for x / y, sign for w / h, weighted by
    (2 - w h) * score) and the class entries of its cell are SET (a later box overwrites),
    then every objectness entry: positive (mask > 1e-5) or negative (mask > -0.5), ignored
    ones 0.  Each term times the image's Loss@GRAD; scale_x_y is not differentiated."""
    t = x.dtype.type
    n, _, h, w = x.shape
    mask_num = len(anchor_mask)
    b = gt_match_mask.shape[1]
    input_size = downsample_ratio * h
    xr = np.asarray(x).reshape(n, mask_num, 5 + class_num, h, w)
    dx = np.zeros_like(xr)
    gtb = np.asarray(gt_box)
    labels = np.asarray(gt_label).astype(np.int64)
    match = np.asarray(gt_match_mask)
    score = np.ones((n, b), x.dtype) if gt_score is None else np.asarray(gt_score)
    dloss = np.asarray(loss_grad).reshape(-1)
    pos, neg = t(1), t(0)
    if use_label_smooth:
        smooth = min(1.0 / float(t(class_num)), 1.0 / 40)
        pos, neg = t(1.0 - smooth), t(smooth)
    with quiet(np):
        for i in range(n):
            for k in range(b):
                m = int(match[i, k])
                if m < 0:
                    continue
                gx, gy, gw, gh = (t(v) for v in gtb[i, k])
                sc, g = t(score[i, k]), t(dloss[i])
                gi, gj = int(gx * t(w)), int(gy * t(h))
                a = anchor_mask[m]
                p, d = xr[i, m, :, gj, gi], dx[i, m, :, gj, gi]
                tw = np.log(gw * t(input_size) / t(anchors[2 * a]))
                th = np.log(gh * t(input_size) / t(anchors[2 * a + 1]))
                wt = t((2.0 - float(gw * gh)) * float(sc))
                d[0] = _sce_grad(t, p[0], gx * t(h) - t(gi)) * wt * g
                d[1] = _sce_grad(t, p[1], gy * t(h) - t(gj)) * wt * g
                d[2] = t(1.0 if p[2] > tw else -1.0) * wt * g
                d[3] = t(1.0 if p[3] > th else -1.0) * wt * g
                for c in range(class_num):
                    d[5 + c] = _sce_grad(t, p[5 + c], pos if c == labels[i, k] else neg) * sc * g
            obj = np.asarray(objectness_mask)[i]
            for j, y, z in np.ndindex(mask_num, h, w):
                o, v = obj[j, y, z], xr[i, j, 4, y, z]
                if o > 1e-5:
                    dx[i, j, 4, y, z] = _sce_grad(t, v, t(1)) * o * t(dloss[i])
                elif o > -0.5:
                    dx[i, j, 4, y, z] = _sce_grad(t, v, t(0)) * t(dloss[i])
    return dx.reshape(x.shape), None, None, None
