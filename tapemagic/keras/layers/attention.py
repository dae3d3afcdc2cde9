"""MultiHeadAttention, as Keras 3 defines it, for ``(batch, steps, features)`` inputs.

The query, key and value are projected per head (``einsum`` with kernels of
shape ``(features, heads, key_dim)``), the scores ``query . key / sqrt(key_dim)``
go through a masked softmax over the value's steps, and the heads' weighted
values are projected back to the query's features (or ``output_shape``). The
mask of the scores joins the query's and value's Keras masks, the causal mask
and ``attention_mask`` with a logical and.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...engine.ops.elementary import tanh
from ...engine.ops.linalg import einsum, matmul
from ...engine.ops.math import add, logical_and, multiply, subtract, where
from ...engine.ops.reduce import reduce_sum
from ...engine.ops.shape import expand_dims
from ...engine.tensor import Tensor, array_of, convert_to_tensor
from .. import activations
from .core import Dropout, _no_regularizers
from .keras_tensor import KerasTensor, _shape_of
from .layer import Layer
from .masking import get_keras_mask, set_keras_mask
from .serialization import initializer_from, serialize_initializer

__all__ = ["Attention", "MultiHeadAttention"]


class _Projection(Layer):
    """A kernel (and bias) applied with one einsum: Keras' EinsumDense, as the
    attention layers use it."""

    def __init__(
        self,
        equation: str,
        kernel_shape: tuple,
        bias_shape: tuple | None,
        kernel_initializer: Any,
        bias_initializer: Any,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.equation = equation
        self.kernel_shape = kernel_shape
        self.bias_shape = bias_shape
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        self.kernel = None
        self.bias = None

    def build(self, input_shape: Any) -> None:
        self.kernel = self.add_weight(
            shape=self.kernel_shape, initializer=self.kernel_initializer, name="kernel"
        )
        if self.bias_shape is not None:
            self.bias = self.add_weight(
                shape=self.bias_shape, initializer=self.bias_initializer, name="bias"
            )

    def call(self, inputs: Any) -> Tensor:
        out = einsum(self.equation, inputs, self.kernel)
        return out if self.bias is None else add(out, self.bias)


def _positive(name: str, value: Any, or_none: bool = False) -> None:
    if or_none and value is None:
        return
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        expected = "a positive integer or `None`" if or_none else "a positive integer"
        raise ValueError(
            f"Received an invalid value for argument `{name}`, expected {expected}. "
            f"Received: {name}={value}"
        )


class MultiHeadAttention(Layer):
    """Multi-head attention (Vaswani et al., 2017) of a query over a value.

    Args:
        num_heads: the number of heads.
        key_dim: the size of each head for the query and key.
        value_dim: the size of each head for the value (default ``key_dim``).
        dropout: the dropout rate of the attention scores while training.
        use_bias: whether the projections have biases.
        output_shape: the size of the output's last axis (default: the query's).
        attention_axes: the axis attended over: 1 (the default, the steps).
        kernel_initializer, bias_initializer: as Keras 3.
        seed: seeds the dropout.

    Call arguments: ``query`` ``(batch, T, dim)``, ``value`` ``(batch, S,
    dim)``, ``key`` (default ``value``), ``attention_mask`` ``(batch, T, S)``
    booleans (True attends), ``return_attention_scores`` (also return the
    ``(batch, heads, T, S)`` scores), ``training``, ``use_causal_mask`` (step
    ``t`` attends to steps ``<= t`` only). The Keras masks of ``query``,
    ``value`` and ``key`` (from ``Embedding(mask_zero=True)``) join the mask.

    Raises:
        ValueError: for a non-positive ``num_heads``, ``key_dim`` or
            ``value_dim``, or a key and value of different steps.
        NotImplementedError: for other attention axes or inputs not of rank 3.

    Example:
        >>> import numpy as np
        >>> mha = MultiHeadAttention(num_heads=2, key_dim=4)
        >>> x = np.zeros((3, 5, 8), np.float32)
        >>> out, scores = mha(x, x, return_attention_scores=True)
        >>> out.shape, scores.shape
        (TensorShape([3, 5, 8]), TensorShape([3, 2, 5, 5]))
    """

    def __init__(
        self,
        num_heads: int,
        key_dim: int,
        value_dim: int | None = None,
        dropout: float = 0.0,
        use_bias: bool = True,
        output_shape: Any = None,
        attention_axes: Any = None,
        sliding_window: Any = None,
        flash_attention: Any = None,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        use_gate: bool = False,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        _positive("num_heads", num_heads)
        _positive("key_dim", key_dim)
        _positive("value_dim", value_dim, or_none=True)
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        _no_regularizers(
            "MultiHeadAttention",
            kernel_regularizer=kernel_regularizer,
            bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint,
        )
        if sliding_window is not None or use_gate or flash_attention:
            raise NotImplementedError(
                "MultiHeadAttention's sliding_window, use_gate and flash_attention "
                "are not supported by tapemagic; build the mask yourself and pass "
                "it as attention_mask."
            )
        if isinstance(attention_axes, int):
            attention_axes = (attention_axes,)
        if attention_axes is not None and tuple(attention_axes) not in ((1,), (-2,)):
            raise NotImplementedError(
                "tapemagic's MultiHeadAttention attends over the steps of "
                "(batch, steps, features) inputs only (attention_axes=None or 1); "
                "reshape other inputs to that form."
            )
        self.supports_masking = True
        self.num_heads = num_heads
        self.key_dim = key_dim
        self.value_dim = value_dim if value_dim else key_dim
        self.dropout = dropout
        self.use_bias = bool(use_bias)
        if isinstance(output_shape, int):
            output_shape = (output_shape,)
        self._output_shape = tuple(output_shape) if output_shape else None
        if self._output_shape is not None and len(self._output_shape) != 1:
            raise NotImplementedError(
                "tapemagic's MultiHeadAttention takes an output_shape of one axis."
            )
        self.attention_axes = None if attention_axes is None else tuple(attention_axes)
        self.kernel_initializer = initializer_from(kernel_initializer)
        self.bias_initializer = initializer_from(bias_initializer)
        self.seed = seed
        self._inverse_sqrt_key_dim = 1.0 / math.sqrt(float(key_dim))
        self._dropout_layer = Dropout(rate=dropout, seed=seed, dtype=self.dtype)
        self._query_dense = self._key_dense = self._value_dense = None
        self._output_dense = None

    # -- building --------------------------------------------------------------------
    def build(self, query_shape: Any, value_shape: Any = None, key_shape: Any = None):
        if value_shape is None:
            # built on the first call, which knows the value's shape
            return
        query_shape, value_shape = tuple(query_shape), tuple(value_shape)
        key_shape = value_shape if key_shape is None else tuple(key_shape)
        self._check_shapes(query_shape, value_shape, key_shape)
        # as Keras: once built, the config names the axis attended over
        self.attention_axes = (1,)
        heads, k, v = self.num_heads, self.key_dim, self.value_dim

        def projection(name: str, dim: int, size: int) -> _Projection:
            return _Projection(
                "abc,cde->abde",
                (dim, heads, size),
                (heads, size) if self.use_bias else None,
                self.kernel_initializer,
                self.bias_initializer,
                name=name,
                dtype=self.dtype,
            )

        self._query_dense = projection("query", query_shape[-1], k)
        self._query_dense.build(query_shape)
        self._key_dense = projection("key", key_shape[-1], k)
        self._key_dense.build(key_shape)
        self._value_dense = projection("value", value_shape[-1], v)
        self._value_dense.build(value_shape)
        out = self._output_shape[0] if self._output_shape else query_shape[-1]
        self._output_dense = _Projection(
            "abcd,cde->abe",
            (heads, v, out),
            (out,) if self.use_bias else None,
            self.kernel_initializer,
            self.bias_initializer,
            name="attention_output",
            dtype=self.dtype,
        )
        self._output_dense.build(query_shape[:-1] + (heads, v))

    def _check_shapes(self, query: tuple, value: tuple, key: tuple) -> None:
        if value[1:-1] != key[1:-1]:
            raise ValueError(
                "All dimensions of `value` and `key`, except the last one, must be "
                f"equal. Received: value_shape={value} and key_shape={key}"
            )
        if not len(query) == len(value) == len(key) == 3:
            raise NotImplementedError(
                "tapemagic's MultiHeadAttention takes (batch, steps, features) "
                f"inputs; got query {query}, value {value}, key {key}."
            )

    # -- the computation ---------------------------------------------------------------
    def call(
        self,
        query: Any,
        value: Any,
        key: Any = None,
        query_mask: Any = None,
        value_mask: Any = None,
        key_mask: Any = None,
        attention_mask: Any = None,
        return_attention_scores: bool = False,
        training: Any = None,
        use_causal_mask: bool = False,
    ) -> Any:
        if key is None:
            key = value
        # as Keras: the query's mask is read from the tensor, and the inputs'
        # masks are taken off them (they are handled here)
        query_mask = get_keras_mask(query)
        for tensor in (query, value, key):
            set_keras_mask(tensor, None)
        query, value, key = (convert_to_tensor(t) for t in (query, value, key))
        if self._query_dense is None:
            self.build(tuple(query.shape), tuple(value.shape), tuple(key.shape))
        else:
            self._check_shapes(tuple(query.shape), tuple(value.shape), tuple(key.shape))
        mask = self._attention_mask(
            query, value, query_mask, value_mask, key_mask, attention_mask,
            use_causal_mask,
        )  # fmt: skip
        q = self._query_dense(query)
        k = self._key_dense(key)
        v = self._value_dense(value)
        q = multiply(q, np.asarray(self._inverse_sqrt_key_dim, q.dtype.name))
        scores = einsum("aecd,abcd->acbe", k, q)
        if mask is not None:
            # as Keras' Softmax: a large negative score where masked
            scores = where(
                expand_dims(mask, 1), scores, np.asarray(-1e9, scores.dtype.name)
            )
        scores = activations.softmax(scores, axis=-1)
        dropped = scores
        if self.dropout > 0:
            dropped = self._dropout_layer(scores, training=training)
        out = einsum("acbe,aecd->abcd", dropped, v)
        out = self._output_dense(out)
        if query_mask is not None:
            set_keras_mask(out, query_mask)
        if return_attention_scores:
            return out, scores
        return out

    def _attention_mask(
        self,
        query: Tensor,
        value: Tensor,
        query_mask: Any,
        value_mask: Any,
        key_mask: Any,
        attention_mask: Any,
        use_causal_mask: bool,
    ) -> Any:
        """The ``(batch, T, S)`` boolean mask of the scores, or None."""
        auto = None

        def both(a: Any, b: Any) -> Any:
            return b if a is None else logical_and(a, b)

        if query_mask is not None:
            auto = expand_dims(_bool(query_mask), -1)
        if value_mask is not None:
            auto = both(auto, expand_dims(_bool(value_mask), -2))
        if key_mask is not None:
            auto = both(auto, expand_dims(_bool(key_mask), -2))
        if use_causal_mask:
            t, s = query.shape[1], value.shape[1]
            causal = np.tril(np.ones((t, s), bool))[None]
            auto = both(auto, convert_to_tensor(causal))
        if attention_mask is not None:
            attention_mask = _bool(attention_mask)
        if auto is not None:
            attention_mask = (
                auto if attention_mask is None else both(attention_mask, auto)
            )
        return attention_mask

    # -- shapes, symbolic calls, config ------------------------------------------------
    def compute_output_shape(
        self, query_shape: Any, value_shape: Any = None, key_shape: Any = None
    ) -> tuple:
        query_shape = tuple(query_shape)
        if value_shape is not None:
            value_shape = tuple(value_shape)
            key_shape = value_shape if key_shape is None else tuple(key_shape)
            if value_shape[1:-1] != key_shape[1:-1]:
                raise ValueError(
                    "All dimensions of `value` and `key`, except the last one, must "
                    f"be equal. Received: value_shape={value_shape} and "
                    f"key_shape={key_shape}"
                )
        if self._output_shape:
            return query_shape[:-1] + self._output_shape
        return query_shape

    def _symbolic_call(self, *args: Any, **kwargs: Any) -> Any:
        names = ("query", "value", "key")
        given = dict(zip(names, args))
        given.update({k: kwargs[k] for k in names if k in kwargs})
        shapes = {k: _shape_of(v) for k, v in given.items()}
        query_shape = shapes["query"]
        value_shape = shapes.get("value", query_shape)
        key_shape = shapes.get("key") or value_shape
        if self._query_dense is None:
            self.build(query_shape, value_shape, key_shape)
        self.built = True
        out_shape = self.compute_output_shape(query_shape, value_shape, key_shape)
        inputs = [v for v in given.values() if isinstance(v, KerasTensor)]
        every = [out_shape]
        if kwargs.get("return_attention_scores"):
            every.append(
                (query_shape[0], self.num_heads, query_shape[1], value_shape[1])
            )
        return _symbolic_outputs(self, args, kwargs, inputs, every)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "num_heads": self.num_heads,
            "key_dim": self.key_dim,
            "value_dim": self.value_dim,
            "dropout": self.dropout,
            "use_bias": self.use_bias,
            "use_gate": False,
            "output_shape": self._output_shape,
            "attention_axes": self.attention_axes,
            "sliding_window": None,
            "kernel_initializer": serialize_initializer(self.kernel_initializer),
            "bias_initializer": serialize_initializer(self.bias_initializer),
            "kernel_regularizer": None,
            "bias_regularizer": None,
            "activity_regularizer": None,
            "kernel_constraint": None,
            "bias_constraint": None,
            "seed": self.seed,
        }


def _bool(mask: Any) -> Tensor:
    t = convert_to_tensor(mask)
    if t.dtype != "bool":
        t = convert_to_tensor(array_of(t).astype(bool))
    return t


def _symbolic_outputs(
    layer: Layer, args: tuple, kwargs: dict, inputs: list, shapes: list
) -> Any:
    """KerasTensors of ``shapes`` from one call (one, or a tuple that knows its
    members), recorded as the layer's node."""
    producer = (layer, args, kwargs)
    outputs = tuple(
        KerasTensor(s, dtype=layer.compute_dtype, producer=producer) for s in shapes
    )
    layer._add_node(inputs, list(outputs))
    if layer._build_output_shape is None:
        layer.__dict__["_build_output_shape"] = (
            shapes[0] if len(shapes) == 1 else list(shapes)
        )
    if len(outputs) == 1:
        return outputs[0]
    for each in outputs:
        each._call_outputs = outputs
    return outputs


class Attention(Layer):
    """Dot-product attention (Luong-style): ``softmax(query . key) . value``.

    Args:
        use_scale: multiply the scores by a trainable scalar ``scale``.
        score_mode: "dot" (``query @ key.T``) or "concat" (``sum(tanh(query +
            key))``, times the trainable ``concat_score_weight``).
        dropout: the dropout rate of the attention weights while training.
        seed: seeds the dropout.

    Call arguments: ``inputs`` ``[query, value]`` or ``[query, value, key]``
    (``(batch, Tq, dim)``, ``(batch, Tv, dim)``), ``mask`` ``[query_mask,
    value_mask]`` (the inputs' Keras masks by default), ``training``,
    ``return_attention_scores``, ``use_causal_mask``.

    Raises:
        ValueError: for an unknown score mode, or inputs or masks that are not
            a list of 2 or 3.

    Example:
        >>> import numpy as np
        >>> q = np.ones((1, 2, 3), np.float32)
        >>> Attention()([q, q]).shape
        TensorShape([1, 2, 3])
    """

    _convert_input_args = False

    def __init__(
        self,
        use_scale: bool = False,
        score_mode: str = "dot",
        dropout: float = 0.0,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.use_scale = use_scale
        self.score_mode = score_mode
        self.dropout = dropout
        self.seed = seed
        self._dropout_layer = Dropout(rate=dropout, seed=seed, dtype=self.dtype)
        if score_mode not in ("dot", "concat"):
            raise ValueError(
                "Invalid value for argument score_mode. Expected one of {'dot', "
                f"'concat'}}. Received: score_mode={score_mode}"
            )
        self.scale = None
        self.concat_score_weight = None

    def _validate_inputs(self, inputs: Any, mask: Any = None) -> None:
        name = type(self).__name__
        if not isinstance(inputs, list):
            raise ValueError(
                f"{name} layer must be called on a list of inputs, namely [query, "
                f"value] or [query, value, key]. Received: inputs={inputs}."
            )
        if len(inputs) < 2 or len(inputs) > 3:
            raise ValueError(
                f"{name} layer accepts inputs list of length 2 or 3, namely [query, "
                f"value] or [query, value, key]. Received length: {len(inputs)}."
            )
        if mask is not None:
            if not isinstance(mask, list):
                raise ValueError(
                    f"{name} layer mask must be a list, namely [query_mask, "
                    f"value_mask]. Received: mask={mask}."
                )
            if len(mask) < 2 or len(mask) > 3:
                raise ValueError(
                    f"{name} layer accepts mask list of length 2 or 3. Received: "
                    f"inputs={inputs}, mask={mask}."
                )

    def _check_input_shape(self, shape: Any) -> None:
        if not isinstance(shape, list):
            self._validate_inputs(shape)

    def build(self, input_shape: Any) -> None:
        self._validate_inputs(input_shape)
        if self.use_scale:
            self.scale = self.add_weight(
                name="scale", shape=(), initializer="ones", dtype=self.dtype
            )
        if self.score_mode == "concat":
            self.concat_score_weight = self.add_weight(
                name="concat_score_weight", shape=(), initializer="ones",
                dtype=self.dtype,
            )  # fmt: skip

    def call(
        self,
        inputs: Any,
        mask: Any = None,
        training: Any = False,
        return_attention_scores: bool = False,
        use_causal_mask: bool = False,
    ) -> Any:
        self._validate_inputs(inputs, mask)
        inputs = [self._convert_input(t) for t in inputs]
        q, v = inputs[0], inputs[1]
        k = inputs[2] if len(inputs) > 2 else v
        q_mask = mask[0] if mask else None
        v_mask = mask[1] if mask else None
        if self.score_mode == "dot":
            scores = matmul(q, k, transpose_b=True)
            if self.scale is not None:
                scores = multiply(scores, self.scale)
        else:
            summed = add(expand_dims(q, -2), expand_dims(k, -3))
            if self.scale is not None:
                summed = multiply(self.scale, summed)
            scores = multiply(
                self.concat_score_weight, reduce_sum(tanh(summed), axis=-1)
            )
        scores_mask = None if v_mask is None else _bool(v_mask)
        if use_causal_mask:
            tq, tv = scores.shape[-2], scores.shape[-1]
            causal = convert_to_tensor(np.tril(np.ones((tq, tv), bool))[None])
            if scores_mask is not None:
                scores_mask = logical_and(expand_dims(scores_mask, -2), causal)
            else:
                scores_mask = causal
        if scores_mask is not None:
            if scores_mask.ndim == 2:
                scores_mask = expand_dims(scores_mask, -2)
            big = np.asarray(1.0e9, scores.dtype.name)
            scores = where(scores_mask, scores, subtract(scores, big))
        weights = activations.softmax(scores, axis=-1)
        dropped = weights
        if training and self.dropout > 0:
            dropped = self._dropout_layer(weights, training=True)
        out = matmul(dropped, v)
        if q_mask is not None:
            zeros = np.zeros((), out.dtype.name)
            out = where(expand_dims(_bool(q_mask), -1), out, zeros)
        if return_attention_scores:
            return out, weights
        return out

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """The query's mask (None without one)."""
        self._validate_inputs(inputs, mask)
        if mask is None or mask[0] is None:
            return None
        return convert_to_tensor(mask[0])

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (*input_shape[0][:-1], input_shape[1][-1])

    def _symbolic_call(self, *args: Any, **kwargs: Any) -> Any:
        inputs = args[0]
        self._validate_inputs(inputs)
        shapes = [tuple(t.shape) for t in inputs]
        if not self.built:
            self.build(shapes)
            self.built = True
        out = self.compute_output_shape(shapes)
        every = [out]
        if kwargs.get("return_attention_scores"):
            key = shapes[2] if len(shapes) > 2 else shapes[1]
            every.append((*shapes[0][:-1], key[-2]))
        return _symbolic_outputs(self, args, kwargs, list(inputs), every)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "use_scale": self.use_scale,
            "score_mode": self.score_mode,
            "dropout": self.dropout,
            "seed": self.seed,
        }
