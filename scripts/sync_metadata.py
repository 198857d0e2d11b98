"""Write what derives from the two settings of the project into the files that repeat it.

The two settings:
- the repository's address: `repository.url` (and `repository.branch`) in `_config.yml`; the
  book's launch buttons and repository button read it there at build time;
- the version: `__version__` in `lib/llm_arithmetic/__init__.py`; the wheel reads it there at
  build time (pyproject.toml, dynamic version) and the start page at book build time
  (tools.sphinx_ext); its release date is its heading in CHANGELOG.md.

What this script writes (files that cannot read a setting themselves):
- the first code cell of every notebook (the Colab cell): `pip install llm-arithmetic==VERSION`,
  the repository's git URL as the fallback;
- `[project.urls]` in pyproject.toml: the book on GitHub Pages, the source, issues, changelog;
- the badges of README.md (between the `badges` comments): CI, the book, Binder, PyPI;
- the list of chapters of README.md (between the `chapters` comments), from `_toc.yml` and each
  page's title, so that it cannot drift from the book's table of contents;
- `version`, `date-released`, `repository-code` and `url` in CITATION.cff;
- the `url` of the BibTeX entry under "How to cite" in book/intro.md;
- the link references at the end of CHANGELOG.md (one per version heading).

Usage: `python scripts/sync_metadata.py` (or `make metadata`) rewrites those files;
`--check` only lists the files that differ and exits 1 if any does (tests/test_release.py).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
PACKAGE = "llm_arithmetic"          # the import name
DISTRIBUTION = "llm-arithmetic"     # the name on PyPI (pyproject.toml `project.name`)
INIT = REPO / "lib" / PACKAGE / "__init__.py"
VERSION_RE = re.compile(r'^__version__\s*=\s*["\']([^"\']+)["\']\s*$', re.M)
RELEASE_RE = re.compile(r"^## \[(?P<version>[^\]]+)\](?: - (?P<date>\d{4}-\d{2}-\d{2}))?\s*$", re.M)
GITHUB_RE = re.compile(r"^https://github\.com/(?P<owner>[A-Za-z0-9-]+)/(?P<name>[A-Za-z0-9._-]+?)(?:\.git)?/?$")
BADGES_START = "<!-- badges: generated from repository.url in _config.yml by scripts/sync_metadata.py -->"
BADGES_END = "<!-- badges: end -->"
CHAPTERS_START = "<!-- chapters: generated from _toc.yml by scripts/sync_metadata.py -->"
CHAPTERS_END = "<!-- chapters: end -->"


class Settings:
    """The repository address and the version, and everything derived from them."""

    def __init__(self, repo: Path = REPO):
        config = yaml.safe_load((repo / "_config.yml").read_text(encoding="utf8")) or {}
        repository = config.get("repository") or {}
        self.url = str(repository.get("url") or "").rstrip("/")
        self.branch = str(repository.get("branch") or "main")
        m = GITHUB_RE.match(self.url)
        if not m:
            raise SystemExit(
                f"_config.yml: repository.url {self.url!r} is not https://github.com/OWNER/NAME; "
                "the workflows, the Pages address and the badges assume GitHub")
        self.owner, self.name = m.group("owner"), m.group("name")
        self.url = f"https://github.com/{self.owner}/{self.name}"
        init = (repo / "lib" / PACKAGE / "__init__.py").read_text(encoding="utf8")
        v = VERSION_RE.search(init)
        if not v:
            raise SystemExit(f"{INIT.relative_to(REPO)}: no line `__version__ = \"X.Y.Z\"`")
        self.version = v.group(1)
        self.changelog = (repo / "CHANGELOG.md").read_text(encoding="utf8")
        self.releases = [(r["version"], r["date"]) for r in RELEASE_RE.finditer(self.changelog)]
        dates = dict(self.releases)
        if not dates.get(self.version):
            raise SystemExit(f"CHANGELOG.md has no heading `## [{self.version}] - YYYY-MM-DD` "
                             f"for the package's version {self.version}")
        self.date = dates[self.version]

    @property
    def pages(self) -> str:
        """Where GitHub Pages serves the book (a project site; a user site for OWNER.github.io)."""
        host = f"{self.owner.lower()}.github.io"
        return f"https://{host}/" if self.name.lower() == host else f"https://{host}/{self.name}/"

    @property
    def git_requirement(self) -> str:
        return f"{DISTRIBUTION} @ git+{self.url}"


def colab_guard(s: Settings) -> str:
    """The first code cell of every notebook: a no-op wherever the package is installed."""
    return (
        "import importlib.util\n"
        "import sys\n"
        "\n"
        f'if importlib.util.find_spec("{PACKAGE}") is None:  # on Colab: install the book\'s package\n'
        "    # the release of this edition by name; where it is not on PyPI, the repository's code\n"
        f'    !"{{sys.executable}}" -m pip install -q "{DISTRIBUTION}=={s.version}" || '
        f'"{{sys.executable}}" -m pip install -q "{s.git_requirement}"'
    )


def project_urls(s: Settings) -> str:
    return (
        "[project.urls]\n"
        f'Homepage = "{s.pages}"\n'
        f'Source = "{s.url}"\n'
        f'Issues = "{s.url}/issues"\n'
        f'Changelog = "{s.url}/blob/{s.branch}/CHANGELOG.md"\n'
    )


def badges(s: Settings) -> str:
    return "\n".join([
        BADGES_START,
        f"[![CI]({s.url}/actions/workflows/ci.yml/badge.svg)]({s.url}/actions/workflows/ci.yml)",
        f"[![Book](https://img.shields.io/badge/book-online-blue)]({s.pages})",
        f"[![Binder](https://mybinder.org/badge_logo.svg)]"
        f"(https://mybinder.org/v2/gh/{s.owner}/{s.name}/{s.branch}?urlpath=lab)",
        f"[![PyPI](https://img.shields.io/pypi/v/{DISTRIBUTION})]"
        f"(https://pypi.org/project/{DISTRIBUTION}/)",
        BADGES_END,
    ])


def page_title(path: Path) -> str:
    """The first level-1 heading of a notebook's first Markdown cell or of a Markdown page."""
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf8"))["cells"]
        text = next("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    else:
        text = path.read_text(encoding="utf8")
    return re.search(r"^# (.+)$", text, re.M).group(1).strip()


def toc_pages(repo: Path = REPO) -> list[tuple[str, list[Path]]]:
    """(part caption, its pages' source files) in the order of `_toc.yml`."""
    toc = yaml.safe_load((repo / "_toc.yml").read_text(encoding="utf8"))
    out = []
    for part in toc["parts"]:
        files = []
        for entry in part["chapters"]:
            stem = repo / entry["file"]
            files.append(next(stem.with_suffix(s) for s in (".ipynb", ".md")
                              if stem.with_suffix(s).is_file()))
        out.append((part["caption"], files))
    return out


def chapters(repo: Path = REPO) -> str:
    """README's list of the book's pages: one line a page, by part, in the order of `_toc.yml`
    (the exercise notebooks, one per chapter, as one line)."""
    lines = [CHAPTERS_START]
    for caption, files in toc_pages(repo):
        lines.append(f"\n**{caption}**\n")
        if all("exercises/" in f.as_posix() for f in files):
            lines.append(f"- `notebooks/exercises/`: {len(files)} notebooks, one per chapter "
                         f"(`{files[0].name}` to `{files[-1].name}`), answers checked as you go")
            continue
        lines += [f"- {page_title(f)} (`{f.relative_to(repo).as_posix()}`)" for f in files]
    lines.append(CHAPTERS_END)
    return "\n".join(lines)


def changelog_links(s: Settings) -> str:
    """Keep a Changelog's link references: each version compared with the one before it."""
    versions = [v for v, _ in s.releases]
    lines = []
    for i, v in enumerate(versions):
        older = next((w for w in versions[i + 1:] if w != "Unreleased"), None)
        if v == "Unreleased":
            head = next((w for w in versions[i + 1:]), None)
            lines.append(f"[{v}]: {s.url}/compare/v{head}...HEAD" if head
                         else f"[{v}]: {s.url}/commits/{s.branch}")
        elif older:
            lines.append(f"[{v}]: {s.url}/compare/v{older}...v{v}")
        else:
            lines.append(f"[{v}]: {s.url}/releases/tag/v{v}")
    return "\n".join(lines) + "\n"


# --- the files ---------------------------------------------------------------------------------

def notebook_paths(repo: Path = REPO) -> list[Path]:
    return sorted(p for p in (repo / "notebooks").rglob("*.ipynb")
                  if ".ipynb_checkpoints" not in p.parts)


def dump_notebook(nb: dict) -> str:
    """JSON as nbformat writes it (indent 1, sorted keys, UTF-8 kept, final newline)."""
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def split_source(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def synced_notebook(text: str, s: Settings, name: str) -> str:
    nb = json.loads(text)
    code = [c for c in nb.get("cells", []) if c.get("cell_type") == "code"]
    if not code:
        raise SystemExit(f"{name}: no code cell to hold the Colab cell")
    guard = code[0]
    src = guard.get("source", "")
    src = "".join(src) if isinstance(src, list) else src
    if "find_spec" not in src:
        raise SystemExit(f"{name}: the first code cell is not the Colab cell (find_spec ... "
                         "pip install); add it by hand first (see tests/test_notebook_hygiene.py)")
    if src == colab_guard(s):
        return text
    guard["source"] = split_source(colab_guard(s))
    return dump_notebook(nb)


def replace_block(text: str, pattern: str, new: str, name: str) -> str:
    out, n = re.subn(pattern, lambda _: new, text, count=1, flags=re.M | re.S)
    if not n:
        raise SystemExit(f"{name}: found no place for the derived text (pattern {pattern!r})")
    return out


def synced_files(repo: Path = REPO) -> dict[Path, tuple[str, str]]:
    """{path: (current text, derived text)} for every file this script writes."""
    s = Settings(repo)
    files: dict[Path, tuple[str, str]] = {}

    def put(path: Path, new: str):
        files[path] = (path.read_text(encoding="utf8"), new)

    for path in notebook_paths(repo):
        text = path.read_text(encoding="utf8")
        files[path] = (text, synced_notebook(text, s, path.relative_to(repo).as_posix()))

    p = repo / "pyproject.toml"
    put(p, replace_block(p.read_text(encoding="utf8"), r"^\[project\.urls\]\n(?:[^\[\n][^\n]*\n)*",
                         project_urls(s), "pyproject.toml"))

    p = repo / "README.md"
    text = p.read_text(encoding="utf8")
    pattern = rf"^{re.escape(BADGES_START)}\n.*?^{re.escape(BADGES_END)}$"
    if not re.search(pattern, text, re.M | re.S):  # first run: badges under the title
        text = re.sub(r"\A(# .*\n)", lambda m: m.group(1) + "\n" + BADGES_START + "\n" + BADGES_END
                      + "\n", text, count=1)
    text = replace_block(text, pattern, badges(s), "README.md")
    pattern = rf"^{re.escape(CHAPTERS_START)}\n.*?^{re.escape(CHAPTERS_END)}$"
    put(p, replace_block(text, pattern, chapters(repo), "README.md"))

    p = repo / "CITATION.cff"
    text = p.read_text(encoding="utf8")
    for key, value in (("version", s.version), ("date-released", s.date),
                       ("repository-code", s.url), ("url", s.pages)):
        text = replace_block(text, rf"^{re.escape(key)}:[^\n]*$", f'{key}: "{value}"', "CITATION.cff")
    put(p, text)

    p = repo / "book" / "intro.md"
    put(p, replace_block(p.read_text(encoding="utf8"), r"^  url    = \{[^}\n]*\},$",
                         f"  url    = {{{s.url}}},", "book/intro.md"))

    p = repo / "CHANGELOG.md"
    text = p.read_text(encoding="utf8")
    text = re.sub(r"(?:^\[[^\]]+\]: \S+\n?)+\Z", "", text, flags=re.M).rstrip("\n") + "\n\n"
    put(p, text + changelog_links(s))
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; list the files that differ, exit 1 if any")
    args = parser.parse_args(argv)
    stale = {path: new for path, (old, new) in synced_files().items() if old != new}
    for path, new in stale.items():
        rel = path.relative_to(REPO).as_posix()
        if args.check:
            print(f"{rel}: differs from what repository.url (_config.yml) and __version__ give")
        else:
            path.write_text(new, encoding="utf8")
            print(f"wrote {rel}")
    if args.check and stale:
        print("run `make metadata` (python scripts/sync_metadata.py) and commit the result")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
