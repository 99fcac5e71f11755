"""InferMeta of the optimizer ops (issue 13): every output takes the meta of the input it
updates (ParamOut <- Param, Moment1Out <- Moment1, ...), as Paddle's *InferMeta do; flags and
counters have fixed dtypes."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.infermeta._utils import set_meta

__all__ = ["adadelta_infer_meta", "adagrad_infer_meta", "adam_infer_meta", "adamax_infer_meta",
           "adamw_infer_meta", "average_accumulates_infer_meta",
           "check_finite_and_unscale_infer_meta", "clip_by_norm_infer_meta",
           "decayed_adagrad_infer_meta", "lamb_infer_meta", "lars_momentum_infer_meta",
           "merged_momentum_infer_meta", "momentum_infer_meta", "rmsprop_infer_meta",
           "sgd_infer_meta", "update_loss_scaling_infer_meta"]


def _like(n_args: int, pairs: dict[int, int], name: str):
    """An InferMeta whose output k shares the meta of argument pairs[k] (lists pairwise)."""

    def infer(*args) -> None:
        outs = args[n_args:]
        for k, i in pairs.items():
            out, src = outs[k], args[i]
            if out is None or src is None:
                continue
            if isinstance(out, list):
                for o, s in zip(out, src, strict=False):
                    if o is not None:
                        o.share_meta(s)
            else:
                out.share_meta(src)

    infer.__name__ = name
    infer.__doc__ = "Outputs take the meta of the inputs they update."
    return infer


# (number of inputs + attributes, {output index: argument index})
sgd_infer_meta = _like(5, {0: 0, 1: 3}, "sgd_infer_meta")
momentum_infer_meta = _like(11, {0: 0, 1: 2, 2: 4}, "momentum_infer_meta")
merged_momentum_infer_meta = _like(11, {0: 0, 1: 2, 2: 4}, "merged_momentum_infer_meta")
lars_momentum_infer_meta = _like(11, {0: 0, 1: 1, 2: 4}, "lars_momentum_infer_meta")
adam_infer_meta = _like(16, {0: 0, 1: 3, 2: 4, 3: 5, 4: 6, 5: 7}, "adam_infer_meta")
adamw_infer_meta = _like(19, {0: 0, 1: 3, 2: 4, 3: 5, 4: 6, 5: 7}, "adamw_infer_meta")
lamb_infer_meta = _like(15, {0: 0, 1: 3, 2: 4, 3: 5, 4: 6, 5: 7}, "lamb_infer_meta")
adagrad_infer_meta = _like(7, {0: 0, 1: 2, 2: 4}, "adagrad_infer_meta")
decayed_adagrad_infer_meta = _like(6, {0: 0, 1: 2}, "decayed_adagrad_infer_meta")
adamax_infer_meta = _like(11, {0: 0, 1: 3, 2: 4, 3: 6}, "adamax_infer_meta")
adadelta_infer_meta = _like(9, {0: 0, 1: 2, 2: 3, 3: 5}, "adadelta_infer_meta")
rmsprop_infer_meta = _like(12, {0: 0, 1: 3, 2: 1, 3: 5, 4: 6}, "rmsprop_infer_meta")
clip_by_norm_infer_meta = _like(2, {0: 0}, "clip_by_norm_infer_meta")


def check_finite_and_unscale_infer_meta(x: list, scale, out: list, found_infinite) -> None:
    """Out[i] like X[i]; FoundInfinite a bool [1]."""
    for o, s in zip(out, x, strict=False):
        if o is not None:
            o.share_meta(s)
    set_meta(found_infinite, (1,), DataType.BOOL)


def update_loss_scaling_infer_meta(x: list, found_infinite, prev_loss_scaling, in_good_steps,
                                   in_bad_steps, incr_every_n_steps, decr_every_n_nan_or_inf,
                                   incr_ratio, decr_ratio, stop_update, out: list, loss_scaling,
                                   out_good_steps, out_bad_steps) -> None:
    """Out[i] like X[i]; the scale like PrevLossScaling; the step counters int32 [1]."""
    for o, s in zip(out, x, strict=False):
        if o is not None:
            o.share_meta(s)
    if loss_scaling is not None:
        loss_scaling.share_meta(prev_loss_scaling)
    set_meta(out_good_steps, (1,), DataType.INT32)
    set_meta(out_bad_steps, (1,), DataType.INT32)


def average_accumulates_infer_meta(param, in_sum_1, in_sum_2, in_sum_3, in_num_accumulates,
                                   in_old_num_accumulates, in_num_updates, average_window,
                                   max_average_window, min_average_window, out_sum_1,
                                   out_sum_2, out_sum_3, out_num_accumulates,
                                   out_old_num_accumulates, out_num_updates) -> None:
    """The sums like param; the counters int64 [1]."""
    for o in (out_sum_1, out_sum_2, out_sum_3):
        if o is not None:
            o.share_meta(param)
    for o in (out_num_accumulates, out_old_num_accumulates, out_num_updates):
        set_meta(o, (1,), DataType.INT64)
