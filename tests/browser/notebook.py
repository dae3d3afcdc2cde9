"""The notebook the end-to-end tests run, and what its %%tape cell must show."""

from __future__ import annotations

NOTEBOOK_CELLS = [
    "import sys; print(sys.prefix)",  # proves which Python the kernel runs
    "%load_ext tapemagic",
    "import tapemagic.tf as tf\n"
    "x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])\n"
    'w = tf.Variable([[0.5], [-1.0]], name="w")\n'
    'b = tf.Variable([0.25], name="b")',
    "%%tape --target loss --sources w,b\n"
    "h = tf.matmul(x, w)\n"
    "y_hat = h + b.numpy()\n"
    "loss = tf.reduce_sum(y_hat)",
]
# The same cells on real TensorFlow: the same graph, the same None, the same
# sweep (the TensorFlow recorder emits the engine's events).
TENSORFLOW_CELLS = [
    cell.replace("import tapemagic.tf as tf", "import tensorflow as tf")
    for cell in NOTEBOOK_CELLS
]
CELLS = {"tapemagic": NOTEBOOK_CELLS, "tensorflow": TENSORFLOW_CELLS}
# Counted by hand: w and b (sources), x and the NumPy copy of b (unwatched
# inputs), matmul, add and reduce_sum (ops), loss (target).
EXPECTED_NODES = 8
# The backward sweep: reduce_sum, add, matmul, then w's gradient.
SWEEP_STEPS = 4
