"""LoDRankTable: the value of a LOD_RANK_TABLE variable, and the LoD arithmetic its ops share.

Paddle's ``lod_rank_table`` op ranks the sequences of one LoD level by length: the table holds
``items`` (index of the sequence in that level, its length), longest first, equal lengths in
their original order (a stable sort), and the ``coarse_lod`` (the levels above the ranked one,
which ``array_to_lod_tensor`` puts back on top of the tensor it rebuilds).  Its ``level`` is
the number of coarse levels.  The old DynamicRNN walked such a table: ``lod_tensor_to_array``
cuts a batch into time steps in rank order, ``shrink_rnn_memory`` keeps the rows of the
sequences still running, ``array_to_lod_tensor`` stitches the steps back together.

``sub_lod_and_offset`` and ``append_lod`` are Paddle's GetSubLoDAndAbsoluteOffset / AppendLoD,
the two LoD operations every one of those ops (and split / merge_lod_tensor) is made of.
"""

from __future__ import annotations

from collections.abc import Sequence

from phi.core.errors import InvalidArgument
from phi.core.lod import LoD

__all__ = ["LoDRankTable", "append_lod", "sub_lod_and_offset"]


class LoDRankTable:
    """Sequences of one LoD level ranked by length (Paddle's framework::LoDRankTable)."""

    __slots__ = ("coarse_lod", "items")

    def __init__(self, items: Sequence[tuple[int, int]] = (), coarse_lod: LoD = ()) -> None:
        self.items: tuple[tuple[int, int], ...] = tuple((int(i), int(n)) for i, n in items)
        self.coarse_lod: LoD = tuple(tuple(int(v) for v in level) for level in coarse_lod)

    @classmethod
    def from_lod(cls, lod: LoD, level: int, what: str = "lod_rank_table") -> LoDRankTable:
        """The table of ``lod`` at ``level`` (Paddle's LoDRankTable::Reset)."""
        if not 0 <= level < len(lod):
            raise InvalidArgument(f"{what}: cannot rank LoD level {level}: the input has "
                                  f"{len(lod)} LoD level(s) (a LoDTensor with at least "
                                  f"{level + 1} is expected).")
        offsets = lod[level]
        items = [(i, offsets[i + 1] - offsets[i]) for i in range(len(offsets) - 1)]
        items.sort(key=lambda item: -item[1])  # list.sort is stable, as std::stable_sort
        return cls(items, lod[:level])

    @property
    def level(self) -> int:
        """The ranked level: how many coarse levels lie above it."""
        return len(self.coarse_lod)

    @property
    def indices(self) -> tuple[int, ...]:
        return tuple(i for i, _ in self.items)

    @property
    def lengths(self) -> tuple[int, ...]:
        return tuple(n for _, n in self.items)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LoDRankTable):
            return NotImplemented
        return self.items == other.items and self.coarse_lod == other.coarse_lod

    __hash__ = None  # type: ignore[assignment]  # mutable-looking value: compared, not hashed

    def __repr__(self) -> str:
        coarse = [list(level) for level in self.coarse_lod]
        return f"LoDRankTable(items={list(self.items)}, coarse_lod={coarse})"


def sub_lod_and_offset(lod: LoD, start: int, end: int, start_level: int, what: str
                       ) -> tuple[tuple[tuple[int, ...], ...], tuple[int, int]]:
    """Entries [start, end) of ``lod`` level ``start_level``: the lengths they span on that
    level and every level below (one tuple per level), and the rows [first, last) of the
    tensor they cover.  Below the last level (or with no LoD) the entries are rows."""
    lengths = []
    for level in range(start_level, len(lod)):
        offsets = lod[level]
        if not 0 <= start <= end < len(offsets):
            raise InvalidArgument(f"{what}: entries [{start}, {end}) are past the end of LoD "
                                  f"level {level} ({len(offsets) - 1} entries).")
        lengths.append(tuple(offsets[i + 1] - offsets[i] for i in range(start, end)))
        start, end = offsets[start], offsets[end]
    return tuple(lengths), (start, end)


def append_lod(lod: list[list[int]], lengths: Sequence[Sequence[int]], what: str) -> None:
    """Append sequences given as lengths per level to ``lod`` (offset lists, grown in place;
    an empty ``lod`` starts as one [0] per level)."""
    if not lod:
        lod.extend([0] for _ in lengths)
    if len(lod) != len(lengths):
        raise InvalidArgument(f"{what}: cannot append sequences of {len(lengths)} LoD level(s) "
                              f"to a LoD of {len(lod)} level(s).")
    for level, lens in zip(lod, lengths, strict=True):
        for n in lens:
            level.append(level[-1] + n)
