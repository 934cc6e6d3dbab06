"""Where the interpreters of `_interp_spec_readers` take their program: which options hold code (`lua -e`,
`Rscript -e`, `emacs --eval`), which a program file (`emacs -l`, `racket -t`), which take the next word
as a value, and whether the first operand is a script and stdin is read when there is none."""

from __future__ import annotations

from dataclasses import dataclass


def _set(*names: str) -> frozenset[str]:
    return frozenset(names)


@dataclass(frozen=True, slots=True)
class Spec:
    """One interpreter's command line."""

    language: str
    code: frozenset[str] = frozenset()
    """Options whose value is program text (`-e CODE`, `--eval=CODE`, `-eCODE` for a short one)."""
    files: frozenset[str] = frozenset()
    """Options whose value is a program file read with the code."""
    values: frozenset[str] = frozenset()
    """Other options that take the next word as their value."""
    script: bool = True
    """The first operand is the program file (else operands are data: files to edit, to compile)."""
    stdin: bool = True
    """With no code, file or script, the program is read on standard input."""
    both: bool = False
    """Code and a script both run (`lua -e 'x=1' main.lua`)."""
    ends: frozenset[str] = frozenset()
    """Options after which every word is an argument of the program (`R --args`, `erl -extra`)."""
    stops: frozenset[str] = frozenset()
    """Options or subcommands with which it runs no program of its own (`swift build`, `java -jar`)."""
    quiet: frozenset[str] = frozenset()
    """Options with which it reads no program on stdin (`erl -noshell`)."""


_LUA = Spec("lua", code=_set("-e"), values=_set("-l", "-j"), both=True, stops=_set("-b"))
_TCL = Spec("tcl", values=_set("-encoding", "-display", "-geometry", "-name", "-use", "-visual", "-colormap"))
_JULIA = Spec(
    "julia",
    code=_set("-e", "--eval", "-E", "--print"),
    files=_set("-L", "--load"),
    values=_set(
        "-J",
        "--sysimage",
        "-p",
        "--procs",
        "-t",
        "--threads",
        "-C",
        "--cpu-target",
        "-H",
        "--home",
        "--machine-file",
        "--project",
        "--color",
        "--startup-file",
        "--history-file",
        "--depwarn",
    ),
)
_SCHEME = Spec(
    "scheme", code=_set("-c"), files=_set("-l", "-s"), values=_set("-e", "-L", "-C", "-x", "--language")
)
_ELIXIR = Spec(
    "elixir",
    code=_set("-e", "--eval"),
    files=_set("-r", "-pr"),
    values=_set(
        "-pa",
        "-pz",
        "--app",
        "--cookie",
        "--sname",
        "--name",
        "--boot",
        "--boot-var",
        "--erl",
        "--erl-config",
        "--vm-args",
        "--logger-otp-reports",
        "--logger-sasl-reports",
        "--rpc-eval",
    ),
    stops=_set("-S"),
)
_GROOVY = Spec(
    "groovy",
    code=_set("-e"),
    values=_set("-c", "--encoding", "-cp", "-classpath", "--classpath", "--configscript"),
)
_KOTLIN = Spec(
    "kotlin",
    code=_set("-e", "-expression"),
    files=_set("-script"),
    values=_set(
        "-cp",
        "-classpath",
        "-d",
        "-jvm-target",
        "-language-version",
        "-api-version",
        "-module-name",
        "-kotlin-home",
        "-opt-in",
        "-jdk-home",
        "-howtorun",
    ),
)
_LISP_VALUES = _set(
    "--core", "--dynamic-space-size", "--control-stack-size", "--userinit", "--sysinit", "--tls-limit"
)

SPECS: dict[str, Spec] = {
    **dict.fromkeys(("lua", "luajit", "lua5.1", "lua5.2", "lua5.3", "lua5.4", "texlua"), _LUA),
    **dict.fromkeys(("tclsh", "wish", "jimsh", "tclsh8.6", "tclsh9.0", "wish8.6", "wish9.0"), _TCL),
    "Rscript": Spec("r", code=_set("-e")),
    "R": Spec(
        "r",
        code=_set("-e"),
        files=_set("-f", "--file"),
        values=_set("-d", "--debugger", "-g", "--gui"),
        script=False,
        ends=_set("--args"),
        stops=_set("CMD"),
    ),
    "r": Spec("r", code=_set("-e", "--eval"), values=_set("-l", "--packages")),
    "julia": _JULIA,
    "osascript": Spec("applescript", code=_set("-e"), values=_set("-l", "-s")),
    **dict.fromkeys(("guile", "guile3.0", "guile2.2"), _SCHEME),
    **dict.fromkeys(
        ("chez", "scheme", "petite", "chibi-scheme", "gosh", "mit-scheme"),
        Spec("scheme", code=_set("-e", "--eval", "--script"), files=_set("-l", "--load")),
    ),
    "racket": Spec(
        "racket",
        code=_set("-e", "--eval"),
        files=_set("-f", "--load", "-t", "--require", "-r", "--script", "-u", "--require-script"),
        values=_set("-l", "--lib", "-I", "-S", "-A", "-N", "-X", "-G", "-W", "-L"),
    ),
    "sbcl": Spec(
        "lisp", code=_set("--eval"), files=_set("--load", "--script"), values=_LISP_VALUES, script=False
    ),
    "clisp": Spec(
        "lisp", code=_set("-x"), files=_set("-i"), values=_set("-M", "-m", "-L", "-E", "-K", "-B", "-p")
    ),
    "ecl": Spec(
        "lisp",
        code=_set("-eval", "--eval"),
        files=_set("-load", "--load", "-shell", "--shell"),
        values=_set("-dir", "-o", "-c", "-h"),
        script=False,
    ),
    **dict.fromkeys(
        ("ccl", "ccl64"),
        Spec(
            "lisp",
            code=_set("-e", "--eval"),
            files=_set("-l", "--load"),
            values=_set("-K", "-R", "-S", "-Z", "-I"),
            script=False,
        ),
    ),
    **dict.fromkeys(
        ("clojure", "clj"),
        Spec(
            "clojure",
            code=_set("-e", "--eval"),
            files=_set("-i", "--init"),
            values=_set("-Sdeps", "-Scp", "-Sthreads"),
            stops=_set("-m", "--main"),
        ),
    ),
    "bb": Spec(
        "clojure",
        code=_set("-e", "--eval"),
        files=_set("-f", "--file", "--init"),
        values=_set("-cp", "--classpath", "--config", "--deps-root"),
        stops=_set("-m", "--main", "-x", "--exec", "tasks", "run", "nrepl-server", "socket-repl", "repl"),
    ),
    "janet": Spec("janet", code=_set("-e"), values=_set("-l")),
    "fennel": Spec(
        "fennel", code=_set("-e", "--eval"), values=_set("--add-package-path", "--add-fennel-path")
    ),
    "elixir": _ELIXIR,
    "iex": Spec(
        "elixir", code=_ELIXIR.code, files=_ELIXIR.files, values=_ELIXIR.values, script=False, stdin=False
    ),
    "erl": Spec(
        "erlang", code=_set("-eval"), script=False, ends=_set("-extra"), quiet=_set("-noshell", "-noinput")
    ),
    "escript": Spec("erlang", stdin=False),
    "ghc": Spec(
        "haskell",
        code=_set("-e"),
        values=_set(
            "-o", "-odir", "-hidir", "-outputdir", "-package", "-package-db", "-package-id", "-x", "-main-is"
        ),
        script=False,
        stdin=False,
    ),
    "ghci": Spec(
        "haskell", code=_set("-e"), values=_set("-package", "-package-db", "-package-id"), script=False
    ),
    **dict.fromkeys(("runghc", "runhaskell"), Spec("haskell", values=_set("-f"))),
    "ocaml": Spec("ocaml", values=_set("-I", "-open", "-init", "-ppx", "-pp", "-plugin")),
    "groovy": _GROOVY,
    "groovysh": Spec("groovy", values=_GROOVY.values, script=False),
    **dict.fromkeys(
        ("scala", "scala-cli"),
        Spec(
            "scala",
            code=_set("-e", "--execute-script", "--execute-scala", "--execute-sc"),
            values=_set("-cp", "-classpath", "--classpath", "--server", "-S", "--scala-version"),
            stops=_set(
                "compile",
                "test",
                "package",
                "publish",
                "fmt",
                "doc",
                "setup-ide",
                "clean",
                "repl",
                "bsp",
                "export",
                "config",
                "version",
                "update",
                "install-completions",
            ),
        ),
    ),
    "amm": Spec("scala", code=_set("-c", "--code"), values=_set("-p", "--predef", "--home")),
    "kotlin": _KOTLIN,
    **dict.fromkeys(
        ("kotlinc", "kotlinc-jvm"),
        Spec(
            "kotlin", code=_KOTLIN.code, files=_KOTLIN.files, values=_KOTLIN.values, script=False, stdin=False
        ),
    ),
    "jshell": Spec(
        "java",
        values=_set(
            "--class-path",
            "--module-path",
            "--add-modules",
            "--add-exports",
            "--startup",
            "-R",
            "-J",
            "--feedback",
            "-C",
        ),
    ),
    "swift": Spec(
        "swift",
        code=_set("-e"),
        values=_set(
            "-I",
            "-L",
            "-F",
            "-module-name",
            "-sdk",
            "-target",
            "-Xcc",
            "-Xlinker",
            "-Xfrontend",
            "-j",
            "-module-cache-path",
        ),
        stdin=False,
        stops=_set("build", "test", "run", "package", "repl", "sdk", "format", "help"),
    ),
    "gnuplot": Spec("gnuplot", code=_set("-e"), files=_set("-c")),
    **dict.fromkeys(
        ("m4", "gm4"),
        Spec(
            "m4",
            values=_set(
                "-D",
                "--define",
                "-U",
                "--undefine",
                "-I",
                "--include",
                "-o",
                "--error-output",
                "--debugfile",
                "-l",
                "--arglength",
                "-t",
                "--trace",
                "-F",
                "--freeze-state",
                "-R",
                "--reload-state",
                "-H",
                "--hashsize",
            ),
        ),
    ),
    "dc": Spec("dc", code=_set("-e", "--expression"), files=_set("-f", "--file")),
    "fish": Spec(
        "fish",
        code=_set("-c", "--command", "-C", "--init-command"),
        values=_set("-p", "--profile", "-d", "--debug", "-o", "--debug-output", "--features"),
        stops=_set("-n", "--no-execute"),
    ),
    **dict.fromkeys(
        ("nu", "nushell"),
        Spec(
            "nu",
            code=_set("-c", "--commands", "-e", "--execute"),
            values=_set(
                "--config",
                "--env-config",
                "-I",
                "--include-path",
                "--log-level",
                "--log-target",
                "-m",
                "--table-mode",
                "--error-style",
                "--plugin-config",
                "--plugins",
                "--testbin",
            ),
        ),
    ),
    "xonsh": Spec("xonsh", code=_set("-c"), values=_set("--rc", "-D", "--shell-type", "-st")),
}
"""By command name. csh and tcsh, elvish, PowerShell, emacs, emacsclient, crystal and java read their
command lines their own way (`_interp_spec_readers`)."""
