"""The JVM languages (Groovy, Java, Kotlin, Scala with Ammonite), Swift, JavaScript for Automation and
Crystal: `"cmd".execute()`, `ProcessBuilder`, `Runtime.exec`, `sys.process`, `system`, `doShellScript`,
backticks."""

from __future__ import annotations

from rein.steering.bash.launch.lexical._apis import EVAL, SHELL, UNKNOWN, Api, Language, argv
from rein.steering.bash.launch.lexical._lex import Syntax

_C = Syntax(line_comments=("//",), block_comments=(("/*", "*/"),))
_LISTS = frozenset({"List.of", "Arrays.asList", "listOf", "arrayOf", "mutableListOf", "Seq", "List", "Array"})

_JVM_APIS = {
    "ProcessBuilder": argv(0, 1),
    "java.lang.ProcessBuilder": argv(0, 1),
    "Process": Api("split"),
    "Eval.me": EVAL,
    "evaluate": EVAL,
    "ScriptEngineManager": UNKNOWN,
    "GroovyShell": UNKNOWN,
}
_JVM_METHODS = {"execute": Api("split", at=-1), "exec": Api("split"), "evaluate": EVAL}

GROOVY = Language(
    "groovy",
    Syntax(
        _C.line_comments, _C.block_comments, triple=True, interpolation=("${",), variables=r"\$[A-Za-z_]\w*"
    ),
    apis=_JVM_APIS,
    methods=_JVM_METHODS,
    bare=True,
    concat=frozenset({"+"}),
    lists=_LISTS,
    getenv=frozenset({"System.getenv"}),
    indirect=frozenset({"execute"}),
)
JAVA = Language(
    "java",
    Syntax(_C.line_comments, _C.block_comments, triple=True),
    apis=_JVM_APIS,
    methods=_JVM_METHODS,
    concat=frozenset({"+"}),
    lists=_LISTS,
    getenv=frozenset({"System.getenv"}),
)
KOTLIN = Language(
    "kotlin",
    Syntax(
        _C.line_comments, _C.block_comments, triple=True, interpolation=("${",), variables=r"\$[A-Za-z_]\w*"
    ),
    apis=_JVM_APIS,
    methods=_JVM_METHODS,
    concat=frozenset({"+"}),
    lists=_LISTS,
    getenv=frozenset({"System.getenv"}),
)
SCALA = Language(
    "scala",
    Syntax(_C.line_comments, _C.block_comments, nested=True, triple=True, ops=r"!!|[^\w\s]"),
    apis={**_JVM_APIS, "os.proc": argv(0, 1), "%": argv(0, 1), "%%": argv(0, 1)},
    methods={
        **_JVM_METHODS,
        "!": Api("split", at=-1),
        "!!": Api("split", at=-1),
        "lazyLines": Api("split", at=-1),
        "run": Api("split", at=-1),
        "call": UNKNOWN,
    },
    concat=frozenset({"+"}),
    lists=_LISTS,
    getenv=frozenset({"System.getenv", "sys.env"}),
    mention=r"sys\.process|#\||#&&|#\|\||#>|#<",
)
"""scala.sys.process: `"cmd".!`, `Seq("git", "push").!!`, `Process("cmd")`; Ammonite's `os.proc` and
`%`."""

SWIFT = Language(
    "swift",
    Syntax(_C.line_comments, _C.block_comments, nested=True, quotes='"', triple=True, interpolation=("\\(",)),
    apis={
        "system": SHELL,
        "popen": SHELL,
        "Process": UNKNOWN,
        "Foundation.Process": UNKNOWN,
        "NSTask": UNKNOWN,
        "posix_spawn": UNKNOWN,
        "posix_spawnp": UNKNOWN,
        "execv": UNKNOWN,
        "execvp": UNKNOWN,
        "execve": UNKNOWN,
        "dlsym": UNKNOWN,
    },
    methods={"removeItem": Api("remove", at=99, key="atPath"), "launchedProcess": UNKNOWN},
    concat=frozenset({"+"}),
)

JXA = Language(
    "jxa",
    Syntax(_C.line_comments, _C.block_comments, name=r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*"),
    apis={
        "$.system": SHELL,
        "$.popen": SHELL,
        "$.NSTask": UNKNOWN,
        "$.NSAppleScript": UNKNOWN,
        "$.execv": UNKNOWN,
        "$.execvp": UNKNOWN,
        "$.posix_spawn": UNKNOWN,
        "eval": UNKNOWN,
        "Function": UNKNOWN,
    },
    methods={"doShellScript": SHELL, "doScript": SHELL, "keystroke": UNKNOWN, "keyCode": UNKNOWN},
    concat=frozenset({"+"}),
    indirect=frozenset({"doShellScript", "doScript", "system", "NSTask"}),
)
"""JavaScript for Automation (`osascript -l JavaScript`): `app.doShellScript(cmd)`, Terminal's
`doScript(cmd)`, `$.system(cmd)` through the Objective-C bridge; typing keys into another app
(`keystroke`) may type a command into a terminal."""

CRYSTAL = Language(
    "crystal",
    Syntax(
        line_comments=("#",),
        quotes='"',
        command="`",
        interpolation=("#{",),
        char=r"'(?:\\[^']{1,8}|[^'\\\n])'",
    ),
    apis={
        "system": SHELL,
        "Process.run": Api("argv", rest=1, count=1, shell_key="shell"),
        "Process.new": Api("argv", rest=1, count=1, shell_key="shell"),
        "Process.exec": Api("argv", rest=1, count=1, shell_key="shell"),
        "FileUtils.rm_rf": Api("remove"),
    },
    bare=True,
    concat=frozenset({"+"}),
    getenv=frozenset({"ENV"}),
)
