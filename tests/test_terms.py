"""The glossary of terms (book/terms.md) and the `{term}` links to it (issue 30's reviews).

Cheap: reads Markdown, notebooks' JSON and the Chinese catalogs; builds nothing (the book build's
`-n` also warns on a `{term}` that names no entry).

- every entry of the glossary links to the chapter or section that teaches it (a `{ref}` to a
  target that exists);
- every `{term}` role of the chapters (notebooks/*.ipynb Markdown cells, book/*.md) names an
  entry, and a page links a term at most once (its first use);
- every entry is linked from some page other than the glossary;
- every entry whose term is in locale/zh_CN/terms.toml is translated with that Chinese term, and
  a Chinese `{term}` role links the entry of the English (its target, `{term}`中文 <English>``);
- "bound" has two Chinese words, by the quantity bounded (terms.toml's [bound]): 上界 on a speed,
  下界 on a time, a latency or a cost, each where the English names its kind of quantity; a
  prompt is 提示词, 提示 alone a hint.
"""
import functools
import json
import re
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TERMS_PAGE = REPO / "book" / "terms.md"
LOCALE = REPO / "locale" / "zh_CN" / "LC_MESSAGES"
#: {term}`text` or {term}`text <target>`
TERM_ROLE = re.compile(r"\{term\}`([^`<]*?)\s*(?:<([^`>]+)>)?`")
TARGET = re.compile(r"^\(([\w-]+)\)=\s*$", re.M)
REF = re.compile(r"\{ref\}`(?:[^`<]*<)?([\w-]+)>?`")


def glossary() -> dict[str, str]:
    """{term: its definition} of every entry (the terms of one entry share its definition)."""
    text = TERMS_PAGE.read_text(encoding="utf8")
    block = re.search(r"^```\{glossary\}\n(.*?)^```\s*$", text, re.S | re.M)
    assert block, f"{TERMS_PAGE.name}: no glossary block"
    entries, terms, definition = {}, [], []
    for line in block.group(1).splitlines() + [""]:
        if line.startswith(":") or (not line.strip() and not definition):
            continue
        if line.strip() and not line[0].isspace():
            if definition:  # a new entry begins
                entries.update({t: " ".join(definition) for t in terms})
                terms, definition = [], []
            terms.append(line.strip())
        elif line.strip():
            definition.append(line.strip())
    entries.update({t: " ".join(definition) for t in terms})
    return entries


def pages() -> dict[str, str]:
    """{page: its Markdown} of the chapters and other pages that may link a term."""
    out = {}
    for path in sorted((REPO / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf8"))["cells"]
        out[path.relative_to(REPO).as_posix()] = "\n\n".join(
            "".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    for path in sorted((REPO / "book").glob("*.md")):
        if path.name != "STYLE.md":
            text = path.read_text(encoding="utf8")  # with the files it includes: one page
            for name in re.findall(r"^```\{include\}\s+(\S+)", text, re.M):
                text += "\n\n" + (path.parent / name).read_text(encoding="utf8")
            out[path.relative_to(REPO).as_posix()] = text
    return out


def role_target(match: re.Match) -> str:
    return (match.group(2) or match.group(1)).strip()


def test_every_entry_links_the_chapter_that_teaches_it():
    entries = glossary()
    assert len(entries) >= 50, len(entries)
    targets = {t for text in pages().values() for t in TARGET.findall(text)}
    bad = [f"{term}: {refs or 'no {ref}'}" for term, definition in entries.items()
           if not (refs := REF.findall(definition)) or not set(refs) <= targets]
    assert not bad, "entries without a link to a chapter or section:\n" + "\n".join(bad)


def test_every_term_role_names_an_entry_once_per_page():
    known = {t.lower() for t in glossary()}
    unknown, repeated = [], []
    for page, text in pages().items():
        seen = set()
        for match in TERM_ROLE.finditer(text):
            target = role_target(match).lower()
            if target not in known:
                unknown.append(f"{page}: {match.group()}")
            elif target in seen and page != "book/terms.md":
                repeated.append(f"{page}: {match.group()}")
            seen.add(target)
    assert not unknown, "{term} roles naming no entry of book/terms.md:\n" + "\n".join(unknown)
    assert not repeated, "a term linked twice on one page (first use only):\n" + "\n".join(repeated)


def test_every_entry_is_linked_from_a_page():
    """A reader meets every entry through a `{term}` link on some page other than the glossary
    (one of its terms: an entry such as GB / GiB has two)."""
    linked = {role_target(m).lower() for page, text in pages().items()
              if page != "book/terms.md" for m in TERM_ROLE.finditer(text)}
    entries: dict[str, list[str]] = {}
    for term, definition in glossary().items():
        entries.setdefault(definition, []).append(term)
    orphans = [" / ".join(terms) for terms in entries.values()
               if not {t.lower() for t in terms} & linked]
    assert not orphans, "glossary entries no page links with {term}: " + ", ".join(orphans)


def test_chapters_link_terms():
    """The links exist: most chapters link a dozen terms or more."""
    linked = {page: len(TERM_ROLE.findall(text)) for page, text in pages().items()
              if re.search(r"notebooks/\d", page)}
    assert sum(n > 0 for n in linked.values()) == len(linked), linked


def catalog(page: str):
    from babel.messages.pofile import read_po

    with open(LOCALE / f"{page}.po", "rb") as handle:
        return read_po(handle)


def test_entries_use_the_chinese_glossary_of_terms():
    zh = chinese_terms()
    entries = {t.lower(): t for t in glossary()}
    messages = {str(m.id): m for m in catalog("book/terms") if m.id}
    bad = []
    for en, term in entries.items():
        if en in zh:
            m = messages.get(term)
            if m is None or m.fuzzy or m.string != zh[en]:
                bad.append(f"{term!r}: {m.string if m else 'no catalog entry'!r}, "
                           f"terms.toml says {zh[en]!r}")
    assert not bad, "\n".join(bad)


def chinese_terms() -> dict[str, str]:
    """{English term (lowercase): its Chinese} of locale/zh_CN/terms.toml."""
    terms = tomllib.loads((REPO / "locale" / "zh_CN" / "terms.toml").read_text(encoding="utf8"))
    return {en: t["zh"] for t in terms["term"] for en in t["en"]}


@functools.cache
def translations() -> tuple[tuple[str, str, str], ...]:
    """(catalog, English, Chinese) of every translated, not fuzzy entry of the Chinese edition."""
    from babel.messages.pofile import read_po

    out = []
    for po in sorted(LOCALE.rglob("*.po")):
        with open(po, "rb") as handle:
            out += [(po.relative_to(LOCALE).as_posix(), str(m.id), m.string)
                    for m in read_po(handle) if m.id and m.string and not m.fuzzy]
    return tuple(out)


def test_chinese_term_roles_link_the_english_entry_in_chinese():
    """A translated `{term}` role keeps the English entry as its target and shows the Chinese
    term where locale/zh_CN/terms.toml has one for the English shown (`{term}`键值缓存 <KV cache>``)."""
    zh = chinese_terms()
    bad = []
    for po, en, string in translations():
        if "{term}" not in en:
            continue
        want = sorted(role_target(r).lower() for r in TERM_ROLE.finditer(en))
        roles = list(TERM_ROLE.finditer(string))
        got = sorted(role_target(r).lower() for r in roles)
        english = [r.group() for r in TERM_ROLE.finditer(en)
                   if (z := zh.get(r.group(1).lower()) or zh.get(r.group(1).lower()[:-1]))
                   and not any(z in t.group(1) for t in roles)]
        if want != got or english:
            bad.append(f"{po}: {en[:60]!r}: targets {got} "
                       f"for {want}" + (f", not in Chinese: {english}" if english else ""))
    assert not bad, "\n".join(bad[:20])


#: English prose of an entry: maths, code and roles out, a `{term}` role read as its text
_NOT_PROSE = re.compile(r"\{term\}`([^`<]*?)\s*(?:<[^`>]+>)?`|\{[^}]*\}`[^`]*`|\$[^$]*\$|`[^`]*`")
#: English that says the bound is on a time, a latency or a cost; on a speed or a rate
TIME_BOUND = re.compile(
    r"\blower bounds?\b|\bbounds? (?:on|for) (?:the |its |a |one )?(?:time|TTFT|TPOT|latency|cost"
    r"|first token)|\b(?:TTFT|TPOT|latency|cost|time) bounds?\b|\bbound \[(?:ms|s|µs)\]"
    r"|\bbound's (?:step )?time\b", re.I)
RATE_BOUND = re.compile(
    r"\bupper bounds?\b|\bbounds? on (?:the )?(?:tokens|throughput|speed|decode speed|aggregate rate"
    r"|speed-up)|\b(?:speed|throughput|speed-up) bounds?\b|\bbound \[(?:input )?tokens?/s", re.I)
#: a time, a latency or a cost named in an entry, in its English or its Chinese
TIME_WORDS = re.compile(
    r"\b(?:times?|timed|takes?|took|seconds?|ms|µs|latenc(?:y|ies)|TTFT|TPOT|costs?|dollars?|USD"
    r"|energy|joules?|least|lower|shortest|longer|slower|prefills?|steps?)\b", re.I)
TIME_WORDS_ZH = re.compile(r"时间|耗时|用时|时延|延迟|秒|成本|花费|能耗|能量|首字|一步|每步|单步|解码步|步时间")


def bound_words() -> tuple[str, str]:
    """(on a rate, on a time) of terms.toml's [bound]: 上界, 下界."""
    bound = tomllib.loads((REPO / "locale" / "zh_CN" / "terms.toml").read_text(encoding="utf8"))
    return bound["bound"]["rate"], bound["bound"]["time"]


def test_bound_entry_states_both_words():
    """The glossary's entry is the word of the bare bound (上界) and its definition, a least time,
    tells the reader when a bound is 下界."""
    rate, time = bound_words()
    messages = {str(m.id): m.string for m in catalog("book/terms") if m.id}
    assert messages["bound"] == rate
    definition = next(s for en, s in messages.items() if en.startswith("The least time a step"))
    assert rate in definition and time in definition


def test_bound_takes_the_word_of_its_quantity():
    """上界 on a speed, 下界 on a time, a latency or a cost (terms.toml's [bound]): where the
    English names the quantity ("bound on the time to first token", "TTFT bound [ms]", "upper
    bound"), the Chinese has its word; a `{term}` link to the entry shows one of the two words; and
    下界 stands only where the entry names a time, a latency or a cost (an entry under ten words, a
    heading or a label, takes the quantity of its passage)."""
    rate, time = bound_words()
    bad = []
    for po, en, zh in translations():
        if time not in zh and "bound" not in en:
            continue
        prose = _NOT_PROSE.sub(lambda m: m.group(1) or " ", en)
        shown = [m.group(1) for m in TERM_ROLE.finditer(zh) if role_target(m) == "bound"]
        if set(shown) - {rate, time}:
            bad.append(f"{po}: {en[:60]!r} links the bound as {shown}")
        if TIME_BOUND.search(prose) and time not in zh:
            bad.append(f"{po}: {en[:60]!r} bounds a time: no {time}")
        if RATE_BOUND.search(prose) and rate not in zh:
            bad.append(f"{po}: {en[:60]!r} bounds a speed: no {rate}")
        if (time in zh and len(re.findall(r"[A-Za-z]+", prose)) >= 10
                and not TIME_WORDS.search(prose) and not TIME_WORDS_ZH.search(zh.replace(time, ""))):
            bad.append(f"{po}: {en[:60]!r} has {time} but names no time, latency or cost")
    assert not bad, "\n".join(bad[:20])


@pytest.mark.parametrize("text, target", [("{term}`KV cache`", "KV cache"),
                                          ("{term}`KV caches <KV cache>`", "KV cache"),
                                          ("{term}`键值缓存 <KV cache>`", "KV cache")])
def test_term_role_pattern(text, target):
    assert role_target(TERM_ROLE.search(text)) == target


def test_prompt_and_hint_keep_their_words():
    """A model's prompt is 提示词 (terms.toml); 提示 alone is a hint or a tip, so it stands only
    where the English has one (an exercise's hints), never for a prompt beside a 提示词."""
    bad = [f"{po}: {en[:60]!r}" for po, en, zh in translations()
           if re.search(r"提示(?!词)", zh) and not re.search(r"\b(?:hints?|tips?)\b", en, re.I)]
    assert not bad, "提示 where the English has no hint:\n" + "\n".join(bad[:20])
