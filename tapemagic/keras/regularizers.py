"""``keras.regularizers``: not in tapemagic yet.

The module imports, so a program's import line runs; each name in it raises
NotImplementedError saying what to write instead (a penalty added with
``add_loss``).
"""

from ._missing import missing_names

__all__: list[str] = []

__getattr__ = missing_names(
    "keras.regularizers",
    "weight penalties passed as kernel_regularizer=",
    "Add the penalty yourself: in a layer's call, "
    "self.add_loss(0.01 * tf.reduce_sum(tf.square(self.kernel))), or add it "
    "to the loss in a custom train_step; model.losses and fit count it.",
)
