"""The Chinese edition (issue 29; scripts/editions.py): catalogs, switcher, share translated.

Cheap: reads the catalogs and the built HTML, builds nothing (`make book` builds both editions,
`make test` too, through `make book-strict`). The share of translated strings is reported at the
end of the run (per page: `python scripts/editions.py report`), and a share of the whole book
below 95% fails (issue 29's gate): after an English edit, `make translations` and translate what
it lists.
"""
import re

import pytest
import yaml

from conftest import REPO, require_playwright, skip_or_fail
from scripts import editions

LOCALE = REPO / "locale" / "zh_CN" / "LC_MESSAGES"


def toc_docs() -> list[str]:
    toc = yaml.safe_load((REPO / "_toc.yml").read_text(encoding="utf8"))
    return [toc["root"], *(c["file"] for p in toc["parts"] for c in p["chapters"])]


def test_every_page_has_a_chinese_catalog():
    missing = [doc for doc in toc_docs() if not (LOCALE / f"{doc}.po").is_file()]
    assert not missing, (f"no catalog for {missing}: run `make translations` "
                         "(python scripts/editions.py update) and commit locale/")
    stray = [p for p in LOCALE.rglob("*.po")
             if p.relative_to(LOCALE).with_suffix("").as_posix() not in toc_docs()]
    assert not stray, f"catalogs of pages that are no longer in the book: {stray}"


#: Issue 29: the share of the whole book's strings translated below which `make test` fails.
GATE = 95.0


def test_share_translated_is_reported_and_meets_the_gate(book_report, capsys):
    status = editions.report(minimum=GATE)
    out = capsys.readouterr().out
    share = re.search(r"zh_CN: ([\d.]+)% of (\d+) strings translated", out)
    assert share, out[-300:]
    book_report.append(f"Chinese edition: {share.group(1)}% of {share.group(2)} strings "
                       f"translated (gate {GATE:g}%)")
    assert status == 0, (f"the Chinese edition is {share.group(1)}% translated, under the "
                         f"{GATE:g}% gate: run `make translations` and translate what it lists")


def test_a_changed_english_string_counts_as_untranslated(tmp_path):
    po = tmp_path / "page.po"
    po.write_text('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
                  'msgid "The roofline"\nmsgstr "屋顶线模型"\n\n'
                  '#, fuzzy\nmsgid "The KV cache, resized"\nmsgstr "键值缓存"\n\n'
                  'msgid "New sentence."\nmsgstr ""\n', encoding="utf8")
    total, untranslated, fuzzy = editions.catalog_counts(po)
    assert (total, untranslated, fuzzy) == (3, ["New sentence."], ["The KV cache, resized"])


def test_the_gate_fails_a_book_under_it(tmp_path, monkeypatch, capsys):
    """One translated string of three is 33.3%: under a 95% gate the report says so and fails."""
    pages = tmp_path / "zh_CN" / "LC_MESSAGES"
    pages.mkdir(parents=True)
    (pages / "page.po").write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "The roofline"\nmsgstr "屋顶线模型"\n\nmsgid "One more."\nmsgstr ""\n\n'
        'msgid "And another."\nmsgstr ""\n', encoding="utf8")
    monkeypatch.setattr(editions, "LOCALE", tmp_path)
    assert editions.report(minimum=95.0) == 1 and editions.report(minimum=30.0) == 0
    assert "33.3% of 3 strings translated" in capsys.readouterr().out


@pytest.fixture(scope="module")
def chinese_html(book_html):
    root = book_html / "zh_CN"
    if not (root / "index.html").is_file():
        skip_or_fail(f"no Chinese edition at {root}: `make book` builds both editions")
    return root


@pytest.mark.parametrize("doc", toc_docs())
def test_switcher_links_the_same_page_both_ways(book_html, chinese_html, doc):
    english = (book_html / f"{doc}.html").read_text(encoding="utf8")
    chinese = (chinese_html / f"{doc}.html").read_text(encoding="utf8")
    assert '<html lang="zh-CN"' in chinese
    for page, text, lang in ((book_html / f"{doc}.html", english, "zh-CN"),
                             (chinese_html / f"{doc}.html", chinese, "en")):
        link = re.search(rf'<nav class="book-editions"[^>]*><a href="([^"]+)" hreflang="{lang}"',
                         text)
        assert link, f"{page}: no language switcher to {lang}"
        target = (page.parent / link.group(1)).resolve()
        assert target == ((chinese_html if lang == "zh-CN" else book_html) / f"{doc}.html"
                          ).resolve(), (page, link.group(1))


def test_chinese_sidebar_names_the_book_and_its_parts_in_chinese(book_html, chinese_html):
    """The book's title (sidebar and window title) and the parts of _toc.yml ("Foundations",
    ...) in the Chinese edition's sidebar, on the start page and on a chapter, are the root
    page's catalog's translations (they were once left in English: Jupyter Book inserts the
    parts' captions after Sphinx has translated the page, and sets the site's title from
    _config.yml)."""
    from babel.messages.pofile import read_po

    toc = yaml.safe_load((REPO / "_toc.yml").read_text(encoding="utf8"))
    with open(LOCALE / f"{toc['root']}.po", "rb") as handle:
        catalog = read_po(handle)
    captions = [part["caption"] for part in toc["parts"]]
    chinese = [catalog[c].string for c in captions]
    assert all(chinese) and not set(chinese) & set(captions), chinese
    caption_re = re.compile(r'<p aria-level="2" class="caption" role="heading">'
                            r'<span class="caption-text">([^<]*)</span>')
    english_title = yaml.safe_load((REPO / "_config.yml").read_text(encoding="utf8"))["title"]
    title = catalog[english_title].string
    assert title and title != english_title
    for doc in (toc["root"], "notebooks/06-roofline"):
        page = (book_html / f"{doc}.html").read_text(encoding="utf8")
        assert caption_re.findall(page) == captions, doc
        assert re.search(rf'logo__title">{english_title}<', page), doc
        page = (chinese_html / f"{doc}.html").read_text(encoding="utf8")
        assert caption_re.findall(page) == chinese, doc
        assert re.search(rf'logo__title">{title}<', page), doc
        assert re.search(rf'<title>[^<]* &#8212; {title}</title>', page), doc


def test_chinese_header_buttons_and_search_box_speak_chinese(book_html, chinese_html):
    """The theme's words around a chapter (the repository menu, the launch buttons' tips, the
    search box, the colour-mode button) that the themes' own Chinese catalogs lack: in the
    English page, none in the Chinese one (tools/sphinx_ext.py, EXTENSION_WORDS)."""
    english_words = ['"Repository"', ">Repository<", ">Open issue<", '"Launch on Binder"',
                     '"Launch interactive content"', '"Search this book..."', '"Color mode"',
                     '"System Settings"', '"Source repositories"']
    doc = "notebooks/06-roofline.html"
    english = (book_html / doc).read_text(encoding="utf8")
    chinese = (chinese_html / doc).read_text(encoding="utf8")
    shown = [w for w in english_words if w.strip('"<>') in english]
    assert len(shown) >= 6, shown  # the English page shows them (the list is not stale)
    left = [w for w in shown if w in chinese]
    assert not left, f"the Chinese edition shows these in English: {left}"
    assert '"搜索..."' in chinese


UI_TEXT_RE = re.compile(r'\b(?:title|aria-label|alt)="([^"<>]*)"'
                        r'|<p class="(?:collapsed|expanded) admonition-title">([^<]*)</p>')


def ui_texts(page: str) -> set[str]:
    """The texts of a page's attributes a reader's tools show or read aloud (title,
    aria-label, alt) and of its hidden cells' toggles, without those holding a digit (a
    citation's title names its year: a work is cited in its own language)."""
    texts = {a or b for a, b in UI_TEXT_RE.findall(page)}
    return {t for t in texts if t and not re.search(r"\d", t)}


def test_chinese_pages_write_no_english_tips_labels_or_toggles(book_html, chinese_html):
    """The words the themes, Sphinx and myst-nb write around a page without asking a catalog,
    or that their Chinese catalogs lack (permalinks' tips, the sidebar buttons, navigation
    landmarks, logos' alternative text, the hidden cells' "Show code cell source", the
    footer's copyright): the English page shows them, the Chinese one none of them
    (tools/sphinx_ext.py, EXTENSION_WORDS and UNCATALOGUED_WORDS)."""
    # a chapter (equations, figures, tables, citations) and an exercise notebook (hidden cells)
    docs = ["notebooks/06-roofline.html", "notebooks/exercises/ex06-roofline.html"]
    english, chinese = ("".join((root / doc).read_text(encoding="utf8") for doc in docs)
                        for root in (book_html, chinese_html))
    shown = ui_texts(english)
    assert {"Link to this heading", "Link to this equation", "Toggle primary sidebar",
            "Show code cell source", "Colab logo"} <= shown  # the list is not stale
    left = sorted(t for t in shown & ui_texts(chinese) if re.search("[A-Za-z]{2}", t))
    assert not left, f"the Chinese edition writes these in English: {left}"
    assert "© Copyright" in english and "© 版权所有 " in chinese and "© Copyright" not in chinese
    moved = (chinese_html / "notebooks" / "ch01-puzzle.html").read_text(encoding="utf8")
    assert '<html lang="zh-CN">' in moved and "本页已移至" in moved, moved


def test_numbers_code_and_maths_need_no_translation():
    assert not editions.needs_translation("1,555")
    assert not editions.needs_translation("`h100-sxm`")
    assert not editions.needs_translation("{glue:text}`n_symbols:d` $B^*$")
    assert not editions.needs_translation(r"\displaystyle \rho = \frac{R_{A}}{R_{B}}")
    assert editions.needs_translation("Roofline")
    assert editions.needs_translation("The glossary holds {glue:text}`n_symbols:d` symbols.")


def translated_entries():
    from babel.messages.pofile import read_po

    for po in sorted(LOCALE.rglob("*.po")):
        with open(po, "rb") as handle:
            for message in read_po(handle):
                if message.id and message.string and not message.fuzzy:
                    yield po.relative_to(LOCALE).with_suffix("").as_posix(), message


def test_translations_keep_roles_maths_and_code():
    """A glued number, a cross-reference, an equation or a code name is the English edition's:
    a translation carries each one unchanged (a missing one would drop a computed value). A
    `{term}` link shows the Chinese term and keeps its English target (tests/test_terms.py)."""
    bad = []
    for page, message in translated_entries():
        kept = [k for k in re.findall(r"\{[^}]*\}`[^`]*`|\$[^$]*\$|`[^`]*`", message.id)
                if not k.startswith("{term}")]
        lost = [k for k in kept if k not in message.string]
        if lost:
            bad.append(f"{page}: {message.id[:60]!r} loses {lost}")
    assert not bad, "\n".join(bad[:20])


def test_translations_use_the_glossary_of_terms():
    """locale/zh_CN/terms.toml: one Chinese word per English term, on every page. Only the
    prose counts: a term inside a role, maths or code (`{eq}`eq-roofline-time``,
    `{doc}`04-kv-cache``) is a label kept as it is, not a word to translate."""
    import tomllib

    terms = tomllib.loads((REPO / "locale" / "zh_CN" / "terms.toml").read_text(encoding="utf8"))
    patterns = [(re.compile(r"\b(?:" + "|".join(re.escape(e) for e in t["en"]) + r")s?\b",
                            re.I), t["zh"]) for t in terms["term"]]
    assert {"算术强度", "屋顶线模型", "键值缓存", "首字延迟"} <= {zh for _, zh in patterns}
    bad = []
    for page, message in translated_entries():
        prose = editions._NEUTRAL.sub(" ", message.id)  # not a role's target: {eq}`eq-prefill-x`
        for pattern, zh in patterns:
            if pattern.search(prose) and zh not in message.string:
                bad.append(f"{page}: {message.id[:60]!r} has no {zh}")
    assert not bad, "\n".join(bad[:20])


def test_chinese_page_carries_the_english_editions_glued_numbers(book_html, chinese_html):
    """A translated sentence with a glued number shows the number the notebook computed."""
    english = (book_html / "notebooks" / "glossary.html").read_text(encoding="utf8")
    chinese = (chinese_html / "notebooks" / "glossary.html").read_text(encoding="utf8")
    count = re.search(r'glossary holds <span class="pasted-text">(\d+)</span>', english)
    assert count, "the English glossary page glues its symbol count"
    assert f'术语表共收录 <span class="pasted-text">{count.group(1)}</span> 个符号' in chinese
    assert "<h1>符号术语表" in chinese


def test_chinese_calculator_labels_and_numbers(chinese_html, book_html):
    """The Chinese edition's calculator: its labels from locale/zh_CN/widgets.json, its
    numbers the same as the English page's (one page, in Chromium, from disk)."""
    from conftest import CHROMIUM as chromium

    sync_playwright = require_playwright()
    page_path = "notebooks/06-roofline.html"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True,
                                    args=["--no-sandbox", "--disable-gpu"])
        try:
            texts = {}
            for name, root in (("en", book_html), ("zh", chinese_html)):
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                # what the widget neither shows nor needs (MathJax's fonts, the search index,
                # the figures, the icons' script): refused, the loads cost less
                for pattern in ("**/_static/mathjax-fonts/**", "**/searchindex.js", "**/*.png",
                                "**/_static/scripts/fontawesome.js*"):
                    page.route(pattern, lambda route: route.abort())
                page.goto((root / page_path).as_uri())
                widget = page.locator("[data-llm-widget]").first
                widget.locator("select, input").first.wait_for()
                page.wait_for_timeout(300)
                texts[name] = widget.inner_text()
                page.close()
        finally:
            browser.close()
    assert "模型" in texts["zh"] and "芯片" in texts["zh"], texts["zh"][:300]
    assert "model" not in texts["zh"].split() and "model" in texts["en"].split()
    numbers = lambda t: re.findall(r"\d[\d,.]*", t)  # noqa: E731
    assert numbers(texts["zh"]) == numbers(texts["en"])
