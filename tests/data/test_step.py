"""Steps run on their own: a pipeline of bare steps, without Dataset's methods,
passes chunks of read-only arrays."""

from __future__ import annotations

import numpy as np

from tapemagic.data.batching import Batch
from tapemagic.data.shuffling import Shuffle
from tapemagic.data.slicing import Skip
from tapemagic.data.sources import TensorSlices, slices_of
from tapemagic.data.step import Step, cut, frozen, numpy_value, one_row


def test_bare_steps_chain_and_batch_as_slices() -> None:
    source = TensorSlices(*slices_of(np.arange(7)))
    batches = Batch(Skip(source, 1), 3, drop=True)
    chunks = list(batches._chunks())
    assert [chunk[0].tolist() for chunk in chunks] == [[[1, 2, 3], [4, 5, 6]]]
    assert np.shares_memory(chunks[0][0], source._arrays[0])
    assert batches._cardinality() == 2
    assert isinstance(batches, Step)


def test_bare_shuffle_gathers_from_the_source() -> None:
    source = TensorSlices(*slices_of(np.arange(10)))
    rows = [int(row[0]) for row in Shuffle(source, 10, 1, False)._rows()]
    assert sorted(rows) == list(range(10))


def test_chunk_helpers() -> None:
    array = np.arange(6).reshape(3, 2)
    assert np.shares_memory(cut((array,), 1, 3)[0], array)
    kept = frozen(array)
    assert not kept.flags.writeable and kept is not array
    assert frozen(kept) is kept
    step = TensorSlices(*slices_of([1]))
    row = one_row(step)
    assert row.dtype == object and row[0] is step
    assert one_row(np.float32(2.0)).shape == (1,)
    assert type(numpy_value(np.array(3))) is np.int64
