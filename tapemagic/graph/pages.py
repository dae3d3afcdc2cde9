"""One page of text per cause code: what the user sees, why, an example, the fix.

Each :class:`Page` belongs to the cause declared with its code (see
:mod:`tapemagic.graph.causes`). The example is a few notebook cells that run on
either engine: with ``tf`` bound by ``import tapemagic.tf as tf`` or by
``import tensorflow as tf`` and ``%load_ext tapemagic`` loaded, the last cell
(``tape.explain()`` or a variant) names the page's code. The site executes
each example at build time, and a test runs each on both engines.
:mod:`tapemagic.graph.catalogue` prints a page (``%tape --explain TM003``).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PAGES", "Page"]


@dataclass(frozen=True)
class Page:
    """The page of one cause code.

    Attributes:
        seen: what the user sees (Markdown).
        why: why TensorFlow gives None (or NaN) there (Markdown).
        example: the example's cells, run in order after ``tf`` is bound.
        fix: how to fix it (Markdown).
        raises: the position of the example's cell that raises an error, as
            on TensorFlow (the error is what the user sees), if any.
    """

    seen: str
    why: str
    example: tuple[str, ...]
    fix: str
    raises: int | None = None


_XW = (
    "x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])\n"
    'w = tf.Variable([[0.5], [-1.0]], name="w")'
)

PAGES: dict[str, Page] = {
    "TM001": Page(
        seen="`tape.gradient(w, loss)` returns `None` although `loss` was "
        "computed from `w`.",
        why="`tape.gradient(target, sources)` differentiates its first argument "
        "with respect to the second. With the two swapped it asks how `w` changes "
        "with `loss`; `w` was not computed from `loss`, so TensorFlow answers "
        "`None`.",
        example=(
            _XW,
            "%%tape\nloss = tf.reduce_sum(tf.matmul(x, w))\n"
            "grads = tape.gradient(w, loss)",
            "tape.explain()",
        ),
        fix="Put the target first: `grads = tape.gradient(loss, w)`.",
    ),
    "TM002": Page(
        seen="The gradient of a value with respect to itself is all ones; "
        "a note, not an error.",
        why="When a source is the target itself, d(loss)/d(loss) is 1 for each "
        "element: TensorFlow answers ones. It is rarely what the cell meant, "
        "usually a source that should have been a weight.",
        example=(
            _XW,
            "%%tape\nloss = tf.reduce_sum(tf.matmul(x, w))\n"
            "grads = tape.gradient(loss, loss)",
            "tape.explain()",
        ),
        fix="Ask for the gradient with respect to what the target was computed "
        "from: `tape.gradient(loss, w)`.",
    ),
    "TM003": Page(
        seen="`tape.gradient(loss, w)` fails (or returns `None`) because `loss` "
        "is a NumPy or Python number, not a tensor.",
        why="A NumPy function (`np.mean`, `np.sum`) or `float()` turns the "
        "tensor into plain numbers. The tape records only TensorFlow ops, so "
        "the target has no recorded path back to the sources, and TensorFlow "
        "refuses a target that is not a tensor.",
        example=(
            "import numpy as np\n" + _XW + "\ny = tf.constant([[1.0], [0.0], [2.0]])",
            "%%tape\npred = tf.matmul(x, w)\nloss = np.mean((pred - y) ** 2)\n"
            "grads = tape.gradient(loss, w)",
            "tape.explain()",
        ),
        fix="Compute the target with TensorFlow's functions: "
        "`loss = tf.reduce_mean((pred - y) ** 2)`.",
        raises=1,
    ),
    "TM004": Page(
        seen="`tape.gradient` returns `None` for a source whose value went "
        "through `.numpy()`, `np.asarray`, a NumPy function, `float()` or "
        "`tf.constant(var)` on the way to the target.",
        why="Each of these copies the values out of TensorFlow. What comes back "
        "is a new constant, with no recorded link to the source: the gradient "
        "path ends there, and TensorFlow answers `None`.",
        example=(
            _XW,
            "%%tape --target loss --sources w\nw_np = w.numpy()\n"
            "loss = tf.reduce_sum(tf.matmul(x, w_np))",
            "tape.explain()",
        ),
        fix="Keep the value a tensor: use it directly (`tf.matmul(x, w)`), and "
        "use TensorFlow's functions (`tf.exp` for `np.exp`).",
    ),
    "TM005": Page(
        seen="`tape.gradient` returns `None` for a model's weights when the "
        "loss is computed from `model.predict(...)`.",
        why="`model.predict` (and any library returning NumPy arrays) runs the "
        "model and hands back NumPy values: the tape records nothing that links "
        "them to the weights, so TensorFlow answers `None`.",
        example=(
            _XW + "\ny = tf.constant([[1.0], [0.0], [2.0]])\n"
            "scorer = tf.keras.Sequential("
            "[tf.keras.layers.Dense(1, kernel_initializer='ones')])\nscorer(x)",
            "%%tape --target loss --sources kernel\n"
            "kernel = scorer.trainable_variables[0]\n"
            "y_pred = scorer.predict(x, verbose=0)\n"
            "loss = tf.reduce_mean((y_pred - y) ** 2)",
            "tape.explain()",
        ),
        fix="Call the model itself inside the tape: `y_pred = scorer(x)`.",
    ),
    "TM006": Page(
        seen="`tape.gradient` returns `None` when a tensor computed from the "
        "source is wrapped in a new `tf.Variable`.",
        why="`tf.Variable(t)` copies the values of `t` into a new variable. The "
        "variable starts a new path: nothing links it back to the source, so "
        "TensorFlow answers `None`.",
        example=(
            _XW,
            "%%tape --target loss --sources w\n"
            "h = tf.Variable(tf.matmul(x, w))\nloss = tf.reduce_sum(h ** 2)",
            "tape.explain()",
        ),
        fix="Keep the tensor itself: `h = tf.matmul(x, w)`.",
    ),
    "TM007": Page(
        seen="`tape.gradient` returns `None` for a tensor made from a Python "
        "number, when the computation used the number instead of the tensor.",
        why="A Python number is not a tensor: a computation on it is not linked "
        "to the tensor made from it. The target depends on the number, not on "
        "the source, so TensorFlow answers `None`.",
        example=(
            "p = 2.0",
            "%%tape --target loss --sources pt\npt = tf.constant(p)\n"
            "tape.watch(pt)\nloss = tf.square(p)",
            "tape.explain()",
        ),
        fix="Use the tensor in the computation: `loss = tf.square(pt)`.",
    ),
    "TM008": Page(
        seen="`tape.gradient` returns `None` when the path goes through "
        "`v.assign(...)` (or `assign_add`, `assign_sub`) inside the tape.",
        why="Assigning writes new values into the variable; TensorFlow records "
        "no gradient through an assignment. Reading `v` afterwards starts a "
        "path from `v`, not from what was assigned.",
        example=(
            _XW + "\nv = tf.Variable([[0.0], [0.0]])",
            "%%tape --target loss --sources w\nv.assign(w * 2.0)\n"
            "loss = tf.reduce_sum(v)",
            "tape.explain()",
        ),
        fix="Compute with the tensor instead of assigning it: `v2 = w * 2.0`, "
        "then use `v2`.",
    ),
    "TM009": Page(
        seen="`tape.gradient(loss, w)` returns `None` after an update such as "
        "`w = w - lr * grads` (often on the second step of a loop).",
        why="`w - lr * grads` is a plain tensor. Rebinding the name `w` to it "
        "replaces the variable: a tape watches variables automatically, but not "
        "plain tensors, so the next tape never watches the new `w`.",
        example=(
            _XW,
            "%%tape --target loss --sources w\nloss = tf.reduce_sum(tf.matmul(x, w))",
            "w = w - 0.1 * grads",
            "%%tape --target loss --sources w\nloss = tf.reduce_sum(tf.matmul(x, w))",
            "tape.explain()",
        ),
        fix="Update the variable in place: `w.assign_sub(0.1 * grads)`.",
    ),
    "TM010": Page(
        seen="`tape.gradient` returns `None` for a source taken before the cell "
        "rebound its name (a list of parameters made before `w` was remade).",
        why="The list still holds the old object. The cell computed the target "
        "from the new one the name now holds, so the old source is not on any "
        "path to the target, and TensorFlow answers `None`.",
        example=(
            _XW + '\nb = tf.Variable([0.25], name="b")\nparams = [w, b]',
            "%%tape --target loss --sources params\n"
            "w = tf.Variable([[1.0], [1.0]])\n"
            "loss = tf.reduce_sum(tf.matmul(x, w) + b)",
            "tape.explain()",
        ),
        fix="Update the old variable in place (`w.assign([[1.0], [1.0]])`) "
        "instead of rebinding the name, or build the list after.",
    ),
    "TM011": Page(
        seen="`tape.gradient(loss, w)` returns `None` after the cell that made "
        "`w` ran again.",
        why="Running `w = tf.Variable(...)` again makes a new variable; the tape "
        "recorded the old one. The new `w` is on no recorded path, so "
        "TensorFlow answers `None`.",
        example=(
            _XW,
            "%%tape --persistent\nloss = tf.reduce_sum(tf.matmul(x, w))",
            'w = tf.Variable([[0.5], [-1.0]], name="w")  # its cell run again',
            "grads = tape.gradient(loss, w)",
            "tape.explain()",
        ),
        fix="Run the `%%tape` cell again after the cell that makes `w`.",
    ),
    "TM012": Page(
        seen="`tape.gradient(loss, model.weights)` returns `None` for some "
        "weights (a BatchNormalization layer's moving mean and variance).",
        why="Non-trainable weights are not used in the computation during "
        "training: BatchNormalization assigns its moving statistics instead of "
        "computing with them, so no path links them to the loss.",
        example=(
            "x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])\n"
            "y = tf.constant([[1.0], [0.0], [2.0]])\n"
            "bn = tf.keras.Sequential([tf.keras.Input((2,)), "
            "tf.keras.layers.BatchNormalization(name='bn')])",
            "%%tape --target loss --sources bn.weights\n"
            "loss = tf.reduce_sum(bn(x, training=True) * y)",
            "tape.explain()",
        ),
        fix="Ask for the trainable weights: `model.trainable_weights`.",
    ),
    "TM013": Page(
        seen="`tape.gradient(loss, b)` returns `None` although `b` was watched.",
        why="Nothing computed from `b` leads to `loss`: the target does not "
        "depend on the source at all, and TensorFlow answers `None` (not zeros) "
        "for an unconnected source.",
        example=(
            _XW + '\nb = tf.Variable([0.25], name="b")',
            "%%tape --target loss --sources b\nloss = tf.reduce_sum(tf.matmul(x, w))",
            "tape.explain()",
        ),
        fix="Use the source in the computation (`tf.matmul(x, w) + b`), or leave "
        "it out of the sources; `unconnected_gradients='zero'` gives zeros.",
    ),
    "TM014": Page(
        seen="`tape.gradient` returns `None` when the path casts to an integer "
        "or bool dtype.",
        why="Integers and booleans have no gradient: TensorFlow's cast passes "
        "no gradient back through an integer or bool result, so the path stops "
        "there.",
        example=(
            _XW,
            "%%tape --target loss --sources w\nwi = tf.cast(w, tf.int32)\n"
            "loss = tf.reduce_sum(tf.cast(wi, tf.float32))",
            "tape.explain()",
        ),
        fix="Keep a float dtype on the way to the target (`tf.float32`, `tf.float64`).",
    ),
    "TM015": Page(
        seen="`tape.gradient` returns `None` when the path goes through "
        "`tf.argmax`, `tf.round`, `tf.floor`, a comparison, the condition of "
        "`tf.where` or the indices of `tf.gather`.",
        why="These ops are piecewise constant or return integers: their slope "
        "is zero or undefined, so TensorFlow registers no gradient for them and "
        "the path stops.",
        example=(
            _XW,
            "%%tape --target loss --sources w\nk = tf.argmax(w)\n"
            "loss = tf.cast(k, tf.float32) * 2.0",
            "tape.explain()",
        ),
        fix="Use a smooth stand-in: `tf.nn.softmax` for `tf.argmax`, the "
        "branches of `tf.where` rather than its condition, or "
        "`x + tf.stop_gradient(tf.round(x) - x)` for rounding.",
    ),
    "TM016": Page(
        seen="`tape.gradient` returns `None` when the path goes through "
        "`tf.stop_gradient`.",
        why="`tf.stop_gradient` exists to block the gradient: TensorFlow "
        "treats its output as a constant.",
        example=(
            _XW,
            "%%tape --target loss --sources w\n"
            "loss = tf.reduce_sum(tf.stop_gradient(w) * 2.0)",
            "tape.explain()",
        ),
        fix="Remove `tf.stop_gradient` from the path from the source to the target.",
    ),
    "TM017": Page(
        seen="The gradient is not `None` but holds `nan` or `inf`.",
        why="An op on the path has an infinite or undefined derivative at these "
        "values (`tf.sqrt` at 0, `tf.math.log` at 0, a division by 0); "
        "TensorFlow multiplies it into the gradient.",
        example=(
            "w = tf.Variable([0.0, 4.0])",
            "%%tape --target loss --sources w\nloss = tf.reduce_sum(tf.sqrt(w))",
            "tape.explain()",
        ),
        fix="Keep the input away from the bad point (`tf.sqrt(w + 1e-6)`, "
        "`tf.math.log(p + 1e-7)`), or use a stable form such as "
        "`tf.math.xlogy` or the `..._with_logits` losses.",
    ),
    "TM018": Page(
        seen="`tape.gradient` returns `None` when part of the path was computed "
        "before the tape started or after it stopped.",
        why="A tape records only what runs inside its `with` block (or its "
        "`%%tape` cell). A value computed before has no recorded link to the "
        "source; one computed after is not recorded at all.",
        example=(
            _XW + "\nh = tf.matmul(x, w)",
            "%%tape --target loss --sources w\nloss = tf.reduce_sum(h)",
            "tape.explain()",
        ),
        fix="Compute everything from the source to the target inside the tape.",
    ),
    "TM019": Page(
        seen="`tape.gradient` returns `None` when part of the path ran inside "
        "`with tape.stop_recording():`.",
        why="`stop_recording()` pauses the tape: the ops inside are not "
        "recorded, so nothing links their results to the source.",
        example=(
            _XW,
            "%%tape --target loss --sources w\nwith tape.stop_recording():\n"
            "    h = w * 2.0\nloss = tf.reduce_sum(h)",
            "tape.explain()",
        ),
        fix="Move the computation on the path out of the `stop_recording()` block.",
    ),
    "TM020": Page(
        seen="`tape.gradient(loss, c)` returns `None` for a constant `c`.",
        why="A tape watches trainable variables automatically, but not plain "
        "tensors: without `tape.watch(c)`, the ops on `c` are not recorded "
        "with respect to it.",
        example=(
            "%%tape --target loss --sources c\nc = tf.constant(2.0)\nloss = c * c",
            "tape.explain()",
        ),
        fix="Call `tape.watch(c)` inside the tape, before the line that uses "
        "`c`, or make `c` a `tf.Variable`.",
    ),
    "TM021": Page(
        seen="`tape.gradient` returns `None` for a variable made with "
        "`trainable=False`.",
        why="A tape watches only trainable variables automatically; a "
        "non-trainable one is treated like a constant.",
        example=(
            "k = tf.Variable(2.0, trainable=False)",
            "%%tape --target loss --sources k\nloss = k * k",
            "tape.explain()",
        ),
        fix="Make it with `trainable=True` (the default), or call `tape.watch(k)`.",
    ),
    "TM022": Page(
        seen="`tape.gradient` returns `None` for a Keras layer's weights that "
        "`tape.watch` was given before the layer was built.",
        why="A Keras layer makes its weights the first time it is called. "
        "`tape.watch(layer.trainable_weights)` before that watched an empty "
        "list; the weights made later were never watched.",
        example=(
            "layer = tf.keras.layers.Dense(1, kernel_initializer='ones')\n"
            "X = tf.constant([[1.0, 2.0]])",
            "%%tape --no-watch-accessed --target loss --sources layer.kernel\n"
            "tape.watch(layer.trainable_weights)\ny = layer(X)\n"
            "loss = tf.reduce_sum(y ** 2)",
            "tape.explain()",
        ),
        fix="Build the layer first (`layer(X)` once, or `layer.build(X.shape)`), "
        "then watch its weights.",
    ),
    "TM023": Page(
        seen="`tape.gradient` returns `None` for a variable, on a tape made "
        "with `watch_accessed_variables=False` (`%%tape --no-watch-accessed`).",
        why="With `watch_accessed_variables=False` the tape watches only what "
        "`tape.watch` is given, variables included.",
        example=(
            _XW,
            "%%tape --no-watch-accessed --target loss --sources w\n"
            "loss = tf.reduce_sum(tf.matmul(x, w))",
            "tape.explain()",
        ),
        fix="Call `tape.watch(w)` before using it, or let the tape watch the "
        "variables it reads.",
    ),
    "TM024": Page(
        seen="`tape.gradient` returns `None` for a source of integer dtype "
        "(TensorFlow also warns that the source must be floating).",
        why="Integers have no gradient: TensorFlow does not watch an integer "
        "tensor or variable.",
        example=(
            "k = tf.Variable(5)",
            "%%tape --target loss --sources k\nloss = tf.cast(k, tf.float32) ** 2",
            "tape.explain()",
        ),
        fix="Create the source with a float value: `k = tf.Variable(5.0)`.",
    ),
    "TM025": Page(
        seen="`tape.gradient` returns `None` when asked of another tape than "
        "the one that recorded the path, or after `tape.reset()`.",
        why="Each tape knows only what it recorded itself. Another tape (or the "
        "same one after `reset()`, which erases the record) has no path from "
        "the source to the target.",
        example=(
            _XW,
            "%%tape --persistent\nloss = tf.reduce_sum(tf.matmul(x, w))\n"
            "with tf.GradientTape() as t2:\n    pass\ngrads = t2.gradient(loss, w)",
            "tape.explain()",
        ),
        fix="Ask the tape that recorded the computation: `tape.gradient(loss, w)`.",
    ),
    "TM026": Page(
        seen="The gradient is all zeros (a note, not an error): an op on the "
        "path passed back only zeros.",
        why="Every relu unit inactive, a saturated sigmoid or tanh, a "
        "`tf.where` that never picks the branch computed from the source, or a "
        "zero factor: the slope there is 0, so TensorFlow's right answer is "
        "zeros, and learning stalls.",
        example=(
            "W1 = tf.Variable(-tf.ones([2, 2]))\n"
            "X = tf.constant([[1.0, 2.0], [3.0, 1.0]])",
            "%%tape --target loss --sources W1\n"
            "hidden = tf.nn.relu(tf.matmul(X, W1))\nloss = tf.reduce_sum(hidden)",
            "tape.explain()",
        ),
        fix="Change the values that zero the slope: start from weights that "
        "make units active, scale inputs down, or use `tf.nn.leaky_relu`.",
    ),
}
