"""JavaScript runtimes' options: where `node`, `tsx`, `ts-node`, `bun` and `deno` take their program.

node reads every `-e`/`-p` (and the `-pe` pair), and gives any option that is no boolean the next word
as its value (`--require mod`); options end at the script. deno takes `eval [options] CODE`, `run
[options] SCRIPT` (`-` is stdin) and `repl --eval CODE`.
"""

from __future__ import annotations

from collections.abc import Sequence

from rein.steering.bash._words import tail
from rein.steering.bash.commands._interp_getopt import Getopt, getopt
from rein.steering.bash.commands._interp_program import Program
from rein.steering.bash.model import Word

_CODE = frozenset({"-e", "--eval", "-p", "--print"})
_VALUES = frozenset({
    # node's options that take a value
    "-r", "--require", "--import", "--loader", "--experimental-loader", "--input-type", "-C", "--conditions",
    "--env-file", "--env-file-if-exists", "--inspect-port", "--debug-port", "--title", "--icu-data-dir",
    "--openssl-config", "--redirect-warnings", "--report-dir", "--report-directory", "--report-filename",
    "--report-signal", "--secure-heap", "--secure-heap-min", "--diagnostic-dir", "--dns-result-order",
    "--unhandled-rejections", "--heapsnapshot-signal", "--heapsnapshot-near-heap-limit", "--cpu-prof-dir",
    "--cpu-prof-name", "--cpu-prof-interval", "--heap-prof-dir", "--heap-prof-name", "--heap-prof-interval",
    "--tls-cipher-list", "--tls-keylog", "--trace-event-categories", "--trace-event-file-pattern",
    "--use-largepages", "--watch-path", "--experimental-policy", "--policy-integrity", "--disable-warning",
    "--experimental-config-file", "--localstorage-file", "--max-http-header-size", "--test-reporter",
    "--test-reporter-destination", "--test-name-pattern", "--test-skip-pattern", "--test-shard",
    "--test-concurrency", "--test-timeout", "--allow-fs-read", "--allow-fs-write", "--run", "--snapshot-blob",
    "--experimental-sea-config", "--experimental-default-type", "--stack-trace-limit",
    # tsx's and ts-node's
    "--tsconfig", "-P", "--project", "--compiler", "-O", "--compiler-options", "-I", "--ignore", "--cwd",
    "--scope-dir", "--dir", "-D", "--ignore-diagnostics",
})  # fmt: skip

_DENO = Getopt(
    values="cL",
    optional="r",
    longs={
        "import-map": "=", "config": "=c", "ext": "=", "location": "=", "seed": "=", "v8-flags": "=",
        "cert": "=", "log-level": "=L", "conditions": "=", "preload": "=", "eval": "=", "eval-file": "=",
        "env-file": "?", "lock": "?", "reload": "?r", "check": "?", "no-check": "?", "inspect": "?",
        "inspect-brk": "?", "inspect-wait": "?", "node-modules-dir": "?", "watch": "?",
    },
    abbreviate=False,
)  # fmt: skip
"""deno's options before `eval`'s code or `run`'s script (clap: no abbreviations, optional values only
attached with `=`); one it does not list is a flag."""


def javascript(name: str, argv: Sequence[Word]) -> Program:
    if name == "deno":
        return _deno(argv)
    code: list[Word] = []
    index, count = 1, len(argv)
    while index < count:
        word = argv[index]
        value = word.value
        if value == "--":
            index += 1
            break
        if value == "-" or not value.startswith("-"):
            break
        head, eq, _ = value.partition("=")
        index += 1
        if head in _CODE or (not value.startswith("--") and len(value) > 2 and set(value[1:]) <= {"p", "e"}):
            if eq and value.startswith("--"):
                code.append(tail(word, len(head) + 1))
            elif index < count:
                code.append(argv[index])
                index += 1
        elif head in _VALUES and not eq:
            index += 1
    if code:
        return Program("javascript", code=tuple(code))
    return Program("javascript", script=argv[index] if index < count else None)


def _deno(argv: Sequence[Word]) -> Program:
    command = argv[1].value if len(argv) > 1 else ""
    if command not in ("eval", "run", "repl"):
        return Program("javascript", script=argv[1] if len(argv) > 1 else None)
    read = getopt(argv, _DENO, 2)
    if command == "repl":
        code = read.values("--eval")
        return Program("javascript", code=tuple(code), files=tuple(read.values("--eval-file")))
    operand = read.operands[0] if read.operands else None
    if command == "eval":
        return Program("javascript", code=(operand,) if operand else (Word.literal(""),))
    return Program("javascript", script=operand)
