"""The command names `_interp_spec_readers` reads, and the language each runs: all a hook needs until it meets
one (the option readers are imported on first use)."""

from __future__ import annotations

LANGUAGES: dict[str, str] = {
    "osascript": "applescript", "bb": "clojure", "clj": "clojure", "clojure": "clojure",
    "crystal": "crystal", "csh": "csh", "tcsh": "csh", "dc": "dc", "emacs": "elisp", "emacs-nox": "elisp",
    "emacsclient": "elisp", "elixir": "elixir", "iex": "elixir", "elvish": "elvish", "erl": "erlang",
    "escript": "erlang", "fennel": "fennel", "fish": "fish", "gnuplot": "gnuplot", "groovy": "groovy",
    "groovysh": "groovy", "ghc": "haskell", "ghci": "haskell", "runghc": "haskell",
    "runhaskell": "haskell", "janet": "janet", "java": "java", "jshell": "java", "julia": "julia",
    "kotlin": "kotlin", "kotlinc": "kotlin", "kotlinc-jvm": "kotlin", "ccl": "lisp", "ccl64": "lisp",
    "clisp": "lisp", "ecl": "lisp", "sbcl": "lisp", "lldb": "lldb", "lua": "lua", "lua5.1": "lua",
    "lua5.2": "lua", "lua5.3": "lua", "lua5.4": "lua", "luajit": "lua", "texlua": "lua", "gm4": "m4",
    "m4": "m4", "nu": "nu", "nushell": "nu", "ocaml": "ocaml", "powershell": "powershell",
    "pwsh": "powershell", "pwsh-preview": "powershell", "R": "r", "Rscript": "r", "r": "r",
    "racket": "racket", "amm": "scala", "scala": "scala", "scala-cli": "scala", "chez": "scheme",
    "chibi-scheme": "scheme", "gosh": "scheme", "guile": "scheme", "guile2.2": "scheme",
    "guile3.0": "scheme", "mit-scheme": "scheme", "petite": "scheme", "scheme": "scheme", "swift": "swift",
    "jimsh": "tcl", "tclsh": "tcl", "tclsh8.6": "tcl", "tclsh9.0": "tcl", "wish": "tcl", "wish8.6": "tcl",
    "wish9.0": "tcl", "xonsh": "xonsh",
}  # fmt: skip
NAMES = frozenset(LANGUAGES)
