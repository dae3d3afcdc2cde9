"""The cause catalogue: each cause code's page, printed in a notebook.

``%tape --explain TM003`` and ``tapemagic.explain_code("TM003")`` show
:func:`explain_code`'s page; ``%tape --explain`` alone lists every code with
its one-line meaning. The page's text is :mod:`tapemagic.graph.pages`; the
site (``docs/causes/TM003.md``) is generated from the same text, at the
address :func:`page_url` gives, under the base URL of one setting, the
environment variable ``TAPEMAGIC_DOCS_URL`` (where the site is served: a
course's own copy; unset, pages carry their text and no link).
"""

from __future__ import annotations

import html
import os

from . import causes as _causes  # noqa: F401  (declares every cause)
from .cause import BY_CODE, REGISTRY, RETIRED, Cause
from .pages import PAGES

__all__ = [
    "DOCS_URL_VARIABLE",
    "SEVERITY_WORDS",
    "CausePage",
    "CodeList",
    "cause_of",
    "explain_code",
    "page_markdown",
    "page_url",
]

DOCS_URL_VARIABLE = "TAPEMAGIC_DOCS_URL"

# What each severity means, in a code's page.
SEVERITY_WORDS = {
    "error": "error: the gradient is None (or zeros standing for None)",
    "warning": "warning: the gradient holds NaN or Inf",
    "note": "note: no result is wrong, but the cell likely meant something else",
}


def page_url(code: str) -> str | None:
    """The address of ``code``'s page on the site: the base URL (the
    environment variable ``TAPEMAGIC_DOCS_URL``) and ``causes/<code>.html``;
    None while the variable is unset (the site is built by ``scripts/docs.sh``
    and served wherever a course puts it).

    Example:
        >>> import os
        >>> os.environ["TAPEMAGIC_DOCS_URL"] = "http://localhost:8000/"
        >>> page_url("TM003")
        'http://localhost:8000/causes/TM003.html'
        >>> del os.environ["TAPEMAGIC_DOCS_URL"]
        >>> page_url("TM003") is None
        True
    """
    base = os.environ.get(DOCS_URL_VARIABLE, "").strip()
    return f"{base.rstrip('/')}/causes/{code}.html" if base else None


def cause_of(code: str) -> Cause:
    """The cause declared with ``code``.

    Raises:
        ValueError: with what to do, if no cause has that code (a retired code
            says what replaced it).
    """
    key = code.strip().upper()
    if key in BY_CODE:
        return BY_CODE[key]
    if key in RETIRED:
        raise ValueError(f"{key} is retired: {RETIRED[key]}")
    raise ValueError(
        f"No cause has the code {code!r}; the codes are TM001 to "
        f"{max(BY_CODE)}. Run %tape --explain to list them."
    )


def page_markdown(code: str) -> str:
    """The page of ``code`` as Markdown (a retired code's says what replaced
    it): what the user sees, why, the example on each engine, the fix."""
    key = code.strip().upper()
    if key in RETIRED and key not in BY_CODE:
        return f"# {key} (retired)\n\n{RETIRED[key]}\n"
    cause = cause_of(key)
    page = PAGES[cause.code]
    cells = "\n\n".join(page.example)
    return (
        f"# {cause.code}: {cause.doc}\n\n"
        f"Cause `{cause.name}`, {SEVERITY_WORDS[cause.severity]}.\n\n"
        f"## What you see\n\n{page.seen}\n\n"
        f"## Why\n\n{page.why}\n\n"
        "## Example\n\nThe same cells on each engine, after `%load_ext "
        "tapemagic`: with `import tapemagic.tf as tf` (tapemagic's engine) or "
        f"`import tensorflow as tf` (real TensorFlow). The last names {cause.code}."
        f"\n\n```python\n{cells}\n```\n\n"
        f"## The fix\n\n{page.fix}\n"
    )


class CausePage:
    """One code's page: Markdown in a notebook, text in a terminal.

    Attributes:
        code: the code, e.g. ``"TM003"``.
        markdown: the page's text.
        url: its address on the site (None when ``TAPEMAGIC_DOCS_URL`` is unset).
    """

    def __init__(self, code: str) -> None:
        self.markdown = page_markdown(code)
        self.code = code.strip().upper()
        self.url = page_url(self.code)

    def __str__(self) -> str:
        return self.markdown + (f"\nOn the site: {self.url}" if self.url else "")

    def __repr__(self) -> str:
        return str(self)

    def _repr_markdown_(self) -> str:
        link = f"\n[On the site]({self.url})" if self.url else ""
        return f"{self.markdown}{link}\n"


def _linked(code: str) -> str:
    """``code`` as HTML, a link to its page where the site has an address."""
    url = page_url(code)
    if url is None:
        return f"<code>{code}</code>"
    return f'<a href="{html.escape(url)}" target="_blank"><code>{code}</code></a>'


class CodeList:
    """Every cause code with its one-line meaning (what ``%tape --explain``
    alone shows)."""

    def __init__(self) -> None:
        self.rows = [(c.code, c.doc) for c in REGISTRY.values()]
        self.rows.sort()
        self.retired = dict(RETIRED)

    def __str__(self) -> str:
        lines = [f"{code}  {doc}" for code, doc in self.rows]
        lines += [f"{code}  (retired) {note}" for code, note in self.retired.items()]
        lines.append("%tape --explain TM003 prints a code's page.")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{_linked(code)}</td><td>{html.escape(doc)}</td></tr>"
            for code, doc in self.rows
        )
        return (
            f'<table class="tapemagic-codes">{rows}</table>'
            "<p><code>%tape --explain TM003</code> prints a code's page.</p>"
        )


def explain_code(code: str | None = None) -> CausePage | CodeList:
    """The page of a cause code, or with no code the list of every code.

    Args:
        code: e.g. ``"TM003"`` (case does not matter).

    Returns:
        A :class:`CausePage` (Markdown in a notebook), or a :class:`CodeList`.

    Raises:
        ValueError: if no cause has ``code``.

    Example:
        >>> print(explain_code("TM016").markdown.splitlines()[0])
        # TM016: went through tf.stop_gradient
        >>> str(explain_code()).splitlines()[0]
        'TM001  the target and the sources of the gradient call are swapped'
    """
    if code is None or not code.strip():
        return CodeList()
    return CausePage(code)
