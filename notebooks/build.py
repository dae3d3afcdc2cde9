"""Write the course notebooks from the cells below.

    .venv/bin/python notebooks/build.py          # (re)write notebooks/*.ipynb
    .venv/bin/python notebooks/build.py --check  # exit 1 if a notebook is stale
    .venv/bin/python notebooks/build.py --tensorflow DIR  # versions for real TF

The notebooks are stored without outputs; every cell has a stable id, so a
rebuild changes only what was edited here. Cell tags tell the test suite what
to expect: ``expect-none`` marks a cell that must flag a ``None`` gradient (all
other cells must flag none), ``raises-exception`` a cell that must raise.
"""

# ruff: noqa: E501  (cell code and markdown tables keep the width a notebook shows)
from __future__ import annotations

import argparse
import copy
import shlex
import sys
import textwrap
from pathlib import Path

import nbformat

__all__ = ["NOTEBOOKS", "as_tensorflow", "build", "main", "tape_cell_as_tensorflow"]

HERE = Path(__file__).resolve().parent

SETUP = """\
%load_ext tapemagic
import tapemagic.tf as tf  # with TensorFlow installed: import tensorflow as tf"""

SETUP_TEXT = """\
Every notebook starts the same way. `import tapemagic.tf as tf` gives
TensorFlow's API on tapemagic's NumPy engine: the code in this course also runs
under real TensorFlow with `import tensorflow as tf`, except the `%%tape` cells,
which are tapemagic's. `%load_ext tapemagic` adds `%%tape`: a cell that starts
with it runs exactly as the body of `with tf.GradientTape() as tape:`, and the
tape's recorded graph is drawn under the cell."""


def md(text: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_markdown_cell(textwrap.dedent(text).strip())


def code(text: str, *tags: str) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(textwrap.dedent(text).strip())
    if tags:
        cell.metadata["tags"] = list(tags)
    return cell


# --------------------------------------------------------------------------
# 01: recording, gradient, variables vs constants, watch, structures, a step
# --------------------------------------------------------------------------
BASICS = [
    md("""
    # 1. Gradient tape basics

    Training a model means following derivatives downhill, and TensorFlow gets
    derivatives by *recording*: while a `tf.GradientTape` is open, every operation
    on a watched value is written onto the tape. `tape.gradient(target, sources)`
    then plays the tape backwards (reverse-mode automatic differentiation) and
    returns d target / d source for each source.

    In this notebook:

    1. record a computation and take its gradient;
    2. see the tape with `%%tape`;
    3. learn which values a tape watches (variables) and which it does not
       (constants), and what `None` means;
    4. ask for several gradients at once with lists and dicts;
    5. take one step of gradient descent by hand.
    """),
    md(SETUP_TEXT),
    code(SETUP),
    md("""
    ## Recording a computation

    A `tf.Variable` holds a value that training will change. Inside the `with`
    block the tape records `x**2`, `2 * x` and their sum; `tape.gradient` walks
    those three operations backwards with the chain rule.
    """),
    code("""
    x = tf.Variable(3.0)

    with tf.GradientTape() as tape:
        y = x**2 + 2 * x

    dy_dx = tape.gradient(y, x)
    print("y     =", y.numpy())
    print("dy/dx =", dy_dx.numpy())  # 2x + 2 = 8 at x = 3
    """),
    md("""
    ## Seeing the tape

    The same computation in a `%%tape` cell. The cell body is the body of the
    `with` block; `--target y --sources x` also calls `tape.gradient(y, x)` after
    the cell and binds the answer to `grads`. Under the cell is what the tape
    recorded: the source `x`, one node per operation, and the target `y`.
    """),
    code("""
    %%tape --target y --sources x
    y = x**2 + 2 * x
    """),
    code("""
    print("dy/dx =", grads.numpy())
    """),
    md("""
    ## Variables are watched, constants are not

    A tape records an operation only if one of its inputs is *watched*. A
    trainable `tf.Variable` is watched automatically the moment it is read inside
    the tape. A `tf.constant` is not, so the tape has no path from it to the
    target and the gradient is `None`. That's `None`, not zero: zero would mean
    "moving the source does not change the target", while `None` means "this
    tape cannot tell".
    """),
    code("""
    c = tf.constant(3.0)

    with tf.GradientTape() as tape:
        y = c**2

    print(tape.gradient(y, c))
    """),
    md("""
    In a `%%tape` cell the missing gradient is flagged: the drawing shows `c`
    as never watched and names the `None` gradient.
    """),
    code(
        """
        %%tape --target y --sources c
        y = c**2
        """,
        "expect-none",
    ),
    md("""
    The fix is `tape.watch(c)` before `c` is used (inside a `%%tape` cell the
    tape is already bound to `tape`; `%%tape --watch c` does the same).
    """),
    code("""
    %%tape --target y --sources c
    tape.watch(c)
    y = c**2
    """),
    code("""
    print("dy/dc =", grads.numpy())  # 2c = 6
    """),
    md("""
    Two more ways a variable goes unwatched. A variable made with
    `trainable=False` (a frozen layer, a step counter) is not watched when read.
    And `tf.GradientTape(watch_accessed_variables=False)` watches only what
    `tape.watch` names: here `a` but not `b`.
    """),
    code("""
    frozen = tf.Variable(3.0, trainable=False)
    with tf.GradientTape() as tape:
        y = frozen**2
    print("d y / d frozen:", tape.gradient(y, frozen))

    a = tf.Variable(1.0)
    b = tf.Variable(2.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(a)
        y = a * b
    da, db = tape.gradient(y, [a, b])
    print("d y / d a:", da.numpy(), "  d y / d b:", db)
    """),
    md("""
    ## Lists and nested sources

    `sources` can be a list, a tuple, a dict or any nesting of them, and the
    gradients come back in the same structure, each with its source's shape.
    Here is a one-layer linear model with a weight matrix and a bias.
    `--sources w,b` asks for the list `[w, b]`.
    """),
    code("""
    w = tf.Variable([[0.5, -1.0], [0.25, 0.0], [-0.5, 1.0]], name="w")  # (3, 2)
    b = tf.Variable([0.1, -0.1], name="b")  # (2,)
    x = tf.constant([[1.0, 2.0, 3.0]])  # one example with 3 features
    """),
    code("""
    %%tape --target loss --sources w,b
    y = x @ w + b
    loss = tf.reduce_mean(y**2)
    """),
    md("""
    With `loss = (y₁² + y₂²) / 2`, the chain rule gives d loss / d y = y, so
    d loss / d b = y and d loss / d w = xᵀ y. The tape agrees:
    """),
    code("""
    dl_dw, dl_db = grads
    print("shapes:", dl_dw.shape, dl_db.shape)
    print("d loss / d b =", dl_db.numpy(), "  by hand:", y.numpy()[0])
    print("d loss / d w matches x^T y:", bool(tf.reduce_all(dl_dw == tf.transpose(x) @ y)))
    """),
    md("""
    A dict of sources gives a dict of gradients, handy when a model has named
    parts:
    """),
    code("""
    with tf.GradientTape() as tape:
        y = x @ w + b
        loss = tf.reduce_mean(y**2)

    grads = tape.gradient(loss, {"weights": w, "bias": b})
    for name, g in grads.items():
        print(f"{name:8} gradient of shape {g.shape}")
    """),
    md("""
    ## One step of gradient descent, by hand

    Fit a line `w * x + b` to five points on `2x - 1` by mean squared error.
    Starting from `w = b = 0`, the loss is 17, and by hand
    d loss / d w = -2 mean(t x) = -20 and d loss / d b = -2 mean(t) = -6.
    """),
    code("""
    xs = tf.constant([0.0, 1.0, 2.0, 3.0, 4.0])
    ts = 2.0 * xs - 1.0  # the targets: -1, 1, 3, 5, 7
    w = tf.Variable(0.0)
    b = tf.Variable(0.0)
    learning_rate = 0.05
    """),
    code("""
    %%tape --target loss --sources w,b
    loss = tf.reduce_mean((w * xs + b - ts) ** 2)
    """),
    md("""
    One step moves each variable a little against its gradient. `assign_sub`
    changes the variable in place, so it stays the same watched `tf.Variable`
    (writing `w = w - learning_rate * dw` would replace it by a plain tensor,
    one of the bugs in notebook 5).
    """),
    code("""
    dw, db = grads
    print(f"gradients: dw = {dw.numpy():.1f}, db = {db.numpy():.1f}")
    print(f"loss before the step: {loss.numpy():.2f}")
    w.assign_sub(learning_rate * dw)
    b.assign_sub(learning_rate * db)
    print(f"loss after the step:  {tf.reduce_mean((w * xs + b - ts) ** 2).numpy():.2f}")
    """),
    md("""
    Repeat the step and the line finds `w = 2`, `b = -1`. This loop is all that
    training is; the next notebooks add bigger models, and optimizers that choose
    the step for you.
    """),
    code("""
    for step in range(300):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((w * xs + b - ts) ** 2)
        dw, db = tape.gradient(loss, [w, b])
        w.assign_sub(learning_rate * dw)
        b.assign_sub(learning_rate * db)

    print(f"after 300 more steps: w = {w.numpy():.3f}, b = {b.numpy():.3f}, loss = {loss.numpy():.2e}")
    """),
    md("""
    ## Summary

    - `with tf.GradientTape() as tape:` records; `tape.gradient(target, sources)`
      differentiates.
    - Trainable variables are watched when read; constants need `tape.watch`.
    - `None` means the tape has no path from the source to the target.
    - Sources can be any nested structure; the gradients mirror it.
    - Update variables with `assign_sub`, never by rebinding the name.

    Next: [2. Persistent tapes and Jacobians](02-persistent-jacobians.ipynb).
    """),
]

# --------------------------------------------------------------------------
# 02: persistent tapes, jacobian, batch_jacobian, non-scalar targets
# --------------------------------------------------------------------------
JACOBIANS = [
    md("""
    # 2. Persistent tapes and Jacobians

    A tape answers one question and then forgets what it recorded. This notebook
    is about asking more:

    1. `persistent=True` to call `gradient` several times;
    2. what `gradient` does with a target that is not a scalar;
    3. `jacobian` for every output's gradient, and `batch_jacobian` for one
       Jacobian per example.
    """),
    md(SETUP_TEXT),
    code(SETUP),
    md("""
    ## A tape answers once

    A plain tape releases what it recorded as soon as `gradient` returns, to
    save memory. A second call raises `RuntimeError`.
    """),
    code("""
    x = tf.Variable(2.0)

    with tf.GradientTape() as tape:
        y = x**2
        z = x**3

    print("dy/dx =", tape.gradient(y, x).numpy())
    try:
        tape.gradient(z, x)
    except RuntimeError as err:
        print("RuntimeError:", err)
    """),
    md("""
    ## Persistent tapes

    With `persistent=True` (`%%tape --persistent`) the tape keeps its
    recording, and you can ask as many questions as you like. Delete it when
    done: it holds on to every intermediate value.
    """),
    code("""
    %%tape --persistent
    y = x**2
    z = x**3
    """),
    code("""
    print("dy/dx =", tape.gradient(y, x).numpy())  # 2x = 4
    print("dz/dx =", tape.gradient(z, x).numpy())  # 3x² = 12
    print("d(y + z)/dx =", tape.gradient([y, z], x).numpy())  # a list of targets adds up
    del tape
    """),
    md("""
    ## Non-scalar targets: the gradient of the sum

    A gradient has the shape of its source, whatever the target's shape. When
    the target is a vector, `tape.gradient` differentiates the *sum* of its
    elements. For an elementwise function like `x**2` that happens to be each
    element's own derivative.
    """),
    code("""
    x = tf.Variable([1.0, 2.0, 3.0])

    with tf.GradientTape(persistent=True) as tape:
        y = x**2  # [1, 4, 9]
        total = tf.reduce_sum(y)

    print("gradient(y, x)      =", tape.gradient(y, x).numpy())
    print("gradient(sum(y), x) =", tape.gradient(total, x).numpy())
    """),
    md("""
    `output_gradients` weights the elements before summing. Weights that pick
    one element give that element's gradient: one row of the Jacobian.
    """),
    code("""
    row0 = tape.gradient(y, x, output_gradients=tf.constant([1.0, 0.0, 0.0]))
    print("d y[0] / d x =", row0.numpy())
    del tape
    """),
    md("""
    ## `jacobian`: every output's gradient

    The Jacobian holds d target[i] / d source[j] for every pair, so its shape is
    `target.shape + source.shape`. For `y = W x` it is `W` itself; for the
    elementwise `z = x**2` it is diagonal. `gradient` is the Jacobian summed
    over the target's axes.
    """),
    code("""
    W = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    x = tf.Variable([1.0, 2.0, 3.0])
    """),
    code("""
    %%tape --persistent
    y = tf.linalg.matvec(W, x)  # y = W x, shape (2,)
    z = x**2
    """),
    code("""
    J = tape.jacobian(y, x)
    print("jacobian(y, x): shape", J.shape, "\\n", J.numpy())
    print("jacobian(z, x):\\n", tape.jacobian(z, x).numpy())
    print("gradient(y, x)          =", tape.gradient(y, x).numpy())
    print("jacobian summed over y  =", tf.reduce_sum(J, axis=0).numpy())
    """),
    md("""
    The source can have any shape. With respect to the matrix `W` (a constant,
    so the tape has to be told to watch it), the Jacobian of the 2-vector `y`
    has shape `(2,) + (2, 3)`.
    """),
    code("""
    with tf.GradientTape() as tape:
        tape.watch(W)
        y = tf.linalg.matvec(W, x)
    print("jacobian(y, W) shape:", tape.jacobian(y, W).shape)
    """),
    md("""
    ## `batch_jacobian`: one Jacobian per example

    A model maps each example of a batch on its own: row `i` of the output
    depends only on row `i` of the input. The full Jacobian of a `(4, 2)` output
    with respect to a `(4, 3)` input has shape `(4, 2, 4, 3)` and is mostly
    zeros. `batch_jacobian` keeps only the per-example blocks: shape
    `(4, 2, 3)`.
    """),
    code("""
    xb = tf.reshape(tf.range(12, dtype=tf.float32), [4, 3]) / 10.0  # 4 examples
    V = tf.constant([[1.0, -1.0], [0.5, 2.0], [-1.0, 0.0]])

    with tf.GradientTape(persistent=True) as tape:
        tape.watch(xb)
        yb = tf.tanh(xb @ V)  # (4, 2)

    full = tape.jacobian(yb, xb)
    per_example = tape.batch_jacobian(yb, xb)
    print("jacobian:      ", full.shape)
    print("batch_jacobian:", per_example.shape)
    """),
    md("""
    Check both against the derivative by hand,
    d tanh(x V)[a] / d x[b] = (1 - y[a]²) V[b, a], and check that the full
    Jacobian's blocks off the diagonal are zero:
    """),
    code("""
    import numpy as np

    by_hand = (1 - yb[:, :, None] ** 2) * tf.transpose(V)[None]  # (4, 2, 3)
    diagonal_blocks = np.einsum("iaib->iab", full.numpy())
    print("batch_jacobian equals the formula:", np.allclose(per_example, by_hand, atol=1e-6))
    print("its blocks are the full jacobian's diagonal:", np.allclose(diagonal_blocks, per_example))
    off_diagonal = full.numpy().copy()
    off_diagonal[np.arange(4), :, np.arange(4), :] = 0
    print("everything else is zero:", not off_diagonal.any())
    del tape
    """),
    md("""
    ## Summary

    - A tape answers one `gradient` call unless it is `persistent=True`.
    - A non-scalar target gives the gradient of its sum (weighted by
      `output_gradients` if given); a list of targets is added up too.
    - `jacobian(target, source)` has shape `target.shape + source.shape`.
    - `batch_jacobian` gives one Jacobian per example: shape
      `(batch,) + target.shape[1:] + source.shape[1:]`.

    Next: [3. Higher-order derivatives](03-higher-order.ipynb).
    """),
]

# --------------------------------------------------------------------------
# 03: nested tapes, a Hessian, Newton's method
# --------------------------------------------------------------------------
HIGHER = [
    md("""
    # 3. Higher-order derivatives

    Computing a gradient is itself a computation made of ordinary operations.
    If a second tape is recording while the first one computes its gradient, the
    second tape can differentiate the gradient. In this notebook:

    1. second and third derivatives with nested tapes;
    2. a Hessian (the Jacobian of a gradient);
    3. Newton's method, which uses the Hessian to jump to a minimum.
    """),
    md(SETUP_TEXT),
    code(SETUP),
    md("""
    ## A tape inside a tape

    The inner tape records `y = x³`. Its gradient, `3x²`, is computed *inside*
    the outer tape's block, so the outer tape records the operations of that
    backward pass and can differentiate them again: `6x`.
    """),
    code("""
    x = tf.Variable(1.0)

    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = x**3
        dy_dx = inner.gradient(y, x)  # 3x², recorded by the outer tape
    d2y_dx2 = outer.gradient(dy_dx, x)  # 6x

    print("dy/dx   =", dy_dx.numpy())
    print("d2y/dx2 =", d2y_dx2.numpy())
    """),
    md("""
    Here the outer tape is a `%%tape` cell. The drawing shows the forward
    operation, `y = x**3`, and the inner tape's backward pass as one box,
    `∂y/∂x`: the outer tape recorded its operations, and they are the path from
    `x` to `dy_dx` that `--target dy_dx --sources x` differentiates (tick
    "expand gradient calls" to see them one by one). `y` is the inner tape's
    target, so here it is drawn as an ordinary value.
    """),
    code("""
    %%tape --target dy_dx --sources x
    with tf.GradientTape() as inner:
        y = x**3
    dy_dx = inner.gradient(y, x)
    """),
    code("""
    print("d2y/dx2 =", grads.numpy())
    """),
    md("""
    ## Third derivatives

    Each extra tape gives one more derivative. For `y = x⁴` at `x = 2`:
    `4x³ = 32`, `12x² = 48`, `24x = 48`.
    """),
    code("""
    x = tf.Variable(2.0)

    with tf.GradientTape() as t3:
        with tf.GradientTape() as t2:
            with tf.GradientTape() as t1:
                y = x**4
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)

    print("first, second, third derivative:", d1.numpy(), d2.numpy(), d3.numpy())
    """),
    md("""
    The same works elementwise on a whole vector of points (the gradient of the
    sum, from notebook 2): here `sin` and its first three derivatives,
    `cos`, `-sin` and `-cos`.
    """),
    code("""
    import matplotlib.pyplot as plt
    import numpy as np

    xs = tf.Variable(tf.linspace(-6.0, 6.0, 200))
    with tf.GradientTape() as t3:
        with tf.GradientTape() as t2:
            with tf.GradientTape() as t1:
                ys = tf.sin(xs)
            d1 = t1.gradient(ys, xs)
        d2 = t2.gradient(d1, xs)
    d3 = t3.gradient(d2, xs)

    fig, ax = plt.subplots(figsize=(8, 3))
    for values, label in [(ys, "sin x"), (d1, "1st"), (d2, "2nd"), (d3, "3rd")]:
        ax.plot(xs.numpy(), values.numpy(), label=label)
    ax.legend(loc="upper right")
    ax.set_title("sin and its derivatives, from nested tapes")
    plt.show()
    """),
    md("""
    ## A Hessian

    The Hessian of a function of a vector is the matrix of its second
    derivatives: the Jacobian of its gradient. The inner tape gives the
    gradient `g`; the outer tape's `jacobian(g, p)` gives the Hessian.

    The test function is Rosenbrock's banana valley, whose minimum is at
    `(1, 1)`: f(x, y) = (1 - x)² + 100 (y - x²)². We use float64 so that
    Newton's method below can get all the way to the minimum.
    """),
    code("""
    def rosenbrock(p):
        return (1 - p[0]) ** 2 + 100 * (p[1] - p[0] ** 2) ** 2


    def gradient_and_hessian(p):
        with tf.GradientTape() as outer:
            with tf.GradientTape() as inner:
                f = rosenbrock(p)
            g = inner.gradient(f, p)
        return f, g, outer.jacobian(g, p)


    p = tf.Variable([-1.2, 1.0], dtype=tf.float64)
    """),
    md("""
    As a `%%tape` cell, with the tape bound to `outer` (`--name outer`), the
    gradient computation is on the drawing; the Hessian is one more call.
    """),
    code("""
    %%tape --name outer
    with tf.GradientTape() as inner:
        f = rosenbrock(p)
    g = inner.gradient(f, p)
    """),
    md("""
    By hand, with `p = (x, y)`: the Hessian is
    [[2 - 400 (y - x²) + 800 x², -400 x], [-400 x, 200]].
    """),
    code("""
    H = outer.jacobian(g, p)
    px, py = p.numpy()
    by_hand = [[2 - 400 * (py - px**2) + 800 * px**2, -400 * px], [-400 * px, 200.0]]
    print("Hessian from the tapes:\\n", H.numpy())
    print("Hessian by hand:\\n", np.array(by_hand))
    """),
    md("""
    ## Newton's method

    Near a minimum a function looks like a bowl, f(p + d) ≈ f + gᵀd + ½ dᵀH d.
    The bottom of that bowl is at `d = -H⁻¹ g`, and Newton's method jumps there,
    then repeats. We solve `H d = g` with `tf.linalg.solve` rather than
    inverting `H`.
    """),
    code("""
    p.assign([-1.2, 1.0])
    path = [p.numpy()]
    for step in range(8):
        f, g, H = gradient_and_hessian(p)
        print(f"step {step}: p = {p.numpy().round(6)}, f = {f.numpy():.3e}")
        d = tf.linalg.solve(H, tf.reshape(g, [2, 1]))
        p.assign_sub(tf.reshape(d, [2]))
        path.append(p.numpy())

    print("Newton's method ends at", p.numpy().round(6))
    """),
    md("""
    Newton's method does not promise to go downhill at every step: step 2 lands
    far up the side of the valley (f jumps to about 1400) before the next steps
    close in. Still, it reaches the minimum in six steps, where gradient descent
    from the same start crawls along the curved valley floor for thousands.
    The path:
    """),
    code("""
    gx, gy = np.meshgrid(np.linspace(-2, 2, 200), np.linspace(-3.5, 3, 200))
    fig, ax = plt.subplots(figsize=(5, 4))
    ax.contour(gx, gy, np.log1p((1 - gx) ** 2 + 100 * (gy - gx**2) ** 2), levels=20)
    path = np.array(path)
    ax.plot(path[:, 0], path[:, 1], "o-", color="crimson", label="Newton steps")
    ax.plot(1, 1, "k*", markersize=12, label="minimum (1, 1)")
    ax.legend()
    plt.show()
    """),
    md("""
    ## Summary

    - The backward pass is made of recorded operations, so a tape around it can
      differentiate it again: one extra tape per extra derivative.
    - A Hessian is `outer.jacobian(inner.gradient(f, p), p)`.
    - Newton's method uses it to take steps `-H⁻¹ g`.

    Next: [4. A training step](04-training-step.ipynb).
    """),
]

# --------------------------------------------------------------------------
# 04: a custom training step on scikit-learn's digits
# --------------------------------------------------------------------------
TRAINING = [
    md("""
    # 4. A training step

    Keras' `model.fit` hides a loop whose heart is a *training step*: run the
    model under a tape, compute the loss, take the gradient of the loss with
    respect to the model's weights, and let an optimizer update them. Writing
    that step yourself is how you customize training (the Keras guides call it
    overriding `train_step`). Here we write it and train a small network on
    handwritten digits.
    """),
    md(SETUP_TEXT),
    code(SETUP),
    md("""
    ## The data

    scikit-learn ships 1,797 handwritten digits as 8×8 grey images with values
    0 to 16. We scale them to [0, 1], flatten each to 64 numbers, and keep a
    quarter aside to measure accuracy on digits the model never saw.
    """),
    code("""
    import time

    import matplotlib.pyplot as plt
    import numpy as np
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    digits = load_digits()
    x = (digits.data / 16.0).astype("float32")  # (1797, 64)
    y = digits.target.astype("int32")  # 0..9
    x_train, x_test, y_train, y_test = train_test_split(
        x, y, test_size=0.25, random_state=0, stratify=y
    )
    print("train:", x_train.shape, " held out:", x_test.shape)

    fig, axes = plt.subplots(1, 10, figsize=(10, 1.3))
    for ax, image, label in zip(axes, x_train, y_train):
        ax.imshow(image.reshape(8, 8), cmap="gray_r")
        ax.set_title(int(label))
        ax.axis("off")
    plt.show()
    """),
    md("""
    ## Model, loss and optimizer

    A small multilayer perceptron: 64 inputs, one hidden layer of 64 ReLU
    units, and 10 outputs, one score (logit) per digit. The loss is the cross
    entropy between the softmax of the logits and the true digit.
    """),
    code("""
    tf.keras.utils.set_random_seed(0)

    model = tf.keras.Sequential(
        [
            tf.keras.Input(shape=(64,)),
            tf.keras.layers.Dense(64, activation="relu"),
            tf.keras.layers.Dense(10),
        ]
    )
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    optimizer = tf.keras.optimizers.Adam(learning_rate=0.005)

    print([(v.name, tuple(v.shape)) for v in model.trainable_weights])
    """),
    md("""
    ## One step, under the tape

    The layers' weights are trainable variables, so the tape watches them as
    soon as the model reads them. `--sources model.trainable_weights` asks for
    the gradient with respect to all four (a list in, a list out).
    """),
    code("""
    %%tape --target loss --sources model.trainable_weights
    logits = model(x_train[:32], training=True)
    loss = loss_fn(y_train[:32], logits)
    """),
    code("""
    for weight, grad in zip(model.trainable_weights, grads):
        print(f"{weight.name:8} weight {tuple(weight.shape)}  gradient {tuple(grad.shape)}")
    """),
    md("""
    ## The training step

    The whole step as a function. `@tf.function` makes TensorFlow compile it to
    a graph; tapemagic runs the function eagerly, converting its arguments and
    results as TensorFlow does, so the same code runs on both.
    `optimizer.apply(grads, weights)` is Keras 3's spelling of
    `optimizer.apply_gradients(zip(grads, weights))`.
    """),
    code("""
    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = loss_fn(y, logits)
        grads = tape.gradient(loss, model.trainable_weights)
        optimizer.apply(grads, model.trainable_weights)
        return loss
    """),
    md("""
    ## Training

    Each epoch shuffles the training set and runs the step on batches of 64.
    """),
    code("""
    epochs, batch_size = 15, 64
    rng = np.random.default_rng(0)
    losses = []

    start = time.perf_counter()
    for epoch in range(epochs):
        order = rng.permutation(len(x_train))
        for i in range(0, len(order), batch_size):
            batch = order[i : i + batch_size]
            losses.append(float(train_step(x_train[batch], y_train[batch])))
    seconds = time.perf_counter() - start
    print(f"Trained {epochs} epochs ({len(losses)} steps) in {seconds:.1f} s")
    """),
    code("""
    steps_per_epoch = len(losses) // epochs
    fig, ax = plt.subplots(figsize=(7, 3))
    ax.plot(losses, alpha=0.4, label="batch loss")
    epoch_means = np.mean(np.reshape(losses[: epochs * steps_per_epoch], (epochs, -1)), axis=1)
    ax.plot((np.arange(epochs) + 1) * steps_per_epoch, epoch_means, "o-", label="epoch mean")
    ax.set_xlabel("step")
    ax.set_ylabel("cross entropy")
    ax.set_yscale("log")
    ax.legend()
    plt.show()
    """),
    md("""
    ## Accuracy on held-out digits

    The predicted digit is the one with the highest logit.
    """),
    code("""
    predicted = tf.argmax(model(x_test, training=False), axis=1).numpy()
    accuracy = np.mean(predicted == y_test)
    print(f"Held-out accuracy: {accuracy:.3f} ({np.sum(predicted == y_test)} of {len(y_test)})")
    """),
    md("""
    A few of the digits it got wrong (the title is `predicted/true`):
    """),
    code("""
    wrong = np.flatnonzero(predicted != y_test)[:10]
    fig, axes = plt.subplots(1, max(len(wrong), 1), figsize=(10, 1.3), squeeze=False)
    for ax, i in zip(axes[0], wrong):
        ax.imshow(x_test[i].reshape(8, 8), cmap="gray_r")
        ax.set_title(f"{predicted[i]}/{y_test[i]}")
    for ax in axes[0]:
        ax.axis("off")
    plt.show()
    """),
    md("""
    ## Summary

    - A training step is: forward pass under a tape, loss,
      `tape.gradient(loss, model.trainable_weights)`, `optimizer.apply`.
    - Keras layers' weights are trainable variables, so the tape watches them
      with no extra code.
    - `@tf.function` changes how TensorFlow runs the step, not what it
      computes.

    Next: [5. Why is my gradient None?](05-why-is-my-gradient-none.ipynb).
    """),
]

# --------------------------------------------------------------------------
# 05: the common None-gradient bugs, each flagged, each fixed
# --------------------------------------------------------------------------


def bug(title: str, why: str, buggy: str, fix_text: str, fixed: str) -> list:
    """One bug: what goes wrong, the flagged cell, the fix, the fixed cell."""
    return [
        md(f"## {title}\n\n{textwrap.dedent(why).strip()}"),
        code(buggy, "expect-none"),
        md(f"**Fix.** {textwrap.dedent(fix_text).strip()}"),
        code(fixed),
    ]


NONE_BUGS = [
    md("""
    # 5. Why is my gradient None?

    `tape.gradient` returns `None` for a source when the tape has no recorded
    path from that source to the target. It never says why, and the `None`
    usually surfaces much later, as a `TypeError` in an optimizer or a weight
    that silently never trains. This notebook collects the common causes. Each
    one is a `%%tape` cell with the bug, which the drawing under it flags with
    the reason, followed by the corrected cell.

    Every cell asks for gradients with `--target` and `--sources`; the answers
    are in `grads`.
    """),
    md(SETUP_TEXT),
    code(SETUP),
    code("""
    w = tf.Variable(2.0, name="w")
    x = tf.constant(3.0)
    """),
    md("""
    ## 1. A constant that was never watched

    Tapes watch trainable variables by themselves, but not tensors. `x` is a
    `tf.constant`, so `y = w * x` is recorded only through `w`.
    """),
    code(
        """
        %%tape --target y --sources w,x
        y = w * x
        """,
        "expect-none",
    ),
    md("""
    The drawing marks `x` in red, and the *Gradients* tab says why and what to
    do. The same explanation is available as text, for scripts and logs, with
    `tape.explain()` (a tapemagic addition: TensorFlow's tapes have no such
    method).
    """),
    code("""
    print(tape.explain())
    """),
    md(
        "**Fix.** Watch the tensor before using it: `tape.watch(x)` (or `%%tape --watch x`)."
    ),
    code("""
    %%tape --target y --sources w,x
    tape.watch(x)
    y = w * x
    """),
    *bug(
        "2. A variable with `trainable=False`",
        """
        Keras freezes layers this way, and it is right for counters and moving
        averages. A non-trainable variable is not watched when read.
        """,
        """
        %%tape --target y --sources scale
        scale = tf.Variable(2.0, trainable=False)
        y = scale * x
        """,
        """
        If the variable should learn, make it trainable. If it should stay
        frozen but you need its gradient anyway, watch it explicitly.
        """,
        """
        %%tape --target y --sources scale
        scale = tf.Variable(2.0, trainable=True)
        y = scale * x
        """,
    ),
    *bug(
        "3. `watch_accessed_variables=False` and nothing watched",
        """
        With `tf.GradientTape(watch_accessed_variables=False)` (here
        `--no-watch-accessed`) the tape watches only what `tape.watch` names.
        """,
        """
        %%tape --no-watch-accessed --target y --sources w
        y = w * x
        """,
        "Name what you want gradients for with `tape.watch(w)`.",
        """
        %%tape --no-watch-accessed --target y --sources w
        tape.watch(w)
        y = w * x
        """,
    ),
    md("""
    ## 4. Computed before the tape started

    The tape records only what runs while it is open. `wx` below is computed in
    a cell of its own, so the tape sees it as a finished value with no history.
    """),
    code("""
    wx = w * x  # outside any tape
    """),
    code(
        """
        %%tape --target loss --sources w
        loss = wx**2
        """,
        "expect-none",
    ),
    md("**Fix.** Compute everything that depends on the sources inside the tape."),
    code("""
    %%tape --target loss --sources w
    wx = w * x
    loss = wx**2
    """),
    *bug(
        "5. A detour through NumPy",
        """
        `.numpy()`, `np.array(t)` and `float(t)` copy a value out of the engine.
        The copy is a plain number: when it comes back into a computation it is
        a new constant, unrelated to `w`.
        """,
        """
        %%tape --target loss --sources w
        w_value = w.numpy()
        loss = (w_value * x - 1.0) ** 2
        """,
        "Stay in tensors: use `w` itself (or the `tf.math` version of the NumPy function).",
        """
        %%tape --target loss --sources w
        loss = (w * x - 1.0) ** 2
        """,
    ),
    *bug(
        "6. A cast to an integer",
        """
        Integers have no gradient. Casting to `int32` (to round, to count, to
        index) cuts the path, even when the result is cast back to float.
        """,
        """
        %%tape --target loss --sources w
        steps = tf.cast(w * x, tf.int32)
        loss = tf.cast(steps, tf.float32) ** 2
        """,
        """
        Keep the value in floating point. If the rounding is wanted, a common
        trick (the straight-through estimator) rounds in the forward pass and
        lets the gradient through as if nothing happened.
        """,
        """
        %%tape --target loss --sources w
        value = w * x
        steps = value + tf.stop_gradient(tf.round(value) - value)
        loss = steps**2
        """,
    ),
    md("""
    ## 7. An operation with no gradient

    `argmax`, `round`, comparisons and `tf.equal` are flat almost everywhere,
    so TensorFlow gives them no gradient. A classic: training on accuracy.
    """),
    code("""
    logits = tf.Variable([[2.0, 0.5, 0.1], [0.2, 0.1, 1.5]])
    labels = tf.constant([0, 1])
    """),
    code(
        """
        %%tape --target loss --sources logits
        predicted = tf.argmax(logits, axis=1, output_type=tf.int32)
        accuracy = tf.reduce_mean(tf.cast(tf.equal(predicted, labels), tf.float32))
        loss = 1.0 - accuracy
        """,
        "expect-none",
    ),
    md("""
    **Fix.** Train on a differentiable stand-in (cross entropy), and keep
    accuracy for reporting.
    """),
    code("""
    %%tape --target loss --sources logits
    loss = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    )
    """),
    *bug(
        "8. `tf.stop_gradient`",
        """
        `tf.stop_gradient` exists to cut the path on purpose (target networks,
        the straight-through trick above). Left in by accident, it cuts it
        all the same.
        """,
        """
        %%tape --target loss --sources w
        prediction = tf.stop_gradient(w * x)
        loss = (prediction - 1.0) ** 2
        """,
        "Remove it where the gradient should flow.",
        """
        %%tape --target loss --sources w
        prediction = w * x
        loss = (prediction - 1.0) ** 2
        """,
    ),
    md("""
    ## 9. A variable rebound to a tensor

    After one hand-written update `w = w - lr * grads`, the name `w` no longer
    refers to the variable but to a plain tensor, which nothing watches. The
    first step works; the second one gets `None`.
    """),
    code("""
    %%tape --target loss --sources w
    loss = (w * x - 1.0) ** 2
    """),
    code("""
    w = w - 0.01 * grads  # w is now a tf.Tensor, not a tf.Variable
    print(type(w).__name__)
    """),
    code(
        """
        %%tape --target loss --sources w
        loss = (w * x - 1.0) ** 2
        """,
        "expect-none",
    ),
    md("""
    **Fix.** Update variables in place with `assign_sub` (or let an optimizer do
    it). Here `w` is made a variable again first.
    """),
    code("""
    w = tf.Variable(2.0, name="w")
    """),
    code("""
    %%tape --target loss --sources w
    loss = (w * x - 1.0) ** 2
    """),
    code("""
    w.assign_sub(0.01 * grads)
    print(type(w).__name__, w.numpy())
    """),
    code("""
    %%tape --target loss --sources w
    loss = (w * x - 1.0) ** 2
    """),
    *bug(
        "10. A source the target does not use",
        """
        A bias that was created but never added, a layer that was skipped: the
        target simply does not depend on `b`.
        """,
        """
        %%tape --target y --sources w,b
        b = tf.Variable(0.5, name="b")
        y = w * x
        """,
        """
        Use the source. If "does not depend" is expected (a branch that was not
        taken), ask for zeros instead of `None` with
        `unconnected_gradients=tf.UnconnectedGradients.ZERO` (`--unconnected
        zero`).
        """,
        """
        %%tape --target y --sources w,b
        b = tf.Variable(0.5, name="b")
        y = w * x + b
        """,
    ),
    *bug(
        "11. An integer variable",
        """
        `tf.Variable(3)` holds an `int32`. Integer variables can be read and
        updated, but they have no gradient.
        """,
        """
        %%tape --target y --sources count
        count = tf.Variable(3)
        y = tf.cast(count, tf.float32) * x
        """,
        "Create it with a float: `tf.Variable(3.0)`.",
        """
        %%tape --target y --sources count
        count = tf.Variable(3.0)
        y = count * x
        """,
    ),
    md("""
    ## 12. Asking a plain tape twice

    Not a `None` but its cousin: a tape that is not persistent answers one
    `gradient` call. The `%%tape` line already asked once, so the second call in
    the next cell raises `RuntimeError`.
    """),
    code("""
    %%tape --target loss --sources w
    loss = (w * x - 1.0) ** 2
    """),
    code(
        """
        tape.gradient(loss, w)
        """,
        "raises-exception",
    ),
    md("""
    **Fix.** Ask for everything in one call (a list of sources), or make the
    tape persistent.
    """),
    code("""
    %%tape --persistent --target loss --sources w
    loss = (w * x - 1.0) ** 2
    """),
    code("""
    print("asked again:", tape.gradient(loss, w).numpy())
    del tape
    """),
    md("""
    ## Summary

    | symptom | cause | fix |
    | --- | --- | --- |
    | `None` for a tensor | never watched | `tape.watch(t)` |
    | `None` for a variable | `trainable=False`, or `watch_accessed_variables=False` | make it trainable, or `tape.watch(v)` |
    | `None` for everything | the value was computed before the tape | compute it inside the tape |
    | `None` after `.numpy()` | a copy left the engine | stay in tensors |
    | `None` after a cast, `argmax`, `round`, a comparison | no gradient through integers or steps | keep floats; use a differentiable loss |
    | `None` after `tf.stop_gradient` | cut on purpose | remove it |
    | `None` from the second step on | `w = w - ...` rebound the name | `w.assign_sub(...)` |
    | `None` for one source only | the target does not use it | use it, or `UnconnectedGradients.ZERO` |
    | `None` for an `int32` variable | integers have no gradient | create it with a float |
    | `RuntimeError` on the second call | the tape is not persistent | one call, or `persistent=True` |

    For autograded exercises, `tapemagic.assert_no_none_gradients(tape)` raises
    an `AssertionError` with the same explanations when a gradient of a
    `%%tape` tape is `None`.

    Next: [6. Gradient ascent on the input](06-gradient-ascent.ipynb).
    """),
]

# --------------------------------------------------------------------------
# 06: optimize an input to excite a unit of a small conv net
# --------------------------------------------------------------------------
ASCENT = [
    md("""
    # 6. Gradient ascent on the input

    Training changes the weights to lower a loss, with the input fixed. Turn
    that around: keep the weights fixed and change the *input* to raise one
    unit's activation. The image that comes out shows what the unit responds
    to. The tape does not care which is which: the input just has to be a
    watched source.

    1. train a small convolutional network on the 8×8 digits;
    2. make the input image a `tf.Variable` and climb the gradient of one
       output unit;
    3. watch the image change, and do it for every digit.
    """),
    md(SETUP_TEXT),
    code(SETUP),
    md("""
    ## A small conv net on digits

    One convolution with 16 filters of 3×3, a 2×2 max pool and a dense layer to
    the 10 digit logits, trained with the step from notebook 4.
    """),
    code("""
    import matplotlib.pyplot as plt
    import numpy as np
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    digits = load_digits()
    images = (digits.images / 16.0).astype("float32")[..., None]  # (1797, 8, 8, 1)
    labels = digits.target.astype("int32")
    x_train, x_test, y_train, y_test = train_test_split(
        images, labels, test_size=0.25, random_state=0, stratify=labels
    )

    tf.keras.utils.set_random_seed(1)
    model = tf.keras.Sequential(
        [
            tf.keras.Input(shape=(8, 8, 1)),
            tf.keras.layers.Conv2D(16, 3, padding="same", activation="relu"),
            tf.keras.layers.MaxPooling2D(2),
            tf.keras.layers.Flatten(),
            tf.keras.layers.Dense(10),
        ]
    )
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    optimizer = tf.keras.optimizers.Adam(learning_rate=0.01)


    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_weights)
        optimizer.apply(grads, model.trainable_weights)
        return loss


    rng = np.random.default_rng(1)
    for epoch in range(8):
        order = rng.permutation(len(x_train))
        for i in range(0, len(order), 64):
            batch = order[i : i + 64]
            loss = train_step(x_train[batch], y_train[batch])

    predicted = tf.argmax(model(x_test), axis=1).numpy()
    print(f"Held-out accuracy: {np.mean(predicted == y_test):.3f}")
    """),
    md("""
    ## The input as the source

    The image is a `tf.Variable` of shape `(1, 8, 8, 1)`, starting as a blank
    page (all zeros). The objective is the logit of digit 3 (the output unit
    for 3, before the softmax), minus a small price for ink, `0.1 × sum(pixel²)`,
    so that strokes appear only where they raise the logit.

    The model's weights are variables too, and a tape would watch them as it
    reads them. We only want the image, so the tape is made with
    `watch_accessed_variables=False` and watches the image alone
    (`--no-watch-accessed --watch image`): in the drawing, only the operations
    that depend on the image are recorded; the weights enter as unwatched
    inputs.
    """),
    code("""
    target_digit = 3
    image = tf.Variable(tf.zeros([1, 8, 8, 1]))


    def objective(image):
        logits = model(image)
        return logits[0, target_digit] - 0.1 * tf.reduce_sum(image**2)
    """),
    code("""
    %%tape --no-watch-accessed --watch image --target score --sources image
    score = objective(image)
    """),
    code("""
    print("gradient shape:", grads.shape, "(the image's shape)")
    print("variables this tape watched:", [tuple(v.shape) for v in tape.watched_variables()])
    """),
    md("""
    ## Climbing

    Each step adds a multiple of the gradient to the image (plus, not minus:
    this is ascent) and clips the pixels to [0, 1]. The weights are never
    touched.
    """),
    code("""
    def ascend(digit, steps=100, step_size=0.01):
        image = tf.Variable(tf.zeros([1, 8, 8, 1]))
        snapshots = {0: image.numpy()[0, :, :, 0]}
        for step in range(1, steps + 1):
            with tf.GradientTape(watch_accessed_variables=False) as tape:
                tape.watch(image)
                logits = model(image)
                score = logits[0, digit] - 0.1 * tf.reduce_sum(image**2)
            grad = tape.gradient(score, image)
            image.assign(tf.clip_by_value(image + step_size * grad, 0.0, 1.0))
            if step in (5, 10, 20, 40, 70, steps):
                snapshots[step] = image.numpy()[0, :, :, 0]
        return image, snapshots


    weights_before = [w.numpy().copy() for w in model.trainable_weights]
    start_probability = tf.nn.softmax(model(image))[0, target_digit].numpy()
    image, snapshots = ascend(target_digit)
    final_probability = tf.nn.softmax(model(image))[0, target_digit].numpy()
    unchanged = all(np.array_equal(a, w.numpy()) for a, w in zip(weights_before, model.trainable_weights))
    print(f"P(digit {target_digit}): {start_probability:.3f} at the start, {final_probability:.3f} after 100 steps")
    print("weights unchanged:", unchanged)
    """),
    md("""
    The image as it changes. Each title gives the step, then the logit of 3 and
    the probability the network gives to a 3: the blank page starts as an unlikely
    3, and strokes grow where a 3 has ink.
    """),
    code("""
    fig, axes = plt.subplots(1, len(snapshots), figsize=(11, 1.9))
    for ax, (step, picture) in zip(axes, snapshots.items()):
        logits = model(picture[None, :, :, None])
        p = tf.nn.softmax(logits)[0, target_digit]
        ax.imshow(picture, cmap="gray_r", vmin=0, vmax=1)
        ax.set_title(f"step {step}\\n{logits[0, target_digit].numpy():.1f}, P={p.numpy():.2f}")
        ax.set_xticks([])
        ax.set_yticks([])
    plt.show()
    """),
    md("""
    ## Every digit

    The same climb for each of the ten output units (the title is the
    probability reached). These are not drawings of digits but the evidence the
    network has learned to look for: ink where that digit has strokes and the
    others don't. Some are easy to read (0, 6, 7), others less so.
    """),
    code("""
    fig, axes = plt.subplots(1, 10, figsize=(11, 1.6))
    reached = []
    for digit, ax in enumerate(axes):
        picture, _ = ascend(digit)
        probability = tf.nn.softmax(model(picture))[0, digit].numpy()
        reached.append(probability)
        ax.imshow(picture.numpy()[0, :, :, 0], cmap="gray_r", vmin=0, vmax=1)
        ax.set_title(f"{digit}: {probability:.2f}")
        ax.set_xticks([])
        ax.set_yticks([])
    plt.show()
    print(f"Lowest probability reached over the ten digits: {min(reached):.3f}")
    """),
    md("""
    ## Summary

    - Any watched value can be a source, the input as well as the weights.
    - `watch_accessed_variables=False` plus `tape.watch(image)` keeps the tape
      to what depends on the input.
    - Gradient *ascent* on an input (`+ step_size * grad`) shows what a unit
      responds to. With `-` instead, and the true label's loss, the same loop
      makes adversarial examples.

    Try it: replace the output logit by the mean activation of one of the 16
    convolution filters (a `tf.keras.Model` built from `model.inputs` and
    `model.layers[0].output`) and see what that filter looks for.

    Next: [7. Customizing what `fit` does](07-keras-fit-customized.ipynb).
    """),
]

# --------------------------------------------------------------------------
# 07: Keras' fit, customized: tf.data, train_step, BatchNormalization, features
# --------------------------------------------------------------------------
FIT = [
    md("""
    # 7. Customizing what `fit` does

    Notebook 4 wrote the training loop by hand. Keras' `model.fit` runs that
    loop for you: it takes batches from the data, calls the model's
    `train_step` on each, and keeps the metrics. Override `train_step` and
    `fit` runs *your* step, with everything else (epochs, validation,
    progress, history) as before. In this notebook:

    1. feed the digits to the model through a `tf.data` pipeline;
    2. write a `keras.Model` subclass with its own `train_step`, built from
       layers like any functional model;
    3. see how a `BatchNormalization` layer behaves in training and in
       inference;
    4. reuse the trained layers as a feature extractor.
    """),
    md(SETUP_TEXT),
    code(SETUP),
    md("""
    ## The data, as a `tf.data` pipeline

    The same 8×8 digits as in notebook 6, as images with one channel. A
    `tf.data.Dataset` slices the arrays into `(image, label)` pairs, shuffles
    them each epoch and groups them in batches of 64. `prefetch` lets
    TensorFlow prepare the next batch while the model trains on this one
    (tapemagic runs on one thread, so there it changes nothing).
    """),
    code("""
    import matplotlib.pyplot as plt
    import numpy as np
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    digits = load_digits()
    images = (digits.images / 16.0).astype("float32")[..., None]  # (1797, 8, 8, 1)
    labels = digits.target.astype("int32")
    x_train, x_test, y_train, y_test = train_test_split(
        images, labels, test_size=0.25, random_state=0, stratify=labels
    )

    train_ds = (
        tf.data.Dataset.from_tensor_slices((x_train, y_train))
        .shuffle(len(x_train), seed=0)
        .batch(64)
        .prefetch(tf.data.AUTOTUNE)
    )
    test_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(256)
    print(train_ds.element_spec)
    print("batches per epoch:", int(train_ds.cardinality()))
    """),
    md("""
    Each element is a pair of tensors; the first dimension of a batch is
    `None` in the spec because the last batch is smaller (1,347 images make 21
    batches of 64 and one of 3).
    """),
    code("""
    x_batch, y_batch = next(iter(train_ds))
    print(x_batch.shape, x_batch.dtype, y_batch.shape, y_batch.dtype)
    """),
    md("""
    ## A model with its own `train_step`

    `train_step(data)` receives one element of the dataset and returns the
    metrics to show. This one does what Keras' own step does, spelled out:
    the forward pass and the loss under a `GradientTape`, the gradient with
    respect to the trainable variables, the optimizer update, then the
    metrics.

    - `self.compute_loss` applies the loss given to `compile` (plus any
      losses the layers added).
    - `self.metrics` holds a `loss` tracker and `compile_metrics`, the
      container for the metrics given to `compile`; the names of the values
      it returns (`accuracy` here) are the ones `fit` shows.
    """),
    code("""
    class DigitsModel(tf.keras.Model):
        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                logits = self(x, training=True)
                loss = self.compute_loss(y=y, y_pred=logits)
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply(grads, self.trainable_variables)
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, logits)
            return {m.name: m.result() for m in self.metrics}
    """),
    md("""
    The model is built the functional way, from an `Input` and a chain of
    layers, and then handed to the subclass: `DigitsModel(inputs, outputs)`.
    After the convolution comes a `BatchNormalization` layer: it rescales each
    of the 16 channels to zero mean and unit variance over the batch, then
    applies a learned scale `gamma` and shift `beta`. It also keeps a
    *moving* mean and variance of what it has seen, for inference (below).
    `momentum=0.9` makes those averages settle within a few dozen steps
    (the default, 0.99, needs hundreds).
    """),
    code("""
    tf.keras.utils.set_random_seed(0)

    inputs = tf.keras.Input(shape=(8, 8, 1))
    h = tf.keras.layers.Conv2D(16, 3, name="conv")(inputs)
    h = tf.keras.layers.BatchNormalization(momentum=0.9, name="bn")(h)
    h = tf.keras.layers.Activation("relu", name="relu")(h)
    h = tf.keras.layers.Flatten(name="flatten")(h)
    outputs = tf.keras.layers.Dense(10, name="logits")(h)
    model = DigitsModel(inputs, outputs)

    model.compile(
        optimizer=tf.keras.optimizers.Adam(learning_rate=0.01),
        loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    print("metrics:", [m.name for m in model.metrics])
    print("trainable:", [w.path for w in model.trainable_weights])
    print("non-trainable:", [w.path for w in model.non_trainable_weights])
    """),
    md("""
    The moving mean and variance are weights of the layer, but not trainable
    ones: no gradient updates them. In training mode the layer assigns new
    values to them, and the tape does not record an assignment.

    ## One step, under the tape

    The body of `train_step`'s tape on one batch. The graph shows the batch
    statistics feeding the normalization, and the six trainable weights as
    the sources.
    """),
    code("""
    %%tape --target loss --sources model.trainable_weights
    logits = model(x_batch, training=True)
    loss = model.compute_loss(y=y_batch, y_pred=logits)
    """),
    code("""
    for weight, grad in zip(model.trainable_weights, grads):
        print(f"{weight.path:14} gradient {tuple(grad.shape)}")
    print(f"size of the conv/bias gradient: {float(tf.norm(grads[1])):.0e}")
    """),
    md("""
    The convolution's bias gets next to no gradient (rounding noise): the
    normalization subtracts each channel's batch mean, so adding a constant
    to a channel before it changes nothing after it. That is why a
    convolution or dense layer followed by `BatchNormalization` is usually
    written with `use_bias=False`; `beta` plays the bias's part.
    """),
    md("""
    ## `fit` runs our step

    `fit` takes the dataset as it is (the batches come from the pipeline,
    already shuffled: `shuffle=False` says so, or Keras warns that it cannot
    shuffle a dataset), calls `train_step` on each batch, and after each epoch evaluates on the
    validation data. The history keeps every value our step returned, and
    the validation values under `val_`.
    """),
    code("""
    history = model.fit(
        train_ds,
        epochs=5,
        validation_data=test_ds,
        shuffle=False,  # train_ds shuffles itself: fit cannot reorder a dataset
        verbose=2,
    )
    print(sorted(history.history))
    """),
    code("""
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3))
    epochs = np.arange(1, 6)
    ax1.plot(epochs, history.history["loss"], "o-", label="training")
    ax1.plot(epochs, history.history["val_loss"], "o-", label="validation")
    ax1.set_title("loss")
    ax2.plot(epochs, history.history["accuracy"], "o-", label="training")
    ax2.plot(epochs, history.history["val_accuracy"], "o-", label="validation")
    ax2.set_title("accuracy")
    for ax in (ax1, ax2):
        ax.set_xlabel("epoch")
        ax.legend()
    plt.show()
    """),
    md("""
    `evaluate` runs the test step (Keras' own, since we did not override
    `test_step`) over the dataset and returns the loss followed by the
    compiled metrics.
    """),
    code("""
    loss, accuracy = model.evaluate(test_ds, verbose=0)
    print(f"Held-out accuracy: {accuracy:.2f}")
    """),
    md("""
    ## Training mode and inference mode

    `fit` calls the model with `training=True`, so `BatchNormalization`
    normalizes with the statistics of each batch, and moves its averages
    towards them. Called with `training=False` (as `evaluate` and `predict`
    do), it uses the moving averages instead: a prediction for one image no
    longer depends on which other images share its batch. So the same batch
    gives different logits in the two modes.
    """),
    code("""
    bn = model.get_layer("bn")
    print("moving mean of the first 4 channels:", np.round(bn.moving_mean.numpy()[:4], 2))

    train_logits = model(x_batch, training=True)
    infer_logits = model(x_batch, training=False)
    print("modes differ:", bool(tf.reduce_max(tf.abs(train_logits - infer_logits)) > 0))
    """),
    md("""
    ## The trained layers as a feature extractor

    In a functional model every layer keeps its symbolic `output`. A new
    `Model` from the same input to an inner layer's output reuses the trained
    layers (no copy) and returns what that layer computes: here the 16
    feature maps after the ReLU, 6×6 each.
    """),
    code("""
    extractor = tf.keras.Model(model.input, model.get_layer("relu").output)
    features = extractor(x_test[:1])
    print(features.shape)

    fig, axes = plt.subplots(2, 9, figsize=(10, 2.4))
    axes[0, 0].imshow(x_test[0, :, :, 0], cmap="gray_r")
    axes[0, 0].set_title(f"digit {y_test[0]}")
    for i, ax in enumerate(axes.flat[1:17]):
        ax.imshow(features[0, :, :, i], cmap="viridis")
    for ax in axes.flat:
        ax.axis("off")
    plt.show()
    """),
    md("""
    ## Summary

    - `fit` accepts a `tf.data.Dataset` and takes its batches as they come.
    - Overriding `train_step` changes what `fit` does per batch; the loop,
      validation and history stay Keras'. `self.compute_loss` and
      `self.metrics` connect the step to what `compile` was given.
    - `BatchNormalization` normalizes with batch statistics in training and
      moving averages in inference; the averages are non-trainable weights,
      updated by assignment, never by a gradient.
    - `keras.Model(model.input, layer.output)` turns a trained functional
      model into a feature extractor.
    """),
]

NOTEBOOKS = {
    "01-gradient-tape-basics": BASICS,
    "02-persistent-jacobians": JACOBIANS,
    "03-higher-order": HIGHER,
    "04-training-step": TRAINING,
    "05-why-is-my-gradient-none": NONE_BUGS,
    "06-gradient-ascent": ASCENT,
    "07-keras-fit-customized": FIT,
}


def build(name: str) -> nbformat.NotebookNode:
    """The notebook ``name`` as it is stored: no outputs, stable cell ids."""
    nb = nbformat.v4.new_notebook()
    nb.metadata = {
        "kernelspec": {
            "display_name": "Python 3 (ipykernel)",
            "language": "python",
            "name": "python3",
        },
        "language_info": {"name": "python"},
    }
    number = name.split("-")[0]
    cells = []
    for i, template in enumerate(NOTEBOOKS[name]):
        cell = copy.deepcopy(template)
        cell["id"] = f"nb{number}-{i:02d}"
        cells.append(cell)
    nb.cells = cells
    nbformat.validate(nb)
    return nb


def _tape_options() -> argparse.ArgumentParser:
    """The ``%%tape`` options that change what the cell computes."""
    parser = argparse.ArgumentParser(prog="%%tape", add_help=False)
    parser.add_argument("--persistent", action="store_true")
    parser.add_argument(
        "--no-watch-accessed", dest="watch_accessed", action="store_false"
    )
    parser.add_argument("--watch")
    parser.add_argument("--name", default="tape")
    parser.add_argument("--target")
    parser.add_argument("--sources")
    parser.add_argument("--out", default="grads")
    parser.add_argument("--unconnected", default="none")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--show")
    return parser


def tape_cell_as_tensorflow(source: str) -> str:
    """A ``%%tape`` cell as the plain TensorFlow it stands for.

    Example:
        >>> print(tape_cell_as_tensorflow("%%tape --target y --sources x,b\\ny = x * b"))
        with tf.GradientTape() as tape:
            y = x * b
        grads = tape.gradient(y, [x, b])
    """
    header, _, body = source.partition("\n")
    options = _tape_options().parse_args(shlex.split(header)[1:])
    arguments = []
    if options.persistent:
        arguments.append("persistent=True")
    if not options.watch_accessed:
        arguments.append("watch_accessed_variables=False")
    lines = [f"with tf.GradientTape({', '.join(arguments)}) as {options.name}:"]
    if options.watch:
        lines.append(f"    {options.name}.watch([{options.watch}])")
    lines.append(textwrap.indent(body, "    "))
    if options.target is not None:
        sources = options.sources
        if "," in sources and not sources.startswith(("[", "(", "{")):
            sources = "[" + ", ".join(name.strip() for name in sources.split(",")) + "]"
        zero = ", unconnected_gradients=tf.UnconnectedGradients.ZERO"
        extra = zero if options.unconnected == "zero" else ""
        lines.append(
            f"{options.out} = {options.name}.gradient({options.target}, {sources}{extra})"
        )
    return "\n".join(lines)


def as_tensorflow(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The notebook for real TensorFlow: ``import tensorflow as tf``, no magic."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        source = cell.source.replace(SETUP, "import tensorflow as tf")
        if source.startswith("%%tape"):
            source = tape_cell_as_tensorflow(source)
        cell.source = source
    return nb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write the course notebooks.")
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if a stored notebook differs"
    )
    parser.add_argument(
        "--tensorflow",
        metavar="DIR",
        type=Path,
        help="write the notebooks for real TensorFlow (no %%%%tape) into DIR instead",
    )
    args = parser.parse_args(argv)
    if args.tensorflow is not None:
        args.tensorflow.mkdir(parents=True, exist_ok=True)
        for name in NOTEBOOKS:
            nbformat.write(
                as_tensorflow(build(name)), args.tensorflow / f"{name}.ipynb"
            )
        return 0
    stale = []
    for name in NOTEBOOKS:
        path = HERE / f"{name}.ipynb"
        text = nbformat.writes(build(name)) + "\n"
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(path.name)
        else:
            path.write_text(text)
    if stale:
        print("stale notebooks (run notebooks/build.py):", ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
