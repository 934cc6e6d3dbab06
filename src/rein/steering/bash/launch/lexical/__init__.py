"""Languages rein reads by their tokens, not a grammar: Lua, R, Julia, Groovy, Java, Kotlin, Scala,
Swift, JavaScript for Automation, Elixir, Erlang, Haskell (and GHCi's `:!`), OCaml, Crystal, gnuplot
and the Lisps. `read(language, text, env)` returns what the program launches, as every reader in
`launch` does; a language it does not know is one unknown launch."""

from __future__ import annotations

import re
from collections.abc import Mapping

from rein.steering.bash.launch._folding import unknown_launch
from rein.steering.bash.launch._launch import Launch
from rein.steering.bash.launch.lexical import _functional, _jvm, _lisps, _tables
from rein.steering.bash.launch.lexical._apis import Language
from rein.steering.bash.launch.lexical._reader import read as read_language
from rein.steering.bash.launch.lexical._words import command_words

LANGUAGES: Mapping[str, Language] = {
    language.name: language
    for language in (
        _tables.LUA, _tables.R, _tables.JULIA, _jvm.GROOVY, _jvm.JAVA, _jvm.KOTLIN, _jvm.SCALA,
        _jvm.SWIFT, _jvm.JXA, _functional.ELIXIR, _functional.ERLANG, _functional.HASKELL, _functional.OCAML,
        _jvm.CRYSTAL, _tables.GNUPLOT, _lisps.ELISP, _lisps.SCHEME, _lisps.RACKET, _lisps.COMMON_LISP,
        _lisps.CLOJURE, _lisps.JANET, _lisps.FENNEL,
    )
}  # fmt: skip

_GHCI = re.compile(r"^[ \t]*:(!|cmd\b|def\b|script\b|shell\b|load\b|l\b)(.*)$", re.MULTILINE)
"""GHCi's commands: `:! cmd` runs a shell command, `:cmd`/`:def` run code that makes commands."""
_JULIA_CMD = re.compile(r'@cmd\s*\(?\s*"((?:\\.|[^"\\])*)"')
"""`@cmd "git push"`: the macro behind `` `...` ``."""
_GNUPLOT_BANG = re.compile(r"^[ \t]*!(.*)$", re.MULTILINE)
_GNUPLOT_PIPE = re.compile(r"""(["'])\s*([<|])\s*((?:(?!\1).)*)\1""")
"""A file name gnuplot opens as a pipe: `plot "< cmd"`, `set output "| cmd"`."""
_GNUPLOT_FILES = re.compile(
    r"\s*(?:s?p(?:l(?:ot?)?)?|rep(?:l(?:ot?)?)?|fit|stats|load|l|call|"
    r"set\s+(?:o(?:u(?:t(?:p(?:ut?)?)?)?)?|pr(?:i(?:nt?)?)?|tab(?:le?)?))\b"
)
"""The commands whose file names may be pipes."""


def read(language: str, text: str, env: Mapping[str, str]) -> tuple[Launch, ...]:
    known = LANGUAGES.get(language)
    if known is None:
        return (unknown_launch(language, f"rein cannot read {language} programs", 0),)
    found: list[Launch] = []
    if language == "haskell":
        text = _ghci(text, found)
    elif language == "gnuplot":
        text = _gnuplot(text, found)
    elif language == "julia":
        for match in _JULIA_CMD.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append(command_words("@cmd", match[1].replace('\\"', '"'), line))
    return (*found, *read_language(known, text, env))


def _ghci(text: str, found: list[Launch]) -> str:
    for match in _GHCI.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        if match[1] == "!":
            found.append(Launch(api="ghci :!", shell=match[2].strip(), line=line))
        elif match[1] not in ("load", "l"):
            found.append(
                unknown_launch(f":{match[1]}", f"GHCi's :{match[1]} runs code rein does not read", line)
            )
    return _GHCI.sub("", text)


def _gnuplot(text: str, found: list[Launch]) -> str:
    for match in _GNUPLOT_BANG.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        found.append(Launch(api="gnuplot !", shell=match[1].strip(), line=line))
    text = _GNUPLOT_BANG.sub("", text)
    for number, statement in enumerate(text.split("\n"), start=1):
        for part in statement.split(";"):
            if not _GNUPLOT_FILES.match(part):
                continue
            for match in _GNUPLOT_PIPE.finditer(part):
                if match[3].strip():
                    found.append(Launch(api=f"gnuplot '{match[2]} cmd'", shell=match[3].strip(), line=number))
    return text


__all__ = ["LANGUAGES", "Language", "read"]
