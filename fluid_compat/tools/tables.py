"""Tables for the command line, drawn by rich: one look for every report, fitting a width
(100 columns by default; ``--wide`` reports pass a larger one)."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["DEFAULT_WIDTH", "WIDE", "render_table", "table_width"]

DEFAULT_WIDTH = 100
#: ``--wide``: a width no table reaches, so that no cell wraps
WIDE = 100_000


def table_width(wide: bool) -> int:
    """The width a report's table is drawn at: :data:`WIDE` with ``--wide``, else 100."""
    return WIDE if wide else DEFAULT_WIDTH


def render_table(headers: Sequence[str], rows: Sequence[Sequence[object]], *,
                 width: int = DEFAULT_WIDTH, title: str | None = None) -> str:
    """The rows as a text table at most ``width`` columns wide (long cells wrap, nothing is
    cut off); no trailing blanks."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    from rich.text import Text

    cells = [[str(c) for c in row] for row in rows]
    natural = [max([len(str(h)), *(len(r[i]) for r in cells)]) for i, h in enumerate(headers)]
    # no column narrower than its longest word (up to 20 characters; the first column, the
    # name a reader looks for, up to 32) nor its header's longest word
    least = [max([*(len(w) for w in str(h).split()),
                  min(max((len(w) for r in cells for w in r[i].split()), default=0),
                      32 if i == 0 else 20)])
             for i, h in enumerate(headers)]
    widths = _fair_widths(natural, width - _GAP * (len(headers) - 1), least)
    table = Table(box=box.SIMPLE_HEAD, title=title, show_edge=False, pad_edge=False,
                  collapse_padding=True)
    for header, w in zip(headers, widths, strict=True):
        # "fold": a word longer than its column breaks rather than losing its end
        table.add_column(Text(str(header)), overflow="fold", width=w)
    for row in cells:
        # Text: the cells are plain text ("[f32,f64]" is not rich markup)
        table.add_row(*(Text(c) for c in row))
    console = Console(width=width, record=True, file=_Null(), color_system=None,
                      force_terminal=False, soft_wrap=False)
    console.print(table)
    # rich pads every line to the table's width: trailing blanks are noise in a terminal log
    return "\n".join(line.rstrip() for line in console.export_text().rstrip("\n").splitlines())


#: the blanks between two columns' texts (rich's padding, collapsed, and the box's separator)
_GAP = 2


def _fair_widths(natural: list[int], budget: int, least: list[int]) -> list[int]:
    """Column widths within ``budget``: every column gets ``least`` (capped at its natural
    width); of the rest, a column that needs no more than an equal share keeps its natural
    width, the others share what is left equally (max-min fairness)."""
    if sum(natural) <= budget:
        return list(natural)
    floor = [min(n, max(m, 4)) for n, m in zip(natural, least, strict=True)]
    while sum(floor) > budget:  # too many long words: the widest floor but the first's gives
        i = max(range(1, len(floor)), key=lambda k: floor[k], default=0)
        if floor[i] <= 4:
            break
        floor[i] -= 1
    extra = [n - f for n, f in zip(natural, floor, strict=True)]
    left = max(budget - sum(floor), 0)
    widths = list(floor)
    pending = sorted((i for i in range(len(extra)) if extra[i]), key=lambda i: extra[i])
    while pending:
        share = left // len(pending)
        i = pending[0]
        if extra[i] <= share:
            widths[i] += extra[i]
            left -= extra[i]
            pending.pop(0)
            continue
        for n, j in enumerate(pending):  # the wide ones: equal shares, the remainder spread
            widths[j] += left // len(pending) + (1 if n < left % len(pending) else 0)
        break
    return widths


class _Null:
    def write(self, _: str) -> int:
        return 0

    def flush(self) -> None:
        pass
