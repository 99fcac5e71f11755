"""Signatures equal what Paddle 2.6.2 printed (shared/corpus/kernel_signatures_observed.json).

`CONDITIONS` is the table: an op, the context of one observed condition (reconstructed from the
single-op case or model named in the corpus' ``seen_in``) and the signature Paddle printed.  Rows
marked ``corpus=False`` are branches the corpus did not exercise; they follow Paddle 2.6.2's
mapping functions.  The copy in data/observed_signatures.json keeps the core test independent of
the corpus; when the corpus is present, every single-op case and model op of these types is
also replayed from its recorded op_desc.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

import pytest

from argmap import KernelSignature, get_kernel_signature
from tests.argmap.corpus import CORPUS, OPS, corpus_json, load_data, trace_signature
from tests.argmap.dict_context import DictContext


class Row(NamedTuple):
    op: str
    ctx: DictContext
    expected: str | None
    source: str  # the seen_in entry the context comes from, or why the row exists
    corpus: bool = True


def C(inputs: dict | None = None, outputs: dict | None = None, **attrs: Any) -> DictContext:
    return DictContext(inputs, outputs, attrs)


XY = {"X": ["x"], "Y": ["y"]}
X = {"X": ["x"]}
OUT = {"Out": ["out"]}
CONV_IN = {"Input": ["input"], "Filter": ["filter"]}
CONV_ATTRS = {"strides": [1, 1], "paddings": [1, 1], "padding_algorithm": "EXPLICIT", "groups": 1,
              "dilations": [1, 1], "data_format": "NCHW"}
BN_IN = {"X": ["x"], "Scale": ["s"], "Bias": ["b"], "Mean": ["m"], "Variance": ["v"],
         "MomentumTensor": []}
BN_OUT = {"Y": ["y"], "MeanOut": ["m"], "VarianceOut": ["v"], "SavedMean": ["sm"],
          "SavedVariance": ["sv"]}
BN_ATTRS = {"momentum": 0.9, "epsilon": 1e-5, "data_layout": "NCHW", "trainable_statistics": False}
SIG_BN = ("name: batch_norm; inputs: X, Mean, Variance, Scale, Bias; attributes: is_test, "
          "momentum, epsilon, data_layout, use_global_stats, trainable_statistics; outputs: Y, "
          "MeanOut, VarianceOut, SavedMean, SavedVariance, ReserveSpace")
SIG_BN_INFER = ("name: batch_norm_infer; inputs: X, Mean, Variance, Scale, Bias; attributes: "
                "momentum, epsilon, data_layout; outputs: Y, MeanOut, VarianceOut")
POOL_ATTRS = {"ksize": [2, 2], "strides": [2, 2], "paddings": [0, 0], "ceil_mode": False,
              "exclusive": True, "data_format": "NCHW", "pooling_type": "max",
              "global_pooling": False, "adaptive": False, "padding_algorithm": "EXPLICIT",
              "use_cudnn": False}
FILL = {"dtype": 5, "shape": [2, 3], "value": 1.5, "str_value": "", "force_cpu": False,
        "place_type": -1}
SPLIT_IN = {"X": ["x"], "AxisTensor": [], "SectionsTensorList": []}


def _elementwise(op: str, kernel: str, plain: str, raw: str | None) -> list[Row]:
    rows = [Row(op, C(XY, OUT, axis=-1),
                f"name: {kernel}; inputs: X, Y; attributes: ; outputs: Out", plain)]
    rows.append(Row(op, C(XY, OUT, axis=1),
                    f"name: {kernel}_raw; inputs: X, Y; attributes: axis; outputs: Out",
                    raw or "Paddle 2.6.2 elementwise_sig.cc: axis != -1", corpus=raw is not None))
    return rows


CONDITIONS: list[Row] = [
    Row("feed", C({"X": ["feed"]}, OUT, col=0),
        "name: feed_dense_tensor; inputs: X; attributes: col; outputs: Out", "models/lenet"),
    Row("fetch", C({"X": ["out"]}, {"Out": ["fetch"]}, col=0), None, "models/lenet"),
    Row("scale", C({"X": ["x"], "ScaleTensor": []}, OUT, scale=2.0, bias=1.0,
                   bias_after_scale=False),
        "name: scale; inputs: X; attributes: scale, bias, bias_after_scale; outputs: Out",
        "single_ops/scale_before"),
    Row("scale", C({"X": ["x"], "ScaleTensor": ["s"]}, OUT, scale=1.0, bias=0.0,
                   bias_after_scale=True),
        "name: scale; inputs: X; attributes: ScaleTensor, bias, bias_after_scale; outputs: Out",
        "single_ops/scale_scale_tensor"),
    Row("scale", DictContext(X, OUT, {"scale": 2.0, "bias": 0.0, "bias_after_scale": True},
                             kinds={"X": "selected_rows"}),
        "name: scale_sr; inputs: X; attributes: scale, bias, bias_after_scale; outputs: Out",
        "Paddle 2.6.2 scale_sig.cc: SelectedRows X", corpus=False),
    *_elementwise("elementwise_add", "add", "single_ops/elementwise_add_f32_same",
                  "single_ops/elementwise_add_f32_axis1"),
    *_elementwise("elementwise_sub", "subtract", "single_ops/elementwise_sub_i64",
                  "single_ops/elementwise_sub_f32_axis1"),
    *_elementwise("elementwise_mul", "multiply", "single_ops/elementwise_mul_f64",
                  "single_ops/elementwise_mul_f32_axis1"),
    Row("elementwise_mul", DictContext(XY, OUT, {"axis": -1}, kinds={"X": "selected_rows"}),
        "name: multiply_sr; inputs: X, Y; attributes: ; outputs: Out",
        "Paddle 2.6.2 elementwise_sig.cc: SelectedRows X", corpus=False),
    Row("elementwise_mul", DictContext(XY, OUT, {"axis": 0}, kinds={"X": "selected_rows"}),
        "name: multiply_raw_sr; inputs: X, Y; attributes: axis; outputs: Out",
        "Paddle 2.6.2 elementwise_sig.cc: SelectedRows X, axis != -1", corpus=False),
    *_elementwise("elementwise_div", "divide", "single_ops/elementwise_div_f32", None),
    *_elementwise("elementwise_max", "maximum", "single_ops/elementwise_max_f32_bcast", None),
    Row("elementwise_min", C(XY, OUT, axis=1),
        "name: minimum_raw; inputs: X, Y; attributes: axis; outputs: Out",
        "single_ops/elementwise_min_f32_axis1"),
    *_elementwise("elementwise_pow", "elementwise_pow", "single_ops/elementwise_pow_f32", None),
    Row("matmul_v2", C(XY, OUT, trans_x=False, trans_y=True),
        "name: matmul; inputs: X, Y; attributes: trans_x, trans_y; outputs: Out",
        "single_ops/matmul_v2_trans"),
    Row("mul", C(XY, OUT, x_num_col_dims=2, y_num_col_dims=1),
        "name: matmul_with_flatten; inputs: X, Y; attributes: x_num_col_dims, y_num_col_dims; "
        "outputs: Out", "single_ops/mul_x_num_col_dims2"),
    *(Row(op, C(X, OUT), f"name: {op}; inputs: X; attributes: ; outputs: Out",
          f"single_ops/{op}_f32") for op in ("relu", "sigmoid", "tanh", "exp")),
    Row("softmax", C(X, OUT, axis=1),
        "name: softmax; inputs: X; attributes: axis; outputs: Out", "single_ops/softmax_axis1_4d"),
    Row("cast", C(X, OUT, in_dtype=5, out_dtype=2),
        "name: cast; inputs: X; attributes: out_dtype; outputs: Out", "single_ops/cast_f32_to_i32"),
    Row("fill_constant", C({"ShapeTensor": [], "ShapeTensorList": [], "ValueTensor": []}, OUT,
                           **FILL),
        "name: full; inputs: ; attributes: shape, value, dtype; outputs: Out",
        "single_ops/fill_constant_f32"),
    Row("fill_constant", C({}, OUT, **{**FILL, "dtype": 3, "str_value": "7"}),
        "name: full; inputs: ; attributes: shape, str_value, dtype; outputs: Out",
        "single_ops/fill_constant_i64_str"),
    Row("fill_constant", C({"ShapeTensor": ["s"], "ValueTensor": ["v"]}, OUT, **FILL),
        "name: full; inputs: ; attributes: ShapeTensor, ValueTensor, dtype; outputs: Out",
        "Paddle 2.6.2 fill_constant_sig.cc: ShapeTensor, ValueTensor", corpus=False),
    Row("fill_constant", C({"ShapeTensorList": ["a", "b"]}, OUT, **{**FILL, "str_value": "2"}),
        "name: full; inputs: ; attributes: ShapeTensorList, str_value, dtype; outputs: Out",
        "Paddle 2.6.2 fill_constant_sig.cc: ShapeTensorList, str_value", corpus=False),
    Row("fill_constant", DictContext({}, OUT, FILL, kinds={"Out": "selected_rows"}),
        "name: full_sr; inputs: ; attributes: shape, value, dtype; outputs: Out",
        "Paddle 2.6.2 fill_constant_sig.cc: SelectedRows Out", corpus=False),
    Row("reshape2", C({"X": ["x"], "Shape": [], "ShapeTensor": []},
                      {"Out": ["o"], "XShape": ["xs"]}, shape=[0, -1]),
        "name: reshape; inputs: X; attributes: shape; outputs: Out, XShape",
        "single_ops/reshape2_zero_neg1"),
    Row("reshape2", C({"X": ["x"], "Shape": ["s"], "ShapeTensor": []},
                      {"Out": ["o"], "XShape": ["xs"]}, shape=[1, 12]),
        "name: reshape; inputs: X; attributes: Shape; outputs: Out, XShape",
        "single_ops/reshape2_shape_tensor"),
    Row("reshape2", C({"X": ["x"], "Shape": ["s"], "ShapeTensor": ["a", "b"]},
                      {"Out": ["o"], "XShape": ["xs"]}, shape=[1, 12]),
        "name: reshape; inputs: X; attributes: ShapeTensor; outputs: Out, XShape",
        "Paddle 2.6.2 reshape_sig.cc: the ShapeTensor list wins over Shape", corpus=False),
    Row("reshape2", C({"X": ["x"]}, {"Out": ["o"]}, shape=[4, 3]),
        "name: reshape; inputs: X; attributes: shape; outputs: Out, XShape",
        "2.6.2 names XShape even when the OpDesc has none", corpus=False),
    Row("transpose2", C(X, {"Out": ["o"], "XShape": ["xs"]}, axis=[0, 2, 1]),
        "name: transpose; inputs: X; attributes: axis; outputs: Out", "single_ops/transpose2_3d"),
    Row("concat", C({"X": ["a", "b"], "AxisTensor": []}, OUT, axis=-3),
        "name: concat; inputs: X; attributes: axis; outputs: Out",
        "single_ops/concat_neg_axis_3"),
    Row("concat", C({"X": ["a", "b"], "AxisTensor": ["t"]}, OUT, axis=0),
        "name: concat; inputs: X; attributes: AxisTensor; outputs: Out",
        "Paddle 2.6.2 concat_sig.cc: AxisTensor", corpus=False),
    Row("split", C(SPLIT_IN, {"Out": ["a", "b"]}, sections=[2, -1], num=0, axis=1),
        "name: split; inputs: X; attributes: sections, axis; outputs: Out",
        "single_ops/split_sections_neg"),
    Row("split", C(SPLIT_IN, {"Out": ["a", "b"]}, sections=[], num=2, axis=0),
        "name: split_with_num; inputs: X; attributes: num, axis; outputs: Out",
        "single_ops/split_num"),
    Row("split", C({**SPLIT_IN, "AxisTensor": ["t"]}, {"Out": ["a", "b"]}, sections=[], num=2,
                   axis=0),
        "name: split_with_num; inputs: X; attributes: num, AxisTensor; outputs: Out",
        "Paddle 2.6.2 split_sig.cc: num > 0 and AxisTensor", corpus=False),
    Row("split", C({**SPLIT_IN, "SectionsTensorList": ["a", "b"]}, {"Out": ["a", "b"]},
                   sections=[1, 1], num=0, axis=0),
        "name: split; inputs: X; attributes: SectionsTensorList, axis; outputs: Out",
        "Paddle 2.6.2 split_sig.cc: SectionsTensorList", corpus=False),
    Row("reduce_mean", C(X, OUT, dim=[1], keep_dim=True, reduce_all=False, in_dtype=-1,
                         out_dtype=-1),
        "name: mean; inputs: X; attributes: dim, keep_dim; outputs: Out",
        "single_ops/reduce_mean_keep"),
    Row("reduce_mean", C(X, OUT, dim=[0], keep_dim=False, reduce_all=True),
        "name: mean_raw; inputs: X; attributes: dim, keep_dim, reduce_all; outputs: Out",
        "Paddle 2.6.2 reduce_sig.cc: reduce_all", corpus=False),
    Row("reduce_sum", C(X, OUT, dim=[1], keep_dim=False, reduce_all=False, out_dtype=-1),
        "name: sum; inputs: X; attributes: dim, out_dtype, keep_dim; outputs: Out",
        "single_ops/reduce_sum_dim1"),
    Row("reduce_sum", C(X, OUT, dim=[0], keep_dim=False, reduce_all=True, out_dtype=-1),
        "name: sum_raw; inputs: X; attributes: dim, keep_dim, reduce_all, out_dtype; outputs: Out",
        "single_ops/reduce_sum_all"),
    Row("reduce_sum", DictContext(X, OUT, {"dim": [1], "keep_dim": False, "reduce_all": False},
                                  for_infer_shape=True),
        "name: sum_raw; inputs: X; attributes: dim, keep_dim, reduce_all, out_dtype; outputs: Out",
        "Paddle 2.6.2 reduce_sig.cc: InferShape asks for the raw signature", corpus=False),
    Row("assign", C(X, OUT), "name: assign_raw; inputs: X; attributes: ; outputs: Out",
        "single_ops/assign"),
    Row("conv2d", C(CONV_IN, {"Output": ["o"]}, **CONV_ATTRS, use_cudnn=True, is_test=False),
        "name: conv2d; inputs: Input, Filter; attributes: strides, paddings, padding_algorithm, "
        "dilations, groups, data_format; outputs: Output", "single_ops/conv2d_pad1"),
    Row("depthwise_conv2d", C(CONV_IN, {"Output": ["o"]}, **CONV_ATTRS),
        "name: depthwise_conv2d; inputs: Input, Filter; attributes: strides, paddings, "
        "padding_algorithm, groups, dilations, data_format; outputs: Output",
        "single_ops/depthwise_conv2d"),
    Row("pool2d", C(X, OUT, **POOL_ATTRS),
        "name: pool2d; inputs: X; attributes: ksize, strides, paddings, ceil_mode, exclusive, "
        "data_format, pooling_type, global_pooling, adaptive, padding_algorithm; outputs: Out",
        "single_ops/pool2d_max"),
    Row("flatten_contiguous_range", C(X, OUT, start_axis=1, stop_axis=3),
        "name: flatten_infer; inputs: X; attributes: start_axis, stop_axis; outputs: Out",
        "models/lenet"),
    Row("flatten_contiguous_range", C(X, {"Out": ["o"], "XShape": ["xs"]}, start_axis=1,
                                      stop_axis=-1),
        "name: flatten; inputs: X; attributes: start_axis, stop_axis; outputs: Out, XShape",
        "single_ops/flatten_contiguous_range"),
    Row("batch_norm", C(BN_IN, BN_OUT, **BN_ATTRS, is_test=True, use_global_stats=True),
        SIG_BN, "models/jit_convnet"),
    Row("batch_norm", C(BN_IN, {**BN_OUT, "ReserveSpace": ["r"]}, **BN_ATTRS, is_test=False,
                        use_global_stats=False), SIG_BN, "single_ops/batch_norm_train"),
    Row("batch_norm", C(BN_IN, BN_OUT, **BN_ATTRS, is_test=True, use_global_stats=False),
        SIG_BN_INFER, "single_ops/batch_norm_test_nhwc"),
    Row("batch_norm", C(BN_IN, BN_OUT, momentum=0.9, epsilon=1e-5, data_layout="NCHW",
                        is_test=True),
        SIG_BN_INFER, "a saved program without use_global_stats / trainable_statistics",
        corpus=False),
    Row("batch_norm", C(BN_IN, BN_OUT, **BN_ATTRS, is_test=True, use_global_stats=False,
                        fuse_with_relu=True),
        SIG_BN, "Paddle 2.6.2 batch_norm_sig.cc: fuse_with_relu", corpus=False),
    Row("hard_swish", C(X, OUT, threshold=6.0, scale=6.0, offset=3.0),
        "name: hardswish; inputs: X; attributes: ; outputs: Out", "single_ops/hard_swish_f32"),
    Row("log_softmax", C(X, OUT, axis=0),
        "name: log_softmax; inputs: X; attributes: axis; outputs: Out",
        "single_ops/log_softmax_axis0"),
    Row("dropout", C(X, OUT, dropout_prob=0.5, is_test=True,
                     dropout_implementation="upscale_in_train"),
        "name: dropout; inputs: X, Seed; attributes: dropout_prob, is_test, "
        "dropout_implementation, seed, fix_seed; outputs: Out, Mask",
        "single_ops/dropout_test_upscale"),
    Row("matmul", C(XY, OUT, transpose_X=False, transpose_Y=False, alpha=1.0), None,
        "single_ops/matmul_v1_vec"),
]


def _row_id(row: Row) -> str:
    return f"{row.op}-{row.source.rsplit('/', 1)[-1].split(':')[0][:40]}"


@pytest.mark.parametrize("row", CONDITIONS, ids=_row_id)
def test_signature_under_condition(row: Row) -> None:
    sig = get_kernel_signature(row.op, row.ctx)
    assert (str(sig) if sig is not None else None) == row.expected


def test_table_covers_every_observed_signature() -> None:
    observed = load_data("observed_signatures.json")["ops"]
    assert sorted(observed) == sorted(OPS)
    for op, entries in observed.items():
        table = {r.expected for r in CONDITIONS if r.op == op and r.corpus}
        for entry in entries:
            assert entry["kernel_signature"] in table, (op, entry)


def test_table_rows_marked_corpus_are_observed() -> None:
    observed = load_data("observed_signatures.json")["ops"]
    for row in CONDITIONS:
        if row.corpus:
            entries = [e for e in observed[row.op] if e["kernel_signature"] == row.expected]
            assert entries, row
            assert any(row.source in e["seen_in"] for e in entries), row


def test_copied_observations_equal_the_corpus() -> None:
    corpus = corpus_json("kernel_signatures_observed.json")["ops"]
    copy = load_data("observed_signatures.json")
    for op, entries in copy["ops"].items():
        assert [{k: e[k] for k in copy["fields"]} for e in corpus[op]] == entries, op


@pytest.mark.parametrize("case", sorted(load_data("cases.json")["cases"]))
def test_copied_cases_replay(case: str) -> None:
    record = load_data("cases.json")["cases"][case]
    ctx = DictContext.from_op_desc(record["op_desc"])
    sig = get_kernel_signature(record["op_desc"]["type"], ctx)
    assert (str(sig) if sig is not None else None) == record["kernel_signature"]


# -- every corpus case and model op of these types, replayed from its op_desc -------------------


def _corpus_ops() -> Iterator[tuple[str, dict[str, Any], str | None]]:
    """(where, op_desc, printed signature or None) for every corpus op of a type in OPS."""
    single = CORPUS / "single_ops"
    for path in sorted(single.glob("*.json")) if single.is_dir() else ():
        if path.name == "index.json":
            continue
        case = corpus_json(f"single_ops/{path.name}")
        if case.get("op_type") not in OPS:
            continue
        trace = case.get("kernel_trace")
        records = trace if isinstance(trace, list) else [trace]
        record = next((r for r in records if r and r.get("op_type") == case["op_type"]), None)
        yield f"single_ops/{path.stem}", case["op_desc"], trace_signature(record)
    models = CORPUS / "models"
    for meta_path in sorted(models.glob("*/meta.json")) if models.is_dir() else ():
        meta = corpus_json(f"models/{meta_path.parent.name}/meta.json")
        trace = list(meta["kernel_trace"])
        position = 0
        for index, op in enumerate(meta["ops"]):
            # the executor inserts records of its own (share_buffer, fetch_v2): skip to ours
            while position < len(trace) and trace[position]["op_type"] != op["type"]:
                position += 1
            assert position < len(trace), (meta_path, index, op["type"])
            record = trace[position]
            position += 1
            if op["type"] in OPS:
                yield (f"models/{meta_path.parent.name}#{index}", op, trace_signature(record))


def _corpus_params() -> list[Any]:
    if not CORPUS.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"no corpus at {CORPUS}"))]
    return [pytest.param(item, id=item[0]) for item in _corpus_ops()]


@pytest.mark.parametrize("item", _corpus_params())
def test_corpus_op_desc_replays(item: tuple[str, dict[str, Any], str | None]) -> None:
    where, op_desc, expected = item
    sig = get_kernel_signature(op_desc["type"], DictContext.from_op_desc(op_desc))
    assert (str(sig) if sig is not None else None) == expected, where


def test_every_observed_signature_parses_back() -> None:
    for entries in load_data("observed_signatures.json")["ops"].values():
        for entry in entries:
            if entry["kernel_signature"] is not None:
                text = entry["kernel_signature"]
                assert str(KernelSignature.parse(text)) == text
