"""Ollama adapter: identity (`/api/version`, `/api/ps`, `/api/show`) and `/api/generate` timings.

Formats from engine-facts.md §4 (Ollama HEAD 2026-08-21); tested against a contract server replaying
them, not a running Ollama. Ollama runs llama-server as a child but drops its draft counters, so
acceptance is Unavailable here; `find_child_llama_server()` finds that child so the llama.cpp adapter
can read the counters directly.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import httpx

from probes.base import Unavailable
from probes.engines.base import CompletionResult, EngineError, EngineInfo, EngineKind, SpecCounters, SpecState
from probes.engines.http import (
    HttpAdapter,
    get_json,
    integer,
    obj,
    probe_json,
    request_json,
    stream_ndjson,
    text,
)

_DROPPED = ("Ollama's API drops llama-server's draft_n/draft_n_accepted; point the llama.cpp adapter at "
            "its child llama-server (find_child_llama_server) to measure acceptance")


def _port_arg(args: list[str]) -> int | None:
    """The value of `--port N` or `--port=N`."""
    for i, arg in enumerate(args):
        value = args[i + 1] if arg == "--port" and i + 1 < len(args) else (
            arg.removeprefix("--port=") if arg.startswith("--port=") else "")
        if value.isdigit():
            return int(value)
    return None


def find_child_llama_server(proc_root: str = "/proc") -> list[str]:
    """URLs (`http://127.0.0.1:<port>`) of llama-server processes whose parent is Ollama (Linux /proc)."""
    urls: set[str] = set()
    root = Path(proc_root)
    if not root.is_dir():
        return []
    for entry in root.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # gone, or another user's process we may not read
        if not argv or "llama-server" not in os.path.basename(argv[0].decode(errors="replace")):
            continue
        ppid = stat.rsplit(")", 1)[-1].split()[1:2]  # fields after "(comm)": state, ppid, …
        try:
            parent = (root / ppid[0] / "comm").read_text().strip() if ppid else ""
        except OSError:
            parent = ""
        if "ollama" not in parent.lower():
            continue
        port = _port_arg([a.decode(errors="replace") for a in argv])
        if port is not None:
            urls.add(f"http://127.0.0.1:{port}")  # Ollama binds its child to loopback
    return sorted(urls)


def _spec_from_show(show: dict[str, object]) -> SpecState:
    """Speculation as Ollama configures it: a Modelfile DRAFT, or MTP tensors plus draft_num_predict."""
    modelfile = text(show, "modelfile") or ""
    params = text(show, "parameters") or ""
    draft = re.search(r"^DRAFT\s+(\S+)", modelfile, re.MULTILINE | re.IGNORECASE)
    n = re.search(r"^draft_num_predict\s+(\d+)", params, re.MULTILINE)
    n_predict = int(n.group(1)) if n else None
    info = obj(show, "model_info") or {}
    mtp = any(k.endswith(".nextn_predict_layers") and isinstance(v, int) and v > 0 for k, v in info.items())
    src = "/api/show modelfile/parameters/model_info"
    if n_predict == 0:
        return SpecState(False, None, 0, src, "draft_num_predict 0 disables speculation")
    if draft:
        return SpecState(True, "draft", n_predict or 4, src, f"DRAFT {draft.group(1)} (default draft length 4)")
    if mtp and n_predict:
        return SpecState(True, "mtp", n_predict, src, "embedded MTP tensors with draft_num_predict")
    if mtp:
        return SpecState(False, "mtp", None, src, "MTP tensors present but draft_num_predict is not set")
    return SpecState(False, None, None, src, "no DRAFT in the Modelfile and no MTP tensors")


class OllamaAdapter(HttpAdapter):
    """A running `ollama serve`."""

    kind: EngineKind = "ollama"

    def __init__(self, base_url: str, *, api_key: str | None = None, timeout_s: float = 60.0,
                 client: httpx.Client | None = None, model: str | None = None) -> None:
        super().__init__(base_url, api_key=api_key, timeout_s=timeout_s, client=client)
        self.model = model

    @classmethod
    def detect(cls, client: httpx.Client, base_url: str) -> bool:
        """Ollama answers `GET /api/version` with {"version"} and `GET /api/ps` with {"models"}."""
        base = base_url.rstrip("/")
        version = probe_json(client, f"{base}/api/version")
        if version is None or text(version, "version") is None:
            return False
        ps = probe_json(client, f"{base}/api/ps")
        return ps is not None and isinstance(ps.get("models"), list)

    def _loaded(self) -> dict[str, object] | None:
        ps = get_json(self._client, self.url("/api/ps"))
        models = ps.get("models") if isinstance(ps, dict) else None
        loaded = [m for m in models if isinstance(m, dict)] if isinstance(models, list) else []
        if self.model:
            fallback: dict[str, object] = {"name": self.model}  # not loaded yet: Ollama loads on demand
            return next((m for m in loaded if self.model in (m.get("name"), m.get("model"))), fallback)
        return loaded[0] if loaded else None

    def info(self) -> EngineInfo:
        """Version, the loaded model, context length and how speculation is configured for it."""
        version = text(get_json(self._client, self.url("/api/version")), "version")
        card = self._loaded()
        name = text(card, "name") or text(card, "model")
        spec: SpecState | Unavailable = Unavailable("not-found", "no model loaded (/api/ps is empty)")
        extra: dict[str, object] = {k: card[k] for k in ("size", "size_vram", "expires_at") if card and k in card}
        extra["child_llama_servers"] = find_child_llama_server()
        if name:
            try:
                show = request_json(self._client, "POST", self.url("/api/show"), {"model": name})
                spec = _spec_from_show(show) if isinstance(show, dict) else Unavailable("bad-response", "/api/show")
                extra["details"] = obj(show, "details") or {}
            except EngineError as exc:
                spec = Unavailable("error", str(exc))
        ctx = integer(card, "context_length")
        return EngineInfo(
            kind=self.kind, base_url=self.base_url,
            version=version or Unavailable("bad-response", "/api/version has no 'version'"),
            model=name or Unavailable("not-found", "no model loaded (/api/ps is empty)"),
            context_size=ctx if ctx is not None else Unavailable("not-found", "/api/ps has no context_length"),
            spec=spec,
            acceptance_rate=Unavailable("not-supported", _DROPPED),
            mean_acceptance_length=Unavailable("not-supported", _DROPPED),
            extra=extra,
        )

    def spec_counters(self) -> SpecCounters | Unavailable:
        return Unavailable("not-supported", _DROPPED + " (Ollama also starts it without --metrics)")

    def complete(
        self, prompt: str | list[int], *, max_tokens: int, temperature: float = 0.0, seed: int = 0,
        slot: int | None = None, cache_prompt: bool = True,
    ) -> CompletionResult:
        """Streamed `/api/generate` with `raw` (no chat template); times from the final object (ns → ms)."""
        if isinstance(prompt, list):
            raise EngineError("Ollama's /api/generate takes text prompts, not token ids", kind="unsupported")
        name = text(self._loaded(), "name") or self.model
        if name is None:
            raise EngineError(f"no model is loaded in Ollama at {self.base_url}", kind="bad-response")
        body = {"model": name, "prompt": prompt, "raw": True, "stream": True,
                "options": {"num_predict": max_tokens, "temperature": temperature, "seed": seed}}
        parts: list[str] = []
        ttft: float | None = None
        final: dict[str, object] | None = None
        t0 = time.monotonic()
        for t_s, event in stream_ndjson(self._client, self.url("/api/generate"), body):
            if err := text(event, "error"):
                raise EngineError(f"Ollama reported an error mid-stream: {err}", kind="stream-broken")
            piece = text(event, "response")
            if piece:
                parts.append(piece)
                ttft = t_s if ttft is None else ttft
            if event.get("done") is True:
                final = event
        total_ms = 1000.0 * (time.monotonic() - t0)
        eval_count = integer(final, "eval_count")
        if final is None or eval_count is None:
            raise EngineError(f"{self.base_url}/api/generate ended without a final object with eval_count",
                              kind="bad-response")
        raw = {f"{k}_ms": v / 1e6 for k in ("total_duration", "load_duration", "prompt_eval_duration", "eval_duration")
               if (v := integer(final, k)) is not None}
        prompt_eval = integer(final, "prompt_eval_count")
        if prompt_eval is not None:
            raw["prompt_eval_count_incl_cached"] = float(prompt_eval)
        return CompletionResult(
            text="".join(parts),
            prompt_tokens=None,  # Ollama's prompt_eval_count includes cached tokens; kept in raw_timings
            cached_tokens=None, completion_tokens=eval_count,
            prompt_ms=raw.get("prompt_eval_duration_ms"), decode_ms=raw.get("eval_duration_ms"),
            draft_tokens=None, draft_accepted=None,
            ttft_ms=1000.0 * ttft if ttft is not None else total_ms, total_ms=total_ms,
            stop_reason=text(final, "done_reason"), raw_timings=raw,
        )
