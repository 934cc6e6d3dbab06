"""Interpreter options read as the interpreter reads them, so no option hides the program it runs:
node's `-pe` and repeated `-e`, deno's options before `eval`'s code, gawk's `-e`/`-i`, sed's abbreviated
long options, ruby's and python's long options with a value, php's `-B`/`-R`/`-E`, the programs
`python -m timeit`/`pdb`/`cProfile`/`trace` run, ipython's `!` lines, rake's `sh`, irb on stdin."""

from __future__ import annotations

import pytest

from rein.steering.bash.commands._interp import program
from rein.steering.bash.model import Word
from tests.steering.conftest import Check

PUSH = "git push -f"
JS = f'require("child_process").execSync("{PUSH}")'
PY = f'import os; os.system("{PUSH}")'
AWK = f'BEGIN{{system("{PUSH}")}}'
DENO = 'new Deno.Command("git", {args: ["push", "-f"]}).outputSync()'


@pytest.mark.parametrize(
    "command",
    [
        f"node -pe '{JS}'",
        f"node -ep '{JS}'",
        f"node -e 'console.log(1)' -e '{JS}'",
        f"node --eval='{JS}'",
        f"node --require ./setup.js -e '{JS}'",
        f'node --input-type module -e \'import cp from "child_process"; cp.execSync("{PUSH}")\'',
        f"nodejs -C dev -p '{JS}'",
        f"tsx -e '{JS}'",
        f"ts-node -e '{JS}'",
        f"ts-node --project tsconfig.json -e '{JS}'",
        f"deno eval --quiet '{DENO}'",
        f"deno eval --ext ts -c deno.json '{DENO}'",
        f"deno run - <<< '{DENO}'",
        f"deno repl --eval '{DENO}'",
        f"gawk -i inplace -e '{AWK}' f",
        f"gawk -f lib.awk -e '{AWK}' f",
        f"gawk --source='{AWK}' f",
        f"gawk --sou '{AWK}' f",
        f"awk -v x=1 -F: -e '{AWK}'",
        f"sed --expr='1e {PUSH}' f",
        f"sed --exp '1e {PUSH}' f",
        f"sed -nl5 -e '1e {PUSH}' f",
        f"sed -s -E --expression='1e {PUSH}' f",
        f"ruby --encoding utf-8 -e 'system \"{PUSH}\"'",
        f"ruby --disable gems -e 'system \"{PUSH}\"'",
        f"ruby -W:no-deprecated -e 'system \"{PUSH}\"'",
        f"php -B 'system(\"{PUSH}\");' -R 'echo 1;' < f",
        f"php -R 'echo 1;' -E 'system(\"{PUSH}\");' < f",
        f"php --run='system(\"{PUSH}\");'",
        f"python3 --check-hash-based-pycs always -c '{PY}'",
        f"python3 -m timeit '{PY}'",
        f"python3 -m timeit -s '{PY}' -n 1 'pass'",
        f"python3 -m pdb -c continue -c '{PY}' x.py",
        f"python3 -m pdb -c '!{PY}' x.py",
        f"python3 -m cProfile -m timeit '{PY}'",
        f"python3 -m trace --trace --module timeit '{PY}'",
        f"python3 -m IPython -c '!{PUSH}'",
        f"ipython -c '!{PUSH}'",
        f"ipython3 --profile dev -c '!{PUSH}'",
        f"ipython -c 'out = !{PUSH}'",
        f"ipython -c 'if True:\n    !{PUSH}'",
        f"ipython -c '%sx {PUSH}'",
        f"ipython -c '%system {PUSH}'",
        f"ipython -c '%%bash\n{PUSH}'",
        f"echo '!{PUSH}' | ipython",
        f"rake -e 'sh \"{PUSH}\"'",
        'rake --execute \'sh "git", "push", "-f"\'',
        f"rake build -p 'sh \"{PUSH}\"'",
        'rake -e \'ruby "-e \\"system(%q(git push -f))\\""\'',
        f"irb <<< 'system \"{PUSH}\"'",
        f"echo 'system \"{PUSH}\"' | irb",
    ],
)
def test_the_program_an_option_passes_is_read(check: Check, command: str) -> None:
    verdict = check(command)
    assert not verdict.allow, f"{command!r} was allowed"
    assert "no-force-push" in {decision.rule for decision in verdict.decisions}, verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "node -pe '1+1'",
        "node -e 'console.log(1)' -e 'console.log(2)'",
        "tsx app.ts",
        "deno eval --quiet 'console.log(1)'",
        "awk -e '{print}' f",
        "awk -F: '{print $1}' /etc/passwd",
        "gawk -E prog.awk 'BEGIN{system(\"git push -f\")}'",  # after -E FILE: an argument, not code
        "sed --expr=s/a/b/ f",
        "sed -i.bak -e 's/a/b/' f",
        "sed -n -s -E --posix 's/a/b/p' f",
        "ruby --encoding utf-8 -e 'puts 1'",
        "ruby -e 'sh \"git push -f\"'",  # plain Ruby has no `sh`
        "php -B 'echo 1;' -R 'echo $argn;' < f",
        "python3 -c 'print(1)'",
        "python3 -m timeit '1+1'",
        "python3 -m pdb -c continue x.py",
        "python3 -m cProfile -o out -s time x.py",
        "ipython -c 'print(1)'",
        "ipython -c '!echo {name}'",
        "rake -e 'puts 1'",
        "rake test",
        "irb <<< 'puts 1'",
    ],
)
def test_harmless_programs_still_run(check: Check, command: str) -> None:
    verdict = check(command)
    assert verdict.allow, f"{command!r}: {verdict.reason}"


def test_python_modules_still_run_as_commands(check: Check) -> None:
    assert not check("python3 -X dev -m http.server").allow


def _words(*values: str) -> list[Word]:
    return [Word.literal(value) for value in values]


@pytest.mark.parametrize(
    ("argv", "code", "script"),
    [
        (("node", "-r", "mod", "app.js"), (), "app.js"),
        (("node", "--title", "x", "--", "app.js"), (), "app.js"),
        (("deno", "run", "-A", "--config", "deno.json", "main.ts"), (), "main.ts"),
        (("gawk", "-f", "a.awk", "-f", "b.awk", "data"), (), "a.awk"),
        (("gawk", "-e", "x", "-e", "y", "data"), ("x", "y"), None),
        (("ruby", "-x", "script.rb"), (), "script.rb"),
        (("php", "-d", "x=1", "-f", "s.php"), (), "s.php"),
        (("irb", "-r", "json", "s.rb"), (), "s.rb"),
        (("python3", "-m", "timeit", "-s", "a", "b", "c"), ("a", "b", "c"), None),
        (("python3", "-m", "pdb", "-c", "p x", "s.py"), ("x",), None),
        (("python3", "-m", "cProfile", "s.py", "arg"), (), "s.py"),
        (("ipython", "--profile", "dev", "s.ipy"), (), "s.ipy"),
    ],
)
def test_where_the_program_comes_from(
    argv: tuple[str, ...], code: tuple[str, ...], script: str | None
) -> None:
    prog = program(argv[0], _words(*argv))
    assert prog is not None
    assert tuple(word.value for word in prog.code) == code
    assert (prog.script.value if prog.script else None) == script


def test_gawk_reads_every_program_file() -> None:
    prog = program("gawk", _words("gawk", "-f", "a.awk", "--file=b.awk", "data"))
    assert prog is not None
    assert [word.value for word in (prog.script, *prog.files) if word] == ["a.awk", "b.awk"]


def test_rake_without_code_runs_no_program_rein_reads() -> None:
    assert program("rake", _words("rake", "test")) is None


def test_profilers_run_a_module_with_its_arguments() -> None:
    prog = program("python3", _words("python3", "-m", "cProfile", "-m", "http.server", "8000"))
    assert prog is not None and prog.module is not None
    assert (prog.module.value, prog.rest) == ("http.server", 5)
