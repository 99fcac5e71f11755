"""Tables for the command line, drawn by rich: one look for every report, fitting a width
(100 columns by default; ``--wide`` reports pass a larger one)."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["DEFAULT_WIDTH", "render_table"]

DEFAULT_WIDTH = 100


def render_table(headers: Sequence[str], rows: Sequence[Sequence[object]], *,
                 width: int = DEFAULT_WIDTH, title: str | None = None) -> str:
    """The rows as a text table at most ``width`` columns wide (long cells wrap)."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    table = Table(*headers, box=box.SIMPLE_HEAD, title=title, show_edge=False, pad_edge=False)
    for row in rows:
        table.add_row(*(str(c) for c in row))
    console = Console(width=width, record=True, file=_Null(), color_system=None,
                      force_terminal=False, soft_wrap=False)
    console.print(table)
    return console.export_text().rstrip("\n")


class _Null:
    def write(self, _: str) -> int:
        return 0

    def flush(self) -> None:
        pass
