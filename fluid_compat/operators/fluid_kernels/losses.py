"""Fluid kernels of helper `reduce`'s ops that Paddle 2.6.2 runs as STRUCTURE kernels (fluid
kernels re-registered in the phi table; their recorded KernelSignature is empty): l1_norm,
data_norm, bpr_loss, cross_entropy, cross_entropy2, hinge_loss, modified_huber_loss, rank_loss,
teacher_student_sigmoid_loss, positive_negative_pair, precision_recall, detection_map (Paddle's
paddle/fluid/operators/<op>_op.h).  Shapes follow their InferShape: the loss ops write [N, 1]
(X's shape with a last dim of 1), the metrics their fixed-size state tensors."""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument, Unimplemented
from phi.kernels.funcs import stl_sort
from phi.kernels.funcs import quiet
from phi.kernels.cross_entropy_with_softmax import hard_label_loss, soft_label_loss

__all__: list[str] = []

FLOATS = ("float32", "float64")


def _same_shape(ctx, a: str, b: str):
    x, y = ctx.input_array(a), ctx.input_array(b)
    if x.shape != y.shape:
        raise InvalidArgument(f"{ctx.type}: Input({a}) and Input({b}) must have the same shape, "
                              f"but received {list(x.shape)} and {list(y.shape)}.")
    return x, y


def _check_dtype(ctx, slot: str, dtype: str) -> None:
    """The kernel reads ``slot`` as ``dtype`` (data<int64_t>() ...): another dtype is refused."""
    t = ctx.input(slot)
    if t is not None and str(t.dtype) != dtype:
        raise InvalidArgument(f"{ctx.type}: Input({slot}) holds the wrong type, it holds "
                              f"{t.dtype}, but desires to be {dtype}.")


def _as_matrix(ctx, slot: str):
    """X reshaped to [rows, last dim] (ReshapeToMatrix(x, rank - 1))."""
    x = ctx.input_array(slot)
    if x.ndim < 1:
        raise InvalidArgument(f"{ctx.type}: Input({slot}) must have at least one dimension.")
    return x.reshape(-1, x.shape[-1]) if x.ndim > 1 else x.reshape(1, -1)


@register_fluid_kernel("l1_norm", "CPU", ("float32",))
class L1NormKernel(FluidKernel):
    """Out = sum(|X|), 0-D."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        ctx.set_output("Out", xp.asarray(xp.sum(xp.abs(ctx.input_array("X")))))


@register_fluid_kernel("data_norm", "CPU", FLOATS)
class DataNormKernel(FluidKernel):
    """Means = BatchSum / BatchSize, Scales = sqrt(BatchSize / BatchSquareSum), Y = (X - Means)
    * Scales per column of the 2-D X (then * scale_w + bias with ``enable_scale_and_shift``);
    with ``slot_dim`` > 0 a slot whose first value (the show count) is within 1e-7 of 0 gives
    zeros."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x = ctx.input_array("X")
        if x.ndim != 2:
            raise InvalidArgument("data_norm: The Input dim size should be 2, but received "
                                  f"{list(x.shape)}.")
        n, c = x.shape
        size, total, square = (ctx.input_array(s).reshape(-1) for s in
                               ("BatchSize", "BatchSum", "BatchSquareSum"))
        if min(size.size, total.size, square.size) < c:
            raise InvalidArgument(f"data_norm: BatchSize, BatchSum and BatchSquareSum must hold "
                                  f"C = {c} values, but received {size.size}, {total.size} and "
                                  f"{square.size}.")
        size, total, square = size[:c], total[:c], square[:c]
        slot_dim = ctx.attr("slot_dim")
        shift = ctx.attr("enable_scale_and_shift")
        t = x.dtype.type
        with quiet(xp):
            means = total / size
            scales = xp.sqrt(size / square)
            if shift:
                w = ctx.input_array("scale_w").reshape(-1)
                b = ctx.input_array("bias").reshape(-1)
            if shift and slot_dim <= 0:
                # Eigen: x * (scales * w) + (b - means * scales * w)
                y = x * (scales * w) + (b - means * scales * w)
            else:
                y = (x - means) * scales
                if shift:
                    y = y * w + b
            if slot_dim > 0 and n > 0:
                shows = x[:, ::slot_dim]
                zero = (shows > t(-1e-7)) & (shows < t(1e-7))
                mask = xp.repeat(zero, slot_dim, axis=1)[:, :c]
                y = xp.where(mask, t(0), y)
        ctx.set_output("Y", y)
        ctx.set_output("Means", means)
        ctx.set_output("Scales", scales)


@register_fluid_kernel("bpr_loss", "CPU", FLOATS)
class BprLossKernel(FluidKernel):
    """Y[i] = -sum_{j != label} TolerableValue(-log(1 + TolerableValue(exp(x_j - x_label))))
    / (C - 1), per row of X [.., C] with an int64 Label [.., 1]."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        _check_dtype(ctx, "Label", "int64")
        x = _as_matrix(ctx, "X")
        rows, c = x.shape
        lbl = ctx.input_array("Label").reshape(-1).astype(np.int64)
        if lbl.shape[0] != rows or ((lbl < 0) | (lbl >= c)).any():
            raise InvalidArgument(f"bpr_loss: Input(Label) must hold one label in [0, {c}) per "
                                  "row of Input(X).")
        t = x.dtype.type
        pos = xp.take_along_axis(x, lbl[:, None], axis=1)
        with quiet(xp):
            e = xp.clip(xp.exp(x - pos), t(-1e20), t(1e20))
            # the 1.0f + e is computed in T (float promotes to double for float64)
            term = xp.clip(-xp.log(t(1) + e), t(-1e20), t(1e20))
            term = xp.where(xp.arange(c)[None, :] == lbl[:, None], t(0), term)
            y = -xp.sum(term, axis=1, keepdims=True) / t(c - 1)
        ctx.set_output("Y", y.reshape(*ctx.input_array("X").shape[:-1], 1))


def _cross_entropy(ctx, soft: bool):
    """(Y, prob rows, hard labels): CrossEntropyFunctor over X's last dim."""
    xp = ctx.xp
    x = ctx.input_array("X")
    label = ctx.input_array("Label")
    prob = _as_matrix(ctx, "X")
    out_shape = (*x.shape[:-1], 1)
    if soft:
        if label.shape != x.shape:
            raise InvalidArgument(f"{ctx.type}: with soft_label Input(Label) must have X's shape "
                                  f"{list(x.shape)}, but received {list(label.shape)}.")
        y = soft_label_loss(xp, prob, label.reshape(prob.shape), 1)
    else:
        if label.shape != out_shape:
            raise InvalidArgument(f"{ctx.type}: Input(Label) should be {list(out_shape)}, but "
                                  f"received {list(label.shape)}.")
        y = hard_label_loss(ctx.dev_ctx, prob, label.reshape(-1, 1), ctx.attr("ignore_index"),
                            1, ctx.type)
    return y.reshape(out_shape)


@register_fluid_kernel("cross_entropy", "CPU", FLOATS)
class CrossEntropyKernel(FluidKernel):
    """Y = -log(X[label]) (hard, 0 for ``ignore_index``) or -sum(label * log(X)) (soft) over
    X's last dim, log(0) clamped to -1e20 (TolerableValue)."""

    def compute(self, ctx) -> None:
        ctx.set_output("Y", _cross_entropy(ctx, ctx.attr("soft_label")))


@register_fluid_kernel("cross_entropy2", "CPU", FLOATS)
class CrossEntropy2Kernel(FluidKernel):
    """Y as cross_entropy's hard labels; MatchX = X[label] (0 for ``ignore_index``).  XShape is
    left unwritten, as Paddle leaves it."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        _check_dtype(ctx, "Label", "int64")
        y = _cross_entropy(ctx, False)
        prob = _as_matrix(ctx, "X")
        lbl = ctx.input_array("Label").reshape(-1, 1).astype(np.int64)
        ignored = lbl == ctx.attr("ignore_index")
        match = xp.where(ignored, prob.dtype.type(0),
                         xp.take_along_axis(prob, xp.where(ignored, 0, lbl), axis=1))
        ctx.set_output("Y", y)
        ctx.set_output("MatchX", match.reshape(y.shape))


@register_fluid_kernel("hinge_loss", "CPU", ("float32",))
class HingeLossKernel(FluidKernel):
    """Loss = max(0, 1 - logits * (2 * label - 1))."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x, y = _same_shape(ctx, "Logits", "Labels")
        if x.ndim != 2 or x.shape[1] != 1:
            raise InvalidArgument("hinge_loss: Input(Logits) should be [N, 1], but received "
                                  f"{list(x.shape)}.")
        t = x.dtype.type
        with quiet(xp):
            ctx.set_output("Loss", xp.maximum(t(0), t(1) - x * (t(2) * y - t(1))))


@register_fluid_kernel("modified_huber_loss", "CPU", ("float32",))
class ModifiedHuberLossKernel(FluidKernel):
    """IntermediateVal z = x * (2y - 1); Out = -4z for z < -1, (1 - z)^2 for z < 1, else 0."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x, y = _same_shape(ctx, "X", "Y")
        t = x.dtype.type
        with quiet(xp):
            z = x * (t(2) * y - t(1))
            out = xp.where(z < t(-1), t(-4) * z, xp.where(z < t(1), (t(1) - z) * (t(1) - z), t(0)))
        ctx.set_output("IntermediateVal", z)
        ctx.set_output("Out", out)


@register_fluid_kernel("rank_loss", "CPU", ("float32",))
class RankLossKernel(FluidKernel):
    """Out = log(1 + exp(left - right)) - label * (left - right)."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        left, right = _same_shape(ctx, "Left", "Right")
        label = ctx.input_array("Label")
        t = left.dtype.type
        with quiet(xp):
            d = left - right
            ctx.set_output("Out", xp.log(t(1) + xp.exp(d)) - label * d)


@register_fluid_kernel("teacher_student_sigmoid_loss", "CPU", FLOATS)
class TeacherStudentSigmoidLossKernel(FluidKernel):
    """The click / teacher-score loss of Paddle's kernel: label < -1: no click, no score;
    < 0: click, no score; < 1: no click, score = label; else click, score = label - 1
    (computed in double, as the C++ mixes float with 1.0).  The bounds only serve the
    gradient."""

    def compute(self, ctx) -> None:
        xp = ctx.xp
        x = ctx.input_array("X")
        label = ctx.input_array("Label")
        xd = x.astype(np.float64)
        lab = label.astype(np.float64)
        with quiet(xp):
            pos = xp.maximum(xd, 0.0)
            soft = xp.log(1.0 + xp.exp(-xp.abs(xd)))
            y = xp.where(lab < -1.0, pos + soft,
                         xp.where(lab < 0.0, pos - xd + soft,
                                  xp.where(lab < 1.0, pos + soft + pos - xd * lab + soft,
                                           pos - xd + soft + pos - xd * (lab - 1.0) + soft)))
        ctx.set_output("Y", y.astype(x.dtype))


@register_fluid_kernel("positive_negative_pair", "CPU", FLOATS)
class PositiveNegativePairKernel(FluidKernel):
    """Pair counts per query over the ``column`` of Score: pairs of different labels are
    positive when score and label order agree, else negative (equal scores also count as
    neutral); each pair weighs the mean of its two weights; the Accumulate* inputs start the
    sums."""

    def compute(self, ctx) -> None:
        _check_dtype(ctx, "QueryID", "int64")
        score = np.asarray(ctx.input_array("Score"))
        label = np.asarray(ctx.input_array("Label")).reshape(-1)
        query = np.asarray(ctx.input_array("QueryID")).reshape(-1)
        t = score.dtype.type
        if score.ndim != 2 or label.shape[0] != score.shape[0] or \
                query.shape[0] != score.shape[0]:
            raise InvalidArgument("positive_negative_pair: Input(Score) must be 2-D [N, width] "
                                  "with one Label and one QueryID per row, but received Score "
                                  f"{list(score.shape)}, Label {label.shape[0]} and QueryID "
                                  f"{query.shape[0]} values.")
        n, width = score.shape
        column = ctx.attr("column")
        column = column + width if column < 0 else column
        if not 0 <= column < width:
            raise InvalidArgument(f"positive_negative_pair: attribute column must be in "
                                  f"[-{width}, {width}), but received {ctx.attr('column')}.")
        s = score[:, column]
        w = (np.asarray(ctx.input_array("Weight")).reshape(-1) if ctx.has_input("Weight")
             else np.ones((n,), score.dtype))
        acc = [t(0), t(0), t(0)]
        if all(ctx.has_input(f"Accumulate{k}Pair") for k in ("Positive", "Negative", "Neutral")):
            acc = [np.asarray(ctx.input_array(f"Accumulate{k}Pair")).reshape(-1)[0]
                   for k in ("Positive", "Negative", "Neutral")]
        pos, neg, neu = acc
        for q in dict.fromkeys(query.tolist()):
            idx = np.nonzero(query == q)[0]
            for a, i in enumerate(idx):
                for j in idx[a + 1:]:
                    if label[i] == label[j]:
                        continue
                    pw = t((w[i] + w[j]) * t(0.5))
                    if s[i] == s[j]:
                        neu = t(neu + pw)
                    if (s[i] - s[j]) * (label[i] - label[j]) > 0.0:
                        pos = t(pos + pw)
                    else:
                        neg = t(neg + pw)
        for slot, v in (("PositivePair", pos), ("NegativePair", neg), ("NeutralPair", neu)):
            ctx.set_output(slot, np.asarray([v], dtype=score.dtype))


def _metrics(states, cls_num: int) -> np.ndarray:
    """Macro / micro precision, recall and F1 of [C, 4] (TP, FP, TN, FN) states."""
    t = states.dtype.type

    def ratio(a, b):
        return a / (a + b) if a > 0.0 or b > 0.0 else t(1.0)

    def f1(p, r):
        return t(2) * p * r / (p + r) if p > 0.0 or r > 0.0 else t(0.0)

    tp, fp, fn = t(0), t(0), t(0)
    macro_p, macro_r = t(0), t(0)
    for i in range(cls_num):
        tp, fp, fn = t(tp + states[i, 0]), t(fp + states[i, 1]), t(fn + states[i, 3])
        macro_p = t(macro_p + ratio(states[i, 0], states[i, 1]))
        macro_r = t(macro_r + ratio(states[i, 0], states[i, 3]))
    macro_p, macro_r = t(macro_p / t(cls_num)), t(macro_r / t(cls_num))
    micro_p, micro_r = t(ratio(tp, fp)), t(ratio(tp, fn))
    return np.array([macro_p, macro_r, f1(macro_p, macro_r), micro_p, micro_r,
                     f1(micro_p, micro_r)], dtype=np.float64)


@register_fluid_kernel("precision_recall", "CPU", FLOATS)
class PrecisionRecallKernel(FluidKernel):
    """TP / FP / TN / FN per class of the batch (weighted), the batch's metrics, then the same
    with StatesInfo added (AccumStatesInfo, AccumMetrics)."""

    def compute(self, ctx) -> None:
        _check_dtype(ctx, "Indices", "int32")
        _check_dtype(ctx, "Labels", "int32")
        probs = np.asarray(ctx.input_array("MaxProbs"))
        ids = np.asarray(ctx.input_array("Indices")).reshape(-1)
        labels = np.asarray(ctx.input_array("Labels")).reshape(-1)
        cls_num = ctx.attr("class_number")
        t = probs.dtype.type
        for name, v in (("index", ids), ("label", labels)):
            if ((v < 0) | (v >= cls_num)).any():
                raise InvalidArgument(f"precision_recall: the {name} of each instance should be "
                                      f"in [0, {cls_num}), but received "
                                      f"{int(v[(v < 0) | (v >= cls_num)][0])}.")
        w = (np.asarray(ctx.input_array("Weights")).reshape(-1) if ctx.has_input("Weights")
             else np.ones((ids.shape[0],), probs.dtype))
        states = np.zeros((cls_num, 4), dtype=probs.dtype)
        for i, lbl, wi in zip(ids.tolist(), labels.tolist(), w.tolist(), strict=False):
            wi = t(wi)
            if i == lbl:
                states[i, 0] += wi
                states[:, 2] += wi
                states[i, 2] -= wi
            else:
                states[lbl, 3] += wi
                states[i, 1] += wi
                states[:, 2] += wi
                states[i, 2] -= wi
                states[lbl, 2] -= wi
        batch = _metrics(states, cls_num)
        if ctx.has_input("StatesInfo"):
            states = states + np.asarray(ctx.input_array("StatesInfo")).reshape(cls_num, 4)
        ctx.set_output("BatchMetrics", batch)
        ctx.set_output("AccumMetrics", _metrics(states, cls_num))
        ctx.set_output("AccumStatesInfo", states)


def _jaccard(a, b, t):
    """JaccardOverlap of two (xmin, ymin, xmax, ymax) boxes in T."""
    if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
        return t(0)
    iw = t(min(a[2], b[2]) - max(a[0], b[0]))
    ih = t(min(a[3], b[3]) - max(a[1], b[1]))
    inter = t(iw * ih)
    area1 = t(t(a[2] - a[0]) * t(a[3] - a[1]))
    area2 = t(t(b[2] - b[0]) * t(b[3] - b[1]))
    return t(inter / t(t(area1 + area2) - inter))


def _average_precision(tp, fp, num_pos: int, ap_type: str, t) -> object:
    """One class's AP from its (score, flag) lists: both stably sorted by score (descending),
    accumulated; "11point" (VOC2007) or "integral" (recall steps accumulated in float)."""
    def accumulate(pairs):
        order = sorted(range(len(pairs)), key=lambda i: -float(pairs[i][0]))  # stable
        return np.cumsum([pairs[i][1] for i in order]).tolist()

    tp_sum, fp_sum = accumulate(tp), accumulate(fp)
    precision = [t(t(a) / t(a + b)) for a, b in zip(tp_sum, fp_sum, strict=False)]
    recall = [t(t(a) / t(num_pos)) for a in tp_sum]
    if ap_type == "11point":
        best = [t(0)] * 11
        start = len(tp_sum) - 1
        for j in range(10, -1, -1):
            for i in range(start, -1, -1):
                if recall[i] < j / 10.0:
                    start = i
                    if j > 0:
                        best[j - 1] = best[j]
                    break
                if best[j] < precision[i]:
                    best[j] = precision[i]
        ap = t(0)
        for j in range(10, -1, -1):
            ap = t(ap + t(best[j] / t(11)))
        return ap
    ap, prev = np.float32(0), np.float32(0)
    for p, r in zip(precision, recall, strict=False):
        step = abs(float(r) - float(prev)) if t is np.float64 else abs(np.float32(r) - prev)
        if step > 1e-6:
            ap = np.float32(ap + p * step)
        prev = np.float32(r)
    return ap


@register_fluid_kernel("detection_map", "CPU", FLOATS)
class DetectionMapKernel(FluidKernel):
    """mAP of one batch of detections (LoD level 1: one sequence per image) against the ground
    truth, accumulated with the PosCount / TruePos / FalsePos state when HasState[0] != 0:
    per class, detections sorted by score (std::sort) are matched to the best-overlapping
    unmatched box above ``overlap_threshold``; AP by ``ap_type``.  As Paddle, a class is skipped
    when its positive COUNT equals ``background_label``."""

    def compute(self, ctx) -> None:
        detect_t, label_t = ctx.input("DetectRes"), ctx.input("Label")
        if len(label_t.lod) != 1:
            raise InvalidArgument("detection_map: Only support LodTensor of lod_level with 1 in "
                                  f"label, but received {len(label_t.lod)}.")
        if len(detect_t.lod) != 1 or len(detect_t.lod[0]) != len(label_t.lod[0]):
            raise InvalidArgument("detection_map: The batch_size of input(Label) and "
                                  "input(Detection) must be the same, but received "
                                  f"{len(label_t.lod[0])}:"
                                  f"{len(detect_t.lod[0]) if detect_t.lod else 0}")
        det, lab = np.asarray(detect_t.data), np.asarray(label_t.data)
        t = det.dtype.type
        if lab.shape[1] not in (5, 6):
            raise InvalidArgument("detection_map: The input label width must be 5, but received "
                                  f"{lab.shape[1]}, please check your input data")
        class_num = ctx.attr("class_num")
        evaluate_difficult = ctx.attr("evaluate_difficult")
        threshold = np.float32(ctx.attr("overlap_threshold"))
        ap_type = ctx.attr("ap_type")
        pos_count: dict[int, int] = {}
        true_pos: dict[int, list] = {}
        false_pos: dict[int, list] = {}
        state = ctx.has_input("HasState") and int(np.asarray(
            ctx.input_array("HasState")).reshape(-1)[0]) != 0
        if ctx.has_input("PosCount") and state:
            counts = np.asarray(ctx.input_array("PosCount")).reshape(-1)
            pos_count.update({i: int(counts[i]) for i in range(class_num)})
            for slot, acc in (("TruePos", true_pos), ("FalsePos", false_pos)):
                tensor = ctx.input(slot)
                rows, starts = np.asarray(tensor.data).reshape(-1, 2), tensor.lod[0]
                for i in range(len(starts) - 1):
                    acc.setdefault(i, []).extend(
                        (t(rows[j, 0]), int(rows[j, 1])) for j in range(starts[i], starts[i + 1]))
        lstarts, dstarts = label_t.lod[0], detect_t.lod[0]
        six = lab.shape[1] == 6
        for n in range(len(lstarts) - 1):
            gts: dict[int, list] = {}
            for i in range(lstarts[n], lstarts[n + 1]):
                box = tuple(t(v) for v in (lab[i, 2:6] if six else lab[i, 1:5]))
                difficult = six and abs(float(lab[i, 1])) >= 1e-6
                gts.setdefault(int(lab[i, 0]), []).append((box, difficult))
            for label in sorted(gts):
                count = sum(1 for _, d in gts[label] if evaluate_difficult or not d)
                if count:
                    pos_count[label] = pos_count.get(label, 0) + count
            dets: dict[int, list] = {}
            for i in range(dstarts[n], dstarts[n + 1]):
                dets.setdefault(int(det[i, 0]), []).append((t(det[i, 1]), tuple(det[i, 2:6])))
            for label in sorted(dets):
                preds = dets[label]
                tp, fp = true_pos.setdefault(label, []), false_pos.setdefault(label, [])
                if label not in gts:
                    tp.extend((s, 0) for s, _ in preds)
                    fp.extend((s, 1) for s, _ in preds)
                    continue
                matched = gts[label]
                visited = [False] * len(matched)
                stl_sort.sort(preds, 0, len(preds), lambda a, b: a[0] > b[0])
                for score, box in preds:
                    box = tuple(t(max(min(v, t(1)), t(0))) for v in box)  # ClipBBox
                    best, best_j = t(-1), 0
                    for j, (gt, _) in enumerate(matched):
                        overlap = _jaccard(box, gt, t)
                        if overlap > best:
                            best, best_j = overlap, j
                    if best > threshold:
                        if evaluate_difficult or not matched[best_j][1]:
                            hit = not visited[best_j]
                            visited[best_j] = True
                            tp.append((score, int(hit)))
                            fp.append((score, int(not hit)))
                    else:
                        tp.append((score, 0))
                        fp.append((score, 1))
        background = ctx.attr("background_label")
        m_ap, count = t(0), 0
        for label in sorted(pos_count):
            num_pos = pos_count[label]
            if num_pos == background:  # Paddle compares the count, not the label
                continue
            if label not in true_pos:
                count += 1
                continue
            if ap_type not in ("11point", "integral"):
                raise Unimplemented(f"detection_map: Unkown ap version {ap_type}. Now only "
                                    "supports integral and l1point.")
            m_ap = t(m_ap + _average_precision(true_pos[label], false_pos[label], num_pos,
                                               ap_type, t))
            count += 1
        if count:
            m_ap = t(m_ap / t(count))
        out_count = np.array([[pos_count.get(i, 0)] for i in range(class_num)], np.int32)
        ctx.set_output("AccumPosCount", out_count.reshape(class_num, 1))
        for slot, acc in (("AccumTruePos", true_pos), ("AccumFalsePos", false_pos)):
            rows, starts = [], [0]
            for i in range(class_num):
                rows.extend(acc.get(i, ()))
                starts.append(len(rows))
            ctx.set_output(slot, np.array(rows, det.dtype).reshape(-1, 2), lod=(tuple(starts),))
        ctx.set_output("MAP", np.array([m_ap], det.dtype))
