"""The fluid kernels of detection_map."""

from __future__ import annotations

import numpy as np

from fluid_compat.operators.fluid_kernels.funcs import FLOATS
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.core.errors import InvalidArgument, Unimplemented
from phi.kernels.funcs import stl_sort

__all__: list[str] = []


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

