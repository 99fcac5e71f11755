"""The NMS family's tie order: libstdc++'s std::partial_sort (heap select + sort_heap) as
phi.kernels.nms.partial_sort reproduces it; Paddle-made cases with ties check the result
(tools/fixtures/cases/nms.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from phi.kernels.matrix_nms import partial_sort


@given(st.lists(st.integers(-5, 5), min_size=1, max_size=40), st.data())
def test_partial_sort_sorts_the_head_and_permutes_the_rest(values, data):
    middle = data.draw(st.integers(1, len(values)))
    out = partial_sort(values, middle, lambda a, b: a < b)
    assert out[:middle] == sorted(values)[:middle]
    assert sorted(out) == sorted(values)


def test_ties_follow_libstdcxx_heap_steps():
    # worked by hand through libstdc++'s make_heap / sort_heap with comp = higher score:
    # make_heap gives [a1, a0, a2], sort_heap then [a0, a2, a1] -> [a2, a0, a1]
    items = [(0.8, 0), (0.8, 1), (0.9, 2)]
    out = partial_sort(items, 3, lambda a, b: a[0] > b[0])
    assert [i for _, i in out] == [2, 0, 1]
