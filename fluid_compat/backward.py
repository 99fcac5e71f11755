"""append_backward: the backward pass of a legacy program, as Paddle 2.6.2's backward.py builds it.

    params_grads = append_backward(loss)          # loss: a VarDesc of the program's block 0
    params_grads = append_backward("mean_0.tmp_0", program=program)

Steps (Paddle's names in brackets), for block 0:

1. The no-grad set: the gradients of every ``stop_gradient`` variable and of the names given
   [_get_stop_gradients_]; the op producing the loss gets ``op_role`` Forward|Loss.
2. The op path: the ops the loss depends on, walking back from the loss through inputs not in
   the no-grad set [_find_op_path_]; outputs of those ops that the loss does not need join the
   no-grad set [_find_no_grad_vars].
3. ``fill_constant`` writes ``loss@GRAD`` = 1 (shape of a 0-d or empty loss, else [1]), then
   the grad ops of the path in reverse order, from each op's GradOpMaker (`opmakers.grad`).
4. A gradient written by several grad ops is renamed ``x@GRAD@RENAME@block0@<k>`` at each
   write and summed into ``x@GRAD`` by a ``sum`` op before its first reader (or at the end)
   [_addup_repetitive_outputs_].
5. Grad ops whose outputs are all unwanted are dropped; a wanted grad op reading a gradient
   nobody computes gets it from ``fill_any_like`` (value 0) [_remove_no_grad_branch_].
6. The ops are appended with ``op_role`` Backward, gradient variables are declared like their
   forward variables, and each parameter's gradient-producing op gets ``op_role_var``
   ``[param, param@GRAD, ...]``.

Returns ``[(parameter name, gradient name)]`` for the trainable parameters that got a gradient.
Ops with sub-blocks (control flow) on the path are refused (Unimplemented).
"""

from __future__ import annotations

import collections
from collections.abc import Iterable

import opmakers
from fluid_compat.framework.attribute import AttrType
from fluid_compat.framework.enums import VarType
from fluid_compat.framework.program_desc import BlockDesc, ProgramDesc
from fluid_compat.framework.var_desc import VarDesc
from opmakers import check_attrs
from opmakers.grad import EMPTY_VAR_NAME, GRAD_SUFFIX, grad_op_descs, grad_var_name
from phi.core.errors import InvalidArgument, NotFound, Unimplemented

__all__ = ["OP_ROLE", "append_backward"]

#: Paddle's OpRole bits (op_proto_maker.h)
OP_ROLE = {"forward": 0, "backward": 1, "optimize": 2, "loss": 256}
_ROLE_ATTR, _ROLE_VAR_ATTR = "op_role", "op_role_var"


def _strip(name: str) -> str:
    return name[: -len(GRAD_SUFFIX)] if name.endswith(GRAD_SUFFIX) else name


def _some_in(names: Iterable[str], s: set[str]) -> bool:
    return any(n in s for n in names)


def _all_in(names: list[str], s: set[str]) -> bool:
    return bool(names) and all(n in s for n in names)


class _Desc:
    """A grad op description being assembled (mutable slots, attributes)."""

    __slots__ = ("attr_types", "attrs", "inputs", "outputs", "type")

    def __init__(self, type_: str, inputs, outputs, attrs, attr_types=None) -> None:
        self.type = type_
        self.inputs = {k: list(v) for k, v in inputs.items()}
        self.outputs = {k: list(v) for k, v in outputs.items()}
        self.attrs = dict(attrs)
        self.attr_types = dict(attr_types or {})

    def input_names(self) -> list[str]:
        return [n for v in self.inputs.values() for n in v]

    def output_names(self) -> list[str]:
        return [n for v in self.outputs.values() for n in v]

    def rename_output(self, old: str, new: str) -> None:
        for v in self.outputs.values():
            v[:] = [new if n == old else n for n in v]

    def rename_input(self, old: str, new: str) -> None:
        for v in self.inputs.values():
            v[:] = [new if n == old else n for n in v]


def _backward_desc(type_: str, inputs, outputs, attrs, device: str) -> _Desc:
    """Paddle's _create_op_desc_: the op_role and op_device attributes come with it."""
    return _Desc(type_, inputs, outputs,
                 {**attrs, _ROLE_ATTR: OP_ROLE["backward"], "op_device": device})


def _find_op_path(block: BlockDesc, loss: str, no_grad: set[str]) -> list:
    needed = {loss}
    relevant = []
    for op in reversed(block.ops):
        if _some_in(op.output_arg_names(), needed):
            relevant.append(op)
            needed.update(n for n in op.input_arg_names() if n not in no_grad)
    return relevant[::-1]


def _find_no_grad_vars(block: BlockDesc, path: list, loss: str, no_grad: set[str]) -> set[str]:
    wanted = {loss}
    found = set()
    for op in reversed(path):
        ins = set(op.input_arg_names())
        for out in op.output_arg_names():
            var = block.find_var(out)
            if (out not in wanted and out not in ins and var is not None
                    and not var.stop_gradient):
                found.add(out)
        wanted.update(n for n in op.input_arg_names() if n not in no_grad)
    return found


def _addup_repetitive_outputs(descs: list[_Desc], block_idx: int) -> list[_Desc]:
    pending: list[tuple[_Desc, int]] = []
    renamed: dict[str, list[str]] = collections.defaultdict(list)
    start: dict[str, int] = {}
    count: dict[str, int] = collections.defaultdict(int)

    def new_name(var: str) -> str:
        name = f"{var}@RENAME@block{block_idx}@{count[var]}"
        count[var] += 1
        return name

    for idx, d in enumerate(descs):
        for var in d.input_names():  # a reader: sum the renamed writes first
            if len(renamed.get(var, ())) > 1:
                pending.append((_sum_desc(renamed[var], var, d), idx))
                renamed[var] = [var]
        for slot, names in d.outputs.items():
            for k, var in enumerate(names):
                if GRAD_SUFFIX not in var or var == EMPTY_VAR_NAME or var in d.input_names():
                    continue
                if not renamed.get(var):
                    renamed[var] = [var]
                    start[var] = idx
                    continue
                if len(renamed[var]) == 1:  # the first write gets renamed too
                    first = new_name(var)
                    renamed[var][0] = first
                    for earlier in descs[start[var]:idx]:
                        earlier.rename_output(var, first)
                    for p, _ in pending:
                        p.rename_output(var, first)
                        p.rename_input(var, first)
                    for other_slot in list(d.outputs)[: list(d.outputs).index(slot)]:
                        d.outputs[other_slot] = [first if n == var else n
                                                 for n in d.outputs[other_slot]]
                name = new_name(var)
                names[k] = name
                renamed[var].append(name)
    for var, parts in renamed.items():
        if len(parts) > 1:
            pending.append((_sum_desc(parts, var, descs[-1] if descs else None), len(descs)))
    for d, pos in sorted(pending, key=lambda p: p[1], reverse=True):
        descs.insert(pos, d)
    return descs


def _sum_desc(parts: list[str], out: str, like: _Desc | None) -> _Desc:
    device = like.attrs.get("op_device", "") if like is not None else ""
    return _backward_desc("sum", {"X": list(parts)}, {"Out": [out]}, {"use_mkldnn": False},
                          device)


def _remove_no_grad_branch(descs: list[_Desc], no_grad: set[str]) -> list[_Desc]:
    def removable(d: _Desc) -> bool:
        outs = d.output_names()
        if not outs or _all_in(outs, no_grad):
            return True
        if _all_in([n for n in d.input_names() if GRAD_SUFFIX in n], no_grad):
            no_grad.update(outs)
            return True
        return False

    kept = [d for d in descs if not removable(d)]
    inserts = []
    for idx, d in enumerate(kept):
        for arg in d.input_names():
            if GRAD_SUFFIX in arg and arg in no_grad:
                inserts.append((_backward_desc("fill_any_like", {"X": [_strip(arg)]},
                                               {"Out": [arg]}, {"value": 0.0, "dtype": -1},
                                               d.attrs.get("op_device", "")), idx))
    for d, pos in reversed(inserts):
        kept.insert(pos, d)
    return kept


#: grad op -> (output slot, attribute): the slot's gradient is SelectedRows when the attribute
#: is true (the ops' InferVarType: sparse embedding gradients)
SPARSE_GRADS = {
    "lookup_table_grad": ("W@GRAD", "is_sparse"),
    "lookup_table_v2_grad": ("W@GRAD", "is_sparse"),
    "fused_embedding_seq_pool_grad": ("W@GRAD", "is_sparse"),
}


def _declare_grad_var(block: BlockDesc, name: str, op: _Desc | None = None) -> None:
    if name == EMPTY_VAR_NAME or block.has_var(name):
        return
    base = name.split("@RENAME@")[0]
    fwd = block.find_var(_strip(base))
    fields = {}
    if fwd is not None:
        fields = {"type": fwd.type, "dtype": fwd.dtype, "shape": fwd.shape}
        sparse = SPARSE_GRADS.get(op.type) if op is not None else None
        if sparse and op.attrs.get(sparse[1]) and name in op.outputs.get(sparse[0], ()):
            fields["type"] = VarType.SELECTED_ROWS
        if fwd.shape is None:
            fields.pop("shape")
        if fwd.dtype is None:
            fields.pop("dtype")
    block.add_var(VarDesc(name, **fields))


def append_backward(loss: VarDesc | str, parameter_list: Iterable[str] | None = None,
                    no_grad_set: Iterable[str] | None = None, *,
                    program: ProgramDesc | None = None) -> list[tuple[str, str]]:
    """Append the grad ops of ``loss`` to its program's block 0 (see the module docstring)."""
    if isinstance(loss, str):
        if program is None:
            raise InvalidArgument("append_backward: give the program when the loss is a name")
        block = getattr(program, "desc", program).global_block
        loss_var = block.find_var(loss)
        if loss_var is None:
            raise NotFound(f"append_backward: the loss `{loss}` is not a variable of block 0")
    else:
        loss_var = loss
        block = loss.block
        if block is None or block.idx != 0:
            raise InvalidArgument("append_backward: the loss must be a variable of block 0")
    loss_name = loss_var.name
    producers = [op for op in block.ops if loss_name in op.output_arg_names()]
    if not producers:
        raise InvalidArgument(f"append_backward: no op of block 0 writes the loss `{loss_name}`")
    producers[-1].set_attr(_ROLE_ATTR, OP_ROLE["forward"] | OP_ROLE["loss"])

    no_grad = {grad_var_name(v.name) for v in block.vars.values() if v.stop_gradient}
    no_grad.update(grad_var_name(_strip(n)) for n in (no_grad_set or ()))
    plain_no_grad = {_strip(n) for n in no_grad}
    path = _find_op_path(block, loss_name, plain_no_grad)
    for op in path:
        if any(op.attr_type(a).name in ("BLOCK", "BLOCKS") for a in op.attrs):
            raise Unimplemented(f"append_backward: op `{op.type}` on the loss's path has a "
                                "sub-block (control flow); its backward is not supported yet")
    plain_no_grad |= _find_no_grad_vars(block, path, loss_name, plain_no_grad)
    no_grad |= {grad_var_name(n) for n in plain_no_grad}

    device = producers[-1].attrs.get("op_device", "")
    descs: list[_Desc] = []
    for op in reversed(path):
        attrs = dict(op.attrs)
        types = {a: op.attr_type(a) for a in attrs}
        for g in grad_op_descs(op.type, op.inputs, op.outputs, attrs, no_grad):
            descs.append(_Desc(g.type, g.inputs, g.outputs, g.attrs, types))
    descs = _addup_repetitive_outputs(descs, block.idx)
    descs = _remove_no_grad_branch(descs, no_grad)

    shape = tuple(loss_var.shape or ())
    fill = _Desc("fill_constant", {}, {"Out": [grad_var_name(loss_name)]}, {
        "shape": list(shape) if len(shape) == 0 or 0 in shape else [1],
        "value": 1.0, "dtype": int(loss_var.proto_dtype or 5), "force_cpu": False,
        _ROLE_ATTR: OP_ROLE["backward"] | OP_ROLE["loss"], "op_device": device})
    fill.attr_types["shape"] = AttrType.LONGS
    _declare_grad_var(block, grad_var_name(loss_name))
    appended = []
    for d in [fill, *descs]:
        if d is not fill:
            d.attrs[_ROLE_ATTR] = OP_ROLE["backward"]
        if opmakers.has_op(d.type):  # an op with an OpProto: its checker fills the defaults
            d.attrs = check_attrs(opmakers.get_op_proto(d.type), d.attrs,
                                  opmakers.get_runtime_attrs(d.type))
            d.attrs.pop("op_callstack", None)  # Paddle's is the Python stack of the call
        types = {k: t for k, t in d.attr_types.items() if k in d.attrs}
        for k, v in d.attrs.items():
            if k not in types and isinstance(v, (list, tuple)) and not v:
                types[k] = AttrType.STRINGS if k == _ROLE_VAR_ATTR else AttrType.INTS
        op = block.append_op(d.type, d.inputs, d.outputs, d.attrs, types)
        appended.append(op)
        for name in d.output_names():
            _declare_grad_var(block, name, d)

    if parameter_list is None:
        params = [v.name for v in block.vars.values() if v.is_parameter and not v.stop_gradient]
    else:
        params = [getattr(p, "name", p) for p in parameter_list]
    written = {n for op in appended for n in op.output_arg_names()}
    params_grads = [(p, grad_var_name(p)) for p in params if grad_var_name(p) in written]
    for p, g in params_grads:
        op = next(o for o in reversed(appended) if g in o.output_arg_names())
        old = list(op.attrs.get(_ROLE_VAR_ATTR) or ())
        op.set_attr(_ROLE_VAR_ATTR, [p, g, *old])
    return params_grads
