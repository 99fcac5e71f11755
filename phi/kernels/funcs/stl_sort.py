"""libstdc++'s std::sort, std::nth_element and std::partial_sort, step for step (dev note: GCC's
bits/stl_algo.h and bits/stl_heap.h, as in the toolchain of the 2.6.2 wheel).

Paddle's CPU topk and argsort sort (value, index) pairs with these unstable algorithms, so the
order of equal values is whatever they leave.  The search kernels sort with numpy and call these
only for the rows that hold equal values, where the result depends on the algorithm.  Lists are
sorted in place; ``comp(a, b)`` is the strict "a before b" of the C++ comparator.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["nth_element", "partial_sort", "sort"]

Comp = Callable[[Any, Any], bool]
_THRESHOLD = 16  # _S_threshold


def _lg(n: int) -> int:
    return n.bit_length() - 1


# -- heaps (stl_heap.h) -------------------------------------------------------------------------

def _push_heap(a: list, first: int, hole: int, top: int, value, comp: Comp) -> None:
    parent = (hole - 1) // 2
    while hole > top and comp(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


def _adjust_heap(a: list, first: int, hole: int, length: int, value, comp: Comp) -> None:
    top = second = hole
    while second < (length - 1) // 2:
        second = 2 * (second + 1)
        if comp(a[first + second], a[first + second - 1]):
            second -= 1
        a[first + hole] = a[first + second]
        hole = second
    if length % 2 == 0 and second == (length - 2) // 2:
        second = 2 * (second + 1)
        a[first + hole] = a[first + second - 1]
        hole = second - 1
    _push_heap(a, first, hole, top, value, comp)


def _make_heap(a: list, first: int, last: int, comp: Comp) -> None:
    length = last - first
    if length < 2:
        return
    for parent in range((length - 2) // 2, -1, -1):
        _adjust_heap(a, first, parent, length, a[first + parent], comp)


def _pop_heap(a: list, first: int, last: int, result: int, comp: Comp) -> None:
    value = a[result]
    a[result] = a[first]
    _adjust_heap(a, first, 0, last - first, value, comp)


def _heap_select(a: list, first: int, middle: int, last: int, comp: Comp) -> None:
    _make_heap(a, first, middle, comp)
    for i in range(middle, last):
        if comp(a[i], a[first]):
            _pop_heap(a, first, middle, i, comp)


def _sort_heap(a: list, first: int, last: int, comp: Comp) -> None:
    while last - first > 1:
        last -= 1
        _pop_heap(a, first, last, last, comp)


# -- the algorithms (stl_algo.h) ----------------------------------------------------------------

def _move_median_to_first(a: list, result: int, x: int, y: int, z: int, comp: Comp) -> None:
    if comp(a[x], a[y]):
        if comp(a[y], a[z]):
            pick = y
        elif comp(a[x], a[z]):
            pick = z
        else:
            pick = x
    elif comp(a[x], a[z]):
        pick = x
    elif comp(a[y], a[z]):
        pick = z
    else:
        pick = y
    a[result], a[pick] = a[pick], a[result]


def _unguarded_partition_pivot(a: list, first: int, last: int, comp: Comp) -> int:
    mid = first + (last - first) // 2
    _move_median_to_first(a, first, first + 1, mid, last - 1, comp)
    pivot, lo, hi = first, first + 1, last
    while True:
        while comp(a[lo], a[pivot]):
            lo += 1
        hi -= 1
        while comp(a[pivot], a[hi]):
            hi -= 1
        if not lo < hi:
            return lo
        a[lo], a[hi] = a[hi], a[lo]
        lo += 1


def _unguarded_linear_insert(a: list, i: int, comp: Comp) -> None:
    val = a[i]
    j = i
    while comp(val, a[j - 1]):
        a[j] = a[j - 1]
        j -= 1
    a[j] = val


def _insertion_sort(a: list, first: int, last: int, comp: Comp) -> None:
    for i in range(first + 1, last):
        if comp(a[i], a[first]):
            val = a[i]
            a[first + 1:i + 1] = a[first:i]
            a[first] = val
        else:
            _unguarded_linear_insert(a, i, comp)


def sort(a: list, first: int, last: int, comp: Comp) -> None:
    """std::sort(a + first, a + last, comp): introsort, then the final insertion sort."""
    if last - first < 2:
        return
    _introsort_loop(a, first, last, 2 * _lg(last - first), comp)
    if last - first > _THRESHOLD:
        _insertion_sort(a, first, first + _THRESHOLD, comp)
        for i in range(first + _THRESHOLD, last):
            _unguarded_linear_insert(a, i, comp)
    else:
        _insertion_sort(a, first, last, comp)


def _introsort_loop(a: list, first: int, last: int, depth: int, comp: Comp) -> None:
    while last - first > _THRESHOLD:
        if depth == 0:
            _heap_select(a, first, last, last, comp)  # std::__partial_sort(first, last, last)
            _sort_heap(a, first, last, comp)
            return
        depth -= 1
        cut = _unguarded_partition_pivot(a, first, last, comp)
        _introsort_loop(a, cut, last, depth, comp)
        last = cut


def nth_element(a: list, nth: int, comp: Comp) -> None:
    """std::nth_element(a.begin(), a.begin() + nth, a.end(), comp) (introselect)."""
    first, last = 0, len(a)
    if first == last or nth == last:
        return
    depth = 2 * _lg(last - first)
    while last - first > 3:
        if depth == 0:
            _heap_select(a, first, nth + 1, last, comp)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
        cut = _unguarded_partition_pivot(a, first, last, comp)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, first, last, comp)


def partial_sort(a: list, middle: int, comp: Comp) -> None:
    """std::partial_sort(a.begin(), a.begin() + middle, a.end(), comp)."""
    _heap_select(a, 0, middle, len(a), comp)
    _sort_heap(a, 0, middle, comp)
