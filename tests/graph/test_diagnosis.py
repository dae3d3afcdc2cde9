"""The diagnosis: why a gradient is None, where, and the fix.

Every cause is checked on a buggy cell run through the real ``%%tape`` magic in an
IPython shell (cause code, cell line, fix), and on the corrected cell (no finding,
and the gradient a hand computation gives). Hand-made graph models pin the
reasoning that needs no engine.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from dataclasses import dataclass, field

import numpy as np
import pytest
from IPython.lib.pretty import pretty

import tapemagic
import tapemagic.graph
import tapemagic.tf as tf
from tapemagic.engine import GradientTape, hooks
from tapemagic.engine.recorder import explain_listener
from tapemagic.graph.diagnosis import diagnose
from tapemagic.graph.findings import CAUSES, Finding, Findings
from tapemagic.graph.from_tape import assert_no_none_gradients, graph_from_tape
from tapemagic.graph.model import (
    Assign,
    Cell,
    Escape,
    GradientRequest,
    GradientResult,
    Graph,
    OpNode,
    Read,
    TapeInfo,
    Value,
)

from .cells import X_COLUMN_SUMS, check_sentences, explain, run, run_all
from .test_diagnosis_situations import ZEROS

# -- one case per cause: the buggy cell, and the cell that fixes it ----------------


@dataclass
class Case:
    """A buggy cell (after setup cells), what the diagnosis must say, the fix.

    ``fixed`` are the corrected cells; ``expected`` maps the name bound to the
    gradient (``grads`` unless said) to its hand-computed value.
    """

    cause: str
    source: str
    line: int | None
    fix_phrase: str
    buggy: list[str]
    fixed: list[str]
    expected: dict = field(default_factory=dict)
    call: str = "tape.explain()"
    message_phrase: str = ""
    severity: str = "error"


CASES = {
    "not_watched": Case(
        "not_watched", "c", 3, "tape.watch(c)",
        ["%%tape --target loss --sources c\nc = tf.constant(2.0)\nloss = c * c"],
        ["%%tape --target loss --sources c\nc = tf.constant(2.0)\ntape.watch(c)\n"
         "loss = c * c"],
        {"grads": 4.0},
        message_phrase="c is a constant and was never watched",
    ),
    "not_watched_outside": Case(
        "not_watched", "c", 2, "tape.watch(c)",
        ["c = tf.constant(3.0)",
         "%%tape --target loss --sources c\nloss = c * 2.0"],
        ["c = tf.constant(3.0)",
         "%%tape --target loss --sources c\ntape.watch(c)\nloss = c * 2.0"],
        {"grads": 2.0},
        message_phrase="c is a plain tensor (not a tf.Variable)",
    ),
    "not_watched_late": Case(
        "not_watched", "c", 3, "before the line that uses it",
        ["%%tape --target loss --sources c\nc = tf.constant(2.0)\n"
         "loss = c * 3.0\ntape.watch(c)"],
        ["%%tape --target loss --sources c\nc = tf.constant(2.0)\n"
         "tape.watch(c)\nloss = c * 3.0"],
        {"grads": 3.0},
        message_phrase="before tape.watch(c) at line 4",
    ),
    "not_trainable": Case(
        "not_trainable", "k", 2, "trainable=True",
        ["k = tf.Variable(2.0, trainable=False)",
         "%%tape --target loss --sources k\nloss = k * k"],
        ["k = tf.Variable(2.0, trainable=False)",
         "%%tape --target loss --sources k\ntape.watch(k)\nloss = k * k"],
        {"grads": 4.0},
    ),
    "watch_accessed_off": Case(
        "watch_accessed_off", "w", 2, "tape.watch(w)",
        ["%%tape --no-watch-accessed --target loss --sources w\n"
         "loss = tf.reduce_sum(tf.matmul(x, w))"],
        ["%%tape --no-watch-accessed --target loss --sources w\ntape.watch(w)\n"
         "loss = tf.reduce_sum(tf.matmul(x, w))"],
        {"grads": X_COLUMN_SUMS},
        message_phrase="--no-watch-accessed",
    ),
    "watch_accessed_off_keras": Case(
        # tape.watch refuses a Keras weight itself, as TensorFlow's does
        "watch_accessed_off", "layer.kernel", 2, "tape.watch(layer.kernel.value)",
        ["layer = tf.keras.layers.Dense(1, kernel_initializer='ones')\n"
         "X = tf.constant([[1.0, 2.0]])\nlayer(X)",
         "%%tape --no-watch-accessed --target loss --sources layer.kernel\n"
         "y = layer(X)\nloss = tf.reduce_sum(y ** 2)"],
        ["layer = tf.keras.layers.Dense(1, kernel_initializer='ones')\n"
         "X = tf.constant([[1.0, 2.0]])\nlayer(X)",
         "%%tape --no-watch-accessed --target loss --sources layer.kernel\n"
         "tape.watch(layer.kernel.value)\ny = layer(X)\n"
         "loss = tf.reduce_sum(y ** 2)"],
        {"grads": [[6.0], [12.0]]},  # 2 X.T (X k): X k = 3
        message_phrase="--no-watch-accessed",
    ),
    "outside_tape_before": Case(
        "outside_tape", "w", 2, "compute it inside the tape",
        ["h = tf.matmul(x, w)",
         "%%tape --target loss --sources w\nloss = tf.reduce_sum(h)"],
        ["%%tape --target loss --sources w\nh = tf.matmul(x, w)\n"
         "loss = tf.reduce_sum(h)"],
        {"grads": X_COLUMN_SUMS},
        message_phrase="from h, which was made before the tape started",
    ),
    "outside_tape_after": Case(
        "outside_tape", "w", None, "Compute loss2 inside the tape",
        ["%%tape --persistent\nloss = tf.reduce_sum(tf.matmul(x, w))",
         "loss2 = loss * 2.0\ngrads = tape.gradient(loss2, w)"],
        ["%%tape --persistent\nloss = tf.reduce_sum(tf.matmul(x, w))\n"
         "loss2 = loss * 2.0",
         "grads = tape.gradient(loss2, w)"],
        {"grads": 2.0 * X_COLUMN_SUMS},
        message_phrase="loss2 was computed after the tape stopped recording",
    ),
    "outside_tape_stopped": Case(
        "outside_tape", "w", 4, "persistent",
        ["%%tape\nloss = tf.reduce_sum(w)\nfirst = tape.gradient(loss, w)\n"
         "later = tf.reduce_sum(w * 3.0)"],
        ["%%tape --persistent\nloss = tf.reduce_sum(w)\n"
         "first = tape.gradient(loss, w)\nlater = tf.reduce_sum(w * 3.0)",
         "grads = tape.gradient(later, w)"],
        {"grads": [[3.0], [3.0]]},
        call="tape.explain(later, w)",
        message_phrase="ran after the tape stopped recording",
    ),
    "numpy_copy": Case(
        "numpy_copy", "b", 2, "Keep b a tensor: b_np = b",
        ["%%tape --target loss --sources b\nb_np = b.numpy()\n"
         "loss = tf.reduce_sum(tf.matmul(x, w) + b_np)"],
        ["%%tape --target loss --sources b\n"
         "loss = tf.reduce_sum(tf.matmul(x, w) + b)"],
        {"grads": [3.0]},
        message_phrase="b was converted to a NumPy array by .numpy() at line 2 "
        "(b_np = b.numpy()); the path to loss continues from a constant made of "
        "its values",
    ),
    "numpy_function": Case(
        "numpy_copy", "w", 2,
        "Use TensorFlow's functions (tf.exp for np.exp): "
        "loss = tf.reduce_sum(tf.exp(w))",
        ["%%tape --target loss --sources w\nloss = tf.reduce_sum(np.exp(w))"],
        ["%%tape --target loss --sources w\nloss = tf.reduce_sum(tf.exp(w))"],
        {"grads": np.exp([[0.5], [-1.0]])},
        message_phrase="converted to a NumPy array by np.exp",
    ),
    "python_float": Case(
        "numpy_copy", "w", 2,
        "Keep it a tensor: loss = tf.reduce_sum(w[0, 0] * x)",
        ["%%tape --target loss --sources w\n"
         "loss = tf.reduce_sum(float(w[0, 0]) * x)"],
        ["%%tape --target loss --sources w\nloss = tf.reduce_sum(w[0, 0] * x)"],
        {"grads": [[21.0], [0.0]]},
        message_phrase="turned into a Python float by float()",
    ),
    "constant_copy": Case(
        "numpy_copy", "w", 2, "Use w itself instead of a copy: w0 = w",
        ["%%tape --target loss --sources w\nw0 = tf.constant(w)\n"
         "loss = tf.reduce_sum(w0 * 2.0)"],
        ["%%tape --target loss --sources w\nw0 = tf.identity(w)\n"
         "loss = tf.reduce_sum(w0 * 2.0)"],
        {"grads": [[2.0], [2.0]]},
        message_phrase="copied into a new tensor by tf.constant()",
    ),
    "integer_cast": Case(
        "integer_cast", "w", 2, "float dtype",
        ["%%tape --target loss --sources w\nwi = tf.cast(w, tf.int32)\n"
         "loss = tf.reduce_sum(tf.cast(wi, tf.float32))"],
        ["%%tape --target loss --sources w\nwf = tf.cast(w, tf.float64)\n"
         "loss = tf.reduce_sum(tf.cast(wf, tf.float32))"],
        {"grads": [[1.0], [1.0]]},
        message_phrase="cast(float32 -> int32) at line 2",
    ),
    "bool_cast": Case(
        "integer_cast", "w", 2, "float dtype",
        ["%%tape --target loss --sources w\n"
         "loss = tf.reduce_sum(tf.cast(tf.cast(w, tf.bool), tf.float32))"],
        ["%%tape --target loss --sources w\nloss = tf.reduce_sum(w * w)"],
        {"grads": [[1.0], [-2.0]]},
        message_phrase="cast(float32 -> bool)",
    ),
    "argmax": Case(
        "non_differentiable", "w", 2, "tf.nn.softmax",
        ["%%tape --target loss --sources w\nk = tf.argmax(w)\n"
         "loss = tf.cast(k, tf.float32) * 2.0"],
        ["%%tape --target loss --sources w\n"
         "loss = tf.reduce_sum(tf.nn.softmax(w, axis=0) * [[0.0], [2.0]])"],
        {"grads": None},  # checked against a NumPy softmax in the test
        message_phrase="argmax at line 2",
    ),
    "round": Case(
        "non_differentiable", "w", 2, "tf.stop_gradient(tf.round(x) - x)",
        ["%%tape --target loss --sources w\n"
         "loss = tf.reduce_sum(tf.round(w) * 3.0)"],
        ["%%tape --target loss --sources w\n"
         "r = w + tf.stop_gradient(tf.round(w) - w)\n"
         "loss = tf.reduce_sum(r * 3.0)"],
        {"grads": [[3.0], [3.0]]},
    ),
    "floor": Case(
        "non_differentiable", "w", 2, "smooth stand-in for floor",
        ["%%tape --target loss --sources w\nloss = tf.reduce_sum(tf.floor(w))"],
        ["%%tape --target loss --sources w\nloss = tf.reduce_sum(w)"],
        {"grads": [[1.0], [1.0]]},
    ),
    "where_condition": Case(
        "non_differentiable", "w", 2, "branches of tf.where",
        ["%%tape --target loss --sources w\n"
         "loss = tf.reduce_sum(tf.where(w > 0, 1.0, 0.0))"],
        ["%%tape --target loss --sources w\n"
         "loss = tf.reduce_sum(tf.where(w > 0, w, 0.0))"],
        {"grads": [[1.0], [0.0]]},
        message_phrase="only as the condition of tf.where at line 2 (loss = "
        "tf.reduce_sum(tf.where(w > 0, 1.0, 0.0))), made by the comparison > on "
        "that line",
    ),
    "boolean_mask_mask": Case(
        "non_differentiable", "scores", 2, "tf.boolean_mask keeps",
        ["scores = tf.Variable([0.3, -1.2, 2.0])\n"
         "prices = tf.constant([10.0, 20.0, 30.0])",
         "%%tape --target total --sources scores\nkeep = scores > 0.5\n"
         "total = tf.reduce_sum(tf.boolean_mask(prices, keep))"],
        ["scores = tf.Variable([0.3, -1.2, 2.0])\n"
         "prices = tf.constant([10.0, 20.0, 30.0])",
         "%%tape --target total --sources scores\nkeep = scores > 0.5\n"
         "total = tf.reduce_sum(tf.boolean_mask(prices * scores, keep))"],
        {"grads": [0.0, 0.0, 30.0]},
        message_phrase="reaches total only as the mask of tf.boolean_mask at line 3",
    ),
    "gather_indices": Case(
        "non_differentiable", "w", 2, "in the values tf.gather takes from",
        ["%%tape --target loss --sources w\n"
         "best = tf.argmax(w[:, 0])\n"
         "loss = tf.reduce_sum(tf.gather(x, best))"],
        ["%%tape --target loss --sources w\n"
         "weights = tf.nn.softmax(w[:, 0])\n"
         "loss = tf.reduce_sum(tf.gather(x, 1) * weights)"],
        {"grads": None},  # checked against a NumPy softmax in the test
        message_phrase="only as the indices of tf.gather at line 3",
    ),
    "shape_only": Case(
        "non_differentiable", "w", 2, "from the values of w",
        ["%%tape --target loss --sources w\n"
         "half = tf.fill(tf.shape(w), 0.5)\nloss = tf.reduce_sum(half * 2.0)"],
        ["%%tape --target loss --sources w\n"
         "half = w * 0.5\nloss = tf.reduce_sum(half * 2.0)"],
        {"grads": [[1.0], [1.0]]},
        message_phrase="only the shape of w is used, through tf.shape at line 2",
    ),
    "model_predict": Case(
        # tensorflow-cpu 2.21.0 gives [None, None] for this cell too.
        "numpy_result", "kernel", 3, "Keep y_pred a tensor: y_pred = scorer(x)",
        ["scorer = tf.keras.Sequential("
         "[tf.keras.layers.Dense(1, kernel_initializer='ones')])\nscorer(x)",
         "%%tape --target loss --sources kernel\n"
         "kernel = scorer.trainable_variables[0]\n"
         "y_pred = scorer.predict(x, verbose=0)\n"
         "loss = tf.reduce_mean((y_pred - y) ** 2)"],
        ["scorer = tf.keras.Sequential("
         "[tf.keras.layers.Dense(1, kernel_initializer='ones')])\nscorer(x)",
         "%%tape --target loss --sources kernel\n"
         "kernel = scorer.trainable_variables[0]\n"
         "y_pred = scorer(x)\nloss = tf.reduce_mean((y_pred - y) ** 2)"],
        {"grads": [[136.0 / 3.0], [172.0 / 3.0]]},  # 2/3 x.T (x [1, 1] - y)
        message_phrase="y_pred, made at line 3 (y_pred = scorer.predict(x, "
        "verbose=0)) from kernel, holds NumPy values, not a tensor "
        "(model.predict returns NumPy arrays)",
    ),
    "variable_copy": Case(
        "variable_copy", "w", 2, "h = tf.matmul(x, w)",
        ["%%tape --target loss --sources w\n"
         "h = tf.Variable(tf.matmul(x, w))\nloss = tf.reduce_sum(h ** 2)"],
        ["%%tape --target loss --sources w\n"
         "h = tf.matmul(x, w)\nloss = tf.reduce_sum(h ** 2)"],
        {"grads": [[-53.0], [-68.0]]},  # x.T @ (2 x @ w)
        message_phrase="h is a new tf.Variable made at line 2",
    ),
    "swapped_arguments": Case(
        "swapped_arguments", "loss", 3, "Swap them: grads = tape.gradient(loss, w)",
        ["%%tape\nloss = tf.reduce_sum(tf.matmul(x, w))\n"
         "grads = tape.gradient(w, loss)"],
        ["%%tape\nloss = tf.reduce_sum(tf.matmul(x, w))\n"
         "grads = tape.gradient(loss, w)"],
        {"grads": X_COLUMN_SUMS},
        message_phrase="the arguments of tape.gradient at line 3 (grads = "
        "tape.gradient(w, loss)) are swapped: loss was computed from w",
    ),
    "source_is_target": Case(
        "source_is_target", "loss", 3, "tape.gradient(loss, w)",
        ["%%tape\nloss = tf.reduce_sum(tf.matmul(x, w))\n"
         "grads = tape.gradient(loss, loss)"],
        ["%%tape\nloss = tf.reduce_sum(tf.matmul(x, w))\n"
         "grads = tape.gradient(loss, w)"],
        {"grads": X_COLUMN_SUMS},
        message_phrase="loss: the gradient of loss with respect to itself is all "
        "ones, because loss is both the target and a source",
        severity="note",
    ),
    "target_not_tensor": Case(
        "target_not_tensor", "w", 3,
        "Compute it with TensorFlow's functions: "
        "loss = tf.reduce_mean((pred - y) ** 2)",
        ["%%tape\npred = tf.matmul(x, w) + b\nloss = np.mean((pred - y) ** 2)\n"
         "grads = tape.gradient(loss, w)"],
        ["%%tape\npred = tf.matmul(x, w) + b\n"
         "loss = tf.reduce_mean((pred - y) ** 2)\ngrads = tape.gradient(loss, w)"],
        {"grads": [[-23.5], [-30.0]]},  # 2/3 x.T (x w + b - y)
        message_phrase="loss: tape.gradient at line 4 (grads = tape.gradient(loss, "
        "w)) failed because loss is a NumPy float32, not a tensor",
    ),
    "stop_gradient": Case(
        "stop_gradient", "w", 2, "Remove tf.stop_gradient",
        ["%%tape --target loss --sources w\n"
         "loss = tf.reduce_sum(tf.stop_gradient(w) * 2.0)"],
        ["%%tape --target loss --sources w\nloss = tf.reduce_sum(w * 2.0)"],
        {"grads": [[2.0], [2.0]]},
    ),
    "stop_recording": Case(
        "stop_recording", "w", 3, "out of the stop_recording() block",
        ["%%tape --target loss --sources w\nwith tape.stop_recording():\n"
         "    h = w * 2.0\nloss = tf.reduce_sum(h)"],
        ["%%tape --target loss --sources w\nh = w * 2.0\n"
         "with tape.stop_recording():\n    shown = float(tf.reduce_sum(h))\n"
         "loss = tf.reduce_sum(h)"],
        {"grads": [[2.0], [2.0]]},
    ),
    "python_number": Case(
        "python_number", "pt", 4, "Use the tensor pt instead: loss = tf.square(pt)",
        ["p = 2.0",
         "%%tape --target loss --sources pt\npt = tf.constant(p)\ntape.watch(pt)\n"
         "loss = tf.square(p)"],
        ["p = 2.0",
         "%%tape --target loss --sources pt\npt = tf.constant(p)\ntape.watch(pt)\n"
         "loss = tf.square(pt)"],
        {"grads": 4.0},
        message_phrase="from the Python float that pt was made from",
    ),
    "python_number_variable": Case(
        "python_number", "rate", 3,
        "Use the tensor rate instead: loss = rate * tf.reduce_sum(tf.matmul(x, w))",
        ["lr0 = 0.5",
         "%%tape --target loss --sources rate\nrate = tf.Variable(lr0)\n"
         "loss = lr0 * tf.reduce_sum(tf.matmul(x, w))"],
        ["lr0 = 0.5",
         "%%tape --target loss --sources rate\nrate = tf.Variable(lr0)\n"
         "loss = rate * tf.reduce_sum(tf.matmul(x, w))"],
        {"grads": -7.5},  # sum(x @ w) = -1.5 - 2.5 - 3.5
        message_phrase="from the Python float that rate was made from",
    ),
    "rebound_in_cell": Case(
        "rebound_variable", "w", 6, "w.assign_sub(0.5 * g)",
        ["%%tape --persistent\nfor step in range(2):\n"
         "    with tf.GradientTape() as inner:\n"
         "        loss = tf.reduce_sum(tf.matmul(x, w))\n"
         "    g = inner.gradient(loss, w)\n"
         "    w = w - 0.5 * g"],
        ["%%tape --persistent\nfor step in range(2):\n"
         "    with tf.GradientTape() as inner:\n"
         "        loss = tf.reduce_sum(tf.matmul(x, w))\n"
         "    grads = inner.gradient(loss, w)\n"
         "    w.assign_sub(0.5 * grads)"],
        {"grads": X_COLUMN_SUMS},
        message_phrase="the name w held a tf.Variable, but the assignment at "
        "line 6 (w = w - 0.5 * g) rebound it to a plain tensor",
    ),
    "rebound_across_cells": Case(
        "rebound_variable", "w", None, "(w.assign_sub(0.1 * grads))",
        ["%%tape --target loss --sources w\nloss = tf.reduce_sum(tf.matmul(x, w))",
         "w = w - 0.1 * grads",
         "%%tape --target loss --sources w\nloss = tf.reduce_sum(tf.matmul(x, w))"],
        ["%%tape --target loss --sources w\nloss = tf.reduce_sum(tf.matmul(x, w))",
         "w.assign_sub(0.1 * grads)",
         "%%tape --target loss --sources w\nloss = tf.reduce_sum(tf.matmul(x, w))"],
        {"grads": X_COLUMN_SUMS},
        message_phrase="at line 1 (w = w - 0.1 * grads) rebound it to a plain tensor",
    ),
    "remade_variable": Case(
        "remade_variable", "w", None, "Run the %%tape cell again",
        ["%%tape --persistent\nloss = tf.reduce_sum(tf.matmul(x, w))",
         'w = tf.Variable([[0.5], [-1.0]], name="w")  # its cell run again',
         "grads = tape.gradient(loss, w)"],
        ['w = tf.Variable([[0.5], [-1.0]], name="w")',
         "%%tape --persistent\nloss = tf.reduce_sum(tf.matmul(x, w))",
         "grads = tape.gradient(loss, w)"],
        {"grads": X_COLUMN_SUMS},
        message_phrase="w is a new tf.Variable, made after the tape ran",
    ),
    "non_trainable_weight": Case(
        "non_trainable_weight", "bn/moving_mean", None, "model.trainable_weights",
        ["bn = tf.keras.Sequential("
         "[tf.keras.Input((2,)), tf.keras.layers.BatchNormalization(name='bn')])",
         "%%tape --target loss --sources bn.weights\n"
         "loss = tf.reduce_sum(bn(x, training=True) * y)"],
        ["bn = tf.keras.Sequential("
         "[tf.keras.Input((2,)), tf.keras.layers.BatchNormalization(name='bn')])",
         "%%tape --target loss --sources bn.trainable_weights\n"
         "loss = tf.reduce_sum(bn(x, training=True) * y)"],
        # d/dgamma: sum over the batch of x-hat * y, x-hat = (x - 3 or 4) / s with
        # s = sqrt(8/3 + 0.001); d/dbeta: the sum of y.
        {"grads": [np.full(2, 2.0 / np.sqrt(8.0 / 3.0 + 0.001)), np.full(2, 3.0)]},
        message_phrase="BatchNormalization assigns its moving statistics",
    ),
    "rebound_name": Case(
        "rebound_name", "params[0]", 2,
        "Update the old w in place instead of rebinding the name: "
        "w.assign([[1.0], [1.0]])",
        ["params = [w, b]",
         "%%tape --target loss --sources params\nw = tf.Variable([[1.0], [1.0]])\n"
         "loss = tf.reduce_sum(tf.matmul(x, w) + b)"],
        ["params = [w, b]",
         "%%tape --target loss --sources params\nw.assign([[1.0], [1.0]])\n"
         "loss = tf.reduce_sum(tf.matmul(x, w) + b)"],
        {"grads": [X_COLUMN_SUMS, [3.0]]},
        message_phrase="params[0] still holds the old w: the assignment at line 2 "
        "(w = tf.Variable([[1.0], [1.0]])) rebound the name w to a new tf.Variable",
    ),
    "integer_source": Case(
        "integer_source", "n", 2, "Create n with a float value: n = tf.constant(3.0)",
        ["n = tf.constant(3)",
         "%%tape --target loss --sources n\ntape.watch(n)\n"
         "loss = tf.cast(n, tf.float32) * 2.0"],
        ["n = tf.constant(3.0)",
         "%%tape --target loss --sources n\ntape.watch(n)\nloss = n * 2.0"],
        {"grads": 2.0},
        message_phrase="n has dtype int32",
    ),
    "int_variable": Case(
        "integer_source", "k", 2, "Create k with a float value: k = tf.Variable(5.0)",
        ["k = tf.Variable(5)",
         "%%tape --target loss --sources k\nloss = tf.cast(k, tf.float32) ** 2"],
        ["k = tf.Variable(5.0)",
         "%%tape --target loss --sources k\nloss = k ** 2"],
        {"grads": 10.0},
        message_phrase="k has dtype int32",
    ),
    "int_variable_in_cell": Case(
        "integer_source", "steps", 2,
        "Create steps with a float value: steps = tf.Variable([1.0, 2.0, 3.0])",
        ["%%tape --target loss --sources steps\nsteps = tf.Variable([1, 2, 3])\n"
         "loss = tf.reduce_sum(tf.cast(steps, tf.float32) * 2.0)"],
        ["%%tape --target loss --sources steps\n"
         "steps = tf.Variable([1.0, 2.0, 3.0])\nloss = tf.reduce_sum(steps * 2.0)"],
        {"grads": [2.0, 2.0, 2.0]},
        message_phrase="steps was made from integers at line 2",
    ),
    "numpy_clip": Case(
        "numpy_copy", "w", 2,
        "Use TensorFlow's functions (tf.clip_by_value for np.clip): "
        "loss = tf.reduce_sum(tf.clip_by_value(w, 0.0, 1.0) * 4.0)",
        ["%%tape --target loss --sources w\n"
         "loss = tf.reduce_sum(np.clip(w, 0.0, 1.0) * 4.0)"],
        ["%%tape --target loss --sources w\n"
         "loss = tf.reduce_sum(tf.clip_by_value(w, 0.0, 1.0) * 4.0)"],
        {"grads": [[4.0], [0.0]]},  # w = [0.5, -1]: the second is clipped
        message_phrase="converted to a NumPy array by np.clip at line 2",
    ),
    "watched_before_made": Case(
        "watched_before_made", "layer.kernel", 2,
        "Build layer before the tape watches its weights: run layer(X) once "
        "before the tape, or layer.build(X.shape); then watch them through their "
        "values: tape.watch([w.value for w in layer.trainable_weights])",
        ["layer = tf.keras.layers.Dense(1, kernel_initializer='ones')\n"
         "X = tf.constant([[1.0, 2.0]])",
         "%%tape --no-watch-accessed --target loss --sources layer.kernel\n"
         "tape.watch(layer.trainable_weights)\ny = layer(X)\n"
         "loss = tf.reduce_sum(y ** 2)"],
        ["layer = tf.keras.layers.Dense(1, kernel_initializer='ones')\n"
         "X = tf.constant([[1.0, 2.0]])\nlayer(X)",
         "%%tape --no-watch-accessed --target loss --sources layer.kernel\n"
         "tape.watch([w.value for w in layer.trainable_weights])\ny = layer(X)\n"
         "loss = tf.reduce_sum(y ** 2)"],
        {"grads": [[6.0], [12.0]]},  # 2 X.T (X k): X k = 3
        message_phrase="layer.kernel did not exist yet when "
        "tape.watch(layer.trainable_weights) ran at line 2: layer made its weights "
        "at line 3 (y = layer(X))",
    ),
    "not_connected": Case(
        "not_connected", "b", 2, "leave b out of the sources",
        ["%%tape --target loss --sources b\nloss = tf.reduce_sum(tf.matmul(x, w))"],
        ["%%tape --target loss --sources b\n"
         "loss = tf.reduce_sum(tf.matmul(x, w) + b)"],
        {"grads": [3.0]},
        message_phrase="does not depend on b: nothing computed from b leads to loss",
    ),
    "wrong_tape": Case(
        "wrong_tape", "w", 5, "tape.gradient(loss, w)",
        ["%%tape --persistent\nloss = tf.reduce_sum(tf.matmul(x, w))\n"
         "with tf.GradientTape() as t2:\n    pass\ngrads = t2.gradient(loss, w)"],
        ["%%tape --persistent\nloss = tf.reduce_sum(tf.matmul(x, w))\n"
         "with tf.GradientTape() as t2:\n    pass\ngrads = tape.gradient(loss, w)"],
        {"grads": X_COLUMN_SUMS},
        message_phrase="asked of another tape at line 5",
    ),
    "watched_by_another_tape": Case(
        "wrong_tape", "c", 4, "on the tape you ask",
        ["%%tape --target loss --sources c\nc = tf.constant(2.0)\n"
         "with tf.GradientTape() as t2:\n    t2.watch(c)\nloss = c * c"],
        ["%%tape --target loss --sources c\nc = tf.constant(2.0)\n"
         "with tf.GradientTape() as t2:\n    tape.watch(c)\nloss = c * c"],
        {"grads": 4.0},
        message_phrase="watched by another tape",
    ),
    "after_reset": Case(
        "wrong_tape", "w", 3, "after tape.reset()",
        ["%%tape --persistent\nloss = tf.reduce_sum(tf.matmul(x, w))\n"
         "tape.reset()\ngrads = tape.gradient(loss, w)"],
        ["%%tape --persistent\ntape.reset()\n"
         "loss = tf.reduce_sum(tf.matmul(x, w))\ngrads = tape.gradient(loss, w)"],
        {"grads": X_COLUMN_SUMS},
        message_phrase="tape.reset() at line 3 erased everything",
    ),
    "assign": Case(
        "assign_cut", "w", 2, "instead of assigning it to v",
        ["v = tf.Variable([[0.0], [0.0]])",
         "%%tape --target loss --sources w\nv.assign(w * 2.0)\n"
         "loss = tf.reduce_sum(v)"],
        ["v = tf.Variable([[0.0], [0.0]])",
         "%%tape --target loss --sources w\nv = w * 2.0\nloss = tf.reduce_sum(v)"],
        {"grads": [[2.0], [2.0]]},
        message_phrase="v.assign(...) at line 2",
    ),
    "assign_add": Case(
        "assign_cut", "w", 2, "instead of assigning it to v",
        ["v = tf.Variable([[0.0], [0.0]])",
         "%%tape --target loss --sources w\nv.assign_add(w * 2.0)\n"
         "loss = tf.reduce_sum(v)"],
        ["v = tf.Variable([[0.0], [0.0]])",
         "%%tape --target loss --sources w\nv2 = v + w * 2.0\n"
         "loss = tf.reduce_sum(v2)"],
        {"grads": [[2.0], [2.0]]},
        message_phrase="v.assign_add(...) at line 2",
    ),
}  # fmt: skip


def test_every_cause_has_a_case():
    # NaN has its own tests, and a gradient of zeros the cells of ZEROS (in
    # test_diagnosis_situations.py).
    covered = {case.cause for case in CASES.values()} | {
        "nan_gradient",
        "zero_gradient",
    }
    assert ZEROS
    assert covered == set(CAUSES)


def findings_for(found: Findings, source: str) -> list[Finding]:
    return [f for f in found if f.source == source]


@pytest.mark.parametrize("name", sorted(CASES))
def test_buggy_cell_is_explained(ip, name):
    case = CASES[name]
    warns = (
        pytest.warns(UserWarning, match="must be floating")
        if case.cause == "integer_source"
        else contextlib.nullcontext()
    )
    with warns:  # TensorFlow warns about watching an integer tensor, and so do we
        for cell in case.buggy:
            run(ip, cell)  # the rebinding loop raises (0.5 * None): still explained
    found = explain(ip, case.call)
    (finding,) = findings_for(found, case.source)
    assert finding.cause == case.cause
    assert finding.line == case.line
    assert case.fix_phrase in finding.fix
    assert case.message_phrase in finding.message
    assert finding.severity == case.severity
    check_sentences(finding, tuple(explain_listener(ip.user_ns["tape"]).lines))
    if case.line is not None:
        text = explain_listener(ip.user_ns["tape"]).lines[case.line - 1].strip()
        assert finding.line_text == text
        assert f"at line {case.line}" in finding.message
    # The gradient the magic or the cell computed is None, as in TensorFlow.
    if case.severity == "error" and "grads" in ip.user_ns:
        grads = ip.user_ns["grads"]
        assert grads is None or (isinstance(grads, list) and None in grads)


@pytest.mark.parametrize("name", sorted(CASES))
def test_corrected_cell_has_no_finding(ip, name):
    case = CASES[name]
    run_all(ip, case.fixed)
    assert list(explain(ip, case.call)) == []
    check_corrected_gradient(name, ip.user_ns["grads"])


def check_corrected_gradient(name: str, grads) -> None:
    """The gradient a corrected cell computed is the case's hand-computed one."""
    case = CASES[name]
    assert grads is not None
    if name == "argmax":
        e = np.exp([0.5, -1.0])
        softmax = e / e.sum()
        # d/dw of 2 * softmax(w)[1]: 2 * s1 * (onehot(1) - s)
        expected = 2.0 * softmax[1] * (np.array([0.0, 1.0]) - softmax)
        np.testing.assert_allclose(grads.numpy().ravel(), expected, rtol=1e-5)
    elif name == "gather_indices":
        e = np.exp([0.5, -1.0])
        s = e / e.sum()
        # d/dw0 of x[1] . s = 3 s0 + 4 s1: the softmax jacobian times [3, 4]
        row = np.array([3.0, 4.0])
        expected = s * (row - row @ s)
        np.testing.assert_allclose(grads.numpy(), [[expected[0]], [expected[1]]],
                                   rtol=1e-5)  # fmt: skip
    elif isinstance(grads, list):
        assert len(grads) == len(case.expected["grads"])
        for g, expected in zip(grads, case.expected["grads"]):
            np.testing.assert_allclose(g.numpy(), expected, rtol=1e-5)
    else:
        np.testing.assert_allclose(
            np.asarray(grads.numpy()), case.expected["grads"], rtol=1e-5
        )


# -- more than one bug, more than one request ------------------------------------------


def test_two_independent_bugs_are_both_reported_against_their_source(ip):
    run(
        ip,
        "%%tape --target loss --sources w,b\n"  # 1
        "b_np = b.numpy()\n"  # 2
        "wi = tf.cast(w, tf.int32)\n"  # 3
        "loss = tf.reduce_sum(tf.cast(wi, tf.float32)) + tf.reduce_sum(b_np)\n",  # 4
    )
    assert ip.user_ns["grads"] == [None, None]
    found = explain(ip)
    assert [(f.source, f.cause, f.line) for f in found] == [
        ("w", "integer_cast", 3),
        ("b", "numpy_copy", 2),
    ]
    by_source = {f.source: f for f in found}
    assert by_source["w"].op_name == "cast" and by_source["b"].op is None
    assert by_source["w"].request == by_source["b"].request == "g1"
    for f in found:
        check_sentences(f)
    # Fixing one leaves the other.
    run(
        ip,
        "%%tape --target loss --sources w,b\n"
        "b_np = b.numpy()\n"
        "loss = tf.reduce_sum(w) + tf.reduce_sum(b_np)\n",
    )
    assert [(f.source, f.cause) for f in explain(ip)] == [("b", "numpy_copy")]


def test_two_breaks_on_one_source_are_both_named(ip):
    run(
        ip,
        "%%tape --target loss --sources w\n"
        "loss = tf.reduce_sum(tf.round(w)) + tf.reduce_sum(tf.stop_gradient(w))\n",
    )
    found = explain(ip)
    assert [(f.cause, f.op_name) for f in found] == [
        ("non_differentiable", "round"),
        ("stop_gradient", "stop_gradient"),
    ]


def test_the_same_none_asked_twice_is_explained_once(ip):
    run(ip, "%%tape --persistent --target loss --sources w\nloss = tf.round(w)")
    run(ip, "again = tape.gradient(loss, w)")
    assert ip.user_ns["again"] is None
    (finding,) = explain(ip)
    assert finding.request == "g1" and finding.cause == "non_differentiable"


def test_a_none_asked_on_every_turn_of_a_loop_is_explained_once(ip):
    run(
        ip,
        "%%tape --persistent\n"
        "nones = 0\n"
        "for step in range(4):\n"
        "    with tf.GradientTape() as inner:\n"
        "        loss = tf.reduce_sum(tf.matmul(x, w))\n"
        "    g = inner.gradient(loss, w)\n"
        "    if g is None:\n"
        "        nones += 1\n"
        "    else:\n"
        "        w = w - 0.5 * g\n",
    )
    assert ip.user_ns["nones"] == 3
    (finding,) = explain(ip)
    assert (finding.source, finding.cause, finding.line) == (
        "w",
        "rebound_variable",
        10,
    )
    assert "w.assign_sub(0.5 * g)" in finding.fix


def test_explaining_never_changes_a_result():
    def gradients(explain: bool) -> list:
        w = tf.Variable([[0.5], [-1.0]])
        b = tf.Variable([0.25])
        c = tf.constant(2.0)
        with GradientTape(explain=explain, persistent=True) as tape:
            loss = tf.reduce_sum(tf.round(w) + b.numpy() + w * c + tf.sqrt(w * w))
        found = tape.explain() if explain else ()
        grads = tape.gradient(loss, [w, b, c])
        return [None if g is None else g.numpy().tolist() for g in grads], found

    plain, _ = gradients(False)
    explained, _ = gradients(True)
    assert plain == explained == [[[3.0], [1.0]], None, None]


def test_explain_filters_by_target_and_sources_and_predicts(ip):
    run(
        ip,
        "%%tape --persistent --target loss --sources w,b\n"
        "loss = tf.reduce_sum(tf.round(w)) + tf.reduce_sum(b)\n"
        "other = tf.reduce_sum(tf.floor(b))\n",
    )
    assert [f.source for f in explain(ip, "tape.explain(loss, [w, b])")] == ["w"]
    assert list(explain(ip, "tape.explain(sources=b)")) == []
    # Not asked yet: predicted, and the gradient agrees.
    (predicted,) = explain(ip, "tape.explain(other, b)")
    assert predicted.request is None and predicted.op_name == "floor"
    assert predicted.message.startswith("b: would be None because")
    run(ip, "late = tape.gradient(other, b)")
    assert ip.user_ns["late"] is None
    # Names work as well as tensors.
    assert [f.source for f in explain(ip, "tape.explain('loss', ['w'])")] == ["w"]
    result, _ = run(ip, "tape.explain('nothing_called_this')")
    assert isinstance(result.error_in_exec, KeyError)
    assert "neither a value id nor a name" in str(result.error_in_exec)


def test_prediction_finds_nothing_for_a_sound_path(ip):
    run(ip, "%%tape --persistent\nloss = tf.reduce_sum(tf.matmul(x, w) + b)")
    assert list(explain(ip, "tape.explain(loss, [w, b])")) == []
    run(ip, "gw, gb = tape.gradient(loss, [w, b])")
    np.testing.assert_allclose(ip.user_ns["gw"].numpy(), X_COLUMN_SUMS)
    np.testing.assert_allclose(ip.user_ns["gb"].numpy(), [3.0])


def test_gradient_of_a_value_by_itself_is_a_note_never_an_error(ip):
    # TensorFlow 2.21: tape.gradient(c, c) is 1.0, even for a constant never
    # watched (tensorflow-cpu 2.21.0 printed tf.Tensor(1.0, shape=(), ...)).
    run(ip, "%%tape\nc = tf.constant(2.0)\ng = tape.gradient(c, c)")
    assert float(ip.user_ns["g"]) == 1.0
    found = explain(ip)
    assert found.errors == () and found.warnings == ()
    (note,) = found.notes
    assert (note.cause, note.line) == ("source_is_target", 3)
    assert note.fix == "Pass the variables c was computed from as the sources."


# -- the API: tape.explain, assert_no_none_gradients, the text view ------------------


def test_assert_no_none_gradients_lists_the_findings(ip):
    run(
        ip,
        "%%tape --persistent --target loss --sources w,b\n"
        "b_np = b.numpy()\n"
        "loss = tf.reduce_sum(tf.matmul(x, w) + b_np)\n",
    )
    tape = ip.user_ns["tape"]
    with pytest.raises(AssertionError) as err:
        tapemagic.assert_no_none_gradients(tape)
    text = str(err.value)
    assert text.startswith("1 gradient is None:\n- b: None because b was converted")
    assert text.endswith("Keep b a tensor: b_np = b. [TM004]")
    tapemagic.assert_no_none_gradients(tape, ip.user_ns["loss"], ip.user_ns["w"])
    graph = graph_from_tape(tape)
    with pytest.raises(AssertionError, match="b: None because"):
        tapemagic.graph.assert_no_none_gradients(graph)
    assert tapemagic.graph.assert_no_none_gradients is assert_no_none_gradients


def test_assert_no_none_gradients_counts_several(ip):
    run(
        ip,
        "%%tape --target loss --sources w,b\n"
        "loss = tf.reduce_sum(tf.round(w)) + tf.reduce_sum(tf.floor(b))\n",
    )
    with pytest.raises(AssertionError, match=r"^2 None gradients found:\n- w: "):
        assert_no_none_gradients(ip.user_ns["tape"])


def test_nan_alone_does_not_fail_the_assertion():
    xs = tf.Variable([0.0, 4.0])
    with GradientTape(explain=True) as tape:
        loss = tf.reduce_sum(tf.sqrt(xs))
    tape.gradient(loss, xs)
    assert [f.cause for f in tape.explain()] == ["nan_gradient"]
    assert_no_none_gradients(tape)


def test_explain_in_plain_python_uses_the_callers_names():
    w = tf.Variable(2.0, name="weights")
    c = tf.constant(3.0)
    with GradientTape(explain=True) as t:
        line = sys._getframe().f_lineno + 1
        loss = w * c
    assert t.gradient(loss, c) is None
    (finding,) = t.explain()
    assert finding.source == "c" and finding.target == "loss"
    assert finding.line == line and finding.line_text == "loss = w * c"
    assert finding.message == (
        f"c: None because c is a plain tensor (not a tf.Variable) and was never "
        f"watched, so the tape did not record its use at line {line} "
        "(loss = w * c)."
    )


def test_a_target_made_before_the_asked_tape_says_which_tape():
    w = tf.Variable(2.0)
    with GradientTape(explain=True) as first:
        loss = w * w
    with GradientTape(explain=True) as second:
        other = w * 3.0
    assert second.gradient(loss, w) is None  # as in TensorFlow: not recorded
    (finding,) = second.explain()
    assert finding.cause == "outside_tape"
    assert finding.message == (
        "w: None because loss was computed before second started recording, so "
        "second never saw how loss depends on w."
    )
    assert finding.fix == (
        "Ask the tape that recorded loss for its gradient, or compute loss inside "
        "the with block of second."
    )
    assert float(first.gradient(loss, w)) == 4.0 and float(other) == 6.0


def test_explain_needs_a_log_and_the_graph_package():
    with GradientTape() as plain:
        pass
    with pytest.raises(ValueError, match="keeps no explanation log"):
        plain.explain()
    registered = hooks.set_diagnosis(None)
    try:
        with pytest.raises(RuntimeError, match="needs tapemagic.graph"):
            plain.explain()
    finally:
        hooks.set_diagnosis(registered)


def test_findings_print_as_sentences_and_escaped_html(ip):
    run(ip, "%%tape --target loss --sources c\n"
            "c = tf.constant(2.0)\nloss = c * c")  # fmt: skip
    found = explain(ip)
    assert str(found) == str(found[0]) == (f"{found[0].message} {found[0].fix} [TM020]")
    assert found[0].cause_code == "TM020"
    assert pretty(found) == str(found)
    assert found._repr_html_().startswith('<ul class="tapemagic-findings">')
    assert "<code>[TM020]</code>" in found._repr_html_()
    odd = Finding("<b>", "y", "not_watched", "<b>: None because <script>.", "Fix.")
    html = Findings([odd])._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "&lt;b&gt;" in html
    assert Findings()._repr_html_() == (
        "<p>No None gradient: every gradient asked for has a path to its target.</p>"
    )


def test_text_summary_shows_each_finding_with_its_fix(ip):
    _, captured = run(
        ip,
        "%%tape --show text --target loss --sources w,b\n"
        "b_np = b.numpy()\n"
        "loss = tf.reduce_sum(tf.matmul(x, w) + b_np)\n",
    )
    text = "\n".join(o.data["text/plain"] for o in captured.outputs)
    lines = text.splitlines()
    start = lines.index("Why, and what to do:")
    assert lines[start + 1].startswith("  b: None because b was converted")
    assert lines[start + 2] == "    -> Keep b a tensor: b_np = b. [TM004]"


# -- hand-made graph models: the reasoning without the engine -----------------------

TAPE = TapeInfo("tape", False, True, "answered", True)


def model(lines, values, ops, gradients, **more) -> Graph:
    return Graph(TAPE, Cell("In[2]", None, tuple(lines)), values=values, ops=ops,
                 gradients=gradients, **more)  # fmt: skip


def value(i, origin="op", dtype="float32", line=None, op=None, **more) -> Value:
    return Value(f"t{i}", origin, (), dtype, dtype.startswith("float"), line, op,
                 **more)  # fmt: skip


def node(i, name, inputs, outputs, line, recorded=True, state="recording", **more):
    differentiable = more.pop("differentiable", True)
    return OpNode(f"op{i}", i * 10, name, inputs, outputs, differentiable,
                  recorded, line, state, **more)  # fmt: skip


def request(targets, sources, results, seq=1000, **more) -> GradientRequest:
    return GradientRequest("g1", seq, "gradient", 0, targets, sources,
                           tuple(results), line=more.pop("line", 9),
                           here=more.pop("here", True), **more)  # fmt: skip


def test_model_escape_link_names_the_copy():
    lines = ("%%tape", "b_np = b.numpy()", "loss = w * b_np")
    graph = model(
        lines,
        values=(
            value(1, "variable", line=3, names=("w",), variable="w:0", trainable=True),
            value(2, "variable", names=("b",), variable="b:0", trainable=True),
            value(3, "numpy", line=3, python_type="float32", escape="e1"),
            value(4, line=3, op="op1", names=("loss",)),
        ),
        ops=(node(1, "multiply", ("t1", "t3"), ("t4",), 3),),
        gradients=(
            request(("t4",), ("t1", "t2"), [
                GradientResult("t1", False, (), "float32", "2."),
                GradientResult("t2", True),
            ]),
        ),
        escapes=(Escape("e1", 5, "t2", "numpy", 2, "recording"),),
        reads=(Read(8, "t1", 3, "recording"),),
    )  # fmt: skip
    (finding,) = diagnose(graph)
    assert (finding.source, finding.cause, finding.line, finding.op) == (
        "b",
        "numpy_copy",
        2,
        None,
    )
    assert finding.line_text == "b_np = b.numpy()"
    assert finding.target == "loss" and finding.target_id == "t4"
    # The model alone, through JSON and back, gives the same answer.
    again = Graph.from_json(json.dumps(graph.to_dict()))
    assert diagnose(again) == (finding,)


def test_model_unrecorded_nothing_watched_and_by_name_prediction():
    lines = ("%%tape", "c = tf.constant(2.0)", "y = c * c")
    graph = model(
        lines,
        values=(value(1, "constant", names=("c",)),
                value(2, line=3, op="op1", names=("y",))),
        ops=(node(1, "multiply", ("t1", "t1"), ("t2",), 3, recorded=False),),
        gradients=(),
    )  # fmt: skip
    assert diagnose(graph) == ()  # nothing asked
    (finding,) = diagnose(graph, "y", "c")
    assert (finding.cause, finding.line, finding.op) == ("not_watched", 3, "op1")
    assert finding.request is None
    assert finding.message.startswith("c: would be None because c is a constant")
    assert diagnose(graph, "t2", ["t1"]) == (finding,)


def test_model_assign_add_stands_in_the_delta_of_its_line():
    lines = ("%%tape", "v.assign_add(w * 2.0)", "loss = v * 1.0")
    graph = model(
        lines,
        values=(
            value(1, "variable", line=2, names=("w",), variable="w:0", trainable=True),
            value(2, "python", line=2, python_type="float"),
            value(3, line=2, op="op1"),
            value(4, "variable", line=3, names=("v",), variable="v:0", trainable=True),
            value(5, line=3, op="op2", names=("loss",)),
        ),
        ops=(
            node(1, "multiply", ("t1", "t2"), ("t3",), 2),
            node(2, "multiply", ("t4", "t2"), ("t5",), 3),
        ),
        gradients=(request(("t5",), ("t1",), [GradientResult("t1", True)]),),
        assigns=(Assign(15, "t4", None, "ndarray", 2, "recording"),),
        reads=(Read(5, "t1", 2, "recording"), Read(25, "t4", 3, "recording")),
    )  # fmt: skip
    (finding,) = diagnose(graph)
    assert (finding.cause, finding.line) == ("assign_cut", 2)
    assert "v.assign_add(...) at line 2" in finding.message


def test_model_nan_located_at_the_op_that_was_not_finite():
    lines = ("%%tape", "h = tf.sqrt(x)", "l = tf.math.log(h)", "loss = l * 1.0")
    graph = model(
        lines,
        values=(
            value(1, "variable", line=2, names=("x",), variable="x:0", trainable=True),
            value(2, line=2, op="op1", finite=True),
            value(3, line=3, op="op2", finite=False),
            value(4, line=4, op="op3", names=("loss",)),
        ),
        ops=(
            node(1, "sqrt", ("t1",), ("t2",), 2),
            node(2, "log", ("t2",), ("t3",), 3),
            node(3, "multiply", ("t3",), ("t4",), 4),
        ),
        gradients=(request(("t4",), ("t1",),
                           [GradientResult("t1", False, (), "float32", "nan",
                                           nan=True)]),),
        reads=(Read(5, "t1", 2, "recording"),),
    )  # fmt: skip
    (finding,) = diagnose(graph)
    assert (finding.cause, finding.op_name, finding.line) == ("nan_gradient", "log", 3)
    assert finding.severity == "warning"
    assert "infinite or undefined derivative" in finding.message


def test_model_without_a_log_is_not_diagnosed():
    graph = Graph(TapeInfo("t", False, True, "stopped", False), Cell(None, None))
    assert diagnose(graph) == ()


def test_model_request_on_another_tape_names_the_asked_tape_line():
    lines = ("%%tape --persistent", "loss = w * 2.0", "g = t2.gradient(loss, w)")
    graph = model(
        lines,
        values=(
            value(1, "variable", line=2, names=("w",), variable="w:0", trainable=True),
            value(2, "python", line=2, python_type="float"),
            value(3, line=2, op="op1", names=("loss",)),
        ),
        ops=(node(1, "multiply", ("t1", "t2"), ("t3",), 2),),
        gradients=(GradientRequest("g1", 50, "gradient", 1, ("t3",), ("t1",),
                                   (GradientResult("t1", True),), line=3,
                                   here=True),),
        reads=(Read(5, "t1", 2, "recording"),),
    )  # fmt: skip
    (finding,) = diagnose(graph)
    assert (finding.cause, finding.line) == ("wrong_tape", 3)
    assert finding.fix == "Ask that tape for the gradient: tape.gradient(loss, w)."


def test_diagnosis_never_loads_the_engine():
    code = (
        "import sys, tapemagic.graph.diagnosis, tapemagic.graph\n"
        "loaded = [m for m in sys.modules if m.startswith('tapemagic.engine')]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# -- higher-order cells: no false alarm ----------------------------------------------
#
# A gradient computed inside the tape is made of ops the tape records; the
# gradients of those gradients come out right, and nothing is flagged.

ROSENBROCK = (
    "def rosenbrock(p):\n"
    "    return (1 - p[0]) ** 2 + 100 * (p[1] - p[0] ** 2) ** 2\n"
    "p = tf.Variable([-1.2, 1.0], dtype=tf.float64, name='p')"
)
# The Hessian of Rosenbrock's function at (-1.2, 1), by hand:
# [[2 - 400 (y - x²) + 800 x², -400 x], [-400 x, 200]].
ROSENBROCK_HESSIAN = np.array([[1330.0, 480.0], [480.0, 200.0]])
SCALAR_X = "x = tf.Variable(2.0, name='x')"
# y = x**3 on a batch of two rows: the inner batch_jacobian is diag(3x²) per
# row, the outer one 6x on the diagonal of the diagonal.
BATCH_X = np.array([[1.0, 2.0], [3.0, 4.0]])
BATCH_HESSIAN = np.einsum("bi,ij,ik->bijk", 6.0 * BATCH_X, np.eye(2), np.eye(2))

HIGHER_ORDER = {
    "nested": (
        [SCALAR_X,
         "%%tape --target dy_dx --sources x\n"
         "with tf.GradientTape() as inner:\n    y = x**3\n"
         "dy_dx = inner.gradient(y, x)"],
        "tape", [("dy_dx", "x"), ("y", "x")], "grads", 12.0,  # 6x
    ),
    "nested_watched_constant": (
        ["c = tf.constant(2.0)",
         "%%tape --target dc --sources c\ntape.watch(c)\n"
         "with tf.GradientTape() as inner:\n    inner.watch(c)\n    z = c**3\n"
         "dc = inner.gradient(z, c)"],
        "tape", [("dc", "c")], "grads", 12.0,  # 6c
    ),
    "hessian": (
        [ROSENBROCK,
         "%%tape --name outer\nwith tf.GradientTape() as inner:\n"
         "    f = rosenbrock(p)\ng = inner.gradient(f, p)",
         "H = outer.jacobian(g, p)"],
        "outer", [("g", "p"), ("f", "p")], "H", ROSENBROCK_HESSIAN,
    ),
    "third_derivative": (
        [SCALAR_X,
         "%%tape --target d2 --sources x\n"
         "with tf.GradientTape() as t2:\n"
         "    with tf.GradientTape() as t1:\n        y = x**4\n"
         "    d1 = t1.gradient(y, x)\n"
         "d2 = t2.gradient(d1, x)"],
        "tape", [("d2", "x"), ("d1", "x"), ("y", "x")], "grads", 48.0,  # 24x
    ),
    "persistent_own_gradient": (
        [SCALAR_X,
         "%%tape --persistent --target dy_dx --sources x\ny = x**3\n"
         "dy_dx = tape.gradient(y, x)"],
        "tape", [("dy_dx", "x"), ("y", "x")], "grads", 12.0,  # 6x
    ),
    "persistent_own_hessian": (
        ["v = tf.Variable([1.0, 2.0], name='v')",
         "%%tape --persistent\ns = tf.reduce_sum(v**3)\ngv = tape.gradient(s, v)\n"
         "H = tape.jacobian(gv, v)"],
        "tape", [("gv", "v"), ("H", "v")], "H", [[6.0, 0.0], [0.0, 12.0]],
    ),
    "batch_jacobians": (
        ["xb = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name='xb')",
         "%%tape --persistent\nwith tf.GradientTape() as inner:\n    yb = xb**3\n"
         "J = inner.batch_jacobian(yb, xb)\nH = tape.batch_jacobian(J, xb)"],
        "tape", [("J", "xb")], "H", BATCH_HESSIAN,
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(HIGHER_ORDER))
def test_higher_order_cells_have_no_finding(ip, name):
    cells, tape, pairs, result, expected = HIGHER_ORDER[name]
    run_all(ip, cells)
    np.testing.assert_allclose(ip.user_ns[result].numpy(), expected, rtol=1e-6)
    assert list(explain(ip, f"{tape}.explain()")) == []
    for target, source in pairs:
        # Asked already, or predicted on the tape itself: connected either way.
        assert list(explain(ip, f"{tape}.explain({target}, {source})")) == [], target
    assert_no_none_gradients(ip.user_ns[tape])
    # What the %%tape view draws: the diagnosis of the whole model.
    assert diagnose(graph_from_tape(ip.user_ns[tape])) == ()


def test_the_gradient_of_a_constant_inner_gradient_is_still_explained(ip):
    # d/dx (3x) = 3 whatever x is: the inner gradient's ops never use x, so the
    # outer gradient is None, as in TensorFlow, and says so.
    run_all(
        ip,
        [
            SCALAR_X,
            "%%tape --target dy_dx --sources x\n"
            "with tf.GradientTape() as inner:\n    y = 3.0 * x\n"
            "dy_dx = inner.gradient(y, x)",
        ],
    )
    assert ip.user_ns["grads"] is None
    (finding,) = explain(ip)
    assert (finding.source, finding.cause, finding.line) == ("x", "not_connected", 4)
    assert "dy_dx" in finding.message and "does not depend on x" in finding.message
