"""`plain`: the engine flags as one shell-quoted line, with notes and steps as readable text."""

from __future__ import annotations

import shlex

from advisor.deploy.base import DeployRequest


def render(req: DeployRequest) -> str:
    """Flags to add (or a line saying to add none), then notes and steps."""
    lines = [f"# spec-advisor: {req.reason}"]
    if req.spec_argv:
        lines.append(shlex.join(req.spec_argv))
    lines += [f"# note: {n}" for n in req.notes]
    lines += list(req.steps)  # steps are prose (or a config file to save): printed as they are
    return "\n".join(lines) + "\n"
