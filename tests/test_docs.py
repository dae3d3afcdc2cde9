"""The documentation site's generated pages and its link check.

The site itself is built by scripts/docs.sh (which scripts/test.sh runs); these
tests check, without Sphinx, that what the build generates follows the code:
one page per declared cause, every option of both magics, every course
notebook, and that the link check finds a broken link or anchor.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXT = ROOT / "docs" / "_ext"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"docs_{name}", EXT / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def generate() -> ModuleType:
    return _load("generate")


@pytest.fixture(scope="module")
def check_links() -> ModuleType:
    return _load("check_links")


@pytest.fixture(scope="module")
def site_source(generate, tmp_path_factory) -> Path:
    docs = tmp_path_factory.mktemp("docs")
    (docs / "causes").mkdir()
    (docs / "causes" / "retired_cause.md").write_text("# stale\n")
    generate.write_all(docs)
    return docs


def test_one_page_per_cause_code(site_source):
    import tapemagic.graph.causes  # noqa: F401
    from tapemagic.graph.cause import REGISTRY, RETIRED
    from tapemagic.graph.pages import PAGES

    pages = {p.stem for p in (site_source / "causes").glob("*.md")}
    codes = {cause.code for cause in REGISTRY.values()}
    assert pages == codes | set(RETIRED) | {"index"}, "a stale or missing page"
    index = (site_source / "causes" / "index.md").read_text()
    for cause in REGISTRY.values():
        code = cause.code
        assert f"| [`{code}`]({code}.md) | `{cause.name}` |" in index
        page = (site_source / "causes" / f"{code}.md").read_text()
        assert f"(cause-{code})=\n# {code}: {cause.doc}\n" in page
        assert page.startswith("---\nfile_format: mystnb\n")
        assert cause.severity in page
        text = PAGES[code]
        for part in (text.seen, text.why, text.fix):
            assert part in page
        # The example runs in the build: each cell of it is a code cell.
        for i, cell in enumerate(text.example):
            tags = ":tags: [raises-exception]\n" if i == text.raises else ""
            assert f"```{{code-cell}} ipython3\n{tags}{cell}\n```" in page
        assert "```{code-cell} ipython3\nimport tapemagic.tf as tf\n```" in page
        assert "import tensorflow as tf" in page


def test_a_retired_code_keeps_its_page(generate, monkeypatch):
    from tapemagic.graph.cause import RETIRED

    monkeypatch.setitem(RETIRED, "TM902", "Split into TM014 and TM015.")
    pages = generate.cause_pages()
    assert pages["TM902.md"].startswith("(cause-TM902)=\n# TM902 (retired)")
    assert "Split into TM014 and TM015." in pages["TM902.md"]
    assert "- [TM902](TM902.md): Split into TM014" in pages["index.md"]


def test_magics_reference_lists_every_option(site_source):
    from tapemagic.magic import TapeMagics

    page = (site_source / "reference" / "magics.md").read_text()
    for func in (TapeMagics.tape, TapeMagics.tape_line):
        for action in func.parser._actions:
            for option in action.option_strings:
                if option not in ("-h", "--help"):
                    assert f"`{option}" in page, option
    assert "Run the cell inside a ``tf.GradientTape``" in page
    assert "::" not in page.split("```{eval-rst}")[0], "usage kept its RST marker"


def test_course_pages_are_the_notebooks(site_source):
    copied = sorted(p.name for p in (site_source / "course").glob("*.ipynb"))
    course = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert copied == course and len(course) == 7


def test_link_check_finds_missing_pages_and_anchors(check_links, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "index.html").write_text(
        '<a href="a/page.html#here">ok</a><a href="https://example.org/x">out</a>'
        '<img src="a/missing.png"><a href="#nowhere">bad anchor</a>'
    )
    (tmp_path / "a" / "page.html").write_text(
        '<h1 id="here">x</h1><a href="../index.html">up</a>'
        '<a href="../index.html#gone">gone</a>'
    )
    broken = check_links.broken_links(tmp_path)
    assert sorted(broken) == [
        "a/page.html: ../index.html#gone (no such anchor)",
        "index.html: #nowhere (no such anchor)",
        "index.html: a/missing.png (no such file)",
    ]
    (tmp_path / "a" / "missing.png").write_bytes(b"")
    (tmp_path / "index.html").write_text('<a href="a/page.html#here" id="top">ok</a>')
    (tmp_path / "a" / "page.html").write_text(
        '<h1 id="here"><a href="../#top">x</a></h1>'
    )
    assert check_links.broken_links(tmp_path) == []
