"""The dispatch trace: readable records of kernel choice and data transforms through ``logging``.

``FLAGS_dispatch_trace`` (environment or ``phi.set_flags``): 0 off, 1 one line per op, 2 also
every lookup step and transform.  Records go to the ``phi.dispatch`` logger; when the trace is on
and the application configured no logging at all, a stderr handler is attached so the trace is
seen.  Hot paths test ``trace.LEVEL`` (a module attribute) before building any message.
"""

from __future__ import annotations

import logging
import sys

from phi import flags

__all__ = ["LEVEL", "logger", "set_level"]

logger = logging.getLogger("phi.dispatch")
LEVEL = 0
_handler: logging.Handler | None = None


def set_level(level: int) -> None:
    global LEVEL, _handler
    LEVEL = int(level)
    if LEVEL:
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
