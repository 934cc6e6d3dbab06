"""What a Tcl program (tclsh, wish, Expect) launches: `exec`, `open "|cmd"`, Expect's `spawn` and
`system`, and `file delete -force`."""

from rein.steering.bash.launch.tcl._reader import read

__all__ = ["read"]
