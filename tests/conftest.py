"""What every test shares: rein's hook daemon is off, so the many `rein hook` processes the tests start
with temporary HOMEs answer in-process and leave no daemon behind. Tests of the daemon, and the
real-host tests, turn it on with their own private `REIN_RUNTIME_DIR` and stop it when done.

A test of the embedded local model (`local`) is an end-to-end test too: it is also `slow`, so the fast
suite (`-m "not slow"`) leaves the model out and `-m local` still selects exactly the model's tests."""

import gc
import os

import pytest

os.environ["REIN_HOOK_DAEMON"] = "off"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Runs before `-m` deselects, so the added mark is the one the filter sees."""
    for item in items:
        if item.get_closest_marker("local") and not item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.slow)


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection built (the modules, some 18,000 items) lives to the end of the run: frozen, the
    collector no longer walks its 900,000 objects at every full collection (0.45 s each)."""
    gc.freeze()
