"""Elixir, Erlang, Haskell (and GHCi) and OCaml: `System.cmd`, `:os.cmd`, `os:cmd`, `callCommand`,
`callProcess`, `Sys.command`, `Unix.execvp`."""

from __future__ import annotations

from rein.steering.bash.launch.lexical._apis import EVAL, SHELL, UNKNOWN, Api, Language, argv
from rein.steering.bash.launch.lexical._lex import Syntax

ELIXIR = Language(
    "elixir",
    Syntax(
        line_comments=("#",),
        triple=True,
        interpolation=("#{",),
        name=r":?[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*[!?]?",
        prefixes=r"~[a-zA-Z]",
    ),
    apis={
        "System.cmd": argv(0, 1),
        "System.shell": SHELL,
        ":os.cmd": SHELL,
        "Port.open": UNKNOWN,
        ":erlang.open_port": UNKNOWN,
        "Code.eval_string": EVAL,
        "Code.eval_quoted": UNKNOWN,
        "Code.compile_string": EVAL,
        "Mix.Shell.cmd": SHELL,
        "File.rm_rf": Api("remove"),
        "File.rm_rf!": Api("remove"),
        ":os.find_executable": UNKNOWN,
        "apply": UNKNOWN,
        "Kernel.apply": UNKNOWN,
    },
    bare=True,
    concat=frozenset({"<>"}),
    homes=frozenset({"System.user_home", "System.user_home!"}),
    getenv=frozenset({"System.get_env", "System.fetch_env!"}),
)

ERLANG = Language(
    "erlang",
    Syntax(
        line_comments=("%",),
        quotes='"',
        raw_quotes="'",
        char=r"\$(?:\\.|.)",
        name=r"[a-z][\w@]*(?::[a-z][\w@]*)?|[A-Z_][\w@]*",
    ),
    apis={
        "os:cmd": SHELL,
        "open_port": UNKNOWN,
        "erlang:open_port": UNKNOWN,
        "file:del_dir_r": Api("remove"),
        "erl_scan:string": EVAL,
        "erl_eval:exprs": UNKNOWN,
        "erl_eval:expr": UNKNOWN,
        "apply": UNKNOWN,
    },
    concat=frozenset({"++"}),
    getenv=frozenset({"os:getenv"}),
    indirect=frozenset({"os", "cmd"}),
)
"""An Erlang `'quoted'` atom is read as a string: `'os':'cmd'(...)` names the API indirectly."""

HASKELL = Language(
    "haskell",
    Syntax(
        line_comments=("--",),
        block_comments=(("{-", "-}"),),
        nested=True,
        quotes='"',
        char=r"'(?:\\[^']{1,8}|[^'\\\n])'",
        name=r"[A-Za-z_][\w']*(?:\.[A-Za-z_][\w']*)*",
        separators=",;",
    ),
    apis={
        "callCommand": SHELL,
        "system": SHELL,
        "spawnCommand": SHELL,
        "shell": SHELL,
        "runCommand": SHELL,
        "callProcess": argv(0, 1),
        "rawSystem": argv(0, 1),
        "proc": argv(0, 1),
        "readProcess": Api("argv", rest=1, count=1),
        "readProcessWithExitCode": Api("argv", rest=1, count=1),
        "spawnProcess": Api("argv", rest=1, count=1),
        "runProcess": Api("argv", rest=1, count=1),
        "executeFile": Api("argv", rest=2, count=1),
        "removeDirectoryRecursive": Api("remove"),
        "removePathForcibly": Api("remove"),
        "unsafePerformIO": UNKNOWN,
    },
    juxtapose=True,
    concat=frozenset({"++"}),
    strip=r"^(?:[A-Z][\w']*\.)+",
)
"""A qualified name (`System.Process.callCommand`, `P.system`) is the function it names."""

OCAML = Language(
    "ocaml",
    Syntax(
        block_comments=(("(*", "*)"),),
        nested=True,
        quotes='"',
        char=r"'(?:\\[^']{1,8}|[^'\\\n])'",
        name=r"[A-Za-z_][\w']*(?:\.[A-Za-z_][\w']*)*",
        extra={r"\{([a-z_]*)\|": r"\|\1\}"},
    ),
    apis={
        "Sys.command": SHELL,
        "Unix.system": SHELL,
        "Unix.open_process_in": SHELL,
        "Unix.open_process_out": SHELL,
        "Unix.open_process": SHELL,
        "Unix.open_process_full": SHELL,
        "Unix.open_process_args_in": argv(1, -1),
        "Unix.open_process_args_out": argv(1, -1),
        "Unix.open_process_args": argv(1, -1),
        "Unix.open_process_args_full": argv(1, -1),
        "Unix.execv": argv(1, -1),
        "Unix.execvp": argv(1, -1),
        "Unix.execve": argv(1, -1),
        "Unix.execvpe": argv(1, -1),
        "Unix.create_process": argv(1, -1),
        "Unix.create_process_env": argv(1, -1),
        "Toploop.execute_phrase": UNKNOWN,
    },
    juxtapose=True,
    concat=frozenset({"^"}),
)
