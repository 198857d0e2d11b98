"""The Binder path: what repo2docker reads, and a simulation of what it builds.

repo2docker (mybinder.org) reads the repository root when there is no binder/ or .binder/
folder: `runtime.txt` (the Python version), `requirements.txt` (pip install -r) and, since the
root has a pyproject.toml with [project] and [build-system], `pip install .` (non-editable).
Local references in requirements.txt (`-e .`, `-r`, `-c`, paths) turn off its cached fast path.

test_binder_environment_runs_every_notebook (slow: a fresh virtual environment, then every
notebook) does what Binder does, offline except PyPI: a new venv made only from
requirements.txt and the package (`pip install -r requirements.txt`, then `pip install .` from a
copy of the repository, as repo2docker copies it into the image), then every notebook under
notebooks/ executed top to bottom in that venv, from its own folder, as a reader who clicks
"Run all" would. It checks that the kernel really is the new venv and imports the installed
package, not lib/. To keep it fast on 2 cores, the pinned wheels are downloaded four at a time
first and the two installs then resolve from them alone, byte-compilation is skipped, and the
notebooks run one per core. Skip it with `pytest -m "not slow"`.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p.relative_to(REPO).as_posix() for p in (REPO / "notebooks").rglob("*.ipynb")
                   if ".ipynb_checkpoints" not in p.parts)
PIP = ["--disable-pip-version-check", "-q", "--no-input"]


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


# Run by the new venv's Python: execute one notebook top to bottom in its own folder with the
# `python3` kernel, then ask that kernel where it runs and where the package comes from.
DRIVER = r"""
import json, sys
from pathlib import Path
import nbformat
from nbclient import NotebookClient
path = sys.argv[1]
nb = nbformat.read(path, as_version=4)
probe = "import sys, llm_arithmetic\nprint(sys.prefix)\nprint(llm_arithmetic.__file__)"
nb.cells.append(nbformat.v4.new_code_cell(probe))
NotebookClient(nb, timeout=600, kernel_name="python3",
               resources={"metadata": {"path": str(Path(path).parent)}}).execute()
# the kernel may send the two lines as two stream messages: join every stream output
text = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.get("output_type") == "stream")
print(json.dumps(text.splitlines()))
"""


@pytest.mark.slow
def test_binder_environment_runs_every_notebook(tmp_path):
    assert NOTEBOOKS, "no notebooks under notebooks/"
    repo = repository_copy(tmp_path / "repo")
    venv = tmp_path / "venv"
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "JUPYTER_PATH",
                        "JUPYTER_CONFIG_DIR", "PIP_REQUIRE_VIRTUALENV", "MPLBACKEND")}
    # No user-level kernelspecs or config: the `python3` kernel must be the venv's own.
    env["JUPYTER_DATA_DIR"] = str(tmp_path / "jupyter-data")
    env["JUPYTER_CONFIG_DIR"] = str(tmp_path / "jupyter-config")
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"

    def run(*cmd, cwd=repo, timeout=900, hint=""):
        t0 = time.monotonic()
        r = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True,
                           text=True, timeout=timeout)
        print(f"{time.monotonic() - t0:6.1f} s  {' '.join(map(str, cmd))[:110]}")
        assert r.returncode == 0, (f"{' '.join(map(str, cmd))} failed ({r.returncode}):\n"
                                   f"{r.stdout[-3000:]}\n{r.stderr[-6000:]}\n{hint}")
        return r.stdout

    base_python = getattr(sys, "_base_executable", sys.executable)
    run(base_python, "-m", "venv", "--without-pip", venv)
    py = venv / "bin" / "python"
    # This interpreter's pip installs into the new venv (--python): the same pip as `make venv`,
    # and no time spent bootstrapping one. Fetching is the slow part (CI: 2 cores, PyPI through
    # a proxy): download the pinned wheels in parallel, then install exactly as Binder does,
    # `pip install -r requirements.txt` then `pip install .`, resolving from those files only
    # (--no-index). requirements.txt is a complete freeze, so nothing else is needed but the
    # build tools that `pip freeze` leaves out (setuptools, wheel), fetched unpinned as Binder's
    # pip would.
    pip = [sys.executable, "-m", "pip"]
    wheels = tmp_path / "wheels"
    pins = [line.split(" #")[0].strip() for line in
            (REPO / "requirements.txt").read_text(encoding="utf8").splitlines()]
    pins = [p for p in pins if p and not p.startswith("#")]
    pins += [tool for tool in ("setuptools", "wheel") if not any(p.startswith(f"{tool}==")
                                                                 for p in pins)]
    chunks = [pins[i::4] for i in range(4)]
    with ThreadPoolExecutor(len(chunks)) as pool:
        list(pool.map(lambda chunk: run(*pip, "download", *PIP, "--no-deps", "-d", wheels, *chunk),
                      chunks))
    offline = ["--no-index", "--find-links", wheels]
    # --no-compile: byte-compiling the whole stack costs more than the few modules a notebook
    # imports; the installed set of packages is exactly what repo2docker installs.
    run(*pip, "--python", py, "install", *PIP, "--no-compile", *offline, "-r", "requirements.txt",
        hint="if pip found no distribution for a package, requirements.txt is not a complete "
             "freeze: Binder would install that package unpinned")
    run(*pip, "--python", py, "install", *PIP, "--no-compile", *offline, ".")

    # Byte-compile, once, what every kernel imports (the two first kernels would otherwise both
    # do it), and check that the package imports from the venv, outside the repository.
    run(py, "-c", "import llm_arithmetic, sympy, numpy, matplotlib.pyplot, IPython, ipykernel.kernelapp",
        cwd=tmp_path)

    def execute(nb: str):
        return nb, subprocess.run([str(py), "-c", DRIVER, str(repo / nb)],
                                  cwd=repo / Path(nb).parent, env=env, capture_output=True,
                                  text=True, timeout=900)

    workers = max(1, min(len(NOTEBOOKS), os.cpu_count() or 1, 4))
    t0 = time.monotonic()
    with ThreadPoolExecutor(workers) as pool:
        results = list(pool.map(execute, NOTEBOOKS))
    print(f"{time.monotonic() - t0:6.1f} s  {len(NOTEBOOKS)} notebooks executed, {workers} at a time")
    problems = []
    site = str(venv)
    for nb, r in results:
        if r.returncode != 0:
            error = re.sub(r"\x1b\[[0-9;]*m", "", r.stderr)  # the traceback's colours
            problems.append(f"{nb} failed in the Binder environment:\n{error[-4000:]}")
            continue
        prefix, package_file = json.loads(r.stdout.strip().splitlines()[-1])
        if Path(prefix).resolve() != venv.resolve():
            problems.append(f"{nb}: the kernel ran in {prefix}, not in the new venv {venv}")
        if not package_file.startswith(site) or "site-packages" not in package_file:
            problems.append(f"{nb}: llm_arithmetic came from {package_file}, not from the "
                            "package installed in the venv")
    assert not problems, "\n\n".join(problems)
