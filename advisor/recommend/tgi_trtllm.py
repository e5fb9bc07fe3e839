"""Speculation settings for Hugging Face TGI and NVIDIA TensorRT-LLM, with what cannot be measured there.

TGI (docs: conceptual/speculation): `--speculate N` on text-generation-launcher (env `SPECULATE`); a Medusa
model repo loads its heads automatically and `--speculate` caps them, a plain model gets n-gram lookup.
TGI has no separate draft-model, EAGLE or MTP option.
TensorRT-LLM (docs: features/speculative-decoding, trtllm-serve): a `speculative_config` block in the
YAML given to `trtllm-serve --extra_llm_api_options` with `decoding_type` (DraftTarget, Eagle/Eagle3,
NGram, MTP), `max_draft_len`, `speculative_model_dir`, `max_matching_ngram_size`,
`num_nextn_predict_layers`. Names move between releases, so the output says to check the version's docs.
"""

from __future__ import annotations

from collections.abc import Mapping

import advisor.recommend.yaml_emit as yaml_emit
from advisor import methods
from advisor.core.policy import default_policy
from advisor.text import percent

TGI_NO_COUNTS = ("TGI reports no drafted/accepted token counts (not in /info, responses or /metrics), so "
                 "acceptance rate and mean acceptance length cannot be measured here; only the end-to-end "
                 "A/B speed applies")
TRT_NO_ADAPTER = ("spec-advisor has no TensorRT-LLM probe: acceptance and verify cost were not measured on it "
                  "here (recent trtllm-serve builds may report speculative stats in their iteration metrics; "
                  "check your version's docs); only an A/B you ran against it applies")
CONFIG_FILE = "spec-decoding.yaml"
DRAFT_DIR_PLACEHOLDER = "/path/to/draft-model"


def measured(facts: Mapping[str, object]) -> list[str]:
    """The A/B numbers that apply to any engine, as a note (empty when there was no A/B)."""
    speed, low, high = facts.get("ab.speedup"), facts.get("ab.ci_low"), facts.get("ab.ci_high")
    if not isinstance(speed, int | float):
        return []
    level = facts.get("ab.ci_level")
    shown = percent(level if isinstance(level, float) else default_policy().ab.ci_level)
    ci = f" ({shown} CI {low:.2f}–{high:.2f})" if isinstance(low, int | float) and isinstance(high, int | float) else ""
    return [f"measured A/B speedup on this engine: {speed:.2f}×{ci}"]


def tgi(facts: Mapping[str, object], method: str, n: int) -> tuple[tuple[str, ...], tuple[str, ...],
                                                                      list[str]]:
    """(argv, steps, notes) for text-generation-launcher."""
    family = methods.family(method)
    notes = [*measured(facts), TGI_NO_COUNTS]
    if family not in ("ngram", "medusa"):
        notes.insert(0, f"TGI has no {family} option (only Medusa/MLP-speculator heads or n-gram via --speculate); "
                        "measure one of those before changing TGI")
        return (), (), notes
    steps = (f"Add --speculate {n} to the text-generation-launcher arguments (in Docker: after the image "
             f"name, or set SPECULATE={n} in the container environment), then restart TGI.",)
    if family == "medusa":
        notes.insert(0, "keep --model-id pointing at the Medusa model: TGI loads its heads automatically and "
                        f"--speculate {n} caps how many it uses")
    else:
        notes.insert(0, "with a model without Medusa heads TGI uses n-gram lookup for --speculate")
    return ("--speculate", str(n)), steps, notes


def trtllm(facts: Mapping[str, object], method: str, n: int, schedule: Mapping[str, object] | None = None,
           ) -> tuple[tuple[str, ...], tuple[str, ...], list[str]]:
    """(argv, steps, notes) for trtllm-serve: the argv names a YAML file the steps spell out; `schedule` holds
    speculative_config keys by batch size (max_concurrency or draft_len_schedule, engine_schedule.py)."""
    family = methods.family(method)
    draft = facts.get("spec.draft_model")
    model = draft if isinstance(draft, str) and draft else DRAFT_DIR_PLACEHOLDER
    notes = [*measured(facts), TRT_NO_ADAPTER]
    config: dict[str, object]
    if family == "ngram":
        config = {"decoding_type": "NGram", "max_draft_len": n, "max_matching_ngram_size": 2}
    elif family == "mtp":
        config = {"decoding_type": "MTP", "num_nextn_predict_layers": n}
    elif family == "eagle3":
        config = {"decoding_type": "Eagle3", "max_draft_len": n, "speculative_model_dir": model}
        notes.append("older TensorRT-LLM releases spell EAGLE-3 as decoding_type: Eagle (with eagle3_one_model); "
                     "check your version's docs")
    elif family == "medusa":
        return (), (), [f"{method} is not offered for TensorRT-LLM's PyTorch backend here; check your version's "
                        "docs", *notes]
    else:
        config = {"decoding_type": "DraftTarget", "max_draft_len": n, "speculative_model_dir": model}
        notes.append("DraftTarget (a separate draft model) is newer than the other methods; check your "
                     "version's docs")
    if model == DRAFT_DIR_PLACEHOLDER and "speculative_model_dir" in config:
        notes.append(f"replace {DRAFT_DIR_PLACEHOLDER} with the draft/EAGLE checkpoint you measured")
    text = yaml_emit.dump({"speculative_config": {**config, **(schedule or {})}})
    steps = (f"Save this as {CONFIG_FILE}:\n{text.rstrip()}",
             f"Start trtllm-serve with --extra_llm_api_options {CONFIG_FILE} (newer releases also call it "
             "--config; check your version's docs).")
    return ("--extra_llm_api_options", CONFIG_FILE), steps, notes
