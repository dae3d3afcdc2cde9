"""What ``import tapemagic.tf`` loads, and what loads on first use.

A fresh process imports the package and takes a first gradient; the modules a
first gradient does not need (Keras, tf.data, the diagnosis and its views,
IPython, the op modules beyond arithmetic, reductions, shapes and matrices)
must not be in ``sys.modules`` then, and each must load, and work, when first
used. Times are measured by benchmarks/bench_engine.py, not here.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import tapemagic.engine as engine
import tapemagic.tf as tf
from tapemagic.engine import ops

ROOT = Path(__file__).resolve().parents[2]

# Loaded by nothing a first gradient does.
HEAVY = (
    "tapemagic.keras",
    "tapemagic.data",
    "tapemagic.graph",
    "tapemagic.viz",
    "tapemagic.magic",
    "tapemagic.tf_recorder",
    "IPython",
    "ipywidgets",
    "graphviz",
    "tensorflow",
    "numpy.random",
)

FIRST_GRADIENT = """
import json, sys

def loaded(*prefixes):
    return sorted(
        m for m in sys.modules if any(m == p or m.startswith(p + ".") for p in prefixes)
    )

import tapemagic.tf as tf
x, w = tf.Variable(3.0), tf.Variable([[1.0, 2.0]])
with tf.GradientTape() as tape:
    y = tf.reduce_sum(x ** 2 + (x * w) @ tf.transpose(w))
g = tape.gradient(y, x)
assert float(g) == 11.0, g
"""


def run(program: str) -> dict:
    """Run ``program`` in a fresh interpreter; return the JSON it prints last."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(program)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_first_gradient_loads_neither_keras_data_diagnosis_views_nor_ipython():
    found = run(
        FIRST_GRADIENT
        + f"""
lazy_ops = ["tapemagic.engine.ops." + m for m in {list(ops.LAZY_MODULES)!r}]
print(json.dumps({{
    "heavy": loaded(*{list(HEAVY)!r}),
    "lazy_ops": loaded(*lazy_ops),
    "tf_submodules": loaded("tapemagic.tf"),
    "engine_extras": loaded(
        "tapemagic.engine.custom", "tapemagic.engine.module",
        "tapemagic.engine.tensor_spec", "tapemagic.engine.random_seed",
    ),
    "tape_modules": loaded(
        "tapemagic.engine.tape", "tapemagic.engine.request",
        "tapemagic.engine.hooks", "tapemagic.engine.jacobian",
    ),
}}))
"""
    )
    assert found == {
        "heavy": [],
        "lazy_ops": [],
        "tf_submodules": ["tapemagic.tf"],
        "engine_extras": [],
        # The tape's own modules load with it: a first gradient needs them (the
        # jacobians' too, since nothing in the engine loads lazily).
        "tape_modules": [
            "tapemagic.engine.hooks",
            "tapemagic.engine.jacobian",
            "tapemagic.engine.request",
            "tapemagic.engine.tape",
        ],
    }


def test_first_use_loads_keras_data_and_the_rest_and_they_work():
    found = run(
        FIRST_GRADIENT
        + """
import tapemagic
before = loaded("tapemagic.keras", "tapemagic.data")
from tapemagic.tf import keras
layer = tapemagic.tf.keras.layers.Dense(2, kernel_initializer="ones")
out = layer(tf.constant([[1.0, 2.0]]))
batches = [b.numpy().tolist() for b in tf.data.Dataset.range(5).batch(2)]
random = tf.random.uniform([2]).shape.as_list()
print(json.dumps({
    "before": before,
    "keras": keras is tf.keras and "tapemagic.keras" in sys.modules,
    "data": "tapemagic.data" in sys.modules,
    "dense": out.numpy().tolist(),
    "batches": batches,
    "random": random,
    "numpy.random": "numpy.random" in sys.modules,
}))
"""
    )
    assert found == {
        "before": [],
        "keras": True,
        "data": True,
        "dense": [[3.0, 3.0]],
        "batches": [[0, 1], [2, 3], [4]],
        "random": [2],
        "numpy.random": True,
    }


def test_the_diagnosis_loads_when_a_tape_explains():
    found = run(
        FIRST_GRADIENT
        + """
c = tf.constant(2.0)
with tf.GradientTape(explain=True) as tape:
    z = x * c
(finding,) = [f for f in tape.explain(z, c)]
print(json.dumps({"cause": finding.cause, "graph": "tapemagic.graph" in sys.modules}))
"""
    )
    assert found == {"cause": "not_watched", "graph": True}


def test_load_ext_loads_what_a_first_cell_needs_and_no_more():
    found = run(
        """
import json, sys
from IPython.testing.globalipapp import start_ipython

ip = start_ipython()
ip.run_line_magic("load_ext", "tapemagic")
after_load = set(sys.modules)
ip.run_cell("import tapemagic.tf as tf\\nx = tf.Variable(3.0)")
ip.run_cell("%%tape\\ny = x ** 2\\ng = tape.gradient(y, x)")
lazy = ["tapemagic.engine.ops." + m for m in LAZY]
print(json.dumps({
    "at_load": sorted(
        m for m in after_load
        if m.split(".")[0] in ("ipywidgets", "graphviz", "tensorflow")
        or m.startswith(("tapemagic.keras", "tapemagic.data", *lazy))
    ),
    "gradient": float(ip.user_ns["g"]),
}))
""".replace("LAZY", repr(list(ops.LAZY_MODULES)))
    )
    assert found == {"at_load": [], "gradient": 6.0}


def test_every_op_module_loads_with_the_library_or_on_first_use():
    # A new module of ops/ must be one or the other, or its ops would be
    # missing from the whole table.
    found = run(
        """
import json, sys
import tapemagic.engine.ops as ops
core = sorted(m for m in sys.modules if m.startswith("tapemagic.engine.ops."))
ops.load_all()
print(json.dumps({
    "core": core,
    "all": sorted(m for m in sys.modules if m.startswith("tapemagic.engine.ops.")),
}))
"""
    )
    on_disk = {
        f"tapemagic.engine.ops.{p.stem}"
        for p in (ROOT / "tapemagic" / "engine" / "ops").glob("*.py")
        if p.stem != "__init__"
    }
    lazy = {f"tapemagic.engine.ops.{m}" for m in ops.LAZY_MODULES}
    assert set(found["all"]) == on_disk
    assert lazy < on_disk and not lazy & set(found["core"])


def test_the_whole_op_table_and_the_lazy_modules_as_attributes():
    table = engine.OP_TABLE
    for name in ("conv2d", "softmax", "fill", "argsort", "max_pool2d", "relu"):
        assert name in table, name
    for name in ops.LAZY_MODULES:
        assert getattr(ops, name).__name__ == f"tapemagic.engine.ops.{name}"
        assert name in dir(ops)
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        ops.nothing  # noqa: B018


# What a VJP calls through its namespace (``ns.multiply``); what backprop and
# the tapes call on the namespaces (``TENSORS.reshape``); what a namespace's own
# helpers call on it (``self.reduce_sum`` in namespace.py).
ENGINE = ROOT / "tapemagic" / "engine"
CALLERS = {
    "ns": re.compile(r"\bns\.(\w+)"),
    "namespaces": re.compile(r"\b(?:TENSORS|ARRAYS)\.(\w+)"),
    "self": re.compile(r"\b(?:ns|self)\.(\w+)"),
}
CORE_CALLERS = {
    "namespace.py": "self",
    "backprop.py": "namespaces",
    "tape.py": "namespaces",
    "custom.py": "namespaces",
}


def called_names(path: Path, kind: str = "ns") -> set[str]:
    return set(CALLERS[kind].findall(path.read_text()))


@pytest.mark.parametrize("module", ["(core)", *ops.LAZY_MODULES])
def test_every_op_a_vjp_calls_is_registered_with_its_module(module):
    # No module loads another on a VJP's behalf: the ops a module's VJPs call
    # must be the core's, its own, or those of the modules it imports. Checked
    # in a fresh process with the core and this module (and what it imports).
    if module == "(core)":
        imported = ""
        core = [
            p.stem
            for p in (ENGINE / "ops").glob("*.py")
            if p.stem not in ops.LAZY_MODULES and p.stem != "__init__"
        ]
        wanted = set().union(*(called_names(ENGINE / "ops" / f"{m}.py") for m in core))
        for name, kind in CORE_CALLERS.items():
            wanted |= called_names(ENGINE / name, kind)
    else:
        imported = f"import tapemagic.engine.ops.{module}"
        wanted = called_names(ENGINE / "ops" / f"{module}.py")
    found = run(
        f"""
import json, sys
import tapemagic.engine
{imported}
from tapemagic.engine.namespace import ARRAYS, TENSORS
wanted = {sorted(wanted)!r}
print(json.dumps([
    name for name in wanted
    if not (hasattr(TENSORS, name) and hasattr(ARRAYS, name))
]))
"""
    )
    assert found == []
    if module == "(core)":  # the scan reads what the VJPs call
        assert {"multiply", "reduce_sum", "reshape", "where"} <= wanted


def test_every_public_name_resolves_to_its_engine_object():
    assert set(tf.__all__) <= set(dir(tf))
    from tapemagic.engine.ops import composed_shape, creation, sorting

    assert tf.constant is creation.constant and tf.range is creation.range
    assert tf.boolean_mask is composed_shape.boolean_mask
    assert tf.sort is sorting.sort
    assert tf.Module is engine.Module and tf.TensorSpec is engine.TensorSpec
    assert tf.custom_gradient is engine.custom_gradient
    for name in tf.__all__:
        assert getattr(tf, name) is not None or name == "newaxis", name
    with pytest.raises(AttributeError, match="has no attribute 'log'"):
        tf.log  # noqa: B018


def test_the_lazy_names_are_declared_for_type_checkers():
    # tf/__init__.py names each lazy name under TYPE_CHECKING, so editors and
    # type checkers see them; the two lists must agree.
    source = (ROOT / "tapemagic" / "tf" / "__init__.py").read_text()
    tree = ast.parse(source)
    (block,) = [
        node
        for node in tree.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
    ]
    declared = {
        alias.asname or alias.name
        for node in ast.walk(block)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    lazy = set(vars(tf)["_NAMES"]) | set(vars(tf)["_SUBMODULES"])
    assert declared == lazy
