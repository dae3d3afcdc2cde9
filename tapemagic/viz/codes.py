"""A finding's cause code in HTML: the code, and its page behind a click.

Each finding shown in the widget and the static HTML carries its code
(``TM020``); clicking it opens the code's page (what you see, why, an example,
the fix) from the text held in the view itself, so it works offline, with a
link to the page on the site (:func:`~tapemagic.graph.catalogue.page_url`).
A ``<details>`` element does the opening: no JavaScript.
"""

from __future__ import annotations

import html
import re

from ..graph.catalogue import cause_of, page_url
from ..graph.findings import Finding
from ..graph.pages import PAGES

__all__ = ["code_page_html"]

_INLINE_CODE = re.compile(r"`([^`]+)`")


def _inline(text: str) -> str:
    """Escaped text with Markdown's `code` spans as <code>."""
    return _INLINE_CODE.sub(r"<code>\1</code>", html.escape(text))


def code_page_html(finding: Finding) -> str:
    """The finding's code, which opens its page on click.

    Example:
        >>> f = Finding("c", "y", "not_watched", "c: None.", "Watch c.")
        >>> text = code_page_html(f)
        >>> text.startswith('<details class="tm-code-page">'), "TM020" in text
        (True, True)
    """
    code = finding.cause_code
    cause, page = cause_of(code), PAGES[code]
    example = html.escape("\n\n".join(page.example))
    sections = (
        ("What you see", _inline(page.seen)),
        ("Why", _inline(page.why)),
        (
            "Example (either engine)",
            f'<pre style="margin:2px 0;font-size:11px">{example}</pre>',
        ),
        ("The fix", _inline(page.fix)),
    )
    body = "".join(
        f'<div style="margin-top:4px"><b>{title}</b><div>{text}</div></div>'
        for title, text in sections
    )
    url = page_url(code)
    link = (
        f'<div style="margin-top:4px"><a href="{html.escape(url)}" target="_blank" '
        f'rel="noopener">{code} on the site</a></div>'
        if url
        else ""
    )
    return (
        '<details class="tm-code-page">'
        f'<summary style="cursor:pointer"><code class="tm-code">{code}</code> '
        f"{html.escape(cause.doc)}</summary>"
        f'<div style="padding:4px 8px;border-left:2px solid #ccc">{body}'
        f"{link}</div></details>"
    )
