"""Every test that takes the ``backend`` fixture runs once per backend.

The native backend is skipped where its extension is not installed (the
pure-wheel run) unless ``AGENTCODEC_REQUIRE_NATIVE=1``, which CI sets for the
run that built it, so a broken build cannot hide behind a skip.

``pytest --backend native`` runs those tests on the native backend only:
scripts/test.sh runs the suite so in the native wheel's environment, and
whole in the pure wheel's, where the pure backend's cases run, instead of
running them twice.

``pytest --cases K/N`` runs every test, but only the K-th of N shares of each
test's cases: ``scripts/test.sh --full`` runs the suite whole on one Python,
then splits each test's cases between the other supported Pythons, so that
every test runs on each of them and every case on one of them.
"""

from __future__ import annotations

import argparse
import importlib
import os
from types import ModuleType

import pytest
from hypothesis import settings


def _native() -> ModuleType | None:
    try:
        return importlib.import_module("agentcodec._native")
    except ImportError:
        if os.environ.get("AGENTCODEC_REQUIRE_NATIVE") == "1":
            raise
        return None


NATIVE = _native()
PURE = importlib.import_module("agentcodec._pure")

BACKENDS = [
    pytest.param(
        NATIVE, id="native", marks=pytest.mark.skipif(NATIVE is None, reason="native extension not installed")
    ),
    pytest.param(PURE, id="python"),
]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--backend",
        choices=("native", "python"),
        default=None,
        help="run the tests that take the backend fixture on this backend only (default: both)",
    )
    parser.addoption(
        "--cases",
        type=_share,
        default=None,
        metavar="K/N",
        help="run only the K-th of N shares of each test's cases (a test with fewer than N cases "
        "runs one of them); the N shares together are the whole suite",
    )


def _share(text: str) -> tuple[int, int]:
    share, _, shares = text.partition("/")
    if not (share.isdigit() and shares.isdigit() and 1 <= int(share) <= int(shares)):
        raise argparse.ArgumentTypeError(f"K/N with 1 <= K <= N, not {text!r}")
    return int(share), int(shares)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _keep_one_backend(config, items)
    _keep_one_share(config, items)


def _keep_one_share(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``--cases K/N``: of each test's cases, in the order collected, those
    whose place is K-1 modulo N; where a test has fewer cases than N, its
    case at (K-1) modulo its count, so that every test runs in every share."""
    chosen = config.getoption("--cases")
    if chosen is None:
        return
    share, shares = chosen[0] - 1, chosen[1]
    cases: dict[str, list[pytest.Item]] = {}
    for item in items:
        cases.setdefault(item.nodeid.partition("[")[0], []).append(item)
    kept_ids = set()
    for of_test in cases.values():
        if len(of_test) < shares:
            kept_ids.add(id(of_test[share % len(of_test)]))
        else:
            kept_ids.update(id(item) for item in of_test[share::shares])
    kept = [item for item in items if id(item) in kept_ids]
    config.hook.pytest_deselected(items=[item for item in items if id(item) not in kept_ids])
    items[:] = kept


def _keep_one_backend(config: pytest.Config, items: list[pytest.Item]) -> None:
    only = config.getoption("--backend")
    if only is None:
        return
    wanted = NATIVE if only == "native" else PURE
    if wanted is None:
        raise pytest.UsageError("--backend native, but the native extension is not installed")
    other = PURE if wanted is NATIVE else NATIVE
    if other is None:
        return  # the native backend's cases skip themselves here
    kept, deselected = [], []
    for item in items:
        # A case belongs to a backend when one of its parameters is that
        # backend's module, whatever the parameter's name.
        callspec = getattr(item, "callspec", None)
        params = callspec.params.values() if callspec is not None else ()
        (deselected if any(value is other for value in params) else kept).append(item)
    config.hook.pytest_deselected(items=deselected)
    items[:] = kept


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> ModuleType:
    """The backend module under test: ``agentcodec._native`` or ``agentcodec._pure``."""
    return request.param


def examples(count: int) -> int:
    """How many examples a property test tries: ``count``, scaled by
    ``AGENTCODEC_EXAMPLES`` (a fraction), which ``scripts/test.sh --full``
    sets on the Pythons where it repeats the suite after running it whole on
    one; a long property run sets it above 1."""
    scale = float(os.environ.get("AGENTCODEC_EXAMPLES", "1"))
    return max(10, round(count * scale))


# Properties that name no count of their own are scaled too.
settings.register_profile("agentcodec", max_examples=examples(100))
settings.load_profile("agentcodec")

requires_native = pytest.mark.skipif(NATIVE is None, reason="native extension not installed")
