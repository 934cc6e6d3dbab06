"""Reads Tcl programs: see `_reader`."""

from rein.steering.bash.launch.tcl._reader import read

__all__ = ["read"]
