"""Golden files: every deploy format for the new and the old llama.cpp flag dialect.

Regenerate after an intended change with SPEC_ADVISOR_UPDATE_GOLDEN=1 and review the diff.
"""

from __future__ import annotations

import os

import pytest

from advisor.deploy.render import FORMATS, render_deploy
from advisor.recommend.dialect import REMOVED_IN_NEW
from tests.deploy_cases import GOLDEN, MODEL, enable


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("dialect", ["new", "old"])
def test_golden(dialect: str, fmt: str) -> None:
    text = render_deploy(enable(dialect), fmt, model_path=MODEL, port=8081)
    path = GOLDEN / f"{dialect}.{fmt}.txt"
    if os.environ.get("SPEC_ADVISOR_UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{path.name} differs; regenerate if intended"


@pytest.mark.parametrize("fmt", FORMATS)
def test_dialects_never_mix(fmt: str) -> None:
    new = render_deploy(enable("new"), fmt, model_path=MODEL)
    old = render_deploy(enable("old"), fmt, model_path=MODEL)
    assert "--spec-draft-n-max" in new and "--spec-type" in new
    assert not any(f'{flag}"' in new or f"{flag} " in new for flag in REMOVED_IN_NEW)
    assert "--draft-max" in old and "--spec-" not in old.replace("spec-advisor", "")


@pytest.mark.parametrize("spec_field", [True, False])
def test_golden_llmkube_for_the_installed_crd(spec_field: bool) -> None:
    """A recent operator's CRD has spec.speculativeDecoding: the recommendation uses it; an older one's has
    only spec.extraArgs (the same text as the llmkube format)."""
    from advisor.deploy.base import request_for
    from advisor.deploy.llmkube import render_for_crd

    req = request_for(enable("new"), verdict="ENABLE", model_path=MODEL, host=None, port=8081, manifest_text=None,
                      tentative=False, gpu=None)
    text = render_for_crd(req, spec_field=spec_field)
    path = GOLDEN / f"new.llmkube-{'spec' if spec_field else 'extra-args'}.txt"
    if os.environ.get("SPEC_ADVISOR_UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{path.name} differs; regenerate if intended"
    if spec_field:
        assert "speculativeDecoding:" in text and "extraArgs" not in text.split("\nspec:")[1]
    else:
        assert text == render_deploy(enable("new"), "llmkube", model_path=MODEL, port=8081, verdict="ENABLE")
