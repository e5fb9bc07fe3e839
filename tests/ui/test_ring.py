"""The chart ring buffer keeps the newest points in order and marks itself dirty."""

from __future__ import annotations

import numpy as np

from ui.ring import Ring


def test_append_and_order_before_wrap() -> None:
    ring = Ring(capacity=4)
    for i in range(3):
        ring.append(i, i * 10)
    x, y = ring.arrays()
    assert x.tolist() == [0, 1, 2] and y.tolist() == [0, 10, 20]
    assert ring.dirty and ring.first_y() == 0 and ring.last_y() == 20


def test_wrap_drops_oldest() -> None:
    ring = Ring(capacity=4)
    for i in range(7):
        ring.append(i, -i)
    x, y = ring.arrays()
    assert x.tolist() == [3, 4, 5, 6] and y.tolist() == [-3, -4, -5, -6]
    assert len(ring) == 4


def test_clear_and_nan() -> None:
    ring = Ring(capacity=2)
    ring.append(0, float("nan"))
    assert np.isnan(ring.arrays()[1][0])
    ring.clear()
    assert len(ring) == 0 and ring.last_y() is None
