"""Progress bars for the command line, drawn by rich on stderr (``run`` and ``compare`` over a
long program's ops)."""

from __future__ import annotations

import sys

__all__ = ["ProgressBar"]


class ProgressBar:
    """A progress bar on stderr (rich.progress): ``bar(done)`` moves it, ``close()`` ends it
    (also when the run fails half way).  Disabled, both do nothing and rich is not imported."""

    def __init__(self, total: int, enabled: bool, label: str = "run") -> None:
        self._live = None
        if not enabled or total < 2:
            return
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                   TimeElapsedColumn)

        self._total = total
        self._live = Progress(TextColumn("{task.description}"), BarColumn(),
                              MofNCompleteColumn(), TimeElapsedColumn(),
                              console=Console(file=sys.stderr), transient=False)
        self._task = self._live.add_task(label, total=total)
        self._live.start()

    def __call__(self, done: int) -> None:
        if self._live is not None:
            self._live.update(self._task, completed=min(done, self._total))

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None
