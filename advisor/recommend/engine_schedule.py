"""A `Schedule` (advisor/recommend/schedule.py) in each engine's own configuration form.

Pure functions: they return the keys to merge into the engine's speculative configuration and notes; the flag
strings stay where every other flag of that engine lives (build.py for vLLM and SGLang, tgi_trtllm.py for
TensorRT-LLM, llamacpp.py for llama.cpp). What each engine takes, as read in its docs and source:

- vLLM ≥ 0.24: `num_speculative_tokens_per_batch_size` inside `--speculative-config`, a list of inclusive
  `[start_bs, end_bs, k]` ranges that must start at 1; gaps and the tail after the last range carry the previous
  k forward, and every k is capped by `num_speculative_tokens` (vllm-project/vllm PR #32374, merged May 2026,
  shipped in 0.24; docs/features/speculative_decoding/dynamic_speculative_decoding.md;
  vllm/v1/spec_decode/dynamic/utils.py). Before 0.10 (the V0 engine) `disable_by_batch_size` (in the JSON; the
  flag `--speculative-disable-by-batch-size` before the JSON config) turns speculation off once the running
  queue holds at least that many requests (spec_decode_worker: `running_queue_size >= disable_by_batch_size`).
  From 0.10 it is accepted but read by nothing (vllm PR #35060 removed it), so 0.10–0.23 have neither.
- TensorRT-LLM (PyTorch backend) `speculative_config`: `max_concurrency` turns speculation off at batch sizes
  above it, the same in every release that has it. `draft_len_schedule` maps batch sizes to k and changed
  meaning: up to 1.2 its keys are lower bounds (`{1: 4, 4: 2, 8: 0}`: from 1 draft 4, from 4 draft 2, from 8
  off; key 1 required and equal to `max_draft_len`); since NVIDIA/TensorRT-LLM PR #10860 (merged 2026-03-13,
  after the 1.2 branch, so taken here as 1.3 on) they are upper bounds (`{4: 4, 8: 2}`: 1–4 draft 4, 5–8 draft 2,
  above the largest key off; the smallest key's k must equal `max_draft_len`). The two are mutually exclusive.
- SGLang: only EAGLE/EAGLE-3 with `--speculative-eagle-topk 1` can change steps by batch size, through
  `--speculative-adaptive` and a `--speculative-adaptive-config` JSON whose integer-string keys are the lower
  bounds of batch-size slots, each with `candidate_steps` (0 = no drafting; one candidate pins the slot's steps;
  python/sglang/srt/speculative/adaptive_spec_params.py). A batch is first rounded up to a captured CUDA-graph
  size. Older releases read one global `candidate_steps` list. NGRAM, STANDALONE and NEXTN have no batch-size
  setting and no disable threshold.
- llama.cpp: one draft length per server and no per-batch schedule; the cutoff becomes the number of parallel
  slots (`-np`) a speculating server should have.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from advisor.recommend.schedule import Schedule

VLLM_SCHEDULE_SINCE = (0, 24)      # num_speculative_tokens_per_batch_size (vllm PR #32374)
VLLM_V0_UNTIL = (0, 10)            # disable_by_batch_size is read only by the V0 engine, removed in 0.10
TRTLLM_UPPER_KEYS_SINCE = (1, 3)   # draft_len_schedule keys became upper bounds (TensorRT-LLM PR #10860)
SGLANG_SCHEDULED = ("eagle3",)     # methods.family: EAGLE and EAGLE-3 alike


@dataclass(frozen=True, slots=True)
class EngineForm:
    """Keys to merge into the engine's speculative config (empty: nothing to add), the draft length the base
    config must then carry, and what the form cannot say."""

    config: Mapping[str, object] = field(default_factory=dict)
    draft_len: int = 0
    notes: tuple[str, ...] = ()


def release(version: str | None) -> tuple[int, int] | None:
    """'v0.24.1rc2' → (0, 24); None when no major.minor can be read."""
    m = re.search(r"(\d+)\.(\d+)", version or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def _dotted(v: tuple[int, int]) -> str:
    return f"{v[0]}.{v[1]}"


def _top(s: Schedule, low: int) -> int:
    """Where an open last band is written to end: the highest measured concurrency (at least its start)."""
    return max(low, s.max_tested or low)


def _unmeasured_tail(s: Schedule, what: str) -> tuple[str, ...]:
    last = s.bands[-1]
    if last.k == 0 or s.max_tested is None:
        return ()
    return (f"above {s.max_tested} simultaneous requests (not measured) {what}",)


def _single(s: Schedule) -> EngineForm:
    """One band: the plain draft length, or off everywhere."""
    if s.bands[0].k == 0:
        return EngineForm(draft_len=s.k_star, notes=(
            "speculation was clearly slower at every concurrency measured; leave it off",))
    return EngineForm(draft_len=s.bands[0].k)


def vllm_form(s: Schedule, version: str | None) -> EngineForm:
    """vLLM --speculative-config keys for `s` in the installed (or declared) release."""
    if len(s.bands) == 1:
        return _single(s)
    rel = release(version)
    if rel is not None and rel < VLLM_V0_UNTIL:
        notes: list[str] = []
        if not s.uniform:
            notes.append(f"vLLM {version} takes one draft length; per-band lengths need vLLM "
                         f"{_dotted(VLLM_SCHEDULE_SINCE)} or newer")
        if s.off_from is None:
            return EngineForm(draft_len=s.bands[0].k, notes=tuple(notes))
        notes.append("releases before --speculative-config take the same number as "
                     "--speculative-disable-by-batch-size")
        return EngineForm({"disable_by_batch_size": s.off_from}, s.bands[0].k, tuple(notes))
    if rel is not None and rel < VLLM_SCHEDULE_SINCE:
        cut = f"keep fewer than {s.off_from} simultaneous requests on it, or " if s.off_from else ""
        return EngineForm(draft_len=s.bands[0].k, notes=(
            f"vLLM {version} cannot change speculation by batch size (disable_by_batch_size is ignored since "
            f"{_dotted(VLLM_V0_UNTIL)}); {cut}upgrade to {_dotted(VLLM_SCHEDULE_SINCE)} or newer for "
            "num_speculative_tokens_per_batch_size",))
    ranges = [[b.low, b.high if b.high is not None else _top(s, b.low), b.k] for b in s.bands]
    notes = list(_unmeasured_tail(s, f"vLLM carries the last range's draft length ({s.bands[-1].k}) on"))
    if rel is None:
        notes.append(f"num_speculative_tokens_per_batch_size needs vLLM {_dotted(VLLM_SCHEDULE_SINCE)} or newer")
    return EngineForm({"num_speculative_tokens_per_batch_size": ranges}, s.max_k, tuple(notes))


def trtllm_form(s: Schedule, version: str | None) -> EngineForm:
    """TensorRT-LLM speculative_config keys for `s` (max_concurrency for a plain cutoff)."""
    if len(s.bands) == 1:
        return _single(s)
    if s.uniform and s.off_from is not None:
        return EngineForm({"max_concurrency": s.off_from - 1}, s.bands[0].k)
    rel = release(version)
    if rel is not None and rel < TRTLLM_UPPER_KEYS_SINCE:
        lower = {b.low: b.k for b in s.bands}
        return EngineForm({"draft_len_schedule": lower}, s.bands[0].k,
                          _unmeasured_tail(s, "TensorRT-LLM keeps the last entry's length"))
    upper = {(b.high if b.high is not None else _top(s, b.low)): b.k for b in s.bands if b.k > 0}
    notes = list(_unmeasured_tail(s, "TensorRT-LLM turns speculation off above the largest key; raise it to "
                                     "your max_batch_size to keep it on"))
    if rel is None:
        notes.append(f"draft_len_schedule keys are upper bounds from TensorRT-LLM {_dotted(TRTLLM_UPPER_KEYS_SINCE)} "
                     "(PR #10860); before, they are lower bounds: "
                     + ", ".join(f"{b.low}: {b.k}" for b in s.bands))
    return EngineForm({"draft_len_schedule": upper}, s.bands[0].k, tuple(notes))


def sglang_form(s: Schedule, family: str) -> EngineForm:
    """The --speculative-adaptive-config JSON for EAGLE/EAGLE-3 (empty config: SGLang has no form for it)."""
    if len(s.bands) == 1:
        return _single(s)
    if family not in SGLANG_SCHEDULED:
        cut = f"; keep fewer than {s.off_from} simultaneous requests on this server" if s.off_from else ""
        return EngineForm(draft_len=s.bands[0].k, notes=(
            "SGLang changes speculative steps by batch size only for EAGLE/EAGLE-3 (--speculative-adaptive); it "
            f"has no batch-size cutoff for this method{cut}",))
    slots = {str(b.low): {"candidate_steps": [b.k]} for b in s.bands}
    return EngineForm(slots, s.bands[0].k, (
        "SGLang rounds a batch up to a captured CUDA-graph size before choosing its slot, so a band may begin at "
        "the next captured size",
        "per-batch-size slots need a recent SGLang; older releases read one global candidate_steps list",
        *_unmeasured_tail(s, "SGLang keeps the last slot's steps")))


@dataclass(frozen=True, slots=True)
class ParallelCutoff:
    """llama.cpp: speculate with `k`, on a server with at most `max_parallel` slots (None: no limit needed)."""

    k: int
    max_parallel: int | None
    notes: tuple[str, ...] = ()


def llamacpp_form(s: Schedule, concurrency: int = 1) -> ParallelCutoff:
    """One draft length (the band holding the user's concurrency) and the slot count it still pays at."""
    off = s.off_from
    return ParallelCutoff(s.k_at(max(1, concurrency)), off - 1 if off is not None and off > 1 else None,
                          _single(s).notes if len(s.bands) == 1 else ())


def unclear_note(s: Schedule) -> tuple[str, ...]:
    """Where the sweep could not tell, said once for every engine."""
    if not s.unclear:
        return ()
    levels = ", ".join(map(str, s.unclear))
    return (f"at {levels} simultaneous request(s) the paired sweep could not tell whether speculation pays (its "
            "CI straddles break-even); it is left on there",)
