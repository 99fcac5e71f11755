"""Paddle's level-of-detail (LoD): the sequence boundaries a LoDTensor carries beside its data.

A LoD is a tuple of levels; each level holds offsets, ``(0, 2, 5)`` = two sequences of rows
[0, 2) and [2, 5).  Level ``i``'s offsets index the entries of level ``i + 1``; the last level's
offsets index rows of the tensor (Paddle's offset form, as its files store it).  Users often
think in lengths (``recursive_sequence_lengths``): ``from_lengths`` / ``lengths`` convert.
"""

from __future__ import annotations

from itertools import pairwise

from collections.abc import Sequence

from phi.core.errors import InvalidArgument

__all__ = ["LoD", "check_lod", "from_lengths", "lengths", "normalize", "to_abs_offset"]

LoD = tuple[tuple[int, ...], ...]


def normalize(lod) -> LoD:
    """A LoD as a tuple of tuples of Python ints (from lists, numpy arrays, ...)."""
    if not lod:
        return ()
    try:
        return tuple(tuple(int(v) for v in level) for level in lod)
    except (TypeError, ValueError):
        raise InvalidArgument(f"a LoD is a list of levels of integer offsets, got {lod!r}"
                              ) from None


def check_lod(lod: LoD, rows: int | None, what: str) -> None:
    """Paddle's CheckLoD: each level starts at 0, never decreases and has two offsets at least;
    a level ends where the next one has entries; the last one ends at the tensor's rows."""
    for i, level in enumerate(lod):
        if len(level) < 2:
            raise InvalidArgument(f"{what}: LoD level {i} {list(level)} needs two offsets at "
                                  "least (the start 0 and the end of the last sequence).")
        if level[0] != 0:
            raise InvalidArgument(f"{what}: LoD level {i} {list(level)} must start at 0.")
        if any(b < a for a, b in pairwise(level)):
            raise InvalidArgument(f"{what}: LoD level {i} {list(level)} decreases; offsets "
                                  "must be non-decreasing.")
    for i in range(len(lod) - 1):
        if lod[i][-1] != len(lod[i + 1]) - 1:
            raise InvalidArgument(
                f"{what}: LoD level {i} ends at {lod[i][-1]}, but level {i + 1} holds "
                f"{len(lod[i + 1]) - 1} sequences.")
    if lod and rows is not None and lod[-1][-1] != rows:
        raise InvalidArgument(f"{what}: the last LoD level ends at {lod[-1][-1]}, but the "
                              f"tensor has {rows} rows.")


def from_lengths(seq_lens: Sequence[Sequence[int]]) -> LoD:
    """Offsets from sequence lengths per level (Paddle's recursive_sequence_lengths)."""
    out = []
    for level in seq_lens:
        offsets = [0]
        for n in level:
            if int(n) < 0:
                raise InvalidArgument(f"sequence lengths must be >= 0, got {list(level)}")
            offsets.append(offsets[-1] + int(n))
        out.append(tuple(offsets))
    return tuple(out)


def lengths(lod: LoD) -> tuple[tuple[int, ...], ...]:
    """Sequence lengths per level (the inverse of ``from_lengths``)."""
    return tuple(tuple(b - a for a, b in pairwise(level)) for level in lod)


def to_abs_offset(lod: LoD) -> LoD:
    """Every level's offsets expressed in rows of the tensor (Paddle's ToAbsOffset)."""
    if len(lod) < 2:
        return lod
    out = list(lod)
    for i in range(len(lod) - 2, -1, -1):
        below = out[i + 1]
        out[i] = tuple(below[j] for j in out[i])
    return tuple(out)
