"""Every cause has a stable code and a page; each page's example names its code.

The example of each page runs through the real ``%%tape`` magic with ``tf``
bound to tapemagic's engine and to real TensorFlow (tensorflow-cpu 2.21.0):
on each, its last cell's findings name the page's code.
"""

from __future__ import annotations

import warnings

import pytest
from IPython.testing import globalipapp
from IPython.utils.capture import capture_output

import tapemagic
from tapemagic.graph import catalogue, log_names
from tapemagic.graph.catalogue import explain_code, page_markdown, page_url
from tapemagic.graph.cause import BY_CODE, REGISTRY, RETIRED
from tapemagic.graph.findings import Findings
from tapemagic.graph.pages import PAGES

ENGINES = {"tapemagic": "tapemagic.tf", "tensorflow": "tensorflow"}


def test_every_declared_cause_has_a_code_and_a_page():
    assert set(PAGES) == {c.code for c in REGISTRY.values()} == set(BY_CODE)
    for cause in REGISTRY.values():
        page = PAGES[cause.code]
        assert page.seen and page.why and page.fix and len(page.example) >= 2
        text = page_markdown(cause.code)
        for heading in ("## What you see", "## Why", "## Example", "## The fix"):
            assert heading in text
        assert text.startswith(f"# {cause.code}: {cause.doc}")


def test_no_page_belongs_to_a_retired_code():
    assert not set(PAGES) & set(RETIRED)


def test_a_retired_code_page_says_what_replaced_it(monkeypatch):
    monkeypatch.setitem(RETIRED, "TM902", "Split into TM014 and TM015.")
    text = page_markdown("TM902")
    assert text == "# TM902 (retired)\n\nSplit into TM014 and TM015.\n"
    with pytest.raises(ValueError, match="TM902 is retired: Split into TM014"):
        catalogue.cause_of("TM902")


def test_explain_code_prints_the_page_and_lists_the_codes(monkeypatch):
    monkeypatch.delenv("TAPEMAGIC_DOCS_URL", raising=False)
    page = tapemagic.explain_code("tm020")
    assert page.code == "TM020" and "tape.watch(c)" in page.markdown
    # No site address set: the page's text, and no link to nowhere.
    assert page.url is None and "On the site" not in page._repr_markdown_()
    assert "<code>TM020</code>" in tapemagic.explain_code()._repr_html_()
    listing = str(tapemagic.explain_code())
    assert len(listing.splitlines()) == len(REGISTRY) + 1
    for cause in REGISTRY.values():
        assert f"{cause.code}  {cause.doc}" in listing
    with pytest.raises(ValueError, match="No cause has the code 'TM999'"):
        explain_code("TM999")


def test_the_site_base_url_is_one_setting(monkeypatch):
    monkeypatch.setenv("TAPEMAGIC_DOCS_URL", "https://example.org/docs/")
    assert page_url("TM003") == "https://example.org/docs/causes/TM003.html"
    page = explain_code("TM003")
    assert page.url == page_url("TM003")
    assert page._repr_markdown_().endswith(
        "[On the site](https://example.org/docs/causes/TM003.html)\n"
    )
    assert 'href="https://example.org/docs/causes/TM003.html"' in (
        explain_code()._repr_html_()
    )


@pytest.fixture(scope="module")
def shell():
    globalipapp.start_ipython()
    ip = globalipapp.get_ipython()
    if "tapemagic" not in ip.extension_manager.loaded:
        ip.extension_manager.load_extension("tapemagic")
    return ip


def run_example(shell, engine: str, code: str) -> Findings:
    """Run the page's example with ``tf`` bound to ``engine``: the findings of
    its last cell."""
    if "tapemagic" not in shell.extension_manager.loaded:
        shell.extension_manager.load_extension("tapemagic")
    log_names._NAMED_VARIABLES.clear()
    before = set(shell.user_ns)
    *cells, last = PAGES[code].example
    try:
        with capture_output(), warnings.catch_warnings():
            # Watching an integer tensor warns on both engines: TM024's point.
            warnings.simplefilter("ignore", UserWarning)
            shell.run_cell(f"import {ENGINES[engine]} as tf")
            failed = [
                i
                for i, cell in enumerate(cells)
                if not shell.run_cell(cell, store_history=True).success
            ]
            result = shell.run_cell(f"_found = {last}", store_history=True)
        assert result.success, result.error_in_exec
        # Only the cell the page says raises does (the site shows its error).
        raises = PAGES[code].raises
        assert failed == ([] if raises is None else [raises])
        return shell.user_ns["_found"]
    finally:
        for name in set(shell.user_ns) - before:
            if not name.startswith("_"):
                del shell.user_ns[name]
        log_names._NAMED_VARIABLES.clear()


@pytest.mark.parametrize("engine", sorted(ENGINES))
@pytest.mark.parametrize("code", sorted(PAGES))
def test_each_page_example_gives_its_own_code(shell, engine, code):
    if engine == "tensorflow":
        pytest.importorskip("tensorflow")
    found = run_example(shell, engine, code)
    assert isinstance(found, Findings) and found
    assert {f.cause_code for f in found} == {code}
    assert f"[{code}]" in str(found)
