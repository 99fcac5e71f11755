"""Fluid kernels of detection helper ops Paddle 2.6.2 runs as STRUCTURE kernels
(paddle/fluid/operators/detection/*): iou_similarity, box_clip, polygon_box_transform,
bipartite_match, box_decoder_and_assign."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument

from phi.core.lod import from_lengths
from phi.kernels.funcs.quant import round_half_away

from fluid_compat.framework.op_registry import op_hooks
from fluid_compat.operators.expected_kernel import expected_from_var
from fluid_compat.operators.fluid_kernels.registry import FluidKernel, register_fluid_kernel

__all__: list[str] = []

_F = ("float32", "float64")
_EPS = 1e-6  # Paddle's kEPS: a distance below it never matches


def _boxes(ctx, slot: str) -> np.ndarray:
    b = ctx.input_array(slot)
    if b.ndim < 1 or b.shape[-1] != 4:
        raise InvalidArgument(f"{ctx.type}: the last dim of Input({slot}) must be 4 (xmin, "
                              f"ymin, xmax, ymax), got dims {list(b.shape)}.")
    return b


@register_fluid_kernel("iou_similarity", "CPU", _F)
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


@register_fluid_kernel("box_clip", "CPU", _F)
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


@register_fluid_kernel("polygon_box_transform", "CPU", _F)
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


@register_fluid_kernel("bipartite_match", "CPU", _F)
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


@register_fluid_kernel("box_decoder_and_assign", "CPU", _F)
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


@register_fluid_kernel("anchor_generator", "CPU", _F)
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


@register_fluid_kernel("density_prior_box", "CPU", _F)
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


@register_fluid_kernel("multiclass_nms", "CPU", _F)
class MulticlassNmsKernel(FluidKernel):
    """Per-class NMS, keep_top_k per image; rows [label, score, x1, y1, x2, y2]."""

    def compute(self, ctx) -> None:
        _legacy_nms(ctx, return_index=False)


@register_fluid_kernel("multiclass_nms2", "CPU", _F)
class MulticlassNms2Kernel(FluidKernel):
    """multiclass_nms with the kept boxes' flat indices (Index)."""

    def compute(self, ctx) -> None:
        _legacy_nms(ctx, return_index=True)


@register_fluid_kernel("collect_fpn_proposals", "CPU", _F)
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


op_hooks("collect_fpn_proposals", get_expected_kernel_type=expected_from_var("MultiLevelRois"))


@register_fluid_kernel("generate_proposals", "CPU", _F)
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


@register_fluid_kernel("mine_hard_examples", "CPU", _F)
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


op_hooks("mine_hard_examples", get_expected_kernel_type=expected_from_var("ClsLoss"))
