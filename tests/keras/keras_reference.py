"""Layers run on tapemagic and on Keras 3 with the same inputs and weights.

A test module lists its cases (``CASES``: a name, how to make the layer from a
namespace with ``layers`` and ``tf``, the input shapes). ``run_case`` builds the
layer on either side, sets the same weights, and records the output, the
gradients of ``sum(output * r)`` (``r`` fixed) with respect to the inputs and
the trainable weights, the weights' names and shapes, the output shape for a
None batch axis and the config.

Where TensorFlow imports, the tests compare tapemagic with Keras 3 live, and
check that the stored record (``reference/<module>.json``) still holds Keras'
answers; without it, they compare with the stored record. After changing the
cases, rewrite the record with TensorFlow installed::

    python -m tests.keras.keras_reference tests.keras.test_reshaping
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

__all__ = [
    "Case",
    "assert_matches",
    "check_against_keras",
    "check_error_against_keras",
    "keras_side",
    "run_case",
    "stored",
    "tapemagic_side",
]

_DIR = Path(__file__).with_name("reference")


@dataclass(frozen=True)
class Case:
    """One layer, one call.

    Attributes:
        name: the case's key in the record.
        make: ``make(side)`` returns the layer; ``side.layers`` and ``side.tf``
            are Keras' or tapemagic's.
        shapes: one input shape per input (a list of inputs when more than one).
        seed: seeds the inputs, the weights and ``r``.
        call: keyword arguments for the call (e.g. ``training``).
        skip_config: config keys not compared.
        second_order: also record the gradient of ``sum_i <grad_i, u_i>`` (``u``
            fixed) from an outer tape: TensorFlow's second derivatives.
        compare_config: whether the config is recorded and compared (a model's
            config is Keras' graph, which tapemagic does not write).
        ints: if not 0, the inputs are int32 indices in ``[0, ints)`` (0 among
            them, as padding), not differentiated.
        spread: the inputs are separate arguments (``layer(query, value)``),
            not one list; so are their shapes to ``compute_output_shape``.
    """

    name: str
    make: Callable[[Any], Any]
    shapes: tuple
    seed: int = 0
    call: dict = field(default_factory=dict)
    skip_config: tuple = ()
    second_order: bool = False
    compare_config: bool = True
    ints: int = 0
    spread: bool = False


def tapemagic_side() -> SimpleNamespace:
    import tapemagic.keras as keras
    import tapemagic.tf as tf

    return SimpleNamespace(tf=tf, layers=keras.layers, keras=keras)


@cache
def keras_side() -> SimpleNamespace | None:
    """Keras 3 on TensorFlow, or None where TensorFlow does not import."""
    try:
        import keras
        import tensorflow as tf
    except ImportError:
        return None
    return SimpleNamespace(tf=tf, layers=keras.layers, keras=keras)


def _plain(value: Any) -> Any:
    """A config as JSON holds it: tuples as lists."""
    return json.loads(json.dumps(value, default=repr))


def _numbers(value: Any) -> Any:
    """An array as nested lists of floats with float32's 9 significant digits."""
    if value is None:
        return None
    array = np.asarray(value, np.float64)
    return np.vectorize(lambda v: float(f"{v:.9g}"), otypes=[float])(array).tolist()


def run_case(case: Case, side: SimpleNamespace) -> dict:
    """Build, weight and call ``case``'s layer on ``side``; what it gave."""
    rng = np.random.default_rng(case.seed)
    if case.ints:
        xs = [rng.integers(0, case.ints, s).astype(np.int32) for s in case.shapes]
    else:
        xs = [rng.standard_normal(s).astype(np.float32) for s in case.shapes]
    all_tensors = [side.tf.constant(x) for x in xs]
    inputs = all_tensors[0] if len(all_tensors) == 1 else all_tensors
    args = tuple(all_tensors) if case.spread else (inputs,)
    # indices are not differentiated
    tensors = [] if case.ints else all_tensors
    layer = case.make(side)
    layer(*args, **case.call)
    weights = [
        (rng.standard_normal(tuple(w.shape)) / 2).astype(np.float32)
        for w in layer.weights
    ]
    layer.set_weights(weights)
    sources = tensors + list(layer.trainable_weights)
    with side.tf.GradientTape() as outer:
        for t in tensors:
            outer.watch(t)
        with side.tf.GradientTape() as tape:
            for t in tensors:
                tape.watch(t)
            out = layer(*args, **case.call)
            outs = list(out) if isinstance(out, (list, tuple)) else [out]
            rs = [rng.standard_normal(tuple(o.shape)).astype(np.float32) for o in outs]
            loss = side.tf.add_n([side.tf.reduce_sum(o * r) for o, r in zip(outs, rs)])
        grads = tape.gradient(loss, sources)
        # a gather's gradient is IndexedSlices in TensorFlow: its dense value
        grads = [
            side.tf.convert_to_tensor(g) if hasattr(g, "indices") else g for g in grads
        ]
        if case.second_order:
            us = [
                rng.standard_normal(tuple(s.shape)).astype(np.float32) for s in sources
            ]
            h = side.tf.add_n(
                [side.tf.reduce_sum(g * u) for g, u in zip(grads, us) if g is not None]
            )
    second = outer.gradient(h, sources) if case.second_order else None
    batchless = [(None,) + tuple(s[1:]) for s in case.shapes]
    if case.spread:
        out_shape = layer.compute_output_shape(*batchless)
    else:
        out_shape = layer.compute_output_shape(
            batchless[0] if len(batchless) == 1 else batchless
        )
    config = {}
    if case.compare_config:
        config = {
            k: v
            for k, v in layer.get_config().items()
            if k != "name" and k not in case.skip_config
        }
    record = {
        "output": [_numbers(o) for o in outs],
        "gradients": [_numbers(g) for g in grads],
        "weights": [[w.name, list(w.shape)] for w in layer.weights],
        "output_shape": _plain(out_shape),
        "config": _plain(config),
    }
    if second is not None:
        record["second_order"] = [_numbers(g) for g in second]
    return record


def assert_matches(got: dict, want: dict, *, rtol: float = 1e-5, atol: float = 1e-5):
    """``got`` (tapemagic's record) equals ``want`` (Keras'), numbers within
    tolerance, the rest exactly."""
    assert got["weights"] == want["weights"]
    assert got["output_shape"] == want["output_shape"]
    assert got["config"] == want["config"]
    assert len(got["output"]) == len(want["output"])
    for g, w in zip(got["output"], want["output"]):
        np.testing.assert_allclose(np.asarray(g, np.float64), w, rtol=rtol, atol=atol)
    for key in ("gradients", "second_order"):
        assert (key in got) == (key in want), key
        assert len(got.get(key, ())) == len(want.get(key, ()))
        for g, w in zip(got.get(key, ()), want.get(key, ())):
            if key == "second_order" and (g is None) != (w is None):
                # where a second sweep reaches a source only through ops of zero
                # derivative, one side may answer None and the other zeros
                zeros = np.zeros_like(np.asarray(w if g is None else g, np.float64))
                g, w = (zeros, w) if g is None else (g, zeros)
            assert (g is None) == (w is None), (g, w)
            if g is not None:
                np.testing.assert_allclose(
                    np.asarray(g, np.float64), w, rtol=rtol, atol=atol
                )


def check_against_keras(case: Case, module: str) -> None:
    """tapemagic's record of ``case`` against Keras' live (and the stored record
    against Keras'), or against the stored record where TensorFlow is absent."""
    ours = run_case(case, tapemagic_side())
    record = stored(module).get(case.name)
    side = keras_side()
    if side is not None:
        theirs = run_case(case, side)
        assert_matches(ours, theirs)
        assert record is not None, (
            f"no stored record of {case.name!r}: run python -m "
            f"tests.keras.keras_reference {module}"
        )
        assert_matches(record, theirs, rtol=1e-6, atol=1e-7)
    else:
        assert record is not None, f"no stored record of {case.name!r}"
        assert_matches(ours, record)


def check_error_against_keras(
    make: Callable[[Any], Any], error: type, words: str
) -> None:
    """``make(side)`` raises ``error`` with ``words`` (a regex) on tapemagic and,
    where TensorFlow imports, the same on Keras 3: the words are Keras'."""
    import pytest

    for side in (tapemagic_side(), keras_side()):
        if side is not None:
            with pytest.raises(error, match=words):
                make(side)


@cache
def stored(module: str) -> dict:
    """The record of ``module``'s cases (``{}`` if there is none yet)."""
    path = _DIR / f"{module.rsplit('.', 1)[-1]}.json"
    if not path.exists():
        return {}
    return json.loads(path.read_text())


def _write(module_name: str) -> None:
    side = keras_side()
    if side is None:
        raise SystemExit("TensorFlow and Keras 3 must be installed to write a record.")
    module = importlib.import_module(module_name)
    record = {case.name: run_case(case, side) for case in module.CASES}
    _DIR.mkdir(exist_ok=True)
    path = _DIR / f"{module_name.rsplit('.', 1)[-1]}.json"
    lines = [
        f"{json.dumps(name)}: {json.dumps(entry, sort_keys=True)}"
        for name, entry in sorted(record.items())
    ]
    path.write_text("{\n" + ",\n".join(lines) + "\n}\n")
    print(f"wrote {len(record)} cases to {path}")


if __name__ == "__main__":
    for name in sys.argv[1:]:
        _write(name)
