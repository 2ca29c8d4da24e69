"""Arrow <-> numpy without pandas (:mod:`ir_measures_graded.arrow`): the same values as pyarrow's own
conversions, for every type, offset, chunking and null the data path can meet."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ir_measures_graded.arrow import (
    empty,
    empty_strings,
    from_numpy,
    from_strings,
    is_arrow,
    one_binary,
    to_numpy,
)

TYPES = [pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint32(), pa.uint64(),
         pa.float16(), pa.float32(), pa.float64(), pa.bool_()]


@pytest.mark.parametrize("kind", TYPES, ids=str)
@given(values=st.lists(st.integers(0, 100), max_size=40), start=st.integers(0, 10), chunks=st.integers(1, 3))
def test_to_numpy_equals_pyarrows_conversion(kind, values, start, chunks):
    if kind == pa.float16():
        array = pa.array(np.array(values, dtype=np.float16), kind)
    else:
        array = pa.array([bool(v % 2) for v in values] if kind == pa.bool_() else values, kind)
    sliced = array.slice(min(start, len(array)))  # an offset into the buffer
    expected = sliced.to_numpy(zero_copy_only=False)
    got = to_numpy(sliced)
    assert got.dtype == expected.dtype and np.array_equal(got, expected)
    pieces = np.array_split(np.arange(len(sliced)), chunks)
    chunked = pa.chunked_array([sliced.slice(int(p[0]), len(p)) for p in pieces if len(p)] or [sliced])
    assert np.array_equal(to_numpy(chunked), expected)


def test_to_numpy_of_nulls_and_other_types_is_pyarrows():
    with_null = pa.array([1.5, None, 2.0])
    assert np.array_equal(to_numpy(with_null), [1.5, np.nan, 2.0], equal_nan=True)
    assert to_numpy(pa.array(["a", "b"])).tolist() == ["a", "b"]
    assert to_numpy(pa.chunked_array([], pa.int64())).dtype == np.int64


def test_from_numpy_round_trips():
    for values in (np.arange(5, dtype=np.int64), np.linspace(0, 1, 7), np.array([True, False, True]),
                   np.arange(10, dtype=np.int32)[::2]):
        array = from_numpy(values)
        assert array.to_pylist() == values.tolist()
        assert array.type == pa.from_numpy_dtype(values.dtype)


def test_strings_binary_and_empty():
    assert from_strings(["q1", "", "é"]).to_pylist() == ["q1", "", "é"]
    assert from_strings([]).to_pylist() == []
    assert empty_strings(3).to_pylist() == ["", "", ""] and empty_strings(0).to_pylist() == []
    joined = pc.binary_join_element_wise(pa.array(["a", "bc"]), empty_strings(2), "\n")
    assert joined.to_pylist() == ["a\n", "bc\n"]
    assert pc.split_pattern(one_binary(b"a\nb"), b"\n").values.to_pylist() == [b"a", b"b"]
    assert empty(pa.float64()).type == pa.float64() and len(empty(pa.string())) == 0
    assert is_arrow(pa.array([1])) and is_arrow(pa.chunked_array([[1]])) and not is_arrow(np.arange(2))
