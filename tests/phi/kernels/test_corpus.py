"""Kernels against Paddle 2.6.2's recorded outputs of the legacy ops that map to them.

Each record maps a corpus case (a legacy OpDesc with its inputs and Paddle's outputs) to a phi
call by hand: elementwise ``axis`` -1 is plain broadcasting and another axis becomes a reshape
of Y; matmul_v2 ``trans_x``/``trans_y``; reshape2 reads its ShapeTensor; reduce ``dim``/
``keep_dim``/``reduce_all``; ``dtype``/``out_dtype`` attributes use the protobuf numbering.
"""

from __future__ import annotations

import numpy as np
import pytest

from phi.common import DataType
from tests.phi.kernels.conftest import call_op, case_attr, load_case


def _legacy_y(x, y, axis):
    # Paddle's legacy elementwise axis aligns Y's first dim with X's dim `axis`
    if axis == -1 or axis == x.ndim - y.ndim:
        return y
    return y.reshape(y.shape + (1,) * (x.ndim - axis - y.ndim))


def _elementwise(op):
    def make(case, a):
        x, y = a["in.X.0"], a["in.Y.0"]
        return op, (x, _legacy_y(x, y, case_attr(case, "axis"))), {}
    return make


def _unary(op):
    return lambda case, a: (op, (a["in.X.0"],), {})


def _xs(a):
    return [a[k] for k in sorted((k for k in a if k.startswith("in.X.")),
                                 key=lambda k: int(k.rsplit(".", 1)[1]))]


def _split(case, a):
    x = a["in.X.0"]
    axis = case_attr(case, "axis")
    sections = case_attr(case, "sections")
    num = case_attr(case, "num")
    if not sections:
        sections = [x.shape[axis] // num] * num  # split with `num` is equal sections
    return "split", (x, sections, axis), {}


def _reduce(op):
    def make(case, a):
        x = a["in.X.0"]
        axis = [] if case_attr(case, "reduce_all") else case_attr(case, "dim")
        keep = case_attr(case, "keep_dim")
        if op == "sum":
            return "sum", (x, axis, DataType.from_proto(case_attr(case, "out_dtype")), keep), {}
        return "mean", (x, axis, keep), {}
    return make


# case name -> (case, arrays) -> (op, args, kwargs)
CASES = {
    "elementwise_add_0d": _elementwise("add"),
    "elementwise_add_bidirectional": _elementwise("add"),
    "elementwise_add_f32_same": _elementwise("add"),
    "elementwise_add_f64_axis_neg1": _elementwise("add"),
    "elementwise_add_y_trailing1": _elementwise("add"),
    "elementwise_sub_i64": _elementwise("subtract"),
    "elementwise_mul_bool": _elementwise("multiply"),
    "elementwise_mul_f64": _elementwise("multiply"),
    "elementwise_div_f32": _elementwise("divide"),
    "elementwise_min_f32_axis1": _elementwise("minimum"),
    "scale_before": lambda c, a: ("scale", (a["in.X.0"], case_attr(c, "scale"),
                                            case_attr(c, "bias"),
                                            case_attr(c, "bias_after_scale")), {}),
    "scale_f16": lambda c, a: ("scale", (a["in.X.0"], case_attr(c, "scale"),
                                         case_attr(c, "bias"),
                                         case_attr(c, "bias_after_scale")), {}),
    "empty_dim_relu": _unary("relu"),
    "sigmoid_f64": _unary("sigmoid"),
    "tanh_f32": _unary("tanh"),
    "exp_f16": _unary("exp"),
    "softmax_f64": lambda c, a: ("softmax", (a["in.X.0"], case_attr(c, "axis")), {}),
    "matmul_v2_2d": lambda c, a: ("matmul", (a["in.X.0"], a["in.Y.0"], case_attr(c, "trans_x"),
                                             case_attr(c, "trans_y")), {}),
    "matmul_v2_bcast_batch": lambda c, a: ("matmul", (a["in.X.0"], a["in.Y.0"],
                                                      case_attr(c, "trans_x"),
                                                      case_attr(c, "trans_y")), {}),
    "matmul_v2_vec_mat": lambda c, a: ("matmul", (a["in.X.0"], a["in.Y.0"],
                                                  case_attr(c, "trans_x"),
                                                  case_attr(c, "trans_y")), {}),
    # the Shape input tensor wins over the `shape` attribute ([1, 12] here)
    "reshape2_shape_tensor": lambda c, a: ("reshape", (a["in.X.0"],
                                                       a["in.Shape.0"].tolist()), {}),
    "transpose2_3d": lambda c, a: ("transpose", (a["in.X.0"], case_attr(c, "axis")), {}),
    "concat_neg_axis_3": lambda c, a: ("concat", (_xs(a), case_attr(c, "axis")), {}),
    "empty_dim_concat": lambda c, a: ("concat", (_xs(a), case_attr(c, "axis")), {}),
    "split_num": _split,
    "reduce_mean_keep": _reduce("mean"),
    "reduce_sum_i32": _reduce("sum"),
    "reduce_sum_bool_out_i64": _reduce("sum"),
    "cast_bool_to_i64": lambda c, a: ("cast", (a["in.X.0"],
                                               DataType.from_proto(case_attr(c, "out_dtype"))),
                                      {}),
    "cast_f32_to_u8": lambda c, a: ("cast", (a["in.X.0"],
                                             DataType.from_proto(case_attr(c, "out_dtype"))), {}),
    "cast_f64_to_f32": lambda c, a: ("cast", (a["in.X.0"],
                                              DataType.from_proto(case_attr(c, "out_dtype"))),
                                     {}),
    "fill_constant_f16": lambda c, a: ("full", (case_attr(c, "shape"), case_attr(c, "value"),
                                                DataType.from_proto(case_attr(c, "dtype"))), {}),
    "fill_any_like_i32": lambda c, a: ("full_like", (a["in.X.0"], case_attr(c, "value"),
                                                     DataType.from_proto(case_attr(c, "dtype"))),
                                       {}),
}


def _expected(case, arrays):
    outs = case["outputs"]["Out"]
    return [(arrays[o["npz_key"]], o["tolerance"]) for o in outs]


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_paddle_recorded_output(name):
    case, arrays = load_case(name)
    assert case["status"] == "ok"
    op, args, kwargs = CASES[name](case, arrays)
    got = call_op(op, *args, **kwargs)
    got_list = got if isinstance(got, list) else [got]
    expected = _expected(case, arrays)
    assert len(got_list) == len(expected)
    for g, (want, tol) in zip(got_list, expected, strict=False):
        assert g.shape == want.shape
        assert g.dtype == want.dtype
        if want.dtype.kind in "fc":
            np.testing.assert_allclose(g, want, rtol=tol["rtol"], atol=tol["atol"])
        else:
            np.testing.assert_array_equal(g, want)


def test_relu_float16_is_not_registered_on_cpu_as_in_paddle():
    case, arrays = load_case("relu_f16_cpu")
    assert case["status"] == "run_error"
    from phi.core.errors import NotFound

    with pytest.raises(NotFound, match="Selected wrong DataType `float16`"):
        call_op("relu", arrays["in.X.0"])
