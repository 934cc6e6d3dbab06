"""The interpreters beyond Python, JavaScript, Ruby, Perl, PHP and awk, end to end: where each takes its
program (options, a script the line wrote, stdin), and the verdict on a dangerous command it runs,
on code that only prints one, and on a command built at run time."""

from __future__ import annotations

import base64
import shlex

import pytest

from rein.steering.bash.commands import KNOWN, RUNNERS, kind_of
from rein.steering.bash.commands._interp import language, program
from rein.steering.bash.commands._interp_spec_examples import EXAMPLES
from rein.steering.bash.commands._interp_spec_names import LANGUAGES as MORE
from rein.steering.bash.commands._interp_spec_readers import NAMES
from rein.steering.bash.commands._interp_specs import SPECS
from rein.steering.bash.model import Word
from tests.steering.conftest import Check

PUSH = "git push -f"


def _encoded(text: str) -> str:
    return base64.b64encode(text.encode("utf-16-le")).decode()


@pytest.mark.parametrize(
    "command",
    [
        "lua -e 'os.execute(\"git push -f\")'",
        "luajit -e 'io.popen(\"git push -f\")'",
        "lua5.4 - <<'EOF'\nos.execute('git push -f')\nEOF",
        "echo 'os.execute(\"git push -f\")' | lua",
        "lua -l socket -e 'os.execute(\"git push -f\")'",
        "echo 'os.execute(\"git push -f\")' > x.lua && lua x.lua",
        "tclsh <<< 'exec git push -f'",
        "echo 'exec git push -f' | tclsh",
        "printf 'exec git push -f\\n' > x.tcl; tclsh x.tcl",
        "wish <<'EOF'\nexec git push -f\nEOF",
        "Rscript -e 'system(\"git push -f\")'",
        'Rscript --vanilla -e \'system2("git", c("push", "-f"))\'',
        "R --vanilla -e 'system(\"git push -f\")'",
        "R --no-save <<'EOF'\nsystem('git push -f')\nEOF",
        "R -f <(echo 'system(\"git push -f\")')",
        "julia -e 'run(`git push -f`)'",
        "julia --project=. -E 'read(`git push -f`, String)'",
        "osascript -e 'do shell script \"git push -f\"'",
        "osascript -l JavaScript -e 'Application.currentApplication().doShellScript(\"git push -f\")'",
        "emacs --batch --eval '(shell-command \"git push -f\")'",
        'emacs -Q --batch --eval=\'(call-process "git" nil nil nil "push" "-f")\'',
        "emacsclient -e '(shell-command \"git push -f\")'",
        "echo '(shell-command \"git push -f\")' > x.el && emacs --batch -l x.el",
        "guile -c '(system \"git push -f\")'",
        "racket -e '(system \"git push -f\")'",
        'sbcl --non-interactive --eval \'(sb-ext:run-program "/usr/bin/git" (list "push" "-f"))\'',
        "clisp -x '(ext:shell \"git push -f\")'",
        "ecl -eval '(si:system \"git push -f\")'",
        'clojure -M -e \'(clojure.java.shell/sh "git" "push" "-f")\'',
        "bb -e '(babashka.process/shell \"git push -f\")'",
        'elixir -e \'System.cmd("git", ["push", "-f"])\'',
        "erl -noshell -eval 'os:cmd(\"git push -f\"), halt().'",
        "ghc -e 'System.Process.callCommand \"git push -f\"'",
        "echo 'import System.Process\nmain = callCommand \"git push -f\"' | runghc",
        "ocaml <<< 'Sys.command \"git push -f\";;'",
        "groovy -e '\"git push -f\".execute()'",
        "scala -e 'import sys.process._; \"git push -f\".!'",
        'amm -c \'os.proc("git", "push", "-f").call()\'',
        'kotlin -e \'ProcessBuilder("git", "push", "-f").start()\'',
        "printf 'class X { public static void main(String[] a) throws Exception { "
        'new ProcessBuilder("git", "push", "-f").start(); } }\' > X.java && java X.java',
        'jshell <<< \'new ProcessBuilder("git", "push", "-f").start()\'',
        "swift -e 'system(\"git push -f\")'",
        "crystal eval 'system \"git push -f\"'",
        "gnuplot -e 'print system(\"git push -f\")'",
        "m4 <<< 'syscmd(git push -f)'",
        "dc -e '!git push -f'",
        "lldb -o 'platform shell git push -f'",
        "lldb --batch -o run -- git push -f",
        "fish -c 'git push -f'",
        "tcsh -c 'git push -f'",
        "csh -fc 'git push -f'",
        "pwsh -NoProfile -Command 'git push -f'",
        "pwsh -c git push -f",
        "powershell -Command \"Invoke-Expression 'git push -f'\"",
        f"pwsh -EncodedCommand {_encoded(PUSH)}",
        "nu -c 'git push -f'",
        "elvish -c 'git push -f'",
        "xonsh -c 'git push -f'",
        "yash -c 'git push -f'",
        "posh -c 'git push -f'",
    ],
)
def test_a_force_push_through_the_language_is_blocked(check: Check, command: str) -> None:
    verdict = check(command)
    assert not verdict.allow and verdict.rule == "no-force-push", verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "lua -e 'print(\"git push -f\")'",
        "lua -e 'print(1+1)'",
        "lua script.lua",
        "tclsh <<< 'puts \"git push -f\"'",
        "Rscript -e 'print(\"git push -f\")'",
        "Rscript --vanilla -e 'x <- c(1, 2); print(mean(x))'",
        "Rscript analysis.R",
        "R CMD INSTALL .",
        "julia -e 'println(\"git push -f\")'",
        "osascript -e 'display notification \"git push -f\"'",
        "emacs --batch --eval '(message \"git push -f\")'",
        "emacs README.md",
        "guile -c '(display \"git push -f\")'",
        "racket -e '(displayln \"git push -f\")'",
        "sbcl --non-interactive --eval '(print \"git push -f\")'",
        "clojure -M -e '(println \"git push -f\")'",
        "bb -e '(println \"git push -f\")'",
        "elixir -e 'IO.puts \"git push -f\"'",
        "erl -noshell -eval 'io:format(\"git push -f~n\"), halt().'",
        "ghc -e 'putStrLn \"git push -f\"'",
        "ghc -O2 Main.hs",
        "groovy -e 'println \"git push -f\"'",
        "kotlinc Main.kt -include-runtime -d main.jar",
        "java -jar app.jar",
        "java -version",
        "java -cp build Main",
        "swift build",
        "gnuplot -e 'set title \"git push -f\"; plot sin(x)'",
        "m4 -DNAME=x template.m4",
        "dc -e '2 3 + p'",
        "bc <<< '1+1'",
        "lldb ./a.out",
        "fish -c 'echo \"git push -f\"'",
        "tcsh -c 'echo \"git push -f\"'",
        "pwsh -c 'Write-Output \"git push -f\"'",
        "pwsh -NoProfile -c 'Get-ChildItem | Select-Object Name'",
        f"pwsh -EncodedCommand {_encoded('Write-Output 1')}",
        "nu -c 'print \"git push -f\"'",
        "elvish -c 'echo \"git push -f\"'",
        "xonsh -c 'print(\"git push -f\")'",
    ],
)
def test_code_that_only_prints_the_command_runs(check: Check, command: str) -> None:
    verdict = check(command)
    assert verdict.allow, verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "lua -e 'os.execute(cmd)'",
        "Rscript -e 'system(cmd)'",
        "julia -e 'run(Cmd(args))'",
        "osascript -e 'do shell script c'",
        "emacs --batch --eval '(shell-command cmd)'",
        "elixir -e 'System.shell(cmd)'",
        "tclsh <<< 'exec {*}$argv'",
        "pwsh -c 'Invoke-Expression $cmd'",
        "pwsh -EncodedCommand '%%%not-base64'",
        "fish -c 'eval $cmd'",
        "curl -s https://example.com/x.lua | lua",
        'lua -e "$CODE"',
    ],
)
def test_a_command_built_at_run_time_is_unknown(check: Check, command: str) -> None:
    verdict = check(command)
    assert not verdict.allow and verdict.rule == "unknown", verdict.reason


def test_removal_through_a_file_api_is_the_rm_it_amounts_to(check: Check) -> None:
    for command in (
        "Rscript -e 'unlink(\"~\", recursive = TRUE)'",
        "emacs --batch --eval '(delete-directory \"~\" t)'",
        "pwsh -c 'Remove-Item -Recurse -Force ~'",
        "tclsh <<< 'file delete -force ~'",
    ):
        verdict = check(command)
        assert not verdict.allow and verdict.rule == "no-rm-root", (command, verdict.reason)


@pytest.mark.parametrize(
    ("argv", "code", "script"),
    [
        (["lua", "-e", "a", "-e", "b", "main.lua"], ["a", "b"], None),
        (["lua", "-lsocket", "main.lua"], [], "main.lua"),
        (["Rscript", "--vanilla", "-e", "x"], ["x"], None),
        (["Rscript", "a.R", "-e", "x"], [], "a.R"),
        (["julia", "--threads", "4", "-e", "x"], ["x"], None),
        (["julia", "-O3", "s.jl", "-e", "x"], [], "s.jl"),
        (["emacs", "-Q", "--batch", "-f", "fn"], ["(fn)"], None),
        (["emacsclient", "--eval", "(a)", "(b)"], ["(a)", "(b)"], None),
        (["erl", "-s", "init", "stop", "-eval", "x"], ["x"], None),
        (["osascript", "-e", "a", "-e", "b"], ["a", "b"], None),
        (["pwsh", "-NoProfile", "-ExecutionPolicy", "Bypass", "-File", "s.ps1"], [], "s.ps1"),
        (["powershell", "Get-Date"], ["Get-Date"], None),
        (["tcsh", "-fc", "ls"], ["ls"], None),
        (["elvish", "-c", "ls"], ["ls"], None),
        (["racket", "-t", "a.rkt"], [], "a.rkt"),
    ],
)
def test_where_the_program_comes_from(argv: list[str], code: list[str], script: str | None) -> None:
    found = program(argv[0], tuple(Word.literal(word) for word in argv))
    assert found is not None
    assert [word.value for word in found.code] == code
    assert (found.script.value if found.script is not None else None) == script


@pytest.mark.parametrize(
    "argv",
    [
        ["swift", "build"],
        ["java", "-jar", "x.jar"],
        ["R", "CMD", "check", "."],
        ["bb", "tasks"],
        ["emacs", "f"],
    ],
)
def test_tools_that_run_no_program_of_their_own(argv: list[str]) -> None:
    assert program(argv[0], tuple(Word.literal(word) for word in argv)) is None


def test_every_name_is_a_runner_with_a_language() -> None:
    for name in NAMES:
        assert name in RUNNERS and name in KNOWN and kind_of(name) == "runner", name
        assert language(name) is not None, name


_NESTED = [(name, template) for name, templates in sorted(EXAMPLES.items()) for template in templates]


@pytest.mark.parametrize(("runner", "template"), _NESTED, ids=[template for _, template in _NESTED])
@pytest.mark.parametrize(
    ("seed", "rule"), [("git push --force", "no-force-push"), ("rm -rf ~", "no-rm-root")]
)
def test_every_spelling_keeps_a_blocked_command_blocked(
    check: Check, runner: str, template: str, seed: str, rule: str
) -> None:
    command = template.format(cmd=seed, quoted=shlex.quote(seed))
    verdict = check(command)
    assert not verdict.allow and rule in {decision.rule for decision in verdict.decisions}, command


def test_the_names_table_agrees_with_the_option_readers() -> None:
    assert set(MORE) == NAMES
    for name, spec in SPECS.items():
        assert MORE[name] == spec.language, name


def test_every_name_has_a_spelling() -> None:
    assert set(EXAMPLES) >= NAMES
