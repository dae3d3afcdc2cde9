"""The pages written from the code at each build, before Sphinx reads a page.

- ``reference/magics.md``: ``%%tape`` and ``%tape``, from the argument parsers
  that IPython's ``magic_arguments`` attached to the magics themselves, so an
  option added, renamed or reworded shows on the site at the next build;
- ``causes/``: the cause catalogue, one page per cause code (``TM003.md``:
  the page text of ``tapemagic.graph.pages``, its example executed by myst-nb
  as the site is built) for each cause in ``tapemagic.graph.cause.REGISTRY``
  (filled by ``tapemagic.graph.causes``), one per retired code, and an index
  grouping them by family;
- ``course/``: the course notebooks, copied from ``notebooks/`` (myst-nb
  executes them during the build).

These folders are generated whole (and ignored by git): a removed cause or
notebook leaves no stale page behind.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import shutil
import textwrap
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["cause_pages", "magics_page", "setup", "write_all"]

DOCS = Path(__file__).resolve().parents[1]
ROOT = DOCS.parent
GENERATED = ("causes", "course", "reference/magics.md")


def _cell(text: str) -> str:
    """Text for one cell of a Markdown table."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _rst(docstring: str | None) -> str:
    """A docstring as a MyST block that Sphinx reads as reStructuredText."""
    text = inspect.cleandoc(docstring or "")
    return f"```{{eval-rst}}\n{text}\n```\n"


def _options(parser: argparse.ArgumentParser) -> Iterable[tuple[str, str, str]]:
    """(option, default, help) for each argument of ``parser`` but ``-h``."""
    formatter = parser._get_formatter()
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        if action.option_strings:
            name = ", ".join(action.option_strings)
            if action.nargs != 0:
                name += f" {formatter._format_args(action, action.dest.upper())}"
        else:
            name = action.metavar or action.dest
        if action.choices:
            name += " {" + ",".join(map(str, action.choices)) + "}"
        default = action.default
        if action.nargs == 0 or default in (None, argparse.SUPPRESS):
            shown = ""
        else:
            shown = f"`{default}`"
        yield name, shown, formatter._expand_help(action) if action.help else ""


def _magic_section(title: str, func: Any) -> str:
    parser = func.parser
    # IPython's usage starts with "::" (a reStructuredText literal block).
    usage = parser.format_usage().removeprefix("usage: ").strip()
    usage = textwrap.dedent(usage.removeprefix("::").strip("\n")).strip()
    rows = "\n".join(
        f"| `{_cell(name)}` | {default} | {_cell(text)} |"
        for name, default, text in _options(parser)
    )
    return (
        # magic_arguments keeps the magic's own docstring as the description
        # (and puts the generated help in __doc__).
        f"## {title}\n\n```text\n{usage}\n```\n\n{_rst(parser.description)}\n"
        f"| option | default | what it does |\n|---|---|---|\n{rows}\n"
    )


def magics_page() -> str:
    """The ``%%tape`` and ``%tape`` reference, from the magics' parsers."""
    from tapemagic.magic import TapeMagics

    return (
        "(magics-reference)=\n# `%%tape` and `%tape`\n\n"
        "Generated at each build from the magics' own argument parsers "
        "(`%%tape?` in a notebook shows the same). Load them with "
        "`%load_ext tapemagic`.\n\n"
        + _magic_section("The `%%tape` cell magic", TapeMagics.tape)
        + "\n"
        + _magic_section("The `%tape` line magic", TapeMagics.tape_line)
    )


def _family(cause: Any) -> str:
    """The module of ``tapemagic.graph.causes`` that declares ``cause``."""
    return cause.words.__module__.rsplit(".", 1)[-1]


def _code_cell(source: str, *, hidden: bool = False, raises: bool = False) -> str:
    tags = ":tags: [remove-cell]\n" if hidden else ""
    tags += ":tags: [raises-exception]\n" if raises else ""
    return f"```{{code-cell}} ipython3\n{tags}{source}\n```\n"


def _cause_page(cause: Any, family: str, siblings: str) -> str:
    """The page of one code: its text, its example executed on tapemagic's
    engine at build time, the same cells for real TensorFlow, the fix."""
    from tapemagic.graph.catalogue import SEVERITY_WORDS
    from tapemagic.graph.cause import STAGES
    from tapemagic.graph.pages import PAGES

    page = PAGES[cause.code]
    stages = ", ".join(
        f"`{d.stage}` (question {STAGES.index(d.stage) + 1} of "
        f"{len(STAGES)}, rank {d.rank})"
        for d in cause.detectors
    )
    example = "\n".join(
        _code_cell(cell, raises=i == page.raises) for i, cell in enumerate(page.example)
    )
    tensorflow = "\n\n".join(("import tensorflow as tf", *page.example))
    return (
        "---\nfile_format: mystnb\nkernelspec:\n  name: python3\n"
        "  display_name: Python 3\n---\n\n"
        f"(cause-{cause.code})=\n# {cause.code}: {cause.doc}\n\n"
        f"Cause\n: `{cause.name}` (`Finding.cause`; `Finding.cause_code` is "
        f"`{cause.code}`)\n\n"
        f"Severity\n: {SEVERITY_WORDS[cause.severity]}\n\n"
        f"Family\n: [{family}](index.md#{family})\n\n"
        f"Where the diagnosis asks\n: {stages}\n\n"
        f"Same family\n: {siblings or '-'}\n\n"
        f"In a notebook\n: `%tape --explain {cause.code}` prints this page\n\n"
        f"## What you see\n\n{page.seen}\n\n"
        f"## Why\n\n{page.why}\n\n"
        "## Example\n\nOn tapemagic's engine, run as this page was built (after "
        "`%load_ext tapemagic`): the last cell's finding ends with its code, "
        f"`[{cause.code}]`.\n\n"
        + _code_cell("%load_ext tapemagic", hidden=True)
        + "\n"
        + _code_cell("import tapemagic.tf as tf")
        + "\n"
        + example
        + "\nOn real TensorFlow, the same cells after `import tensorflow as tf` "
        f"and `%load_ext tapemagic` name the same code:\n\n```python\n"
        f"{tensorflow}\n```\n\n"
        f"## The fix\n\n{page.fix}\n\n"
        "A finding of this cause under a `%%tape` cell, in `tapemagic.explain` "
        "and in `assert_no_none_gradients`' message names the source, quotes "
        f"the cell line where the path broke, says what to do and ends with "
        f"`[{cause.code}]`. See "
        "[Why is my gradient None?](../course/05-why-is-my-gradient-none.ipynb) "
        "for the common causes, each as a cell and its fix.\n"
    )


def _retired_page(code: str, replaced: str) -> str:
    return (
        f"(cause-{code})=\n# {code} (retired)\n\n"
        f"No cause has this code any more, and no other cause will: {replaced}\n"
    )


def cause_pages() -> dict[str, str]:
    """``{file name: text}`` of the cause catalogue: an index and one page per
    cause code (``TM003.md``), and one per retired code."""
    import tapemagic.graph.causes  # noqa: F401  (declares every cause)
    from tapemagic.graph.cause import REGISTRY, RETIRED, STAGES

    families: dict[str, list[Any]] = {}
    for cause in REGISTRY.values():
        families.setdefault(_family(cause), []).append(cause)

    pages = {}
    for cause in REGISTRY.values():
        family = _family(cause)
        siblings = ", ".join(
            f"[{c.code}]({c.code}.md)" for c in families[family] if c is not cause
        )
        pages[f"{cause.code}.md"] = _cause_page(cause, family, siblings)
    for code, replaced in RETIRED.items():
        pages[f"{code}.md"] = _retired_page(code, replaced)

    codes = sorted([c.code for c in REGISTRY.values()] + list(RETIRED))
    lines = [
        "(causes)=\n# The cause catalogue\n",
        f"The diagnosis names one of these {len(REGISTRY)} causes for every "
        "gradient that comes out `None` (or holds NaN, or is all zeros where "
        "that is likely a mistake). Each has a stable code, `TM` and three "
        "digits, which every finding shows (`[TM020]`); a code is never "
        "reused. In a notebook, `%tape --explain TM020` prints a code's page "
        "and `%tape --explain` lists them all. Each is declared once, in "
        "`tapemagic/graph/causes/`; this catalogue is generated from the "
        "declarations at each build, and each page's example runs in the build.\n",
        "The diagnosis asks its questions in this order, and the first cause "
        "found names the finding: " + ", ".join(f"`{s}`" for s in STAGES) + ".\n",
        "```{toctree}\n:hidden:\n\n" + "\n".join(codes) + "\n```\n",
    ]
    for family, causes in families.items():
        module = importlib.import_module(f"tapemagic.graph.causes.{family}")
        first = inspect.cleandoc(module.__doc__ or "").split("\n\n")[0]
        summary = " ".join(first.split())
        lines.append(f"## {family}\n\n{summary.replace('``', '`')}\n")
        lines.append("| code | cause | severity | meaning |\n|---|---|---|---|")
        lines += [
            f"| [`{c.code}`]({c.code}.md) | `{c.name}` | {c.severity} | "
            f"{_cell(c.doc)} |"
            for c in causes
        ]
        lines.append("")
    if RETIRED:
        lines.append("## Retired codes\n")
        lines += [f"- [{code}]({code}.md): {RETIRED[code]}" for code in RETIRED]
        lines.append("")
    pages["index.md"] = "\n".join(lines)
    return pages


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def write_all(docs: Path = DOCS) -> None:
    """Write every generated page under ``docs``, removing what is stale."""
    for name in GENERATED:
        target = docs / name
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
    _write(docs / "reference" / "magics.md", magics_page())
    for name, text in cause_pages().items():
        _write(docs / "causes" / name, text)
    course = docs / "course"
    course.mkdir(parents=True, exist_ok=True)
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        shutil.copy2(notebook, course / notebook.name)


def setup(app: Any) -> dict[str, Any]:
    """Sphinx calls this when it loads the extension: write the pages first."""
    write_all(Path(app.srcdir))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
