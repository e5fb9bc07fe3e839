"""Where each managed arm's server put the target (and the draft), and whether the two arms match.

The record is the probe's own `Placement` (probes/engines/llamacpp/placement.py), read from each server's load
log by `read_placement`; `Environment.placement` keeps one per arm ("off", "on"). An A/B is a comparison of
speculation only when both servers hold the target the same way: llama.cpp's default `--fit on` sizes a server
by the memory free when it starts, so a second server beside the first can get fewer GPU layers or more
experts in RAM without saying so at the default log level.
"""

from __future__ import annotations

from probes.engines.llamacpp.placement import ModelPlacement, Placement, read_placement

__all__ = ["ModelPlacement", "Placement", "read_placement", "same_placement"]


def _parts(m: ModelPlacement) -> tuple[object, ...]:
    """What must agree between the arms, None where the log did not say: layers on the GPU and in all, the
    devices holding weights, and where the experts are."""
    return (m.gpu_layers, m.layers_total, m.devices or None, m.experts_on_cpu)


def same_placement(off: Placement, on: Placement) -> bool | None:
    """True when both servers placed the target alike; False as soon as one known part differs; None when a
    part is unknown on either side and nothing known differs. Weight sizes are not compared: an MTP arm loads
    the model's own draft layers on top of the same placement."""
    a, b = _parts(off.model), _parts(on.model)
    if any(x is not None and y is not None and x != y for x, y in zip(a, b, strict=True)):
        return False
    # where the experts are cannot be told, but one server overrode tensors to the CPU and the other did not
    x, y = off.model.cpu_overrides, on.model.cpu_overrides
    if x is not None and y is not None and x != y:
        return False
    if any(x is None or y is None for x, y in zip(a, b, strict=True)):
        return None
    return True
