"""How a command nests in each interpreter of `_interp_spec_readers` (and the POSIX shells added to `SHELLS`),
for `_examples.EXAMPLES`: the docs and the generated tests. A program that runs its command without a
shell runs `sh -c` for it, so `~` in the seed still means home."""

from __future__ import annotations

_EXAMPLES: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(
        ("lua", "luajit", "lua5.1", "lua5.2", "lua5.3", "lua5.4", "texlua"),
        ("{name} -e 'os.execute([[{cmd}]])'",),
    ),
    **dict.fromkeys(
        ("tclsh", "tclsh8.6", "tclsh9.0", "wish", "wish8.6", "wish9.0", "jimsh"),
        ("{name} <<< 'exec sh -c {{{cmd}}}'",),
    ),
    "Rscript": (
        "Rscript -e 'system(\"{cmd}\")'",
        'Rscript --vanilla -e \'system2("sh", c("-c", "\\"{cmd}\\""))\'',
    ),
    "R": ("R --vanilla -e 'system(\"{cmd}\")'", "R --no-save <<< 'system(\"{cmd}\")'"),
    "r": ("r -e 'system(\"{cmd}\")'",),
    "julia": ("julia -e 'run(`sh -c \"{cmd}\"`)'",),
    "osascript": ("osascript -e 'do shell script \"{cmd}\"'",),
    **dict.fromkeys(("emacs", "emacs-nox"), ("{name} --batch --eval '(shell-command \"{cmd}\")'",)),
    "emacsclient": ("emacsclient -e '(shell-command \"{cmd}\")'",),
    **dict.fromkeys(("guile", "guile2.2", "guile3.0"), ("{name} -c '(system \"{cmd}\")'",)),
    **dict.fromkeys(
        ("chez", "scheme", "petite", "chibi-scheme", "gosh", "mit-scheme", "racket"),
        ("{name} -e '(system \"{cmd}\")'",),
    ),
    "sbcl": ("sbcl --non-interactive --eval '(uiop:run-program \"{cmd}\")'",),
    "clisp": ("clisp -x '(ext:shell \"{cmd}\")'",),
    "ecl": ("ecl -eval '(si:system \"{cmd}\")'",),
    **dict.fromkeys(("ccl", "ccl64"), ('{name} -e \'(ccl:run-program "sh" (list "-c" "{cmd}"))\'',)),
    **dict.fromkeys(("clojure", "clj"), ('{name} -M -e \'(clojure.java.shell/sh "sh" "-c" "{cmd}")\'',)),
    "bb": ('bb -e \'(babashka.process/shell "sh" "-c" "{cmd}")\'',),
    "janet": ("janet -e '(os/shell \"{cmd}\")'",),
    "fennel": ("fennel -e '(os.execute \"{cmd}\")'",),
    **dict.fromkeys(("elixir", "iex"), ("{name} -e 'System.shell(\"{cmd}\")'",)),
    "erl": ("erl -noshell -eval 'os:cmd(\"{cmd}\"), halt().'",),
    "escript": ("printf 'main(_) -> os:cmd(\"{cmd}\").' > s.erl && escript s.erl",),
    "ghc": ("ghc -e 'System.Process.callCommand \"{cmd}\"'",),
    "ghci": ("ghci <<< ':! {cmd}'",),
    **dict.fromkeys(
        ("runghc", "runhaskell"), ("echo 'main = System.Process.callCommand \"{cmd}\"' | {name}",)
    ),
    "ocaml": ("ocaml <<< 'Sys.command \"{cmd}\";;'",),
    "groovy": ('groovy -e \'["sh", "-c", "{cmd}"].execute()\'',),
    "groovysh": ('groovysh <<< \'["sh", "-c", "{cmd}"].execute()\'',),
    **dict.fromkeys(
        ("scala", "scala-cli"), ('{name} -e \'import sys.process._; Seq("sh", "-c", "{cmd}").!\'',)
    ),
    "amm": ('amm -c \'os.proc("sh", "-c", "{cmd}").call()\'',),
    **dict.fromkeys(
        ("kotlin", "kotlinc", "kotlinc-jvm"), ('{name} -e \'ProcessBuilder("sh", "-c", "{cmd}").start()\'',)
    ),
    "java": (
        "printf 'class X {{ public static void main(String[] a) throws Exception {{ "
        'new ProcessBuilder("sh", "-c", "{cmd}").start(); }} }}\' > X.java && java X.java',
    ),
    "jshell": ('jshell <<< \'new ProcessBuilder("sh", "-c", "{cmd}").start()\'',),
    "swift": ("swift -e 'system(\"{cmd}\")'",),
    "crystal": ("crystal eval 'system \"{cmd}\"'",),
    "gnuplot": ("gnuplot -e 'system(\"{cmd}\")'", "gnuplot <<< '!{cmd}'"),
    **dict.fromkeys(("m4", "gm4"), ("{name} <<< 'syscmd({cmd})'",)),
    "dc": ("dc -e '!{cmd}'",),
    "lldb": ("lldb -o 'platform shell {cmd}'", "lldb --batch -o run -- {cmd}"),
    **dict.fromkeys(
        ("fish", "csh", "tcsh", "pwsh", "pwsh-preview", "powershell", "nu", "nushell", "elvish", "xonsh"),
        ("{name} -c {quoted}",),
    ),
    **dict.fromkeys(("yash", "posh", "oksh", "loksh", "lksh", "pdksh", "rbash"), ("{name} -c {quoted}",)),
}
EXAMPLES: dict[str, tuple[str, ...]] = {
    name: tuple(template.replace("{name}", name) for template in templates)
    for name, templates in _EXAMPLES.items()
}
"""By command name, in `_examples.EXAMPLES`'s placeholders (`{cmd}`, `{quoted}`)."""
