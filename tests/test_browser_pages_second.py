"""The second half of the book's pages in Chromium: the checks of tests/test_browser.py (each
page in one load, and the reader's path at 1280 px and 390 px) on the pages that file leaves to
this one (`halves`), so that pytest-xdist runs the two halves side by side. Same requirements: a
built book and Debian's Chromium; its server, browser and checks are test_browser's.
"""
import pytest

from test_browser import (PAGES_SECOND, WIDGET_PAGES, WIDTHS, browser, check_page,  # noqa: F401
                          check_reader, check_widget_page, reader_params, reader_phone, site)


@pytest.mark.parametrize("page_path", PAGES_SECOND)
def test_page_in_browser(page_path, book_html, site, browser, build_dir):  # noqa: F811
    check_page(page_path, book_html, site, browser, build_dir)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("page_path", reader_params(PAGES_SECOND))
def test_reader_path(page_path, width, book_html, site, browser, build_dir,  # noqa: F811
                     request):
    check_reader(page_path, width, book_html, site, browser, build_dir, request)


@pytest.mark.parametrize("page_path,name", [w for w in WIDGET_PAGES if w[0] in PAGES_SECOND],
                         ids=lambda v: v.split("/")[-1])
def test_widget_follows_its_controls(page_path, name, site, browser):  # noqa: F811
    """test_browser.test_widget_follows_its_controls on this half's calculators, in
    test_page_in_browser's load of their pages."""
    check_widget_page(page_path, name, site, browser)
