"""The PHP reader: what `php -r` code or a script with `<?php` on stdin would launch."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rein.steering.bash.launch import RUNTIME, Launch, launches


def read(code: str) -> tuple[Launch, ...]:
    return launches("php", code)


def only(code: str) -> Launch:
    found = read(code)
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize(
    ("code", "api", "shell"),
    [
        ('echo shell_exec("git stash clear");', "shell_exec", "git stash clear"),
        ("system('git push --force');", "system", "git push --force"),
        ("SYSTEM('ls');", "SYSTEM", "ls"),
        ("Shell_Exec('ls');", "Shell_Exec", "ls"),
        ("\\system('ls');", "\\system", "ls"),
        ("exec('ls -l', $out, $rc);", "exec", "ls -l"),
        ("passthru('ls');", "passthru", "ls"),
        ("$h = popen('ls', 'r');", "popen", "ls"),
        ("proc_open('git push -f', $d, $p);", "proc_open", "git push -f"),
        ("expect_popen('ls');", "expect_popen", "ls"),
        ("`rm -rf ~`;", "backticks", "rm -rf ~"),
        ("echo `ls`;", "backticks", "ls"),
        ("if (true) { system('ls'); }", "system", "ls"),
        ("function f() { system('ls'); }", "system", "ls"),
        ("$f = function() { system('ls'); };", "system", "ls"),
        ("$f = fn() => system('ls');", "system", "ls"),
        ("call_user_func('system', 'ls');", "call_user_func('system')", "ls"),
        ("call_user_func('\\SYSTEM', 'ls');", "call_user_func('\\SYSTEM')", "ls"),
        ("call_user_func_array('system', ['git push -f']);", "call_user_func_array('system')", "git push -f"),
        ("$a = ['ls']; call_user_func_array('passthru', $a);", "call_user_func_array('passthru')", "ls"),
        ("$f = 'system'; $f('git push -f');", "$f()", "git push -f"),
        ("$f = 'sys' . 'tem'; $f('ls');", "$f()", "ls"),
        ("'system'('ls');", "'system'()", "ls"),
        ('("sys"."tem")("ls");', '("sys"."tem")()', "ls"),
        ("$f = 'system'; call_user_func($f, 'ls');", "call_user_func('system')", "ls"),
        ("echo system('ls') ? 1 : 0;", "system", "ls"),
        ("forward_static_call('system', 'ls');", "forward_static_call('system')", "ls"),
        ("forward_static_call_array('system', ['ls']);", "forward_static_call_array('system')", "ls"),
        ("$f = 'system'; array_map($f, ['ls']);", "array_map('system')", "ls"),
    ],
)
def test_a_string_runs_through_a_shell(code: str, api: str, shell: str) -> None:
    assert only(code) == Launch(api=api, shell=shell, line=1)


@pytest.mark.parametrize(
    ("code", "api", "argv"),
    [
        ("proc_open(['git', 'push', '-f'], $d, $p);", "proc_open", ("git", "push", "-f")),
        ("$c = ['git', 'push']; proc_open($c, $d, $p);", "proc_open", ("git", "push")),
        ("pcntl_exec('/bin/rm', ['-rf', '/']);", "pcntl_exec", ("/bin/rm", "-rf", "/")),
        ("pcntl_exec('/bin/ls');", "pcntl_exec", ("/bin/ls",)),
        ("unlink('/etc/x');", "unlink", ("rm", "/etc/x")),
        ("rmdir('/x');", "rmdir", ("rmdir", "/x")),
        ("UNLINK('/x');", "UNLINK", ("rm", "/x")),
        ("unlink(getenv('HOME') . '/.bashrc');", "unlink", ("rm", "$HOME/.bashrc")),
        ("rmdir(getenv('HOME'));", "rmdir", ("rmdir", "$HOME")),
        ("unlink($_SERVER['HOME'] . '/x');", "unlink", ("rm", "$HOME/x")),
        ("unlink($_ENV['HOME'] . '/x');", "unlink", ("rm", "$HOME/x")),
        ("unlink(\"{$_SERVER['HOME']}/x\");", "unlink", ("rm", "$HOME/x")),
        ("unlink('~/x');", "unlink", ("rm", "~/x")),
    ],
)
def test_a_list_is_an_argv(code: str, api: str, argv: tuple[str, ...]) -> None:
    assert only(code) == Launch(api=api, argv=argv, line=1)


@pytest.mark.parametrize(
    ("code", "shell"),
    [
        ("system('a\\'b\\\\c\\n');", "a'b\\c\\n"),  # single quotes: only \\ and \' are escapes
        ('system("a\\tb\\x41\\101\\u{42}\\e");', "a\tbAAB\x1b"),
        ('system("\\$x \\"q\\" \\\\");', '$x "q" \\'),
        ('system("a\\qb");', "a\\qb"),  # an unknown escape keeps its backslash
        ('system("a{b");', "a{b"),
        ("system('git ' . 'push' . ' -f');", "git push -f"),
        ("system(\"git \" . 'push');", "git push"),
        ("system(('git push'));", "git push"),
        ('$c = "git push -f"; system($c);', "git push -f"),
        ("$c = 'push'; system(\"git $c -f\");", "git push -f"),
        ("$c = 'push'; system(\"git {$c} -f\");", "git push -f"),
        ("$a = 'git'; $b = $a . ' push'; system($b);", "git push"),
        ("$c = 'ls'; echo $c; system($c);", "ls"),
        ("$c = 'ls'; if ($c) { system($c); }", "ls"),
        ('system("rm -rf " . getenv("HOME"));', "rm -rf $HOME"),
        ("system(\"rm -rf {$_SERVER['HOME']}/x\");", "rm -rf $HOME/x"),
        ("$x = <<<EOT\ngit push -f\nEOT;\nsystem($x);", "git push -f"),
        ("$x = <<<'EOT'\ngit $push\nEOT;\nsystem($x);", "git $push"),
        ('system(<<<"EOT"\ngit\\tpush\nEOT);', "git\tpush"),
        ('system("  padded  ");', "  padded  "),
    ],
)
def test_strings_fold_as_php_reads_them(code: str, shell: str) -> None:
    found = [launch for launch in read(code) if launch.api.lower() == "system"]
    assert len(found) == 1, found
    assert (found[0].shell, found[0].unknown) == (shell, "")


@pytest.mark.parametrize(
    ("code", "shell"),
    [
        ('system("rm -rf $d");', f"rm -rf {RUNTIME}"),
        ("system(\"rm -rf {$d['x']}\");", f"rm -rf {RUNTIME}"),
        ('system("rm -rf $o->p");', f"rm -rf {RUNTIME}"),
        ('system("rm -rf ${d}");', f"rm -rf {RUNTIME}"),
        ("system('git push ' . $argv[1]);", f"git push {RUNTIME}"),
        ("system('ls ' . implode(' ', $a));", f"ls {RUNTIME}"),
        ("`git push $x`;", f"git push {RUNTIME}"),
        ('system("rm -rf \'" . getenv("HOME") . "\'");', f"rm -rf '{RUNTIME}'"),  # no $HOME in '...'
        ("$c = 'ls'; $c = 'rm'; system(\"$c -l\");", f"{RUNTIME} -l"),
        ("$c = 'ls'; $c .= 'x'; system(\"$c -l\");", f"{RUNTIME} -l"),
        ("$c = 'ls'; $r = &$c; system(\"$c -l\");", f"{RUNTIME} -l"),
        ("$c = 'ls'; f($c); system(\"$c -l\");", f"{RUNTIME} -l"),
        ("$c = 'ls'; extract($a); system(\"$c -l\");", f"{RUNTIME} -l"),
        ("$c = 'ls'; $$n = 'rm'; system(\"$c -l\");", f"{RUNTIME} -l"),
        ("$c = 'ls'; exec('x', $c); system(\"$c -l\");", f"{RUNTIME} -l"),
        ('foreach ($a as $c) { system("$c -l"); }', f"{RUNTIME} -l"),
        ("$x = <<<EOT\nrm -rf $y\nEOT;\nsystem($x);", f"rm -rf {RUNTIME}"),
    ],
)
def test_a_value_built_at_run_time_is_a_hole(code: str, shell: str) -> None:
    found = [launch for launch in read(code) if launch.shell is not None and launch.api != "exec"]
    assert len(found) == 1, found
    assert found[0].shell == shell
    assert found[0].unknown


@pytest.mark.parametrize(
    ("code", "api"),
    [
        ("system($argv[1]);", "system"),
        ("system($cmd);", "system"),
        ("system(...$a);", "system"),
        ("shell_exec(`cat cmd.txt`);", "shell_exec"),
        ("$f('ls');", "$f"),
        ("$f = $_GET['f']; $f('ls');", "$f"),
        ("call_user_func($f, 'ls');", "call_user_func"),
        ("call_user_func_array($f, ['ls']);", "call_user_func_array"),
        ("array_map($f, ['ls']);", "array_map"),
        ("call_user_func_array('system', $args);", "call_user_func_array('system')"),
        ("array_map('system', $lines);", "array_map('system')"),
        ("array_walk($a, 'system');", "array_walk('system')"),
        ("eval($code);", "eval"),
        ("eval('system(' . $x . ');');", "eval"),
        ("assert($code);", "assert"),
        ("create_function('', $body);", "create_function"),
        ("$f = system(...);", "system"),  # a first-class callable is passed on
        ("proc_open($cmd, $d, $p);", "proc_open"),
        ("new ReflectionFunction('system');", "new ReflectionFunction"),
        ("(new \\ReflectionFunction('exec'))->invoke('ls');", "new \\ReflectionFunction"),
        ("Closure::fromCallable('system');", "Closure::fromCallable"),
        ("usort($a, 'system');", "usort"),
        ("register_shutdown_function('passthru', 'ls');", "register_shutdown_function"),
        ("preg_replace('{x}e', $r, $s);", "preg_replace"),
    ],
)
def test_a_launch_nothing_is_known_about_is_unknown(code: str, api: str) -> None:
    found = [launch for launch in read(code) if launch.api != "backticks"]
    assert len(found) == 1, found
    assert found[0].api == api
    assert found[0].unknown
    assert found[0].shell is None


def test_an_argv_element_built_at_run_time_is_none() -> None:
    assert only("proc_open(['git', 'push', $b], $d, $p);").argv == ("git", "push", None)
    assert not only("proc_open(['git', 'push', $b], $d, $p);").unknown
    spread = only("pcntl_exec('/bin/ls', $args);")
    assert spread.argv == ("/bin/ls", None)
    assert spread.unknown
    assert only("proc_open([$p, 'push'], $d, $pp);").unknown


@pytest.mark.parametrize(
    "code",
    [
        "",
        'echo "git push -f";',
        "print 'rm -rf /';",
        "print('rm -rf /');",
        "$x = 'git push --force';",
        "printf('%s', 'git push -f');",
        "unlink($file);",  # a removal of a path built at run time is data
        "rmdir($dir);",
        "unlink();",
        "create_function();",
        "create_function('');",
        "eval();",
        "$o->system('rm -rf /');",  # a method, not the function
        "$pdo->exec('DROP TABLE x');",
        "A::system('ls');",
        "call_user_func('strtoupper', 'git push -f');",
        "array_map('trim', ['rm -rf /']);",
        "array_map(function($x) { return $x; }, ['rm -rf /']);",
        "$f = function($x) { return 1; }; $f('rm -rf /');",
        "$f = fn($x) => 1; $f('rm -rf /');",
        "call_user_func([$o, 'run'], 'rm -rf /');",
        "assert($x > 1);",
        "assert(true);",
        "// system('git push -f');",
        "/* system('git push -f'); */",
        "# system('git push -f');",
        "function system2($x) {} system2('rm -rf /');",
        "echo 'hi';",
        "usort($a, $cmp);",
        "usort($a, 'strcmp');",
        "new Foo('system');",
        "Foo::fromCallable('system');",
        "preg_replace('/x/i', 'system(\"ls\")', $s);",  # no /e: the replacement is text
        "preg_replace($p, 'system(\"ls\")', $s);",
    ],
)
def test_code_that_calls_no_process_api_launches_nothing(code: str) -> None:
    assert read(code) == ()


@pytest.mark.parametrize(
    ("code", "found"),
    [
        ("eval('system(\"git push -f\");');", [("system", "git push -f")]),
        ('eval("echo `ls`;");', [("backticks", "ls")]),
        ("EVAL('system(\"ls\");');", [("system", "ls")]),
        ("assert('system(\"ls\")');", [("system", "ls")]),
        ("create_function('', 'system(\"ls\");');", [("system", "ls")]),
        ("eval('eval(\\'system(1);\\');');", [("system", "1")]),
        (
            "array_map('system', ['ls', 'pwd']);",
            [("array_map('system')", "ls"), ("array_map('system')", "pwd")],
        ),
        ("array_walk(['ls'], 'system');", [("array_walk('system')", "ls")]),
        ("preg_replace('/x/e', 'system(\"ls\")', $s);", [("system", "ls")]),
        ("preg_replace('#x#ie', 'system(\"ls\")', $s);", [("system", "ls")]),
        ("eval('?><?php system(\"ls\");');", [("system", "ls")]),
        ("array_filter(['ls'], 'system');", [("array_filter('system')", "ls")]),
        (
            "call_user_func('call_user_func', 'system', 'ls');",
            [("call_user_func('call_user_func')('system')", "ls")],
        ),
    ],
)
def test_eval_of_a_literal_is_read_as_php(code: str, found: list[tuple[str, str]]) -> None:
    shells = [(launch.api, launch.shell) for launch in read(code) if launch.shell is not None]
    assert shells == found


def test_eval_reads_are_bounded() -> None:
    code = "system('ls');"
    for _ in range(12):
        code = "eval('" + code.replace("\\", "\\\\").replace("'", "\\'") + "');"
    found = read(code)
    assert [launch.api for launch in found] == ["eval"]
    assert "deeply" in found[0].unknown


@pytest.mark.parametrize(
    ("code", "lines"),
    [
        ("<?php system('ls'); ?>\nhello <?= `pwd` ?>", [("ls", 1), ("pwd", 2)]),
        ("hello\n<?php system('git push -f');", [("git push -f", 2)]),
        ("#!/usr/bin/env php\n<?php\nsystem('ls');", [("ls", 3)]),
        (
            "<?php\n\nsystem('ls');\neval(\"\\n\\nsystem('pwd');\");\n`id`;",
            [("ls", 3), ("pwd", 4), ("id", 5)],
        ),
        ("echo '<?php'; system('ls');", [("ls", 1)]),  # `php -r` code may mention a tag in a string
    ],
)
def test_scripts_with_tags_and_lines(code: str, lines: list[tuple[str, int]]) -> None:
    assert [(launch.shell, launch.line) for launch in read(code)] == lines


@pytest.mark.parametrize("code", ["if ($x) { system(((", "system(((", "$x = `ls"])
def test_a_program_that_does_not_parse_is_unknown_when_it_mentions_a_process_api(code: str) -> None:
    assert any("does not parse" in launch.unknown for launch in read(code))


def test_a_program_that_does_not_parse_but_mentions_no_process_api_launches_nothing() -> None:
    assert read("echo(((") == ()


def test_a_program_that_does_not_parse_still_reports_what_it_can() -> None:
    assert Launch(api="system", shell="git push -f", line=1) in read("system('git push -f');\necho(((")


@pytest.mark.parametrize(
    "code",
    [
        "$a0 = 'xxxxxxxxxx';\n"
        + "".join(f"$a{i + 1} = $a{i} . $a{i};\n" for i in range(60))
        + "system($a60);",
        "$a0 = ['x'];\n"
        + "".join(f"$a{i + 1} = [...$a{i}, ...$a{i}];\n" for i in range(60))
        + "proc_open($a60, $d, $p);",
        "$a0 = $argv[1];\n" + "".join(f"$a{i + 1} = $a{i} . $a{i};\n" for i in range(60)) + "system($a60);",
    ],
)
def test_values_that_grow_without_bound_are_built_at_run_time(code: str) -> None:
    found = only(code)
    assert found.unknown
    assert "failed" not in found.unknown


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_reading_never_raises(code: str) -> None:
    for launch in read(code):
        assert not launch.unknown.startswith("reading the php program failed"), launch


_PIECES = ["system", "(", ")", "'ls'", '"a$x b"', ",", "`", "eval", "call_user_func", "$f", "<?php ", "?>",
           "<<<E\n", "\nE;\n", "[", "]", "{", "}", "=", ".", ";", " ", "\\", "&", "...", "$$",
           "foreach", "as", "$c", "getenv", "getcwd", "dirname", "unlink"]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=25))
def test_reading_php_like_text_never_raises(pieces: list[str]) -> None:
    for launch in read("".join(pieces)):
        assert not launch.unknown.startswith("reading the php program failed"), launch


# --- loops over known arrays -------------------------------------------------------------------------

PHP_LOOPS = [
    ('foreach (["status", "log -1"] as $c) { system("git $c"); }', ["git status", "git log -1"]),
    ('$l = ["a", "b"]; foreach ($l as $c) { $cmd = "make " . $c; exec($cmd); }', ["make a", "make b"]),
    ("foreach (['x', 'y'] as $f) { echo `cat $f`; }", ["cat x", "cat y"]),
]


@pytest.mark.parametrize(("code", "lines"), PHP_LOOPS, ids=[case[0] for case in PHP_LOOPS])
def test_a_call_in_a_loop_over_a_known_array_launches_once_per_value(code: str, lines: list[str]) -> None:
    found = read(code)
    assert [launch.shell for launch in found] == lines, found
    assert not any(launch.unknown for launch in found)


@pytest.mark.parametrize(
    "code",
    [
        'foreach ($argv as $c) { system("git $c"); }',
        'foreach (["a"] as $c) { $c = "push -f"; system("git $c"); }',  # the body changes it
        'foreach (["a"] as $k => $c) { system("git $c"); }',
        'foreach (["a"] as &$c) { system("git $c"); }',
        'function f() { global $c; $c = "rm -rf /"; } foreach (["ls"] as $c) { f(); system($c); }',
        'foreach ([...$rest, "a"] as $c) { system($c); }',
    ],
)
def test_a_loop_whose_variable_may_change_is_read_as_built_at_run_time(code: str) -> None:
    assert any(launch.unknown for launch in read(code))


# --- computed paths, the environment -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "argv"),
    [
        ("rmdir(dirname(getcwd()));", ("rmdir", "..")),
        ("unlink(getcwd() . '/x');", ("rm", "x")),
        ("rmdir(dirname(getenv('HOME')));", ("rmdir", "$HOME/..")),
        ("unlink('~');", ("rm", "~")),  # a literal `~` is a file named so
    ],
)
def test_removals_of_computed_paths(code: str, argv: tuple[str, ...]) -> None:
    assert only(code).argv == argv


def test_the_environment_rein_knows_fills_getenv() -> None:
    assert launches("php", "unlink(getenv('T'));", {"T": "/x"}) == (
        Launch(api="unlink", argv=("rm", "/x"), line=1),
    )
    assert read("unlink(getenv('T'));") == ()
    assert launches("php", "system($_SERVER['CMD']);", {"CMD": "ls"})[0].shell == "ls"
