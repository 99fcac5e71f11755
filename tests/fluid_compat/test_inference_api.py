"""fluid_compat.inference: Paddle Inference's Python API on the bridge.

The deploy scripts below are written as PaddleOCR's and PaddleDetection's predictors are
written against ``paddle.inference``; only the import differs.  Truth: the outputs Paddle 2.6.2
recorded beside each fixture model (tests/fixtures/models/<m>/output_*.npy, meta.json), and
Paddle's API surface and CPU behaviour recorded by tools/fixtures/gen_paddle_inference_api.py
(tests/fixtures/paddle_inference_api.json).
"""

from __future__ import annotations

import json
import shutil
import sys
import threading
import types
from pathlib import Path

import numpy as np
import pytest

from phi import flags
from phi.core.errors import InvalidArgument, NotFound, PreconditionNotMet, Unavailable

from fluid_compat import inference  # was: from paddle import inference
from fluid_compat.operators.fusion import fusion_flags

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
MODELS = FIXTURES / "models"
API = json.loads((FIXTURES / "paddle_inference_api.json").read_text())


def _meta(model: str) -> dict:
    return json.loads((MODELS / model / "meta.json").read_text())


@pytest.fixture(autouse=True)
def _fusion_flags_restored():
    """A config with IR optimisation off sets process-wide flags: put them back."""
    saved = flags.get_flags(fusion_flags())
    yield
    flags.set_flags(saved)


# -- the deploy scripts -----------------------------------------------------------------------
class TextRecognizer:
    """PaddleOCR's tools/infer/predict_rec.py shape: a CRNN + CTC recogniser."""

    def __init__(self, model_dir: Path, use_gpu: bool = False, threads: int = 2) -> None:
        model_file = str(model_dir / "inference.pdmodel")
        params_file = str(model_dir / "inference.pdiparams")
        config = inference.Config(model_file, params_file)
        if use_gpu:
            config.enable_use_gpu(500, 0)
        else:
            config.disable_gpu()
            config.set_cpu_math_library_num_threads(threads)
            config.enable_mkldnn()
            config.set_mkldnn_cache_capacity(10)
        config.enable_memory_optim()
        config.disable_glog_info()
        config.delete_pass("conv_transpose_eltwiseadd_bn_fuse_pass")
        config.delete_pass("matmul_transpose_reshape_fuse_pass")
        config.switch_use_feed_fetch_ops(False)
        config.switch_ir_optim(True)
        self.config = config
        self.predictor = inference.create_predictor(config)
        self._handles(self.predictor)

    def _handles(self, predictor) -> None:
        names = predictor.get_input_names()
        self.input_tensor = predictor.get_input_handle(names[0])
        self.output_tensors = [predictor.get_output_handle(n)
                               for n in predictor.get_output_names()]

    def clone(self) -> TextRecognizer:
        other = object.__new__(TextRecognizer)
        other.config = self.config
        other.predictor = self.predictor.clone()
        other._handles(other.predictor)
        return other

    def __call__(self, norm_img_batch: np.ndarray) -> list:
        self.input_tensor.copy_from_cpu(norm_img_batch)
        self.predictor.run()
        outputs = [t.copy_to_cpu() for t in self.output_tensors]
        return outputs, [t.lod() for t in self.output_tensors]


class Detector:
    """PaddleDetection's deploy/python/infer.py shape: inputs fed by name, boxes + boxes_num."""

    def __init__(self, model_dir: Path, cpu_threads: int = 1) -> None:
        config = inference.Config(str(model_dir / "inference.pdmodel"),
                                  str(model_dir / "inference.pdiparams"))
        config.disable_gpu()
        config.set_cpu_math_library_num_threads(cpu_threads)
        config.disable_glog_info()
        config.enable_memory_optim()
        config.switch_use_feed_fetch_ops(False)
        self.predictor = inference.create_predictor(config)

    def predict(self, inputs: dict, predictor=None) -> dict:
        predictor = predictor or self.predictor
        for name in predictor.get_input_names():
            handle = predictor.get_input_handle(name)
            handle.reshape(inputs[name].shape)
            handle.copy_from_cpu(inputs[name])
        predictor.run()
        output_names = predictor.get_output_names()
        boxes = predictor.get_output_handle(output_names[0]).copy_to_cpu()
        index = predictor.get_output_handle(output_names[1]).copy_to_cpu()
        boxes_num = predictor.get_output_handle(output_names[2]).copy_to_cpu()
        return {"boxes": boxes, "index": index, "boxes_num": boxes_num}


def _yolo_runs() -> list[tuple[dict, list]]:
    d = MODELS / "yolo_nms_tiny"
    runs = []
    for prefix in ("", "2"):
        inputs = {n: np.load(d / f"input{prefix}_{n}.npy") for n in ("image", "im_shape")}
        want = [np.load(d / f"output{prefix}_{i}.npy") for i in range(3)]
        runs.append((inputs, want))
    return runs


def _close(got: np.ndarray, want: np.ndarray) -> bool:
    return got.shape == want.shape and got.dtype == want.dtype and np.allclose(
        got, want, rtol=1e-4, atol=1e-5)


def test_ocr_script_runs_with_only_its_import_changed():
    d = MODELS / "crnn_ctc_lod"
    recognizer = TextRecognizer(d)
    image = np.load(d / "input_image.npy")
    outs, lods = recognizer(image)
    recorded = _meta("crnn_ctc_lod")["runs"][0]["outputs"]
    for i, (out, lod) in enumerate(zip(outs, lods, strict=True)):
        assert _close(out, np.load(d / f"output_{i}.npy"))
        assert lod == recorded[i]["lod"]
    # the handles answer as Paddle's did on this model (fixture: Paddle's CPU predictor)
    seen = API["behaviour"]
    assert recognizer.predictor.get_input_names() == seen["input_names"]
    assert recognizer.predictor.get_output_names() == seen["output_names"]
    for handle, paddle in zip(recognizer.output_tensors, seen["outputs"], strict=True):
        assert handle.shape() == paddle["shape"]
        assert handle.lod() == paddle["lod"]
        assert handle.type().name == paddle["type"].split(".")[-1]
    assert recognizer.input_tensor.shape() == seen["input_after_copy"]["shape"]


def test_ocr_script_from_four_clones_in_threads_equals_serial_runs():
    d = MODELS / "crnn_ctc_lod"
    image = np.load(d / "input_image.npy")
    rng = np.random.default_rng(3)
    images = [image] + [rng.standard_normal(image.shape).astype(np.float32) for _ in range(3)]
    first = TextRecognizer(d)
    serial = [first(x) for x in images]
    workers = [first] + [first.clone() for _ in range(3)]
    results: dict = {}
    errors = []

    def serve(k: int) -> None:
        try:
            for rep in range(3):
                for j in range(len(images)):
                    j = (j + k) % len(images)  # each thread in another order
                    results[(k, rep, j)] = workers[k](images[j])
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=serve, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert len(results) == 4 * 3 * len(images)
    for (_, _, j), (outs, lods) in results.items():
        want_outs, want_lods = serial[j]
        assert lods == want_lods
        for got, want in zip(outs, want_outs, strict=True):
            assert np.array_equal(got, want)  # the same bits as a serial run
    assert _close(serial[0][0][0], np.load(d / "output_0.npy"))


def test_detection_script_one_thread_both_recorded_inputs():
    detector = Detector(MODELS / "yolo_nms_tiny")
    for inputs, want in _yolo_runs():
        got = detector.predict(inputs)
        for out, ref in zip((got["boxes"], got["index"], got["boxes_num"]), want, strict=True):
            assert _close(out, ref)
    # the second feed set: NMS keeps nothing, one image
    assert got["boxes"].shape == (0, 6) and got["boxes_num"].tolist() == [0]


def test_detection_script_four_clones_in_threads():
    detector = Detector(MODELS / "yolo_nms_tiny")
    runs = _yolo_runs()
    serial = [detector.predict(inputs) for inputs, _ in runs]
    clones = [detector.predictor] + [detector.predictor.clone() for _ in range(3)]
    got: dict = {}
    errors = []

    def serve(k: int) -> None:
        try:
            for rep in range(4):
                j = (rep + k) % len(runs)
                got[(k, rep)] = (j, detector.predict(runs[j][0], clones[k]))
        except Exception as exc:  # pragma: no cover
            errors.append(exc)

    threads = [threading.Thread(target=serve, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for j, out in got.values():
        for key in ("boxes", "index", "boxes_num"):
            assert np.array_equal(out[key], serial[j][key])
    for (_, want), out in zip(runs, serial, strict=True):
        assert _close(out["boxes"], want[0])


@pytest.mark.parametrize("model", ["resnet_tiny", "bert_tiny"])
def test_run_with_a_list_returns_the_outputs(model):
    d = MODELS / model
    meta = _meta(model)
    config = inference.Config(str(d / "inference"))  # a prefix
    predictor = inference.create_predictor(config)
    arrays = [np.load(d / f["file"]) for f in meta["feeds"]]
    outs = predictor.run(arrays)
    assert isinstance(outs, list) and len(outs) == len(meta["fetches"])
    for i, out in enumerate(outs):
        assert _close(out, np.load(d / f"output_{i}.npy"))
        handle = predictor.get_output_handle(predictor.get_output_names()[i])
        assert np.array_equal(handle.copy_to_cpu(), out)
    by_name = predictor.run(dict(zip(predictor.get_input_names(), arrays, strict=True)))
    assert all(np.array_equal(a, b) for a, b in zip(by_name, outs, strict=True))


def test_metadata_without_running_matches_what_paddle_declared():
    meta = _meta("yolo_nms_tiny")
    predictor = inference.create_predictor(inference.Config(str(MODELS / "yolo_nms_tiny")))
    inputs = {i.name: i for i in predictor.get_inputs()}
    for feed in meta["feeds"]:
        info = inputs[feed["name"]]
        assert list(info.shape) == feed["var"]["shape"]  # -1: the batch, known at run time
        assert info.dtype == feed["var"]["dtype"]["numpy"]
    outputs = predictor.get_outputs()
    assert [o.name for o in outputs] == [f["name"] for f in meta["fetches"]]
    assert [list(o.shape) for o in outputs] == [f["var"]["shape"] for f in meta["fetches"]]
    info = predictor.describe()
    assert info["ops"]["types"] == meta["op_type_counts"]
    assert "yolo_box" in info["kernels"]["phi"]
    assert repr(predictor.program).count("im_shape") == 1


# -- Config: model files --------------------------------------------------------------------------
def _lenet_check(config) -> None:
    d = MODELS / "lenet"
    predictor = inference.create_predictor(config)
    (out,) = predictor.run([np.load(d / "input_image.npy")])
    assert _close(out, np.load(d / "output_0.npy"))


def test_config_forms_a_model_is_given_in(tmp_path):
    d = MODELS / "lenet"
    _lenet_check(inference.Config(str(d)))  # a directory holding inference.pdmodel
    _lenet_check(inference.Config(str(d / "inference.pdmodel")))  # the program, params beside
    _lenet_check(inference.Config(d / "inference.pdmodel", d / "inference.pdiparams"))
    config = inference.Config()
    config.set_prog_file(str(d / "inference.pdmodel"))
    config.set_params_file(str(d / "inference.pdiparams"))
    assert config.prog_file().endswith("inference.pdmodel")
    _lenet_check(config)
    config = inference.Config()
    prog = (d / "inference.pdmodel").read_bytes()
    params = (d / "inference.pdiparams").read_bytes()
    config.set_model_buffer(prog, len(prog), params, len(params))
    assert config.model_from_memory()
    _lenet_check(config)
    # the older layout: __model__ with __params__, and one file per parameter
    old = tmp_path / "combined"
    old.mkdir()
    shutil.copy(d / "inference.pdmodel", old / "__model__")
    shutil.copy(d / "inference.pdiparams", old / "__params__")
    config = inference.Config(str(old))
    assert config.model_dir() == str(old) and config.prog_file() == ""
    _lenet_check(config)
    _lenet_check(inference.Config(str(old / "__model__"), str(old / "__params__")))
    separate = _separate_params_copy(d, tmp_path / "separate")
    _lenet_check(inference.Config(str(separate)))


def _separate_params_copy(d: Path, out: Path) -> Path:
    from fluid_compat.framework import ProgramDesc
    from fluid_compat.framework.tensor_io import load_combined_params, save_separate_params

    out.mkdir()
    shutil.copy(d / "inference.pdmodel", out / "__model__")
    desc = ProgramDesc.load(out / "__model__")
    save_separate_params(out, desc, load_combined_params(str(d / "inference.pdiparams"), desc))
    return out


def test_config_errors_name_what_is_missing(tmp_path):
    with pytest.raises(PreconditionNotMet, match="names no model"):
        inference.create_predictor(inference.Config())
    with pytest.raises(NotFound, match="nothing.pdmodel' not found"):
        inference.create_predictor(inference.Config(str(tmp_path / "nothing")))
    with pytest.raises(NotFound, match="holds no program"):
        inference.create_predictor(inference.Config(str(tmp_path)))
    for name in ("a", "b"):
        shutil.copy(MODELS / "lenet" / "inference.pdmodel", tmp_path / f"{name}.pdmodel")
    with pytest.raises(InvalidArgument, match="several programs"):
        inference.create_predictor(inference.Config(str(tmp_path)))
    d = MODELS / "lenet"
    with pytest.raises(NotFound, match="parameter file"):
        inference.create_predictor(inference.Config(str(d / "inference.pdmodel"),
                                                    str(tmp_path / "none.pdiparams")))
    with pytest.raises(InvalidArgument, match="is a parameter file"):
        inference.create_predictor(inference.Config(str(d / "inference.pdiparams")))
    with pytest.raises(InvalidArgument, match="expects a fluid_compat.inference.Config"):
        inference.create_predictor(str(d))


# -- handles --------------------------------------------------------------------------------------
def test_handles_before_and_after_data_as_paddle():
    d = MODELS / "crnn_ctc_lod"
    seen = API["behaviour"]
    predictor = inference.create_predictor(inference.Config(str(d)))
    handle = predictor.get_input_handle("image")
    assert handle.name == "image" and handle.name() == "image"
    assert handle.shape() == seen["input_before_copy"]["shape"]  # [0]
    assert str(handle.type()).split(".")[-1] == seen["input_before_copy"]["type"].split(".")[-1]
    assert handle.lod() == seen["input_before_copy"]["lod"]
    out = predictor.clone().get_output_handle(predictor.get_output_names()[0])
    assert out.shape() == seen["clone_output_shape_before_run"]
    with pytest.raises(PreconditionNotMet, match="run"):
        out.copy_to_cpu()
    with pytest.raises(PreconditionNotMet, match="copy_from_cpu"):
        predictor.run()
    with pytest.raises(NotFound, match="not an input"):
        predictor.get_input_handle("nope")
    with pytest.raises(NotFound, match="not an output"):
        predictor.get_output_handle("nope")
    with pytest.raises(InvalidArgument, match="numpy ndarray"):
        handle.copy_from_cpu([1.0, 2.0])  # Paddle: only ndarrays (and lists of str)
    image = np.load(d / "input_image.npy")
    handle.reshape([2, 1, 8, 32])
    assert handle.shape() == [2, 1, 8, 32]
    handle.copy_from_cpu(image)
    image[:] = 0  # the handle holds its own copy
    handle.set_lod([[0, 1, 2]])
    assert handle.lod() == seen["input_after_copy"]["lod_after_set_lod"]
    handle.set_lod([])
    predictor.run()
    assert _close(predictor.get_output_handle(predictor.get_output_names()[1]).copy_to_cpu(),
                  np.load(d / "output_1.npy"))
    handle.copy_from_cpu(np.load(d / "input_image.npy").astype(np.float64))
    with pytest.raises(InvalidArgument, match="float64"):  # Paddle too refuses at run
        predictor.run()
    assert predictor.try_shrink_memory() == seen["try_shrink_memory"]


# -- the API surface against Paddle's -------------------------------------------------------------
@pytest.mark.parametrize("cls", ["Config", "Predictor", "Tensor", "PredictorPool"])
def test_every_public_member_of_paddles_classes_exists(cls):
    ours = getattr(inference, cls)
    missing = [n for n in API[cls] if not n.startswith("_") and not hasattr(ours, n)]
    assert not missing, f"{cls} lacks {missing}"


def test_config_adds_only_these_to_paddles_members():
    ours = {n for n in dir(inference.Config) if not n.startswith("_")}
    assert ours - set(API["Config"]) == {"model_files", "place"}


def test_module_names_and_enums_as_paddles():
    for name in API["module"]:
        if name not in ("InternalUtils", "wrapper"):  # Paddle's internals
            assert hasattr(inference, name), name
    for enum_name in ("PrecisionType", "PlaceType", "DataType"):
        ours = getattr(inference, enum_name)
        assert {m.name: int(m) for m in ours} == API[enum_name]
    assert inference.Config.Precision is inference.PrecisionType
    assert inference.Config.Half == API["PrecisionType"]["Half"]
    assert {k: inference.get_num_bytes_of_data_type(getattr(inference.DataType, k))
            for k in API["DataType"]} == API["behaviour"]["get_num_bytes_of_data_type"]
    assert inference.get_version().splitlines()[0] == API["get_version_first_line"]


#: an argument list for each Config setter that takes arguments (Paddle's signatures)
_ARGS = {
    "collect_shape_range_info": ("shape.pbtxt",), "delete_pass": ("conv_bn_fuse_pass",),
    "enable_custom_device": None, "enable_use_gpu": None,  # checked below
    "exp_disable_mixed_precision_ops": ({"softmax"},), "exp_disable_tensorrt_ops": (["relu"],),
    "exp_enable_mixed_precision_ops": ({"conv2d"},), "load_ipu_config": ("ipu.cfg",),
    "set_bfloat16_op": ({"conv2d"},), "set_cpu_math_library_num_threads": (2,),
    "set_dist_config": (object(),), "set_mkldnn_op": ({"conv2d"},),
    "set_model": None, "set_model_buffer": None, "set_params_file": None, "set_prog_file": None,
    "set_optim_cache_dir": ("/tmp/optim",), "set_tensorrt_optimization_level": (3,),
    "set_xpu_config": (inference.XpuConfig(),), "switch_use_feed_fetch_ops": (False,),
}


def test_every_setter_is_accepted_and_summary_reports_it():
    config = inference.Config(str(MODELS / "lenet"))
    setters = [n for n, sig in API["Config"].items() if sig.endswith("-> None")]
    called = []
    for name in setters:
        args = _ARGS.get(name, ())
        if args is None:
            continue
        getattr(config, name)(*args)
        called.append(name)
    assert len(called) > 50
    # the getters answer without raising
    for name, sig in API["Config"].items():
        if sig.startswith(f"{name}(self: AnalysisConfig) ->") and name != "summary":
            getattr(config, name)()
    text = config.summary()
    for option in ("use_tensorrt", "enable_onnxruntime", "use_xpu", "mkldnn_cache_capacity",
                   "optim_cache_dir", "ir_optim", "cpu_math_thread"):
        assert option in text, option
    assert "no effect here" in text
    assert not config.tensorrt_engine_enabled() and not config.onnxruntime_enabled()
    assert config.glog_info_disabled() and not config.use_feed_fetch_ops_enabled()
    _lenet_check(config)  # and the model still runs


def test_summary_lists_paddles_options():
    text = inference.Config(str(MODELS / "lenet" / "inference")).summary()
    for option in API["behaviour"]["summary_options"]:
        if option not in ("use_xpu", "use_cinn_compiler", "ir_debug", "enable_profile",
                          "save_optimized_model", "collect_shape_range_info"):
            assert f"| {option} " in text, option


@pytest.mark.skipif("cupy" in sys.modules or __import__("importlib").util.find_spec("cupy")
                    is not None, reason="cupy is installed: the GPU place may work")
def test_enable_use_gpu_without_cupy_is_a_clear_error():
    config = inference.Config(str(MODELS / "lenet"))
    with pytest.raises(Unavailable, match="cupy") as err:
        config.enable_use_gpu(500, 0)
    assert "disable_gpu" in str(err.value)
    assert not config.use_gpu()


def test_ir_optim_off_turns_the_fusion_passes_off():
    d = MODELS / "yolo_nms_tiny"
    inputs, want = _yolo_runs()[0]
    flags.set_flags({f: True for f in fusion_flags()})
    predictor = inference.create_predictor(inference.Config(str(d)))
    for _ in range(2):  # the passes fuse from the second run on
        predictor.run([inputs["image"], inputs["im_shape"]])
    assert predictor.last_stats.fused_steps > 0  # conv2d -> batch_norm
    config = inference.Config(str(d))
    config.switch_ir_optim(False)
    assert config.pass_builder().all_passes() == []
    plain = inference.create_predictor(config)
    assert flags.get_flags(fusion_flags()) == {f: False for f in fusion_flags()}
    for _ in range(2):
        outs = plain.run([inputs["image"], inputs["im_shape"]])
    assert plain.last_stats.fused_steps == 0
    assert all(_close(o, w) for o, w in zip(outs, want, strict=True))
    assert "FLAGS_fuse_conv_bn=0" in config.summary()
    flags.set_flags({f: True for f in fusion_flags()})
    config = inference.Config(str(d))
    config.delete_pass("conv_bn_fuse_pass")  # Paddle's name of the same fusion
    inference.create_predictor(config)
    assert flags.flag("FLAGS_fuse_conv_bn") is False
    assert flags.flag("FLAGS_plan_segments") is True


def test_cpu_threads_through_threadpoolctl(monkeypatch):
    calls = []
    fake = types.ModuleType("threadpoolctl")
    fake.threadpool_limits = lambda limits, user_api: calls.append((limits, user_api))
    monkeypatch.setitem(sys.modules, "threadpoolctl", fake)
    config = inference.Config(str(MODELS / "lenet"))
    config.set_cpu_math_library_num_threads(3)
    assert config.cpu_math_library_num_threads() == 3
    inference.create_predictor(config)
    assert calls == [(3, "blas")]
    assert "BLAS threads set to 3" in config.summary()
    monkeypatch.setitem(sys.modules, "threadpoolctl", None)  # not installed: said so
    config = inference.Config(str(MODELS / "lenet"))
    config.set_cpu_math_library_num_threads(2)
    inference.create_predictor(config)
    assert "threadpoolctl is not" in config.summary().replace("\n", " ").replace("|", "")
    with pytest.raises(InvalidArgument, match=">= 1"):
        config.set_cpu_math_library_num_threads(0)


def test_predictor_pool_hands_out_predictors_sharing_the_model():
    pool = inference.PredictorPool(inference.Config(str(MODELS / "lenet")), 2)
    a, b = pool.retrive(0), pool.retrive(1)
    assert a is not b and a.program is b.program
    with pytest.raises(NotFound):
        pool.retrive(2)
