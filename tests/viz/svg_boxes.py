"""Where a rendered SVG's node labels lie against their nodes' shapes.

Graphviz sizes a node from its own estimate of each text's width; a browser
draws the text in the font it finds. Each text is measured here with the font
this machine's fontconfig gives the SVG's font family (Liberation Sans for
Helvetica and Arial, DejaVu Sans Mono for monospace: what a browser on it
draws), through Pillow, and its extent is compared with the node's shape.
"""

from __future__ import annotations

import re
import subprocess
import xml.etree.ElementTree as ET
from functools import cache

from PIL import ImageFont

__all__ = ["overflows", "text_width"]

_SVG = "{http://www.w3.org/2000/svg}"
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


@cache
def _font_file(family: str, bold: bool) -> str:
    first = family.split(",")[0].strip()
    pattern = f"{first}:bold" if bold else first
    found = subprocess.run(
        ["fc-match", "-f", "%{file}", pattern], capture_output=True, text=True
    )
    return found.stdout.strip()


@cache
def _font(family: str, bold: bool, size: float) -> ImageFont.FreeTypeFont:
    # Measured at 100x and scaled: Pillow rounds advances to whole pixels.
    return ImageFont.truetype(_font_file(family, bold), size=round(size * 100))


def text_width(text: str, family: str, size: float, bold: bool = False) -> float:
    """The width in points of ``text`` drawn in ``family`` at ``size`` points."""
    return _font(family, bold, size).getlength(text) / 100


def _shape_span(group: ET.Element) -> tuple[float, float] | None:
    """The x extent of a node's shape: its polygon, path or ellipse."""
    xs: list[float] = []
    for element in group.iter():
        tag = element.tag.removeprefix(_SVG)
        if tag == "polygon":
            numbers = [float(n) for n in _NUMBER.findall(element.get("points", ""))]
            xs.extend(numbers[0::2])
        elif tag == "path":
            numbers = [float(n) for n in _NUMBER.findall(element.get("d", ""))]
            xs.extend(numbers[0::2])
        elif tag == "ellipse":
            cx, rx = float(element.get("cx")), float(element.get("rx"))
            xs.extend((cx - rx, cx + rx))
    return (min(xs), max(xs)) if xs else None


def overflows(svg: str, slack: float = 0.5) -> list[str]:
    """Each node text that reaches past its node's shape, as
    ``"node: 'text' x0..x1 outside left..right"``; empty when all fit."""
    root = ET.fromstring(svg)
    found = []
    for group in root.iter(f"{_SVG}g"):
        if "node" not in group.get("class", "").split():
            continue
        span = _shape_span(group)
        if span is None:
            continue
        left, right = span
        title = group.find(f"{_SVG}title")
        name = title.text if title is not None else "?"
        for text in group.iter(f"{_SVG}text"):
            content = "".join(text.itertext())
            if not content.strip():
                continue
            width = text_width(
                content,
                text.get("font-family", "Times"),
                float(text.get("font-size", "14")),
                text.get("font-weight") == "bold",
            )
            x = float(text.get("x"))
            anchor = text.get("text-anchor", "start")
            x0 = {"start": x, "middle": x - width / 2, "end": x - width}[anchor]
            x1 = x0 + width
            if x0 < left - slack or x1 > right + slack:
                found.append(
                    f"{name}: {content!r} {x0:.1f}..{x1:.1f} outside "
                    f"{left:.1f}..{right:.1f}"
                )
    return found
