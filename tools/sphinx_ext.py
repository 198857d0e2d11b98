"""The book's own Sphinx extension (named in ``_config.yml``, ``sphinx.local_extensions``).

* **Redirects.** ``book_redirects`` maps an old page (a docname, e.g. ``notebooks/ch01-puzzle``)
  to the page that replaced it. After the HTML is written, each old page becomes a static page
  that forwards at once (``<meta http-equiv="refresh">``, with the ``#fragment`` kept by one
  line of script) and links to the new page for readers without either. Nothing is fetched at
  build time.

>>> print(redirect_html("notebooks/ch01-puzzle", "notebooks/01-puzzle").splitlines()[4])
<meta http-equiv="refresh" content="0; url=01-puzzle.html">

* **Figures and tables of an unnumbered page** (the labs, the back matter) are numbered from 1
  on each page, as a chapter's are within the chapter. Sphinx counts them across every
  unnumbered page, so that the hardware table's first table was "Table 5" (issue 28).

>>> numbers = {"a": {"table": {"t1": (5,), "t2": (6,)}, "figure": {"f": (3,)}},
...            "b": {"table": {"t": (2, 1)}}}
>>> renumber_unnumbered(numbers)["a"]
{'table': {'t1': (1,), 't2': (2,)}, 'figure': {'f': (1,)}}
>>> numbers["b"]
{'table': {'t': (2, 1)}}

* **Speed.** :mod:`tools.sphinx_speed`: numbered references and citation styles looked up
  once; a translated message's parse builds no throw-away document and reuses the Markdown
  parser.
"""
from __future__ import annotations

import gettext
import html
import posixpath
import re
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform

from tools import sphinx_speed

__all__ = ["setup", "redirect_html", "renumber_unnumbered", "translate_attributes"]


def _relative(source: str, target: str) -> str:
    """URL of ``target``'s page from ``source``'s page (both docnames)."""
    here = posixpath.dirname(source) or "."
    return posixpath.relpath(f"{target}.html", here)


def redirect_html(source: str, target: str, language: str = "en") -> str:
    """The static page that replaces ``source`` and forwards to ``target``, in the edition's
    ``language`` (UNCATALOGUED_WORDS)."""
    url = html.escape(_relative(source, target), quote=True)
    words = UNCATALOGUED_WORDS.get(language, {})
    moved, has_moved = (words.get(w, w) for w in ("Moved to", "This page has moved: {link}."))
    link = f'<a href="{url}">{html.escape(target)}</a>'
    return "\n".join([
        "<!DOCTYPE html>",
        f'<html lang="{language.replace("_", "-")}">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="refresh" content="0; url={url}">',
        f'<link rel="canonical" href="{url}">',
        f"<title>{moved} {html.escape(target)}</title>",
        f"<script>location.replace({url!r} + location.hash);</script>",
        "</head>",
        f"<body><p>{has_moved.format(link=link)}</p></body>",
        "</html>",
        "",
    ])


def _write_redirects(app: Any, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    for source, target in (app.config.book_redirects or {}).items():
        if source in app.env.found_docs:
            raise ValueError(f"book_redirects: {source!r} is still a page of the book")
        if target not in app.env.found_docs:
            raise ValueError(f"book_redirects: {source!r} -> {target!r}, which is not a page")
        path = out / f"{source}.html"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(redirect_html(source, target, app.config.language or "en"),
                        encoding="utf8")


def renumber_unnumbered(fignumbers: dict[str, dict[str, dict[str, tuple[int, ...]]]]) -> dict:
    """Number the figures, tables and listings of each page without a chapter number (every
    number a 1-tuple) from 1 within the page, in their order; in place, and returned."""
    for types in fignumbers.values():
        if all(len(n) == 1 for ids in types.values() for n in ids.values()):
            for ids in types.values():
                for i, key in enumerate(sorted(ids, key=ids.__getitem__), start=1):
                    ids[key] = (i,)
    return fignumbers


def _install_page_numbering() -> None:
    from sphinx.environment.collectors.toctree import TocTreeCollector

    assign = TocTreeCollector.assign_figure_numbers
    if getattr(assign, "book_per_page", False):
        return

    def assign_figure_numbers(self: Any, env: Any) -> list[str]:
        old = env.toc_fignumbers  # Sphinx replaces the dict, so this one stays the last build's
        rewrite = set(assign(self, env))
        renumber_unnumbered(env.toc_fignumbers)
        changed = rewrite | set(env.toc_fignumbers) | set(old)
        return sorted(d for d in changed if env.toc_fignumbers.get(d) != old.get(d))

    assign_figure_numbers.book_per_page = True
    TocTreeCollector.assign_figure_numbers = assign_figure_numbers


def package_version() -> str:
    """The project's one version: ``llm_arithmetic.__version__`` (the wheel reads it too)."""
    from llm_arithmetic import __version__

    return __version__


def substitutions(config: Any) -> dict[str, str]:
    """MyST's substitutions with ``version`` set (any others from the configuration kept)."""
    return {**(getattr(config, "myst_substitutions", None) or {}), "version": package_version()}


def _config_inited(app: Any, config: Any) -> None:
    # the start page shows {{ version }}; Sphinx's version and release follow the package
    config.myst_substitutions = substitutions(config)
    config.version = config.release = package_version()
    # Jupyter Book's search box text is English in every edition; without it, sphinx-book-theme
    # writes its catalog's "Search" and "..." (EXTENSION_WORDS: 搜索...)
    options = config.html_theme_options
    if config.language not in (None, "", "en") and \
            options.get("search_bar_text") == "Search this book...":
        config.html_theme_options = {k: v for k, v in options.items() if k != "search_bar_text"}


#: The editions' languages, their names as a reader looks for them, and where each edition's
#: root is: English at the book's root, every other language in a folder named by its code.
EDITION_NAMES = {"en": "English", "zh_CN": "中文"}


def edition_switcher(docname: str, language: str, editions: list[str]) -> str:
    """The links from page `docname` of the `language` edition to the same page of the others.

    >>> edition_switcher("notebooks/04-kv-cache", "en", ["en", "zh_CN"])
    '<nav class="book-editions" aria-label="Language"><a href="../zh_CN/notebooks/04-kv-cache.html" hreflang="zh-CN" lang="zh-CN">中文</a></nav>'
    >>> edition_switcher("book/intro", "zh_CN", ["en", "zh_CN"])
    '<nav class="book-editions" aria-label="Language"><a href="../../book/intro.html" hreflang="en" lang="en">English</a></nav>'
    """
    up = "../" * docname.count("/")
    root = up if language == "en" else up + "../"  # this edition's root -> the book's root
    links = []
    for other in editions:
        if other == language:
            continue
        folder = "" if other == "en" else f"{other}/"
        tag = other.replace("_", "-")
        links.append(f'<a href="{root}{folder}{docname}.html" hreflang="{tag}" lang="{tag}">'
                     f"{EDITION_NAMES.get(other, other)}</a>")
    return f'<nav class="book-editions" aria-label="Language">{"".join(links)}</nav>'


def _switcher(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    editions = list(app.config.book_editions or [])
    if len(editions) < 2 or doctree is None or "body" not in context:
        return
    language = app.config.language or "en"
    context["body"] = edition_switcher(pagename, language, editions) + context["body"]


def _in_cell_output(node: Any) -> bool:
    while node is not None:
        if "cell_output" in (node.get("classes", []) if hasattr(node, "get") else []):
            return True
        node = node.parent
    return False


class GeneratedTableData(SphinxTransform):
    """On the pages of `book_data_tables` (the hardware and model tables), the body cells of
    the tables that the notebook's code printed are data: chip and model names, numbers with
    units, notes from the catalogs' records. They stay out of the translation catalogs (not
    translatable), so a changed figure never leaves a stale or an untranslated string behind;
    the pages' prose, captions and column headers are translated. (The glossary's tables are
    prose, the symbols' meanings: translated.) Runs before Sphinx's Locale transform (20)."""

    default_priority = 10

    def apply(self, **kwargs: Any) -> None:
        if self.env.docname not in (self.config.book_data_tables or []):
            return
        for body in self.document.findall(nodes.tbody):
            if not _in_cell_output(body):
                continue
            for text in body.findall(nodes.TextElement):
                text["translatable"] = False


def translatable_exercise_titles(app: Any) -> None:
    """An exercise's title (` ```{exercise} The batch that saturates an H100 `) is a message of
    the page's catalog, translated like its prose. sphinx-exercise parses the title into a
    subtitle node with no source, line or raw text, and at write time folds it into a new title
    node, so Sphinx's gettext builder never saw it and the Chinese edition showed every
    exercise title in English. Here the directives are sphinx-exercise's own with the subtitle
    given the directive's argument as its raw text and the directive's place as its source and
    line (what Sphinx's Locale transform, at read time, needs to translate it), and for the
    gettext builder the folded title gets them back (`ExerciseTitleMessages`)."""
    from sphinx_exercise.directive import ExerciseDirective, ExerciseStartDirective
    from sphinx_exercise.nodes import exercise_subtitle

    def with_source(base: type) -> type:
        def run(self: Any) -> list:
            result = base.run(self)
            if self.arguments:
                source, line = self.get_source_info()
                for node in result:
                    for subtitle in node.findall(exercise_subtitle):
                        subtitle.rawsource = self.arguments[0]
                        subtitle.source, subtitle.line = source, line
                        node["book_subtitle"] = (self.arguments[0], source, line)
            return result

        return type(base.__name__, (base,), {"run": run})

    app.setup_extension("sphinx_exercise")
    for name, base in (("exercise", ExerciseDirective),
                       ("exercise-start", ExerciseStartDirective)):
        app.add_directive(name, with_source(base), override=True)
    app.add_post_transform(ExerciseTitleMessages)


def page_catalog(config: Any, srcdir: Any, docname: str) -> Any:
    """Page ``docname``'s compiled catalog in the edition's language (``locale_dirs``), as
    Sphinx's Locale transform reads it; None for English or where there is none."""
    from sphinx.locale import init as init_locale
    from sphinx.util.i18n import docname_to_domain

    if not config.language or config.language == "en":
        return None
    domain = docname_to_domain(docname, config.gettext_compact)
    folders = [str(Path(srcdir) / d) for d in config.locale_dirs]
    catalog, found = init_locale(folders, config.language, domain)
    return catalog if found else None


class TranslatedPartCaptions(SphinxTransform):
    """The parts' captions of the table of contents ("Foundations", "Serving", ...) in the
    page's language. Jupyter Book inserts the toctrees that carry them into the root page
    (sphinx-external-toc's transform, priority 100) after Sphinx's Locale transform (priority 20)
    has translated the page, so the Chinese edition's sidebar and start page showed every part
    in English although the root page's catalog translates them (the gettext builder extracts
    the inserted captions). Here, just after the insertion, each caption takes its translation
    from that catalog, as the Locale transform would have given it."""

    default_priority = 101

    def apply(self, **kwargs: Any) -> None:
        from sphinx import addnodes

        toctrees = [n for n in self.document.findall(addnodes.toctree) if n.get("rawcaption")]
        catalog = toctrees and page_catalog(self.config, self.env.srcdir, self.env.docname)
        for toctree in toctrees if catalog else ():
            english = toctree["rawcaption"]
            translated = catalog.gettext(english)
            if translated != english:
                toctree.apply_translated_message(english, translated)


def _translated_title(app: Any, env: Any) -> None:
    """The book's title (``html_title``: _config.yml's ``title``, which Jupyter Book sets) as
    the root page's catalog translates it (the root page's heading is that title), for the
    edition's sidebar and window titles. Set once the pages are read (the catalogs are compiled
    by then) and before the HTML builder reads it for its pages."""
    catalog = page_catalog(app.config, app.srcdir, app.config.root_doc)
    if catalog is not None and app.config.html_title:
        app.config.html_title = catalog.gettext(app.config.html_title)


class ExerciseTitleMessages(SphinxPostTransform):
    """The gettext builder's half of `translatable_exercise_titles`: after sphinx-exercise's
    post-transform (priority 20) has folded an exercise's subtitle into a title node of its
    own, that title carries the subtitle's raw text, source and line (and the `uid` that the
    builder requires of a message's node, which a node made after reading lacks), so that the
    builder extracts the title as the page's message."""

    default_priority = 21
    builders = ("gettext",)

    def run(self, **kwargs: Any) -> None:
        for node in self.document.findall(nodes.Element):
            if "book_subtitle" in node and isinstance(node.children[0], nodes.title):
                title = node.children[0]
                title.rawsource, title.source, title.line = node["book_subtitle"]
                title.uid = ""  # the builder skips a node with none, as for a toctree's


#: A glue role whose key names no page: `{glue:text}`key:fmt``, `{glue}`key``.
_LOCAL_GLUE = re.compile(r"(\{glue(?::\w+)?\}`)(?![^`]*::)([^`]+`)")


def _page_glue(source: str, page: str) -> str:
    """Each local glue role of `source` given its page (glue_in_translations)."""
    def paged(match: re.Match) -> str:
        role, body = match.groups()
        if role == "{glue:text}`" and ":" not in body:
            body = body[:-1] + ":s`"
        return f"{role}{page}::{body}"

    return _LOCAL_GLUE.sub(paged, source)


def _adoptable(patch: Any) -> Any:
    """A translated message's nodes, told to belong to whichever document adopts them.

    Sphinx parses a translation as a small document of its own and moves its nodes into the
    page; docutils gave each node a reference to that small document, whose settings still
    hold the whole build environment. Pickled with the page, those references made each
    Chinese doctree carry a copy of the environment (231 MB of doctrees against the English
    16 MB, and a second to unpickle each of the 81 times the build reads one). A node without
    its own reference asks its parent, so after the move it reports the page's document.

    >>> from docutils import nodes, utils
    >>> from docutils.frontend import get_default_settings
    >>> from docutils.parsers.rst import Parser
    >>> small = utils.new_document("<translated>", get_default_settings(Parser))
    >>> p = nodes.paragraph(); small += p; p += nodes.strong("", "x")
    >>> _adoptable(p) is p, "_document" in p[0].__dict__, p[0].document is small
    (True, False, True)
    """
    if not isinstance(patch, nodes.document):
        for node in patch.findall():
            node.__dict__.pop("_document", None)
    return patch


def glue_in_translations() -> None:
    """Glued numbers inside translated text. Sphinx parses each translated message as a
    document of its own, whose notebook (myst-nb's) is empty, so a `{glue:text}`key`` role in
    a translation found no key ("No key ... found in glue data for this document") and a
    translation could not carry a computed number. Before a message is parsed, each such role
    is given its page (`{glue:text}`/notebooks/glossary.ipynb::key``), myst-nb's reference to
    another page's glued value, resolved from the values the page stored when it was read.
    Installed once; an English build parses no message.

    >>> _page_glue("holds {glue:text}`n:d` and {glue}`q::m` symbols", "/p.ipynb")
    'holds {glue:text}`/p.ipynb::n:d` and {glue}`q::m` symbols'

    A `{glue:text}` role with no format gets myst-nb's default one, `s`: with a page, the role
    reads the text after its last colon as the format, so `/p.ipynb::key` would look up the key
    `/p.ipynb:` (a warning).

    >>> _page_glue("none: {glue:text}`names`.", "/p.ipynb")
    'none: {glue:text}`/p.ipynb::names:s`.'
    """
    from sphinx.transforms import i18n

    if getattr(i18n.publish_msgstr, "_glue_aware", False):
        return
    original = i18n.publish_msgstr

    def publish_msgstr(app: Any, source: str, source_path: str, *args: Any) -> Any:
        if "{glue" in source and app.env.docname:
            page = "/" + Path(app.env.doc2path(app.env.docname, False)).as_posix()
            source = _page_glue(source, page)
        return _adoptable(original(app, source, source_path, *args))

    publish_msgstr._glue_aware = True  # type: ignore[attr-defined]
    i18n.publish_msgstr = publish_msgstr


def fast_chinese_search() -> None:
    """Sphinx 7.4's Chinese search index keeps every Latin word it has seen in a list and
    looks each word up in it (`word in self.latin_terms`): quadratic, 17 of the Chinese
    build's 47 CPU-seconds (profiled). The same words in a set: the same index, in linear
    time. (Sphinx segments Chinese text only with jieba, which the book does not install:
    the Chinese edition's search finds Latin words, as the English one does.)"""
    from sphinx import search
    from sphinx.search import zh

    class SearchChinese(zh.SearchChinese):
        def init(self, options: dict[str, str]) -> None:
            super().init(options)
            self.latin_terms = set()  # type: ignore[assignment]

        def split(self, input: str) -> list[str]:
            chinese = list(zh.jieba.cut_for_search(input)) if zh.JIEBA else []
            latin = [term.strip() for term in self.latin1_letters.findall(input)]
            self.latin_terms.update(latin)  # type: ignore[attr-defined]
            return chinese + latin

    search.languages["zh"] = SearchChinese


#: Words an extension asks its own message catalog for that its catalog in the edition's language
#: lacks or gets wrong: sphinx-exercise's Chinese catalog has "Solution to" but not "Solution",
#: the title of every solution in the book's `solution_follow_exercise` style; sphinx-book-theme's
#: lacks the words of its header's buttons and menus (the repository menu, the launch buttons and
#: their logos' alternative text) and of its search box, and prints "Print to PDF" in Taiwan's
#: wording (列印成 PDF); Sphinx's lacks the tips of its permalinks ("Link to this heading", ...);
#: pydata-sphinx-theme's those of its colour-mode button, and it "translates" its footer's "©
#: Copyright" into the same English. {language: {(catalog, English): translation}}; each word
#: is set in the extension's catalog, in place of what that catalog had.
EXTENSION_WORDS: dict[str, dict[tuple[str, str], str]] = {
    "zh_CN": {("exercise", "Solution"): "解答",
              ("booktheme", "Repository"): "源码库",
              ("booktheme", "Source repositories"): "源码库",
              ("booktheme", "Open issue"): "创建议题",
              ("booktheme", "Show source"): "显示源码",
              ("booktheme", "Suggest edit"): "建议修改",
              ("booktheme", "Launch on"): "启动",
              ("booktheme", "Launch interactive content"): "启动交互式内容",
              ("booktheme", "Search"): "搜索",
              ("booktheme", "logo"): "标志",
              ("booktheme", "Print to PDF"): "打印为 PDF",
              # Sphinx's own (catalog "sphinx"): its permalinks' tips
              ("sphinx", "Link to this heading"): "链接到此标题",
              ("sphinx", "Link to this equation"): "链接到此公式",
              ("sphinx", "Link to this table"): "链接到此表格",
              ("sphinx", "Link to this term"): "链接到此术语",
              ("sphinx", "Link to this image"): "链接到此图片",
              ("sphinx", "Link to this code"): "链接到此代码",
              ("sphinx", "Link to this definition"): "链接到此定义",
              # pydata-sphinx-theme's (catalog "sphinx"): the colour-mode button, the footer
              ("sphinx", "Color mode"): "颜色模式",
              ("sphinx", "System Settings"): "跟随系统",
              ("sphinx", "© Copyright %(copyright)s."): "© 版权所有 %(copyright)s。"},
}

#: Texts the themes and extensions write without asking any catalog: as attributes (a screen
#: reader reads them; a pointer's tip shows a title), sphinx-book-theme's sidebar buttons and its
#: navigation landmarks, myst-nb's toggle of a hidden cell, the language switcher's landmark
#: (:func:`edition_switcher`); as text, myst-nb's prompts of a hidden cell ("Show code cell
#: source", its ``nb_code_prompt_show`` with the part filled in), this extension's redirect
#: pages and the printed book's title page (``make pdf``: the author and the version). An attribute is replaced only where its whole ``title``, ``aria-label`` or ``alt``
#: value is the English (:func:`translate_attributes`, on every page the edition writes); a
#: prompt where it is the whole prompt (:class:`TranslatedCellPrompts`). {language: {English:
#: translation}}
UNCATALOGUED_WORDS: dict[str, dict[str, str]] = {
    "zh_CN": {"Toggle primary sidebar": "切换主侧边栏",
              "Toggle secondary sidebar": "切换次侧边栏",
              "Main": "主导航",
              "Page": "本页目录",
              "Toggle hidden content": "显示或隐藏内容",
              "Language": "语言",
              "Show code cell source": "显示代码",
              "Hide code cell source": "隐藏代码",
              "Show code cell output": "显示输出",
              "Hide code cell output": "隐藏输出",
              "Show code cell content": "显示单元格",
              "Hide code cell content": "隐藏单元格",
              "Moved to": "已移至",
              "This page has moved: {link}.": "本页已移至：{link}。",
              # the printed book's title page (scripts/make_pdf.py)
              "Version {version}": "版本 {version}",
              "The LLM Inference Arithmetic authors": "《LLM 推理算术》作者"},
}


class TranslatedCellPrompts(SphinxPostTransform):
    """myst-nb's prompts on a hidden cell's toggle ("Show code cell source", ...) in the
    edition's language (UNCATALOGUED_WORDS): myst-nb fills its English ``nb_code_prompt_show``
    in when it wraps the cell (a post-transform, priority 199), asking no catalog."""

    default_priority = 200
    formats = ("html",)

    def run(self, **kwargs: Any) -> None:
        from myst_nb.sphinx_ import HideCodeCellNode

        words = UNCATALOGUED_WORDS.get(self.config.language or "en")
        if not words:
            return
        for node in self.document.findall(HideCodeCellNode):
            for key in ("prompt_show", "prompt_hide"):
                node[key] = words.get(node[key], node[key])


_ATTRIBUTE_RE = re.compile(r'\b(title|aria-label|alt)="([^"<>]*)"')


def translate_attributes(page: str, words: dict[str, str]) -> str:
    """``page`` with every ``title``, ``aria-label`` or ``alt`` attribute whose whole value is
    a key of ``words`` given that key's translation (a value in other words, or in a page's
    text, is left as it is).

    >>> translate_attributes('<nav aria-label="Main"><a title="Main road">Main</a></nav>',
    ...                      {"Main": "主导航"})
    '<nav aria-label="主导航"><a title="Main road">Main</a></nav>'
    """
    def one(m: re.Match) -> str:
        word = words.get(html.unescape(m.group(2)))
        return m.group(0) if word is None else f'{m.group(1)}="{html.escape(word)}"'
    return _ATTRIBUTE_RE.sub(one, page)


class _Words(gettext.NullTranslations):
    """A catalog of a few words, for an extension that has none in the edition's language.

    >>> _Words({"Solution": "解答"}).gettext("Solution"), _Words({}).gettext("Exercise")
    ('解答', 'Exercise')
    """

    def __init__(self, words: dict[str, str]) -> None:
        super().__init__()
        self._words = words

    def gettext(self, message: str) -> str:
        return self._words.get(message, message)


def _extension_words(app: Any) -> None:
    """EXTENSION_WORDS set in each extension's catalog: in the catalog object itself, which the
    templates were handed when the builder was made (a new object in its place would not reach
    them); where the extension has no catalog in the language, a :class:`_Words`. Then the
    pages' attribute texts (UNCATALOGUED_WORDS), as each page is rendered."""
    from sphinx import locale

    language = app.config.language or "en"
    by_catalog: dict[str, dict[str, str]] = {}
    for (catalog, english), word in EXTENSION_WORDS.get(language, {}).items():
        by_catalog.setdefault(catalog, {})[english] = word
    for catalog, words in by_catalog.items():
        key = ("general", catalog)
        own = locale.translators.get(key)
        if isinstance(own, gettext.GNUTranslations):
            own._catalog.update(words)  # found before the catalog's own fallbacks
        elif own is None or own.__class__ is gettext.NullTranslations:
            locale.translators[key] = _Words(words)
        else:
            own.add_fallback(_Words(words))
    attributes = UNCATALOGUED_WORDS.get(language)
    templates = getattr(app.builder, "templates", None)
    if attributes and templates is not None:
        render = templates.render

        def render_translated(template: str, context: dict) -> str:
            return translate_attributes(render(template, context), attributes)

        templates.render = render_translated


def setup(app: Any) -> dict[str, Any]:
    fast_chinese_search()
    glue_in_translations()
    app.add_config_value("book_data_tables", [], "env", types=[list])
    app.add_transform(GeneratedTableData)
    app.add_transform(TranslatedPartCaptions)
    app.add_post_transform(TranslatedCellPrompts)
    app.connect("env-updated", _translated_title)
    translatable_exercise_titles(app)
    # the language switcher (scripts/editions.py sets the editions when it builds them all)
    app.add_config_value("book_editions", [], "html", types=[list])
    app.connect("html-page-context", _switcher)
    sphinx_speed.install()  # repeated costs of the build, paid once
    _install_page_numbering()
    app.add_config_value("book_redirects", {}, "html", types=[dict])
    app.connect("build-finished", _write_redirects)
    # after myst-parser registered `myst_substitutions`, before it reads its configuration
    app.connect("config-inited", _config_inited)
    # every extension is loaded by then (Jupyter Book adds some after the configured ones)
    app.connect("builder-inited", _declare_parallel_safe)
    app.connect("builder-inited", _extension_words)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}


#: Extensions that return no metadata, so that Sphinx assumes them unsafe for a parallel build,
#: warns (an error under -W) and reads serially. None keeps state that parallel readers would
#: have to merge: sphinx_multitoc_numbering (added by Jupyter Book) replaces the
#: section-numbering step that runs after reading (main process); sphinx_jupyterbook_latex
#: (added by Jupyter Book) sets things up only for a LaTeX builder, and its transforms store
#: nothing in the environment.
PARALLEL_SAFE_WITHOUT_SAYING = ("sphinx_multitoc_numbering", "sphinx_jupyterbook_latex")


def _declare_parallel_safe(app: Any) -> None:
    for name in PARALLEL_SAFE_WITHOUT_SAYING:
        ext = app.extensions.get(name)
        if ext is not None:
            ext.parallel_read_safe = ext.parallel_write_safe = True
