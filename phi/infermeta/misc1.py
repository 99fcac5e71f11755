"""InferMeta of helper `misc1` (Paddle's paddle/phi/infermeta/{unary,binary,nullary}.cc and the
float-status ops' InferShape): check_numerics, the float-status ops, pow2-decay, rrelu, dirichlet
and gumbel_softmax (gaussian_inplace uses UnchangedInferMeta)."""

from __future__ import annotations

from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument
from phi.infermeta._utils import UNKNOWN, fmt_dims
from phi.infermeta.nn import unchanged_infer_meta_check_axis

__all__ = [
    "check_numerics_infer_meta",
    "dirichlet_infer_meta",
    "float_status_infer_meta",
    "gumbel_softmax_infer_meta",
    "pow2_decay_with_linear_warmup_infer_meta",
    "rrelu_infer_meta",
]


def check_numerics_infer_meta(tensor, op_type: str, var_name: str, check_nan_inf_level: int,
                              stack_height_limit: int, output_dir: str, stats, values) -> None:
    """CheckNumericsInferMeta: stats int64 [3] (NaN, Inf, zero counts), values float32 [3]
    (max, min, mean)."""
    stats.set_dims((3,))
    stats.set_dtype(DataType.INT64)
    values.set_dims((3,))
    values.set_dtype(DataType.FLOAT32)


def float_status_infer_meta(*args) -> None:
    """The float-status ops' InferShape: a float32 [8] status tensor (the last argument)."""
    out = args[-1]
    out.set_dims((8,))
    out.set_dtype(DataType.FLOAT32)


def _one_element(op: str, slot: str, dims) -> None:
    dims = tuple(dims)
    if UNKNOWN in dims:
        return
    n = 1
    for d in dims:
        n *= d
    if n != 1:
        raise InvalidArgument(f"{op}: the number of elements of Input({slot}) should be 1, but "
                              f"received the shape {fmt_dims(dims)}.")


def pow2_decay_with_linear_warmup_infer_meta(lr, step, warmup_steps: int, total_steps: int,
                                             base_lr: float, end_lr: float, lr_out,
                                             step_out) -> None:
    """Pow2DecayWithLinearWarmupInferMeta: LearningRate and Step hold one element, Step is
    int64; the outputs take their inputs' meta."""
    op = "pow2_decay_with_linear_warmup"
    _one_element(op, "LearningRate", lr.dims)
    _one_element(op, "Step", step.dims)
    if step.dtype is not DataType.INT64:
        raise InvalidArgument(f"{op}: the data type of Input(Step) must be int64, but received "
                              f"{step.dtype.name.lower()}.")
    lr_out.share_meta(lr)
    step_out.share_meta(step)


def rrelu_infer_meta(x, lower: float, upper: float, is_test: bool, out, noise) -> None:
    """RReluInferMeta: 0 <= lower <= upper <= 1; out and noise take x's meta."""
    for name, value in (("lower", lower), ("upper", upper)):
        if not 0.0 <= value <= 1.0:
            raise InvalidArgument(f"rrelu: the {name} value should be in [0, 1], but received "
                                  f"{name} = {value}.")
    if upper < lower:
        raise InvalidArgument(f"rrelu: the upper value should be greater than or equal to the "
                              f"lower value, but received lower = {lower}, upper = {upper}.")
    out.share_meta(x)
    noise.share_meta(x)


def dirichlet_infer_meta(alpha, out) -> None:
    """DirichletInferMeta: alpha (rank >= 1) gives out of its dims and dtype."""
    if len(tuple(alpha.dims)) < 1:
        raise InvalidArgument("dirichlet: the rank of Input(Alpha) must be at least 1, but "
                              "received a 0-D tensor.")
    out.share_meta(alpha)


def gumbel_softmax_infer_meta(x, temperature: float, hard: bool, axis: int, out) -> None:
    """GumbelSoftmaxInferMeta: UnchangedInferMetaCheckAxis (axis in [-rank, rank))."""
    unchanged_infer_meta_check_axis(x, axis, out)
