"""The README's examples run: every `llm-arithmetic` command of its console block (the one that
reads the network excepted) exits 0, and its Python block runs, on a vendored config.json."""
from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf8")
CONFIG = REPO / "lib" / "llm_arithmetic" / "catalog" / "data" / "models" / "qwen3-8b" / "config.json"


def blocks(lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", README, re.M | re.S)


def commands() -> list[str]:
    text = "\n".join(blocks("console")).replace("\\\n", " ")
    found = [line[2:].split("#")[0].strip() for line in text.splitlines() if line.startswith("$ ")]
    return [c for c in found if c.startswith("llm-arithmetic ")]


def test_the_readme_has_examples():
    assert len(commands()) >= 8 and blocks("python")


@pytest.mark.parametrize("command", commands())
def test_console_example_runs(command):
    argv = [str(CONFIG) if a == "path/to/config.json" else a for a in shlex.split(command)[1:]]
    r = subprocess.run([sys.executable, "-m", "llm_arithmetic", *argv], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, f"README: `{command}` failed: {r.stderr}"
    assert r.stdout.strip()


def test_python_example_runs(capsys, monkeypatch):
    monkeypatch.chdir(CONFIG.parent)  # the example reads "config.json"
    for block in blocks("python"):
        exec(compile(block, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "\\kappa" in out


def test_explain_example_output():
    """The README's `--explain` example prints what the README shows under it (after the
    table, which its `...` stands for)."""
    block = next(b for b in blocks("console") if "--explain" in b)
    command, shown = block.split("\n", 1)
    shown = shown.split("...\n", 1)[1].rstrip("\n")
    r = run_cli(*shlex.split(command[2:])[1:])
    assert r.returncode == 0, r.stderr
    assert r.stdout.rstrip("\n").endswith("\n" + shown)


def run_cli(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "llm_arithmetic", *argv], capture_output=True,
                          text=True, timeout=120)


def test_runtime_names_as_people_type_them():
    """What the README says of `--runtime`: case and punctuation do not matter (`vllm` is
    vLLM), and an unknown name exits with status 2 listing the known ones."""
    for typed in ("vllm", "VLLM", "v-LLM"):
        r = run_cli("describe", "llama-3.1-8b", "--hardware", "h100-sxm", "--runtime", typed)
        assert r.returncode == 0 and "forecast (with vLLM; 80% interval)" in r.stdout, typed
    r = run_cli("describe", "llama-3.1-8b", "--runtime", "no-such-runtime")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "known:" in r.stderr and "vLLM" in r.stderr and "llama.cpp" in r.stderr


def test_forecast_values_in_the_bounds_column():
    """The forecast rows under the bound's table put their values in the table's column, so a
    reader compares the bound and the forecast down one column."""
    r = run_cli("describe", "llama-3.1-8b", "--hardware", "rtx-4090", "--runtime", "llama.cpp")
    lines = r.stdout.splitlines()
    column = lines[0].index("llama-3.1-8b")
    bound = next(line for line in lines if line.startswith("tokens/s per sequence"))
    forecast = next(line for line in lines if line.startswith("  tokens/s per sequence"))
    assert bound[column - 2:column] == "  " and bound[column] != " "
    assert forecast[column - 2:column] == "  " and forecast[column] != " "


def test_start_page_commands_run():
    """The start page's inline `llm-arithmetic ...` commands run as printed (a command may wrap
    over a line of the Markdown source)."""
    text = (REPO / "book" / "intro.md").read_text(encoding="utf8")
    found = [" ".join(c.split()) for c in re.findall(r"`(llm-arithmetic [^`]+)`", text)]
    assert any("--runtime" in c for c in found)
    for command in found:
        if command.split()[1:2] != ["describe"] or len(command.split()) < 3:
            continue  # the bare name of the command
        r = run_cli(*shlex.split(command)[1:])
        assert r.returncode == 0 and "forecast (with" in r.stdout, (command, r.stderr)
