"""How the arms ran, in the reader's language: the mode and why (the budget's numbers, not its English)."""

from __future__ import annotations

from advisor.evidence.arms import ArmsPlan
from advisor.text import text


def arms_sentence(plan: ArmsPlan, lang: str = "en") -> str:
    """`one copy of the model at a time (single-resident), two servers would need 41.2 GiB + 1.0 GiB spare on
    gpu0, only 23.5 GiB is free` — from the plan's reason code and its tightest device."""
    short = [d for d in plan.devices if not d.dual_fits]
    device = short[0] if short else (plan.devices[0] if plan.devices else None)
    code = plan.reason_code
    if code in ("fits", "does-not-fit") and device is None:
        code = "unknown-memory"
    numbers = {"need": f"{device.dual_gib:.1f}", "spare": f"{device.margin_gib:.1f}", "device": device.device,
               "free": f"{device.free_gib:.1f}"} if device is not None else {}
    why = text(lang, f"arms.reason.{code}", **numbers)
    return text(lang, f"arms.{plan.mode}", why=why)
