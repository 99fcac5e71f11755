"""The eager API of phi, generated from ``ops.yaml`` on first use.

``phi.api.add(x, y)``, ``phi.api.scale(x, scale=2.0)``, ``phi.api.add_(x, y)`` (in place) ...
accept numpy arrays and DenseTensors and return DenseTensors.  ``phi.api.op_names()`` lists them.
"""

from __future__ import annotations

from typing import Any

__all__ = ["op_names", "get_op_spec"]

_API: dict[str, Any] | None = None
_SPECS: dict[str, Any] = {}


def _build() -> dict[str, Any]:
    global _API
    if _API is None:
        import phi.kernels  # noqa: F401 - registers the kernels the API calls
        from phi.api.eager import build_api
        from phi.api.loader import load_ops_yaml

        specs = load_ops_yaml()
        _SPECS.update({s.name: s for s in specs})
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
