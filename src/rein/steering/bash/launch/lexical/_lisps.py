"""The Lisps: Emacs Lisp, Scheme (Guile and others), Racket, Common Lisp (SBCL, CLISP, ECL, CCL),
Clojure and babashka, Janet and Fennel. A call is a form, `(api args...)`; an API named anywhere else
(`#'shell-command`, `(funcall 'call-process ...)`) is passed on as a value rein cannot follow."""

from __future__ import annotations

from collections.abc import Mapping

from rein.steering.bash.launch.lexical._apis import EVAL, SHELL, UNKNOWN, Api, Language, argv, shell
from rein.steering.bash.launch.lexical._lex import Syntax

_NAME = r"[^\s()\[\]{}\",'`;#][^\s()\[\]{}\",'`;]*"
_LISP = Syntax(
    line_comments=(";",),
    block_comments=(("#|", "|#"),),
    nested=True,
    quotes='"',
    name=_NAME,
    char=r"#\\(?:[A-Za-z]\w+|.)",
    separators="",
    ops=r"#'|,@|[^\w\s]",
)
_ELISP = Syntax(line_comments=(";",), quotes='"', name=_NAME, char=r"\?(?:\\[\^CMSHAs]-)*\\?.", separators="")
_CLOJURE = Syntax(
    line_comments=(";",), quotes='"', name=_NAME, char=r"\\(?:newline|space|tab|.)", separators=""
)


def _lisp(
    name: str, syntax: Syntax, apis: Mapping[str, Api], joins: Mapping[str, str] | None = None
) -> Language:
    return Language(
        name,
        syntax,
        apis,
        lisp=True,
        joins=joins or {},
        lists=frozenset({"list", "vector", "vec"}),
        getenv=frozenset({"getenv", "System/getenv", "os/getenv"}),
        indirect=frozenset(name for name, api in apis.items() if api.shape != "eval"),
    )


ELISP = _lisp(
    "elisp",
    _ELISP,
    {
        "shell-command": SHELL,
        "shell-command-to-string": SHELL,
        "async-shell-command": SHELL,
        "call-process-shell-command": SHELL,
        "process-file-shell-command": SHELL,
        "start-process-shell-command": shell(2),
        "start-file-process-shell-command": shell(2),
        "shell-command-on-region": shell(2),
        "compile": SHELL,
        "compilation-start": SHELL,
        "eshell-command": SHELL,
        "eshell-command-result": SHELL,
        "call-process": argv(0, 4),
        "process-file": argv(0, 4),
        "call-process-region": argv(2, 6),
        "process-lines": argv(0, 1),
        "process-lines-ignore-status": argv(0, 1),
        "start-process": argv(2, 3),
        "start-file-process": argv(2, 3),
        "make-process": Api("argv", at=99, key="command"),
        "make-comint": argv(1, 3),
        "make-comint-in-buffer": argv(2, 4),
        "term": UNKNOWN,
        "ansi-term": UNKNOWN,
        "shell": UNKNOWN,
        "eshell": UNKNOWN,
        "read": EVAL,
        "read-from-string": EVAL,
        "car-read-from-string": EVAL,
        "delete-directory": Api("remove", when="1", home=True),
    },
    {"concat": ""},
)
"""`emacs --batch --eval`, `emacsclient --eval`: Emacs Lisp."""

SCHEME = _lisp(
    "scheme",
    _LISP,
    {
        "system": SHELL,
        "system*": argv(0, 1),
        "open-pipe": SHELL,
        "open-input-pipe": SHELL,
        "open-output-pipe": SHELL,
        "open-pipe*": argv(1, 2),
        "execl": argv(1, 2),
        "execlp": argv(1, 2),
        "execle": argv(2, 3),
        "spawn": argv(1, -1),
        "eval-string": EVAL,
        "process": SHELL,
        "run-process": argv(0, -1),
        "sys-system": SHELL,
        "sys-exec": argv(0, 1),
        "process-run": SHELL,
        "with-input-from-pipe": SHELL,
        "with-output-to-pipe": SHELL,
        "call-with-input-pipe": SHELL,
        "call-with-output-pipe": SHELL,
        "primitive-fork": UNKNOWN,
    },
    {"string-append": ""},
)
"""Guile's `(ice-9 popen)` and POSIX calls, and the usual calls of other Schemes (Chicken's
`process`, Gauche's `sys-system`, `run-process`)."""

RACKET = _lisp(
    "racket",
    _LISP,
    {
        "system": SHELL,
        "system*": argv(0, 1),
        "system/exit-code": SHELL,
        "system*/exit-code": argv(0, 1),
        "process": SHELL,
        "process*": argv(0, 1),
        "process/ports": shell(3),
        "process*/ports": argv(3, 4),
        "subprocess": argv(3, 4),
        "shell-execute": UNKNOWN,
        "delete-directory/files": Api("remove"),
    },
    {"string-append": ""},
)

COMMON_LISP = _lisp(
    "lisp",
    _LISP,
    {
        **dict.fromkeys(
            ("sb-ext:run-program", "run-program", "ccl:run-program", "ext:execute", "excl:run-shell-command"),
            argv(0, 1),
        ),
        **dict.fromkeys(("uiop:run-program", "uiop:launch-program", "uiop/run-program:run-program"), SHELL),
        **dict.fromkeys(
            (
                "ext:run-shell-command",
                "ext:shell",
                "si:system",
                "ext:system",
                "asdf:run-shell-command",
                "inferior-shell:run",
                "trivial-shell:shell-command",
            ),
            SHELL,
        ),
        "ext:run-program": Api("argv", rest_key="arguments"),
        "uiop:delete-directory-tree": Api("remove"),
        "read-from-string": EVAL,
        "sb-alien:alien-funcall": UNKNOWN,
    },
    {"concatenate": ""},
)
"""SBCL, CLISP, ECL, CCL and UIOP: `run-program` takes a program and an argument list (UIOP's a shell
line or a list)."""

CLOJURE = _lisp(
    "clojure",
    _CLOJURE,
    {
        **dict.fromkeys(("clojure.java.shell/sh", "sh", "shell/sh", "sh/sh"), argv(0, 1)),
        **dict.fromkeys(
            (
                "babashka.process/shell",
                "babashka.process/process",
                "babashka.process/sh",
                "babashka.process/exec",
                "p/shell",
                "p/process",
                "p/sh",
                "p/exec",
                "process/shell",
                "process/process",
                "shell",
                "process",
            ),
            Api("split"),
        ),
        ".exec": Api("split", at=1),
        "ProcessBuilder.": argv(0, 1),
        "java.lang.ProcessBuilder.": argv(0, 1),
        "load-string": EVAL,
        "read-string": EVAL,
        "clojure.core/read-string": EVAL,
        "babashka.fs/delete-tree": Api("remove"),
        "fs/delete-tree": Api("remove"),
    },
    {"str": ""},
)
"""clojure.java.shell's `sh` takes an argv; babashka.process's `shell` and `process` split one string
into words themselves (or take a vector); `(.exec (Runtime/getRuntime) "cmd")` splits on blanks."""

JANET = _lisp(
    "janet",
    _CLOJURE,
    {
        "os/execute": argv(0, -1),
        "os/spawn": argv(0, -1),
        "os/shell": SHELL,
        "eval-string": EVAL,
        "parse": EVAL,
    },
)
FENNEL = _lisp(
    "fennel",
    _CLOJURE,
    {"os.execute": SHELL, "io.popen": SHELL, "load": EVAL, "loadstring": EVAL, "fennel.eval": EVAL},
    {"..": ""},
)
