"""The fluid kernels of anchor_generator, bipartite_match, box_clip, box_decoder_and_assign,
collect_fpn_proposals, density_prior_box, generate_proposals, iou_similarity,
locality_aware_nms, mine_hard_examples, multiclass_nms, multiclass_nms2, polygon_box_transform,
retinanet_detection_output, retinanet_target_assign, rpn_target_assign; the output counts hook
of distribute_fpn_proposals.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.fluid_kernels.funcs import FLOATS, bbox_overlaps
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.core.lod import from_lengths
from phi.kernels.funcs.quant import round_half_away

__all__: list[str] = []


def _iou(a, b, normalized: bool):
    """JaccardOverlap of [xmin, ymin, xmax, ymax] boxes, PolyIoU of 8 / 16 / 24 / 32
    coordinate polygons (where ``normalized`` plays no part)."""
    if a.shape[-1] == 4:
        from phi.kernels.nms import jaccard

        return jaccard(a, b, normalized)
    from phi.kernels.funcs.poly_overlap import poly_iou

    return poly_iou(a, b)


def _merge_and_sort(boxes, scores, threshold, top_k, nms_threshold, normalized) -> list[int]:
    """Paddle's GetMaxScoreIndexWithLocalityAware: consecutive boxes overlapping the current
    one are merged into it IN PLACE (score-weighted coordinates, summed scores); the survivors
    above threshold, stable-sorted by descending score, at most top_k."""
    n = boxes.shape[0]
    skip = [True] * n
    index = -1
    for i in range(n):
        if index > -1:
            if _iou(boxes[i], boxes[index], normalized) > nms_threshold:
                s1, s2 = scores[i], scores[index]
                boxes[index] = (boxes[i] * s1 + boxes[index] * s2) / (s1 + s2)
                scores[index] = scores[index] + scores[i]
            else:
                skip[index] = False
                index = i
        else:
            index = i
    if index > -1:
        skip[index] = False
    cand = [i for i in range(n) if scores[i] > threshold and not skip[i]]
    cand.sort(key=lambda i: -scores[i])  # stable, like std::stable_sort
    if -1 < top_k < len(cand):
        cand = cand[:top_k]
    return cand


def _one_image(boxes, scores, attrs) -> dict[int, list[int]]:
    """LocalityAwareNMS of one image; boxes and scores are modified in place as Paddle does
    (a class's merges stay visible to the later classes)."""
    background, score_thr, nms_top_k, nms_thr, eta, keep_top_k, normalized = attrs
    t = scores.dtype.type
    indices: dict[int, list[int]] = {}
    for c in range(scores.shape[0]):
        if c == background:
            continue
        order = _merge_and_sort(boxes, scores[c], t(score_thr), nms_top_k, t(nms_thr),
                                normalized)
        if boxes.shape[-1] == 4:  # Paddle's greedy NMS, vectorised (phi.kernels.nms)
            from phi.kernels.funcs.detection import greedy_nms

            kept = greedy_nms(boxes[np.asarray(order, dtype=np.intp)], t(nms_thr), t(eta),
                              normalized) if order else []
            indices[c] = [order[k] for k in kept]
            continue
        selected: list[int] = []
        adaptive = t(nms_thr)
        for idx in order:  # polygons: one PolyIoU a pair
            keep = all(_iou(boxes[idx], boxes[k], normalized) <= adaptive for k in selected)
            if keep:
                selected.append(idx)
                if eta < 1 and adaptive > 0.5:
                    adaptive = t(adaptive * t(eta))
        indices[c] = selected
    num = sum(len(v) for v in indices.values())
    if -1 < keep_top_k < num:
        pairs = [(float(scores[c, i]), c, i) for c, v in indices.items() for i in v]
        pairs.sort(key=lambda p: -p[0])
        indices = {}
        for _, c, i in pairs[:keep_top_k]:
            indices.setdefault(c, []).append(i)
    return dict(sorted(indices.items()))


@register_fluid_kernel("locality_aware_nms", "CPU", ("float32", "float64"))
class LocalityAwareNmsKernel(FluidKernel):
    """Per-class locality-aware NMS (EAST / SAST); boxes [xmin, ymin, xmax, ymax] or polygons
    of 8 / 16 / 24 / 32 coordinates (phi.kernels.poly_overlap); rows [label, score, box...] with
    the images' LoD, nothing kept at all: Out = [[-1]] with LoD ((0, 1),)."""

    def compute(self, ctx) -> None:
        bboxes = np.array(ctx.input_array("BBoxes"), copy=True)
        scores = np.array(ctx.input_array("Scores"), copy=True)
        if bboxes.ndim != 3 or scores.ndim != 3:
            raise InvalidArgument(f"locality_aware_nms: BBoxes and Scores must be 3-D, got "
                                  f"dims {list(bboxes.shape)} and {list(scores.shape)}.")
        if bboxes.shape[2] not in (4, 8, 16, 24, 32) or bboxes.shape[1] != scores.shape[2]:
            raise InvalidArgument(f"locality_aware_nms: BBoxes must be [N, M, 4|8|16|24|32] "
                                  f"with M = Scores' last dim, got dims {list(bboxes.shape)} "
                                  f"and {list(scores.shape)}.")
        attrs = (ctx.attr("background_label"), float(np.float32(ctx.attr("score_threshold"))),
                 ctx.attr("nms_top_k"), float(np.float32(ctx.attr("nms_threshold"))),
                 float(np.float32(ctx.attr("nms_eta"))), ctx.attr("keep_top_k"),
                 ctx.attr("normalized"))
        rows, starts = [], [0]
        for b in range(bboxes.shape[0]):
            kept = _one_image(bboxes[b], scores[b], attrs)
            for c, idxs in kept.items():
                for i in idxs:
                    rows.append(np.concatenate([np.array([c, scores[b, c, i]], bboxes.dtype),
                                                bboxes[b, i]]))
            starts.append(len(rows))
        if rows:
            out = np.stack(rows).astype(bboxes.dtype)
        else:
            out, starts = np.full((1, 1), -1, bboxes.dtype), [0, 1]
        ctx.set_output("Out", out, lod=(tuple(starts),))


def _decode(deltas, anchors, h, w, scale):
    """Anchor deltas [K, 4] to boxes in the original image, clipped (Paddle's
    DeltaScoreToPrediction: pixel anchors +1, the -1 on the far corner, then / scale)."""
    t = deltas.dtype.type
    h, w = t(np.round(h / scale)), t(np.round(w / scale))  # std::round: half away from zero
    aw = anchors[:, 2] - anchors[:, 0] + t(1)
    ah = anchors[:, 3] - anchors[:, 1] + t(1)
    cx = deltas[:, 0] * aw + (anchors[:, 0] + aw / t(2))
    cy = deltas[:, 1] * ah + (anchors[:, 1] + ah / t(2))
    tw, th = np.exp(deltas[:, 2]) * aw, np.exp(deltas[:, 3]) * ah
    box = np.stack([cx - tw / t(2), cy - th / t(2), cx + tw / t(2) - t(1),
                    cy + th / t(2) - t(1)], axis=1) / scale
    hi = np.array([w, h, w, h], deltas.dtype) - t(1)
    return np.maximum(np.minimum(box, hi), t(0))


def _retinanet_image(levels, im_info, attrs) -> list[np.ndarray]:
    """Rows [label + 1, score, box] of one image, by descending score (keep_top_k)."""
    from phi.kernels.funcs.detection import greedy_nms

    score_thr, nms_top_k, nms_thr, eta, keep_top_k = attrs
    preds: dict[int, list[np.ndarray]] = {}
    for li, (deltas, scores, anchors) in enumerate(levels):
        t = scores.dtype.type
        flat = scores.reshape(-1)
        thr = t(score_thr) if li < len(levels) - 1 else t(0)  # the last level: threshold 0
        idx = np.nonzero(flat > thr)[0]
        idx = idx[np.argsort(-flat[idx], kind="stable")]
        if -1 < nms_top_k < idx.size:
            idx = idx[:nms_top_k]
        c_num = scores.shape[1]
        boxes = _decode(deltas[idx // c_num], anchors[idx // c_num], *im_info)
        for k, i in enumerate(idx):
            preds.setdefault(int(i % c_num), []).append(np.append(boxes[k], flat[i]))
    pairs = []
    for c in sorted(preds):
        dets = np.stack(preds[c])
        order = np.argsort(-dets[:, 4], kind="stable")  # as the stable sort by score
        t = dets.dtype.type
        kept = greedy_nms(dets[order, :4], t(nms_thr), t(eta), False)
        pairs += [(float(dets[i, 4]), c, int(i)) for i in order[kept]]
    pairs.sort(key=lambda p: -p[0])
    if len(pairs) > keep_top_k:
        pairs = pairs[:max(keep_top_k, 0)]
    return [np.concatenate([[c + 1, preds[c][i][4]], preds[c][i][:4]]) for _, c, i in pairs]


@register_fluid_kernel("retinanet_detection_output", "CPU", ("float32", "float64"))
class RetinanetDetectionOutputKernel(FluidKernel):
    """Decode each FPN level's top anchors, per-class NMS over all levels, keep_top_k per
    image; rows [label + 1, score, x1, y1, x2, y2] with the images' LoD (none kept: Out
    left unwritten, as Paddle does)."""

    def compute(self, ctx) -> None:
        boxes = [t.data for t in ctx.multi_input("BBoxes")]
        scores = [t.data for t in ctx.multi_input("Scores")]
        anchors = [t.data for t in ctx.multi_input("Anchors")]
        im_info = ctx.input_array("ImInfo")
        if not (len(boxes) == len(scores) == len(anchors)) or any(
                b.ndim != 3 or b.shape[2] != 4 or s.ndim != 3 or s.shape[:2] != b.shape[:2]
                or a.shape != (b.shape[1], 4)
                for b, s, a in zip(boxes, scores, anchors, strict=False)):
            raise InvalidArgument("retinanet_detection_output: each level needs BBoxes [N, M, "
                                  "4], Scores [N, M, C] and Anchors [M, 4], got "
                                  f"{[list(b.shape) for b in boxes]}, "
                                  f"{[list(s.shape) for s in scores]}, "
                                  f"{[list(a.shape) for a in anchors]}.")
        attrs = (float(np.float32(ctx.attr("score_threshold"))), ctx.attr("nms_top_k"),
                 float(np.float32(ctx.attr("nms_threshold"))),
                 float(np.float32(ctx.attr("nms_eta"))), ctx.attr("keep_top_k"))
        dtype = scores[0].dtype
        rows, starts = [], [0]
        for n in range(scores[0].shape[0]):
            levels = [(b[n], s[n], a) for b, s, a in zip(boxes, scores, anchors, strict=False)]
            rows += _retinanet_image(levels, tuple(im_info[n, :3]), attrs)
            starts.append(len(rows))
        if rows:  # none kept: Paddle only resizes Out to [0, 6], leaving it unallocated
            ctx.set_output("Out", np.stack(rows).astype(dtype), lod=(tuple(starts),))




def _box_to_delta(t, ex, gt):
    """Paddle's BoxToDelta (no weights, pixel boxes): centre offsets / size, log size ratios."""
    one, half = t(1), t(0.5)
    ew, eh = ex[:, 2] - ex[:, 0] + one, ex[:, 3] - ex[:, 1] + one
    gw, gh = gt[:, 2] - gt[:, 0] + one, gt[:, 3] - gt[:, 1] + one
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.stack([((gt[:, 0] + half * gw) - (ex[:, 0] + half * ew)) / ew,
                         ((gt[:, 1] + half * gh) - (ex[:, 1] + half * eh)) / eh,
                         np.log(gw / ew), np.log(gh / eh)], axis=1).astype(t)


def _rpn_sample(t, overlap, batch_size, fg_fraction, pos, neg, use_random):
    """Paddle's ScoreAssign + SampleRpnFgBgGt for one image (indices into inside anchors)."""
    n_anchor, n_gt = overlap.shape
    low = np.finfo(t).min  # Eigen's max over nothing: no ground truth makes all background
    a_max, g_max = overlap.max(1, initial=low), overlap.max(0, initial=low)
    a_arg = overlap.argmax(1) if n_gt else np.zeros(n_anchor, np.int64)
    is_max = (np.abs(overlap - g_max[None, :]) < np.float32(1e-5)).any(1)
    fg_fake = list(np.flatnonzero(is_max | (a_max >= t(pos))))
    sampling = fg_fraction > 0 and batch_size > 0
    rng = np.random.default_rng() if use_random else None

    def reservoir(num, inds):
        if len(inds) > num:
            if rng is not None:  # Paddle seeds std::minstd_rand from std::random_device
                for i in range(num, len(inds)):
                    k = int(np.floor(np.float32(rng.random()) * i))
                    if k < num:
                        inds[k], inds[i] = inds[i], inds[k]
            del inds[num:]
    if sampling:
        reservoir(int(np.float32(fg_fraction) * np.float32(batch_size)), fg_fake)
    label = np.full(n_anchor, -1)
    label[fg_fake] = 1
    bg_fake = list(np.flatnonzero(a_max < t(neg)))
    if sampling:
        reservoir(batch_size - len(fg_fake), bg_fake)
    loc, weight = [], []
    for i in bg_fake:
        if label[i] == 1:  # a sampled background overwrites a foreground: Paddle keeps a
            loc.append(fg_fake[0])  # zero-weight location entry for it
            weight.append([0, 0, 0, 0])
        label[i] = 0
    weight += [[1, 1, 1, 1]] * (len(fg_fake) - len(loc))
    fg, bg = np.flatnonzero(label == 1), np.flatnonzero(label == 0)
    loc = np.array(loc + list(fg), np.int64)
    return (loc, np.concatenate([fg, bg]), np.r_[np.ones(fg.size), np.zeros(bg.size)],
            a_arg[loc], np.array(weight, t).reshape(-1, 4), fg)


def _target_assign(ctx, op: str, retina: bool) -> None:
    """rpn_target_assign / retinanet_target_assign: per image of GtBoxes' LoD, anchors inside
    the image (straddle threshold), non-crowd ground truth scaled by ImInfo, Paddle's
    ScoreAssign; outputs concatenated with a LoD (anchor indices offset by image)."""
    anchor = ctx.input_array("Anchor")
    slots = ("GtBoxes", "GtLabels", "IsCrowd") if retina else ("GtBoxes", "IsCrowd")
    ts = [ctx.input(s) for s in slots]
    if any(len(v.lod) != 1 for v in ts):
        raise InvalidArgument(f"{op}: {', '.join(slots)} need 1 level of LoD, got "
                              f"{[len(v.lod) for v in ts]} levels.")
    if anchor.ndim != 2 or anchor.shape[1] != 4:
        raise InvalidArgument(f"{op}: Anchor must be [A, 4], got {list(anchor.shape)}.")
    im_info = ctx.input_array("ImInfo")
    t = anchor.dtype.type
    gt, crowd = np.asarray(ts[0].data, t).reshape(-1, 4), np.asarray(ts[-1].data).ravel()
    labels = np.asarray(ts[1].data).ravel() if retina else None
    offs = [v.lod[0] for v in ts]
    n_img = len(offs[0]) - 1
    if im_info.ndim != 2 or im_info.shape[0] < n_img or im_info.shape[1] < 3:
        raise InvalidArgument(f"{op}: ImInfo must hold [height, width, scale] of each of the "
                              f"{n_img} images, got {list(im_info.shape)}.")
    if retina:
        straddle, batch, frac = np.float32(-1), -1, -1.0
        pos, neg = ctx.attr("positive_overlap"), ctx.attr("negative_overlap")
    else:
        straddle, batch = np.float32(ctx.attr("rpn_straddle_thresh")), ctx.attr(
            "rpn_batch_size_per_im")
        frac, pos, neg = (ctx.attr("rpn_fg_fraction"), ctx.attr("rpn_positive_overlap"),
                          ctx.attr("rpn_negative_overlap"))
    use_random = False if retina else ctx.attr("use_random")
    outs = [[] for _ in range(6)]
    loc_lod, score_lod = [0], [0]
    for i in range(n_img):
        h, w, scale = (t(v) for v in im_info[i, :3])
        if straddle >= 0:
            s = t(straddle)
            inside = np.flatnonzero((anchor[:, 0] >= -s) & (anchor[:, 1] >= -s)
                                    & (anchor[:, 2] < w + s) & (anchor[:, 3] < h + s))
        else:
            inside = np.arange(anchor.shape[0])
        keep = crowd[offs[-1][i]:offs[-1][i + 1]] == 0
        boxes = gt[offs[0][i]:offs[0][i + 1]][keep] * scale
        loc, score, lbl, gt_ind, weight, fg = _rpn_sample(
            t, bbox_overlaps(t, anchor[inside], boxes), batch, frac, pos, neg, use_random)
        if retina and fg.size:  # a foreground's label is its matched ground truth's class
            lbl[:fg.size] = labels[offs[1][i]:offs[1][i + 1]][keep][gt_ind[-fg.size:]]
        loc, score = inside[loc], inside[score]
        deltas = _box_to_delta(t, anchor[loc], boxes[gt_ind])
        for k, v in enumerate((loc + i * anchor.shape[0], score + i * anchor.shape[0], deltas,
                               lbl, weight, np.array([loc.size + 1]))):
            outs[k].append(v)
        loc_lod.append(loc_lod[-1] + loc.size)
        score_lod.append(score_lod[-1] + score.size)
    if n_img == 0:
        outs = [[np.zeros(0, np.int64)], [np.zeros(0, np.int64)], [np.zeros((0, 4), t)],
                [np.zeros(0, np.int64)], [np.zeros((0, 4), t)], [np.zeros(0, np.int64)]]
    loc, score, deltas, lbl, weight, fg_num = (np.concatenate(o) for o in outs)
    ll, sl = (tuple(loc_lod),), (tuple(score_lod),)
    ctx.set_output("LocationIndex", loc.astype(np.int32), lod=ll)
    ctx.set_output("ScoreIndex", score.astype(np.int32), lod=sl)
    ctx.set_output("TargetBBox", deltas.reshape(-1, 4).astype(t), lod=ll)
    ctx.set_output("TargetLabel", lbl.astype(np.int32).reshape(-1, 1), lod=sl)
    ctx.set_output("BBoxInsideWeight", weight.reshape(-1, 4).astype(t), lod=ll)
    if retina:
        ctx.set_output("ForegroundNumber", fg_num.astype(np.int32).reshape(-1, 1),
                       lod=(tuple(range(n_img + 1)),))


@register_fluid_kernel("rpn_target_assign", "CPU", FLOATS)
class RpnTargetAssignKernel(FluidKernel):
    """Faster R-CNN's RPN targets: foreground / background anchors sampled to
    rpn_batch_size_per_im (first ones kept when use_random is false), box deltas."""

    def compute(self, ctx) -> None:
        _target_assign(ctx, "rpn_target_assign", retina=False)


@register_fluid_kernel("retinanet_target_assign", "CPU", FLOATS)
class RetinanetTargetAssignKernel(FluidKernel):
    """RetinaNet's targets: every foreground / background anchor (no sampling, no straddle
    filter), foreground labels from GtLabels, ForegroundNumber = foregrounds + 1 per image."""

    def compute(self, ctx) -> None:
        _target_assign(ctx, "retinanet_target_assign", retina=True)


_FLOATS = ("float32", "float64")


_EPS = 1e-6  # Paddle's kEPS: a distance below it never matches


def _boxes(ctx, slot: str) -> np.ndarray:
    b = ctx.input_array(slot)
    if b.ndim < 1 or b.shape[-1] != 4:
        raise InvalidArgument(f"{ctx.type}: the last dim of Input({slot}) must be 4 (xmin, "
                              f"ymin, xmax, ymax), got dims {list(b.shape)}.")
    return b


@register_fluid_kernel("iou_similarity", "CPU", _FLOATS)
class IouSimilarityKernel(FluidKernel):
    """Out[i, j] = IoU(X[i], Y[j]); pixel boxes (box_normalized false) count +1 per side."""

    def compute(self, ctx) -> None:
        x, y = _boxes(ctx, "X"), _boxes(ctx, "Y")
        if x.ndim != 2 or y.ndim != 2:
            raise InvalidArgument(f"iou_similarity: X and Y must be 2-D [N, 4], got dims "
                                  f"{list(x.shape)} and {list(y.shape)}.")
        t = x.dtype.type
        norm = t(0) if ctx.attr("box_normalized") else t(1)
        a = x[:, None, :]
        b = y[None, :, :]
        area_a = (a[..., 2] - a[..., 0] + norm) * (a[..., 3] - a[..., 1] + norm)
        area_b = (b[..., 2] - b[..., 0] + norm) * (b[..., 3] - b[..., 1] + norm)
        iw = np.maximum(np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0])
                        + norm, t(0))
        ih = np.maximum(np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1])
                        + norm, t(0))
        inter = iw * ih
        with np.errstate(invalid="ignore", divide="ignore"):
            out = inter / (area_a + area_b - inter)
        ctx.set_output("Out", out.astype(x.dtype), lod=ctx.input("X").lod)


@register_fluid_kernel("box_clip", "CPU", _FLOATS)
class BoxClipKernel(FluidKernel):
    """Boxes of image i (Input's LoD) clipped to [0, round(w / scale) - 1] x
    [0, round(h / scale) - 1], ImInfo[i] = (h, w, scale)."""

    def compute(self, ctx) -> None:
        boxes = _boxes(ctx, "Input")
        info = ctx.input_array("ImInfo")
        if info.ndim != 2 or info.shape[1] != 3:
            raise InvalidArgument(f"box_clip: ImInfo must be [N, 3] (height, width, scale), "
                                  f"got dims {list(info.shape)}.")
        t = ctx.input("Input")
        level = t.lod[-1] if t.lod else (0, boxes.shape[0])
        if len(level) - 1 != info.shape[0]:
            raise InvalidArgument(f"box_clip: Input holds {len(level) - 1} images (its LoD), "
                                  f"ImInfo {info.shape[0]}.")
        out = boxes.copy()
        for i, (a, b) in enumerate(pairwise(level)):
            h, w, scale = info[i, 0], info[i, 1], info[i, 2]
            im_w, im_h = round_half_away(np, np.asarray([w / scale, h / scale]))  # std::round
            part = out[a:b]
            part[..., 0::2] = np.clip(part[..., 0::2], 0, im_w - 1)
            part[..., 1::2] = np.clip(part[..., 1::2], 0, im_h - 1)
        ctx.set_output("Output", out, lod=t.lod)


@register_fluid_kernel("polygon_box_transform", "CPU", _FLOATS)
class PolygonBoxTransformKernel(FluidKernel):
    """Geometry offsets to coordinates: 4 * w - x on even channels, 4 * h - x on odd ones."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("Input")
        if x.ndim != 4:
            raise InvalidArgument(f"polygon_box_transform: Input must be 4-D (N, C, H, W), got "
                                  f"dims {list(x.shape)}.")
        _, c, h, w = x.shape
        t = x.dtype.type
        cols = (np.arange(w, dtype=x.dtype) * t(4))[None, None, None, :]
        rows = (np.arange(h, dtype=x.dtype) * t(4))[None, None, :, None]
        even = (np.arange(c) % 2 == 0)[None, :, None, None]
        ctx.set_output("Output", np.where(even, cols - x, rows - x).astype(x.dtype))


def _bipartite(dist: np.ndarray, indices: np.ndarray, match: np.ndarray) -> None:
    """Greedy bipartite matching: the largest remaining distance first (ties: the first
    column, then the first row met)."""
    rows = list(range(dist.shape[0]))
    while rows:
        best, bi, bj = -1.0, -1, -1
        for j in range(dist.shape[1]):
            if indices[j] != -1:
                continue
            for i in rows:
                d = dist[i, j]
                if d < _EPS:
                    continue
                if d > best:
                    best, bi, bj = d, i, j
        if bj == -1:
            break
        indices[bj], match[bj] = bi, best
        rows.remove(bi)


@register_fluid_kernel("bipartite_match", "CPU", _FLOATS)
class BipartiteMatchKernel(FluidKernel):
    """Per batch item (DistMat's LoD: rows = ground truths, cols = predictions): bipartite
    matching, then with per_prediction each unmatched column takes its best row at or above
    dist_threshold.  Unmatched: index -1, distance 0."""

    def compute(self, ctx) -> None:
        dist = ctx.input_array("DistMat")
        if dist.ndim != 2:
            raise InvalidArgument(f"bipartite_match: DistMat must be 2-D, got dims "
                                  f"{list(dist.shape)}.")
        t = ctx.input("DistMat")
        level = t.lod[-1] if t.lod else (0, dist.shape[0])
        n, cols = len(level) - 1, dist.shape[1]
        indices = np.full((n, cols), -1, np.int32)
        match = np.zeros((n, cols), dist.dtype)
        threshold = dist.dtype.type(ctx.attr("dist_threshold"))
        per_prediction = ctx.attr("match_type") == "per_prediction"
        for k, (a, b) in enumerate(pairwise(level)):
            d = dist[a:b]
            _bipartite(d, indices[k], match[k])
            if not per_prediction:
                continue
            for j in range(cols):
                if indices[k, j] != -1:
                    continue
                best, bi = -1.0, -1
                for i in range(d.shape[0]):
                    v = d[i, j]
                    if v < _EPS:
                        continue
                    if v >= threshold and v > best:
                        best, bi = v, i
                if bi != -1:
                    indices[k, j], match[k, j] = bi, best
        ctx.set_output("ColToRowMatchIndices", indices, DataType.INT32)
        ctx.set_output("ColToRowMatchDist", match)


@register_fluid_kernel("box_decoder_and_assign", "CPU", _FLOATS)
class BoxDecoderAndAssignKernel(FluidKernel):
    """Decode every class's deltas against the prior (pixel boxes, variances, dw / dh capped
    at box_clip); assign each prior the decoded box of its best non-background class (the
    prior itself when there is none)."""

    def compute(self, ctx) -> None:
        prior = _boxes(ctx, "PriorBox")
        target = ctx.input_array("TargetBox")
        score = ctx.input_array("BoxScore")
        var_t = ctx.input("PriorBoxVar")
        if score.ndim != 2 or prior.ndim != 2 or prior.shape[0] != score.shape[0]:
            raise InvalidArgument(f"box_decoder_and_assign: PriorBox must be [N, 4] and "
                                  f"BoxScore [N, classes], got {list(prior.shape)} and "
                                  f"{list(score.shape)}.")
        n, classes = score.shape
        if target.shape != (n, classes * 4):
            raise InvalidArgument(f"box_decoder_and_assign: TargetBox must be [{n}, "
                                  f"{classes * 4}], got {list(target.shape)}.")
        t = prior.dtype.type
        var = (np.asarray(var_t.data).reshape(-1, 4)[0] if var_t is not None
               else np.ones(4, prior.dtype))
        clip = t(ctx.attr("box_clip"))
        w = prior[:, 2] - prior[:, 0] + t(1)
        h = prior[:, 3] - prior[:, 1] + t(1)
        cx = prior[:, 0] + w / t(2)
        cy = prior[:, 1] + h / t(2)
        d = target.reshape(n, classes, 4)
        dx, dy = var[0] * d[..., 0], var[1] * d[..., 1]
        dw = np.minimum(var[2] * d[..., 2], clip)
        dh = np.minimum(var[3] * d[..., 3], clip)
        tcx = dx * w[:, None] + cx[:, None]
        tcy = dy * h[:, None] + cy[:, None]
        tw = np.exp(dw) * w[:, None]
        th = np.exp(dh) * h[:, None]
        decoded = np.stack([tcx - tw / t(2), tcy - th / t(2), tcx + tw / t(2) - t(1),
                            tcy + th / t(2) - t(1)], axis=-1).astype(prior.dtype)
        assign = prior.copy()
        if classes > 1:
            best = np.argmax(score[:, 1:], axis=1) + 1
            assign = decoded[np.arange(n), best]
        ctx.set_output("DecodeBox", decoded.reshape(n, classes * 4))
        ctx.set_output("OutputAssignBox", assign.astype(prior.dtype))


@register_fluid_kernel("anchor_generator", "CPU", _FLOATS)
class AnchorGeneratorKernel(FluidKernel):
    """Faster R-CNN anchors per feature-map cell: for each aspect ratio and size, a box of
    round(sqrt(stride area / ratio)) x round(that * ratio) scaled by size / stride, centred at
    cell * stride + offset * (stride - 1); and their variances."""

    def compute(self, ctx) -> None:
        x = ctx.input_array("Input")
        if x.ndim != 4:
            raise InvalidArgument(f"anchor_generator: Input must be 4-D (NCHW), got dims "
                                  f"{list(x.shape)}.")
        t = x.dtype.type
        stride = [t(np.float32(v)) for v in ctx.attr("stride")]
        if len(stride) != 2:
            raise InvalidArgument(f"anchor_generator: stride must hold 2 values, got {stride}.")
        variances = ctx.attr("variances")
        if len(variances) != 4:
            raise InvalidArgument(f"anchor_generator: variances must hold 4 values, got "
                                  f"{variances}.")
        sw, sh = stride
        offset = t(np.float32(ctx.attr("offset")))
        fh, fw = x.shape[2], x.shape[3]
        sizes = []
        for ar in ctx.attr("aspect_ratios"):
            ar = t(np.float32(ar))
            for size in ctx.attr("anchor_sizes"):
                size = t(np.float32(size))
                base_w = t(np.floor(np.sqrt(sw * sh / ar) + t(0.5)))  # std::round (>= 0)
                base_h = t(np.floor(base_w * ar + t(0.5)))
                sizes.append((size / sw * base_w, size / sh * base_h))
        wh = np.asarray(sizes, x.dtype).reshape(-1, 2)
        x_ctr = (np.arange(fw, dtype=x.dtype) * sw + offset * (sw - t(1)))[None, :, None]
        y_ctr = (np.arange(fh, dtype=x.dtype) * sh + offset * (sh - t(1)))[:, None, None]
        half_w = t(0.5) * (wh[:, 0] - t(1))
        half_h = t(0.5) * (wh[:, 1] - t(1))
        anchors = np.stack(np.broadcast_arrays(x_ctr - half_w, y_ctr - half_h, x_ctr + half_w,
                                               y_ctr + half_h), axis=-1).astype(x.dtype)
        var = np.broadcast_to(np.asarray(variances, np.float32).astype(x.dtype),
                              anchors.shape).copy()
        ctx.set_output("Anchors", anchors)
        ctx.set_output("Variances", var)


@register_fluid_kernel("density_prior_box", "CPU", _FLOATS)
class DensityPriorBoxKernel(FluidKernel):
    """Densely tiled prior boxes: for each fixed size (with its density) and ratio, density^2
    boxes spread over the cell; normalized by the image size and kept within [0, 1]."""

    def compute(self, ctx) -> None:
        x, image = ctx.input_array("Input"), ctx.input_array("Image")
        if x.ndim != 4 or image.ndim != 4:
            raise InvalidArgument(f"density_prior_box: Input and Image must be 4-D, got dims "
                                  f"{list(x.shape)} and {list(image.shape)}.")
        sizes, ratios = ctx.attr("fixed_sizes"), ctx.attr("fixed_ratios")
        densities = ctx.attr("densities")
        if len(sizes) != len(densities):
            raise InvalidArgument(f"density_prior_box: fixed_sizes ({len(sizes)}) and "
                                  f"densities ({len(densities)}) must have the same length.")
        t = x.dtype.type
        img_h, img_w = image.shape[2], image.shape[3]
        fh, fw = x.shape[2], x.shape[3]
        step_w, step_h = ctx.attr("step_w"), ctx.attr("step_h")
        if step_w == 0 or step_h == 0:
            sw, sh = t(img_w) / t(fw), t(img_h) / t(fh)
        else:
            sw, sh = t(np.float32(step_w)), t(np.float32(step_h))
        step_average = int((sw + sh) * 0.5)  # static_cast<int>
        offset = t(np.float32(ctx.attr("offset")))
        boxes = []
        for h in range(fh):
            for w in range(fw):
                cx = t((t(w) + offset) * sw)
                cy = t((t(h) + offset) * sh)
                cell = []
                for size, density in zip(sizes, densities, strict=True):
                    shift = step_average // density
                    for r in ratios:
                        sq = np.float32(np.sqrt(np.float32(r)))
                        bw = float(np.float32(np.float32(size) * sq))
                        bh = float(np.float32(np.float32(size) / sq))
                        dcx = t(float(cx) - step_average / 2.0 + shift / 2.0)
                        dcy = t(float(cy) - step_average / 2.0 + shift / 2.0)
                        for di in range(density):
                            for dj in range(density):
                                tx = float(t(dcx + t(dj * shift)))
                                ty = float(t(dcy + t(di * shift)))
                                cell.append((max((tx - bw / 2.0) / img_w, 0.0),
                                             max((ty - bh / 2.0) / img_h, 0.0),
                                             min((tx + bw / 2.0) / img_w, 1.0),
                                             min((ty + bh / 2.0) / img_h, 1.0)))
                boxes.append(cell)
        n = len(boxes[0]) if boxes else sum(len(ratios) * d * d for d in densities)
        out = np.asarray(boxes, np.float64).reshape(fh, fw, n, 4).astype(x.dtype)
        if ctx.attr("clip"):
            out = np.clip(out, t(0), t(1))
        var = np.broadcast_to(np.asarray(ctx.attr("variances"), np.float32).astype(x.dtype),
                              out.shape).copy()
        if ctx.attr("flatten_to_2d"):
            out, var = out.reshape(-1, 4), var.reshape(-1, 4)
        ctx.set_output("Boxes", out)
        ctx.set_output("Variances", var)


def _legacy_nms(ctx, return_index: bool) -> None:
    """multiclass_nms / multiclass_nms2: the 3-D form or the LoD form (BBoxes' LoD), Out with
    the images' LoD; nothing kept at all: Out = [[-1]] (multiclass_nms) as Paddle writes it."""
    from phi.kernels.multiclass_nms3 import multiclass_nms_batch

    bboxes, scores = ctx.input_array("BBoxes"), ctx.input_array("Scores")
    starts = None
    if scores.ndim == 2:
        t = ctx.input("BBoxes")
        if not t.lod:
            raise InvalidArgument(f"{ctx.type}: 2-D Scores need BBoxes with a LoD (boxes per "
                                  "image).")
        starts = list(t.lod[-1])
    attrs = (ctx.attr("background_label"), float(np.float32(ctx.attr("score_threshold"))),
             ctx.attr("nms_top_k"), float(np.float32(ctx.attr("nms_threshold"))),
             float(np.float32(ctx.attr("nms_eta"))), ctx.attr("keep_top_k"),
             ctx.attr("normalized"))
    out, index, counts = multiclass_nms_batch(bboxes, scores, starts, attrs)
    lod = from_lengths([counts])
    if out.shape[0] == 0 and not return_index:
        out, lod = np.full((1, 1), -1, bboxes.dtype), ((0, 1),)
    ctx.set_output("Out", out, lod=lod)
    if return_index:
        ctx.set_output("Index", index, DataType.INT32, lod=lod)


@register_fluid_kernel("multiclass_nms", "CPU", _FLOATS)
class MulticlassNmsKernel(FluidKernel):
    """Per-class NMS, keep_top_k per image; rows [label, score, x1, y1, x2, y2]."""

    def compute(self, ctx) -> None:
        _legacy_nms(ctx, return_index=False)


@register_fluid_kernel("multiclass_nms2", "CPU", _FLOATS)
class MulticlassNms2Kernel(FluidKernel):
    """multiclass_nms with the kept boxes' flat indices (Index)."""

    def compute(self, ctx) -> None:
        _legacy_nms(ctx, return_index=True)


@register_fluid_kernel("collect_fpn_proposals", "CPU", _FLOATS)
class CollectFpnProposalsKernel(FluidKernel):
    """The post_nms_topN best RoIs of all levels (stable by score), regrouped by image in that
    order; FpnRois with a LoD per image and RoisNum (with MultiLevelRoIsNum)."""

    def compute(self, ctx) -> None:
        rois = ctx.multi_input("MultiLevelRois")
        scores = ctx.multi_input("MultiLevelScores")
        nums = ctx.multi_input("MultiLevelRoIsNum")
        if len(rois) != len(scores):
            raise InvalidArgument(f"collect_fpn_proposals: {len(rois)} MultiLevelRois but "
                                  f"{len(scores)} MultiLevelScores.")
        all_rois, all_scores, all_images = [], [], []
        n_images = 0
        for level, (r, s) in enumerate(zip(rois, scores, strict=True)):
            if nums and nums[level] is not None:
                counts = np.asarray(nums[level].data).reshape(-1).astype(np.int64)
            elif r.lod:
                counts = np.diff(np.asarray(r.lod[-1], np.int64))
            else:
                raise InvalidArgument("collect_fpn_proposals: give MultiLevelRoIsNum or a LoD "
                                      "on MultiLevelRois.")
            n_images = max(n_images, counts.size)
            all_rois.append(r.data.reshape(-1, 4))
            all_scores.append(np.asarray(s.data).reshape(-1))
            all_images.append(np.repeat(np.arange(counts.size), counts))
        boxes = np.concatenate(all_rois)
        score = np.concatenate(all_scores)
        image = np.concatenate(all_images)
        top = np.argsort(-score, kind="stable")[:max(int(ctx.attr("post_nms_topN")), 0)]
        top = top[np.argsort(image[top], kind="stable")]
        per_image = np.bincount(image[top], minlength=n_images)
        lod = from_lengths([per_image])
        ctx.set_output("FpnRois", boxes[top], lod=lod)
        ctx.set_output("RoisNum", per_image.astype(np.int32), DataType.INT32)


@register_fluid_kernel("generate_proposals", "CPU", _FLOATS)
class GenerateProposalsKernel(FluidKernel):
    """generate_proposals v1: generate_proposals_v2 with ImInfo (h, w, scale), min_size on the
    original image's scale, pixel offsets; RpnRois / RpnRoiProbs with a LoD per image."""

    def compute(self, ctx) -> None:
        from phi.kernels.generate_proposals import proposals_one_image

        scores, deltas = ctx.input_array("Scores"), ctx.input_array("BboxDeltas")
        info = ctx.input_array("ImInfo")
        if scores.ndim != 4 or deltas.shape[1] != 4 * scores.shape[1]:
            raise InvalidArgument(f"generate_proposals: Scores [N, A, H, W] and BboxDeltas "
                                  f"[N, 4A, H, W] expected, got {list(scores.shape)} and "
                                  f"{list(deltas.shape)}.")
        if info.ndim != 2 or info.shape != (scores.shape[0], 3):
            raise InvalidArgument(f"generate_proposals: ImInfo must be [N, 3], got "
                                  f"{list(info.shape)}.")
        anc = ctx.input_array("Anchors").reshape(-1, 4)
        var = ctx.input_array("Variances").reshape(-1, 4)
        rois, probs, nums = [], [], []
        for i in range(scores.shape[0]):
            s = np.transpose(scores[i], (1, 2, 0)).reshape(-1)
            d = np.transpose(deltas[i], (1, 2, 0)).reshape(-1, 4)
            b, p = proposals_one_image(info[i, :2], anc, var, d, s, ctx.attr("pre_nms_topN"),
                                       ctx.attr("post_nms_topN"), ctx.attr("nms_thresh"),
                                       ctx.attr("min_size"), ctx.attr("eta"), True,
                                       im_scale=info[i, 2])
            rois.append(b)
            probs.append(p)
            nums.append(b.shape[0])
        lod = from_lengths([nums])
        ctx.set_output("RpnRois", np.concatenate(rois).astype(scores.dtype), lod=lod)
        ctx.set_output("RpnRoiProbs", np.concatenate(probs).astype(scores.dtype), lod=lod)
        ctx.set_output("RpnRoisNum", np.asarray(nums, np.int32), DataType.INT32)


@register_fluid_kernel("mine_hard_examples", "CPU", _FLOATS)
class MineHardExamplesKernel(FluidKernel):
    """SSD negative mining per image: max_negative takes the unmatched priors (distance below
    neg_dist_threshold) with the largest ClsLoss, neg_pos_ratio per positive; hard_example
    takes the sample_size largest ClsLoss + LocLoss and unmatches the positives not taken."""

    def compute(self, ctx) -> None:
        cls = ctx.input_array("ClsLoss")
        loc = ctx.input("LocLoss")
        match = ctx.input_array("MatchIndices")
        dist = ctx.input_array("MatchDist")
        if cls.shape != match.shape or dist.shape != match.shape or cls.ndim != 2:
            raise InvalidArgument(f"mine_hard_examples: ClsLoss, MatchIndices and MatchDist "
                                  f"must be [N, priors] alike, got {list(cls.shape)}, "
                                  f"{list(match.shape)}, {list(dist.shape)}.")
        kind = ctx.attr("mining_type")
        if kind not in ("max_negative", "hard_example"):
            raise InvalidArgument(f"mine_hard_examples: mining_type must be max_negative or "
                                  f"hard_example, got {kind!r}.")
        thr = cls.dtype.type(np.float32(ctx.attr("neg_dist_threshold")))
        updated = match.copy()
        neg, level = [], [0]
        for n in range(cls.shape[0]):
            if kind == "max_negative":
                ok = (match[n] == -1) & (dist[n] < thr)
                loss = cls[n]
                limit = int(np.count_nonzero(match[n] != -1)
                            * float(np.float32(ctx.attr("neg_pos_ratio"))))
            else:
                ok = np.ones(cls.shape[1], bool)
                loss = cls[n] + (loc.data[n] if loc is not None else 0)
                limit = int(ctx.attr("sample_size"))
            cand = np.nonzero(ok)[0]
            cand = cand[np.argsort(-loss[cand], kind="stable")]
            chosen = sorted(cand[:max(0, min(limit, cand.size))].tolist())
            if kind == "hard_example":
                taken = set(chosen)
                for m in range(cls.shape[1]):
                    if match[n, m] > -1 and m not in taken:
                        updated[n, m] = -1
                chosen = [m for m in chosen if match[n, m] == -1]
            neg.extend(chosen)
            level.append(level[-1] + len(chosen))
        ctx.set_output("NegIndices", np.asarray(neg, np.int32).reshape(-1, 1), DataType.INT32,
                       lod=(tuple(level),))
        ctx.set_output("UpdatedMatchIndices", updated, DataType.INT32)


def _fpn_levels(attrs, inputs) -> dict[str, int]:
    n = int(attrs.get("max_level", 0)) - int(attrs.get("min_level", 0)) + 1
    return {"MultiFpnRois": n, "MultiLevelRoIsNum": n if inputs.get("RoisNum") is not None
            else 0}


op_hooks("distribute_fpn_proposals", output_counts=_fpn_levels)

