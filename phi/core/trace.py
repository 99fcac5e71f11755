"""The dispatch trace: readable records of kernel choice and data transforms through ``logging``.

``FLAGS_dispatch_trace`` (environment or ``phi.set_flags``): 0 off, 1 one line per op, 2 also
every lookup step and transform.  Records go to the ``phi.dispatch`` logger; when the trace is on
and the application configured no logging at all, a stderr handler is attached so the trace is
seen.  Hot paths test ``trace.LEVEL`` (a module attribute) before building any message.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from phi import flags

if TYPE_CHECKING:
    import logging

__all__ = ["LEVEL", "logger", "set_level"]  # noqa: F822 - logger: made by __getattr__

LEVEL = 0
_handler: logging.Handler | None = None


def __getattr__(name: str):
    # ``logger``: made on first use (logging is a cold-start import, and a record is only
    # built after a hot path has seen LEVEL on); it is logging.getLogger("phi.dispatch")
    if name == "logger":
        import logging

        globals()["logger"] = found = logging.getLogger("phi.dispatch")
        return found
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def set_level(level: int) -> None:
    global LEVEL, _handler
    LEVEL = int(level)
    if LEVEL:
        import logging

        logger = logging.getLogger("phi.dispatch")
        logger.setLevel(logging.DEBUG)
        if _handler is None and not logger.handlers and not logging.getLogger().handlers:
            _handler = logging.StreamHandler(sys.stderr)
            _handler.setFormatter(logging.Formatter("[dispatch] %(message)s"))
            logger.addHandler(_handler)


def _on_flag(name: str, value: object) -> None:
    if name == "FLAGS_dispatch_trace":
        set_level(int(value))  # type: ignore[call-overload]


flags.on_change(_on_flag)
set_level(int(flags.FLAGS["FLAGS_dispatch_trace"]))  # type: ignore[call-overload]
