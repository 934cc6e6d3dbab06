"""The languages read by their tokens: Lua, R, Julia, the JVM languages, Swift, JXA, Elixir, Erlang,
Haskell, OCaml, Crystal and gnuplot. A literal command through a process API is that command; a
string that is only printed is data; an argument built at run time, an API passed on as a value or
named in a string is unknown."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rein.steering.bash.launch import RUNTIME, Launch
from rein.steering.bash.launch.lexical import LANGUAGES, read
from rein.steering.bash.launch.lexical._lex import Syntax, tokenize

PUSH = "git push -f"


def launches(language: str, code: str, env: dict[str, str] | None = None) -> tuple[Launch, ...]:
    return read(language, code, env or {})


def shown(launch: Launch) -> str:
    """A launch as the command line it runs (an argv joined by blanks)."""
    if launch.shell is not None:
        return launch.shell
    return " ".join("?" if arg is None else arg for arg in launch.argv)


@pytest.mark.parametrize(
    ("language", "code", "expected"),
    [
        # Lua
        ("lua", 'os.execute("git push -f")', PUSH),
        ("lua", "os.execute 'git push -f'", PUSH),
        ("lua", "os.execute[[git push -f]]", PUSH),
        ("lua", 'local f = io.popen([==[git push -f]==]); print(f:read("*a"))', PUSH),
        ("lua", 'os.execute("git " .. "push" .. " -f")', PUSH),
        ("lua", 'os.execute("git\\tpush\\x20-f")', "git\tpush -f"),
        ("lua", 'load("os.execute(\\"git push -f\\")")()', PUSH),
        ("lua", 'local o = os; o.execute("git push -f")', PUSH),
        ("lua", 'vim.fn.system("git push -f")', PUSH),
        ("lua", 'posix.exec("/usr/bin/git", {"push", "-f"})', "/usr/bin/git push -f"),
        # R
        ("r", 'system("git push -f")', PUSH),
        ("r", "system('git push -f', intern = TRUE)", PUSH),
        ("r", 'system(command = "git push -f")', PUSH),
        ("r", 'system2("git", c("push", "-f"))', PUSH),
        ("r", 'system2("git", args = c("push", "-f"), stdout = TRUE)', PUSH),
        ("r", 'base::system(paste("git", "push", "-f"))', PUSH),
        ("r", 'system(paste0("git push", " -f"))', PUSH),
        ("r", '`system`("git push -f")', PUSH),
        ("r", 'readLines(pipe("git push -f"))', PUSH),
        ("r", 'processx::run("git", c("push", "-f"))', PUSH),
        ("r", 'eval(parse(text = "system(\'git push -f\')"))', PUSH),
        ("r", 'unlink("~", recursive = TRUE)', "rm -rf $HOME"),
        ("r", 'unlink("/tmp/x/*", recursive = TRUE)', "rm -rf /tmp/x/*"),
        # Julia
        ("julia", "run(`git push -f`)", PUSH),
        ("julia", "read(`git push -f`, String)", PUSH),
        ("julia", "run(pipeline(`git push -f`, stdout=devnull))", PUSH),
        ("julia", 'run(Cmd(["git", "push", "-f"]))', PUSH),
        ("julia", "run(`sh -c 'git push -f'`)", "sh -c git push -f"),
        ('julia', 'println("$(read(`git push -f`, String))")', PUSH),
        ("julia", 'eval(Meta.parse("run(`git push -f`)"))', PUSH),
        ("julia", 'rm(homedir(); recursive=true)', "rm -rf $HOME"),
        ("julia", 'run(@cmd "git push -f")', PUSH),
        # the JVM languages, Swift, JXA
        ("groovy", '"git push -f".execute()', PUSH),
        ("groovy", "'git push -f'.execute().waitFor()", PUSH),
        ("groovy", '["git", "push", "-f"].execute()', PUSH),
        ("groovy", 'Eval.me("\'git push -f\'.execute()")', PUSH),
        ("java", 'new ProcessBuilder("git", "push", "-f").inheritIO().start();', PUSH),
        ("java", 'new ProcessBuilder(List.of("git", "push", "-f")).start();', PUSH),
        ("java", 'Runtime.getRuntime().exec("git push -f");', PUSH),
        ("kotlin", 'ProcessBuilder(listOf("git", "push", "-f")).start()', PUSH),
        ("scala", 'import sys.process._; "git push -f".!', PUSH),
        ("scala", 'import sys.process._; Seq("git", "push", "-f").!!', PUSH),
        ("scala", 'import sys.process._; Process("git push -f").!', PUSH),
        ("scala", 'os.proc("git", "push", "-f").call()', PUSH),
        ("swift", 'import Glibc\nsystem("git push -f")', PUSH),
        ("jxa", 'var app = Application.currentApplication()\napp.includeStandardAdditions = true\n'
                'app.doShellScript("git push -f")', PUSH),
        ("jxa", 'Application("Terminal").doScript("git push -f")', PUSH),
        ("jxa", "ObjC.import('stdlib'); $.system('git push -f')", PUSH),
        # BEAM, ML, Crystal, gnuplot
        ("elixir", 'System.cmd("git", ["push", "-f"])', PUSH),
        ("elixir", 'System.cmd "git", ["push", "-f"]', PUSH),
        ("elixir", ':os.cmd(~c"git push -f")', PUSH),
        ("elixir", ":os.cmd('git push -f')", PUSH),
        ("elixir", 'System.shell("git " <> "push -f")', PUSH),
        ("elixir", 'File.rm_rf!(System.user_home())', "rm -rf $HOME"),
        ("erlang", 'os:cmd("git push -f"), halt().', PUSH),
        ("erlang", 'os:cmd("git " ++ "push -f").', PUSH),
        ("haskell", 'import System.Process\nmain = callCommand "git push -f"', PUSH),
        ("haskell", 'callProcess "git" ["push", "-f"]', PUSH),
        ("haskell", 'system $ "git push" ++ " -f"', PUSH),
        ("haskell", 'readProcess "git" ["push", "-f"] ""', PUSH),
        ("haskell", ":! git push -f", PUSH),
        ("ocaml", 'let _ = Sys.command "git push -f"', PUSH),
        ("ocaml", 'let _ = Sys.command ("git push" ^ " -f")', PUSH),
        ("ocaml", 'Unix.execvp "git" [|"git"; "push"; "-f"|]', PUSH),
        ("ocaml", 'let _ = Unix.open_process_in {|git push -f|}', PUSH),
        ("crystal", 'system "git push -f"', PUSH),
        ("crystal", 'puts `git push -f`', PUSH),
        ("crystal", 'Process.run("git", ["push", "-f"])', PUSH),
        ("crystal", 'Process.run("git push -f", shell: true)', PUSH),
        ("gnuplot", 'print system("git push -f")', PUSH),
        ("gnuplot", "x = `git push -f`", PUSH),
        ("gnuplot", "!git push -f", PUSH),
        ("gnuplot", 'plot "< git push -f" using 1:2', PUSH),
        ("gnuplot", "set output '| git push -f'", PUSH),
    ],
)  # fmt: skip
def test_a_literal_command_is_read(language: str, code: str, expected: str) -> None:
    found = launches(language, code)
    assert [shown(launch) for launch in found] == [expected], found
    assert not any(launch.unknown for launch in found)


@pytest.mark.parametrize(
    ("language", "code"),
    [
        ("lua", 'print("git push -f")'),
        ("lua", "print(1+1)"),
        ("lua", '-- os.execute("git push -f")\nprint(1)'),
        ("lua", '--[[ os.execute("git push -f") ]] print(1)'),
        ("lua", 'local s = [[os.execute("git push -f")]]; print(s)'),
        ("lua", 'conn:execute("select 1")'),
        ("r", 'print("git push -f")'),
        ("r", "cat(\"system('git push -f')\\n\")"),
        ("r", "# system('git push -f')\nx <- 1"),
        ("r", 'unlink("/tmp/x")'),
        ("r", "x <- c(1, 2); mean(x)"),
        ("julia", 'println("git push -f")'),
        ("julia", 'println("run(`git push -f`)")'),
        ("julia", "#= run(`git push -f`) =#\nprintln(1)"),
        ("julia", "x = 'a'; println(x)"),
        ("groovy", 'println "git push -f"'),
        ("groovy", "// 'git push -f'.execute()\nprintln 1"),
        ("java", 'System.out.println("git push -f");'),
        ("kotlin", 'println("git push -f")'),
        ("scala", 'println("git push -f")'),
        ("swift", 'print("git push -f")'),
        ("jxa", 'console.log("git push -f")'),
        ("elixir", 'IO.puts "git push -f"'),
        ("elixir", '# System.cmd("git", ["push"])\nIO.puts 1'),
        ("erlang", 'io:format("git push -f~n").'),
        ("haskell", 'main = putStrLn "git push -f"'),
        ("haskell", '-- callCommand "git push -f"\nmain = print 1'),
        ("ocaml", 'print_endline "git push -f"'),
        ("ocaml", '(* Sys.command "git push -f" *) let x = 1'),
        ("crystal", 'puts "git push -f"'),
        ("gnuplot", 'print "<b>"; plot sin(x)'),
        ("gnuplot", 'set title "git push -f"'),
    ],
)
def test_code_that_only_prints_the_command_launches_nothing(language: str, code: str) -> None:
    assert launches(language, code) == ()


@pytest.mark.parametrize(
    ("language", "code", "unknown"),
    [
        ("lua", "os.execute(cmd)", "built at run time"),
        ("lua", "local e = os.execute; e('ls')", "referred to as a value"),
        ("lua", 'os["execute"]("ls")', "names a process API"),
        ("lua", 'local p = require("posix")', "names a process API"),
        ("lua", "load(code)()", "code built at run time"),
        ("lua", "_G.os.execute(cmd)", "built at run time"),
        ("r", "system(cmd)", "built at run time"),
        ("r", 'do.call("system", list("ls"))', "names a process API"),
        ("r", "library(processx); run('ls')", "does not read"),
        ("r", "eval(parse(text = code))", "code built at run time"),
        ("julia", 'ccall(:system, Int32, (Cstring,), "ls")', "does not read"),
        ("julia", "run(Cmd(args))", "built at run time"),
        ("groovy", "cmd.execute()", "built at run time"),
        ("java", "Runtime.getRuntime().exec(cmd);", "built at run time"),
        ("scala", 'import sys.process._; val c = "x"; c.!', "built at run time"),
        (
            "swift",
            'let p = Process(); p.executableURL = URL(fileURLWithPath: "/bin/ls"); try p.run()',
            "does not read",
        ),
        ("jxa", 'Application("System Events").keystroke("git push -f")', "does not read"),
        ("elixir", "System.cmd(cmd, args)", "run time"),
        ("elixir", 'Port.open({:spawn, "ls"}, [])', "does not read"),
        ("elixir", "Code.eval_string(code)", "code built at run time"),
        ("elixir", 'apply(System, :cmd, ["git", ["push", "-f"]])', "does not read"),
        ("erlang", "os:cmd(Cmd).", "built at run time"),
        ("erlang", 'open_port({spawn, "ls"}, []).', "does not read"),
        ("haskell", "callCommand cmd", "built at run time"),
        ("haskell", ':cmd return ""', "GHCi"),
        ("ocaml", "let _ = Sys.command cmd", "built at run time"),
        ("gnuplot", "print system(cmd)", "built at run time"),
    ],
)
def test_what_rein_cannot_read_is_unknown(language: str, code: str, unknown: str) -> None:
    found = [launch for launch in launches(language, code) if launch.unknown]
    assert found and unknown in found[0].unknown, launches(language, code)


def test_an_argument_built_at_run_time_stays_a_known_command_with_an_unknown_argument() -> None:
    assert launches("julia", "run(`git push $branch`)")[0].argv == ("git", "push", None)
    assert launches("lua", 'os.execute("git push " .. b)')[0].shell == f"git push {RUNTIME}"


def test_an_environment_variable_rein_knows_is_its_value() -> None:
    assert shown(launches("r", 'unlink(Sys.getenv("T"), recursive = TRUE)', {"T": "/"})[0]) == "rm -rf /"
    assert shown(launches("lua", 'os.execute("rm -rf " .. os.getenv("HOME"))')[0]) == "rm -rf $HOME"


def test_eval_nests_only_so_deep() -> None:
    code = 'os.execute("ls")'
    for _ in range(12):
        code = "load(" + '"' + code.replace("\\", "\\\\").replace('"', '\\"') + '")()'
    assert any("too deeply" in launch.unknown for launch in launches("lua", code))


def test_a_huge_program_that_mentions_an_api_is_unknown() -> None:
    found = launches("lua", "x = 1\n" * 50_000 + 'os.execute("ls")')
    assert found and "too long" in found[0].unknown


def test_a_program_that_mentions_no_api_is_not_tokenized() -> None:
    assert launches("r", "x <- 1\n" * 100_000) == ()


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(LANGUAGES)), st.text(max_size=80))
def test_any_text_reads_without_raising(language: str, text: str) -> None:
    for launch in launches(language, text):
        assert launch.shell is not None or launch.argv or launch.unknown


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="\"'`[]=-(){}\\\n x", max_size=60))
def test_the_tokenizer_ends_on_any_quoting(text: str) -> None:
    for syntax in (LANGUAGES["lua"].syntax, LANGUAGES["julia"].syntax, LANGUAGES["ocaml"].syntax, Syntax()):
        tokenize(text, syntax)
