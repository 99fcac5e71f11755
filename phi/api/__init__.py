"""The eager API of phi, generated from ``ops.yaml`` on first use.

``phi.api.add(x, y)``, ``phi.api.scale(x, scale=2.0)``, ``phi.api.add_(x, y)`` (in place) ...
accept numpy arrays and DenseTensors and return DenseTensors.  ``phi.api.op_names()`` lists them.
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["get_op_spec", "kernel_infer_meta", "op_names"]

_API: dict[str, Any] | None = None
_SPECS: dict[str, Any] = {}
_BUILD_LOCK = threading.RLock()  # threads asking at once see the API only when it is whole


def _build() -> dict[str, Any]:
    if _API is None:
        with _BUILD_LOCK:
            return _build_locked()
    return _API


def _build_locked() -> dict[str, Any]:
    global _API
    if _API is None:
        import phi.kernels  # noqa: F401 - registers the kernels the API calls
        from phi.api.eager import build_api
        from phi.api.loader import STATIC_OPS_YAML, load_ops_yaml

        specs = load_ops_yaml()
        _SPECS.update({s.name: s for s in specs})
        for spec in specs + load_ops_yaml(STATIC_OPS_YAML):
            _index_kernel(spec)
        _API = build_api(specs)
        globals().update(_API)
    return _API


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    api = _build()
    try:
        return api[name]
    except KeyError:
        import difflib

        close = difflib.get_close_matches(name, list(api), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise AttributeError(f"phi.api has no op {name!r}{hint}") from None


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_build()))


def op_names() -> list[str]:
    """The API functions built from ops.yaml (in-place variants end with ``_``)."""
    return sorted(_build())


def get_op_spec(name: str):
    """The OpSpec record ``name`` was built from."""
    _build()
    return _SPECS[name]


_KERNEL_INFER: dict[str, Any] = {}


def _index_kernel(spec) -> None:
    """Remember how kernel ``spec.kernel.func``'s arguments feed its InferMeta function."""
    import phi.infermeta
    from phi.api.loader import infer_meta_function_name

    name = spec.kernel.func
    if name in _KERNEL_INFER:
        return
    names = [a.name for a in spec.args]
    kparams = list(spec.kernel.param) if spec.kernel.param is not None else names
    tensor = {a.name for a in spec.args if a.is_tensor}
    k_inputs = [p for p in kparams if p in tensor]
    k_attrs = [p for p in kparams if p not in tensor]
    iparams = list(spec.infer_meta.param) if spec.infer_meta.param is not None else names
    binding = []
    for p in iparams:
        if p in k_inputs:
            binding.append((True, k_inputs.index(p)))
        elif p in k_attrs:
            binding.append((False, k_attrs.index(p)))
        else:
            return  # the InferMeta needs an argument the kernel does not take
    fn = getattr(phi.infermeta, infer_meta_function_name(spec.infer_meta.func), None)
    if fn is not None:
        _KERNEL_INFER[name] = (fn, tuple(binding))


def kernel_infer_meta(kernel_name: str):
    """``(infer_meta_fn, binding)`` for a kernel named in ops.yaml / static_ops.yaml, or None.

    ``binding`` lists, per InferMeta parameter before the outputs, ``(True, i)`` for the
    kernel's i-th tensor input or ``(False, j)`` for its j-th attribute, so that a caller
    holding kernel arguments (a legacy op's KernelSignature) can run the same InferMeta.
    """
    _build()
    return _KERNEL_INFER.get(kernel_name)
