"""The foreign shells' syntax (`Dialect`) and their words that run nothing: builtins whose arguments are
data (fish's `set`, `string`; nushell's `where`, `print`; elvish's `put`) and keywords that open or
close a block (`end`, `endif`, `foreach`), whose body is read as statements of its own."""

from __future__ import annotations

from rein.steering.bash.launch.shells._lex import Dialect

FISH = Dialect(
    "fish",
    substs=("$(", "("),
    redirects={
        ">": ">", ">>": ">>", "<": "<", "2>": "2>", "2>>": "2>>", "&>": "&>", "&>>": "&>>", ">?": ">",
        "2>&1": "2>&1", ">&2": ">&2", "1>&2": ">&2", "2>&-": "", "<?": "<",
    },
    operators=("&&", "||", "&|", "|", "&"),
)  # fmt: skip
CSH = Dialect(
    "csh",
    single="raw",
    double_escape="",
    substs=("`",),
    redirects={">": ">", ">>": ">>", ">&": "&>", ">>&": "&>>", ">!": ">|", ">&!": "&>", "<": "<", "<<": ""},
    operators=("&&", "||", "|&", "|", "&", "(", ")"),
)  # fmt: skip
POWERSHELL = Dialect(
    "powershell",
    single="doubled",
    double_escape="`",
    escape="`",
    substs=("$(", "@(", "("),
    blocks=True,
    lists=True,
    redirects={
        ">": ">", ">>": ">>", "2>": "2>", "2>>": "2>>", "2>&1": "2>&1", "*>": "&>", "*>>": "&>>",
        "3>": "", "4>": "", "5>": "", "6>": "",
    },
    operators=("&&", "||", "|", "&"),
    block_comment=("<#", "#>"),
)  # fmt: skip
NU = Dialect(
    "nu",
    single="raw",
    double_vars=False,
    escape="",
    substs=("(",),
    blocks=True,
    lists=True,
    redirects={
        "o>": ">", "out>": ">", "e>": "2>", "err>": "2>", "o+e>": "&>", "out+err>": "&>", "o>>": ">>",
        "out>>": ">>", "e>>": "2>>", "err>>": "2>>", "o+e>>": "&>>", "out+err>>": "&>>",
    },
    operators=("|",),
)  # fmt: skip
ELVISH = Dialect(
    "elvish",
    single="doubled",
    double_vars=False,
    escape="",
    substs=("(",),
    blocks=True,
    lists=True,
    redirects={">": ">", ">>": ">>", "<": "<"},
    operators=("|",),
)

FISH_PREFIXES = frozenset(
    {"and", "or", "not", "!", "if", "while", "else", "begin", "command", "builtin", "time"}
)
FISH_DATA = frozenset({
    "end", "break", "continue", "return", "case", "switch", "for", "function", "set", "set_color", "string",
    "math", "count", "contains", "printf", "echo", "status", "functions", "type", "read", "argparse", "abbr",
    "bind", "complete", "commandline", "emit", "history", "random", "realpath", "path", "true", "false",
    "test", "[", "exit", "fish_add_path", "isatty", "block", "jobs", "wait", "disown", "pwd", "dirh",
    "prevd", "nextd", "cdh", "fish_prompt", "fish_greeting",
})  # fmt: skip
CSH_DATA = frozenset({
    "set", "setenv", "unset", "unsetenv", "@", "echo", "printf", "umask", "limit", "unlimit", "rehash",
    "unhash", "history", "dirs", "jobs", "exit", "logout", "breaksw", "endsw", "endif", "end", "default:",
    "case", "switch", "foreach", "while", "goto", "onintr", "shift", "glob", "hashstat", "unalias", "else",
    "then", "bindkey", "complete", "uncomplete", "sched", "settc", "setty", "telltc", "which", "where",
})  # fmt: skip
CSH_PREFIXES = frozenset({"time", "nohup", "noglob"})
POWERSHELL_KEYWORDS = frozenset({
    "if", "elseif", "else", "while", "for", "foreach", "do", "until", "switch", "try", "catch", "finally",
    "function", "filter", "param", "return", "throw", "break", "continue", "exit", "trap", "class", "enum",
    "using", "begin", "process", "end", "data", "dynamicparam", "workflow", "configuration",
})  # fmt: skip
POWERSHELL_RUNNERS = frozenset({
    "invoke-expression", "iex", "start-process", "saps", "start", "invoke-command", "icm", "start-job",
    "sajb", "start-threadjob", "invoke-item", "ii",
})  # fmt: skip
POWERSHELL_REMOVE = frozenset({"remove-item", "ri", "del", "erase", "rd", "rmdir"})
POWERSHELL_CD = frozenset({"set-location", "sl", "cd", "chdir", "push-location", "pushd"})
POWERSHELL_DATA = frozenset({
    "echo", "write", "gci", "dir", "gc", "type", "select", "measure", "fl", "ft", "fw", "gm", "gl", "gps",
    "gsv", "cls", "clear", "h", "history", "ni", "md", "mkdir", "copy", "cpi", "move", "mi", "ren", "rni",
    "irm", "iwr", "sc", "ac", "clc", "clv", "gv", "sv", "set", "gcm", "gal", "oh", "group", "epcsv",
    "ipcsv", "%", "foreach", "?", "where", "popd", "pop-location", "exit", "return", "sleep", "param",
})  # fmt: skip
"""Aliases of cmdlets whose arguments are data (any other `Verb-Noun` cmdlet is data too)."""
NU_DATA = frozenset({
    "let", "mut", "const", "def", "export", "use", "source", "source-env", "overlay", "module", "alias",
    "if", "else", "for", "while", "loop", "match", "try", "catch", "return", "break", "continue", "where",
    "each", "par-each", "print", "echo", "ls", "open", "save", "get", "select", "reject", "sort-by",
    "group-by", "first", "last", "skip", "take", "length", "str", "into", "from", "to", "math", "http",
    "date", "describe", "lines", "split", "parse", "table", "update", "upsert", "insert", "append",
    "prepend", "wrap", "flatten", "uniq", "reverse", "reduce", "filter", "any", "all", "is-empty",
    "default", "compact", "columns", "values", "transpose", "merge", "zip", "enumerate", "range",
    "format", "fill", "char", "ansi", "hash", "encode", "decode", "url", "path", "sys", "ps", "which",
    "help", "version", "hide", "hide-env", "load-env", "with-env", "error", "do", "complete", "glob",
    "du", "sleep", "input", "clear", "exit", "null", "true", "false", "seq", "random", "stor", "query",
    "to-json", "debug", "metadata", "tee", "items", "group", "histogram", "window", "chunks", "headers",
    "rename", "move", "drop", "nu-check", "view", "explore", "term", "watch", "job",
})  # fmt: skip
"""nushell's builtins whose arguments are data; an external command, and `rm`, `cp`, `mv`, `mkdir`,
`cd`, `touch`, `kill`, are checked (bash's commands of those names do the same)."""
ELVISH_DATA = frozenset({
    "var", "set", "tmp", "del", "fn", "if", "elif", "else", "for", "while", "try", "catch", "finally",
    "each", "peach", "put", "echo", "print", "pprint", "repr", "count", "nop", "fail", "return", "break",
    "continue", "use", "keys", "has-key", "has-value", "range", "take", "drop", "all", "one", "order",
    "compare", "eq", "not-eq", "==", "!=", "<", ">", "<=", ">=", "+", "-", "*", "/", "%", "not", "and",
    "or", "to-string", "to-lines", "from-lines", "from-json", "to-json", "slurp", "read-line", "sleep",
    "pwd", "exit", "make-map", "ns", "assoc", "dissoc", "conj", "coalesce", "bool", "num", "exact-num",
    "inexact-num", "styled", "styled-segment", "show", "from-terminated", "to-terminated", "read-upto",
    "constantly", "call", "resolve", "kind-of", "is", "deprecate", "src", "-gc", "-log",
})  # fmt: skip
