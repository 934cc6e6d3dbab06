"""The fork harness: the pi-server fork's own client driven against a server from its sources, its
exchanges recorded for `tests/server/test_recorded.py` (see `recorder.py`)."""
