"""TensorFlow's op types under the names users write, with the engine's facts.

The table must agree with tapemagic's engine wherever both name an op (the
diagnosis reads the same facts from either recorder), and with TensorFlow's
gradient registry on which ops have a gradient.
"""

from __future__ import annotations

import pytest
from tensorflow.python.framework import ops

from tapemagic.engine import OP_TABLE  # the whole table, every op module loaded
from tapemagic.engine.recorder import op_info as engine_op_info
from tapemagic.tf_recorder import opnames, recorder


def _registered(op_type: str) -> bool:
    try:
        return ops._gradient_registry.lookup(op_type) is not None
    except LookupError:
        return False


SHARED = sorted(t for t, name in opnames.NAMES.items() if name in OP_TABLE)


def test_most_of_the_table_names_engine_ops():
    assert len(SHARED) >= 80


@pytest.mark.parametrize("op_type", SHARED)
def test_a_named_op_has_the_engines_facts(op_type):
    info = recorder.op_info(op_type)
    engine = engine_op_info(OP_TABLE[info.name])
    assert info.name == engine.name
    assert info.singular == engine.singular
    # One exception: tf.stop_gradient has no gradient in TensorFlow's registry,
    # and the diagnosis names it by its name at any rate.
    if op_type != "StopGradient":
        assert info.differentiable == engine.differentiable, op_type


@pytest.mark.parametrize("op_type", sorted(opnames.NAMES))
def test_differentiable_follows_tensorflows_registry(op_type):
    expected = _registered(op_type) and op_type not in opnames.NO_GRADIENT
    assert recorder.op_info(op_type).differentiable == expected


def test_ops_whose_gradient_is_none_are_not_differentiable():
    for op_type in ("ArgMax", "Round", "Floor", "Ceil", "FloorDiv"):
        assert _registered(op_type)  # TensorFlow has a function: it returns None
        assert not recorder.op_info(op_type).differentiable
    for op_type in ("Greater", "Equal", "StopGradient", "ZerosLike"):
        assert not _registered(op_type)
        assert not recorder.op_info(op_type).differentiable


def test_unknown_op_types_read_as_snake_case_and_functions_by_name():
    assert opnames.user_name("FusedBatchNormV3") == "fused_batch_norm_v3"
    assert opnames.user_name("ResourceApplyAdam") == "resource_apply_adam"
    assert opnames.user_name("__inference_train_step_812") == "train_step"
    assert opnames.user_name("__forward_call_77") == "call"
    assert opnames.user_name("__inference___backward_loss_fn_20_43") == "loss_fn"
    assert opnames.function_name("MatMul") is None
    info = recorder.op_info("__inference_train_step_812")
    assert info.differentiable and info.name == "train_step"


def test_static_inputs_and_inputs_without_gradient_name_known_ops():
    for table in (opnames.STATIC_INPUTS, opnames.NO_GRADIENT_INPUTS, opnames.SINGULAR):
        unknown = (
            set(table)
            - set(opnames.NAMES)
            - {
                "RandomStandardNormal",
                "RandomUniform",
                "Range",
                "StatelessRandomNormalV2",
                "StatelessRandomUniformV2",
            }
        )
        assert unknown == set()
    assert opnames.STATIC_INPUTS["Sum"] == {1: "axis"}
    assert opnames.NO_GRADIENT_INPUTS["SelectV2"] == (0,)
