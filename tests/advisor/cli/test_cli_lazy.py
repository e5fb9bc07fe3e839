"""The CLI imports a command's module only when that command runs, and `decide --facts` stays light.

These check which modules a fresh interpreter has loaded (a fact, not a timing); the seconds are measured in
bench/cli_time.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from advisor.cli import main as cli
from tests.paths import FIXTURES

FACTS = FIXTURES / "facts" / "dense_enable.json"
# What `check` needs and `decide` must not pay for (each costs tens of milliseconds to import).
HEAVY = ("numpy", "httpx", "gguf", "yaml", "psutil", "PySide6", "advisor.run.session", "advisor.evidence.schema")


def _loaded_after(code: str) -> list[str]:
    probe = f"import sys, json\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    return list(json.loads(out.stdout.strip().splitlines()[-1]))


def test_every_command_module_is_in_the_table() -> None:
    folder = Path(cli.__file__).parent
    with_run = {p.stem for p in folder.glob("*.py") if "\ndef run(" in p.read_text(encoding="utf-8")}
    assert {c.module.rsplit(".", 1)[1] for c in cli.COMMANDS.values()} == with_run


def test_top_level_help_imports_no_command() -> None:
    loaded = _loaded_after("from advisor.cli.main import build_parser\nbuild_parser(['--help'])")
    commands = {c.module for c in cli.COMMANDS.values()}
    assert not commands & set(loaded)


def test_a_command_imports_only_its_own_module() -> None:
    loaded = set(_loaded_after("from advisor.cli.main import build_parser\nbuild_parser(['-v', 'rules'])"))
    assert {c.module for c in cli.COMMANDS.values()} & loaded == {"advisor.cli.rules"}


def test_decide_from_facts_leaves_the_heavy_modules_out() -> None:
    loaded = _loaded_after(f"from advisor.cli.main import main\nmain(['decide', '--facts', {str(FACTS)!r}])")
    assert [m for m in loaded if m.split(".")[0] in HEAVY or m in HEAVY] == []


@pytest.mark.parametrize("argv", [["--help"], ["decide", "--help"], ["check", "--help"]])
def test_help_still_lists_and_describes(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        cli.main(argv)
    assert stop.value.code == 0
    out = capsys.readouterr().out
    if argv == ["--help"]:
        assert all(name in out for name in cli.COMMANDS)
    else:
        assert cli.COMMANDS[argv[0]].help.split(";")[0] in " ".join(out.split())
        assert "--json" in out if argv[0] == "decide" else "--quick" in out


def test_decide_result_unchanged_by_lazy_loading(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["decide", "--facts", str(FACTS), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] in ("ENABLE", "SKIP", "INCONCLUSIVE")


def test_an_unknown_command_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        cli.main(["nonsense"])
    assert stop.value.code == 2 and "invalid choice" in capsys.readouterr().err


def test_probe_without_engine_leaves_the_http_client_and_numpy_out() -> None:
    code = ("import contextlib, io\nfrom advisor.cli.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n    assert main(['probe', '--no-scan', '--json']) == 0")
    heavy = set(HEAVY) - {"psutil"}  # the host probe reads cores and RAM through it
    assert [m for m in _loaded_after(code) if m.split(".")[0] in heavy or m in heavy] == []


def test_listening_tells_an_open_port_from_a_closed_one() -> None:
    import socket

    from probes.engines.listening import listening, listening_ports

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        open_port = server.getsockname()[1]
        with socket.socket() as spare:  # bound, never listening: a connect is refused
            spare.bind(("127.0.0.1", 0))
            closed_port = spare.getsockname()[1]
            assert listening(open_port) and not listening(closed_port)
            assert listening_ports([closed_port, open_port]) == [open_port]
