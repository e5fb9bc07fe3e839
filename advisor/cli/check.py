"""`spec-advisor check`: measure this machine and decide (managed demo engine by default)."""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import signal
import sys
import tempfile
from pathlib import Path
from types import FrameType

from advisor import jsonout, lang
from advisor.arms.draft import check_tokenizers
from advisor.arms.modelfile import require_gguf
from advisor.cli.progress import ProgressPrinter
from advisor.cli.resume import resumed_config
from advisor.cli.summary import print_summary
from advisor.config import ALL_STEPS, FULL, QUICK, CheckConfig
from advisor.decide.verdict_json import saved_verdict
from advisor.demo.model import demo_model_path
from advisor.errors import UserError
from advisor.evidence.codec import encode
from advisor.history.store import RunStore
from advisor.owned import refuse_earlier_run
from advisor.run.api_key import add_api_key_options, api_key_from
from advisor.run.environment import read_model
from advisor.run.passthrough import check_engine_environment, check_server_args
from advisor.run.session import Session
from advisor.text import text
from probes.base import Unavailable
from probes.engines.urls import BadEngineUrl, EngineUrl, is_loopback, parse_engine_url, same_endpoint
from probes.model.kv_cache import CACHE_TYPES

# Bounds for numbers argparse only parses: no machine runs a million requests or threads at once, and
# sampling temperatures above 10 are noise (engines document 0–2).
MAX_COUNT = 1_000_000
MAX_TEMPERATURE = 10.0


def configure(p: argparse.ArgumentParser) -> None:
    """Arguments of `check`."""
    p.add_argument("--quick", action="store_true", help="small budget (a few minutes); default is the full check")
    p.add_argument("--until-decided", action="store_true",
                   help="let an A/B still undecided at its pair budget go on to the full check's (the ETA counts them)")
    p.add_argument("--engine-url", help="attach to a running server (loopback) instead of launching one")
    p.add_argument("--engine-url-b", help="the other arm when attaching (spec on vs off)")
    p.add_argument("--allow-remote", action="store_true", help="allow engine URLs that are not on this machine")
    p.add_argument("--llama-server", help="path of the llama-server binary to launch")
    p.add_argument("--allow-cpu-engine", action="store_true",
                   help="run a CPU-only llama-server although a GPU is present (measures the CPU, on purpose)")
    p.add_argument("--model", type=Path, help="target model GGUF (default: the bundled demo model)")
    p.add_argument("--spec-type", default="ngram-mod", help="speculation type for the ON arm (default ngram-mod)")
    p.add_argument("--draft-model", type=Path, help="draft model GGUF (uses --spec-type draft-simple)")
    p.add_argument("--draft-max", type=int,
                   help="longest draft γ (default: the engine's own default for the method, read from --help)")
    p.add_argument("--draft-gpu-layers", metavar="N|all|auto",
                   help="draft layers on the GPU (-ngld; default: all when the draft fits in free VRAM, else 0)")
    p.add_argument("--draft-kv-type", choices=CACHE_TYPES,
                   help="KV cache type of the draft, e.g. q8_0 (-ctkd/-ctvd; default f16)")
    p.add_argument("--draft-ctx", type=int, metavar="N",
                   help="draft context per slot in tokens (-cd, where the build has it; default: the target's)")
    lang.add_option(p, "language of the summary and of the messages about the draft model")
    p.add_argument("--prompts", type=Path, help="your prompts: text (one per line), JSONL, or chat JSONL")
    p.add_argument("--steps", default=",".join(ALL_STEPS), help=f"comma list of {','.join(ALL_STEPS)}")
    p.add_argument("--concurrency", type=int, default=1, help="simultaneous requests you expect (default 1)")
    p.add_argument("--mix", metavar="CAT=W,…",
                   help="your mix of tasks for the A/B, e.g. code=0.6,chat=0.4 (default: every category equally)")
    p.add_argument("--keep-prompts", action="store_true",
                   help="store the prompt texts in the evidence (left out by default: they may be private)")
    p.add_argument("--temperature", type=float, default=0.0, help="your sampling temperature (default 0)")
    p.add_argument("--threads", type=int, help="CPU threads for launched servers")
    p.add_argument("--arms", choices=("auto", "single", "dual"), default="auto",
                   help="launched servers side by side (dual), one copy of the model at a time (single), or "
                        "chosen by whether two copies fit in free VRAM/RAM (auto, the default)")
    p.add_argument("--out", type=Path, help="run folder (default: a new folder in the data directory)")
    p.add_argument("--json", action="store_true", help="print the verdict as JSON on stdout")
    p.add_argument("--resume", metavar="RUN_ID", help="continue a run that was interrupted (see `history`)")
    p.add_argument("--no-history", action="store_true", help="do not record this run in the history database")
    add_api_key_options(p)
    p.add_argument("--no-tune", action="store_true",
                   help="measure the method at the engine's default draft length instead of choosing the best")
    p.add_argument("--llmkube", metavar="NAMESPACE/NAME",
                   help="measure an LLMKube InferenceService on your cluster (a twin or sequential windows; every "
                        "change undone at the end)")
    p.add_argument("--kubeconfig", type=Path, metavar="FILE",
                   help="with --llmkube: the kubeconfig (default: KUBECONFIG or ~/.kube/config, as kubectl)")
    p.add_argument("--context", metavar="NAME", help="with --llmkube: the kubeconfig context (default: its current)")
    p.add_argument("--plan", action="store_true",
                   help="with --llmkube: print what would be created or patched and the RBAC needed; change nothing")
    p.add_argument("--apply", action="store_true",
                   help="with --llmkube: after an ENABLE, patch the service's speculation fields (diff, confirm)")
    p.add_argument("--yes", action="store_true", help="with --apply: do not ask for confirmation")
    p.add_argument("--rollout-timeout", type=float, metavar="SECONDS",
                   help="with --llmkube: the longest wait for a pod to become Ready (default 300)")
    p.add_argument("server_args", nargs="*", metavar="-- LLAMA_SERVER_ARGS",
                   help="after --: your own llama-server options (-ngl, -c, -fa, -ctk, -t, …) for both arms")


def parse_steps(text: str) -> tuple[str, ...]:
    """`baseline,ab` → ("baseline", "ab"); unknown names are a user error with the valid list."""
    chosen = tuple(s.strip() for s in text.split(",") if s.strip())
    unknown = [s for s in chosen if s not in ALL_STEPS]
    if unknown or not chosen:
        raise UserError(f"unknown step(s): {', '.join(unknown) or '(none given)'}",
                        hint=f"choose from {','.join(ALL_STEPS)}")
    return chosen


def config_from_args(args: argparse.Namespace) -> CheckConfig:
    """Validate the arguments into a `CheckConfig`."""
    if args.engine_url_b and not args.engine_url:
        raise UserError("--engine-url-b needs --engine-url")
    # A key in a URL's user-info moves to the (never stored) api_key; the URLs kept in the evidence have none.
    # Each server's key is its URL's own, else the one the user gave for all (--api-key-file, the variable).
    shared_key = api_key_from(args)
    urls: list[str | None] = []
    keys: list[str | None] = []
    for url in (args.engine_url, args.engine_url_b):
        parsed = _engine_url(url)
        if parsed is not None and not args.allow_remote and not is_loopback(parsed.base):
            raise UserError(f"{parsed.base} is not on this machine; spec-advisor only talks to loopback",
                            hint="pass --allow-remote to measure a remote engine")
        urls.append(parsed.base if parsed else None)
        keys.append((parsed.api_key if parsed else None) or shared_key)
    if urls[0] and urls[1] and same_endpoint(urls[0], urls[1]):
        raise UserError(f"--engine-url and --engine-url-b name the same server ({urls[0]}): an A/B of a server "
                        "against itself measures nothing",
                        hint="give the other arm's server to --engine-url-b, or leave it out")
    _check_numbers(args)
    server_args = check_server_args(args.server_args or (), lang=lang.resolve(args.lang),
                                    max_tokens=(QUICK if args.quick else FULL).max_tokens)
    if server_args and args.engine_url:
        raise UserError("options after -- are for servers spec-advisor launches; an attached server runs as it is")
    if not args.engine_url:
        check_engine_environment(os.environ, lang=lang.resolve(args.lang))
    steps = parse_steps(args.steps)
    if args.no_tune:
        steps = tuple(s for s in steps if s != "tune")
    held_out_categories: list[str] = []
    if args.prompts is not None:
        # Fail on a bad prompt file before any engine starts (loading the file is cheap; servers are not).
        from advisor.workloads import MIN_DISTINCT_PROMPTS, dedupe, load_user_prompts

        kept = dedupe(load_user_prompts(args.prompts), min_count=MIN_DISTINCT_PROMPTS).kept
        held_out_categories = sorted({p.category for p in kept})
    mix = None
    if args.mix:
        from advisor.workloads import load_library
        from advisor.workloads.mix import normalise, parse_mix

        known = held_out_categories or sorted({p.category for p in load_library()})
        mix = tuple(normalise(parse_mix(args.mix), known).items())
    if args.model is not None:
        require_gguf(args.model, "model")  # a Hugging Face folder is named as one, not "not found"
        read_model(args.model)  # a missing, truncated or non-GGUF file is reported now, not after a launch
    if args.draft_model is not None:
        read_model(args.draft_model)  # the same checks as the target's: a pipe or a corrupt header stops here
        _draft_options(args)
    if args.out is not None and not args.resume:
        refuse_earlier_run(args.out, lang=lang.resolve(args.lang))  # an earlier run is never replaced
        _check_out(args.out)
    spec_type = args.spec_type
    if args.draft_model is not None and spec_type == "ngram-mod":
        spec_type = "draft-simple"  # in new builds -md alone does not enable speculation (issue #25345)
    return CheckConfig(
        quick=args.quick, steps=steps, engine_url=urls[0],  # type: ignore[arg-type]
        engine_url_b=urls[1], allow_remote=args.allow_remote, llama_server=args.llama_server,
        allow_cpu_engine=args.allow_cpu_engine,
        model=args.model, spec_type=spec_type, draft_model=args.draft_model, draft_max=args.draft_max,
        draft_gpu_layers=args.draft_gpu_layers, draft_kv_type=args.draft_kv_type, draft_ctx=args.draft_ctx,
        prompts_file=args.prompts, concurrency_expected=args.concurrency, temperature=args.temperature,
        threads=args.threads, arms=args.arms, out_dir=args.out, mix=mix, keep_prompts=args.keep_prompts,
        until_decided=args.until_decided,
        server_args=server_args, api_key=keys[0], api_key_b=keys[1] if urls[1] else None,
    )


def _check_numbers(args: argparse.Namespace) -> None:
    """Counts from 1, a finite temperature from 0, draft options well-formed: argparse only checks that they
    parse, and each would otherwise fail after the engines have started."""
    for flag, value in (("--draft-max", args.draft_max), ("--concurrency", args.concurrency),
                        ("--threads", args.threads)):
        if value is not None and not 1 <= value <= MAX_COUNT:
            raise UserError(f"{flag} must be a whole number from 1 to {MAX_COUNT:,}, not {value}")
    if args.draft_ctx is not None and not 1 <= args.draft_ctx <= MAX_COUNT:
        raise UserError(f"--draft-ctx must be a token count from 1 to {MAX_COUNT:,}, not {args.draft_ctx}")
    layers = args.draft_gpu_layers
    if layers is not None and layers not in ("all", "auto") and not layers.isdigit():
        raise UserError(f"--draft-gpu-layers must be a layer count, all or auto, not {layers!r}")
    if not (math.isfinite(args.temperature) and 0.0 <= args.temperature <= MAX_TEMPERATURE):
        raise UserError(f"--temperature must be a number from 0 to {MAX_TEMPERATURE:g}, not {args.temperature}")


def _engine_url(url: str | None) -> EngineUrl | None:
    if url is None:
        return None
    try:
        return parse_engine_url(url)
    except BadEngineUrl as exc:
        raise UserError(str(exc), hint="example: --engine-url http://127.0.0.1:8080") from exc


def _check_out(out: Path) -> None:
    """A file in the way or a place we cannot write is found now, not after the engines have started; and
    nothing is left behind (a check refused later, e.g. by another one running, writes no folder)."""
    existing = next((p for p in (out, *out.parents) if p.exists()), Path("/"))
    if not existing.is_dir():
        raise UserError(f"cannot use --out {out}: {existing} is a file, not a folder")
    try:  # creating something there is the only test that also holds for root and read-only mounts
        tempfile.TemporaryDirectory(dir=existing, prefix=".spec-advisor-probe-").cleanup()
    except OSError as exc:
        raise UserError(f"cannot use --out {out}: {existing} is not writable ({exc.strerror or exc})") from None


def _draft_options(args: argparse.Namespace) -> None:
    """Draft placement options are well-formed, and the draft pairs with the target (llama.cpp's tokenizer
    checks), before any server starts: a refused pair would otherwise fail after loading both models."""
    target = args.model if args.model is not None else demo_model_path()
    if args.engine_url or target is None:
        return  # attached servers already run their pair; without a target the launch reports it
    pair = check_tokenizers(target, args.draft_model, lang.resolve(args.lang))
    if pair.compatible is None:
        print(f"spec-advisor: {text(lang.resolve(args.lang), 'draft.unchecked', detail=pair.detail)}",
              file=sys.stderr)


def _engine_gate(args: argparse.Namespace, config: CheckConfig) -> None:
    """A CPU-only llama-server beside a GPU is refused in the reader's language before anything starts (the
    session's launch repeats the check for other callers, in English)."""
    if config.mode != "managed" or config.allow_cpu_engine or config.model is None:
        return
    from advisor.run.engine_gate import cpu_engine_gate
    from probes.engines.llamacpp.binary import find_llama_server
    from probes.gpu.probe import probe_gpus

    binary = find_llama_server(config.llama_server)
    if not isinstance(binary, Unavailable):
        refused = cpu_engine_gate(binary, probe_gpus(), False, server_args=config.server_args,
                                  lang=lang.resolve(args.lang))
        if refused is not None:
            raise refused


def run(args: argparse.Namespace) -> int:
    """Run the check; Ctrl-C (or SIGTERM) stops cleanly and keeps what was measured."""
    if getattr(args, "llmkube", None):
        from advisor.cli.cluster_check import run_cluster_check as run_cluster

        return run_cluster(args, _run_session, config_from_args)  # type: ignore[arg-type]
    for flag in ("kubeconfig", "context", "plan", "apply", "yes", "rollout_timeout"):
        if getattr(args, flag, None):
            raise UserError(f"--{flag.replace('_', '-')} goes with --llmkube NAMESPACE/NAME")
    with contextlib.ExitStack() as stack:
        store = None if args.no_history else stack.enter_context(RunStore())
        if args.resume is not None:  # `--resume ""` too: refused there, never a new check
            config = resumed_config(args, store, _defaults())
            args.resume = args.resume.strip()
        else:
            config = config_from_args(args)
        _engine_gate(args, config)
        printer = ProgressPrinter(lang=args.lang)
        session = Session(config, subscribers=[printer], store=store, resume_run_id=args.resume,
                          run_dir=config.out_dir, lang=lang.resolve(args.lang))
        # said as the check's first line once it gets going (a check refused at its start says only why)
        printer.header = plan_line(session, lang.resolve(args.lang))
        return _run_session(session, args)


def _defaults() -> dict[str, object]:
    """Every `check` option's default, to tell which ones a --resume was given beside it."""
    parser = argparse.ArgumentParser(add_help=False)
    configure(parser)
    return vars(parser.parse_args([]))


def plan_line(session: Session, language: str) -> str:
    """The check's first line: quick or full, and how long it will take (the ETA's plan at the known pace)."""
    from advisor.run.duration import duration_text, plan_duration
    from probes.engines.llamacpp.binary import find_llama_server

    config = session.config
    binary = find_llama_server(config.llama_server) if config.mode == "managed" else None
    dialect = binary.dialect if binary is not None and not isinstance(binary, Unavailable) else None
    try:
        planned = plan_duration(config, session.policy, dialect if not isinstance(dialect, Unavailable) else None)
    except UserError:
        return text(language, "plan.first_line", kind=text(language, f"plan.kind.{_kind(config)}"), duration="—")
    return text(language, "plan.first_line", kind=text(language, f"plan.kind.{_kind(config)}"),
                duration=duration_text(planned, lambda key, **v: text(language, key, **v)))


def _kind(config: CheckConfig) -> str:
    return "quick" if config.quick else "full"



def _run_session(session: Session, args: argparse.Namespace) -> int:
    """Run with Ctrl-C/SIGTERM wired to a clean cancel, then print the summary or the JSON."""

    def stop(signum: int, frame: FrameType | None) -> None:
        if session.cancel_flag.is_set():
            raise KeyboardInterrupt  # second Ctrl-C: stop now
        print("\n" + text(lang.resolve(args.lang), "cli.stopping"), file=sys.stderr)
        session.cancel()

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        done = session.run()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if args.json:
        tuner, rec = session.evidence.tuner, session.evidence.reconciliation
        verdict = saved_verdict(done.verdict, done.facts) if done.verdict is not None else None
        result = {"status": done.status, "message": done.message, "run_dir": done.run_dir, "verdict": verdict,
                  "history_error": done.history_error or None,
                  "tuner": encode(tuner) if tuner is not None else None,
                  "reconciliation": encode(rec) if rec is not None else None}
        jsonout.dump(result, sys.stdout)
    else:
        print_summary(session.evidence, done, sys.stdout, lang.resolve(args.lang))
    if done.status == "failed":
        # The reason goes to stderr (the summary on stdout keeps what was measured): a mistake of the user's
        # (bad input, found once the session looked) is a usage error, anything else a failed run.
        message, _, hint = done.message.partition("\n")
        if done.user_error:
            raise UserError(message or "the check failed", hint=hint)
        print(f"spec-advisor: {message or 'the check failed'}", file=sys.stderr)
        if hint:
            print(f"  hint: {hint}", file=sys.stderr)
        return 1
    if done.status == "complete":
        return 1 if done.history_error else 0  # measured, but the history lost it: a script must not miss that
    if session.run_id and session.store is not None and not done.history_error:
        # what was measured is kept whole units at a time: say how to go on from there
        print(text(lang.resolve(args.lang), "cli.resume_hint", run_id=session.run_id), file=sys.stderr)
    return 130
