"""Run a check: environment → arms → preflight → steps → facts → verdict, fanning events out to subscribers.

Every step's evidence is written to `evidence.json` (atomically) as soon as the step ends, so a crash or a
cancel keeps what was measured. The cancel flag is checked between events; a cancelled step ends `aborted`.
"""

from __future__ import annotations

import functools
import json
import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from advisor import __version__, paths
from advisor.ab.stopping import NO_LOSS, LossPrior
from advisor.arms.arms import Arms
from advisor.atomic import write_atomic
from advisor.config import CheckConfig
from advisor.core.policy import Policy, default_policy
from advisor.decide.reconcile import decide_evidence
from advisor.decide.rules import RuleSet, load_rules
from advisor.decide.verdict import Verdict
from advisor.decide.verdict_json import saved_verdict
from advisor.errors import UserError
from advisor.events import CheckSized, RunPlanned, ServerRestarted, StepDone, StepStarted
from advisor.evidence.codec import encode
from advisor.evidence.io import save_evidence
from advisor.evidence.schema import ConfigRecord, Evidence, ModelFile, StepRecord, WorkloadSummary
from advisor.evidence.status import SessionStatus
from advisor.evidence.steps import BaselineEvidence, VerifyEvidence
from advisor.evidence.warnings import StepWarning
from advisor.history.store import RunStore
from advisor.owned import refuse_earlier_run
from advisor.run.budget import BaselinePace, pace_from_baseline, plan_only, resize_tuner, sizable, size_check
from advisor.run.contention import ContentionWatch
from advisor.run.done import SessionDone, SessionEvent
from advisor.run.environment import gather
from advisor.run.eta import planned_restarts, planned_units, planned_work
from advisor.run.eta_log import EtaLog
from advisor.run.faults import dead_arm_reason, with_failure_reason
from advisor.run.fits import too_long
from advisor.run.launch import attach, resolve_model, start_managed
from advisor.run.lock import CheckLock
from advisor.run.model_identity import describe as model_describe
from advisor.run.model_identity import fingerprint, from_record, same_model, served, to_record
from advisor.run.overrun import OverrunWatch
from advisor.run.recorder import WRITE_ERRORS, Recorder, describe
from advisor.steps.ab import loss_prior, policy_for
from advisor.steps.base import Step, StepContext
from advisor.steps.plan import WorkloadPlan, plan_workload
from advisor.steps.registry import steps_for
from advisor.steps.tune_plan import TunePlan, plan_tune
from advisor.text import TABLES, text
from advisor.text.message import Message, as_message, joined, msg, render
from advisor.tune.summary import tuner_summary
from probes.engines.base import EngineError, EngineInfo
from probes.gpu.sampler import GpuSampler

log = logging.getLogger(__name__)
Subscriber = Callable[[SessionEvent], None]


class Session:
    """One check. Construct, subscribe, `run()`; `cancel()` from any thread stops it at the next event."""

    def __init__(self, config: CheckConfig, subscribers: Iterable[Subscriber] = (),
                 run_dir: Path | None = None, store: RunStore | None = None, resume_run_id: str | None = None,
                 rules: RuleSet | None = None, lang: str = "en",
                 arms_factory: Callable[[CheckConfig, Path], Arms] | None = None) -> None:
        self.config = config
        self.lang = lang                     # of the messages the session itself words (a refused resume)
        # who sets up the arms instead of `start_managed`/`attach` (a cluster check: advisor/cli/cluster_check.py)
        self.arms_factory = arms_factory
        self.subscribers = list(subscribers)
        self.store = store
        self.resume_run_id = resume_run_id
        self.run_id: str | None = None
        self.arms: Arms | None = None        # set once the engines are up (fault-injection tests reach in)
        self.recorder: Recorder | None = None
        self.failure: Message | None = None  # why the run could not go on (an engine died), for the verdict
        self.halted: str = ""                # why the run stopped early by design (the sanity gate's finding)
        self.history_error: str = ""         # what could not be saved in the history database
        self.cancel_flag = threading.Event()
        # Two checks started in the same second must never share a folder (one's evidence would be lost).
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:6]
        self.run_dir = run_dir or config.out_dir or paths.runs_dir() / stamp
        self.evidence = Evidence(config=ConfigRecord.of(config), app_version=__version__,
                                 created_utc=datetime.now(UTC).isoformat(timespec="seconds"))
        # The rules decide at the end; a typo in the user's override must stop the run before it measures,
        # so they load now and `run()` refuses to start when they could not.
        self.rules_error: UserError | None = None
        self.rules: RuleSet | None = rules
        if self.rules is None:
            try:
                self.rules = load_rules()
            except UserError as exc:
                self.rules_error = exc

    @property
    def policy(self) -> Policy:
        """The policy this run is judged by (the built-in one when the rules did not load; the run then fails)."""
        return self.rules.policy if self.rules is not None else default_policy()

    def cancel(self) -> None:
        """Ask the run to stop; what was measured is kept."""
        self.cancel_flag.set()

    def emit(self, event: SessionEvent) -> None:
        """Send one event to every subscriber; a failing subscriber is logged, never fatal to the run."""
        for sub in self.subscribers:
            try:
                sub(event)
            except Exception:
                log.exception("subscriber %r failed on %s", sub, type(event).__name__)

    @property
    def evidence_path(self) -> Path:
        """Where evidence.json lives."""
        return self.run_dir / "evidence.json"

    def save(self) -> None:
        """Write evidence.json atomically (secrets redacted, NaN as null)."""
        save_evidence(self.evidence, self.run_dir)

    def run(self) -> SessionDone:
        """Measure, decide, and return the final event (also sent to subscribers).

        A managed check holds the machine's check lock for its whole run: a second one is refused, since
        two at once share the CPU/GPU and time each other."""
        rules = self.rules
        if rules is None:
            return self._refused(self.rules_error or UserError("the rules did not load"), user_error=True)
        if not self.resume_run_id:
            try:  # a folder that holds an earlier run is never written over (advisor/owned.py)
                refuse_earlier_run(self.run_dir)
            except UserError as exc:
                return self._refused(exc, user_error=True)
        if self.resume_run_id and self.config.mode == "managed":
            try:  # the model file is compared before any server loads it (an attached server's, once it answers)
                self._same_models(self._model_files(resolve_model(self.config), None))
            except UserError as exc:
                return self._refused(exc, user_error=True)
        lock = CheckLock() if self.config.mode == "managed" else None
        try:
            if lock is not None:
                lock.acquire()
        except UserError as exc:
            return self._refused(exc)
        except OSError as exc:
            return self._refused(UserError(f"cannot create the check lock in {paths.data_dir()}: {describe(exc)}"))
        try:
            return self._run_locked(rules)
        finally:
            if lock is not None:
                lock.release()

    def _refused(self, error: UserError, *, user_error: bool = False) -> SessionDone:
        """Nothing ran: a bad rule set (the user's to fix) or another check holding the machine (try later)."""
        done = SessionDone(status="failed", run_dir="", message=_message(error), user_error=user_error)
        self.emit(done)
        return done

    def _begin_history(self) -> None:
        if self.store is None:
            return
        try:
            self.run_id = self.resume_run_id or self.store.begin_run(self.config.to_dict(), {}, run_dir=self.run_dir)
        except WRITE_ERRORS as exc:
            self.history_error = f"the start of the run ({describe(exc)})"
            return
        self.evidence = replace(self.evidence, run_id=self.run_id)
        self.recorder = Recorder(self.store, self.run_id)

    def _run_locked(self, rules: RuleSet) -> SessionDone:
        arms: Arms | None = None
        self.history_error = ""
        self._begin_history()
        if self.recorder is not None:
            self.subscribers.append(self.recorder)
        # the clock's own history (what every ETA said), so a check that ran long can be read back
        self.subscribers.append(EtaLog(self.run_dir / "logs" / "eta.jsonl"))
        try:
            arms = self._start()
            plan = self._plan(arms)
            self._prompts_fit(arms, plan)  # before the first measurement: a usage error, not failed requests
            self.emit(self._planned(arms, plan))
            self._run_steps(arms, plan, rules)
            status: SessionStatus = "aborted" if self.cancel_flag.is_set() else "complete"
            if status == "complete" and self.failure is None and not self.halted:
                self.failure = self._nothing_measured()
            done = (self._finish("failed", render(self.failure, self.lang)) if self.failure is not None
                    else self._finish(status, self.halted))
        except UserError as exc:
            done = replace(self._finish("failed", _message(exc)), user_error=True)
        except KeyboardInterrupt:
            self.cancel_flag.set()
            done = self._finish("aborted", "interrupted")
        except OSError as exc:  # the run folder could not be written (a full disk, a read-only folder)
            done = self._finish("failed", f"could not write the run folder {self.run_dir}: {describe(exc)}")
        except Exception as exc:  # keep the evidence and say what broke, never a bare traceback
            log.exception("check failed")
            done = self._finish("failed", f"internal error: {type(exc).__name__}: {exc}")
        finally:
            if self.arms is not None:
                self.arms.stop()
        done = self._close_history(done)
        self.emit(done)
        return done

    def _close_history(self, done: SessionDone) -> SessionDone:
        """Close the run in the history (before subscribers see the end, so the summary can say what could not
        be saved, once, and where the evidence is instead)."""
        recorder = self.recorder
        if recorder is not None:
            self.subscribers.remove(recorder)
            env = self.evidence.environment
            recorder.finish(done, environment=encode(env) if env.probed else None)
            self.history_error = recorder.error or ""
        if not self.history_error or self.store is None:
            return done
        where = f"{self.evidence_path}" if done.run_dir else "nowhere: the run folder could not be written either"
        note = (f"history: could not save {self.history_error} to {self.store.path}; this run is not (fully) in "
                f"the history. Everything measured is in {where}")
        return replace(done, history_error=self.history_error,
                       message="\n".join(m for m in (done.message, note) if m))

    def _start(self) -> Arms:
        cfg = self.config
        log_dir = self.run_dir / "logs"
        if self.arms_factory is not None:
            arms = self.arms_factory(cfg, log_dir)
        elif cfg.mode == "managed":
            arms = start_managed(cfg, log_dir, margin_gib=self.policy.arms.dual_margin_gib,
                                 draft_headroom_gib=self.policy.arms.draft_headroom_gib)
        else:
            arms = attach(cfg)
        self.arms = arms  # set before probing, so a failure below still stops the servers
        model = arms.model_path or cfg.model
        engine = _engine_info(arms)
        files = self._model_files(model if arms.model_path else None, engine)
        self._same_models(files)  # before anything is saved: a refused resume leaves the run as it was
        env = gather(model, binary=arms.binary, model_info=arms.model_info)
        env = replace(env, command_lines={k: tuple(v) for k, v in arms.command_lines().items()},
                      spec_args=arms.spec_args(), spec_params=arms.spec_params(), engine=engine,
                      draft=arms.draft, placement=dict(arms.placements), model_file=files[0], draft_file=files[1])
        self.evidence = replace(self.evidence, environment=env, arms=arms.plan, servers=tuple(arms.spans))
        self.save()
        return arms

    def _model_files(self, managed_model: Path | None,
                     engine: EngineInfo | None) -> tuple[ModelFile | None, ModelFile | None]:
        """The target and draft files as measured: managed, the files themselves; attached, what the server
        says it serves (the file too when that is a readable local path)."""
        try:
            name = engine.model if engine is not None and isinstance(engine.model, str) else None
            target = fingerprint(managed_model) if managed_model is not None else served(name)
            draft = fingerprint(self.config.draft_model) if managed_model and self.config.draft_model else None
        except OSError as exc:
            raise UserError(f"cannot read the model file: {describe(exc)}") from exc
        return target, draft

    def _same_models(self, files: tuple[ModelFile | None, ModelFile | None]) -> None:
        """A resumed run goes on only with the models it started with (UserError otherwise); a new run records
        its models in the history, where a later resume finds them."""
        if self.store is None:
            return
        if not self.resume_run_id:
            if not self.run_id:
                return
            try:
                self.store.record_environment(self.run_id, {"model_file": to_record(files[0]),
                                                            "draft_file": to_record(files[1])})
            except WRITE_ERRORS as exc:
                self.history_error = self.history_error or f"the run's model file ({describe(exc)})"
            return
        record = self.store.get_run(self.resume_run_id)
        stored = record.environment if record is not None else {}
        for key, now in zip(("model_file", "draft_file"), files, strict=True):
            then = from_record(stored.get(key))
            if key == "model_file" and (then is None or now is None):
                raise UserError(text(self.lang, "resume.no_model", run_id=self.resume_run_id),
                                hint=text(self.lang, "resume.no_model_hint"))
            if (then is None and now is None) or (then is not None and now is not None and same_model(then, now)):
                continue
            shown = now or then
            raise UserError(text(self.lang, "resume.model_changed", run_id=self.resume_run_id,
                                 path=shown.path if shown else "?", now=model_describe(now) if now else "none",
                                 then=model_describe(then) if then else "none"),
                            hint=text(self.lang, "resume.model_changed_hint"))

    def _plan(self, arms: Arms) -> WorkloadPlan:
        # Both arms load the same model, so either one's chat template renders the prompts: the one running.
        arm = next((a for a in (arms.off, arms.on) if a is not None and a.resident), None)
        formatter = getattr(arm.adapter, "apply_template", None) if arm else None
        plan = plan_workload(self.config, formatter)
        self.evidence = replace(self.evidence, workload=WorkloadSummary(
            source=plan.source, baseline=tuple(p.id for p in plan.baseline),
            acceptance=tuple(p.id for p in plan.acceptance), ab=tuple(p.id for p in plan.ab),
            canary=plan.canary.id, categories=tuple(sorted({p.category for p in plan.acceptance})),
            mix_requested=dict(plan.mix.requested) if plan.mix else {},
            mix_realised=dict(plan.mix.realised) if plan.mix else {}, mix_short=plan.mix.short if plan.mix else ()),
            prompts={p.id: p.text for p in (*plan.acceptance, *plan.ab)} if self.config.keep_prompts else {})
        return plan

    def _prompts_fit(self, arms: Arms, plan: WorkloadPlan) -> None:
        """UserError when a prompt cannot fit a slot's context beside the answer, by the engine's own tokenizer
        (advisor/run/fits.py); engines that do not say their context or cannot tokenize are not checked."""
        arm = next((a for a in (arms.off, arms.on) if a is not None and a.resident), None)
        tokenize = getattr(arm.adapter, "tokenize", None) if arm else None
        if arm is None or tokenize is None:
            return
        try:
            n_ctx = arm.adapter.info().context_size
            if not isinstance(n_ctx, int) or n_ctx < 1:
                return
            prompts = (*plan.warmup, *plan.baseline, *plan.acceptance, *plan.ab, plan.canary)
            answer = self.config.budget.max_tokens
            over = too_long((p.text for p in prompts), n_ctx, answer, lambda t: len(tokenize(t)))
        except EngineError as exc:
            log.info("prompt lengths not checked: %s", exc)
            return
        if over is not None:
            raise UserError(text(self.lang, "guard.prompts_too_long", count=over.count, tokens=over.longest_tokens,
                                 n_ctx=n_ctx, room=over.room, answer=answer),
                            hint=text(self.lang, "guard.prompts_too_long_hint"))

    def _planned(self, arms: Arms, plan: WorkloadPlan, *, replanned: bool = False,
                 verify: VerifyEvidence | None = None, loss: LossPrior = NO_LOSS) -> RunPlanned:
        """The plan for the ETA: units per step, the model loads managed arms will cause, one load's seconds
        (not again when `replanned`: the clock has counted the loads so far), the tuner's synthetic points at
        `verify`'s curve once it is measured, the A/B's pairs with those its loops will lose (`loss`, from the
        replies measured so far); from here on every restart is sent as it happens."""
        managed = _managed(arms)
        tune = _tune_plan(arms, self.config, plan, verify)
        units = planned_units(self.config, plan, tune, loss)
        work = planned_work(self.config, plan, tune, wave_exponent=self.policy.budget.batch_wave_exponent,
                            loss=loss)
        if not managed:
            return RunPlanned(units, work=work)
        arms.listener = lambda r: self.emit(ServerRestarted(r.before, r.seconds))
        loads = [s.load_s for s in arms.spans]
        restarts = planned_restarts(self.config, plan, single=arms.single,
                                    block_pairs=self.policy.arms.single_block_pairs, tune=tune, loss=loss)
        load_s = None if replanned or not loads else sum(loads) / len(loads)
        return RunPlanned(units, restarts, load_s, work)

    def _plan_time(self, ctx: StepContext, request_s: float | None = None) -> None:
        """Each later step's seconds at the pace the baseline measured (advisor/run/budget.py): `request_s` from
        its first round, else its evidence at its end; a full check's steps sized to fit its time budget, the
        clock told the new plan. Once per check; nothing changes when the baseline timed nothing."""
        if self.evidence.time_plan is not None:
            return
        baseline = ctx.prior.get("baseline")
        pace = pace_from_baseline(baseline if isinstance(baseline, BaselineEvidence) else None,
                                  [s.load_s for s in ctx.arms.spans if s.load_s], request_s)
        if pace is None:
            return
        arms = ctx.arms
        tune_for = functools.partial(_tune_plan, arms)
        block = self.policy.arms.single_block_pairs
        if not sizable(self.config):
            time_plan = plan_only(self.config, ctx.workload, self.policy.budget, pace, tune_for,
                                  single=arms.single, block_pairs=block)
            self.evidence = replace(self.evidence, time_plan=time_plan)
            return
        sized = size_check(self.config, ctx.workload, self.policy.budget, pace, tune_for,
                           single=arms.single, block_pairs=block)
        self.config = ctx.config = sized.config
        ctx.workload = sized.plan
        workload = self.evidence.workload
        if workload is not None:
            workload = replace(workload, acceptance=tuple(p.id for p in sized.plan.acceptance))
        self.evidence = replace(self.evidence, config=ConfigRecord.of(sized.config), workload=workload,
                                time_plan=sized.time_plan)
        self.emit(self._planned(arms, sized.plan, replanned=True))
        self.emit(CheckSized(sized.time_plan, policy_for(self.policy.ab, sized.config.ab_pair_limit).looks))

    def _resize_tuner(self, ctx: StepContext, verify: VerifyEvidence) -> None:
        """A check sized to its budget re-sizes the tuner at the verify curve's prices
        (advisor/run/budget.py `resize_tuner`); a check measured at its own sizes keeps them."""
        time_plan = self.evidence.time_plan
        if time_plan is None or time_plan.target_s is None:
            return
        arms = ctx.arms
        sized = resize_tuner(self.config, ctx.workload, self.policy.budget, time_plan,
                             functools.partial(_tune_plan, arms, verify=verify),
                             single=arms.single, block_pairs=self.policy.arms.single_block_pairs)
        self.config = ctx.config = sized.config
        self.evidence = replace(self.evidence, config=ConfigRecord.of(sized.config), time_plan=sized.time_plan)

    def _run_steps(self, arms: Arms, plan: WorkloadPlan, rules: RuleSet) -> None:
        with GpuSampler() as sampler:
            ctx = StepContext(config=self.config, arms=arms, environment=self.evidence.environment,
                              workload=plan, policy=rules.policy, cancel=self.cancel_flag, sampler=sampler,
                              unmeasured_on=arms.on.generation if arms.on is not None and arms.on.restartable else None)
            try:
                self._steps_loop(ctx)
            finally:
                self._record_servers(ctx.arms)
        self.evidence = replace(self.evidence, telemetry=sampler.summary())

    def _steps_loop(self, ctx: StepContext) -> None:
        steps: Sequence[Step] = steps_for(self.config.steps)
        for index, step in enumerate(steps, start=1):
            if self.cancel_flag.is_set():
                break
            self.emit(StepStarted(step.id, step.title, index, len(steps)))
            if self.store is not None and self.resume_run_id and self.run_id:
                # Units measured before the restart are reused as they were; only whole units exist.
                ctx.resume_units = self.store.completed_units(self.run_id, step.id)
            done = self._run_one(step, ctx)
            if (dead := dead_arm_reason(ctx.arms, step.id, step_failed=done.status == "failed")) is not None:
                # A step whose server died is never "done", whatever it measured before: the failure is its reason.
                done = with_failure_reason(done, dead)
                self.failure = dead
            self.emit(done)
            if done.evidence is not None:
                ctx.prior[step.id] = done.evidence
            record = StepRecord(status=done.status, reason=as_message(done.reason) if done.reason else None,
                                elapsed_s=done.elapsed_s,
                                warnings=tuple(StepWarning(w.code, w.message) for w in done.warnings),
                                evidence=done.evidence)
            self.evidence = replace(self.evidence, steps={**self.evidence.steps, step.id: record})
            if step.id == "baseline" and done.status == "done":
                self._plan_time(ctx)
            if step.id == "verify" and isinstance(done.evidence, VerifyEvidence) and "tune" in self.config.steps:
                # the tuner's synthetic points cost what the verify curve says: sized again, the clock told (with
                # the A/B's pairs that the loops seen so far will lose; without a tuner the A/B tells it itself)
                self._resize_tuner(ctx, done.evidence)
                self.emit(self._planned(ctx.arms, ctx.workload, replanned=True, verify=done.evidence,
                                        loss=loss_prior(ctx)))
            self._record_servers(ctx.arms)
            self.save()
            if self.failure is not None:
                break  # timings after a crash would measure a restarted, cold engine against a warm one
            if ctx.halt:
                self.halted = ctx.halt
                break

    def _nothing_measured(self) -> Message | None:
        """Why the run is not complete when no measuring step succeeded and at least one failed (None otherwise):
        a verdict from nothing measured must never read as a finished check (exit 0)."""
        measured = {name: rec for name, rec in self.evidence.steps.items() if name != "preflight"}
        failed = [self._step_failure(name, rec.reason) for name, rec in measured.items() if rec.status == "failed"]
        if not failed or any(rec.status == "done" for rec in measured.values()):
            return None
        return msg("guard.no_step", failed=joined(failed))

    @staticmethod
    def _step_failure(name: str, why: Message | None) -> Message:
        """`name: reason` of a failed step, said in every language."""
        why = why or msg("fail.unnamed")
        key = f"fail.step.{name}"
        return msg(key, why=why) if key in TABLES["en"] else Message.plain(f"{name}: {render(why, 'en')}")

    def _record_servers(self, arms: Arms) -> None:
        """Every restart and every server's start, load and stop so far, into the evidence."""
        environment = replace(self.evidence.environment, placement=dict(arms.placements))
        self.evidence = replace(self.evidence, restarts=tuple(arms.restarts), servers=tuple(arms.spans),
                                environment=environment, cluster=arms.cluster() if arms.cluster else None)

    def _run_one(self, step: Step, ctx: StepContext) -> StepDone:
        t0 = time.monotonic()
        gen = step.run(ctx)
        baseline = ctx.prior.get("baseline")
        watch = ContentionWatch(ctx.policy.contention, getattr(baseline, "decode_tok_s", None))
        plan = self.evidence.time_plan
        overrun = OverrunWatch(step.id, plan.steps.get(step.id) if plan is not None else None, ctx.policy.budget)
        pace = BaselinePace(len(ctx.workload.baseline)) if step.id == "baseline" else None
        try:
            for event in gen:
                if isinstance(event, StepDone):
                    # a busy machine or a step far past its plan, noticed mid-step, is part of the step's
                    # evidence, beside its own warnings
                    late = overrun.warned or overrun.observe(event)
                    noticed = tuple(w for w in (watch.warned, late) if w is not None)
                    return replace(event, warnings=(*event.warnings, *noticed)) if noticed else event
                for warning in (watch.observe(event), overrun.observe(event)):
                    if warning is not None:
                        self.emit(warning)
                # Steps check the cancel flag at each unit and end `aborted` with what they measured, so the
                # generator is drained rather than closed: closing would lose the partial evidence.
                self.emit(event)
                if pace is not None and (request_s := pace.observe(event)) is not None:
                    self._plan_time(ctx, request_s)  # after the unit that completed the round
        except EngineError as exc:
            done = StepDone(step.id, "failed", reason=msg("fail.engine_error", error=str(exc)),
                            elapsed_s=time.monotonic() - t0)
        else:
            done = StepDone(step.id, "failed", reason=msg("fail.no_result"), elapsed_s=time.monotonic() - t0)
        return done

    def _finish(self, status: SessionStatus, message: str) -> SessionDone:
        if self.arms is not None:  # nothing measures after this: stop the servers so their spans close
            self.arms.stop()
            self._record_servers(self.arms)
        self.evidence = replace(self.evidence, status=status, message=message)
        verdict: Verdict | None = None
        facts: Mapping[str, object] = {}
        if self.evidence.steps and self.rules is not None:
            self.evidence = replace(self.evidence, tuner=tuner_summary(self.evidence))
            try:
                verdict, facts, reconciliation = decide_evidence(self.evidence, self.rules)
            except UserError as exc:  # measurements the rules refuse: the run fails and its evidence is saved
                status, verdict = "failed", None
                message = "\n".join(m for m in (message, f"no verdict: {_message(exc)}") if m)
                self.evidence = replace(self.evidence, status=status, message=message)
            else:
                if self.failure is not None:  # the verdict's reasons start with why the run is not whole, in
                    # both languages, so a Chinese report of a failed run reads in Chinese
                    verdict = verdict.with_reason(render(self.failure, "en"), render(self.failure, "zh"))
                self.evidence = replace(self.evidence, reconciliation=reconciliation)
        try:
            if verdict is not None:
                write_atomic(self.run_dir / "verdict.json", json.dumps(encode(saved_verdict(verdict, facts)), indent=1))
            if self.evidence.environment.probed:  # nothing started (bad URL, no engine): no empty run folder
                self.save()
        except OSError as exc:
            status = "failed"
            saved = " (the last complete save is there)" if self.evidence_path.exists() else ""
            note = f"could not write the run folder {self.run_dir}{saved}: {describe(exc)}"
            if f"could not write the run folder {self.run_dir}" not in message:
                message = "\n".join(m for m in (message, note) if m)
        run_dir = str(self.run_dir) if self.evidence_path.exists() else ""
        return SessionDone(status=status, run_dir=run_dir, verdict=verdict, facts=facts, message=message)


def _message(exc: UserError) -> str:
    return f"{exc}" + (f"\n{exc.hint}" if exc.hint else "")


def _tune_plan(arms: Arms, config: CheckConfig, plan: WorkloadPlan,
               verify: VerifyEvidence | None = None) -> TunePlan:
    """The tuner's work for `config` on these arms (advisor/steps/tune_plan.py), its synthetic points priced by
    `verify`'s curve once that is measured."""
    return plan_tune(config, plan, arms.dialect, managed=_managed(arms), k_max=arms.draft_cap(), verify=verify)


def _managed(arms: Arms) -> bool:
    """Whether this check started the servers itself (so it can restart them)."""
    return any(a is not None and a.managed for a in (arms.off, arms.on))


def _engine_info(arms: Arms) -> EngineInfo | None:
    arm = arms.on or arms.off
    if arm is None:
        return None
    try:
        return arm.adapter.info()
    except EngineError as exc:
        raise UserError(f"the engine stopped answering: {exc}") from exc
