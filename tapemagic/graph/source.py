"""Reading the user's code: cell lines and ``%%tape`` option text.

The graph model keeps each cell line as text; the diagnosis and the graph view
read a few things back from it: how a ``gradient(...)`` call spelled its target
and sources (:func:`gradient_call`), the name a line assigns
(:func:`assigned_name`), and the in-place update that keeps a variable a
variable (:func:`in_place_update`). ``%%tape`` options are split with
:func:`split_commas`. Nothing here raises on code it cannot read: it answers
None (or the generic spelling) instead.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

__all__ = [
    "GRADIENT_CALLS",
    "GradientCall",
    "assigned_name",
    "gradient_call",
    "in_place_update",
    "option_call",
    "split_commas",
]

# The tape methods that ask for a gradient.
GRADIENT_CALLS = ("gradient", "jacobian", "batch_jacobian")


@dataclass(frozen=True)
class GradientCall:
    """How a ``gradient(target, sources)`` call spelled its arguments.

    Attributes:
        target, sources: each argument's text, as written (``"[w, b]"``).
        targets, source_list: the text of each element of a list or tuple
            argument (``("w", "b")``), or the argument's text alone.
    """

    target: str
    sources: str
    targets: tuple[str, ...]
    source_list: tuple[str, ...]


def split_commas(text: str) -> list[str]:
    """Split at commas outside brackets and quotes: ``a, f(b, c)`` -> two parts.

    Quotes around the whole text (IPython keeps them on an option value that
    has spaces) go first. Used for ``%%tape`` options and for reading them back.

    Args:
        text: a comma-separated list of expressions.

    Returns:
        The stripped, non-empty parts.

    Example:
        >>> split_commas("w, f(b, c), 'x,y'")
        ['w', 'f(b, c)', "'x,y'"]
        >>> split_commas('"w, b"')
        ['w', 'b']
    """
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    parts, depth, start, quote = [], 0, 0, None
    for i, char in enumerate(text):
        if quote is not None:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def gradient_call(code: str | None, kind: str = "gradient") -> GradientCall | None:
    """The arguments of the one ``.<kind>(target, sources)`` call on a line.

    Args:
        code: one line of code (None or unparsable: no call).
        kind: the method: ``"gradient"``, ``"jacobian"`` or ``"batch_jacobian"``.

    Returns:
        The call's argument texts; None when the line has no such call, when
        the call lacks a target or sources, or when it has two such calls (no
        telling which one ran).

    Example:
        >>> call = gradient_call("g = tape.gradient(loss, [w, b])")
        >>> call.target, call.sources, call.source_list
        ('loss', '[w, b]', ('w', 'b'))
        >>> gradient_call("tape.gradient(y, x) + tape.gradient(z, x)") is None
        True
    """
    tree = _parse(code)
    if tree is None:
        return None
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == kind
        ):
            keywords = {k.arg: k.value for k in node.keywords}
            args = list(node.args)
            target = args[0] if args else keywords.get("target")
            sources = (
                args[1]
                if len(args) > 1
                else keywords.get("sources", keywords.get("source"))
            )
            if target is None or sources is None:
                return None
            found.append(
                GradientCall(
                    ast.unparse(target),
                    ast.unparse(sources),
                    _elements(target),
                    _elements(sources),
                )
            )
    return found[0] if len(found) == 1 else None


def option_call(via: str) -> GradientCall:
    """The call the ``%%tape`` magic made from its options ``--target y --sources x``.

    Args:
        via: the options the magic's gradient request was made with.

    Returns:
        The target and source texts, as :func:`gradient_call` gives them.

    Example:
        >>> option_call("--target loss --sources w, b").source_list
        ('w', 'b')
    """
    target_text, _, sources_text = via.partition(" --sources ")
    target_text = target_text.removeprefix("--target ")
    return GradientCall(
        target_text,
        sources_text,
        tuple(split_commas(target_text)),
        tuple(split_commas(sources_text)),
    )


def assigned_name(code: str | None) -> str | None:
    """``name`` for a line ``name = ...`` (or ``name += ...``), else None.

    Example:
        >>> assigned_name("loss = tf.reduce_mean(err)"), assigned_name("a, b = f()")
        ('loss', None)
    """
    tree = _parse(code)
    if tree is None or len(tree.body) != 1:
        return None
    statement = tree.body[0]
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
    elif isinstance(statement, (ast.AugAssign, ast.AnnAssign)):
        target = statement.target
    else:
        return None
    return target.id if isinstance(target, ast.Name) else None


def in_place_update(code: str | None, name: str) -> str:
    """The in-place form of a line that rebinds a variable's name.

    Args:
        code: the line, e.g. ``w = w - lr * g``; None for an unknown line.
        name: the variable's name.

    Returns:
        ``w.assign_sub(lr * g)`` for ``w = w - lr * g`` (``assign_add`` for a
        sum, ``assign`` for anything else); ``w.assign_sub(lr * g)`` when the
        line does not rebind ``name``.

    Example:
        >>> in_place_update("w -= 0.1 * dw", "w"), in_place_update("w = v", "w")
        ('w.assign_sub(0.1 * dw)', 'w.assign(v)')
    """
    tree = _parse(code)
    if tree is not None and len(tree.body) == 1:
        statement = tree.body[0]
        value = None
        op = None
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and statement.targets[0].id == name
        ):
            value = statement.value
            if (
                isinstance(value, ast.BinOp)
                and isinstance(value.left, ast.Name)
                and value.left.id == name
                and isinstance(value.op, (ast.Sub, ast.Add))
            ):
                op, value = value.op, value.right
        elif (
            isinstance(statement, ast.AugAssign)
            and isinstance(statement.target, ast.Name)
            and statement.target.id == name
            and isinstance(statement.op, (ast.Sub, ast.Add))
        ):
            op, value = statement.op, statement.value
        if value is not None:
            text = ast.unparse(value)
            if isinstance(op, ast.Sub):
                return f"{name}.assign_sub({text})"
            if isinstance(op, ast.Add):
                return f"{name}.assign_add({text})"
            return f"{name}.assign({text})"
    return f"{name}.assign_sub(lr * g)"


def _parse(code: str | None) -> ast.Module | None:
    if not code:
        return None
    try:
        return ast.parse(code.strip())
    except SyntaxError:
        return None


def _elements(node: ast.AST) -> tuple[str, ...]:
    if isinstance(node, (ast.List, ast.Tuple)):
        return tuple(ast.unparse(e) for e in node.elts)
    return (ast.unparse(node),)
