"""The CLI says how a full check was sized once the baseline timed a request: the target, the pace, each sized
step's planned time, and the steps that run past their share even at their smallest size, in English and
Chinese."""

from __future__ import annotations

import functools
import io

from advisor.cli.progress import ProgressPrinter, sized_line
from advisor.events import CheckSized
from advisor.evidence.time_plan import TimePlan
from advisor.report.strings import text

PLAN = TimePlan(540.0, 2.033, 0.4, {"acceptance": 79.7, "tune": 102.1, "batch": 54.3, "ab": 164.3})


def test_the_line_names_the_target_the_pace_and_each_steps_time() -> None:
    english = sized_line(PLAN, functools.partial(text, "en"))
    assert english.startswith("sized to fit 9:00 at 2.0 s a request")
    assert "Draft acceptance 1:20" in english and "A/B test 2:44" in english and "past their share" not in english
    chinese = sized_line(PLAN, functools.partial(text, "zh"))
    assert "9:00" in chinese and "草稿接受率 1:20" in chinese and "sized" not in chinese


def test_a_slow_model_is_told_which_steps_run_past_their_share() -> None:
    slow = TimePlan(540.0, 9.0, 20.0, {"acceptance": 150.0, "ab": 320.0}, over_share=("acceptance", "ab"))
    english = sized_line(slow, functools.partial(text, "en"))
    assert "past their share even at their smallest size: Draft acceptance, A/B test" in english
    assert "超出份额的步骤：草稿接受率, A/B 测试" in sized_line(slow, functools.partial(text, "zh"))


def test_the_printer_prints_it_as_it_comes() -> None:
    out = io.StringIO()
    ProgressPrinter(out, lang="en")(CheckSized(PLAN, (10, 20, 30)))
    assert "sized to fit 9:00" in out.getvalue()
