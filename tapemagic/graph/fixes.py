"""Fixes that fit the code: the user's own line, rewritten where the rewrite is
certain.

A finding's fix is best as the student's line with the bug taken out: an
integer ``tf.Variable(5)`` made ``tf.Variable(5.0)``, ``np.clip(x, 0, 1)`` made
``tf.clip_by_value(x, 0, 1)``, a ``.numpy()`` dropped. Each function here takes
one line of code and returns the rewritten line, or None when it cannot be
sure (the line does not parse, the call is not there, a NumPy function has no
TensorFlow twin with the same arguments). Rewrites edit the text in place at
the positions Python's parser gives, so the rest of the line stays as written;
the result always parses.
"""

from __future__ import annotations

import ast

# NumPy functions and their TensorFlow twins, as each op declares them
from .numpy_twins import NUMPY_TO_TF

__all__ = [
    "NUMPY_TO_TF",
    "add_epsilon",
    "call_text",
    "callee_argument",
    "first_argument_name",
    "float_literals",
    "in_place_assign",
    "names_used",
    "numpy_to_tf",
    "predict_as_call",
    "rename",
    "numpy_functions",
    "safe_norm",
    "swap_arguments",
    "unwrap_call",
]

# How the user's code may spell the NumPy module.
_NUMPY_NAMES = ("np", "numpy", "onp")


def numpy_functions(code: str | None) -> list[str]:
    """The NumPy functions a line calls, as written after the module
    (``["clip", "linalg.norm"]``), in the order they appear.

    Example:
        >>> numpy_functions("y = np.sum(np.clip(x, 0, 1)) + tf.exp(x)")
        ['sum', 'clip']
    """
    found = _numpy_calls(code)
    return [name for _, name in found]


def numpy_to_tf(code: str | None) -> str | None:
    """The line with every NumPy call replaced by its TensorFlow twin.

    Returns:
        The rewritten line; None when the line calls no NumPy function, or
        calls one that :data:`NUMPY_TO_TF` does not hold.

    Example:
        >>> numpy_to_tf("loss = tf.reduce_sum(np.clip(w, 0, 1))")
        'loss = tf.reduce_sum(tf.clip_by_value(w, 0, 1))'
        >>> numpy_to_tf("y = np.linalg.norm(v - u)")
        'y = tf.norm(v - u)'
        >>> numpy_to_tf("y = np.fft.fft(v)") is None
        True
    """
    calls = _numpy_calls(code)
    if not calls or any(name not in NUMPY_TO_TF for _, name in calls):
        return None
    edits = [(node.func, NUMPY_TO_TF[name]) for node, name in calls]
    return _edit(code, edits)


def unwrap_call(code: str | None, names: tuple[str, ...]) -> str | None:
    """The line with the first call to one of ``names`` replaced by its first
    argument: ``h = tf.Variable(x @ w)`` -> ``h = x @ w``.

    ``names`` are spelled as in the code (``"tf.Variable"``, ``"float"``); a
    method (``".numpy"``) drops the call and keeps the object it is called on.

    Example:
        >>> unwrap_call("h = tf.Variable(tf.matmul(x, w), name='h')", ("tf.Variable",))
        'h = tf.matmul(x, w)'
        >>> unwrap_call("y = w.numpy() * 2", (".numpy",))
        'y = w * 2'
        >>> unwrap_call("y = float(w[0]) * x", ("float",))
        'y = w[0] * x'
    """
    tree, text, indent = _parse(code)
    if tree is None:
        return None
    for node in sorted(_calls(tree), key=_position):
        spelled = _dotted(node.func)
        if spelled is None:
            continue
        method = "." + spelled.rsplit(".", 1)[-1] if "." in spelled else None
        if spelled in names and node.args:
            inner = ast.get_source_segment(text, node.args[0])
            return _edit(code, [(node, inner)], tree, text, indent)
        if method in names and not node.args and isinstance(node.func, ast.Attribute):
            inner = ast.get_source_segment(text, node.func.value)
            return _edit(code, [(node, inner)], tree, text, indent)
    return None


def float_literals(code: str | None, names: tuple[str, ...]) -> str | None:
    """The line with the integer literals in the first argument of a call to
    one of ``names`` written as floats: ``tf.Variable(5)`` -> ``tf.Variable(5.0)``.

    Returns:
        The rewritten line; None when the call is not there or its first
        argument holds no integer literal.

    Example:
        >>> float_literals("w = tf.Variable(5)", ("tf.Variable",))
        'w = tf.Variable(5.0)'
        >>> float_literals("b = tf.constant([1, -2])", ("tf.constant",))
        'b = tf.constant([1.0, -2.0])'
    """
    tree, text, indent = _parse(code)
    if tree is None:
        return None
    for node in sorted(_calls(tree), key=_position):
        if _dotted(node.func) not in names or not node.args:
            continue
        ints = [
            n
            for n in ast.walk(node.args[0])
            if isinstance(n, ast.Constant) and type(n.value) is int  # noqa: E721  (bool is an int too)
        ]
        if ints:
            edits = [(n, f"{n.value}.0") for n in ints]
            return _edit(code, edits, tree, text, indent)
    return None


def add_epsilon(code: str | None, names: tuple[str, ...], epsilon: str) -> str | None:
    """The line with ``+ epsilon`` added inside the first call to one of
    ``names``: ``tf.sqrt(x)`` -> ``tf.sqrt(x + 1e-12)``.

    Example:
        >>> add_epsilon("d = tf.sqrt(tf.reduce_sum(v * v))", ("tf.sqrt",), "1e-12")
        'd = tf.sqrt(tf.reduce_sum(v * v) + 1e-12)'
    """
    tree, text, indent = _parse(code)
    if tree is None:
        return None
    for node in sorted(_calls(tree), key=_position):
        if _dotted(node.func) in names and len(node.args) == 1:
            inner = ast.get_source_segment(text, node.args[0])
            return _edit(code, [(node.args[0], f"{inner} + {epsilon}")], tree, text,
                         indent)  # fmt: skip
    return None


def safe_norm(code: str | None) -> str | None:
    """The line with ``tf.norm(v)`` written out so that its gradient at zero is
    finite: ``tf.sqrt(tf.reduce_sum(tf.square(v)) + 1e-12)`` (an ``axis`` and
    ``keepdims`` carry over; another ``ord`` gives None).

    Example:
        >>> safe_norm("loss = tf.norm(v - u)")
        'loss = tf.sqrt(tf.reduce_sum(tf.square(v - u)) + 1e-12)'
        >>> safe_norm("n = tf.norm(x, axis=1)")
        'n = tf.sqrt(tf.reduce_sum(tf.square(x), axis=1) + 1e-12)'
    """
    tree, text, indent = _parse(code)
    if tree is None:
        return None
    for node in sorted(_calls(tree), key=_position):
        spelled = _dotted(node.func)
        if spelled not in ("tf.norm", "tf.linalg.norm") or len(node.args) != 1:
            continue
        kept = []
        for keyword in node.keywords:
            if keyword.arg not in ("axis", "keepdims"):
                return None
            kept.append(ast.get_source_segment(text, keyword))
        inner = ast.get_source_segment(text, node.args[0])
        more = "".join(f", {k}" for k in kept)
        written = f"tf.sqrt(tf.reduce_sum(tf.square({inner}){more}) + 1e-12)"
        return _edit(code, [(node, written)], tree, text, indent)
    return None


def swap_arguments(code: str | None, method: str) -> str | None:
    """The line with the first two arguments of its one ``.method(...)`` call
    swapped: ``tape.gradient([w, b], loss)`` -> ``tape.gradient(loss, [w, b])``.

    Example:
        >>> swap_arguments("g = tape.gradient([w, b], loss)", "gradient")
        'g = tape.gradient(loss, [w, b])'
    """
    tree, text, indent = _parse(code)
    if tree is None:
        return None
    calls = [
        node
        for node in _calls(tree)
        if isinstance(node.func, ast.Attribute) and node.func.attr == method
    ]
    if len(calls) != 1 or len(calls[0].args) < 2:
        return None
    first, second = calls[0].args[:2]
    edits = [
        (first, ast.get_source_segment(text, second)),
        (second, ast.get_source_segment(text, first)),
    ]
    return _edit(code, edits, tree, text, indent)


def call_text(code: str | None, method: str) -> tuple[str, str] | None:
    """The first ``.method(arg)`` call on a line: its text and its argument's.

    Example:
        >>> call_text("tape.watch(layer.trainable_weights)", "watch")
        ('tape.watch(layer.trainable_weights)', 'layer.trainable_weights')
    """
    tree, text, _ = _parse(code)
    if tree is None:
        return None
    for node in sorted(_calls(tree), key=_position):
        if (
            isinstance(node.func, ast.Attribute)
            and node.func.attr == method
            and len(node.args) == 1
        ):
            return (
                ast.get_source_segment(text, node),
                ast.get_source_segment(text, node.args[0]),
            )
    return None


def callee_argument(code: str | None, callee: str) -> str | None:
    """The first argument of the first call of ``callee`` on a line:
    ``x`` for ``callee="layer"`` on ``y = layer(x)``.

    Example:
        >>> callee_argument("out = model(X_train[:8], training=True)", "model")
        'X_train[:8]'
    """
    tree, text, _ = _parse(code)
    if tree is None:
        return None
    for node in sorted(_calls(tree), key=_position):
        if ast.get_source_segment(text, node.func) == callee and node.args:
            return ast.get_source_segment(text, node.args[0])
    return None


def first_argument_name(code: str | None, names: tuple[str, ...]) -> str | None:
    """The name given as first argument to a call of one of ``names``:
    ``p`` for ``pt = tf.constant(p)``; None when it is not a plain name.

    Example:
        >>> first_argument_name("lr_t = tf.Variable(lr0)", ("tf.Variable",))
        'lr0'
    """
    tree, _, _ = _parse(code)
    if tree is None:
        return None
    for node in sorted(_calls(tree), key=_position):
        if _dotted(node.func) in names and node.args:
            first = node.args[0]
            return first.id if isinstance(first, ast.Name) else None
    return None


def rename(code: str | None, old: str, new: str) -> str | None:
    """The line with every use of the name ``old`` written ``new``.

    Example:
        >>> rename("loss = lr0 * tf.reduce_sum(w) + lr0", "lr0", "lr_t")
        'loss = lr_t * tf.reduce_sum(w) + lr_t'
    """
    tree, text, indent = _parse(code)
    if tree is None:
        return None
    edits = [
        (node, new)
        for node in ast.walk(tree)
        if isinstance(node, ast.Name)
        and node.id == old
        and isinstance(node.ctx, ast.Load)
    ]
    if not edits:
        return None
    return _edit(code, edits, tree, text, indent)


def names_used(code: str | None) -> set[str]:
    """The names a line reads.

    Example:
        >>> sorted(names_used("loss = tf.reduce_mean((y_pred - Y) ** 2)"))
        ['Y', 'tf', 'y_pred']
    """
    tree, _, _ = _parse(code)
    if tree is None:
        return set()
    return {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }


def predict_as_call(code: str | None) -> str | None:
    """The line with a Keras ``model.predict(x, ...)`` written as the call
    ``model(x)``, which gives a tensor instead of a NumPy array.

    Example:
        >>> predict_as_call("y_hat = model.predict(X, verbose=0)")
        'y_hat = model(X)'
    """
    tree, text, indent = _parse(code)
    if tree is None:
        return None
    for node in sorted(_calls(tree), key=_position):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "predict" and node.args:
            owner = ast.get_source_segment(text, func.value)
            given = ast.get_source_segment(text, node.args[0])
            return _edit(code, [(node, f"{owner}({given})")], tree, text, indent)
    return None


def in_place_assign(code: str | None, name: str) -> str | None:
    """A line that rebinds ``name`` to a new value, as an in-place assignment:
    ``w = tf.Variable(3.0)`` and ``w = 3.0`` become ``w.assign(3.0)``.

    Example:
        >>> in_place_assign("w = tf.Variable(tf.zeros([2]))", "w")
        'w.assign(tf.zeros([2]))'
        >>> in_place_assign("w = 3.0", "w"), in_place_assign("v = 3.0", "w")
        ('w.assign(3.0)', None)
    """
    tree, text, indent = _parse(code)
    if tree is None or len(tree.body) != 1:
        return None
    statement = tree.body[0]
    if not (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
        and statement.targets[0].id == name
    ):
        return None
    value = statement.value
    if (
        isinstance(value, ast.Call)
        and (_dotted(value.func) or "").endswith("Variable")
        and value.args
    ):
        value = value.args[0]
    return f"{indent}{name}.assign({ast.get_source_segment(text, value)})"


# -- parsing and editing ---------------------------------------------------------------


def _parse(code: str | None) -> tuple[ast.Module | None, str, str]:
    if not code or not code.strip():
        return None, "", ""
    indent = code[: len(code) - len(code.lstrip())]
    text = code.strip()
    try:
        return ast.parse(text), text, indent
    except SyntaxError:
        return None, text, indent


def _calls(tree: ast.AST) -> list[ast.Call]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call)]


def _position(node: ast.AST) -> tuple[int, int]:
    return (node.lineno, node.col_offset)


def _dotted(node: ast.AST) -> str | None:
    """``tf.math.log`` for the expression ``tf.math.log``; None for others."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    if parts:  # a method of an expression: ``(a + b).numpy``
        return "<expr>." + ".".join(reversed(parts))
    return None


def _numpy_calls(code: str | None) -> list[tuple[ast.Call, str]]:
    tree, _, _ = _parse(code)
    if tree is None:
        return []
    found = []
    for node in sorted(_calls(tree), key=_position):
        spelled = _dotted(node.func) or ""
        module, _, name = spelled.partition(".")
        if module in _NUMPY_NAMES and name:
            found.append((node, name))
    return found


def _edit(
    code: str,
    edits: list[tuple[ast.AST, str]],
    tree: ast.AST | None = None,
    text: str | None = None,
    indent: str | None = None,
) -> str | None:
    """``code`` with each node's text replaced; None if the result does not parse."""
    if tree is None or text is None or indent is None:
        tree, text, indent = _parse(code)
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(lineno: int, col: int) -> int:
        # ast columns count UTF-8 bytes
        line = lines[lineno - 1]
        return starts[lineno - 1] + len(line.encode()[:col].decode())

    spans = sorted(
        (offset(n.lineno, n.col_offset), offset(n.end_lineno, n.end_col_offset), new)
        for n, new in edits
    )
    out, last = [], 0
    for start, end, new in spans:
        if start < last:
            return None  # overlapping edits: no telling what was meant
        out.append(text[last:start])
        out.append(new)
        last = end
    out.append(text[last:])
    rewritten = "".join(out)
    try:
        ast.parse(rewritten)
    except SyntaxError:
        return None
    return indent + rewritten
