"""Scope and Variable: where a legacy program's tensors live between ops.

A Scope maps names to Variables and has a parent; lookups walk up the chain (``find_var``), and
kids are made with ``new_scope`` (the transfer scope of data preparation is such a kid).  A
Variable holds one value: a DenseTensor for LOD_TENSOR variables, a LoDTensorArray (a list of
DenseTensors) for LOD_TENSOR_ARRAY variables, a list for feed/fetch lists, a Scope list for step
scopes.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from phi.core.errors import InvalidArgument, NotFound, PhiError
from phi.core.lod import check_lod, from_lengths, normalize
from phi.core.tensor import DenseTensor

__all__ = ["LoDTensorArray", "Scope", "Variable", "as_host_tensor", "is_lod_pair", "lod_tensor",
           "lod_tensor_array"]


class Variable:
    """A named slot holding one value (None until something writes it)."""

    __slots__ = ("name", "value")

    def __init__(self, name: str, value: object = None) -> None:
        self.name = name
        self.value = value

    def get_tensor(self) -> DenseTensor:
        """The DenseTensor held here, created empty on first use (Paddle's GetMutable)."""
        value = self.value
        if value is None:
            value = self.value = DenseTensor()
        elif not isinstance(value, DenseTensor):
            raise NotFound(
                f"Variable `{self.name}` holds {type(value).__name__}, not a DenseTensor."
            )
        return value

    @property
    def is_initialized(self) -> bool:
        value = self.value
        if isinstance(value, DenseTensor):
            return value.data is not None
        return value is not None

    def __repr__(self) -> str:
        return f"Variable({self.name!r}, {self.value!r})"


class Scope:
    """Paddle's Scope: names -> Variables, with a parent chain and kid scopes."""

    __slots__ = ("_kids", "_vars", "parent")

    def __init__(self, parent: Scope | None = None) -> None:
        self._vars: dict[str, Variable] = {}
        self.parent = parent
        self._kids: list[Scope] = []

    def var(self, name: str) -> Variable:
        """The variable ``name`` of this scope, created here if absent (ancestors not searched)."""
        v = self._vars.get(name)
        if v is None:
            v = self._vars[name] = Variable(name)
        return v

    def find_var(self, name: str) -> Variable | None:
        """Search this scope, then its ancestors."""
        scope: Scope | None = self
        while scope is not None:
            v = scope._vars.get(name)
            if v is not None:
                return v
            scope = scope.parent
        return None

    def find_local_var(self, name: str) -> Variable | None:
        return self._vars.get(name)

    def get_var(self, name: str) -> Variable:
        """Like find_var, but NotFound when absent."""
        v = self.find_var(name)
        if v is None:
            raise NotFound(f"Variable `{name}` is not found in the scope.")
        return v

    def set_var(self, name: str, var: Variable) -> None:
        self._vars[name] = var

    def erase(self, names) -> None:
        for n in names:
            self._vars.pop(n, None)

    def local_var_names(self) -> list[str]:
        return list(self._vars)

    def local_vars(self) -> list[tuple[str, Variable]]:
        """(name, Variable) of this scope's own variables (ancestors not searched)."""
        return list(self._vars.items())

    def __contains__(self, name: str) -> bool:
        return self.find_var(name) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self._vars)

    def new_scope(self) -> Scope:
        kid = Scope(self)
        self._kids.append(kid)
        return kid

    def delete_scope(self, kid: Scope) -> None:
        self._kids.remove(kid)
        kid.parent = None

    def drop_kids(self) -> None:
        for kid in self._kids:
            kid.parent = None
        self._kids.clear()

    @property
    def kids(self) -> tuple[Scope, ...]:
        return tuple(self._kids)

    def __repr__(self) -> str:
        return f"Scope({len(self._vars)} vars, {len(self._kids)} kids)"


def as_host_tensor(value: object, what: str, error: type[PhiError] = InvalidArgument
                   ) -> DenseTensor:
    """A DenseTensor as is, ``(array, lod)`` as a LoDTensor, or a CPU tensor of an array-like
    user value; ``error`` naming ``what`` (a feed, an op's input slot) when the value is not a
    numeric array or its LoD does not fit it."""
    if isinstance(value, DenseTensor):
        if value.lod:
            _checked_lod(value.lod, value, what, error)
        return value
    if is_lod_pair(value):
        t = as_host_tensor(value[0], what, error)
        return DenseTensor(t.data, t.dtype, t.place, t.layout,
                           _checked_lod(value[1], t, what, error))
    try:
        return DenseTensor.from_numpy(np.asarray(value))
    except PhiError as exc:  # e.g. an object array: no phi DataType
        raise error(f"{what} is not a numeric array ({type(value).__name__}): "
                    f"{exc.message}") from None


def is_lod_pair(value: object) -> bool:
    """``(array, lod)``: a numpy array and a list of LoD levels (lists of offsets)."""
    return (type(value) is tuple and len(value) == 2 and isinstance(value[0], np.ndarray)
            and isinstance(value[1], (list, tuple))
            and all(isinstance(level, (list, tuple, np.ndarray)) for level in value[1]))


def _checked_lod(lod, t: DenseTensor, what: str, error: type[PhiError]) -> tuple:
    try:
        lod = normalize(lod)
        check_lod(lod, t.dims[0] if t.dims else 0, what)
    except InvalidArgument as exc:
        raise error(f"The provided LoD is invalid: {exc.message}") from None
    return lod


def lod_tensor(array, lod=None, *, recursive_seq_lens=None) -> DenseTensor:
    """A CPU LoDTensor: ``array`` with its LoD given as offsets per level (``lod``, Paddle's
    stored form) or as sequence lengths per level (``recursive_seq_lens``, as Paddle's
    ``create_lod_tensor`` takes them); checked as Paddle's ``set_lod`` checks it."""
    if (lod is None) == (recursive_seq_lens is None):
        raise InvalidArgument("lod_tensor: give either lod (offsets) or recursive_seq_lens.")
    if recursive_seq_lens is not None:
        lod = from_lengths(recursive_seq_lens)
    return as_host_tensor((np.asarray(array), list(lod)), "lod_tensor")


class LoDTensorArray(list):
    """The value of a LOD_TENSOR_ARRAY variable (Paddle's LoDTensorArray): a list of
    DenseTensors, each with its own LoD (one per step of a decoder, for instance)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"LoDTensorArray({list.__repr__(self)})"


def lod_tensor_array(items, what: str = "lod_tensor_array",
                     error: type[PhiError] = InvalidArgument) -> LoDTensorArray:
    """A LoDTensorArray of ``items``: DenseTensors, arrays or ``(array, lod)`` pairs, each
    checked as a feed is; ``error`` naming ``what`` when ``items`` is no list of them."""
    if not isinstance(items, (list, tuple)) or is_lod_pair(items):
        raise error(f"{what} must be a list of tensors or (array, lod) pairs for a "
                    f"LoDTensorArray, got {type(items).__name__}.")
    return LoDTensorArray(as_host_tensor(v, f"{what}[{i}]", error) for i, v in enumerate(items))
