"""keras.metrics against what TensorFlow 2.21 printed for the same data.

Every expected number below was printed by tensorflow-cpu 2.21.0 (Keras 3.15)
running the same updates on the same arrays: a metric is updated once without
weights, then once more with ``sample_weight``, and both results are pinned
(to float32 rounding, since the order of float32 sums may differ).
"""

from __future__ import annotations

import numpy as np
import pytest

from tapemagic.keras import backend, losses, metrics

M = metrics

REG_TRUE = np.array(
    [[0.5, 1.0, -2.0], [3.0, 0.0, 1.5], [-1.0, 2.0, 0.25], [4.0, -0.5, 1.0]],
    np.float32,
)
REG_PRED = np.array(
    [[0.0, 1.5, -1.0], [2.5, 0.5, 1.0], [-1.5, 2.5, 0.0], [3.0, 0.0, 2.0]], np.float32
)
W4 = np.array([1.0, 0.5, 2.0, 0.0], np.float32)
BIN_TRUE = np.array([0, 1, 1, 0, 1, 0, 1, 1, 0, 1], np.float32)
BIN_PRED = np.array([0.1, 0.9, 0.35, 0.6, 0.8, 0.2, 0.5, 0.0, 1.0, 0.7], np.float32)
W10 = np.array([1.0, 2.0, 0.5, 1.0, 0.0, 3.0, 1.0, 1.5, 0.25, 1.0], np.float32)
LOGITS = np.array([-2.0, 3.0, -0.5, 0.4, 1.5, -1.2, 0.0, -20.0, 20.0, 0.8], np.float32)
SPARSE = np.array([2, 0, 3, 1, 1], np.int64)
ONE_HOT = np.eye(4, dtype=np.float32)[SPARSE]
PROBS = np.array(
    [
        [0.1, 0.2, 0.6, 0.1],
        [0.3, 0.3, 0.2, 0.2],  # a tie for the top: argmax and top-k take both ways
        [0.4, 0.1, 0.25, 0.25],
        [0.05, 0.15, 0.7, 0.1],
        [0.0, 1.0, 0.0, 0.0],
    ],
    np.float32,
)
CAT_LOGITS = np.array(
    [
        [1.0, 2.0, 3.0, 0.5],
        [0.2, -1.0, 0.0, 2.0],
        [-3.0, 0.0, 1.0, 4.0],
        [2.0, 2.0, 0.0, -1.0],
        [0.5, 0.5, 0.5, 0.5],
    ],
    np.float32,
)
W5 = np.array([1.0, 0.5, 2.0, 0.25, 1.5], np.float32)
BT2, BP2 = BIN_TRUE[:, None], BIN_PRED[:, None]
REG = (REG_TRUE, REG_PRED, W4)
BIN = (BT2, BP2, W10)
CAT = (ONE_HOT, PROBS, W5)
SPARSE_CAT = (SPARSE, PROBS, W5)

# label: (make the metric, (y_true, y_pred, sample_weight of the second update))
CASES = {
    "MeanAbsoluteError": (M.MeanAbsoluteError, REG),
    "MeanSquaredError": (M.MeanSquaredError, REG),
    "RootMeanSquaredError": (M.RootMeanSquaredError, REG),
    "MeanAbsolutePercentageError": (M.MeanAbsolutePercentageError, REG),
    "MeanSquaredLogarithmicError": (M.MeanSquaredLogarithmicError, REG),
    "MAE_col": (M.MeanAbsoluteError, BIN),
    "MAE_col_vs_1d": (M.MeanAbsoluteError, (BIN_TRUE, BP2, W10)),
    "RMSE_col": (M.RootMeanSquaredError, BIN),
    "MAPE_col": (M.MeanAbsolutePercentageError, BIN),
    "BinaryCrossentropy": (M.BinaryCrossentropy, BIN),
    "BinaryCrossentropy_logits": (
        lambda: M.BinaryCrossentropy(from_logits=True),
        (BT2, LOGITS[:, None], W10),
    ),
    "BinaryCrossentropy_smooth": (
        lambda: M.BinaryCrossentropy(label_smoothing=0.2),
        BIN,
    ),
    "CategoricalCrossentropy": (M.CategoricalCrossentropy, CAT),
    "CategoricalCrossentropy_logits": (
        lambda: M.CategoricalCrossentropy(from_logits=True),
        (ONE_HOT, CAT_LOGITS, W5),
    ),
    "CategoricalCrossentropy_smooth": (
        lambda: M.CategoricalCrossentropy(label_smoothing=0.1),
        CAT,
    ),
    "SparseCategoricalCrossentropy": (M.SparseCategoricalCrossentropy, SPARSE_CAT),
    "SparseCategoricalCrossentropy_col": (
        M.SparseCategoricalCrossentropy,
        (SPARSE[:, None], PROBS, W5),
    ),
    "SparseCategoricalCrossentropy_logits": (
        lambda: M.SparseCategoricalCrossentropy(from_logits=True),
        (SPARSE, CAT_LOGITS, W5),
    ),
    "Precision": (M.Precision, BIN),
    "Precision_1d": (M.Precision, (BIN_TRUE, BIN_PRED, W10)),
    "Precision_thr": (lambda: M.Precision(thresholds=[0.0, 0.3, 0.5, 0.9]), BIN),
    "Precision_even": (lambda: M.Precision(thresholds=[0.0, 0.5, 1.0]), BIN),
    "Precision_topk": (lambda: M.Precision(top_k=2), CAT),
    "Precision_class": (lambda: M.Precision(class_id=1), CAT),
    "Recall": (M.Recall, BIN),
    "Recall_1d": (M.Recall, (BIN_TRUE, BIN_PRED, W10)),
    "Recall_thr": (lambda: M.Recall(thresholds=[0.0, 0.3, 0.5, 0.9]), BIN),
    "Recall_topk": (lambda: M.Recall(top_k=2), CAT),
    "Recall_class": (lambda: M.Recall(class_id=2, thresholds=0.3), CAT),
    "TruePositives": (M.TruePositives, BIN),
    "FalsePositives": (M.FalsePositives, BIN),
    "TrueNegatives": (M.TrueNegatives, BIN),
    "FalseNegatives": (lambda: M.FalseNegatives(thresholds=[0.2, 0.6]), BIN),
    "AUC": (M.AUC, BIN),
    "AUC_1d": (M.AUC, (BIN_TRUE, BIN_PRED, W10)),
    "AUC_PR": (lambda: M.AUC(curve="PR"), BIN),
    "AUC_minoring": (lambda: M.AUC(summation_method="minoring"), BIN),
    "AUC_majoring": (
        lambda: M.AUC(summation_method="majoring", num_thresholds=7),
        BIN,
    ),
    "AUC_PR_majoring": (
        lambda: M.AUC(curve="PR", summation_method="majoring"),
        BIN,
    ),
    "AUC_thresholds": (lambda: M.AUC(thresholds=[0.3, 0.55, 0.75]), BIN),
    "AUC_thresholds_even": (lambda: M.AUC(thresholds=[0.25, 0.5, 0.75]), BIN),
    "AUC_logits": (lambda: M.AUC(from_logits=True), (BT2, LOGITS[:, None], W10)),
    "AUC_multiclass_flat": (M.AUC, CAT),
    "AUC_multi_label": (lambda: M.AUC(multi_label=True), CAT),
    "AUC_multi_label_weights": (
        lambda: M.AUC(multi_label=True, label_weights=[1.0, 2.0, 0.5, 1.0]),
        CAT,
    ),
    "AUC_label_weights": (lambda: M.AUC(label_weights=[1.0, 2.0, 0.5, 1.0]), CAT),
    "AUC_PR_multi_label": (lambda: M.AUC(curve="PR", multi_label=True), CAT),
    "TopKCategoricalAccuracy": (M.TopKCategoricalAccuracy, CAT),
    "TopKCategoricalAccuracy_k2": (lambda: M.TopKCategoricalAccuracy(k=2), CAT),
    "TopKCategoricalAccuracy_k1": (lambda: M.TopKCategoricalAccuracy(k=1), CAT),
    "SparseTopKCategoricalAccuracy": (M.SparseTopKCategoricalAccuracy, SPARSE_CAT),
    "SparseTopKCategoricalAccuracy_k2": (
        lambda: M.SparseTopKCategoricalAccuracy(k=2),
        SPARSE_CAT,
    ),
    "SparseTopKCategoricalAccuracy_k1col": (
        lambda: M.SparseTopKCategoricalAccuracy(k=1),
        (SPARSE[:, None], PROBS, W5),
    ),
    "SparseTopK_sorted": (
        lambda: M.SparseTopKCategoricalAccuracy(k=2, from_sorted_ids=True),
        (SPARSE, np.argsort(-PROBS, axis=-1, kind="stable"), W5),
    ),
    "CategoricalAccuracy": (M.CategoricalAccuracy, CAT),
    "SparseCategoricalAccuracy": (M.SparseCategoricalAccuracy, SPARSE_CAT),
    "BinaryAccuracy": (M.BinaryAccuracy, BIN),
    "Accuracy": (M.Accuracy, (SPARSE, np.array([2, 1, 3, 0, 1]), W5)),
}

# label: (name, result after the first update, after the weighted second one),
# as tensorflow-cpu 2.21.0 printed them
TENSORFLOW = {
    "MeanAbsoluteError": (
        "mean_absolute_error",
        0.6041666865348816,
        0.5555555820465088,
    ),
    "MeanSquaredError": ("mean_squared_error", 0.421875, 0.3583333194255829),
    "RootMeanSquaredError": (
        "root_mean_squared_error",
        0.6495190262794495,
        0.5986095070838928,
    ),
    "MeanAbsolutePercentageError": (
        "mean_absolute_percentage_error",
        41666724.0,
        33333388.0,
    ),
    "MeanSquaredLogarithmicError": (
        "mean_squared_logarithmic_error",
        0.061164237558841705,
        0.05383508279919624,
    ),
    "MAE_col": ("mean_absolute_error", 0.4649999737739563, 0.4247058629989624),
    "MAE_col_vs_1d": ("mean_absolute_error", 0.4649999737739563, 0.4247058629989624),
    "RMSE_col": ("root_mean_squared_error", 0.5676706433296204, 0.5328612923622131),
    "MAPE_col": ("mean_absolute_percentage_error", 190000032.0, 162352960.0),
    "BinaryCrossentropy": (
        "binary_crossentropy",
        3.5733420848846436,
        3.1704797744750977,
    ),
    "BinaryCrossentropy_logits": (
        "binary_crossentropy",
        4.359155178070068,
        3.8621087074279785,
    ),
    "BinaryCrossentropy_smooth": (
        "binary_crossentropy",
        3.3226356506347656,
        2.9711833000183105,
    ),
    "CategoricalCrossentropy": (
        "categorical_crossentropy",
        0.999642550945282,
        0.9129651784896851,
    ),
    "CategoricalCrossentropy_logits": (
        "categorical_crossentropy",
        0.959178626537323,
        0.850264310836792,
    ),
    "CategoricalCrossentropy_smooth": (
        "categorical_crossentropy",
        1.270928978919983,
        1.2367695569992065,
    ),
    "SparseCategoricalCrossentropy": (
        "sparse_categorical_crossentropy",
        0.9996426701545715,
        0.9129653573036194,
    ),
    "SparseCategoricalCrossentropy_col": (
        "sparse_categorical_crossentropy",
        0.9996426701545715,
        0.9129653573036194,
    ),
    "SparseCategoricalCrossentropy_logits": (
        "sparse_categorical_crossentropy",
        0.959178626537323,
        0.850264310836792,
    ),
    "Precision": ("precision", 0.6000000238418579, 0.6486486196517944),
    "Precision_1d": ("precision", 0.6000000238418579, 0.6486486196517944),
    "Precision_thr": (
        "precision",
        [0.5555555820465088, 0.7142857313156128, 0.6000000238418579, 0.0],
        [0.5066666603088379, 0.7450980544090271, 0.6486486196517944, 0.0],
    ),
    "Precision_even": (
        "precision",
        [0.5555555820465088, 0.6000000238418579, 0.0],
        [0.5066666603088379, 0.6486486196517944, 0.0],
    ),
    "Precision_topk": ("precision", 0.4000000059604645, 0.353658527135849),
    "Precision_class": ("precision", 1.0, 1.0),
    "Recall": ("recall", 0.5, 0.5),
    "Recall_1d": ("recall", 0.5, 0.5),
    "Recall_thr": (
        "recall",
        [0.8333333134651184, 0.8333333134651184, 0.5, 0.0],
        [0.7916666865348816, 0.7916666865348816, 0.5, 0.0],
    ),
    "Recall_topk": ("recall", 0.800000011920929, 0.707317054271698),
    "Recall_class": ("recall", 1.0, 1.0),
    "TruePositives": ("true_positives", 3.0, 6.0),
    "FalsePositives": ("false_positives", 2.0, 3.25),
    "TrueNegatives": ("true_negatives", 2.0, 6.0),
    "FalseNegatives": ("false_negatives", [1.0, 3.0], [2.5, 6.0]),
    "AUC": ("auc", 0.5416666269302368, 0.6216216087341309),
    "AUC_1d": ("auc", 0.5416666269302368, 0.6216216087341309),
    "AUC_PR": ("auc", 0.586553156375885, 0.633497416973114),
    "AUC_minoring": ("auc", 0.5416666269302368, 0.6216216087341309),
    "AUC_majoring": ("auc", 0.625, 0.7004504799842834),
    "AUC_PR_majoring": ("auc", 0.6496031880378723, 0.7071965336799622),
    "AUC_thresholds": ("auc", 0.6041666865348816, 0.6936936974525452),
    "AUC_thresholds_even": ("auc", 0.6041666865348816, 0.6936936974525452),
    "AUC_logits": ("auc", 0.5416666269302368, 0.6216216087341309),
    "AUC_multiclass_flat": ("auc", 0.8133333325386047, 0.8447352647781372),
    "AUC_multi_label": ("auc", 0.7916666865348816, 0.8315351009368896),
    "AUC_multi_label_weights": ("auc", 0.7685185670852661, 0.8272024989128113),
    "AUC_label_weights": ("auc", 0.7932692766189575, 0.8458635210990906),
    "AUC_PR_multi_label": ("auc", 0.5815058946609497, 0.6038123369216919),
    "TopKCategoricalAccuracy": ("top_k_categorical_accuracy", 1.0, 1.0),
    "TopKCategoricalAccuracy_k2": ("top_k_categorical_accuracy", 1.0, 1.0),
    "TopKCategoricalAccuracy_k1": (
        "top_k_categorical_accuracy",
        0.6000000238418579,
        0.5853658318519592,
    ),
    "SparseTopKCategoricalAccuracy": ("sparse_top_k_categorical_accuracy", 1.0, 1.0),
    "SparseTopKCategoricalAccuracy_k2": ("sparse_top_k_categorical_accuracy", 1.0, 1.0),
    "SparseTopKCategoricalAccuracy_k1col": (
        "sparse_top_k_categorical_accuracy",
        0.6000000238418579,
        0.5853658318519592,
    ),
    "SparseTopK_sorted": (
        "sparse_top_k_categorical_accuracy",
        0.800000011920929,
        0.707317054271698,
    ),
    "CategoricalAccuracy": (
        "categorical_accuracy",
        0.6000000238418579,
        0.5853658318519592,
    ),
    "SparseCategoricalAccuracy": (
        "sparse_categorical_accuracy",
        0.6000000238418579,
        0.5853658318519592,
    ),
    "BinaryAccuracy": ("binary_accuracy", 0.5, 0.5647059082984924),
    "Accuracy": ("accuracy", 0.6000000238418579, 0.7317073345184326),
}


@pytest.mark.parametrize("label", list(CASES))
def test_metric_matches_tensorflow(label: str) -> None:
    make, (y_true, y_pred, weight) = CASES[label]
    name, first, second = TENSORFLOW[label]
    backend.clear_session()
    metric = make()
    assert metric.name == name
    metric.update_state(y_true, y_pred)
    np.testing.assert_allclose(metric.result().numpy(), first, rtol=2e-6)
    metric.update_state(y_true, y_pred, sample_weight=weight)
    got = metric.result()
    assert got.dtype.name == "float32"
    np.testing.assert_allclose(got.numpy(), second, rtol=2e-6)
    metric.reset_state()
    np.testing.assert_array_equal(metric.result().numpy(), np.zeros_like(second))


def test_every_case_has_tensorflow_numbers() -> None:
    assert set(CASES) == set(TENSORFLOW)


def test_sum_and_mean_of_values_match_tensorflow() -> None:
    """Sum adds each example's values, Mean averages them; weights weigh examples."""
    expected = {
        "Sum": ("sum", 5.150000095367432, 9.875),
        "Sum2d": ("sum", 9.75, 14.0),
        "Mean2d": ("mean", 0.8125, 0.6222221851348877),
    }
    for label, make, values, weight in (
        ("Sum", M.Sum, BIN_PRED, W10),
        ("Sum2d", M.Sum, REG_TRUE, W4),
        ("Mean2d", M.Mean, REG_TRUE, W4),
    ):
        name, first, second = expected[label]
        metric = make()
        metric.update_state(values)
        assert metric.name == name
        assert float(metric.result()) == pytest.approx(first, rel=1e-6)
        metric.update_state(values, sample_weight=weight)
        assert float(metric.result()) == pytest.approx(second, rel=1e-6)
    scalars = M.Sum()
    scalars.update_state(3.0)
    scalars.update_state(2.0, sample_weight=0.5)
    assert float(scalars.result()) == 4.0  # TensorFlow: 4.0


def test_a_weight_per_example_needs_a_value_per_example() -> None:
    """TensorFlow fails to broadcast here (InvalidArgumentError); tapemagic says why."""
    metric = M.MeanAbsoluteError()
    metric.update_state(BIN_TRUE, BIN_PRED)  # rank-1 labels: one value per batch
    with pytest.raises(
        ValueError, match=r"sample_weight of shape \(10,\) does not fit"
    ):
        metric.update_state(BIN_TRUE, BIN_PRED, sample_weight=W10)
    with pytest.raises(ValueError, match="pass labels and predictions of shape"):
        M.MeanSquaredError().update_state(
            REG_TRUE, REG_PRED, sample_weight=np.ones((4, 3), np.float32)
        )


def test_metric_functions_match_tensorflow(capsys) -> None:
    print(M.top_k_categorical_accuracy(ONE_HOT, PROBS, k=2))
    print(M.sparse_top_k_categorical_accuracy(SPARSE, PROBS, k=1))
    print(M.binary_accuracy(BT2, BP2)[:3])
    print(M.categorical_accuracy(ONE_HOT, PROBS))
    print(M.sparse_categorical_accuracy(SPARSE, PROBS))
    print(M.mean_absolute_percentage_error(REG_TRUE, REG_PRED))
    assert capsys.readouterr().out == FUNCTIONS_OUTPUT


FUNCTIONS_OUTPUT = """\
tf.Tensor([1. 1. 1. 1. 1.], shape=(5,), dtype=float32)
tf.Tensor([1. 1. 0. 0. 1.], shape=(5,), dtype=float32)
tf.Tensor(
[[1.]
 [1.]
 [0.]], shape=(3, 1), dtype=float32)
tf.Tensor([1. 1. 0. 0. 1.], shape=(5,), dtype=float32)
tf.Tensor([1. 1. 0. 0. 1.], shape=(5,), dtype=float32)
tf.Tensor([6.6666672e+01 1.6666669e+08 5.8333332e+01 7.5000000e+01], shape=(4,), dtype=float32)
"""  # noqa: E501


def test_thresholds_and_counts_match_tensorflow(capsys) -> None:
    print(M.AUC().thresholds[:3], len(M.AUC().thresholds), M.AUC().thresholds[-1])
    print(M.Precision().thresholds, M.Precision(top_k=2).thresholds)
    auc = M.AUC()
    auc.update_state(BT2, BP2)
    print(
        auc.result(), auc.true_positives.numpy()[:5], auc.true_positives.numpy()[195:]
    )
    precision = M.Precision()
    print(precision.result())
    precision.update_state(BT2, BP2)
    print(precision.result(), precision.true_positives.numpy())
    precision.reset_state()
    print(precision.result())
    two = M.Precision(thresholds=[0.3, 0.6])
    two.update_state(BT2, BP2)
    print(two.result())
    print(M.AUC()(BT2, BP2))
    print(M.RootMeanSquaredError().result())
    mean = M.Mean()
    print(mean.result(), mean(3.0), mean([1.0, 2.0]))
    small = M.AUC(num_thresholds=3)
    small.update_state(BT2, BP2)
    print(small.result(), *(v.numpy() for v in small.variables))
    assert capsys.readouterr().out == THRESHOLDS_OUTPUT


THRESHOLDS_OUTPUT = """\
[np.float64(-1e-07), np.float64(0.005025125628140704), np.float64(0.010050251256281407)] 200 1.0000001
[0.5] [-10000000000.0]
tf.Tensor(0.5416666, shape=(), dtype=float32) [6. 5. 5. 5. 5.] [0. 0. 0. 0. 0.]
tf.Tensor(0.0, shape=(), dtype=float32)
tf.Tensor(0.6, shape=(), dtype=float32) [3.]
tf.Tensor(0.0, shape=(), dtype=float32)
tf.Tensor([0.71428573 0.75      ], shape=(2,), dtype=float32)
tf.Tensor(0.5416666, shape=(), dtype=float32)
tf.Tensor(0.0, shape=(), dtype=float32)
tf.Tensor(0.0, shape=(), dtype=float32) tf.Tensor(3.0, shape=(), dtype=float32) tf.Tensor(2.0, shape=(), dtype=float32)
tf.Tensor(0.5, shape=(), dtype=float32) [6. 3. 0.] [4. 2. 0.] [0. 2. 4.] [0. 3. 6.]
"""  # noqa: E501


def test_metric_variables_are_named_under_the_metric() -> None:
    backend.clear_session()
    assert [v.path for v in M.Mean().variables] == ["mean/total", "mean/count"]
    assert [v.path for v in M.AUC().variables] == [
        "auc/true_positives",
        "auc/false_positives",
        "auc/true_negatives",
        "auc/false_negatives",
    ]
    assert all(not v.trainable for v in M.AUC().variables)
    assert repr(M.Mean()) == "<Mean name=mean>"


# identifier: (class, name), as tensorflow-cpu 2.21.0's keras.metrics.get gave
# them, in this order after a fresh start (auto-named metrics count up)
GET = [
    ("mae", "MeanAbsoluteError", "mean_absolute_error"),
    ("mse", "MeanSquaredError", "mean_squared_error"),
    ("mape", "MeanAbsolutePercentageError", "mean_absolute_percentage_error"),
    ("msle", "MeanSquaredLogarithmicError", "mean_squared_logarithmic_error"),
    ("bce", "BinaryCrossentropy", "binary_crossentropy"),
    ("MAE", "MeanAbsoluteError", "mean_absolute_error"),
    ("MSE", "MeanSquaredError", "mean_squared_error"),
    ("mean_absolute_error", "MeanAbsoluteError", "mean_absolute_error"),
    ("root_mean_squared_error", "RootMeanSquaredError", "root_mean_squared_error"),
    ("RootMeanSquaredError", "RootMeanSquaredError", "root_mean_squared_error"),
    ("auc", "AUC", "auc"),
    ("AUC", "AUC", "auc_1"),
    ("precision", "Precision", "precision"),
    ("Precision", "Precision", "precision_1"),
    ("recall", "Recall", "recall"),
    ("top_k_categorical_accuracy", "TopKCategoricalAccuracy",
     "top_k_categorical_accuracy"),
    ("sparse_top_k_categorical_accuracy", "SparseTopKCategoricalAccuracy",
     "sparse_top_k_categorical_accuracy"),
    ("binary_crossentropy", "BinaryCrossentropy", "binary_crossentropy"),
    ("categorical_crossentropy", "CategoricalCrossentropy",
     "categorical_crossentropy"),
    ("sparse_categorical_crossentropy", "SparseCategoricalCrossentropy",
     "sparse_categorical_crossentropy"),
    ("accuracy", "Accuracy", "accuracy"),
    ("sum", "Sum", "sum"),
    ("mean", "Mean", "mean"),
    ("Sum", "Sum", "sum"),
    ("true_positives", "TruePositives", "true_positives"),
    ("metric", "Metric", "metric"),
    ("BCE", "BinaryCrossentropy", "binary_crossentropy"),
]  # fmt: skip


def test_get_resolves_the_names_keras_accepts() -> None:
    backend.clear_session()
    for identifier, class_name, name in GET:
        metric = M.get(identifier)
        assert (type(metric).__name__, metric.name) == (class_name, name), identifier
    assert M.get(None) is None
    assert M.get(losses.mean_absolute_error) is losses.mean_absolute_error
    assert type(M.get(M.AUC)).__name__ == "AUC"
    for rejected in ("rmse", "crossentropy", "acc", "ce", "logcosh"):
        with pytest.raises(
            ValueError, match=f"Could not interpret metric identifier: {rejected}"
        ):
            M.get(rejected)
    with pytest.raises(ValueError, match="root_mean_squared_error"):
        M.get("rmse")
    with pytest.raises(ValueError, match="Could not interpret metric identifier: 3"):
        M.get(3)
    with pytest.raises(TypeError, match="fn"):
        M.get("mean_metric_wrapper")
