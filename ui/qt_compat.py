"""Guard against a PySide6 refcount bug on Python < 3.12.

PySide6 6.12.0 returns `None` from void C++ methods without taking a reference (harmless on 3.12+, where
None is immortal). On 3.11 every such call (`setPen`, `drawLine`, `setData`, …) lowers None's refcount by
one, and after a few minutes of live charts Python aborts with "none_dealloc: deallocating None".
We detect the leak with a probe call and, only when it is present, give None (and True/False, which leak
the same way) a reference reserve so large (2**40, ~35 years of painting at 1M leaked calls per second)
that it can never reach zero — in effect what Python 3.12 does by making None immortal. PySide6 6.11.3
does not leak (checked); pinning PySide6 below 6.12 on Python 3.11 is the real fix.
"""

from __future__ import annotations

import ctypes
import sys

RESERVE = 1 << 40
_applied = [False]


def none_leaks() -> bool:
    """True when a void Qt call lowers None's refcount (the PySide6 6.12 / Python 3.11 bug)."""
    if sys.version_info >= (3, 12):
        return False  # None is immortal: nothing can go wrong
    from PySide6.QtGui import QPen

    pen = QPen()
    before = sys.getrefcount(None)
    for _ in range(100):
        pen.setCosmetic(True)
    return sys.getrefcount(None) < before - 50


def protect_none() -> bool:
    """Apply the reserve once if the leak is present; returns True when it was applied."""
    if _applied[0] or not none_leaks():
        return False
    for singleton in (None, True, False):  # booleans returned by C++ leak the same way
        refcnt = ctypes.c_ssize_t.from_address(id(singleton))  # ob_refcnt is the first field of a PyObject
        refcnt.value += RESERVE
    _applied[0] = True
    return True
