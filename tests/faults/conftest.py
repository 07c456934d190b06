"""Fixtures of the fault suite: a judge API with faults, shared per module where a server can be shared."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.faults import FaultServer


@pytest.fixture(scope="module")
def fault_judge() -> Iterator[FaultServer]:
    """One loopback judge for a whole module (module-scoped servers point at it)."""
    server = FaultServer().start()
    yield server
    server.stop()
