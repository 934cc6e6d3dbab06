"""Options of interpreters whose short options cluster (`python -Bc`, `perl -lne`, `php -B`): which
letters take code, which a value (the rest of the cluster or the next word), which long options take
the next word (`ruby --encoding utf-8 -e ...`), so no value is read as the program or hides it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from rein.steering.bash._words import tail
from rein.steering.bash.commands._interp_program import Program
from rein.steering.bash.model import Word


@dataclass(frozen=True, slots=True)
class Clusters:
    """One interpreter's option letters."""

    code: str
    """Letters whose value is program text."""
    values: str
    """Letters whose value is the rest of the cluster or the next word."""
    attached: str = ""
    """Letters whose value is the rest of the cluster only (`ruby -W0`, `perl -x`): maybe empty."""
    longs: Mapping[str, str] = field(default_factory=dict)
    """Long options that take a value (`--x v` or `--x=v`): the letter each is, or "" for none."""
    permute: bool = False
    """Options may follow operands (rake's `rake task -e CODE`)."""
    module: str = ""
    """The letter naming a module run as the program (python's `-m`)."""


_RUBY_LONGS = dict.fromkeys(
    ("encoding", "external-encoding", "internal-encoding", "enable", "disable", "dump", "parser",
     "backtrace-limit", "crash-report"),
    "",
)  # fmt: skip
_PHP_LONGS = {
    "run": "r", "process-begin": "B", "process-code": "R", "process-end": "E", "php-ini": "c", "define": "d",
    "zend-extension": "z", "docroot": "t", "server": "S", "rfunction": "", "rf": "", "rclass": "", "rc": "",
    "rextension": "", "re": "", "rzendextension": "", "rz": "", "rextinfo": "", "ri": "",
}  # fmt: skip
_IRB_LONGS = dict.fromkeys(
    ("encoding", "context-mode", "prompt", "prompt-mode", "back-trace-limit", "extra-doc-dir"), ""
)
_RAKE_LONGS = {
    "execute": "e", "execute-print": "p", "execute-continue": "E", "require": "r", "libdir": "I",
    "rakelibdir": "R", "directory": "C", "rakefile": "f", "suppress-backtrace": "",
}  # fmt: skip
CLUSTERS = {
    "python": Clusters(code="c", values="WXm", module="m", longs={"check-hash-based-pycs": ""}),
    "perl": Clusters(code="eE", values="IMm", attached="xdDCV"),
    "ruby": Clusters(code="e", values="IrCEF", attached="xWTK", longs=_RUBY_LONGS),
    "php": Clusters(code="rBRE", values="cdztS", longs=_PHP_LONGS),
    "irb": Clusters(code="", values="rIE", attached="W", longs=_IRB_LONGS),
    "rake": Clusters(code="epE", values="rIRCf", longs=_RAKE_LONGS, permute=True),
}
"""By interpreter: python, perl, ruby, php, and the ruby tools irb and rake."""


def clustered(lang: str, table: Clusters, argv: Sequence[Word]) -> Program:
    code: list[Word] = []
    index, count = 1, len(argv)
    operand: int | None = None
    while index < count:
        word = argv[index]
        value = word.value
        if value == "--":
            index += 1
            break
        if value == "-" or not value.startswith("-"):
            if not table.permute:
                break
            operand = index if operand is None else operand
            index += 1
            continue
        index += 1
        if value.startswith("--"):
            head, eq, _ = value[2:].partition("=")
            if head not in table.longs:
                continue
            letter = table.longs[head]
            taken = tail(word, len(head) + 3) if eq else (argv[index] if index < count else None)
            index += 0 if eq else 1
            if taken is not None and letter and letter in table.code:
                code.append(taken)
            continue
        position = 1
        while position < len(value):
            letter, rest = value[position], value[position + 1 :]
            if letter in table.code or letter in table.values:
                taken = tail(word, position + 1) if rest else (argv[index] if index < count else None)
                index += 0 if rest else 1
                if taken is not None and letter in table.code:
                    code.append(taken)
                elif letter == table.module:
                    return Program(lang, module=taken, rest=index)
                break
            if letter in table.attached:
                break
            position += 1
            if lang in ("perl", "ruby") and letter == "i":
                break  # `-i.bak`: the rest of the cluster is the backup suffix (so `-pie` has no -e)
            if lang in ("perl", "ruby") and letter in "l0":
                while position < len(value) and value[position] in "01234567":
                    position += 1
        if code and lang == "python":
            return Program(lang, code=tuple(code))  # `-c` ends python's options: the rest are its argv
    if code:
        return Program(lang, code=tuple(code))
    first = operand if operand is not None else index
    return Program(lang, script=argv[first] if first < count else None)
