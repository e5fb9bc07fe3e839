"""Fixed-capacity numpy ring buffer for live chart series: O(1) append, no per-event allocation."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]


class Ring:
    """(x, y) points, the oldest dropped once `capacity` is reached; `dirty` says a redraw is due."""

    def __init__(self, capacity: int = 10_000) -> None:
        self.capacity = capacity
        self._x: Array = np.empty(capacity, dtype=np.float64)
        self._y: Array = np.empty(capacity, dtype=np.float64)
        self._start = 0
        self._size = 0
        self.dirty = False

    def __len__(self) -> int:
        return self._size

    def append(self, x: float, y: float) -> None:
        """Add one point (NaN/inf are stored: pyqtgraph's connect='finite' leaves a gap there)."""
        end = (self._start + self._size) % self.capacity
        self._x[end], self._y[end] = x, y
        if self._size < self.capacity:
            self._size += 1
        else:
            self._start = (self._start + 1) % self.capacity
        self.dirty = True

    def clear(self) -> None:
        """Forget every point."""
        self._start = self._size = 0
        self.dirty = True

    def arrays(self) -> tuple[Array, Array]:
        """The points oldest first; views when the buffer has not wrapped, copies when it has."""
        end = self._start + self._size
        if end <= self.capacity:
            return self._x[self._start:end], self._y[self._start:end]
        cut = end - self.capacity
        return (np.concatenate((self._x[self._start:], self._x[:cut])),
                np.concatenate((self._y[self._start:], self._y[:cut])))

    def x_bounds(self) -> tuple[float | None, float | None]:
        """The smallest and largest finite x kept (None, None when there is none)."""
        x, _ = self.arrays()
        finite = x[np.isfinite(x)]
        if finite.size == 0:
            return None, None
        return float(finite.min()), float(finite.max())

    def last_y(self) -> float | None:
        """The newest y, or None when empty."""
        if self._size == 0:
            return None
        return float(self._y[(self._start + self._size - 1) % self.capacity])

    def first_y(self) -> float | None:
        """The oldest y kept, or None when empty."""
        return None if self._size == 0 else float(self._y[self._start])
