"""The PHP reader: what `php -r` code or a script with `<?php` on stdin would launch."""

from __future__ import annotations

import pytest

from rein.steering.bash.launch import RUNTIME, Launch, launches
from tests.steering.bash.launch._script_contract import nested


def read(code: str) -> tuple[Launch, ...]:
    return launches("php", code)


def only(code: str) -> Launch:
    found = read(code)
    assert len(found) == 1, found
    return found[0]


# --- the examples of the contract all three readers keep (test_script_readers.py) ----------------------

LANGUAGE = "php"

SHELL = [
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
]

ARGV = [
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
]

FOLDS = [
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
]

HOLES = [
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
    ('foreach ($a as $c) { system("$c -l"); }', f"{RUNTIME} -l"),
    ("$x = <<<EOT\nrm -rf $y\nEOT;\nsystem($x);", f"rm -rf {RUNTIME}"),
]

UNKNOWN = [
    ("system($argv[1]);", "system"),
    ("system($cmd);", "system"),
    ("system(...$a);", "system"),
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
]

NOTHING = [
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
]

EVALS = [
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
]

BROKEN = ["if ($x) { system(((", "system(((", "$x = `ls"]

GROWING = [
    "$a0 = 'xxxxxxxxxx';\n" + "".join(f"$a{i + 1} = $a{i} . $a{i};\n" for i in range(60)) + "system($a60);",
    "$a0 = ['x'];\n"
    + "".join(f"$a{i + 1} = [...$a{i}, ...$a{i}];\n" for i in range(60))
    + "proc_open($a60, $d, $p);",
    "$a0 = $argv[1];\n" + "".join(f"$a{i + 1} = $a{i} . $a{i};\n" for i in range(60)) + "system($a60);",
]

CHANGING_LOOPS = [
    'foreach ($argv as $c) { system("git $c"); }',
    'foreach (["a"] as $c) { $c = "push -f"; system("git $c"); }',  # the body changes it
    'foreach (["a"] as $k => $c) { system("git $c"); }',
    'foreach (["a"] as &$c) { system("git $c"); }',
    'function f() { global $c; $c = "rm -rf /"; } foreach (["ls"] as $c) { f(); system($c); }',
    'foreach ([...$rest, "a"] as $c) { system($c); }',
]

REMOVALS = [
    ("rmdir(dirname(getcwd()));", "rmdir", ("rmdir", "..")),
    ("unlink(getcwd() . '/x');", "unlink", ("rm", "x")),
    ("rmdir(dirname(getenv('HOME')));", "rmdir", ("rmdir", "$HOME/..")),
    ("unlink('~');", "unlink", ("rm", "~")),  # a literal `~` is a file named so
]


PIECES = ["system", "(", ")", "'ls'", '"a$x b"', ",", "`", "eval", "call_user_func", "$f", "<?php ", "?>",
           "<<<E\n", "\nE;\n", "[", "]", "{", "}", "=", ".", ";", " ", "\\", "&", "...", "$$",
           "foreach", "as", "$c", "getenv", "getcwd", "dirname", "unlink"]  # fmt: skip


LOOPS = [
    ('foreach (["status", "log -1"] as $c) { system("git $c"); }', ["git status", "git log -1"]),
    ('$l = ["a", "b"]; foreach ($l as $c) { $cmd = "make " . $c; exec($cmd); }', ["make a", "make b"]),
    ("foreach (['x', 'y'] as $f) { echo `cat $f`; }", ["cat x", "cat y"]),
]


NESTED_EVAL = nested(
    "system('ls');", lambda code: "eval('" + code.replace("\\", "\\\\").replace("'", "\\'") + "');"
)
LINES = "<?php\n\nsystem('ls');\neval(\"\\n\\nsystem('pwd');\");\n`id`;"
ARGV_HOLE = ("proc_open(['git', 'push', $b], $d, $p);", ("git", "push", None))
ARGV_SPREAD = ("pcntl_exec('/bin/ls', $args);", ("/bin/ls", None))
ARGV_PROGRAM = ("proc_open([$p, 'push'], $d, $pp);", (None, "push"))
BROKEN_QUIET = "echo((("
BROKEN_PARTIAL = ["system('git push -f');\necho((("]
ENV_REMOVAL = ("unlink(getenv('T'));", {"T": "/x"}, Launch(api="unlink", argv=("rm", "/x"), line=1))
ENV_SHELL = ("system($_SERVER['CMD']);", {"CMD": "ls"})


# --- PHP's own -----------------------------------------------------------------------------------------


def test_a_value_built_at_run_time_is_a_hole_beside_a_launch_that_reads_it() -> None:
    found = [
        launch
        for launch in read("$c = 'ls'; exec('x', $c); system(\"$c -l\");")
        if launch.shell is not None and launch.api != "exec"
    ]
    assert len(found) == 1, found
    assert found[0].shell == f"{RUNTIME} -l"
    assert found[0].unknown


def test_a_launch_of_a_backticks_output_is_unknown() -> None:
    found = [launch for launch in read("shell_exec(`cat cmd.txt`);") if launch.api != "backticks"]
    assert len(found) == 1, found
    assert found[0].api == "shell_exec"
    assert found[0].unknown
    assert found[0].shell is None


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
