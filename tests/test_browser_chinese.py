"""The Chinese edition (`_build/html/zh_CN/`) in Chromium, as its reader reads it.

- The reader's path (tests/test_browser.py's READER_PATH, under zh_CN/) at 1280 px and 390 px
  with the English edition's reader checks (figures, tables and display equations within the
  column, the page not scrolling sideways, the visible-code budget, one search box, a
  key-results box on every chapter, no JavaScript error): each page loaded once, read at
  1280 px, resized and read at 390 px, as tests/test_browser.py does. (The requests, mathematics,
  launch-link and solution checks of every English page are not repeated: the two editions are
  one build of the same sources in the same theme.)
- Its Chinese text drawn in a font that has the glyphs: on the start page, a chapter and the
  glossary, Chromium is asked (DevTools' CSS.getPlatformFontsForNode) which installed fonts drew
  a few visible runs of Chinese text; one of them must be a font that fontconfig lists for
  Chinese (`fc-list :lang=zh`; Debian's fonts-wqy-microhei, which .ci/run installs).
- The calculators: every widget of the English edition, on its Chinese page, follows its
  controls and agrees with the library (tests/test_browser_widgets.py's check, unchanged); and
  without its script (widgets.js not served), every widget's container shows its fallback line
  in the edition's words, where the English page shows it in English; and a widget that fails
  to mount says so in the edition's words too.

Same requirements as tests/test_browser.py: a built book (`make book` builds both editions)
and Debian's Chromium.
"""
import json
import shutil
import subprocess
from urllib.parse import urljoin

import pytest

from conftest import REPO, skip_or_fail
from llm_arithmetic.book.export import WIDGET_FALLBACK
from test_browser import (PHONE, READER_PATH, VIEWPORT, WAIT_FOR_FONTS, browser,  # noqa: F401
                          read_as_reader, reader_problems, site)
from test_browser_widgets import (WIDGET_IDS, WIDGET_PAGES, follow_controls,  # noqa: F401
                                  widget_page, widget_tab)

ZH = "zh_CN/"

MARK_CHINESE_RUNS = r"""() => {
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let k = 0;
  for (let t = walk.nextNode(); t && k < 3; t = walk.nextNode()) {
    const el = t.parentElement;
    if (/[\u4e00-\u9fff]/.test(t.textContent) && el && el.offsetParent !== null
        && !el.hasAttribute('data-cjk-probe')) el.setAttribute('data-cjk-probe', String(k++));
  }
  return k;
}"""


@pytest.mark.parametrize("page_path", [ZH + p for p in READER_PATH])
def test_chinese_reader_path(page_path, book_html, site, widget_page, build_dir):  # noqa: F811
    """The reader's checks at both widths, in one load of the page."""
    if not (book_html / page_path).is_file():
        pytest.fail(f"{page_path} is not in the Chinese edition's build")
    page = widget_page  # at 1280 px
    page.goto(urljoin(site, page_path), wait_until="load")
    page.evaluate(WAIT_FOR_FONTS)
    problems = []
    for viewport in (VIEWPORT, PHONE):
        page.set_viewport_size(viewport)
        r = read_as_reader(page, page_path, viewport["width"], build_dir, edition="zh_CN-")
        problems += [f"at {viewport['width']} px: {p}" for p in
                     reader_problems(r, page_path.removeprefix(ZH), viewport["width"])]
        if viewport is VIEWPORT and page_path.removeprefix(ZH) in FONT_PAGES:
            FONTS_USED[page_path] = fonts_used(page)  # for test_chinese_text_has_a_font
    problems += [f"JavaScript error: {e}" for e in page.errors]
    calculators = [(p, n) for p, n in WIDGET_PAGES if ZH + p == page_path]
    if calculators:  # for test_chinese_calculator_follows_its_controls, in this same load
        page.set_viewport_size(VIEWPORT)
        for p, name in calculators:
            try:
                follow_controls(page_path, name, site, page, widget_words(), loaded=True)
                CALCULATORS[(p, name)] = None
            except Exception as error:  # noqa: BLE001 - reported by that test
                CALCULATORS[(p, name)] = error
    assert not problems, f"{page_path}:\n" + "\n".join(problems)


def widget_words() -> dict[str, str]:
    """The edition's words of the widgets (locale/zh_CN/widgets.json)."""
    return json.loads((REPO / "locale" / "zh_CN" / "widgets.json").read_text(encoding="utf8"))


#: What the calculator check found on a widget page of the reader's path (page, widget name:
#: None, passed, or the error it raised), in test_chinese_reader_path's load of the page, at
#: 1280 px after the reader's checks (which only read the page); one load less for each.
CALCULATORS: dict[tuple[str, str], Exception | None] = {}


#: The pages whose Chinese text must be drawn in a font that covers Chinese
#: (test_chinese_text_has_a_font): the start page, a chapter and the glossary.
FONT_PAGES = ["book/intro.html", "notebooks/19-repro-karpathy.html", "notebooks/glossary.html"]
#: fonts_used() of a FONT_PAGES page, by its path under zh_CN/, found by test_chinese_reader_path
#: in its own load of the page at 1280 px (each of these pages is on the reader's path).
FONTS_USED: dict[str, tuple[int, list[set[str]]]] = {}


def fonts_used(page) -> tuple[int, list[set[str]]]:
    """On a loaded page: how many visible runs of Chinese text were marked (MARK_CHINESE_RUNS,
    at most three) and, for each, the installed font families Chromium drew it with (DevTools'
    CSS.getPlatformFontsForNode)."""
    marked = page.evaluate(MARK_CHINESE_RUNS)
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument")["root"]["nodeId"]
        probes = cdp.send("DOM.querySelectorAll",
                          {"nodeId": root, "selector": "[data-cjk-probe]"})["nodeIds"]
        used = [{f["familyName"] for f in cdp.send("CSS.getPlatformFontsForNode",
                                                   {"nodeId": n})["fonts"]} for n in probes]
    finally:
        cdp.detach()
    return marked, used


def chinese_fonts() -> set[str]:
    """Families fontconfig lists for Chinese (every name of each, comma-separated there)."""
    if not shutil.which("fc-list"):
        skip_or_fail("fc-list (fontconfig) is missing: cannot tell which fonts cover Chinese")
    out = subprocess.run(["fc-list", ":lang=zh", "family"], capture_output=True, text=True).stdout
    return {name.strip() for line in out.splitlines() for name in line.split(",") if name.strip()}


@pytest.mark.parametrize("page_path", FONT_PAGES)
def test_chinese_text_has_a_font(page_path, site, widget_page, book_html):  # noqa: F811
    """Read in test_chinese_reader_path's load of the page (run alone, -k, this test loads it)."""
    families = chinese_fonts()
    if not families:
        skip_or_fail("no font on this machine covers Chinese: the Chinese edition shows boxes "
                     "(Debian: sudo apt-get install fonts-wqy-microhei; .ci/run does)")
    found = FONTS_USED.get(ZH + page_path)
    if found is None:
        widget_page.goto(urljoin(site, ZH + page_path), wait_until="load")
        found = fonts_used(widget_page)
    marked, used = found
    assert marked > 0, f"{ZH + page_path} shows no Chinese text"
    bad = [sorted(u) for u in used if not u & families]
    assert not bad, (f"{ZH + page_path}: Chinese text drawn in {bad}, none of which covers "
                     f"Chinese ({sorted(families)[:4]} would)")


@pytest.mark.parametrize("page_path,name", WIDGET_PAGES, ids=WIDGET_IDS)
def test_chinese_calculator_follows_its_controls(page_path, name, site, widget_page):  # noqa: F811
    """The English edition's check on the Chinese page: the numbers are the library's, the
    words the edition's (locale/zh_CN/widgets.json). Run in test_chinese_reader_path's load of
    the page (CALCULATORS); run alone (-k), this test loads the page itself."""
    if (page_path, name) in CALCULATORS:
        error = CALCULATORS[(page_path, name)]
        if error is not None:
            raise error
        return
    follow_controls(ZH + page_path, name, site, widget_page, widget_words())


@pytest.mark.parametrize("page_path", sorted({p for p, _ in WIDGET_PAGES}),
                         ids=lambda p: p.split("/")[-1])
def test_chinese_widget_fallback_line(page_path, site, widget_page):  # noqa: F811
    """What a widget's container shows before or without its script (here: widgets.js is not
    served) is the fallback line in the edition's words (locale/zh_CN/widgets.json), on the
    English page in English."""
    words = json.loads((REPO / "locale" / "zh_CN" / "widgets.json").read_text(encoding="utf8"))
    page = widget_page
    page.route("**/_static/llm-arithmetic/widgets.js", lambda route: route.abort())
    skip_what_the_lines_do_not_need(page)
    shown = {}
    for edition in ("", ZH):
        page.goto(urljoin(site, edition + page_path), wait_until="load")
        lines = page.locator("[data-llm-widget] .llm-widget-fallback")
        shown[edition] = [(t.strip(), v) for t, v in zip(
            lines.all_inner_texts(), [line.is_visible() for line in lines.all()])]
    n = sum(p == page_path for p, _ in WIDGET_PAGES)
    assert shown[""] == [(WIDGET_FALLBACK, True)] * n, shown[""]
    assert shown[ZH] == [(words[WIDGET_FALLBACK], True)] * n, shown[ZH]


#: What a page loads that neither the widgets' fallback line nor their failure line depends on
#: (the line's text and its visibility: HTML, the stylesheets and, for the failure,
#: widgets.js): MathJax's fonts, the search index, the figures, the icons' script (1.5 MB,
#: which rewrites the page's icons). Refused, each load of the two tests below costs less.
NOT_NEEDED_FOR_THE_LINES = ("**/_static/mathjax-fonts/**", "**/searchindex.js", "**/*.png",
                            "**/_static/scripts/fontawesome.js*")


def skip_what_the_lines_do_not_need(page) -> None:
    for pattern in NOT_NEEDED_FOR_THE_LINES:
        page.route(pattern, lambda route: route.abort())


#: The words ui.js's mountAll shows before the error's message when a widget fails to mount.
WIDGET_FAILED = "This widget failed:"


def test_chinese_widget_failure_line(site, widget_page):  # noqa: F811
    """A widget that fails to mount (here: its page asks it for an output it does not know) says
    so in the edition's words (locale/zh_CN/widgets.json), on the English page in English,
    followed by the error's message; the error is still reported as uncaught."""
    words = json.loads((REPO / "locale" / "zh_CN" / "widgets.json").read_text(encoding="utf8"))
    page = widget_page
    page_path = "notebooks/06-roofline.html"

    def break_the_widget(route):
        body = route.fetch().text()  # the attribute given first wins over the page's own
        route.fulfill(body=body.replace('data-llm-widget="', 'data-show="no_such_output" '
                                        'data-llm-widget="', 1), content_type="text/html")

    page.route(f"**/{page_path}", break_the_widget)
    skip_what_the_lines_do_not_need(page)
    for edition, lead in (("", WIDGET_FAILED), (ZH, words[WIDGET_FAILED])):
        page.errors.clear()
        page.goto(urljoin(site, edition + page_path), wait_until="load")
        line = page.locator("[data-llm-widget] .lla-error")
        line.wait_for(timeout=10_000)
        page.wait_for_timeout(200)  # the error is thrown after the script has run
        assert line.inner_text().strip() == \
            f"{lead} llm-arithmetic: unknown output no_such_output", (edition, line.inner_text())
        assert [e for e in page.errors if "unknown output no_such_output" in e], page.errors
