# Generated from the op table by tapemagic/tf/_generate.py: do not edit.
# Say where an op lives beside it (defop's tf=, @tf_export) and run
# python -m tapemagic.tf._generate.
"""NumPy functions and the TensorFlow functions that take the same arguments
(positional and ``axis``/``keepdims``) and give the same values, as each op
declares them (``numpy=``); the fixes rewrite such a NumPy call as its twin.
"""

__all__ = ["NUMPY_TO_TF"]

NUMPY_TO_TF: dict[str, str] = {
    "abs": "tf.abs",
    "absolute": "tf.abs",
    "add": "tf.add",
    "arccos": "tf.acos",
    "arcsin": "tf.asin",
    "arctan": "tf.atan",
    "argmax": "tf.argmax",
    "argmin": "tf.argmin",
    "ceil": "tf.math.ceil",
    "clip": "tf.clip_by_value",
    "cos": "tf.cos",
    "cosh": "tf.cosh",
    "cumsum": "tf.cumsum",
    "divide": "tf.divide",
    "exp": "tf.exp",
    "expm1": "tf.math.expm1",
    "floor": "tf.floor",
    "linalg.norm": "tf.norm",
    "log": "tf.math.log",
    "log1p": "tf.math.log1p",
    "matmul": "tf.matmul",
    "max": "tf.reduce_max",
    "maximum": "tf.maximum",
    "mean": "tf.reduce_mean",
    "min": "tf.reduce_min",
    "minimum": "tf.minimum",
    "multiply": "tf.multiply",
    "negative": "tf.negative",
    "power": "tf.pow",
    "prod": "tf.reduce_prod",
    "reshape": "tf.reshape",
    "round": "tf.round",
    "sign": "tf.sign",
    "sin": "tf.sin",
    "sinh": "tf.sinh",
    "sqrt": "tf.sqrt",
    "square": "tf.square",
    "squeeze": "tf.squeeze",
    "stack": "tf.stack",
    "std": "tf.math.reduce_std",
    "subtract": "tf.subtract",
    "sum": "tf.reduce_sum",
    "tan": "tf.tan",
    "tanh": "tf.tanh",
    "transpose": "tf.transpose",
    "var": "tf.math.reduce_variance",
    "where": "tf.where",
}
