"""Lua, R, Julia and gnuplot, each with its process APIs (`os.execute`, `io.popen`, `system`, `system2`,
`` `cmd` ``, `run(Cmd(...))`); the other languages read by their tokens are in `_jvm`, `_functional`
and `_lisps`."""

from __future__ import annotations

from rein.steering.bash.launch.lexical._apis import EVAL, SHELL, UNKNOWN, Api, Language, argv, shell
from rein.steering.bash.launch.lexical._lex import Syntax

LUA = Language(
    "lua",
    Syntax(line_comments=("--",), long_brackets=True, name=r"[A-Za-z_]\w*(?:[.:][A-Za-z_]\w*)*"),
    apis={
        "os.execute": SHELL,
        "io.popen": SHELL,
        "load": EVAL,
        "loadstring": EVAL,
        "posix.exec": argv(0, 1),
        "posix.execp": argv(0, 1),
        "posix.spawn": UNKNOWN,
        "posix.fork": UNKNOWN,
        "uv.spawn": UNKNOWN,
        "vim.fn.system": SHELL,
        "vim.system": SHELL,
        "vim.fn.jobstart": SHELL,
        "vim.fn.termopen": SHELL,
        "_G": UNKNOWN,
        "_ENV": UNKNOWN,
        "getfenv": UNKNOWN,
        "rawget": UNKNOWN,
        "package.loadlib": UNKNOWN,
    },
    methods={"execute": SHELL, "popen": SHELL},
    concat=frozenset({".."}),
    getenv=frozenset({"os.getenv"}),
    indirect=frozenset(
        {"execute", "popen", "posix", "posix.unistd", "posix.spawn", "luv", "ffi", "subprocess"}
    ),
)
"""`vim.fn.system` and kin: Lua that Neovim runs (`nvim -l`, `:lua`)."""

R = Language(
    "r",
    Syntax(
        line_comments=("#",),
        name=r"`[^`\n]*`|[A-Za-z.][\w.]*(?::::?[A-Za-z.][\w.]*)?",
        prefixes=r"[rR](?=[\"'])",
    ),
    apis={
        "system": shell(0, "command"),
        "system2": Api("joined", key="command", rest=1, rest_key="args"),
        "shell": shell(0, "cmd"),
        "pipe": shell(0, "description"),
        "shell.exec": UNKNOWN,
        "processx::run": Api("argv", key="command", rest=1, count=1, rest_key="args"),
        "processx::process": UNKNOWN,
        "processx": UNKNOWN,
        "sys::exec_wait": argv(0, 1),
        "sys::exec_internal": argv(0, 1),
        "sys::exec_background": argv(0, 1),
        "sys": UNKNOWN,
        "parse": Api("eval", at=99, key="text"),
        "str2lang": EVAL,
        "str2expression": EVAL,
        "unlink": Api("remove", when="recursive", home=True),
        "fs::dir_delete": Api("remove", home=True),
        ".Internal": UNKNOWN,
        ".Call": UNKNOWN,
    },
    joins={"paste0": "", "paste": " "},
    lists=frozenset({"c", "list"}),
    getenv=frozenset({"Sys.getenv"}),
    strip=r"^`|`$|^(?:base|utils)::",
    indirect=frozenset({"system", "system2", "shell", "pipe", "processx", "sys"}),
)

JULIA = Language(
    "julia",
    Syntax(
        line_comments=("#",),
        block_comments=(("#=", "=#"),),
        nested=True,
        quotes='"',
        triple=True,
        command="`",
        name=r"[A-Za-z_][\w!]*(?:\.[A-Za-z_][\w!]*)*",
        char=r"'(?:\\[^']{1,8}|[^'\\\n])'",
        interpolation=("$(",),
        variables=r"\$[A-Za-z_]\w*",
    ),
    apis={
        "Cmd": argv(0, -1),
        "Base.Cmd": argv(0, -1),
        "Meta.parse": EVAL,
        "Meta.parseall": EVAL,
        "include_string": Api("eval", at=1),
        "ccall": UNKNOWN,
        "Libc.system": UNKNOWN,
        "rm": Api("remove", when="recursive"),
        "Base.rm": Api("remove", when="recursive"),
    },
    homes=frozenset({"homedir"}),
    getenv=frozenset({"ENV"}),
    words=True,
)
"""A command literal runs only when passed to `run`, `read`, `open`, `pipeline` and the like, but
rein checks every one where it is written."""

GNUPLOT = Language(
    "gnuplot",
    Syntax(line_comments=("#",), quotes='"', raw_quotes="'", command="`"),
    apis={"system": SHELL, "eval": EVAL, "evaluate": EVAL, "shell": UNKNOWN},
    concat=frozenset({"."}),
    mention=r"[`!|<]",
)
"""gnuplot's `system("cmd")` and `` `cmd` ``; its `!cmd` lines and `"| cmd"`/`"< cmd"` files are read
by the dialect."""
