"""The built book opened in a real browser: Debian's Chromium, driven by Playwright's Python package.

`_build/html` (or $BOOK_HTML) is served on 127.0.0.1 at a free port, and every page is opened in
one headless Chromium (one context; the pages one after another in one tab). This file checks
half of the pages, tests/test_browser_pages_second.py the other half with the same functions
(`halves`), and tests/test_browser_widgets.py the calculators (whose check over HTTP,
test_widget_follows_its_controls, runs in these files' load of each calculator's page), so that
pytest-xdist runs them side by side. On each page:

- no request for a linked asset fails (requestfailed, or an HTTP status >= 400 from 127.0.0.1);
- no request leaves 127.0.0.1: the book must not depend on a CDN. No other host resolves in
  this Chromium; a request for one is recorded and fails the page (MathJax's fonts come from
  `_static/mathjax-fonts`);
- no JavaScript error (console errors and uncaught exceptions): none is whitelisted;
- mathematics arrives typeset (by MathJax at build time, tools/sphinx_static_math.py): every
  `.math` element holds an `mjx-container` whose characters' font has loaded, no page loads
  MathJax's script, no `mjx-merror` (a TeX error), and no raw TeX (`$$`, `\\frac`, `\\(`,
  `$x_{i}$`, ...) is left in the text outside code;
- every image has loaded (naturalWidth > 0);
- exercise solutions (sphinx-exercise `{solution}` with `:class: dropdown`) are collapsed until
  their title is clicked, and open when it is;
- notebook pages (those built from an .ipynb) have Binder and Colab launch links in the header,
  pointing at repository.url / repository.branch of _config.yml, and the launch menu opens.

Pages: every .html of the build except `_static/` (the theme's Jinja macro templates, not pages).
search.html and genindex.html are kept: they cost under a second each, every page links to them,
and search.html is the only page that loads searchindex.js and runs Sphinx's search; it is also
opened with a query to check that searching works offline. index.html and the moved pages
(book_redirects) are redirects: each must land on its target, which is answered there with a stub
(the target is checked as a page of its own).

The reader's path (`READER_PATH`: every page of _toc.yml but the exercise notebooks: the start
page, chapters 1-21, the errata and other prose pages, the labs, the hardware and model tables,
the glossary) is also read at 1280 px and at 390 px, as a reader sees it (test_reader_path; both
within test_page_in_browser's load of the page, resized to 390 px after the 1280 px reading, so
that the whole path costs a few seconds): no visible code that does
not teach (glue calls, asserts, nbval markers, raw True/False, more than the page's budget of
lines), every figure in a `<figure>` with a caption and alt text that describes it, drawn at
twice its displayed pixel size and, at 1280 px, shown at its own size (so that its 9 pt text
stays 9 pt), every table within the page (at 1280 px without a horizontal scroll bar; at
390 px the page itself does not scroll sideways, a wide table scrolls in its own box), every
display equation numbered and referred to from the prose and no wider than its column (none at
1280 px; at 390 px none outside WIDE_AT_390_BY_PAGE, issue 28), one search box, a key-results
box on every chapter, and no console error. On an exercise notebook's page the solutions' code
and the checks' verdicts are collapsed.

Screenshots of the start page, the first prose chapter and the first notebook of the table of
contents go to `_build/screenshots/`, and of each page of the reader's path at each width to
`_build/screenshots/reader-<page>-<width>.jpg`. The student edition (`make student`) has its own checks, in
tests/test_student_edition.py.

Needs /usr/bin/chromium ($CHROMIUM to use another binary); without it these tests are skipped
with how to install it (`sudo apt-get install chromium`), except under REQUIRE_BROWSER=1 (CI),
where that is a failure. Never let Playwright download a browser.
"""
import re
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
import yaml

from conftest import CHROMIUM, REPO, book_html_dir, book_is_built, require_playwright

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--no-first-run", "--disable-quic", "--disable-sync",
    # no host but the local server resolves: nothing leaves the machine (requests are seen,
    # recorded and failed by Browser.saw; routing every request through Playwright instead cost
    # a quarter more of Chromium's CPU per page)
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
]
LOCAL_HOST = "127.0.0.1"
VIEWPORT = {"width": 1280, "height": 900}
TIMEOUT_MS = 30_000

# --------------------------------------------------------------------------------------------
# Which pages

def page_list(root: Path) -> list[str]:
    """The English edition's pages (the Chinese edition, under zh_CN/, is another book built
    from the same sources: tests/test_editions.py checks its pages and switcher)."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.html")
                  if p.relative_to(root).parts[0] not in ("_static", "_sources", "zh_CN"))


def toc_files() -> list[str]:
    """Documents of _toc.yml in reading order (root first), without extension."""
    toc = yaml.safe_load((REPO / "_toc.yml").read_text(encoding="utf8")) or {}
    out = [toc.get("root")]

    def walk(entries):
        for e in entries or []:
            if isinstance(e, dict):
                if e.get("file"):
                    out.append(e["file"])
                walk(e.get("sections"))
                walk(e.get("chapters"))

    for part in toc.get("parts") or []:
        walk(part.get("chapters"))
    walk(toc.get("chapters"))
    walk(toc.get("sections"))
    return [str(f).removesuffix(".md").removesuffix(".ipynb") for f in out if f]


def source_kind(root: Path, page: str) -> str | None:
    """'ipynb' or 'md' for a page built from that source (the build keeps it in _sources/)."""
    stem = page.removesuffix(".html")
    for kind in ("ipynb", "md"):
        if (root / "_sources" / f"{stem}.{kind}").is_file():
            return kind
    return None


def screenshot_targets(root: Path) -> dict[str, str]:
    """page -> screenshot name: the start page, the first prose chapter, the first notebook."""
    files = toc_files()
    targets = {}
    if files and (root / f"{files[0]}.html").is_file():
        targets[f"{files[0]}.html"] = "start-page"
    chapter = next((f for f in files[1:] if source_kind(root, f + ".html") == "md"), None)
    notebook = next((f for f in files if source_kind(root, f + ".html") == "ipynb"), None)
    if chapter:
        targets[f"{chapter}.html"] = "chapter"
    if notebook:
        targets[f"{notebook}.html"] = "notebook"
    return targets


def redirect_target(root: Path, page: str) -> str | None:
    text = (root / page).read_text(encoding="utf8", errors="replace")[:2000]
    m = re.search(r'http-equiv="refresh"\s+content="\d+;\s*url=([^"]+)"', text, re.I)
    return m.group(1) if m else None


PAGES = page_list(book_html_dir()) if book_is_built() else [None]


# --------------------------------------------------------------------------------------------
# Fixtures: one server, one browser, one context for the whole module

@pytest.fixture(scope="module")
def site(book_html):
    """`python -m http.server` on 127.0.0.1 at a free port, in its own process (so that it does
    not compete with Playwright's event loop for this process's GIL)."""
    server = subprocess.Popen(
        [sys.executable, "-u", "-m", "http.server", "--bind", LOCAL_HOST, "--directory",
         str(book_html), "0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = server.stdout.readline()  # "Serving HTTP on 127.0.0.1 port 41234 (...) ..."
        m = re.search(r"port (\d+)", line)
        assert m, f"http.server did not start: {line!r}"
        yield f"http://{LOCAL_HOST}:{m.group(1)}/"
    finally:
        server.terminate()
        server.wait(timeout=10)


class Browser:
    """The context plus the requests its pages made to other hosts (which cannot resolve: see
    CHROMIUM_FLAGS), and the one tab that the page checks of a module go from page to page in
    (`tab`)."""

    def __init__(self, context):
        self.context = context
        self.foreign: list[str] = []
        self._tab = None
        context.on("request", self.saw)

    def saw(self, request):
        if not own(request.url):
            self.foreign.append(request.url)

    def tab(self) -> "Tab":
        """One tab for every page check, as a reader goes from page to page: the renderer is
        started once, not per page (a new tab per page cost a third more of Chromium's CPU)."""
        if self._tab is None or self._tab.page.is_closed():
            self._tab = Tab(self.context.new_page(), self.foreign)
        return self._tab


class Tab:
    """A page and what it records, cleared by `start` before each check: console errors and
    uncaught exceptions, failed local requests, requests in flight and every one started."""

    def __init__(self, page, foreign: list[str]):
        self.page = page
        self.console: list[str] = []
        self.failed: list[str] = []
        self.pending: dict[str, bool] = {}
        self.started: list[str] = []
        page.on("console", lambda m: self.console.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.console.append(f"uncaught: {e}"))
        page.on("request", lambda r: (self.pending.__setitem__(r.url, True),
                                      self.started.append(r.url)))
        page.on("requestfinished", lambda r: self.pending.pop(r.url, None))
        page.on("requestfailed", lambda r: (self.pending.pop(r.url, None), self.failed.append(
            f"{r.url} ({r.failure})") if local(r.url) else None))
        page.on("response", lambda r: self.failed.append(f"{r.url} (HTTP {r.status})")
                if r.status >= 400 and local(r.url) else None)
        page.on("websocket", lambda ws: None if local(ws.url) else foreign.append(ws.url))

    def start(self):
        for record in (self.console, self.failed, self.pending, self.started):
            record.clear()


def local(url: str) -> bool:
    return urlsplit(url).hostname == LOCAL_HOST


def own(url: str) -> bool:
    """A URL of the book itself: the local server, a file, or one the page makes (data:, blob:,
    about:)."""
    return local(url) or urlsplit(url).scheme in ("file", "data", "blob", "about")


#: What a redirect page's target is answered with: the redirect is followed in the browser, the
#: target itself is checked as a page of its own (rendering it again here cost 2-3 CPU-s each).
REDIRECT_LANDING = ('<!DOCTYPE html><link rel="icon" href="data:,">'  # no favicon.ico request
                    "<title>landed</title><p>landed</p>")


@pytest.fixture(scope="module")
def browser(site, tmp_path_factory, book_report, request):
    sync_playwright = require_playwright()
    started = time.monotonic()
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),  # a fresh user-data-dir
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS,
            viewport=VIEWPORT, service_workers="block")
        context.set_default_timeout(TIMEOUT_MS)
        b = Browser(context)
        try:
            yield b
        finally:
            context.close()
    pages = getattr(request.module, "PAGES_HERE" if request.module.__name__ == "test_browser"
                    else "PAGES_SECOND", None)
    what = (f"{len(pages)} pages checked" if pages is not None
            else f"{request.module.__name__}'s checks")
    book_report.append(f"browser: {what} in Chromium in {time.monotonic() - started:.1f} s")


# --------------------------------------------------------------------------------------------
# In-page checks

# Raw TeX left as text: display math, TeX commands, \( \[ delimiters, $...$ with TeX inside.
RAW_TEX = (r"\$\$|\\(?:frac|tfrac|dfrac|cdot|times|sqrt|approx|left|right|begin|end)\b"
           r"|\\[a-zA-Z]+\{|\\\(|\\\)|\\\[|\\\]|\$[^$\n]{0,80}[_^\\{][^$\n]{0,80}\$")

PAGE_CHECKS = """
async (rawTex) => {
  // images: make lazy ones load, then wait (bounded) for all of them
  for (const img of document.images) if (img.loading === 'lazy') img.loading = 'eager';
  await Promise.race([
    Promise.all([...document.images].map(i => i.complete ? null :
      new Promise(r => { i.addEventListener('load', r); i.addEventListener('error', r); }))),
    new Promise(r => setTimeout(r, 10000)),
  ]);
  const brokenImages = [...document.images].filter(i => !(i.complete && i.naturalWidth > 0))
    .map(i => i.getAttribute('src'));

  const math = [...document.querySelectorAll('.math')];
  const untypeset = math.filter(m => !m.querySelector('mjx-container'))
    .map(m => m.textContent.trim().slice(0, 80));
  const merrors = [...document.querySelectorAll('mjx-merror')]
    .map(e => e.getAttribute('data-mjx-error') || e.textContent.slice(0, 80));

  const re = new RegExp(rawTex);
  const skip = 'pre, code, script, style, textarea, mjx-container, .highlight, .linenos';
  const raw = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!n.nodeValue.trim() || n.parentElement.closest(skip)) continue;
    const m = re.exec(n.nodeValue);  // the first match of a text node is enough
    if (!m) continue;
    const where = n.parentElement.closest('[id]');
    raw.push(`${JSON.stringify(n.nodeValue.slice(Math.max(0, m.index - 30), m.index + 50))}` +
             (where ? ` (in #${where.id})` : ''));
  }
  // the typeset characters are drawn in MathJax's fonts (from _static/mathjax-fonts)
  await document.fonts.ready;
  const mathFont = math.length === 0 || [...document.fonts].some(
    f => f.family.replace(/"/g, '').startsWith('MJXTEX') && f.status === 'loaded');
  return {
    hasMath: math.length > 0,
    mjx: document.querySelectorAll('mjx-container').length,
    untypeset, merrors, raw, brokenImages, mathFont,
    mathjaxSrc: [...document.scripts].map(s => s.src).filter(s => /mathjax/i.test(s)),
  };
}
"""


SOLUTION_STATE = """
() => [...document.querySelectorAll('.solution')].map((sol, i) => {
  const details = sol.closest('details');
  const visible = e => {
    const cs = getComputedStyle(e);
    return cs.display !== 'none' && cs.visibility !== 'hidden'
      && e.getBoundingClientRect().height > 0;
  };
  const body = [...sol.children].filter(c => !c.classList.contains('admonition-title'));
  return {
    name: sol.id || `solution ${i + 1}`,
    details: !!details,
    open: details ? details.open
                  : !sol.classList.contains('toggle-hidden') || body.some(visible),
    hasTitle: !!sol.querySelector(':scope > .admonition-title'),
    hasBody: body.length > 0,
  };
})
"""


CLICK_TITLE = """(sol) => {
  const details = sol.closest('details');
  (details ? details.querySelector(':scope > summary')
           : sol.querySelector(':scope > .admonition-title')).click();
}"""


def check_solutions(page, problems: list[str]):
    """Each solution is collapsed; a click on its title (or <summary>) opens it. The first is
    clicked as a reader clicks (Playwright: visible, not covered, stable), the others by a
    click event sent from the page (the same handlers, without the ~0.2 s of checks each)."""
    before = page.evaluate(SOLUTION_STATE)
    if not before:
        return
    clicked = False
    for i, sol in enumerate(before):
        if sol["open"]:
            problems.append(f"{sol['name']}: solution shown before any click (is it a "
                            "`:class: dropdown`?)")
            continue
        if not (sol["details"] or (sol["hasTitle"] and sol["hasBody"])):
            problems.append(f"{sol['name']}: solution without a title or a body")
            continue
        target = page.locator(".solution").nth(i)
        if clicked:
            target.evaluate(CLICK_TITLE)
        elif sol["details"]:
            target.locator("xpath=ancestor-or-self::details[1]/summary").click()
        else:
            target.locator(":scope > .admonition-title").click()
        clicked = True
    after = page.evaluate(SOLUTION_STATE)
    for b, a in zip(before, after):
        if not b["open"] and b["hasBody"] and not a["open"]:
            problems.append(f"{a['name']}: solution did not open when its title was clicked")


#: On an exercise notebook's page (issue 28): the solution cells' code and the "correct" of the
#: checks are collapsed, one click away, under the question that asks the reader to write them.
EXERCISE_CELLS = r"""
() => {
  // (the content of a closed <details> keeps its box in Chromium: checkVisibility says it
  // is not rendered)
  const shown = e => e.checkVisibility() && e.getBoundingClientRect().height > 0;
  const sol = [...document.querySelectorAll('.cell.tag_solution')];
  return {solutions: sol.length,
          open: sol.filter(c => [...c.querySelectorAll('.cell_input pre')].some(shown)).length,
          verdicts: [...document.querySelectorAll('.cell_output')].filter(o => shown(o) &&
            /correct\./.test(o.innerText)).length};
}
"""


def check_exercise_cells(page, problems: list[str]):
    r = page.evaluate(EXERCISE_CELLS)
    if not r["solutions"]:
        problems.append("an exercise notebook's page without a solution cell")
    if r["open"]:
        problems.append(f"{r['open']} of {r['solutions']} solution cells show their code "
                        "(tag them hide-input)")
    if r["verdicts"]:
        problems.append(f"{r['verdicts']} check outputs ('correct.') shown (tag hide-output)")


def launch_config() -> dict:
    config = yaml.safe_load((REPO / "_config.yml").read_text(encoding="utf8"))
    repo = urlsplit(config["repository"]["url"]).path.strip("/")
    branch = config["repository"].get("branch", "main")
    buttons = config.get("launch_buttons") or {}
    return {"repo": repo, "branch": branch,
            "binder": (buttons.get("binderhub_url") or "").rstrip("/"),
            "colab": (buttons.get("colab_url") or "").rstrip("/")}


def check_launch_buttons(page, page_path: str, problems: list[str]):
    cfg = launch_config()
    notebook = page_path.removesuffix(".html") + ".ipynb"
    expected = {}
    if cfg["binder"]:
        expected["Binder"] = f"{cfg['binder']}/v2/gh/{cfg['repo']}/{cfg['branch']}?urlpath="
    if cfg["colab"]:
        expected["Colab"] = f"{cfg['colab']}/github/{cfg['repo']}/blob/{cfg['branch']}/{notebook}"
    header = page.locator(".bd-header-article")
    if not header.count():
        problems.append("no article header (.bd-header-article) for the launch buttons")
        return
    for name, prefix in expected.items():
        links = header.locator(f'a[href^="{prefix}"]')
        hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
        if not any(h.endswith(notebook) for h in hrefs):
            found = header.locator(f'a[href*="{urlsplit(prefix).hostname}"]')
            problems.append(f"no {name} launch link to {notebook} in the header (expected "
                            f"{prefix}...)" + (f"; found {found.first.get_attribute('href')}"
                                               if found.count() else ""))
    toggle = header.locator(".dropdown-launch-buttons > button")
    if toggle.count():
        toggle.first.click()
        item = header.locator(".dropdown-launch-buttons .dropdown-menu a").first
        if not (item.count() and item.is_visible()):
            problems.append("the launch-buttons menu did not open when clicked")
        page.keyboard.press("Escape")
    elif expected:
        problems.append("no launch-buttons menu in the header")


# --------------------------------------------------------------------------------------------
# The tests

#: The page's fonts, MathJax's among them, loaded: the mathematics arrives typeset, but its
#: widths are those of its own fonts only once they have loaded.
WAIT_FOR_FONTS = "() => document.fonts.ready.then(() => true)"


#: How long no request may start or be in flight before a page counts as settled [ms].
QUIET_MS = 200


def settle(page, pending: dict, started: list, problems: list[str]):
    """Wait until no request of the page has been in flight, and none started, for QUIET_MS,
    so that late ones are seen too. The page's requests are tracked by its event handlers
    (`pending`: in flight; `started`: every one so far); Playwright's "networkidle" would wait
    500 ms after the last one on every page."""
    deadline = time.monotonic() + 15
    quiet_since, seen = None, -1
    while time.monotonic() < deadline:
        if pending or len(started) != seen:
            quiet_since, seen = time.monotonic(), len(started)
        elif time.monotonic() - quiet_since >= QUIET_MS / 1000:
            return
        page.wait_for_timeout(25)  # lets Playwright deliver the page's events
    problems.append(f"the network never went idle; still loading: {sorted(pending)[:5]}")


def check_page(page_path, book_html, site, browser, build_dir):
    """The checks of one page (see the module docstring), in one load, in the module's tab."""
    root = book_html
    problems: list[str] = []
    foreign_before = len(browser.foreign)
    tab = browser.tab()
    page = tab.page
    tab.start()
    url, target = urljoin(site, page_path), redirect_target(root, page_path)
    try:
        if target:  # index.html and moved pages: a meta refresh (and a script) to the new URL
            final = urljoin(url, target)
            landing = final.split("#")[0]
            page.route(landing, lambda route: route.fulfill(
                status=200, content_type="text/html", body=REDIRECT_LANDING))
            try:
                page.goto(url, wait_until="load")
                page.wait_for_url(final)
                page.wait_for_load_state("load")
            finally:
                page.unroute(landing)
            if not (root / urlsplit(final).path.lstrip("/")).is_file():
                problems.append(f"redirects to {final}, which does not exist")
        else:
            page.goto(url, wait_until="load")
            page.evaluate(WAIT_FOR_FONTS)
            settle(page, tab.pending, tab.started, problems)
            r = page.evaluate(PAGE_CHECKS, RAW_TEX)
            if r["hasMath"] and not r["mjx"]:
                problems.append("the page has math but none of it is typeset (the build's "
                                "tools/sphinx_static_math.py did not run on it?)")
            if r["mathjaxSrc"]:
                problems.append(f"the page loads MathJax's script, which the book typesets at "
                                f"build time: {r['mathjaxSrc']}")
            if not r["mathFont"]:
                problems.append("MathJax's fonts did not load (_static/static-math.css, "
                                "_static/mathjax-fonts/)")
            if r["untypeset"]:
                problems.append(f"{len(r['untypeset'])} math element(s) not typeset, e.g. "
                                f"{r['untypeset'][:3]}")
            if r["merrors"]:
                problems.append(f"MathJax TeX errors: {r['merrors'][:5]}")
            for snippet in r["raw"][:10]:
                problems.append(f"raw TeX left as text: {snippet}")
            for src in r["brokenImages"]:
                problems.append(f"image not loaded: {src}")
            name = screenshot_targets(root).get(page_path)
            if name:  # before any click: the top of the page as a reader first sees it
                shots = build_dir / "screenshots"
                shots.mkdir(exist_ok=True)
                page.screenshot(path=str(shots / f"{name}.png"))
            if page_path in READER_PATH:  # the reader's checks, in this same load
                read_as_reader(page, page_path, VIEWPORT["width"], build_dir)
                page.set_viewport_size(PHONE)  # a relayout costs far less than a reload
                read_as_reader(page, page_path, PHONE["width"], build_dir)
                page.set_viewport_size(VIEWPORT)
            follow_widgets(page_path, site, tab)  # before anything on the page is clicked
            check_solutions(page, problems)
            if "/exercises/" in page_path:
                check_exercise_cells(page, problems)
            if source_kind(root, page_path) == "ipynb":
                check_launch_buttons(page, page_path, problems)
            if page_path == "search.html":
                check_search(page, site, problems)
            settle(page, tab.pending, tab.started, problems)
    except Exception:
        page.close()  # the next check starts in a new tab, not in whatever this one was doing
        raise

    # a redirect page's own request may be cut short by the redirect itself (its script
    # replaces the location at once): that is the redirect working, not a failed request
    cut_short = f"{url} (net::ERR_ABORTED)" if target else None
    problems += [f"JavaScript error: {msg}" for msg in tab.console]
    problems += [f"failed request: {f}" for f in tab.failed if f != cut_short]
    problems += [f"request to another host (not resolved; the book must not need the network): {u}"
                 for u in browser.foreign[foreign_before:]]
    problems = list(dict.fromkeys(problems))  # a page loaded twice reports things twice
    assert not problems, f"{page_path}:\n" + "\n".join(problems)


#: What test_widget_follows_its_controls found, by (page, widget): None (passed) or the error it
#: raised, in check_page's load of the page, at 1280 px after the reader's checks (which only
#: read the page) and before any click: one load of each calculator's page less.
WIDGETS_CHECKED: dict[tuple[str, str], Exception | None] = {}


def follow_widgets(page_path: str, site: str, tab: "Tab") -> None:
    """test_browser_widgets.follow_controls for each widget of the loaded page, its outcome
    kept in WIDGETS_CHECKED (the page's JavaScript errors, which that check reports too, stay
    in the page check's own list)."""
    for p, name in WIDGET_PAGES:
        if p == page_path:
            tab.page.errors = tab.console
            try:
                follow_controls(page_path, name, site, tab.page, loaded=True)
                WIDGETS_CHECKED[(p, name)] = None
            except Exception as error:  # noqa: BLE001 - raised by test_widget_follows_its_controls
                WIDGETS_CHECKED[(p, name)] = error


def check_widget_page(page_path: str, name: str, site: str, browser: "Browser") -> None:
    """test_widget_follows_its_controls: the outcome check_page found in its load of the page,
    or, where that did not run (the test selected alone, or the page check stopped before), the
    check in a load of its own."""
    if (page_path, name) in WIDGETS_CHECKED:
        error = WIDGETS_CHECKED[(page_path, name)]
        if error is not None:
            raise error
        return
    tab = browser.tab()
    tab.start()
    tab.page.set_viewport_size(VIEWPORT)
    tab.page.errors = tab.console
    follow_controls(page_path, name, site, tab.page)


def check_search(page, site, problems):
    """Sphinx's search works offline: a query for a word of the book's title finds pages."""
    config = yaml.safe_load((REPO / "_config.yml").read_text(encoding="utf8"))
    word = max(re.findall(r"[A-Za-z]{4,}", config.get("title", "")) or ["book"], key=len)
    page.goto(urljoin(site, f"search.html?q={word}"), wait_until="load")
    try:
        page.wait_for_selector("#search-results ul.search li", timeout=15_000)
    except Exception:  # playwright's TimeoutError
        problems.append(f"searching for {word!r} found nothing (search.html?q={word})")
    # issue 28: the search page's own field and the header's search button made two
    shown = page.evaluate("""() => [...document.querySelectorAll(
        'button.search-button, .search-button-field, form.bd-search')].filter(e => {
        const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; }).length""")
    if shown != 1:
        problems.append(f"the search page shows {shown} search fields or buttons (one, please)")


# --------------------------------------------------------------------------------------------
# The reader's path, at a desktop and a phone width (issue 17)

def reader_path() -> list[str]:
    """Every page of _toc.yml that a reader reads, in reading order: the start page, the
    chapters (reproductions included), the errata and the other prose pages, the labs, the
    hardware and model tables, the glossary. The exercise notebooks are left out: they are
    their chapters' exercises with the solutions' code, which a learner is meant to read (and
    which is collapsed on the chapters' own pages), so the visible-code budget means nothing
    there."""
    return [f"{f}.html" for f in toc_files() if not f.startswith("notebooks/exercises/")]


READER_PATH = reader_path()
WIDTHS = [1280, 390]


def halves(pages: list) -> tuple[list, list]:
    """The pages in two halves, this file's and tests/test_browser_pages_second.py's, which
    pytest-xdist runs side by side (this file alone would be the longest of the suite): the
    reader's path and the other pages dealt alternately; the screenshot pages here, where
    test_screenshots_were_taken looks for them."""
    shots = set(screenshot_targets(book_html_dir())) if book_is_built() else set()
    first, second = [], []
    reader = [p for p in pages if p in READER_PATH]
    for group in (reader, [p for p in pages if p not in reader]):
        for i, p in enumerate(group):
            (first if p in shots or i % 2 == 0 else second).append(p)
    return [p for p in pages if p in first], [p for p in pages if p in second]


PAGES_HERE, PAGES_SECOND = halves(PAGES)


@pytest.mark.parametrize("page_path", PAGES_HERE)
def test_page_in_browser(page_path, book_html, site, browser, build_dir):
    check_page(page_path, book_html, site, browser, build_dir)


# The calculators' checks (tests/test_browser_widgets.py, which takes this module's server,
# browser and viewport: imported here, once those are defined)
from test_browser_widgets import WIDGET_PAGES, follow_controls  # noqa: E402


@pytest.mark.parametrize("page_path,name", [w for w in WIDGET_PAGES if w[0] in PAGES_HERE],
                         ids=lambda v: v.split("/")[-1])
def test_widget_follows_its_controls(page_path, name, site, browser):
    """The calculator `name` on its page, served over HTTP (test_browser_widgets.follow_controls):
    the starting numbers, then each control moved in turn, against Python; the ES module
    formulas.js imports and equals the page's script; the explorer's table is the Python
    explorer's. Run in test_page_in_browser's load of the page (WIDGETS_CHECKED)."""
    check_widget_page(page_path, name, site, browser)


def test_screenshots_were_taken(book_html, build_dir, browser):
    """The page tests above saved them; here only say which and where (run after them)."""
    missing = [f"{name}.png ({page})" for page, name in screenshot_targets(book_html).items()
               if not (build_dir / "screenshots" / f"{name}.png").is_file()]
    assert not missing, f"screenshots not written to {build_dir / 'screenshots'}: {missing}"


PHONE = {"width": 390, "height": 844}
#: Visible code lines a page of the reader's path may show (exercise solutions are collapsed;
#: the `parameters` cell, the setting a reader may change, does not count).
READER_CODE_BUDGET = 40

READER_CHECKS = r"""
() => {
  const art = document.querySelector('.bd-article');
  const shown = e => {
    const r = e.getBoundingClientRect(), cs = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && cs.visibility !== 'hidden' && cs.display !== 'none';
  };
  const out = {code: [], codeLines: 0, rawTrue: [], figures: [], tables: [], equations: [],
               wideEquations: [],
               unnumbered: [], searches: 0, keyResults: 0, docWidth: 0, viewWidth: 0};
  if (!art) return out;
  for (const pre of art.querySelectorAll('.cell_input pre')) {
    if (!shown(pre)) continue;
    const text = pre.innerText;
    out.code.push(text);
    const cell = pre.closest('.cell');
    // the parameters cell (the setting a reader may change) is outside the budget
    if (!(cell && cell.classList.contains('tag_parameters')))
      out.codeLines += text.split('\n').filter(l => l.trim()).length;
    for (const o of (cell ? cell.querySelectorAll('.cell_output pre') : []))
      if (o.innerText.split('\n').some(l => ['True', 'False'].includes(l.trim())))
        out.rawTrue.push(text.slice(0, 60));
  }
  for (const img of art.querySelectorAll('img')) {
    const fig = img.closest('figure');
    const cap = fig && fig.querySelector('figcaption');
    const r = img.getBoundingClientRect();
    out.figures.push({
      src: img.getAttribute('src'), alt: img.getAttribute('alt') || '',
      caption: cap ? cap.innerText.trim() : '', id: fig ? fig.id : '',
      shown: r.width, own: parseFloat(img.style.width || img.getAttribute('width') || '0'),
      natural: img.naturalWidth,
    });
  }
  for (const t of art.querySelectorAll('table')) {
    const box = t.closest('.pst-scrollable-table-container') || t.parentElement;
    out.tables.push({id: t.id || (t.querySelector('caption') || {}).innerText || '',
                     width: t.getBoundingClientRect().width, boxWidth: box.clientWidth,
                     scroll: box.scrollWidth - box.clientWidth,
                     article: art.clientWidth});
  }
  const hrefs = new Set([...document.querySelectorAll('a[href*="#equation-"]')]
    .filter(a => !a.classList.contains('headerlink')).map(a => a.getAttribute('href').split('#')[1]));
  for (const m of art.querySelectorAll('div.math')) {
    const c = m.querySelector('mjx-container');
    // (4 px of slack: a glyph's side bearing, which differs by a pixel or two between loads)
    if (c && c.scrollWidth > c.clientWidth + 4)
      out.wideEquations.push({id: m.id, need: c.scrollWidth, have: c.clientWidth,
                              number: (m.querySelector('.eqno') || {}).innerText || ''});
    if (!m.querySelector('.eqno')) { out.unnumbered.push(m.innerText.slice(0, 60)); continue; }
    out.equations.push({id: m.id, referenced: hrefs.has(m.id)});
  }
  out.searches = [...document.querySelectorAll(
      'button.search-button, .search-button-field, .bd-search, form[role=search] input')]
    .filter(shown).length;
  out.keyResults = art.querySelectorAll('.admonition.key-results').length;
  out.docWidth = document.documentElement.scrollWidth;
  out.viewWidth = window.innerWidth;
  return out;
}
"""
FORBIDDEN_CODE = [(re.compile(r"\bglue(?:_math|_figure)?\("), "a glue call"),
                  (re.compile(r"^\s*assert\b", re.M), "an assert"),
                  (re.compile(r"#\s*NBVAL_"), "an nbval marker")]


#: Display equations still wider than a phone's column (390 px), by page: each needs line breaks
#: (`glue_math(..., multiline=True)` for a generated one, `aligned`/`gathered` in Markdown).
#: At 1280 px every equation fits, and one that comes to fit at 390 px must leave this list.
WIDE_AT_390_BY_PAGE: dict[str, set[str]] = {}
WIDE_AT_390 = set().union(*WIDE_AT_390_BY_PAGE.values())


def reader_problems(r: dict, page_path: str, width: int) -> list[str]:
    problems = []
    for code in r["code"]:
        for pattern, what in FORBIDDEN_CODE:
            if pattern.search(code):
                problems.append(f"visible code with {what}: {code[:80]!r}")
    if r["codeLines"] > READER_CODE_BUDGET:
        problems.append(f"{r['codeLines']} lines of visible code (budget {READER_CODE_BUDGET})")
    problems += [f"visible code prints a raw True/False: {c!r}" for c in r["rawTrue"]]
    for f in r["figures"]:
        name = f["id"] or f["src"]
        if not f["caption"]:
            problems.append(f"figure {name} has no caption")
        if len(f["alt"]) < 20 or re.search(r"\.(png|svg|jpe?g)\b|^\S*/\S*$", f["alt"]):
            problems.append(f"figure {name}: alt text does not describe it: {f['alt']!r}")
        if width >= 1280 and f["own"] and f["natural"] < 1.9 * f["own"]:
            problems.append(f"figure {name}: {f['natural']} px drawn for {f['own']:.0f} px "
                            "shown (PNG at twice the size, please)")
        if width >= 1280 and f["own"] and f["shown"] < f["own"] - 1:
            problems.append(f"figure {name} shrunk to {f['shown']:.0f} of {f['own']:.0f} px: "
                            "its text is smaller than 9 pt")
    for t in r["tables"]:
        if width >= 1280 and (t["scroll"] > 1 or t["width"] > t["article"] + 1):
            problems.append(f"table {t['id']!r} is {t['width']:.0f} px wide in a "
                            f"{t['boxWidth']} px box: it scrolls sideways at {width} px")
    if r["docWidth"] > r["viewWidth"] + 1:
        problems.append(f"the page is {r['docWidth']} px wide at a {r['viewWidth']} px "
                        "window: it scrolls sideways")
    for eq in r["wideEquations"]:
        if width >= 1280 or eq["id"].removeprefix("equation-") not in WIDE_AT_390:
            problems.append(f"display equation {eq['number'] or eq['id']} is {eq['need']} px "
                            f"wide in a {eq['have']} px column: it is cut off at {width} px")
    if width < 1280:
        narrow = {eq["id"].removeprefix("equation-") for eq in r["wideEquations"]}
        problems += [f"equation {e} now fits at {width} px: take it out of WIDE_AT_390"
                     for e in sorted(WIDE_AT_390_BY_PAGE.get(page_path, set()) - narrow)]
    for eq in r["equations"]:
        if not eq["referenced"]:
            problems.append(f"equation {eq['id']} is numbered but never referred to")
    problems += [f"display equation without a number: {u!r}" for u in r["unnumbered"]]
    if r["searches"] != 1:
        problems.append(f"{r['searches']} search boxes visible (one, please)")
    if re.match(r"notebooks/\d\d-", page_path) and not r["keyResults"]:
        problems.append("no key-results box")
    return problems


#: Pages of the reader's path not yet converted to book/STYLE.md (expected to fail; remove a page
#: from here when it is converted).
READER_PATH_PENDING: set[str] = set()


#: READER_CHECKS' results by (page, width), filled by test_page_in_browser: the page is loaded
#: once, read at 1280 px, then resized to 390 px and read again (CSS media queries apply at
#: once; the typeset mathematics does not depend on the width). When this was written, the 390 px
#: results of a resize equalled those of a fresh load at 390 px on every page of the path, at a
#: fifth of the cost.
READER_RESULTS: dict[tuple[str, int], dict] = {}


def read_as_reader(page, page_path: str, width: int, build_dir: Path,
                   edition: str = "") -> dict:
    """READER_CHECKS on a loaded page (before any click), a screenshot (`edition`: a prefix
    of its name, for another edition's page of the same name), the result cached."""
    r = page.evaluate(READER_CHECKS)
    shots = build_dir / "screenshots"
    shots.mkdir(exist_ok=True)
    # JPEG: a screenshot to look at, in about half the time of a PNG (132 of them a run)
    page.screenshot(path=str(shots / f"reader-{edition}{Path(page_path).stem}-{width}.jpg"),
                    type="jpeg", quality=70)
    READER_RESULTS[(page_path, width)] = r
    return r


@pytest.fixture(scope="module")
def reader_phone(browser):
    """One page at 390 x 844 px, reused for every page of the reader's path that
    test_page_in_browser did not read (test_reader_path run alone); its console errors
    collected in page.errors (emptied by each test)."""
    page = browser.context.new_page()
    page.set_viewport_size(PHONE)
    page.errors = []
    page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: page.errors.append(f"uncaught: {e}"))
    yield page
    page.close()


def reader_params(pages: list[str]) -> list:
    return [pytest.param(p, marks=pytest.mark.xfail(strict=True, reason="not yet converted"))
            if p in READER_PATH_PENDING else p for p in READER_PATH if p in pages]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("page_path", reader_params(PAGES_HERE))
def test_reader_path(page_path, width, book_html, site, browser, build_dir, request):
    check_reader(page_path, width, book_html, site, browser, build_dir, request)


def check_reader(page_path, width, book_html, site, browser, build_dir, request):
    """The checks ran in test_page_in_browser's load of the page, at both widths (its console
    errors are reported there). Run alone (-k), this test loads the page itself: at 1280 px in
    a new page, at 390 px in one page object that goes from page to page (loaded, its fonts
    awaited, no network-idle wait: nothing the checks read at this width arrives
    later; images are checked at 1280 px)."""
    if not (book_html / page_path).is_file():
        pytest.fail(f"{page_path} is not in the build")
    console: list[str] = []
    r = READER_RESULTS.get((page_path, width))
    if r is None and width == VIEWPORT["width"]:
        page = browser.context.new_page()
        page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: console.append(f"uncaught: {e}"))
        try:
            page.goto(urljoin(site, page_path), wait_until="load")
            page.evaluate(WAIT_FOR_FONTS)
            page.wait_for_load_state("networkidle", timeout=15_000)
            r = read_as_reader(page, page_path, width, build_dir)
        finally:
            page.close()
    elif r is None:
        page = request.getfixturevalue("reader_phone")
        page.errors.clear()
        page.goto(urljoin(site, page_path), wait_until="load")
        page.evaluate(WAIT_FOR_FONTS)
        r = read_as_reader(page, page_path, width, build_dir)
        console = list(page.errors)
    problems = reader_problems(r, page_path, width)
    problems += [f"JavaScript error: {msg}" for msg in console]
    assert not problems, f"{page_path} at {width} px:\n" + "\n".join(problems)
