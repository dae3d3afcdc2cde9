"""Check every internal link of a built site: the page and the anchor exist.

    python docs/_ext/check_links.py docs/_build/html

Reads every HTML page under the folder, collects each ``href`` and ``src``
that points inside the site (no scheme, no host), and fails listing each one
whose file is missing or whose ``#anchor`` names no ``id`` in that file.
External links are not followed (the site is built and read offline).
"""

from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

__all__ = ["broken_links", "main"]


class _Page(HTMLParser):
    """The ids and the internal link targets of one HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        attributes = dict(attrs)
        for key in ("id", "name"):
            if attributes.get(key) and (key == "id" or tag == "a"):
                self.ids.add(attributes[key])
        for key in ("href", "src"):
            target = attributes.get(key)
            if target and not urlsplit(target).scheme and not target.startswith("//"):
                self.links.append(target)


def _parse(path: Path, cache: dict[Path, _Page]) -> _Page:
    if path not in cache:
        page = _Page()
        page.feed(path.read_text(errors="replace"))
        cache[path] = page
    return cache[path]


def broken_links(site: Path) -> list[str]:
    """Each internal link of ``site`` whose page or anchor is missing, as
    ``"page: link (why)"``."""
    site = site.resolve()
    cache: dict[Path, _Page] = {}
    broken = []
    # The theme's files in _static are templates and assets, not pages.
    pages = sorted(p for p in site.rglob("*.html") if "_static" not in p.parts)
    if not pages:
        return [f"{site}: no HTML pages (was the site built?)"]
    for page_path in pages:
        page = _parse(page_path, cache)
        for link in page.links:
            parts = urlsplit(link)
            if parts.path:
                target = (page_path.parent / unquote(parts.path)).resolve()
                if target.is_dir():
                    target = target / "index.html"
            else:
                target = page_path
            where = f"{page_path.relative_to(site)}: {link}"
            if not target.is_relative_to(site):
                broken.append(f"{where} (outside the site)")
            elif not target.exists():
                broken.append(f"{where} (no such file)")
            elif (
                parts.fragment
                and target.suffix == ".html"
                and unquote(parts.fragment) not in _parse(target, cache).ids
            ):
                broken.append(f"{where} (no such anchor)")
    return broken


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    site = Path(args[0] if args else "docs/_build/html")
    broken = broken_links(site)
    for line in broken:
        print(f"broken link: {line}", file=sys.stderr)
    pages = sum("_static" not in p.parts for p in site.rglob("*.html"))
    print(f"check_links: {pages} pages, {len(broken)} broken internal links")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
