"""The readers of the languages `launch.launches` does not list: Lua, Tcl, R, Julia, AppleScript and
JXA, the Lisps, Elixir, Erlang, Haskell, OCaml, the JVM languages, Swift, Crystal, gnuplot, m4, dc,
and the shells that are not bash. `read(language, text, env)` is their `launches`; each reader is
imported on first use."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping

from rein.steering.bash.launch._launch import Launch

Named = Callable[[str, str, Mapping[str, str]], tuple[Launch, ...]]
Reader = Callable[[str, Mapping[str, str]], tuple[Launch, ...]]

_LEXICAL = frozenset({
    "lua", "r", "julia", "groovy", "java", "kotlin", "scala", "swift", "jxa", "elixir", "erlang", "haskell",
    "ocaml", "crystal", "gnuplot", "elisp", "scheme", "racket", "lisp", "clojure", "janet", "fennel",
})  # fmt: skip
_SHELLS = frozenset({"fish", "csh", "powershell", "nu", "elvish", "xonsh"})
_OWN = frozenset({"tcl", "applescript", "m4", "dc", "lldb"})
LANGUAGES = _LEXICAL | _SHELLS | _OWN


def read(language: str, text: str, env: Mapping[str, str]) -> tuple[Launch, ...]:
    """What `text`, a program in `language`, launches. Never raises: a reader's failure is one
    unknown launch."""
    try:
        if language in _LEXICAL or language in _SHELLS:
            package = "lexical" if language in _LEXICAL else "shells"
            named: Named = importlib.import_module(f"{__package__}.{package}").read
            return named(language, text, env)
        if language in _OWN:
            reader: Reader = importlib.import_module(f"{__package__}.{language}").read
            return reader(text, env)
    except RecursionError:
        return (Launch(api=language, unknown=f"the {language} program nests too deeply to read"),)
    except Exception as error:  # a reader's bug must not let the command through: fail closed
        return (Launch(api=language, unknown=f"reading the {language} program failed: {error!r}"),)
    return (Launch(api=language, unknown=f"rein cannot read {language} programs"),)
