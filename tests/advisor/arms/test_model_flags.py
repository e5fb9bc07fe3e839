"""Options a model file needs (advisor/arms/model_flags.py): a built-in chat template for a file without one, and
--swa-full for a sliding-window model; the user's own choice wins. The real-engine test formats a chat with the
Gemma 3 file, which has no template: ChatML without the options, Gemma's turns with them."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from advisor.arms.model_flags import model_flags
from advisor.arms.server import ManagedServer, ServerConfig
from advisor.run.environment import read_model
from probes.engines.llamacpp.adapter import LlamaCppAdapter
from probes.model.info import ModelInfo


def _info(demo_model: Path, **fields: object) -> ModelInfo:
    info = read_model(demo_model)
    assert isinstance(info, ModelInfo)
    return dataclasses.replace(info, **fields)  # type: ignore[arg-type]


def test_a_file_with_its_own_template_and_no_window_gets_nothing(demo_model: Path) -> None:
    info = _info(demo_model)
    assert info.has_chat_template is True and info.sliding_window is None  # SmolLM2 carries its ChatML template
    flags = model_flags(info, ())
    assert flags.args == () and not flags.said


def test_gemma_without_a_template_gets_the_builtin_one_and_swa_full(demo_model: Path) -> None:
    info = _info(demo_model, architecture="gemma3", has_chat_template=False, sliding_window=512)
    flags = model_flags(info, ())
    assert flags.args == ("--no-jinja", "--chat-template", "gemma", "--swa-full")
    assert flags.template == "gemma" and flags.no_template and flags.swa_full and flags.said


def test_the_users_own_options_win(demo_model: Path) -> None:
    info = _info(demo_model, architecture="gemma3", has_chat_template=False, sliding_window=512)
    for own in (("--chat-template-file", "t.jinja"), ("--jinja",), ("--chat_template=chatml",)):
        flags = model_flags(info, own)
        assert flags.args == ("--swa-full",) and not flags.no_template, own
    assert model_flags(info, ("--swa-full",)).args == ("--no-jinja", "--chat-template", "gemma")


def test_an_unknown_family_is_said_not_guessed_and_an_old_build_is_not_given_flags_it_lacks(demo_model: Path) -> None:
    info = _info(demo_model, architecture="mystery", has_chat_template=False, sliding_window=4096)
    flags = model_flags(info, ())
    assert flags.template is None and flags.no_template and flags.args == ("--swa-full",)
    old = model_flags(_info(demo_model, architecture="gemma3", has_chat_template=False, sliding_window=512), (),
                      known=frozenset({"--chat-template"}))
    assert old.args == () and old.no_template and not old.swa_full


def test_gemma_is_formatted_as_gemma_only_with_the_options(llama_binary: Any, gemma_model: Path,
                                                           tmp_path: Path) -> None:
    info = read_model(gemma_model)
    assert isinstance(info, ModelInfo) and info.has_chat_template is False and info.sliding_window == 512
    flags = model_flags(info, ())
    chat = [{"role": "user", "content": "Name three colours."}]
    prompts = {}
    for name, extra in (("plain", ()), ("flags", flags.args)):
        config = ServerConfig(model=gemma_model, threads=2, label="off", extra_args=extra)
        with ManagedServer(llama_binary, config, tmp_path / name) as server:
            prompts[name] = LlamaCppAdapter(server.base_url).apply_template(chat)
    assert prompts["plain"].startswith("<|im_start|>user")  # the ChatML fallback
    assert prompts["flags"].startswith("<start_of_turn>user\nName three colours.<end_of_turn>")
