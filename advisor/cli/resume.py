"""`check --resume RUN_ID`: go on with an interrupted run, exactly as it started (docs/refusals.md).

What it refuses, each with a message and exit 2: an empty id (it would start a new check), a run that is
already complete (measured again it would be replaced; its report is there), and options that would change
what the run measures — a resumed run reuses its measured units, so units under two settings would mix. It
accepts what a resume can honour: `--json`, `--lang`, the API key (never stored, so a keyed run could not go on
without it) and the run's own server URLs (for their keys), and any option repeated with the value the run
recorded. The model file itself is compared by the session (advisor/run/session.py) before anything loads.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from advisor import lang
from advisor.config import CheckConfig, config_from_dict
from advisor.errors import UserError
from advisor.history.store import RunStore
from advisor.run.api_key import api_key_from
from advisor.text import text
from probes.engines.urls import BadEngineUrl, parse_engine_url, same_endpoint

# Options a resume honours whatever their value (the keys and URLs are checked below).
HONOURED = frozenset({"resume", "json", "lang", "api_key_file", "no_history", "engine_url", "engine_url_b"})
# Option → the recorded configuration's key, where the names differ (the rest share theirs).
RECORDED_AS = {"concurrency": "concurrency_expected", "prompts": "prompts_file", "out": "out_dir"}


def resumed_config(args: argparse.Namespace, store: RunStore | None, defaults: Mapping[str, Any]) -> CheckConfig:
    """The stored configuration of the run to resume, with the API keys given now; UserError for what a
    resume cannot do."""
    language = lang.resolve(args.lang)
    run_id = (args.resume or "").strip()
    if not run_id:
        raise UserError(text(language, "resume.empty"), hint=text(language, "resume.empty_hint"))
    if store is None:
        raise UserError(text(language, "resume.no_history"))
    record = store.get_run(run_id)
    if record is None:
        raise UserError(text(language, "resume.unknown", run_id=run_id), hint=text(language, "resume.unknown_hint"))
    stored = dict(record.config)
    if record.summary.status == "complete":
        hint = text(language, "resume.complete_hint")
        if stored.get("out_dir"):
            hint = hint.replace("RUN_DIR", str(stored["out_dir"]))
        raise UserError(text(language, "resume.complete", run_id=run_id), hint=hint)
    changed = [_flag(dest) for dest, value in vars(args).items()
               if dest in defaults and dest not in HONOURED and value != defaults[dest]
               and not _as_recorded(dest, value, stored)]
    if changed:
        raise UserError(text(language, "resume.options", options=", ".join(sorted(changed))),
                        hint=text(language, "resume.options_hint"))
    config = config_from_dict(stored)
    return _with_keys(config, args, run_id, language)


def _flag(dest: str) -> str:
    return "-- LLAMA_SERVER_ARGS" if dest == "server_args" else "--" + dest.replace("_", "-")


def _as_recorded(dest: str, value: Any, stored: Mapping[str, Any]) -> bool:
    """True when the option repeats what the run recorded (a user re-running the same command line)."""
    then = stored.get(RECORDED_AS.get(dest, dest))
    if dest == "steps":
        return isinstance(then, list) and [s.strip() for s in str(value).split(",") if s.strip()] == then
    if dest == "server_args":
        return list(value or ()) == list(then or ())
    if isinstance(value, Path):
        return then is not None and Path(then).expanduser().resolve() == value.expanduser().resolve()
    return bool(value == then)


def _with_keys(config: CheckConfig, args: argparse.Namespace, run_id: str, language: str) -> CheckConfig:
    """Each recorded server gets the key given now for it: its URL's own user-info, else the shared key
    (--api-key-file or the variable). A URL that is not one of the run's servers is refused."""
    recorded = [u for u in (config.engine_url, config.engine_url_b) if u]
    given: dict[str, str | None] = {}
    for option, url in (("--engine-url", args.engine_url), ("--engine-url-b", args.engine_url_b)):
        if url is None:
            continue
        try:
            parsed = parse_engine_url(url)
        except BadEngineUrl as exc:
            raise UserError(str(exc), hint="example: --engine-url http://127.0.0.1:8080") from exc
        match = next((r for r in recorded if same_endpoint(r, parsed.base)), None)
        if match is None:
            raise UserError(text(language, "resume.url", option=option, url=parsed.base, run_id=run_id,
                                 recorded=", ".join(recorded) or "a managed run: no attached server"),
                            hint=text(language, "resume.url_hint"))
        given[match] = parsed.api_key
    shared = api_key_from(args)
    key = (given.get(config.engine_url) or shared) if config.engine_url else None
    key_b = (given.get(config.engine_url_b) or shared) if config.engine_url_b else None
    return replace(config, api_key=key, api_key_b=key_b)
