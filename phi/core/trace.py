"""The dispatch trace: readable records of kernel choice and data transforms through ``logging``.

``FLAGS_dispatch_trace`` (environment or ``phi.set_flags``): 0 off, 1 one line per op, 2 also
every lookup step and transform.  Records go to the ``phi.dispatch`` logger.  When the trace is on,
a stderr handler (``[dispatch] ...``) is attached that writes a record only when no other handler
would: none on ``phi.dispatch`` or the loggers it propagates to.  An application that configures
logging (``logging.basicConfig``, before or after phi is imported) or adds its own handler (the
``demo`` command) sees each record once, through its handler.  Hot paths test ``trace.LEVEL`` (a
module attribute) before building any message.
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


def _last_resort_handler() -> logging.Handler:
    """A stderr handler for ``phi.dispatch`` that steps aside for any other handler."""
    import logging

    class LastResort(logging.StreamHandler):
        def emit(self, record: logging.LogRecord) -> None:
            # checked per record: the application may configure logging after the trace is on
            # (attaching only when no handler exists, as before, printed every line twice then)
            if _other_handler(self, logging.getLogger(record.name)):
                return
            self.stream = sys.stderr  # the current one (redirected, captured by a test)
            super().emit(record)

    handler = LastResort(sys.stderr)
    handler.setFormatter(logging.Formatter("[dispatch] %(message)s"))
    return handler


def _other_handler(mine: logging.Handler, logger: logging.Logger | None) -> bool:
    """Whether a handler other than ``mine`` sees records of ``logger`` (its own and those of
    the loggers it propagates to)."""
    while logger is not None:
        if any(h is not mine for h in logger.handlers):
            return True
        if not logger.propagate:
            return False
        logger = logger.parent
    return False


def set_level(level: int) -> None:
    global LEVEL, _handler
    LEVEL = int(level)
    if LEVEL:
        import logging

        logger = logging.getLogger("phi.dispatch")
        logger.setLevel(logging.DEBUG)
        if _handler is None:
            _handler = _last_resort_handler()
            logger.addHandler(_handler)


def _on_flag(name: str, value: object) -> None:
    if name == "FLAGS_dispatch_trace":
        set_level(int(value))  # type: ignore[call-overload]


flags.on_change(_on_flag)
set_level(int(flags.FLAGS["FLAGS_dispatch_trace"]))  # type: ignore[call-overload]
