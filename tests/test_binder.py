"""The Binder path: what repo2docker reads, and a simulation of what it builds, which is also
where `make test` runs every notebook under nbval.

repo2docker (mybinder.org) reads the repository root when there is no binder/ or .binder/
folder: `runtime.txt` (the Python version), `requirements.txt` (pip install -r) and, since the
root has a pyproject.toml with [project] and [build-system], `pip install .` (non-editable).
Local references in requirements.txt (`-e .`, `-r`, `-c`, paths) turn off its cached fast path.

test_binder_environment_runs_every_notebook (slow) builds what Binder builds and runs the
notebooks there, once:

1. a new virtual environment made only from requirements.txt and the package: `pip install -r
   requirements.txt`, then `pip install .` from a copy of the repository (what a clone holds:
   tracked and untracked-but-not-ignored files, as repo2docker copies it into the image). The
   installer is uv (pinned in requirements.txt), which installs the same pinned wheels as pip in
   seconds from its cache; its `pip install` resolves dependencies as pip does, so the test then
   compares the installed set with requirements.txt: a package that is not pinned there (pip,
   setuptools and wheel aside, which `pip freeze` leaves out) is one that Binder would install
   unpinned, and fails the test;
2. the `python3` kernel that Jupyter starts in that environment (from the notebooks' folder,
   with no user-level kernelspecs or config) runs in the new environment and imports the
   installed package from its site-packages, not lib/;
3. every notebook under notebooks/ runs under nbval (strict, the sanitize file of pytest.ini) in
   that environment, on the notebooks' own `python3` kernelspec as Binder starts it, distributed
   over the cores by file (pytest-xdist, `--dist loadfile`: one kernel per notebook, its cells in
   order). A probe notebook added to the copy stores a memory address, so the run fails if the
   workers do not apply the sanitize file. This is the nbval run of `make test`: the outputs are
   compared where readers run them.
   Outside this test, `pytest notebooks/X.ipynb` runs nbval on one notebook in your own venv.

Skip it (and with it the notebooks) with `pytest -m "not slow"`.
"""
import configparser
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p.relative_to(REPO).as_posix() for p in (REPO / "notebooks").rglob("*.ipynb")
                   if ".ipynb_checkpoints" not in p.parts)


def test_binder_reads_the_root_files():
    for folder in ("binder", ".binder"):
        assert not (REPO / folder).exists(), (
            f"{folder}/ exists: repo2docker would read only it and ignore requirements.txt, "
            "runtime.txt and pyproject.toml at the root")
    for name in ("requirements.txt", "runtime.txt", "pyproject.toml"):
        assert (REPO / name).is_file(), f"{name} is missing at the repository root"
    for name in ("environment.yml", "Pipfile", "Dockerfile", "setup.py"):
        assert not (REPO / name).exists(), f"{name} would change what repo2docker builds"


def test_runtime_matches_this_python():
    runtime = (REPO / "runtime.txt").read_text(encoding="utf8").strip()
    assert re.fullmatch(r"python-3\.\d+", runtime), f"runtime.txt: {runtime!r} is not python-3.X"
    here = f"python-{sys.version_info.major}.{sys.version_info.minor}"
    assert runtime == here, (f"runtime.txt says {runtime} but the tests run on {here}: the "
                             "committed outputs are made with the CI Python")


def test_requirements_are_exact_pins_without_local_references():
    problems = []
    for n, line in enumerate((REPO / "requirements.txt").read_text(encoding="utf8").splitlines(), 1):
        line = line.split(" #")[0].strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("-") or line.startswith(".") or "file:" in line or "/" in line:
            problems.append(f"line {n}: {line!r} is a local reference or an option "
                            "(Binder installs the package from pyproject.toml by itself)")
        elif not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*(\[[\w,.-]+\])?==[\w.!+-]+", line):
            problems.append(f"line {n}: {line!r} is not an exact pin (name==version)")
    assert not problems, "requirements.txt:\n" + "\n".join(problems)


def test_pyproject_makes_repo2docker_install_the_package():
    data = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf8"))
    assert "build-system" in data and "project" in data, (
        "repo2docker runs `pip install .` only for a pyproject.toml with [project] and "
        "[build-system]")
    assert data["project"]["name"].replace("-", "_") == "llm_arithmetic"


def repository_copy(dest: Path) -> Path:
    """The files a clone would have (tracked and untracked-but-not-ignored), copied to dest."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=REPO,
                                check=True, capture_output=True).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError):
        listed = None
    if listed is None:  # not a git checkout: copy everything but build outputs
        shutil.copytree(REPO, dest, ignore=shutil.ignore_patterns(
            ".git", ".venv", "_build", "__pycache__", "*.egg-info", ".ipynb_checkpoints",
            ".pytest_cache", ".hypothesis", "build"))
        return dest
    for name in filter(None, listed):
        src = REPO / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    return dest


# Run by the new venv's Python: start the `python3` kernel as Jupyter does (by kernelspec name,
# from the notebooks' folder), and ask it where it runs and where the package comes from. Importing
# what every notebook imports also byte-compiles it once, before the parallel nbval kernels do.
PROBE = r"""
import json, sys
import nbformat
from nbclient import NotebookClient
nb = nbformat.v4.new_notebook()
nb.cells.append(nbformat.v4.new_code_cell(
    "import sys, llm_arithmetic, sympy, numpy, matplotlib.pyplot\n"
    "print(sys.prefix)\nprint(llm_arithmetic.__file__)"))
NotebookClient(nb, timeout=600, kernel_name="python3",
               resources={"metadata": {"path": sys.argv[1]}}).execute()
text = "".join(o.get("text", "") for o in nb.cells[0].outputs if o.output_type == "stream")
print(json.dumps(text.splitlines()))
"""

SANITIZE_PROBE = json.dumps({
    "cells": [{"cell_type": "code", "execution_count": 1, "id": "probe", "metadata": {},
               "source": ["class Probe:\n", "    pass\n", "\n", "Probe()"],
               "outputs": [{"output_type": "execute_result", "execution_count": 1, "metadata": {},
                            "data": {"text/plain": ["<__main__.Probe at 0x7f0000000000>"]}}]}],
    "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                "language": "python"}},
    "nbformat": 4, "nbformat_minor": 5})

# What `pip freeze` leaves out, so requirements.txt (a freeze) does not pin them either.
UNPINNED_BUILD_TOOLS = {"pip", "setuptools", "wheel", "distribute"}


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(text: str) -> dict[str, str]:
    """{canonical name: version} of the `name==version` lines of a requirements file or freeze."""
    out = {}
    for line in text.splitlines():
        line = line.split(" #")[0].strip()
        if line.startswith("#"):
            continue
        for sep in ("==", " @ "):  # `name @ file:///...`: a package installed from a folder
            if sep in line:
                name, version = line.split(sep, 1)
                out[canonical(name.split("[")[0].strip())] = version.strip()
                break
    return out


def nbval_options() -> list[str]:
    """pytest.ini's addopts for nbval, without --nbval-current-env: in the Binder environment
    the notebooks run on their own kernelspec (`python3`), as Binder starts them."""
    config = configparser.ConfigParser()
    config.read(REPO / "pytest.ini", encoding="utf8")
    options = shlex.split(config["pytest"].get("addopts", ""))
    return [o for o in options if o != "--nbval-current-env"]


@pytest.mark.slow
def test_binder_environment_runs_every_notebook(tmp_path):
    assert NOTEBOOKS, "no notebooks under notebooks/"
    repo = repository_copy(tmp_path / "repo")
    venv = tmp_path / "venv"
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "JUPYTER_PATH",
                        "JUPYTER_CONFIG_DIR", "PIP_REQUIRE_VIRTUALENV", "MPLBACKEND",
                        "PYTEST_ADDOPTS", "PYTEST_XDIST_AUTO_NUM_WORKERS",
                        # Binder's pip byte-compiles what it installs; here the venv's own
                        # processes write the bytecode of what they import (the probe first,
                        # then each kernel what is new). Without it every kernel would compile
                        # sympy, numpy and matplotlib again: the notebooks ran 3x slower.
                        "PYTHONDONTWRITEBYTECODE")}
    # No user-level kernelspecs or config: the `python3` kernel must be the venv's own.
    env["JUPYTER_DATA_DIR"] = str(tmp_path / "jupyter-data")
    env["JUPYTER_CONFIG_DIR"] = str(tmp_path / "jupyter-config")
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"

    def run(*cmd, cwd=repo, timeout=900, hint="", tail=6000):
        t0 = time.monotonic()
        r = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True,
                           text=True, timeout=timeout)
        print(f"{time.monotonic() - t0:6.1f} s  {' '.join(map(str, cmd))[:110]}")
        assert r.returncode == 0, (f"{' '.join(map(str, cmd))} failed ({r.returncode}):\n"
                                   f"{r.stdout[-tail:]}\n{r.stderr[-tail:]}\n{hint}")
        return r.stdout

    # 1. The environment. uv runs from this venv (python -m uv: the pinned binary); it installs
    # into the new venv (--python), from PyPI through its cache.
    base_python = getattr(sys, "_base_executable", sys.executable)
    run(base_python, "-m", "venv", "--without-pip", venv)
    py = venv / "bin" / "python"
    uv = [sys.executable, "-m", "uv", "--quiet"]
    run(*uv, "pip", "install", "--python", py, "-r", "requirements.txt")
    run(*uv, "pip", "install", "--python", py, ".")
    installed = pins(run(*uv, "pip", "freeze", "--python", py))
    pinned = pins((REPO / "requirements.txt").read_text(encoding="utf8"))
    assert installed.pop("llm-arithmetic", None), "the package llm_arithmetic was not installed"
    unpinned = {n: v for n, v in installed.items()
                if n not in UNPINNED_BUILD_TOOLS and pinned.get(n) != v}
    assert not unpinned, (
        "requirements.txt is not a complete freeze: Binder would install these unpinned "
        f"(or at another version): {unpinned}")
    assert set(pinned) <= set(installed), f"not installed: {set(pinned) - set(installed)}"

    # 2. The kernel: the new venv, and the installed package.
    prefix, package_file = json.loads(
        run(py, "-c", PROBE, repo / "notebooks", cwd=repo / "notebooks").strip().splitlines()[-1])
    assert Path(prefix).resolve() == venv.resolve(), (
        f"the python3 kernel ran in {prefix}, not in the new venv {venv}")
    assert package_file.startswith(str(venv)) and "site-packages" in package_file, (
        f"llm_arithmetic came from {package_file}, not from the package installed in the venv")

    # 3. Every notebook under nbval, in that environment, one kernel per notebook, by file. One
    # more notebook, in the copy only, stores a memory address that a fresh run cannot repeat:
    # it passes only if the workers apply pytest.ini's sanitize file.
    (repo / "notebooks" / "zz-sanitize-probe.ipynb").write_text(SANITIZE_PROBE, encoding="utf8")
    workers = max(2, min(os.cpu_count() or 1, 4))
    out = run(py, "-m", "pytest", "-o", "addopts=", *nbval_options(), "-p", "no:cacheprovider",
              "-n", workers, "--dist", "loadfile", "-q", "--durations=10", "notebooks",
              tail=12000, hint="a notebook's outputs differ from a fresh run in the Binder "
              "environment: run `make outputs` (or scripts/regenerate_outputs.sh) and read the diff")
    print(out[-3000:])
