"""The Chinese edition's pipeline (issue 29): gettext catalogs, one build per language.

    python scripts/editions.py update     # English strings -> _build/gettext/*.pot -> locale/zh_CN
    python scripts/editions.py build      # the English and the Chinese HTML, side by side
    python scripts/editions.py report [--min 95]   # share of translated strings per page
    python scripts/editions.py fill PAGE FILE.json  # {English: Chinese} into PAGE's catalog

How a translation stays honest: Sphinx reads every page of the Chinese build through its
catalog `locale/zh_CN/LC_MESSAGES/<page>.po`; a string with no entry, or whose entry is marked
fuzzy (its English changed since it was translated: `update` marks it), falls back to the
English text. Glued numbers, equations, figures and calculators come from the same executed
notebooks, so a translation never holds a number of its own. `report` lists, per page, the
strings left in English (untranslated or fuzzy) and the share translated; `--min` turns the
whole book's share into a gate (exit status 1 below it).

After an English edit: `update` (new strings empty, changed ones fuzzy), translate the .po
entries (a fuzzy one: check the new English, edit, remove the `#, fuzzy` line), `build`.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LANGUAGES = ["zh_CN"]
POT_DIR = REPO / "_build" / "gettext"
LOCALE = REPO / "locale"
PY = sys.executable


def _book(*args: str, language: str = "en", editions: list[str] | None = None) -> subprocess.Popen:
    env = {**os.environ, "BOOK_LANGUAGE": language,
           "BOOK_EDITIONS": ",".join(editions or [])}
    return subprocess.Popen([PY, str(REPO / "scripts" / "build_book.py"), *args], cwd=REPO,
                            env=env)


def update() -> int:
    """The English strings as templates (Sphinx's gettext builder, from the English doctrees),
    then sphinx-intl merges them into each language's catalogs."""
    shutil.rmtree(POT_DIR, ignore_errors=True)  # no template of a page that has gone
    if _book("--all", "--builder", "custom", "--custom-builder", "gettext").wait():
        return 1
    for language in LANGUAGES:
        subprocess.run([PY, "-m", "sphinx_intl", "update", "-p", str(POT_DIR), "-d",
                        str(LOCALE), "-l", language, "-w", "0"], cwd=REPO, check=True)
    return 0


def build(strict: bool = False) -> int:
    """Every edition, with the language switcher, the builds in parallel (one process each)."""
    editions = ["en", *LANGUAGES]
    args = ["--all"] if strict else []
    procs = [_book(*args, language=lang, editions=editions) for lang in editions]
    status = max(p.wait() for p in procs)
    if status == 0:
        for language in LANGUAGES:  # what shows in English: untranslated, or fuzzy
            report(language=language, summary=True)
    return status


#: Roles, inline maths and code: what stays as it is in every language.
_NEUTRAL = re.compile(r"\{[^}]*\}`[^`]*`|\$[^$]*\$|`[^`]*`|https?://\S+|\\[A-Za-z]+")


def needs_translation(text: str) -> bool:
    """False for a string with no word outside its roles, maths (inline, or a LaTeX command)
    and code (a table cell of numbers, a model's name in code, a display equation): it reads
    the same in every edition.

    >>> needs_translation("1,555"), needs_translation("`h100-sxm`"), needs_translation("Roofline")
    (False, False, True)
    """
    return re.search(r"[A-Za-z]{2,}", _NEUTRAL.sub("", text)) is not None


def catalog_counts(po: Path) -> tuple[int, list[str], list[str]]:
    """(strings to translate, untranslated ids, fuzzy ids) of one catalog."""
    from babel.messages.pofile import read_po

    with open(po, "rb") as handle:
        catalog = read_po(handle)
    total, untranslated, fuzzy = 0, [], []
    for message in catalog:
        if not message.id or not needs_translation(str(message.id)):
            continue
        total += 1
        if message.fuzzy:
            fuzzy.append(str(message.id))
        elif not message.string:
            untranslated.append(str(message.id))
    return total, untranslated, fuzzy


def report(minimum: float | None = None, language: str = "zh_CN", verbose: bool = False,
           summary: bool = False) -> int:
    """The share translated per page (`summary`: only the pages with fuzzy strings, whose
    English changed since they were translated, and the whole book's share)."""
    root = LOCALE / language / "LC_MESSAGES"
    pos = sorted(root.rglob("*.po"))
    if not pos:
        print(f"editions: no catalogs under {root} (python scripts/editions.py update)",
              file=sys.stderr)
        return 2
    all_total = all_done = 0
    print(f"{language}: translated strings per page (fuzzy = English changed since)"
          + (", pages with fuzzy strings only (make translations: every page)" if summary else ""))
    for po in pos:
        total, untranslated, fuzzy = catalog_counts(po)
        done = total - len(untranslated) - len(fuzzy)
        all_total += total
        all_done += done
        share = 100 * done / total if total else 100.0
        if not summary or fuzzy:
            print(f"  {share:5.1f}%  {done:4d}/{total:<4d} fuzzy {len(fuzzy):3d}  "
                  f"{po.relative_to(root).with_suffix('')}")
        if verbose:
            for text in fuzzy:
                print(f"           fuzzy: {text[:90]!r}")
    share = 100 * all_done / all_total if all_total else 100.0
    print(f"{language}: {share:.1f}% of {all_total} strings translated")
    if minimum is not None and share < minimum:
        print(f"editions: {share:.1f}% < {minimum}% translated", file=sys.stderr)
        return 1
    return 0


def fill(page: str, translations: Path, language: str = "zh_CN") -> int:
    """Write the translations of a JSON object {English: translation} into `page`'s catalog
    (entries whose English is not in the catalog are reported; a filled entry is not fuzzy)."""
    import json

    from sphinx_intl.catalog import dump_po, load_po

    po = LOCALE / language / "LC_MESSAGES" / f"{page}.po"
    catalog = load_po(str(po))
    pairs = json.loads(translations.read_text(encoding="utf8"))
    unknown = [text for text in pairs if text not in catalog]
    for text, translated in pairs.items():
        if text in catalog:
            catalog[text].string = translated
            catalog[text].flags.discard("fuzzy")
    dump_po(str(po), catalog, line_width=0)
    print(f"{po.relative_to(REPO)}: {len(pairs) - len(unknown)} entries filled")
    for text in unknown:
        print(f"  not in the catalog: {text[:80]!r}", file=sys.stderr)
    return 1 if unknown else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["update", "build", "report", "fill"])
    parser.add_argument("page", nargs="?", help="fill: the page (docname), e.g. book/intro")
    parser.add_argument("json", nargs="?", type=Path, help="fill: {English: translation}")
    parser.add_argument("--all", action="store_true", help="build: every page, strict")
    parser.add_argument("--min", type=float, help="report: fail below this share (percent)")
    parser.add_argument("-v", "--verbose", action="store_true", help="report: list fuzzy strings")
    args = parser.parse_args(argv)
    if args.command == "update":
        return update()
    if args.command == "fill":
        if not (args.page and args.json):
            parser.error("fill needs a page and a JSON file")
        return fill(args.page, args.json)
    if args.command == "build":
        return build(args.all)
    return report(args.min, verbose=args.verbose)


if __name__ == "__main__":
    sys.exit(main())
