"""The legacy dygraph entry points: ``run_op`` and the ``legacy_ops`` namespace.

    run_op("scale", {"X": x}, {"scale": 2.0, "bias": 1.0})      -> {"Out": [array]}
    legacy_ops.scale(x, "scale", 2.0, "bias", 1.0)             -> array

Both build a one-op program in a private scope and run it through the same OperatorWithKernel
as programs do; attributes are plain Python values as legacy programs carry them (dtype
attributes in the protobuf numbering).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from fluid_compat.framework.op_registry import create_op, get_op_info
from opmakers.grad import EMPTY_VAR_NAME
from fluid_compat.framework.scope import (
    LoDTensorArray,
    Scope,
    as_host_tensor,
    is_lod_pair,
    lod_tensor_array,
)
from phi.common.place import Place, to_place
from phi.core.errors import InvalidArgument
from phi.core.tensor import DenseTensor

__all__ = ["LegacyOps", "legacy_ops", "run_op", "run_op_tensors", "run_op_with_operator"]


def _as_list(slot: str, value) -> list:
    if isinstance(value, (list, tuple)) and not is_lod_pair(value) and not isinstance(
            value, LoDTensorArray):  # a LoDTensorArray is one variable's value
        return list(value)
    return [value]


def run_op(op_type: str, inputs: Mapping[str, object], attrs: Mapping[str, object] | None = None,
           place: str | Place = "cpu") -> dict[str, list[np.ndarray]]:
    """Run one legacy op; returns every output slot that holds data, as numpy arrays.

    An input is an array, a list of arrays (duplicable slot), a DenseTensor, ``(array,
    lod)`` for a LoDTensor (``lod``: offsets per level), or a LoDTensorArray
    (``lod_tensor_array([(array, lod), ...])``) for a slot Paddle feeds a tensor array
    (beam_search_decode's Ids); ``run_op_tensors`` returns the outputs as DenseTensors, with
    their LoD."""
    return run_op_with_operator(op_type, inputs, attrs, place)[0]


def run_op_tensors(op_type: str, inputs: Mapping[str, object],
                   attrs: Mapping[str, object] | None = None, place: str | Place = "cpu"
                   ) -> dict[str, list[DenseTensor]]:
    """``run_op`` returning DenseTensors (data, dtype, place and LoD) instead of arrays."""
    return run_op_with_operator(op_type, inputs, attrs, place, tensors=True)[0]


def run_op_with_operator(op_type: str, inputs: Mapping[str, object],
                         attrs: Mapping[str, object] | None = None, place: str | Place = "cpu",
                         *, extra_outputs: Iterable[str] = (), tensors: bool = False):
    """``run_op`` that also returns the operator instance (its cached kernel decisions).

    Extra output slots (``XShape`` ...) are left out unless named in ``extra_outputs``, as
    programs written by ``append_op`` have them and saved inference programs do not."""
    info = get_op_info(op_type)
    place = to_place(place)
    scope = Scope()
    in_names: dict[str, list[str]] = {}
    for slot, value in inputs.items():
        if value is None:
            continue
        names = []
        for i, arr in enumerate(_as_list(slot, value)):
            if arr is None:
                continue
            name = f"{slot}@{i}"
            what = f"Operator `{op_type}`: input `{slot}`[{i}]"
            scope.var(name).value = (lod_tensor_array(arr, what)
                                     if isinstance(arr, LoDTensorArray)
                                     else as_host_tensor(arr, what))
            names.append(name)
        in_names[slot] = names
    counts = {}
    if info.hooks.output_counts is not None:
        counts = info.hooks.output_counts(dict(attrs or {}), inputs)
    out_names: dict[str, list[str]] = {}
    wanted_extra = frozenset(extra_outputs)
    if info.is_grad and isinstance(extra_outputs, Mapping):
        # a grad op has the output slots its maker gave it (a case's OpDesc): gradients in
        # the no_grad_set are absent or @EMPTY@
        out_names = {slot: [EMPTY_VAR_NAME if n == EMPTY_VAR_NAME else f"{slot}@out{i}"
                            for i, n in enumerate(names)]
                     for slot, names in extra_outputs.items() if names}
    for var in info.proto.outputs:
        if info.is_grad and isinstance(extra_outputs, Mapping):
            break
        if var.extra and var.name not in wanted_extra:
            continue
        shared = info.hooks.inplace.get(var.name)
        if shared is not None and in_names.get(shared):
            out_names[var.name] = list(in_names[shared])
            continue
        n = counts.get(var.name, 1)
        if var.duplicable and var.name not in counts and isinstance(extra_outputs, Mapping):
            n = len(extra_outputs.get(var.name) or ()) or 1  # as many as the OpDesc names
        out_names[var.name] = [f"{var.name}@out{i}" for i in range(n)]
    op = create_op(op_type, in_names, out_names, attrs)
    op.run(scope, place)
    result: dict[str, list[np.ndarray]] = {}
    for slot, names in out_names.items():
        if slot == "XShape":
            continue  # metadata only: no data, as in Paddle
        values = []
        for name in names:
            var = scope.find_var(name)
            if name == EMPTY_VAR_NAME:
                continue
            if var is None or not isinstance(var.value, DenseTensor) or var.value.data is None:
                continue  # a variable the op leaves unwritten (select_output's other branches)
            values.append(var.value if tensors else var.value.numpy())
        if values:
            result[slot] = values
    return result, op


class LegacyOps:
    """``legacy_ops.<op>(inputs..., 'attr', value, ...)``: Paddle's ``_legacy_C_ops`` style."""

    def __getattr__(self, op_type: str):
        if op_type.startswith("__"):
            raise AttributeError(op_type)
        info = get_op_info(op_type)  # NotFound with close matches for an unknown op
        slots = [v.name for v in info.proto.inputs if not v.extra]
        out_slots = [v.name for v in info.proto.outputs if not v.extra and v.name != "XShape"]

        def call(*args, place: str | Place = "cpu"):
            n_inputs = 0
            while n_inputs < len(args) and not isinstance(args[n_inputs], str):
                n_inputs += 1
            if n_inputs > len(slots):
                raise InvalidArgument(f"{op_type}: {n_inputs} positional inputs given, the op "
                                      f"has {len(slots)} ({', '.join(slots)}).")
            pairs = args[n_inputs:]
            if len(pairs) % 2:
                raise InvalidArgument(f"{op_type}: attributes must come as name, value pairs; "
                                      f"got an odd number of trailing arguments.")
            attrs = {}
            for i in range(0, len(pairs), 2):
                if not isinstance(pairs[i], str):
                    raise InvalidArgument(f"{op_type}: attribute name expected at position "
                                          f"{n_inputs + i}, got {pairs[i]!r}.")
                attrs[pairs[i]] = pairs[i + 1]
            inputs = {slot: value for slot, value in zip(slots, args[:n_inputs], strict=False)
                      if value is not None}
            result = run_op(op_type, inputs, attrs, place)
            outs = []
            for slot in out_slots:
                if slot in result:
                    values = result[slot]
                    dup = info.proto.output(slot).duplicable
                    outs.append(values if dup else values[0])
            return outs[0] if len(outs) == 1 else tuple(outs)

        call.__name__ = op_type
        call.__doc__ = f"Legacy op `{op_type}`: inputs {slots}, then attribute name/value pairs."
        return call

    def __dir__(self):
        from fluid_compat.framework.op_registry import registered_op_types

        return registered_op_types()


legacy_ops = LegacyOps()
