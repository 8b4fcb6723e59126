"""The conformance vectors, on both backends, under every chunking."""

from __future__ import annotations

import random
from types import ModuleType

import pytest

from sse_helpers import decode, split_at
from sse_vectors import VECTORS, Vector

vector_params = [pytest.param(v, id=v.name) for v in VECTORS]


def check(backend: ModuleType, vector: Vector, chunks: list[bytes]) -> None:
    events, decoder = decode(backend, chunks, last_event_id=vector.start_id)
    assert events == vector.events
    assert decoder.last_event_id == vector.last_event_id
    assert decoder.retry == vector.retry


@pytest.mark.parametrize("vector", vector_params)
def test_whole(backend: ModuleType, vector: Vector) -> None:
    check(backend, vector, [vector.stream])


@pytest.mark.parametrize("vector", vector_params)
def test_one_byte_at_a_time(backend: ModuleType, vector: Vector) -> None:
    stream = vector.stream
    check(backend, vector, [stream[i : i + 1] for i in range(len(stream))])


@pytest.mark.parametrize("vector", vector_params)
def test_every_two_way_split(backend: ModuleType, vector: Vector) -> None:
    for cut in range(len(vector.stream) + 1):
        check(backend, vector, split_at(vector.stream, [cut]))


@pytest.mark.parametrize("vector", vector_params)
def test_random_splits(backend: ModuleType, vector: Vector) -> None:
    rng = random.Random(vector.name)
    n = len(vector.stream)
    for _ in range(30):
        cuts = [rng.randint(0, n) for _ in range(rng.randint(1, 8))]
        check(backend, vector, split_at(vector.stream, cuts))


@pytest.mark.parametrize("vector", vector_params)
def test_empty_chunks_change_nothing(backend: ModuleType, vector: Vector) -> None:
    chunks = [b""]
    for i in range(len(vector.stream)):
        chunks += [vector.stream[i : i + 1], b""]
    check(backend, vector, chunks)


def test_vector_names_are_unique() -> None:
    assert len({v.name for v in VECTORS}) == len(VECTORS)
