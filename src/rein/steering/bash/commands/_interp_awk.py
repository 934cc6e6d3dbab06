"""awk's options: where `awk`, `gawk`, `mawk` and `nawk` take their program.

Every `-e`/`--source` is program text and every `-f`/`--file` a program file, read together; with
either there is no program operand. `-E FILE` is a program file that ends the options. Values of
`-v`, `-F`, `-i`, `-l`, `-W` are no program.
"""

from __future__ import annotations

from collections.abc import Sequence

from rein.steering.bash.commands._interp_getopt import Getopt, getopt
from rein.steering.bash.commands._interp_program import Program
from rein.steering.bash.model import Word

_AWK = Getopt(
    values="FfvEeilW",
    optional="dDLop",
    longs={
        "assign": "=v", "field-separator": "=F", "file": "=f", "source": "=e", "include": "=i", "load": "=l",
        "exec": "=E", "dump-variables": "?d", "debug": "?D", "lint": "?L", "pretty-print": "?o",
        "profile": "?p", "bignum": "", "characters-as-bytes": "", "copyright": "", "csv": "", "gen-pot": "",
        "help": "", "lint-old": "", "no-optimize": "", "non-decimal-data": "", "optimize": "", "posix": "",
        "re-interval": "", "sandbox": "", "traditional": "", "use-lc-numeric": "", "version": "",
    },
    ends=frozenset({"-E"}),
)  # fmt: skip


def awk(argv: Sequence[Word]) -> Program:
    read = getopt(argv, _AWK)
    code = tuple(read.values("-e"))
    files = tuple(read.values("-f", "-E"))
    if code:
        return Program("awk", code=code, files=files)
    if files:
        return Program("awk", script=files[0], files=files[1:])
    return Program("awk", code=read.operands[:1])
