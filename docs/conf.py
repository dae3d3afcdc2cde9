"""Sphinx configuration of tapemagic's documentation site.

Built by ``bash scripts/docs.sh`` (warnings are errors, every internal link is
checked). The pages that describe code are generated from it at each build
(``_ext/generate.py``): the ``%%tape`` and ``%tape`` reference from the magics'
own argument parsers, the cause catalogue from the cause declarations, and the
course from ``notebooks/``, executed by myst-nb.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # this checkout's tapemagic, for autodoc
sys.path.insert(0, str(HERE / "_ext"))

import tapemagic  # noqa: E402

project = "tapemagic"
author = "The tapemagic authors"
copyright = "2026, The tapemagic authors"
release = version = tapemagic.__version__

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "generate",
]

# Not pages of the site: the build output and what Sphinx must never read.
exclude_patterns = ["_build", "_ext", "**/.ipynb_checkpoints", "img/README.md"]
root_doc = "index"
# Options such as --sources stay as typed (no en dashes, no curly quotes).
smartquotes = False

# -- MyST and the notebooks -------------------------------------------------------
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
# Every course notebook runs at each build, so a page cannot drift from the code.
nb_execution_mode = "force"
nb_execution_timeout = 300
nb_execution_raise_on_error = True
nb_execution_show_tb = True
# The static copy a %%tape cell displays beside its widget (the graph as inline
# SVG, the sources and gradients tables) is what the page shows: the live
# widget needs a kernel, and its JavaScript would load from a CDN.
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
nb_mime_priority_overrides = [("html", WIDGET_VIEW, None)]
nb_ipywidgets_js = {}
# A %%tape cell that flags a None prints nothing to stderr; a cell whose stderr
# is part of the lesson (a warning it demonstrates) shows it.
nb_output_stderr = "show"

# -- API reference --------------------------------------------------------------
autodoc_member_order = "bysource"
autodoc_typehints = "description"
napoleon_google_docstring = True
napoleon_numpy_docstring = False

# -- HTML ---------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"tapemagic {version}"
html_static_path: list[str] = []
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "footer_start": ["copyright"],
    "footer_end": [],
    # No icon links, search-as-you-type from a CDN, or version switcher: the
    # site works offline, as the course does.
    "icon_links": [],
}
# A page opens in the light theme (the theme's switch is in the header).
html_context = {"default_mode": "light"}
