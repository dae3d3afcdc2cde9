"""SimpleRNN, LSTM and GRU, their cells and the ``RNN`` loop, as Keras 3 defines them.

A cell computes one time step for the whole batch; ``RNN`` runs it over the
time axis, a Python loop of one step per time step, each step vectorized over
the batch. The cells' input projection ``inputs @ kernel (+ bias)`` does not
depend on the state, so it is one matmul over every step at once; only the
recurrent part runs step by step. A mask keeps a sequence's state and output
where its step is masked (Keras' ``zero_output_for_mask`` gives zeros as the
output there instead).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...engine.ops import shape as _shape
from ...engine.ops.creation import random_uniform
from ...engine.ops.linalg import matmul
from ...engine.ops.math import add, multiply, subtract, where
from ...engine.tensor import Tensor, array_of, convert_to_tensor
from .. import activations
from .core import _no_regularizers
from .layer import Layer
from .serialization import initializer_from, serialize_initializer

__all__ = ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "SimpleRNN", "SimpleRNNCell"]


def _check_rate(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"`{name}` must be a float in [0, 1]. Received: {value!r}")
    return float(min(1.0, max(0.0, value)))


def _positive_units(units: Any) -> int:
    if not isinstance(units, int) or isinstance(units, bool) or units <= 0:
        raise ValueError(
            "Received an invalid value for argument `units`, expected a positive "
            f"integer, got {units}."
        )
    return units


class _Cell(Layer):
    """What the three cells share: arguments, weights, dropout masks, config.

    A cell's state sizes are ``state_size`` (an int for one state, a list for
    several); ``_gates`` is how many blocks of ``units`` the kernel has.
    """

    _gates = 1

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        _no_regularizers(
            type(self).__name__,
            kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer,
            bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint,
            recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint,
        )
        self.units = _positive_units(units)
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializer_from(kernel_initializer)
        self.recurrent_initializer = initializer_from(recurrent_initializer)
        self.bias_initializer = initializer_from(bias_initializer)
        self.dropout = _check_rate("dropout", dropout)
        self.recurrent_dropout = _check_rate("recurrent_dropout", recurrent_dropout)
        self.seed = seed
        self._rng = None if seed is None else np.random.default_rng(seed)
        self.kernel = None
        self.recurrent_kernel = None
        self.bias = None

    @property
    def state_size(self) -> Any:
        return self.units

    @property
    def output_size(self) -> int:
        return self.units

    def _bias_shape(self) -> tuple:
        return (self._gates * self.units,)

    def _bias_initializer(self) -> Any:
        return self.bias_initializer

    def build(self, input_shape: Any) -> None:
        width = self._gates * self.units
        self.kernel = self.add_weight(
            shape=(input_shape[-1], width),
            initializer=self.kernel_initializer,
            name="kernel",
        )
        self.recurrent_kernel = self.add_weight(
            shape=(self.units, width),
            initializer=self.recurrent_initializer,
            name="recurrent_kernel",
        )
        if self.use_bias:
            self.bias = self.add_weight(
                shape=self._bias_shape(),
                initializer=self._bias_initializer(),
                name="bias",
            )

    # -- the computation, split into the input projection and the step -----------------
    def _project(self, x: Tensor) -> Tensor:
        """``x @ kernel (+ the input bias)`` for inputs of any leading axes."""
        lead = tuple(x.shape[:-1])
        flat = _shape.reshape(x, (-1, x.shape[-1]))
        out = matmul(flat, self.kernel)
        bias = self._input_bias()
        if bias is not None:
            out = add(out, bias)
        return _shape.reshape(out, lead + (out.shape[-1],))

    def _input_bias(self) -> Any:
        return self.bias

    def _step(self, projected: Tensor, states: list, rec_mask: Any) -> tuple:
        raise NotImplementedError

    def _dropout_mask(self, shape: tuple, rate: float, dtype: Any) -> np.ndarray:
        """A mask of kept entries scaled by ``1 / (1 - rate)``, one per sequence."""
        np_dtype = np.dtype(dtype.as_numpy_dtype)
        if self._rng is None:
            draws = array_of(random_uniform(shape, dtype=dtype))
        else:
            draws = self._rng.random(shape).astype(np_dtype)
        return ((draws >= rate) / (1.0 - rate)).astype(np_dtype)

    def call(self, inputs: Any, states: Any, training: Any = False) -> tuple:
        """One step: ``(output, new_states)`` for inputs of ``(batch, features)``."""
        x = convert_to_tensor(inputs)
        states = list(states) if isinstance(states, (list, tuple)) else [states]
        rec_mask = None
        if training and 0 < self.dropout < 1:
            x = multiply(x, self._dropout_mask(tuple(x.shape), self.dropout, x.dtype))
        if training and 0 < self.recurrent_dropout < 1:
            rec_mask = self._dropout_mask(
                tuple(states[0].shape), self.recurrent_dropout, x.dtype
            )
        return self._step(self._project(x), states, rec_mask)

    def get_initial_state(self, batch_size: int) -> list:
        sizes = self.state_size if isinstance(self.state_size, list) else [self.units]
        dtype = np.dtype(self.compute_dtype)
        return [Tensor(np.zeros((batch_size, s), dtype)) for s in sizes]

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "units": self.units,
            "activation": activations.serialize(self.activation),
            "use_bias": self.use_bias,
            "kernel_initializer": serialize_initializer(self.kernel_initializer),
            "recurrent_initializer": serialize_initializer(self.recurrent_initializer),
            "bias_initializer": serialize_initializer(self.bias_initializer),
            "kernel_regularizer": None,
            "recurrent_regularizer": None,
            "bias_regularizer": None,
            "kernel_constraint": None,
            "recurrent_constraint": None,
            "bias_constraint": None,
            "dropout": self.dropout,
            "recurrent_dropout": self.recurrent_dropout,
            "seed": self.seed,
        }


def _recurrent(h: Tensor, rec_mask: Any) -> Tensor:
    return h if rec_mask is None else multiply(h, rec_mask)


class SimpleRNNCell(_Cell):
    """One step of SimpleRNN: ``activation(x @ kernel + bias + h @ recurrent_kernel)``.

    Args: as :class:`SimpleRNN` (without the RNN arguments).

    Example:
        >>> cell = SimpleRNNCell(2)
        >>> state = np.zeros((1, 2), np.float32)
        >>> out, states = cell(np.ones((1, 3), np.float32), [state])
        >>> out.shape
        TensorShape([1, 2])
    """

    def _step(self, projected: Tensor, states: list, rec_mask: Any) -> tuple:
        prev = _recurrent(states[0], rec_mask)
        out = add(projected, matmul(prev, self.recurrent_kernel))
        out = self.activation(out)
        return out, [out]


class LSTMCell(_Cell):
    """One step of LSTM: gates ``i, f, c, o`` in the kernels' column blocks.

    ``c = f * c + i * activation(z_c)``, ``h = o * activation(c)``, with ``i, f,
    o`` through ``recurrent_activation``. ``unit_forget_bias`` starts the forget
    gate's bias at 1.

    Example:
        >>> cell = LSTMCell(2)
        >>> zeros = np.zeros((1, 2), np.float32)
        >>> out, (h, c) = cell(np.ones((1, 3), np.float32), [zeros, zeros])
        >>> out.shape, c.shape
        (TensorShape([1, 2]), TensorShape([1, 2]))
    """

    _gates = 4

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        recurrent_activation: Any = "sigmoid",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        unit_forget_bias: bool = True,
        **kwargs: Any,
    ) -> None:
        kwargs.pop("implementation", None)
        super().__init__(
            units,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer,
            **kwargs,
        )
        self.recurrent_activation = activations.get(recurrent_activation)
        self.unit_forget_bias = bool(unit_forget_bias)

    @property
    def state_size(self) -> list:
        return [self.units, self.units]

    def _bias_initializer(self) -> Any:
        if not self.unit_forget_bias:
            return self.bias_initializer
        units, init = self.units, self.bias_initializer

        def forget_bias_one(shape: Any, dtype: Any = None) -> Tensor:
            parts = [
                array_of(init((units,), dtype=dtype)),
                np.ones(units, np.dtype(self.variable_dtype)),
                array_of(init((2 * units,), dtype=dtype)),
            ]
            return Tensor(np.concatenate(parts).astype(self.variable_dtype))

        return forget_bias_one

    def _input_bias(self) -> Any:
        # Keras adds the bias after both matmuls
        return None

    def _step(self, projected: Tensor, states: list, rec_mask: Any) -> tuple:
        h_tm1, c_tm1 = states
        z = add(projected, matmul(_recurrent(h_tm1, rec_mask), self.recurrent_kernel))
        if self.bias is not None:
            z = add(z, self.bias)
        z0, z1, z2, z3 = _shape.split(z, 4, axis=1)
        i = self.recurrent_activation(z0)
        f = self.recurrent_activation(z1)
        c = add(multiply(f, c_tm1), multiply(i, self.activation(z2)))
        o = self.recurrent_activation(z3)
        h = multiply(o, self.activation(c))
        return h, [h, c]

    def get_config(self) -> dict:
        config = super().get_config()
        config["recurrent_activation"] = activations.serialize(
            self.recurrent_activation
        )
        config["unit_forget_bias"] = self.unit_forget_bias
        return config


class GRUCell(_Cell):
    """One step of GRU: update ``z``, reset ``r`` and candidate ``hh`` blocks.

    ``h = z * h + (1 - z) * hh``. With ``reset_after=True`` (Keras 3's default)
    the reset gate multiplies the projected state, and the bias has two rows
    (input and recurrent); with ``False`` it multiplies the state before its
    projection.

    Example:
        >>> cell = GRUCell(2)
        >>> out, _ = cell(np.ones((1, 3), np.float32), [np.zeros((1, 2), np.float32)])
        >>> cell.bias.shape
        TensorShape([2, 6])
    """

    _gates = 3

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        recurrent_activation: Any = "sigmoid",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        reset_after: bool = True,
        **kwargs: Any,
    ) -> None:
        kwargs.pop("implementation", None)
        super().__init__(
            units,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer,
            **kwargs,
        )
        self.recurrent_activation = activations.get(recurrent_activation)
        self.reset_after = bool(reset_after)

    def _bias_shape(self) -> tuple:
        width = 3 * self.units
        return (2, width) if self.reset_after else (width,)

    def _input_bias(self) -> Any:
        if self.bias is None:
            return None
        if self.reset_after:
            return self.bias[0]
        return self.bias

    def _step(self, projected: Tensor, states: list, rec_mask: Any) -> tuple:
        h_tm1 = states[0]
        u = self.units
        h_in = _recurrent(h_tm1, rec_mask)
        x_z, x_r, x_h = _shape.split(projected, 3, axis=-1)
        if self.reset_after:
            inner = matmul(h_in, self.recurrent_kernel)
            if self.bias is not None:
                inner = add(inner, self.bias[1])
        else:
            inner = matmul(h_in, self.recurrent_kernel[:, : 2 * u])
        z = self.recurrent_activation(add(x_z, inner[:, :u]))
        r = self.recurrent_activation(add(x_r, inner[:, u : 2 * u]))
        if self.reset_after:
            rec_h = multiply(r, inner[:, 2 * u :])
        else:
            rec_h = matmul(multiply(r, h_in), self.recurrent_kernel[:, 2 * u :])
        hh = self.activation(add(x_h, rec_h))
        h = add(multiply(z, h_tm1), multiply(subtract(1.0, z), hh))
        return h, [h]

    def get_config(self) -> dict:
        config = super().get_config()
        config["recurrent_activation"] = activations.serialize(
            self.recurrent_activation
        )
        config["reset_after"] = self.reset_after
        return config


class RNN(Layer):
    """Run a cell over the time axis of ``(batch, steps, features)`` inputs.

    Args:
        cell: a cell: ``SimpleRNNCell``, ``LSTMCell``, ``GRUCell``, or a Layer
            of yours with a ``state_size`` and ``call(inputs, states)`` that
            returns ``(output, new_states)`` (called once per time step).
        return_sequences: return every step's output ``(batch, steps, units)``,
            not only the last ``(batch, units)``.
        return_state: also return the final states: ``(output, *states)``.
        go_backwards: run over the steps in reverse (the sequence output is
            then in reversed order too, as Keras gives it).
        stateful: not supported (False).
        unroll: accepted; the loop is a Python loop either way.
        zero_output_for_mask: the output of a masked step is zeros, not the
            previous step's output.

    Call arguments: ``sequences``, ``initial_state`` (a list of ``(batch,
    size)`` tensors), ``mask`` (``(batch, steps)`` booleans, False where a step
    is padding), ``training`` (applies the cell's dropout).

    Raises:
        NotImplementedError: for ``stateful=True``.
        ValueError: for inputs that are not 3-D, or initial states of the wrong
            number.
    """

    def __init__(
        self,
        cell: Any,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        zero_output_for_mask: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if stateful:
            raise NotImplementedError(
                "stateful=True is not supported by tapemagic's recurrent layers; "
                "pass the final states of one call as initial_state of the next "
                "(return_state=True)."
            )
        if not isinstance(cell, Layer) or not hasattr(cell, "state_size"):
            raise ValueError(
                "Argument `cell` should have a `call` method and a `state_size` "
                f"attribute (a Layer, e.g. LSTMCell). Received: cell={cell!r}"
            )
        self.cell = cell
        self.return_sequences = bool(return_sequences)
        self.return_state = bool(return_state)
        self.go_backwards = bool(go_backwards)
        self.stateful = False
        self.unroll = bool(unroll)
        self.zero_output_for_mask = bool(zero_output_for_mask)
        self.supports_masking = True

    @property
    def _state_sizes(self) -> list:
        size = self.cell.state_size
        return list(size) if isinstance(size, list) else [size]

    def _check_input_shape(self, shape: Any) -> None:
        if isinstance(shape, tuple) and len(shape) != 3:
            raise ValueError(
                f"Input 0 of layer '{self.name}' is incompatible with the layer: "
                f"expected ndim=3, found ndim={len(shape)}. Full shape received: "
                f"{shape}. A recurrent layer takes (batch, timesteps, features)."
            )

    def build(self, sequences_shape: Any, initial_state_shape: Any = None) -> None:
        if not self.cell.built:
            self.cell.build(tuple(sequences_shape)[:1] + tuple(sequences_shape)[2:])

    def call(
        self,
        sequences: Any,
        initial_state: Any = None,
        mask: Any = None,
        training: Any = False,
    ) -> Any:
        x = convert_to_tensor(sequences)
        cell = self.cell
        batch = x.shape[0]
        states = self._initial_states(initial_state, batch)
        keep = (
            None
            if mask is None
            else np.asarray(array_of(convert_to_tensor(mask)), bool)
        )
        if keep is not None and keep.ndim == 3:
            keep = keep[..., 0]
        if self.go_backwards:
            x = _shape.reverse(x, [1])
            keep = None if keep is None else keep[:, ::-1]
        if not isinstance(cell, _Cell):
            steps = _shape.unstack(x, axis=1)
            return self._loop(steps, states, keep, training, own=False)
        rec_mask = None
        if training and 0 < cell.dropout < 1:
            dp = cell._dropout_mask((batch, x.shape[-1]), cell.dropout, x.dtype)
            x = multiply(x, dp[:, None, :])
        if training and 0 < cell.recurrent_dropout < 1:
            rec_mask = cell._dropout_mask(
                (batch, self._state_sizes[0]), cell.recurrent_dropout, x.dtype
            )
        steps = _shape.unstack(cell._project(x), axis=1)
        return self._loop(steps, states, keep, rec_mask, own=True)

    def _loop(self, steps: list, states: list, keep: Any, extra: Any, own: bool):
        """The time loop: one step per time step (of a built-in cell on its
        projected inputs, with ``extra`` its recurrent dropout mask; of another
        cell called on the step's inputs, with ``extra`` the training flag)."""
        cell = self.cell
        outputs = []
        previous = None
        for t, step_in in enumerate(steps):
            if own:
                out, new_states = cell._step(step_in, states, extra)
            else:
                kwargs = {} if extra is None else {"training": extra}
                # as Keras: the states as a list, also of one
                out, new_states = cell(step_in, list(states), **kwargs)
                if not isinstance(new_states, (list, tuple)):
                    new_states = [new_states]
                new_states = list(new_states)
            if keep is not None:
                kept = np.broadcast_to(keep[:, t : t + 1], tuple(out.shape))
                if self.zero_output_for_mask or previous is None:
                    instead = np.zeros(tuple(out.shape), np.dtype(out.dtype.name))
                else:
                    instead = previous
                out = where(kept, out, instead)
                new_states = [
                    where(np.broadcast_to(keep[:, t : t + 1], tuple(s.shape)), n, s)
                    for n, s in zip(new_states, states)
                ]
            states = new_states
            previous = out
            outputs.append(out)
        output = _shape.stack(outputs, axis=1) if self.return_sequences else previous
        if self.return_state:
            return (output, *states)
        return output

    def _initial_states(self, initial_state: Any, batch: int) -> list:
        if initial_state is None:
            if hasattr(self.cell, "get_initial_state"):
                states = self.cell.get_initial_state(batch)
                return list(states) if isinstance(states, (list, tuple)) else [states]
            dtype = np.dtype(self.cell.compute_dtype)
            return [Tensor(np.zeros((batch, s), dtype)) for s in self._state_sizes]
        given = (
            list(initial_state)
            if isinstance(initial_state, (list, tuple))
            else [initial_state]
        )
        if len(given) != len(self._state_sizes):
            raise ValueError(
                f"Layer {self.name} expects {len(self._state_sizes)} state(s), but it "
                f"received {len(given)} initial state(s). Pass one (batch, units) "
                "tensor per state."
            )
        return [convert_to_tensor(s) for s in given]

    def compute_output_shape(
        self, sequences_shape: Any, initial_state_shape: Any = None
    ) -> Any:
        batch, steps = sequences_shape[0], sequences_shape[1]
        units = getattr(self.cell, "output_size", None) or self._state_sizes[0]
        out = (batch, steps, units) if self.return_sequences else (batch, units)
        if self.return_state:
            return (out, *[(batch, s) for s in self._state_sizes])
        return out

    def compute_mask(self, _: Any, mask: Any) -> Any:
        mask = mask[0] if isinstance(mask, list) else mask
        output_mask = mask if self.return_sequences else None
        if self.return_state:
            return [output_mask] + [None] * len(self._state_sizes)
        return output_mask

    def get_config(self) -> dict:
        config = {
            **super().get_config(),
            "return_sequences": self.return_sequences,
            "return_state": self.return_state,
            "go_backwards": self.go_backwards,
            "stateful": self.stateful,
            "unroll": self.unroll,
            "zero_output_for_mask": self.zero_output_for_mask,
        }
        if type(self) is RNN:
            config["cell"] = {
                "module": "keras.layers",
                "class_name": type(self.cell).__name__,
                "config": self.cell.get_config(),
                "registered_name": None,
            }
        return config

    @classmethod
    def from_config(cls, config: dict) -> Layer:
        config = dict(config)
        cell = config.get("cell")
        if isinstance(cell, dict):
            cell_class = globals().get(cell["class_name"])
            if not (isinstance(cell_class, type) and issubclass(cell_class, _Cell)):
                raise ValueError(
                    f"Cannot rebuild the cell {cell['class_name']!r} from a config: "
                    "tapemagic rebuilds SimpleRNNCell, LSTMCell and GRUCell. Make "
                    "the RNN with your cell, RNN(MyCell(...)), instead."
                )
            config["cell"] = cell_class.from_config(cell["config"])
        return super().from_config(config)


_RNN_ARGS = (
    "return_sequences",
    "return_state",
    "go_backwards",
    "stateful",
    "unroll",
    "zero_output_for_mask",
)


class _CellRNN(RNN):
    """An RNN that makes its own cell from its arguments (SimpleRNN, LSTM, GRU)."""

    _cell_class: type = _Cell
    _cell_name = ""

    def __init__(self, units: int, **kwargs: Any) -> None:
        rnn_args = {k: kwargs.pop(k) for k in _RNN_ARGS if k in kwargs}
        base = {
            k: kwargs.pop(k)
            for k in ("name", "dtype", "trainable", "input_shape", "input_dim")
            if k in kwargs
        }
        kwargs.pop("activity_regularizer", None)
        dtype = base.get("dtype")
        if isinstance(dtype, dict):
            dtype = dtype.get("config", {}).get("name")
            base["dtype"] = dtype
        cell = self._cell_class(
            units, dtype=dtype, trainable=base.get("trainable", True),
            name=self._cell_name, **kwargs,
        )  # fmt: skip
        super().__init__(cell, **rnn_args, **base)

    def __getattr__(self, name: str) -> Any:
        # units, activation, dropout, ...: the cell's
        cell = self.__dict__.get("cell")
        if cell is None or name.startswith("_"):
            raise AttributeError(name)
        return getattr(cell, name)

    def call(
        self,
        sequences: Any,
        initial_state: Any = None,
        mask: Any = None,
        training: Any = False,
    ) -> Any:
        return super().call(
            sequences, initial_state=initial_state, mask=mask, training=training
        )

    def get_config(self) -> dict:
        config = super().get_config()
        cell_config = self.cell.get_config()
        for key in ("name", "trainable", "dtype"):
            cell_config.pop(key)
        return {**config, **cell_config, "activity_regularizer": None}


class SimpleRNN(_CellRNN):
    """A fully connected RNN: ``h = activation(x @ kernel + h @ recurrent_kernel +
    bias)`` at each step.

    Args:
        units: the size of the output and state, a positive int.
        activation: default "tanh".
        use_bias, kernel_initializer, recurrent_initializer ("orthogonal"),
        bias_initializer: as Keras 3.
        dropout, recurrent_dropout: rates of the masks applied (while training)
            to the inputs and to the state, one mask per sequence.
        return_sequences, return_state, go_backwards, stateful, unroll: see
            :class:`RNN`.

    Example:
        >>> layer = SimpleRNN(4, return_sequences=True)
        >>> layer(np.zeros((2, 5, 3), np.float32)).shape
        TensorShape([2, 5, 4])
    """

    _cell_class = SimpleRNNCell
    _cell_name = "simple_rnn_cell"

    def get_config(self) -> dict:
        config = super().get_config()
        del config["seed"]  # Keras' SimpleRNN writes none
        return config


class LSTM(_CellRNN):
    """Long short-term memory (Hochreiter 1997): states ``[h, c]``.

    Args: as :class:`SimpleRNN`, and ``recurrent_activation`` (default
    "sigmoid"), ``unit_forget_bias`` (default True), ``seed``.

    Example:
        >>> out, h, c = LSTM(4, return_state=True)(np.zeros((2, 5, 3), np.float32))
        >>> out.shape, c.shape
        (TensorShape([2, 4]), TensorShape([2, 4]))
    """

    _cell_class = LSTMCell
    _cell_name = "lstm_cell"

    def __init__(self, units: int, use_cudnn: Any = "auto", **kwargs: Any) -> None:
        super().__init__(units, **kwargs)


class GRU(_CellRNN):
    """Gated recurrent unit (Cho et al. 2014), ``reset_after=True`` by default
    as Keras 3 (the bias then has shape ``(2, 3 * units)``).

    Args: as :class:`SimpleRNN`, and ``recurrent_activation`` (default
    "sigmoid"), ``reset_after``, ``seed``.

    Example:
        >>> GRU(4)(np.zeros((2, 5, 3), np.float32)).shape
        TensorShape([2, 4])
    """

    _cell_class = GRUCell
    _cell_name = "gru_cell"

    def __init__(self, units: int, use_cudnn: Any = "auto", **kwargs: Any) -> None:
        super().__init__(units, **kwargs)
