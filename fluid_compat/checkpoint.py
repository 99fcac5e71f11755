"""Training checkpoints in Paddle 2.6.2's formats.

``save(program, model_path)`` / ``load(program, model_path, executor=None, var_list=None)`` are
``paddle.static.save`` / ``paddle.static.load`` (python/paddle/static/io.py):

* ``<prefix>.pdparams``: a pickle (protocol 4 by default, 2..4 allowed) of ``{name:
  numpy array}`` for the program's parameters (VarDescs with ``is_parameter``, what Paddle's
  Python side makes ``Parameter`` objects of);
* ``<prefix>.pdopt``: the same for every other persistable variable that is no feed target
  (``need_check_feed``): optimizer moments, beta powers, learning rates, step counters; Paddle
  writes it even when empty;
* ``<prefix>.pdmodel``: the serialized ProgramDesc.

bfloat16 arrays are pickled as uint16, as ``np.array`` of a Paddle bfloat16 tensor gives them,
and read back as bfloat16 where the variable is.  Pickles are read with an unpickler that only
builds numpy arrays (a checkpoint cannot run code).  ``load`` without a ``.pdparams`` file falls
back, as Paddle does, to ``load_vars`` files: a directory of one file per variable
(``save`` op records; SelectedRows records for SELECTED_ROWS variables) or, with ``var_list``,
one ``save_combine`` file.  ``save_vars`` / ``load_vars`` write and read those (one file per
variable, or ``filename``: one save_combine file of the variables in sorted-name order).

Every value is checked before the scope is touched: a bad file leaves the scope as it was.
"""

from __future__ import annotations

import io
import os
import pickle
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
from phi.common.data_type import DataType
from phi.core.errors import InvalidArgument, NotFound
from phi.core.selected_rows import SelectedRows, is_selected_rows
from phi.core.tensor import DenseTensor

from fluid_compat.executor import Program, global_scope
from fluid_compat.framework import VarType
from fluid_compat.framework.scope import Scope
from fluid_compat.framework.tensor_io import (
    selected_rows_from_bytes,
    selected_rows_to_bytes,
    tensor_from_bytes,
    tensor_to_bytes,
    tensors_from_bytes,
)

__all__ = ["load", "load_vars", "save", "save_vars"]

_NOT_PERSISTABLE_TYPES = (VarType.FEED_MINIBATCH, VarType.FETCH_LIST, VarType.READER)
_SUFFIXES = (".pdparams", ".pdopt", ".pdmodel")
#: what Paddle's _unpack_saved_dict leaves for arrays split under pickle protocol 2 / 3
_UNPACK_INFO = "UnpackBigParamInfor@@"


# -- which variables --------------------------------------------------------------------------


def _all_vars(program: Program) -> list:
    """``program.list_vars()``: the variables of every block, each name once."""
    seen: dict[str, object] = {}
    for block in program.desc.blocks:
        for name, var in block.vars.items():
            seen.setdefault(name, var)
    return list(seen.values())


def _is_persistable(var) -> bool:
    return bool(var.persistable) and var.type not in _NOT_PERSISTABLE_TYPES


def parameters(program: Program) -> list:
    """Paddle's ``is_parameter`` filter over the program's variables."""
    return [v for v in _all_vars(program) if v.is_parameter]


def optimizer_vars(program: Program) -> list:
    """Paddle's ``is_belong_to_optimizer``: persistable, not a parameter, not a feed target."""
    return [v for v in _all_vars(program)
            if not (v.is_parameter or v.need_check_feed) and _is_persistable(v)]


# -- values ------------------------------------------------------------------------------------


def _value_array(scope: Scope, name: str, pickled: bool = True) -> np.ndarray:
    var = scope.find_var(name)
    value = None if var is None else var.value
    if not isinstance(value, DenseTensor) or value.data is None or is_selected_rows(value):
        what = "a SelectedRows" if is_selected_rows(value) else "no tensor"
        raise NotFound(f"save: variable `{name}` holds {what} in the scope (Paddle saves the "
                       "DenseTensor of every parameter and optimizer variable).")
    array = np.asarray(value.numpy())
    if pickled and array.dtype.name == "bfloat16" and array.dtype == DataType.BFLOAT16.to_numpy():
        # as np.array() of a Paddle bf16 tensor
        array = array.view(np.uint16)
    return array


def _as_var_array(var, array, source: str) -> np.ndarray:
    """A loaded array for ``var``: bfloat16 from its uint16 storage, other dtypes as stored."""
    array = np.asarray(array)
    if not isinstance(array, np.ndarray) or array.dtype == object:
        raise InvalidArgument(f"{source}: the value of `{var.name}` is not a numeric array.")
    if var.dtype is DataType.BFLOAT16 and array.dtype == np.uint16:
        array = array.view(DataType.BFLOAT16.to_numpy())
    return np.array(array, order="C", copy=True)  # (ascontiguousarray makes 0-d arrays 1-d)


class _ArrayUnpickler(pickle.Unpickler):
    """Builds dicts of numpy arrays only: the globals numpy's array pickles name."""

    _ALLOWED: frozenset[tuple[str, str]] = frozenset({
        ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
        ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar"),
        ("numpy.core.numeric", "_frombuffer"), ("numpy._core.numeric", "_frombuffer"),
        ("numpy", "ndarray"), ("numpy", "dtype"), ("_codecs", "encode"),
    })

    def find_class(self, module: str, name: str):
        if (module, name) not in self._ALLOWED:
            raise pickle.UnpicklingError(f"a checkpoint may only hold numpy arrays, it names "
                                         f"{module}.{name}")
        with warnings.catch_warnings():  # numpy 2 warns on numpy.core: the pickle names it
            warnings.simplefilter("ignore", DeprecationWarning)
            return super().find_class(module, name)


def _read_pickle(path: Path) -> dict:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise NotFound(f"load: cannot read '{path}': {exc.strerror}.") from None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            obj = _ArrayUnpickler(io.BytesIO(data), encoding="latin1").load()
    except Exception as exc:  # any malformed pickle: one typed error naming the file
        raise InvalidArgument(f"load: '{path}' is not a Paddle checkpoint pickle ({exc}).") \
            from None
    if not isinstance(obj, dict):
        raise InvalidArgument(f"load: '{path}' holds a {type(obj).__name__}, not a dict of "
                              "arrays.")
    return _pack_loaded_dict(obj)


def _pack_loaded_dict(obj: dict) -> dict:
    """Paddle's _pack_loaded_dict: rejoin arrays split into slices under protocol 2 / 3."""
    info = obj.pop(_UNPACK_INFO, None)
    if info:
        for key, value in info.items():
            parts = [obj.pop(part) for part in value["slices"]]
            obj[key] = np.concatenate(parts).reshape(value["OriginShape"])
    return obj


def _set_all(scope: Scope, values: dict) -> None:
    """Write checked values into the scope (only after every one was read and checked)."""
    for name, value in values.items():
        target = scope.find_var(name) or scope.var(name)
        if isinstance(value, tuple):  # (rows, height, array): a SelectedRows
            rows, height, array = value
            t = DenseTensor.from_numpy(array)
            target.value = SelectedRows(rows, height, t.data, t.dtype)
        else:
            old = target.value
            lod = old.lod if isinstance(old, DenseTensor) else ()
            t = DenseTensor.from_numpy(value)
            t.lod = lod
            target.value = t


def _prefix(model_path: str | os.PathLike) -> Path:
    text = os.fspath(model_path)
    for suffix in _SUFFIXES:
        if text.endswith(suffix):
            return Path(text[: -len(suffix)])
    return Path(text)


# -- paddle.static.save / load -----------------------------------------------------------------


def save(program: Program, model_path: str | os.PathLike, protocol: int = 4, *,
         scope: Scope | None = None) -> None:
    """``paddle.static.save``: ``.pdparams``, ``.pdopt`` and ``.pdmodel`` of ``program`` with
    the values held by ``scope`` (default: the global scope)."""
    if not os.path.basename(os.fspath(model_path)):
        raise InvalidArgument("save: model_path must be 'dirname/file_prefix', got an empty "
                              "file prefix.")
    if not isinstance(protocol, int) or isinstance(protocol, bool) or not 1 < protocol < 5:
        raise InvalidArgument(f"save: Expected 1<'protocol'<5, but received protocol="
                              f"{protocol!r}.")
    scope = global_scope() if scope is None else scope
    params = {v.name: _value_array(scope, v.name) for v in parameters(program)}
    opt = {v.name: _value_array(scope, v.name) for v in optimizer_vars(program)}
    if protocol < 4:
        too_big = [n for n, a in params.items() if a.nbytes >= 2 ** 32]
        if too_big:  # Paddle splits them (_unpack_saved_dict); not needed below 4 GiB
            raise InvalidArgument(f"save: parameters {too_big} exceed 4 GiB: use protocol 4.")
    prefix = Path(os.fspath(model_path))
    prefix.parent.mkdir(parents=True, exist_ok=True)
    _write(prefix.with_name(prefix.name + ".pdparams"), pickle.dumps(params, protocol=protocol))
    _write(prefix.with_name(prefix.name + ".pdopt"), pickle.dumps(opt, protocol=protocol))
    _write(prefix.with_name(prefix.name + ".pdmodel"), program.serialize_to_string())


def load(program: Program, model_path: str | os.PathLike, executor=None, var_list=None, *,
         scope: Scope | None = None) -> None:
    """``paddle.static.load``: the parameters from ``.pdparams`` and the optimizer variables
    from ``.pdopt`` into ``scope`` (default: the global scope); without ``.pdparams``, the
    ``load_vars`` forms (a directory of variable files, or a save_combine file and
    ``var_list``)."""
    del executor  # accepted for Paddle's signature: loading needs no device
    scope = global_scope() if scope is None else scope
    prefix = _prefix(model_path)
    params_file = prefix.with_name(prefix.name + ".pdparams")
    if not params_file.exists():
        path = Path(os.fspath(model_path))
        names = None if var_list is None else {_name(v) for v in var_list}
        if path.is_dir():
            wanted = [v for v in _all_vars(program) if (path / v.name).is_file()
                      and (names is None or v.name in names)]
            return load_vars(None, str(path), program, [v.name for v in wanted], scope=scope)
        if path.is_file():
            if var_list is None:
                raise InvalidArgument("load: var_list is required when loading a model file "
                                      "saved with save_params / save_persistables / save_vars.")
            return load_vars(None, str(path.parent), program, list(var_list),
                             filename=path.name, scope=scope)
        raise NotFound(f"load: neither '{params_file}' nor '{path}' exists.")
    values: dict = {}
    loaded = _read_pickle(params_file)
    for var in parameters(program):
        if var.name not in loaded:
            raise NotFound(f"load: Can not find [{var.name}] in model file [{params_file}].")
        values[var.name] = _as_var_array(var, loaded[var.name], str(params_file))
    opt_vars = optimizer_vars(program)
    if opt_vars:
        opt_file = prefix.with_name(prefix.name + ".pdopt")
        if not opt_file.exists():
            raise NotFound(f"load: Optimizer file [{opt_file}] not exits.")
        loaded = _read_pickle(opt_file)
        for var in opt_vars:
            if var.name not in loaded:
                raise NotFound(f"load: Can not find [{var.name}] in model file [{opt_file}].")
            values[var.name] = _as_var_array(var, loaded[var.name], str(opt_file))
    _set_all(scope, values)


# -- save_vars / load_vars ---------------------------------------------------------------------


def _name(v) -> str:
    name = v if isinstance(v, str) else getattr(v, "name", None)
    if not isinstance(name, str):
        raise InvalidArgument(f"vars items are names or variables, got {v!r}.")
    return name


def _selected(program: Program, vars_, predicate: Callable | None) -> list:
    by_name = {v.name: v for v in _all_vars(program)}
    if vars_ is None:
        chosen = [v for v in by_name.values() if predicate is None or predicate(v)]
    else:
        chosen = []
        for item in vars_:
            name = _name(item)
            if name not in by_name:
                raise NotFound(f"variable `{name}` is not a variable of the program.")
            chosen.append(by_name[name])
    return [v for v in chosen if v.type is not VarType.RAW]


def save_vars(executor, dirname: str | os.PathLike, main_program: Program,
              vars: Iterable | None = None, predicate: Callable | None = None,
              filename: str | None = None, *, scope: Scope | None = None) -> None:
    """``paddle.static.save_vars``: one ``save`` record per variable in ``dirname`` (a
    SelectedRows record for a SelectedRows), or with ``filename`` one ``save_combine`` file of
    the variables in sorted-name order."""
    del executor
    scope = global_scope() if scope is None else scope
    chosen = _selected(main_program, vars, predicate)
    directory = Path(os.fspath(dirname))
    directory.mkdir(parents=True, exist_ok=True)
    if filename is None:
        blobs = {}
        for var in chosen:
            value = scope.find_var(var.name)
            value = None if value is None else value.value
            if is_selected_rows(value) and value.data is not None:
                blobs[var.name] = selected_rows_to_bytes(value.rows, value.height,
                                                         value.numpy())
            else:
                lod = value.lod if isinstance(value, DenseTensor) else ()
                blobs[var.name] = tensor_to_bytes(_value_array(scope, var.name, pickled=False), lod)
        for name, blob in blobs.items():
            _write(directory / name, blob)
        return
    records = []
    for var in sorted(chosen, key=lambda v: v.name):
        value = scope.find_var(var.name)
        lod = value.value.lod if value is not None and isinstance(value.value, DenseTensor) \
            else ()
        records.append(tensor_to_bytes(_value_array(scope, var.name, pickled=False), lod))
    _write(directory / filename, b"".join(records))


def load_vars(executor, dirname: str | os.PathLike, main_program: Program,
              vars: Iterable | None = None, predicate: Callable | None = None,
              filename: str | None = None, *, scope: Scope | None = None) -> None:
    """``paddle.static.load_vars``: the files ``save_vars`` writes (``load`` / ``load_combine``
    records), checked against the variables' dtypes before the scope is touched."""
    del executor
    scope = global_scope() if scope is None else scope
    chosen = _selected(main_program, vars, predicate)
    directory = Path(os.fspath(dirname))
    values: dict = {}
    if filename is None:
        for var in chosen:
            path = directory / var.name
            try:
                data = path.read_bytes()
            except OSError as exc:
                raise NotFound(f"load_vars: cannot read '{path}': {exc.strerror}.") from None
            if var.type is VarType.SELECTED_ROWS:
                values[var.name] = selected_rows_from_bytes(data, source=str(path))
            else:
                array, _ = tensor_from_bytes(data, source=str(path))
                values[var.name] = _checked(var, array, str(path))
    else:
        if any(v.type is VarType.SELECTED_ROWS for v in chosen):
            raise InvalidArgument("load_vars: SelectedRows can not be load with load_combine.")
        path = directory / filename
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise NotFound(f"load_vars: cannot read '{path}': {exc.strerror}.") from None
        records = tensors_from_bytes(data, source=str(path))
        ordered = sorted(chosen, key=lambda v: v.name)
        if len(records) != len(ordered):
            raise InvalidArgument(f"load_vars: '{path}' holds {len(records)} tensors, "
                                  f"{len(ordered)} variables were asked for.")
        for var, (array, _) in zip(ordered, records, strict=True):
            values[var.name] = _checked(var, array, str(path))
    _set_all(scope, values)


def _checked(var, array: np.ndarray, source: str) -> np.ndarray:
    if var.dtype not in (None, DataType.UNDEFINED) and DataType.from_numpy(array.dtype) != \
            var.dtype:
        raise InvalidArgument(f"load_vars: '{source}' holds {array.dtype} for `{var.name}`, "
                              f"the program declares {var.dtype}.")
    return array


def _write(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
