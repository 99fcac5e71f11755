"""Paddle Inference's Python API (``paddle.inference`` of Paddle 2.6.2) on the bridge.

A deploy script written for Paddle Inference runs with only its import changed::

    from fluid_compat import inference          # was: from paddle import inference

    config = inference.Config("model/inference.pdmodel", "model/inference.pdiparams")
    config.disable_gpu()
    config.set_cpu_math_library_num_threads(4)
    predictor = inference.create_predictor(config)
    handle = predictor.get_input_handle(predictor.get_input_names()[0])
    handle.reshape(image.shape)
    handle.copy_from_cpu(image)
    predictor.run()
    out = predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()

Built on fluid_compat's Executor (thread-safe, a plan per concurrent run) and Scope: a
predictor loads the program and its parameters once; its clones share them and the executor,
and each clone has input and output handles of its own, so a predictor and its clones serve
concurrent threads, each run's outputs equal to a serial run's.

Every method of Paddle 2.6.2's ``Config`` exists.  Each maps to the bridge's own setting where
there is one (CPU threads through threadpoolctl, the GPU through cupy, IR optimisation through
the executor's fusion passes' ``FLAGS_``), or is accepted and listed by ``summary()`` as having no
effect here (TensorRT, oneDNN, ONNX Runtime, XPU ...: the bridge runs its own kernels).

Model files: ``Config(model_file, params_file)``, ``Config(model_dir)`` (``__model__`` with
``__params__`` or one file per parameter; also a directory holding ``inference.pdmodel`` or a
single ``*.pdmodel``), or ``Config(prefix)`` for ``prefix.pdmodel`` + ``prefix.pdiparams``
(:func:`locate_model`).
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from phi.common.data_type import DataType as PhiDataType
from phi.common.place import CPUPlace, CustomPlace, GPUPlace, Place
from phi.core.errors import (
    InvalidArgument,
    NotFound,
    PhiError,
    PreconditionNotMet,
    Unavailable,
    Unimplemented,
)
from phi.core.tensor import DenseTensor

from fluid_compat.executor import Executor, Program
from fluid_compat.framework import ProgramDesc
from fluid_compat.framework.model_files import ModelFiles, locate_model, params_beside
from fluid_compat.framework.scope import Scope
from fluid_compat.framework.tensor_io import (
    combined_param_vars,
    load_combined_params,
    load_separate_params,
)

__all__ = [
    "Config",
    "DataType",
    "IOInfo",
    "ModelFiles",
    "PlaceType",
    "PrecisionType",
    "Predictor",
    "PredictorPool",
    "Tensor",
    "XpuConfig",
    "convert_to_mixed_precision",
    "create_predictor",
    "get_num_bytes_of_data_type",
    "get_trt_compile_version",
    "get_trt_runtime_version",
    "get_version",
    "load_model",
    "locate_model",
]

#: the Paddle release whose inference API this module follows
PADDLE_API_VERSION = "2.6.2"


# -- enums (members and values as Paddle 2.6.2's) -------------------------------------------------
class _Named(enum.IntEnum):
    """An IntEnum printed as ``Class.MEMBER`` (as Paddle's pybind enums print)."""

    def __str__(self) -> str:
        return f"{type(self).__name__}.{self.name}"


class PrecisionType(_Named):
    """Precision of an engine (``Config.enable_use_gpu(..., precision_mode)``, TensorRT)."""

    Float32 = 0
    Int8 = 1
    Half = 2
    Bfloat16 = 3


class PlaceType(_Named):
    """Where a tensor lives."""

    UNK = -1
    CPU = 0
    GPU = 1
    XPU = 2
    CUSTOM = 4


class DataType(_Named):
    """The element type of a handle (``Tensor.type()``)."""

    FLOAT32 = 0
    INT64 = 1
    INT32 = 2
    UINT8 = 3
    INT8 = 4
    FLOAT16 = 5
    BOOL = 6
    FLOAT64 = 7


_FROM_PHI = {
    PhiDataType.FLOAT32: DataType.FLOAT32, PhiDataType.INT64: DataType.INT64,
    PhiDataType.INT32: DataType.INT32, PhiDataType.UINT8: DataType.UINT8,
    PhiDataType.INT8: DataType.INT8, PhiDataType.FLOAT16: DataType.FLOAT16,
    PhiDataType.BOOL: DataType.BOOL, PhiDataType.FLOAT64: DataType.FLOAT64,
}

# Paddle 2.6.2 answers only these (-1 for FLOAT16, FLOAT64, INT8 and BOOL), kept as it answers
_NUM_BYTES = {DataType.FLOAT32: 4, DataType.INT64: 8, DataType.INT32: 4, DataType.UINT8: 1}


def get_num_bytes_of_data_type(dtype: DataType) -> int:
    """Bytes per element of ``dtype`` as Paddle 2.6.2 reports them: -1 for the types its
    function leaves out (FLOAT16, FLOAT64, INT8, BOOL)."""
    return _NUM_BYTES.get(DataType(dtype), -1)


def get_version() -> str:
    """``version: 2.6.2`` (the Paddle Inference API followed) and the bridge's own version."""
    from phi import __version__

    return (f"version: {PADDLE_API_VERSION}\nbackend: fluid-phi-bridge {__version__} "
            "(numpy kernels; Paddle Inference API)")


def get_trt_compile_version() -> tuple[int, int, int]:
    """(0, 0, 0): no TensorRT here (what a Paddle build without TensorRT answers)."""
    return (0, 0, 0)


def get_trt_runtime_version() -> tuple[int, int, int]:
    """(0, 0, 0): no TensorRT here."""
    return (0, 0, 0)


def convert_to_mixed_precision(*args, **kwargs) -> None:
    """Paddle rewrites a model's weights to float16 / bfloat16; the bridge does not."""
    raise Unimplemented("convert_to_mixed_precision: the bridge does not rewrite models to "
                        "mixed precision; run the float32 model (its kernels are float32 "
                        "numpy).")


class XpuConfig:
    """Paddle's XPU settings object: accepted, with no effect here (no XPU)."""

    def __init__(self) -> None:
        self.device_id = 0


def load_model(files: ModelFiles, scope: Scope, *, program_bytes: bytes | None = None,
               params_bytes: bytes | None = None) -> tuple[Program, list[str], list[str]]:
    """``(program, feed names, fetch names)`` of ``files`` (or of in-memory buffers), its
    parameters written into ``scope`` once every record has been checked."""
    if program_bytes is not None:
        desc, where = ProgramDesc.parse_from_string(program_bytes), "the model buffer"
    else:
        desc, where = ProgramDesc.load(files.model), f"'{files.model}'"
    program = Program(desc)
    wanted = combined_param_vars(desc)
    if wanted:
        if params_bytes is not None:
            loaded = load_combined_params(params_bytes, desc)
        elif files is None or files.params is None:
            beside = "" if files is None else f" ('{files.model.with_suffix('.pdiparams')}')"
            raise NotFound(f"the program {where} has {len(wanted)} parameters but no parameter "
                           f"file was given or found beside it{beside}.")
        elif files.combined:
            loaded = load_combined_params(str(files.params), desc)
        else:
            loaded = load_separate_params(str(files.params), desc)
        for name, (array, lod) in loaded.items():
            t = DenseTensor.from_numpy(array)
            t.lod = tuple(tuple(level) for level in lod)
            scope.var(name).value = t
    return program, program.feed_target_names(), program.fetch_target_names()


# -- Config ---------------------------------------------------------------------------------------
_NO_ENGINE = "no effect here"

#: setters accepted with no effect: name -> (summary option, what it would do in Paddle)
_ACCEPTED = {
    "collect_shape_range_info": ("collect_shape_range_info", "TensorRT shape ranges"),
    "disable_mkldnn_fc_passes": ("mkldnn_fc_passes", "oneDNN fc passes"),
    "disable_onnxruntime": ("enable_onnxruntime", "ONNX Runtime"),
    "enable_dlnne": ("enable_dlnne", "DLNNE engine"),
    "enable_ipu": ("use_ipu", "IPU"),
    "enable_lite_engine": ("enable_lite", "Paddle Lite engine"),
    "enable_low_precision_io": ("low_precision_io", "low-precision feeds and fetches"),
    "enable_mkldnn_bfloat16": ("mkldnn_bfloat16", "oneDNN bfloat16"),
    "enable_mkldnn_int8": ("mkldnn_int8", "oneDNN int8"),
    "enable_new_executor": ("new_executor", "Paddle's new executor (the bridge has one)"),
    "enable_onnxruntime": ("enable_onnxruntime", "ONNX Runtime"),
    "enable_opencl": ("use_opencl", "OpenCL"),
    "enable_ort_optimization": ("ort_optimization", "ONNX Runtime graph optimisation"),
    "enable_quantizer": ("mkldnn_quantizer", "oneDNN post-training quantizer"),
    "enable_save_optim_model": ("save_optimized_model", "saving the optimised program"),
    "enable_tensorrt_dla": ("tensorrt_dla", "TensorRT DLA"),
    "enable_tensorrt_engine": ("use_tensorrt", "TensorRT"),
    "enable_tensorrt_explicit_quantization": ("tensorrt_explicit_quant", "TensorRT int8"),
    "enable_tensorrt_inspector": ("tensorrt_inspector", "TensorRT inspector"),
    "enable_tensorrt_memory_optim": ("tensorrt_memory_optim", "TensorRT memory sharing"),
    "enable_tensorrt_varseqlen": ("tensorrt_varseqlen", "TensorRT variable-length BERT"),
    "enable_tuned_tensorrt_dynamic_shape": ("tuned_tensorrt_dynamic_shape",
                                            "TensorRT tuned shapes"),
    "enable_xpu": ("use_xpu", "XPU"),
    "exp_disable_mixed_precision_ops": ("mixed_precision_ops", "mixed precision op lists"),
    "exp_disable_tensorrt_ops": ("tensorrt_disabled_ops", "TensorRT op lists"),
    "exp_enable_mixed_precision_ops": ("mixed_precision_ops", "mixed precision op lists"),
    "exp_enable_use_cutlass": ("use_cutlass", "CUTLASS kernels"),
    "load_ipu_config": ("ipu_config", "IPU"),
    "mark_trt_engine_outputs": ("trt_engine_outputs", "TensorRT outputs"),
    "set_bfloat16_op": ("bfloat16_ops", "oneDNN bfloat16"),
    "set_dist_config": ("dist_config", "distributed inference"),
    "set_ipu_config": ("ipu_config", "IPU"),
    "set_ipu_custom_info": ("ipu_custom_info", "IPU"),
    "set_mkldnn_cache_capacity": ("mkldnn_cache_capacity", "oneDNN shape cache"),
    "set_mkldnn_op": ("mkldnn_ops", "oneDNN op list"),
    "set_optim_cache_dir": ("optim_cache_dir", "the optimised-model cache (none on disk)"),
    "set_tensorrt_optimization_level": ("tensorrt_optimization_level", "TensorRT"),
    "set_trt_dynamic_shape_info": ("tensorrt_dynamic_shape", "TensorRT dynamic shapes"),
    "set_xpu_config": ("xpu_config", "XPU"),
    "set_xpu_device_id": ("xpu_device_id", "XPU"),
    "switch_ir_debug": ("ir_debug", "dumping the program after each pass"),
    "switch_specify_input_names": ("specify_input_name", "inputs are the feed names"),
    "switch_use_feed_fetch_ops": ("use_feed_fetch_ops", "the executor feeds and fetches"),
    "enable_mkldnn": ("enable_mkldnn", "oneDNN kernels (the bridge's CPU kernels are numpy)"),
    "disable_mkldnn": ("enable_mkldnn", "oneDNN kernels"),
    "disable_glog_info": ("enable_log", "glog's INFO lines: none here"),
    "enable_memory_optim": ("memory_optim", "memory reuse is always on here"),
}

#: what the accepted setters store, for the getters: setter -> (option, value from the call)
_STORED = {
    "enable_mkldnn": ("enable_mkldnn", lambda a, k: True),
    "disable_mkldnn": ("enable_mkldnn", lambda a, k: False),
    "set_mkldnn_cache_capacity": ("mkldnn_cache_capacity",
                                  lambda a, k: int(a[0] if a else k.get("capacity", 0))),
    "enable_mkldnn_int8": ("mkldnn_int8", lambda a, k: True),
    "disable_glog_info": ("enable_log", lambda a, k: False),
    "enable_memory_optim": ("memory_optim", lambda a, k: bool(a[0] if a else k.get("x", True))),
    "switch_use_feed_fetch_ops": ("use_feed_fetch_ops",
                                  lambda a, k: bool(a[0] if a else k.get("x", True))),
    "switch_specify_input_names": ("specify_input_name",
                                   lambda a, k: bool(a[0] if a else k.get("x", True))),
    "switch_ir_debug": ("ir_debug", lambda a, k: bool(a[0] if a else k.get("x", True))),
    "enable_save_optim_model": ("save_optimized_model",
                                lambda a, k: bool(a[0] if a else k.get("save_optimized_model",
                                                                        False))),
    "collect_shape_range_info": ("shape_range_info_path", lambda a, k: str(a[0]) if a else ""),
    "set_tensorrt_optimization_level": ("tensorrt_optimization_level", lambda a, k: int(a[0])),
    "set_xpu_device_id": ("xpu_device_id", lambda a, k: int(a[0] if a else
                                                             k.get("device_id", 0))),
    "set_dist_config": ("dist_config", lambda a, k: a[0] if a else None),
    "set_xpu_config": ("xpu_config", lambda a, k: a[0] if a else None),
}


def _accepting(method: str):
    option, what = _ACCEPTED[method]

    def setter(self, *args, **kwargs) -> None:
        stored = _STORED.get(method)
        if stored is not None:
            self._values[stored[0]] = stored[1](args, kwargs)
        shown = ", ".join([repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()])
        value = stored[1](args, kwargs) if stored is not None else (shown or "true")
        shown_value = _yes(value) if isinstance(value, bool) else str(value)
        self._calls[option] = (shown_value, f"{method}: {_NO_ENGINE} ({what})")

    setter.__name__ = method
    setter.__qualname__ = f"Config.{method}"
    setter.__doc__ = f"Accepted for Paddle's API; {_NO_ENGINE} ({what}). Listed by summary()."
    return setter


#: Paddle's pass names -> the bridge's fusion pass flag that does the same fusion
_PASS_FLAGS = {
    "conv_bn_fuse_pass": "FLAGS_fuse_conv_bn",
    "conv_eltwiseadd_bn_fuse_pass": "FLAGS_fuse_conv_bn",
    "conv_bn": "FLAGS_fuse_conv_bn",
    "conv_bn_residual": "FLAGS_fuse_conv_bn_residual",
    "conv_elementwise_add_act_fuse_pass": "FLAGS_fuse_conv_bn_residual",
    "segments": "FLAGS_plan_segments",
}


class PassBuilder:
    """``config.pass_builder()``: the bridge's fusion passes by name; deleting one turns its
    ``FLAGS_`` switch off when a predictor is created (Paddle's pass names map to the bridge's
    pass doing the same fusion, others are recorded with no effect)."""

    def __init__(self, config: Config) -> None:
        self._config = config

    def all_passes(self) -> list[str]:
        """The bridge's fusion passes whose flags are on, less the deleted ones."""
        from fluid_compat.operators.fusion import enabled_passes

        if not self._config._ir_optim:
            return []
        off = {_PASS_FLAGS.get(n) for n in self._config._deleted_passes}
        return [p.name for p in enabled_passes() if p.flag not in off]

    def delete_pass(self, name: str) -> None:
        self._config.delete_pass(name)

    def append_pass(self, name: str) -> None:
        self._config._calls[f"pass {name}"] = (f"append_pass({name!r})", _NO_ENGINE)

    def insert_pass(self, index: int, name: str) -> None:
        self._config._calls[f"pass {name}"] = (f"insert_pass({index}, {name!r})", _NO_ENGINE)

    def set_passes(self, names: Sequence[str]) -> None:
        self._config._calls["passes"] = (f"set_passes({list(names)!r})", _NO_ENGINE)

    def clear_passes(self) -> None:
        self._config.switch_ir_optim(False)

    def turn_on_debug(self) -> None:
        self._config.switch_ir_debug(True)

    def debug_string(self) -> str:
        return "\n".join(self.all_passes())


class Config:
    """Paddle Inference's ``Config``: which model, where to run it, how.

    ``Config()``, ``Config(model_dir)``, ``Config(prefix)``, ``Config(model_file)`` or
    ``Config(model_file, params_file)``; files are looked for when the predictor is created.
    """

    Precision = PrecisionType
    Float32 = PrecisionType.Float32
    Int8 = PrecisionType.Int8
    Half = PrecisionType.Half
    Bfloat16 = PrecisionType.Bfloat16

    def __init__(self, model: str | Path | None = None, params: str | Path | None = None) -> None:
        self._model_dir = ""
        self._prog_file = ""
        self._params_file = ""
        self._buffers: tuple[bytes, bytes] | None = None
        self._place: Place = CPUPlace()
        self._gpu = {"memory_pool_init_size_mb": 0, "device_id": 0}
        self._threads = 1
        self._threads_set = False
        self._ir_optim = True
        self._deleted_passes: list[str] = []
        # Paddle 2.6.2's defaults on a CPU build (its summary() shows them)
        self._values: dict[str, object] = {
            "enable_mkldnn": True, "mkldnn_cache_capacity": 10, "enable_log": True,
            "memory_optim": False, "use_feed_fetch_ops": True, "specify_input_name": False,
            "ir_debug": False, "enable_profile": False, "save_optimized_model": False,
            "mkldnn_int8": False,
            "tensorrt_optimization_level": 3, "xpu_device_id": 0, "dist_config": None,
            "xpu_config": None,
        }
        self._calls: dict[str, tuple[str, str]] = {}  # option -> (the call, its effect here)
        self._applied: dict[str, str] = {}  # option -> what create_predictor did
        if model is not None:
            self.set_model(model, params)

    def __repr__(self) -> str:
        return f"Config({self._describe_model()!r}, place {self._place})"

    # -- the model ----------------------------------------------------------------------------
    def set_model(self, model: str | Path, params: str | Path | None = None) -> None:
        """``set_model(model_dir)`` or ``set_model(prog_file, params_file)``; a prefix or a
        ``.pdmodel`` file alone also works here."""
        self._buffers = None
        if params is not None:
            self._model_dir, self._prog_file, self._params_file = "", str(model), str(params)
            return
        p = Path(model)
        if p.is_dir():
            self._model_dir, self._prog_file, self._params_file = str(model), "", ""
        elif p.is_file():
            params_found, _ = params_beside(p)
            self._model_dir, self._prog_file = "", str(model)
            self._params_file = "" if params_found is None else str(params_found)
        else:  # a prefix (or nothing there yet: create_predictor says which)
            self._model_dir = ""
            self._prog_file = str(model) + ".pdmodel"
            self._params_file = str(model) + ".pdiparams"

    def set_prog_file(self, path: str | Path) -> None:
        self._buffers = None
        self._prog_file = str(path)

    def set_params_file(self, path: str | Path) -> None:
        self._buffers = None
        self._params_file = str(path)

    def set_model_buffer(self, prog_buffer, prog_size: int, params_buffer,
                         params_size: int) -> None:
        """The program and the combined parameters from memory (bytes)."""
        def as_bytes(buf, size, what):
            data = buf.encode("latin-1") if isinstance(buf, str) else bytes(buf)
            if size is not None and int(size) != len(data):
                raise InvalidArgument(f"set_model_buffer: {what} has {len(data)} bytes, the "
                                      f"size given is {size}.")
            return data

        self._buffers = (as_bytes(prog_buffer, prog_size, "prog_buffer"),
                         as_bytes(params_buffer, params_size, "params_buffer"))

    def model_dir(self) -> str:
        return self._model_dir

    def prog_file(self) -> str:
        return self._prog_file

    def params_file(self) -> str:
        return self._params_file

    def model_from_memory(self) -> bool:
        return self._buffers is not None

    def model_files(self) -> ModelFiles:
        """The files the predictor will load (:func:`locate_model`)."""
        if self._model_dir:
            return locate_model(self._model_dir)
        if not self._prog_file:
            raise PreconditionNotMet("Config names no model: give Config(model_dir), "
                                     "Config(prog_file, params_file) or call set_model(...).")
        prog = Path(self._prog_file)
        if not prog.is_file():
            raise NotFound(f"model file '{prog}' not found (Config takes a model directory, a "
                           "path prefix, a .pdmodel file, or prog_file and params_file).")
        params = self._params_file or None
        if params is not None and not Path(params).exists():
            if self._params_file == self._prog_file[:-len(".pdmodel")] + ".pdiparams":
                params = None  # set from a prefix: the program may have no parameters
            else:
                raise NotFound(f"parameter file '{params}' not found.")
        return locate_model(prog, params)

    def _describe_model(self) -> str:
        if self._buffers is not None:
            return "<model in memory>"
        return self._model_dir or self._prog_file or "<no model>"

    # -- the place ----------------------------------------------------------------------------
    def enable_use_gpu(self, memory_pool_init_size_mb: int, device_id: int = 0,
                       precision_mode: PrecisionType = PrecisionType.Float32) -> None:
        """Run on GPU ``device_id`` through cupy; raises Unavailable (naming the cause) when
        cupy or the device is missing.  The memory pool size and a non-float32 precision have
        no effect here (cupy's pool grows as needed; kernels run the model's dtypes)."""
        from phi.backends import get_context

        place = GPUPlace(int(device_id))
        try:
            get_context(place)
        except PhiError as exc:
            raise Unavailable(f"Config.enable_use_gpu({memory_pool_init_size_mb}, {device_id}): "
                              f"the bridge runs on a GPU through cupy, and {exc.message} Leave "
                              "enable_use_gpu out (or call disable_gpu()) to run on the CPU.") \
                from None
        self._place = place
        self._gpu = {"memory_pool_init_size_mb": int(memory_pool_init_size_mb),
                     "device_id": int(device_id)}
        if PrecisionType(precision_mode) is not PrecisionType.Float32:
            self._calls["gpu_precision"] = (f"precision_mode={PrecisionType(precision_mode)}",
                                            "no effect here: kernels run the model's dtypes")

    def disable_gpu(self) -> None:
        self._place = CPUPlace()

    def use_gpu(self) -> bool:
        return isinstance(self._place, GPUPlace)

    def gpu_device_id(self) -> int:
        return self._gpu["device_id"]

    def memory_pool_init_size_mb(self) -> int:
        return self._gpu["memory_pool_init_size_mb"]

    def fraction_of_gpu_memory_for_pool(self) -> float:
        return 0.0

    def enable_custom_device(self, device_type: str, device_id: int = 0,
                             precision: PrecisionType = PrecisionType.Float32) -> None:
        """Run on a plug-in device registered with ``phi.backends.register_custom_device``."""
        from phi.backends import get_context

        place = CustomPlace(device_type, int(device_id))
        get_context(place)  # NotFound naming the registered devices when it is not one
        self._place = place

    def place(self) -> Place:
        """The bridge's Place the predictor runs on (not in Paddle's API)."""
        return self._place

    # -- CPU threads --------------------------------------------------------------------------
    def set_cpu_math_library_num_threads(self, num_threads: int) -> None:
        """BLAS threads, set through threadpoolctl (process-wide) when a predictor is created;
        without threadpoolctl installed the setting is recorded and summary() says so."""
        n = int(num_threads)
        if n < 1:
            raise InvalidArgument(f"set_cpu_math_library_num_threads: expected a thread count "
                                  f">= 1, got {num_threads!r}.")
        self._threads, self._threads_set = n, True

    def cpu_math_library_num_threads(self) -> int:
        return self._threads

    # -- IR optimisation: the executor's fusion passes -------------------------------------
    def enable_profile(self) -> None:
        """Each predictor made from this config profiles its runs (fluid_compat.profiler):
        ``predictor.profiler.summary()``, ``predictor.profiler.export_chrome_trace(path)``."""
        self._values["enable_profile"] = True
        self._calls["enable_profile"] = ("true", ("each predictor's runs are profiled: "
                                                 "predictor.profiler"))

    def switch_ir_optim(self, x: bool = True) -> None:
        """Off: the predictor sets every fusion pass's ``FLAGS_`` switch to 0 (process-wide:
        ops run one by one; results are the same bits, see fluid_compat.operators.fusion).
        On (the default): the switches are left as they are (the environment's FLAGS_)."""
        self._ir_optim = bool(x)

    def ir_optim(self) -> bool:
        return self._ir_optim

    def delete_pass(self, pass_name: str) -> None:
        """A Paddle pass name that matches one of the bridge's fusions (conv_bn_fuse_pass ...)
        turns that fusion's flag off when the predictor is created; others have no effect."""
        if pass_name not in self._deleted_passes:
            self._deleted_passes.append(pass_name)

    def pass_builder(self) -> PassBuilder:
        return PassBuilder(self)

    # -- getters of the accepted settings ---------------------------------------------------
    def glog_info_disabled(self) -> bool:
        return not self._values["enable_log"]

    def mkldnn_enabled(self) -> bool:
        return bool(self._values["enable_mkldnn"])

    def mkldnn_int8_enabled(self) -> bool:
        return bool(self._values["mkldnn_int8"])

    def use_feed_fetch_ops_enabled(self) -> bool:
        return bool(self._values["use_feed_fetch_ops"])

    def specify_input_name(self) -> bool:
        return bool(self._values["specify_input_name"])

    def shape_range_info_collected(self) -> bool:
        return bool(self._values.get("shape_range_info_path"))

    def shape_range_info_path(self) -> str:
        return str(self._values.get("shape_range_info_path", ""))

    def tensorrt_optimization_level(self) -> int:
        return int(self._values["tensorrt_optimization_level"])

    def tensorrt_precision_mode(self) -> PrecisionType:
        return PrecisionType.Float32

    def xpu_device_id(self) -> int:
        return int(self._values["xpu_device_id"])

    def dist_config(self):
        return self._values["dist_config"]

    def xpu_config(self):
        value = self._values["xpu_config"]
        return XpuConfig() if value is None else value

    def quantizer_config(self):
        return None

    def nnadapter(self):
        return _Recorder(self, "nnadapter")

    def to_native_config(self) -> Config:
        """A copy (Paddle's NativeConfig is the same settings without the analysis passes)."""
        clone = Config.__new__(Config)
        clone.__dict__.update({k: (dict(v) if isinstance(v, dict) else
                                   list(v) if isinstance(v, list) else v)
                               for k, v in self.__dict__.items()})
        return clone

    # engines the bridge does not have: never enabled (what a Paddle build without them says)
    def tensorrt_engine_enabled(self) -> bool:
        return False

    tensorrt_dla_enabled = tensorrt_dynamic_shape_enabled = tensorrt_engine_enabled
    tensorrt_explicit_quantization_enabled = tensorrt_inspector_enabled = tensorrt_engine_enabled
    tensorrt_varseqlen_enabled = tuned_tensorrt_dynamic_shape = tensorrt_engine_enabled
    trt_allow_build_at_runtime = lite_engine_enabled = onnxruntime_enabled = \
        tensorrt_engine_enabled
    use_xpu = use_opencl = tensorrt_engine_enabled

    # -- summary ------------------------------------------------------------------------------
    def summary(self) -> str:
        """Paddle's option table with a third column: what each setting does here."""
        rows: list[tuple[str, str, str] | None] = []
        if self._buffers is not None:
            rows.append(("model_from_memory", "true", ""))
        elif self._model_dir:
            rows.append(("model_dir", self._model_dir, ""))
        else:
            rows.append(("model_file", self._prog_file, ""))
            rows.append(("params_file", self._params_file, ""))
        rows.append(None)
        rows.append(("cpu_math_thread", str(self._threads), self._threads_note()))
        rows.append(("enable_mkldnn", _yes(self._values["enable_mkldnn"]),
                     f"{_NO_ENGINE} (oneDNN)"))
        rows.append(("mkldnn_cache_capacity", str(self._values["mkldnn_cache_capacity"]),
                     f"{_NO_ENGINE} (oneDNN)"))
        rows.append(None)
        gpu = self.use_gpu()
        rows.append(("use_gpu", _yes(gpu), f"cupy on {self._place}" if gpu else
                     f"runs on {self._place}"))
        if gpu:
            rows.append(("gpu_device_id", str(self.gpu_device_id()), ""))
            rows.append(("memory_pool_init_size", f"{self.memory_pool_init_size_mb()}MB",
                         "no effect here (cupy's pool grows as needed)"))
        rows.append(None)
        rows.append(("ir_optim", _yes(self._ir_optim), self._ir_note()))
        for name in self._deleted_passes:
            flag = _PASS_FLAGS.get(name)
            rows.append(("delete_pass", name, f"{flag}=0 (process-wide)" if flag else
                         "no effect here: no such pass in the bridge"))
        rows.append(("memory_optim", _yes(self._values["memory_optim"]),
                     "always on here (each temporary freed after its last use)"))
        rows.append(("enable_log", _yes(self._values["enable_log"]),
                     "the bridge logs nothing unless FLAGS_dispatch_trace is set"))
        shown = {"enable_mkldnn", "mkldnn_cache_capacity", "memory_optim", "enable_log"}
        extra = [(option, call, effect) for option, (call, effect) in self._calls.items()
                 if option not in shown]
        if extra:
            rows.append(None)
            rows.extend(extra)
        for option, what in self._applied.items():
            if option not in ("cpu_math_thread", "ir_optim"):
                rows.append((option, "", what))
        return _table(("Option", "Value", "Here"), rows)

    def _threads_note(self) -> str:
        if "cpu_math_thread" in self._applied:
            return self._applied["cpu_math_thread"]
        if not self._threads_set:
            return "BLAS threads left as they are"
        return "BLAS threads through threadpoolctl when a predictor is created"

    def _ir_note(self) -> str:
        if "ir_optim" in self._applied:
            return self._applied["ir_optim"]
        if self._ir_optim:
            return "fusion passes as their FLAGS_ say"
        return "fusion passes off when a predictor is created (process-wide FLAGS_)"

    # -- what create_predictor applies ------------------------------------------------------
    def _apply(self) -> None:
        """The process-wide settings of this config: BLAS threads, fusion pass flags."""
        if self._threads_set:
            try:
                from threadpoolctl import threadpool_limits
            except ImportError:
                self._applied["cpu_math_thread"] = ("no effect: threadpoolctl is not installed "
                                                    "(pip install threadpoolctl); BLAS threads "
                                                    "left as they are")
            else:
                threadpool_limits(limits=self._threads, user_api="blas")
                self._applied["cpu_math_thread"] = (f"BLAS threads set to {self._threads} "
                                                    "(threadpoolctl, process-wide)")
        from phi import flags

        from fluid_compat.operators.fusion import fusion_flags

        off: list[str] = []
        if not self._ir_optim:
            off = fusion_flags()
        for name in self._deleted_passes:
            flag = _PASS_FLAGS.get(name)
            if flag is not None and flag not in off:
                off.append(flag)
        if off:
            flags.set_flags({f: False for f in off})
            self._applied["ir_optim"] = (", ".join(f"{f}=0" for f in off) + " (process-wide)")


def _yes(value: object) -> str:
    return "true" if value else "false"


def _table(header: tuple[str, ...], rows: list, wrap: int = 46) -> str:
    """Rows (None: a rule) in a boxed table, as Paddle's summary() draws one; the last column
    wrapped at ``wrap`` characters."""
    import textwrap

    wrapped: list = []
    for r in rows:
        if r is None:
            wrapped.append(None)
            continue
        lines = textwrap.wrap(str(r[-1]), wrap) or [""]
        wrapped.append((*r[:-1], lines[0]))
        wrapped.extend((*("" for _ in r[:-1]), more) for more in lines[1:])
    rows = wrapped
    body = [r for r in rows if r is not None]
    widths = [max(len(str(r[i])) for r in [header, *body]) for i in range(len(header))]
    rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+"

    def line(cells) -> str:
        return "|" + "|".join(f" {c!s:<{w}} " for c, w in zip(cells, widths, strict=True)) + "|"

    out = [rule, line(header), rule]
    for r in rows:
        if r is None:
            if out[-1] != rule:
                out.append(rule)
        else:
            out.append(line(r))
    if out[-1] != rule:
        out.append(rule)
    return "\n".join(out) + "\n"


class _Recorder:
    """What ``nnadapter()`` hands back: every call is accepted, recorded, with no effect."""

    def __init__(self, config: Config, prefix: str) -> None:
        self._config, self._prefix = config, prefix

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)

        def call(*args, **kwargs):
            self._config._calls[f"{self._prefix}.{name}"] = (
                f"{name}(...)", f"{_NO_ENGINE} (Paddle Lite NNAdapter)")
            return self

        return call


for _method in _ACCEPTED:
    setattr(Config, _method, _accepting(_method))
del _method


# -- handles --------------------------------------------------------------------------------------
class _Name(str):
    """A handle's name: a string, also callable (``handle.name`` and ``handle.name()``)."""

    def __call__(self) -> str:
        return str(self)


class IOInfo:
    """An input's or output's metadata (as onnxruntime's ``get_inputs()`` gives them): name,
    shape with -1 for a dimension known only at run time, numpy dtype name, LoD level."""

    __slots__ = ("dtype", "lod_level", "name", "shape")

    def __init__(self, name: str, shape: tuple[int, ...] | None, dtype: str | None,
                 lod_level: int) -> None:
        self.name, self.shape, self.dtype, self.lod_level = name, shape, dtype, lod_level

    def to_dict(self) -> dict:
        return {"name": self.name, "shape": None if self.shape is None else list(self.shape),
                "dtype": self.dtype, "lod_level": self.lod_level}

    def __repr__(self) -> str:
        lod = f", lod_level={self.lod_level}" if self.lod_level else ""
        return f"IOInfo({self.name!r}, shape={self.shape}, dtype={self.dtype}{lod})"


class Tensor:
    """A predictor's input or output handle (Paddle's ``paddle.inference.Tensor``)."""

    def __init__(self, name: str, predictor: Predictor, is_input: bool) -> None:
        self.name = _Name(name)
        self._predictor = predictor
        self._is_input = is_input
        self._data: np.ndarray | None = None  # an input's values
        self._shape: list[int] | None = None  # an input's shape from reshape()
        self._lod: list[list[int]] = []
        self._value: DenseTensor | None = None  # an output's tensor after a run

    def __repr__(self) -> str:
        kind = "input" if self._is_input else "output"
        return f"Tensor({str(self.name)!r}, {kind}, shape {self.shape()})"

    def _desc(self):
        return self._predictor._shared.program.desc.global_block.find_var(str(self.name))

    # -- inputs -------------------------------------------------------------------------------
    def reshape(self, shape: Sequence[int]) -> None:
        """Set an input's shape (a later copy_from_cpu sets it from the data anyway)."""
        dims = [int(d) for d in shape]
        if any(d < 0 for d in dims):
            raise InvalidArgument(f"Tensor `{self.name}`.reshape: dimensions must be >= 0, got "
                                  f"{list(shape)}.")
        if self._data is not None:
            if int(np.prod(dims)) == self._data.size:
                self._data = self._data.reshape(dims)
            else:
                self._data = None  # another size: the next copy_from_cpu fills it
        self._shape = dims

    def copy_from_cpu(self, data: np.ndarray) -> None:
        """Copy a numpy array into this input (the handle keeps its own copy)."""
        self._set(data, copy=True)

    def share_external_data(self, data: np.ndarray) -> None:
        """Use ``data`` as this input without copying it (do not change it while running)."""
        self._set(data, copy=False)

    def _set(self, data, copy: bool) -> None:
        if not self._is_input:
            raise PreconditionNotMet(f"`{self.name}` is an output handle: outputs are written "
                                     "by predictor.run(), copy_from_cpu is for inputs.")
        if not isinstance(data, np.ndarray):
            raise InvalidArgument(f"Tensor `{self.name}`.copy_from_cpu expects a numpy ndarray, "
                                  f"got {type(data).__name__}.")
        if data.dtype.kind in "OUS":
            raise Unimplemented(f"Tensor `{self.name}`: string inputs ({data.dtype}) are not "
                                "supported here.")
        self._data = np.array(data, copy=True) if copy else data
        self._shape = list(data.shape)

    def set_lod(self, lod: Sequence[Sequence[int]]) -> None:
        """The LoD (offsets per level) of this input, e.g. ``[[0, 2, 5]]``."""
        self._lod = [[int(o) for o in level] for level in lod]

    def lod(self) -> list[list[int]]:
        if self._value is not None:
            return [list(level) for level in self._value.lod]
        return [list(level) for level in self._lod]

    # -- both ---------------------------------------------------------------------------------
    def shape(self) -> list[int]:
        if self._value is not None:
            return list(self._value.dims)
        if self._data is not None:
            return list(self._data.shape)
        if self._shape is not None:
            return list(self._shape)
        return [0]  # what Paddle answers for a handle that holds nothing yet

    def type(self) -> DataType:
        if self._value is not None:
            dtype = self._value.dtype
        elif self._data is not None:
            dtype = PhiDataType.from_numpy(self._data.dtype)
        else:
            desc = self._desc()
            dtype = desc.dtype if desc is not None and desc.dtype else PhiDataType.FLOAT32
        try:
            return _FROM_PHI[dtype]
        except KeyError:
            raise Unimplemented(f"Tensor `{self.name}` holds {dtype}, which Paddle Inference's "
                                "DataType has no member for.") from None

    def copy_to_cpu(self) -> np.ndarray:
        """A numpy copy of this output (after run) or input."""
        if self._value is not None:
            return np.array(self._value.numpy(), copy=True)
        if self._is_input and self._data is not None:
            return np.array(self._data, copy=True)
        what = ("call predictor.run() first" if not self._is_input
                else "copy_from_cpu() has not been called")
        raise PreconditionNotMet(f"Tensor `{self.name}` holds no data: {what}.")

    def _feed(self):
        if self._data is None:
            raise PreconditionNotMet(f"input `{self.name}` has no data: call "
                                     f"get_input_handle({str(self.name)!r}).copy_from_cpu(array) "
                                     "before run().")
        if self._lod:
            return (self._data, self._lod)
        return self._data


# -- Predictor ------------------------------------------------------------------------------------
class _Shared:
    """What a predictor and its clones share: program, parameters (scope), executor."""

    __slots__ = ("executor", "files", "inputs", "outputs", "program", "scope")

    def __init__(self, program: Program, scope: Scope, executor: Executor, inputs: list[str],
                 outputs: list[str], files) -> None:
        self.program, self.scope, self.executor = program, scope, executor
        self.inputs, self.outputs, self.files = inputs, outputs, files


class Predictor:
    """Runs one model (Paddle's ``paddle.inference.Predictor``); make one with
    :func:`create_predictor`, one more per serving thread with :meth:`clone`."""

    def __init__(self, config: Config, _shared: _Shared | None = None) -> None:
        if _shared is None:
            scope = Scope()
            if config._buffers is not None:
                program, inputs, outputs = load_model(None, scope, program_bytes=config._buffers[0],
                                                      params_bytes=config._buffers[1])
                files = None
            else:
                files = config.model_files()
                program, inputs, outputs = load_model(files, scope)
            config._apply()
            _shared = _Shared(program, scope, Executor(config._place), inputs, outputs, files)
        self._shared = _shared
        self._config = config
        self._lock = threading.Lock()
        self._inputs = {n: Tensor(n, self, True) for n in _shared.inputs}
        self._outputs = {n: Tensor(n, self, False) for n in _shared.outputs}
        #: with Config.enable_profile(): this predictor's runs, op by op (a clone has its own)
        self.profiler = None
        if config._values.get("enable_profile"):
            from fluid_compat.profiler import Profiler

            self.profiler = Profiler()

    def __repr__(self) -> str:
        return (f"Predictor({self._config._describe_model()!r}, inputs {self._shared.inputs}, "
                f"outputs {self._shared.outputs}, place {self._shared.executor.place})")

    @property
    def program(self) -> Program:
        """The loaded program (shared with the clones)."""
        return self._shared.program

    def get_input_names(self) -> list[str]:
        return list(self._shared.inputs)

    def get_output_names(self) -> list[str]:
        return list(self._shared.outputs)

    def get_input_handle(self, name: str) -> Tensor:
        try:
            return self._inputs[name]
        except KeyError:
            raise NotFound(f"`{name}` is not an input of the model (inputs: "
                           f"{self._shared.inputs}).") from None

    def get_output_handle(self, name: str) -> Tensor:
        try:
            return self._outputs[name]
        except KeyError:
            raise NotFound(f"`{name}` is not an output of the model (outputs: "
                           f"{self._shared.outputs}).") from None

    def get_inputs(self) -> list[IOInfo]:
        """The inputs' metadata, without running (onnxruntime's ``get_inputs()``)."""
        return [self._info(n) for n in self._shared.inputs]

    def get_outputs(self) -> list[IOInfo]:
        """The outputs' metadata as the program declares them."""
        return [self._info(n) for n in self._shared.outputs]

    def _info(self, name: str) -> IOInfo:
        desc = self._shared.program.desc.global_block.find_var(name)
        if desc is None:
            return IOInfo(name, None, None, 0)
        dtype = None if desc.dtype is None else np.dtype(desc.dtype.to_numpy()).name
        return IOInfo(name, None if desc.shape is None else tuple(desc.shape), dtype,
                      desc.lod_level)

    def describe(self) -> dict:
        """The model's metadata (fluid_compat.tools.inspect_model.describe)."""
        from fluid_compat.tools.inspect_model import describe

        return describe(self._shared.program, scope=self._shared.scope,
                        source=None if self._shared.files is None else str(self._shared.files))

    def run(self, inputs: Sequence | Mapping | None = None) -> list[np.ndarray] | None:
        """``run()``: feed the input handles, fill the output handles (returns None, as
        Paddle's).  ``run(arrays)``: the inputs in ``get_input_names()`` order (or a mapping
        by name; an ``(array, lod)`` pair for a LoD input); returns the outputs as numpy arrays
        in ``get_output_names()`` order, and fills the output handles too."""
        names = self._shared.inputs
        if inputs is None:
            feed = {n: self._inputs[n]._feed() for n in names}
        elif isinstance(inputs, Mapping):
            feed = {n: _array_of(v, n) for n, v in inputs.items()}
        else:
            values = list(inputs)
            if len(values) != len(names):
                raise InvalidArgument(f"Predictor.run got {len(values)} inputs, the model has "
                                      f"{len(names)}: {names}.")
            feed = {n: _array_of(v, n) for n, v in zip(names, values, strict=True)}
        shared = self._shared
        if self.profiler is not None:
            self.profiler.start()
        try:
            tensors = shared.executor.run(shared.program, feed=feed, fetch_list=shared.outputs,
                                          scope=shared.scope, return_numpy=False)
        finally:
            if self.profiler is not None:
                self.profiler.stop()
        with self._lock:
            for name, t in zip(shared.outputs, tensors, strict=True):
                self._outputs[name]._value = t
        if inputs is None:
            return None
        return [np.array(t.numpy(), copy=True) for t in tensors]

    def clone(self) -> Predictor:
        """Another predictor on the same program, parameters and executor, with handles of its
        own: one per serving thread."""
        return Predictor(self._config, _shared=self._shared)

    def try_shrink_memory(self) -> int:
        """0: nothing is pooled here (temporaries are freed after their last use)."""
        return 0

    def clear_intermediate_tensor(self) -> None:
        """Nothing to clear: a run keeps no temporaries past their last use."""

    def register_output_hook(self, hook) -> None:
        raise Unimplemented("Predictor.register_output_hook: per-op output hooks are not "
                            "supported; `fluid-compat explain` and shadow runs "
                            "(Executor(shadow=True)) show per-op results.")

    @property
    def last_stats(self):
        """How the calling thread's last run ran (phi / fluid kernels, fused steps)."""
        return self._shared.executor.last_stats


def _array_of(value, name: str):
    """A run(list) item: an array, an ``(array, lod)`` pair, a handle or a tensor-like."""
    if isinstance(value, Tensor):
        return value._feed()
    if isinstance(value, (np.ndarray, DenseTensor)) or (type(value) is tuple and len(value) == 2):
        return value
    numpy = getattr(value, "numpy", None)  # a framework tensor (paddle.Tensor, torch ...)
    if callable(numpy):
        return np.asarray(numpy())
    return np.asarray(value)


def create_predictor(config: Config) -> Predictor:
    """Load the model ``config`` names and return a predictor for it."""
    if not isinstance(config, Config):
        raise InvalidArgument(f"create_predictor expects a fluid_compat.inference.Config, got "
                              f"{type(config).__name__}.")
    return Predictor(config)


class PredictorPool:
    """``size`` predictors of one config sharing the model (Paddle's ``PredictorPool``)."""

    def __init__(self, config: Config, size: int = 1) -> None:
        if int(size) < 1:
            raise InvalidArgument(f"PredictorPool: size must be >= 1, got {size!r}.")
        first = create_predictor(config)
        self._predictors = [first] + [first.clone() for _ in range(int(size) - 1)]

    def retrive(self, idx: int) -> Predictor:  # (sic: Paddle's spelling)
        try:
            return self._predictors[idx]
        except IndexError:
            raise NotFound(f"PredictorPool has {len(self._predictors)} predictors, no index "
                           f"{idx}.") from None

    retrieve = retrive
