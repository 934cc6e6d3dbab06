"""The Perl reader: what a `perl -e` program, the body of a `-n`/`-p` loop or a script on stdin would
launch."""

from __future__ import annotations

import pytest

from rein.steering.bash.launch import RUNTIME, Launch, launches
from tests.steering.bash.launch._script_contract import nested


def read(code: str) -> tuple[Launch, ...]:
    return launches("perl", code)


def only(code: str) -> Launch:
    found = read(code)
    assert len(found) == 1, found
    return found[0]


# --- the examples of the contract all three readers keep (test_script_readers.py) ----------------------

LANGUAGE = "perl"

SHELL = [
    ("system('git push --force')", "system", "git push --force"),
    ('system("git push --force");', "system", "git push --force"),
    ("system 'ls -l';", "system", "ls -l"),
    ("system q{ls -l}", "system", "ls -l"),
    ("system qq{ls -l}", "system", "ls -l"),
    ("system('ls') if 1;", "system", "ls"),
    ("system('ls') == 0 or die", "system", "ls"),
    ("exec 'ls'", "exec", "ls"),
    ("CORE::system('ls')", "system", "ls"),
    ("CORE::GLOBAL::exec('ls')", "exec", "ls"),
    ("`rm -rf ~`", "backticks", "rm -rf ~"),
    ("my $o = `ls`;", "backticks", "ls"),
    ("qx{git stash clear}", "qx", "git stash clear"),
    ("qx(ls)", "qx", "ls"),
    ("qx'ls $x'", "qx", "ls $x"),  # qx'...' does not interpolate: the shell sees $x
    ("readpipe('ls -l')", "readpipe", "ls -l"),
    ("readpipe 'ls'", "readpipe", "ls"),
    ("open(FH, 'ls |')", "open", "ls "),
    ("open(FH, 'ls|')", "open", "ls"),
    ("open(FH, '| git push -f')", "open", " git push -f"),
    ("open FH, '|ls'", "open", "ls"),
    ("open(my $fh, '-|', 'git push -f')", "open", "git push -f"),
    ("open(my $fh, '|-', 'git push -f') or die", "open", "git push -f"),
    ("open my $fh, '-|', 'ls' or die", "open", "ls"),
    ("IPC::Open3::open3($w, $r, $e, 'ls -l')", "IPC::Open3::open3", "ls -l"),
    ("use IPC::Open3; open3($w, $r, $e, 'ls -l')", "open3", "ls -l"),
    ("IPC::Open2::open2($o, $i, 'ls')", "IPC::Open2::open2", "ls"),
    ("open2($o, $i, 'ls')", "open2", "ls"),
    ("use IPC::Run3; run3 'ls -l';", "run3", "ls -l"),
    ("IPC::Run3::run3('ls')", "IPC::Run3::run3", "ls"),
    ("use Capture::Tiny 'capture'; capture { system 'ls' };", "system", "ls"),
    ("Capture::Tiny::capture(sub { system 'ls' })", "system", "ls"),
    ("for my $i (1..2) { system 'ls' }", "system", "ls"),
    ("eval { system 'ls' };", "system", "ls"),
    ("sub f { system 'ls' } f();", "system", "ls"),
    ("POSIX::system('ls')", "POSIX::system", "ls"),
    ("sub system { 1 } system('ls')", "system", "ls"),  # a sub does not replace a builtin
    ("run 'ls'", "run", "ls"),  # imported with -MIPC::Run, which the program text does not show
    ("capture('ls')", "capture", "ls"),  # -MIPC::System::Simple=capture
    ("run(command => 'ls')", "run", "ls"),  # -MIPC::Cmd=run
    ("use IPC::System::Simple qw(run); run('ls -l')", "run", "ls -l"),
    ("use IPC::System::Simple qw(capture); my $o = capture('ls');", "capture", "ls"),
    ("IPC::System::Simple::capture('ls')", "IPC::System::Simple::capture", "ls"),
    ("use IPC::Cmd qw(run); run(command => 'ls -l', verbose => 0);", "run", "ls -l"),
    ("IPC::Cmd::run(command => 'ls')", "IPC::Cmd::run", "ls"),
    ("use IPC::System::Simple; use Capture::Tiny 'capture'; capture { system 'ls' };", "system", "ls"),
]

ARGV = [
    ('system("git", "push", "-f")', "system", ("git", "push", "-f")),
    ("system 'git', 'push'", "system", ("git", "push")),
    ("system qw(git push -f)", "system", ("git", "push", "-f")),
    ("exec('ls', '-l')", "exec", ("ls", "-l")),
    ("system { 'ls' } 'ls', '-l'", "system", ("ls", "-l")),
    ("exec {'/bin/ls'} 'ls', '-l'", "exec", ("/bin/ls", "-l")),
    ("my @c = ('git', 'push', '-f'); system @c", "system", ("git", "push", "-f")),
    ("my @c = qw(git push); system(@c, '-f')", "system", ("git", "push", "-f")),
    ("system(('git', ('push', '-f')))", "system", ("git", "push", "-f")),
    ("open(my $fh, '-|', 'git', 'push', '-f')", "open", ("git", "push", "-f")),
    ("IPC::Open3::open3($w, $r, $e, 'git', 'push')", "IPC::Open3::open3", ("git", "push")),
    ("use IPC::Run qw(run); run ['git', 'push'];", "run", ("git", "push")),
    ("run ['git', 'push'];", "run", ("git", "push")),
    ("systemx('git', 'push')", "systemx", ("git", "push")),
    ("IPC::Run::run(['ls', '-l'], '>', \\$out)", "IPC::Run::run", ("ls", "-l")),
    ("use IPC::Run3; my @c = ('ls'); run3 \\@c;", "run3", ("ls",)),
    ("unlink '/etc/x'", "unlink", ("rm", "/etc/x")),
    ("unlink('/a', '/b')", "unlink", ("rm", "/a", "/b")),
    ('unlink "$ENV{HOME}/.bashrc"', "unlink", ("rm", "$HOME/.bashrc")),
    ("use File::Path qw(rmtree); rmtree('/x')", "rmtree", ("rm", "-rf", "/x")),
    ("use File::Path 'remove_tree'; remove_tree('/x')", "remove_tree", ("rm", "-rf", "/x")),
    ("File::Path::rmtree('/x')", "File::Path::rmtree", ("rm", "-rf", "/x")),
    (
        "File::Path::remove_tree($ENV{HOME}, {verbose => 1})",
        "File::Path::remove_tree",
        ("rm", "-rf", "$HOME"),
    ),
    ('rmtree("$ENV{HOME}/src")', "rmtree", ("rm", "-rf", "$HOME/src")),
    ("rmtree($ENV{'HOME'} . '/src')", "rmtree", ("rm", "-rf", "$HOME/src")),
    ("rmtree(['/a', '/b'])", "rmtree", ("rm", "-rf", "/a", "/b")),
    ("use IPC::System::Simple qw(systemx); systemx('git', 'push')", "systemx", ("git", "push")),
    ("use IPC::System::Simple; capturex('git push')", "capturex", ("git push",)),  # never a shell
    ("IPC::Cmd::run(command => ['git', 'push'])", "IPC::Cmd::run", ("git", "push")),
]

FOLDS = [
    ("system 'a\\'b\\\\c\\n'", "a'b\\c\\n"),  # single quotes: only \\ and \' are escapes
    ("system q{a{b}\\}c}", "a{b}}c"),
    ('system "a\\tb\\x41\\x{42}\\101\\e"', "a\tbAB\x41\x1b"),
    ('system "\\N{U+41}\\cA"', "A\x01"),
    ('system "\\$x \\@y \\"z\\""', '$x @y "z"'),
    ('system "a\\qb"', "aqb"),
    ('system "\\Ugit push\\E -f"', "GIT PUSH -f"),
    ('system "\\LGIT PUSH --FORCE"', "git push --force"),
    ('system "\\ugit"', "Git"),
    ('system "rm \\Qa b\\E"', "rm a\\ b"),
    ('system "git " . "push" . " -f"', "git push -f"),
    ("system 'git ' . q(push)", "git push"),
    ('my $c = "git push -f"; system $c', "git push -f"),
    ('my $c = "git push -f"; system($c);', "git push -f"),
    ("my $c = 'push'; system \"git $c -f\"", "git push -f"),
    ("my $c = 'push'; system \"git ${c} -f\"", "git push -f"),
    ("our $c = 'git push'; system $c", "git push"),
    ("$c = 'git push'; system $c", "git push"),
    ("my $p = 'git'; my $q = $p . ' push'; system $q", "git push"),
    ('system \' git\' . "  " . " -f"', " git   -f"),  # blanks inside the quotes count
    ("my $c = 'ls'; print $c; system $c", "ls"),
    ("my $c = 'ls'; system $c if $c", "ls"),
    ('system "rm -rf $ENV{HOME}"', "rm -rf $HOME"),
    ("system \"rm -rf $ENV{'HOME'}/x\"", "rm -rf $HOME/x"),
    ('system "rm -rf \\"$ENV{HOME}\\""', 'rm -rf "$HOME"'),
    ("system 'rm -rf ' . $ENV{HOME}", "rm -rf $HOME"),
    ('system(<<"EOF");\ngit push -f\nEOF\n', "git push -f\n"),
    ("system(<<'EOF');\nls $x\nEOF\n", "ls $x\n"),
    ("system <<EOF;\nls\nEOF\n", "ls\n"),
]

HOLES = [
    ('my $d = shift; system("rm -rf $d")', f"rm -rf {RUNTIME}"),
    ('system "git push $branch"', f"git push {RUNTIME}"),
    ('system "ls @files"', f"ls {RUNTIME}"),
    ('system "ls $h{a} $a[0] ${x}"', f"ls {RUNTIME} {RUNTIME} {RUNTIME}"),
    ("system 'git push ' . $ARGV[0]", f"git push {RUNTIME}"),
    ("`git push $x`", f"git push {RUNTIME}"),
    ("qx{git $x}", f"git {RUNTIME}"),
    ("system \"rm -rf '$ENV{HOME}'\"", f"rm -rf '{RUNTIME}'"),  # $HOME would not expand in '...'
    ('system "ls $_"', f"ls {RUNTIME}"),  # the -n/-p loop's line
    ('my $c = "ls"; $c = "rm"; system "$c -l"', f"{RUNTIME} -l"),
    ('my $c = "ls"; $c .= "x"; system "$c -l"', f"{RUNTIME} -l"),
    ('my $c = "ls"; $c =~ s/ls/rm/; system "$c -l"', f"{RUNTIME} -l"),
    ('my $c = "ls"; chomp($c); system "$c -l"', f"{RUNTIME} -l"),
    ('my $c = "ls"; f($c); system "$c -l"', f"{RUNTIME} -l"),
    ('my $c = "ls"; local $c = "rm"; system "$c -l"', f"{RUNTIME} -l"),
    ('my ($c) = ("ls"); system "$c -l"', f"{RUNTIME} -l"),
    ('chomp(my $c = "ls"); system "$c -l"', f"{RUNTIME} -l"),
    ('my $c = "ls"; eval "1"; system "$c -l"', f"{RUNTIME} -l"),
    ('for my $c (@ARGV) { system "$c -l" }', f"{RUNTIME} -l"),
    ('system(<<"EOF");\nrm -rf $d\nEOF\n', f"rm -rf {RUNTIME}\n"),
    ('open(FH, "$cmd |")', f"{RUNTIME} "),
]

UNKNOWN = [
    ("system $cmd", "system"),
    ("system @ARGV", "system"),
    ("exec @cmd", "exec"),
    ("my @c = @ARGV; system @c", "system"),
    ("readpipe($x)", "readpipe"),
    ("eval $code", "eval"),
    ("eval", "eval"),  # evaluates $_
    ('eval "system $x"', "eval"),
    ("open(FH, $f)", "open"),  # a 2-argument open of a path built at run time may be "cmd |"
    ("open(my $fh, $mode, 'ls')", "open"),
    ("s/x/$y/ee", "s///ee"),
    ("use IPC::Run; run $cmd", "run"),
    ("readpipe", "readpipe"),  # reads $_
    ("my $r = \\&CORE::readpipe; $r->('ls')", "readpipe"),
]

NOTHING = [
    "",
    'print "rm -rf /"',
    "print 'git push -f';",
    'say "git push -f"',
    "my $x = 'git push --force';",
    "print if /system/",  # a -n loop body
    "s/a/b/g",
    "s/system/exec/",  # no /e: the replacement is text
    "tr/a-z/A-Z/",
    "open(FH, '<', $file)",
    "open(FH, '<x')",
    'open(FH, "<$file")',
    'open(FH, ">>$file")',
    "open(FH, 'x.txt')",
    "open(FH, '-|')",  # forks, runs no command
    "open(my $fh, '<', 'ls |')",
    "unlink $file",  # a removal of a path built at run time is data
    "unlink",
    "rmtree($dir)",
    "sub run { 1 } run 'ls'",  # the program's own sub
    "sub capture { 1 } capture('ls')",
    "sub open3 { 1 } open3($a, $b, $c, 'ls')",
    "# system('git push -f')",
    "=pod\n\nsystem('git push -f')\n\n=cut\n",
    "my %h = (system => 1);",
    "$obj->system('ls')",
    "my $cb = \\&helper; $cb->('ls')",
]

EVALS = [
    ('eval "system q(git push -f)"', [("system", "git push -f")]),
    ("eval 'system \"ls\"'", [("system", "ls")]),
    ("eval q{`ls`}", [("backticks", "ls")]),
    ("eval 'eval q{system 1}'", [("system", "1")]),
    ('s/x/system("ls")/e', [("system", "ls")]),
    ("s{x}{`ls`}ge", [("backticks", "ls")]),
    ("s/x/'system(\"ls\")'/ee", [("system", "ls")]),
]

BROKEN = ["if ($x) { system(((", "system(((", "my $x = qx"]

GROWING = [
    "my $a0 = 'xxxxxxxxxx';\n"
    + "".join(f"my $a{i + 1} = $a{i} . $a{i};\n" for i in range(60))
    + "system $a60",
    "my @a0 = ('x');\n" + "".join(f"my @a{i + 1} = (@a{i}, @a{i});\n" for i in range(60)) + "system @a60",
    "my $a0 = shift;\n" + "".join(f"my $a{i + 1} = $a{i} . $a{i};\n" for i in range(60)) + "system $a60",
]

CHANGING_LOOPS = [
    'for my $c (@ARGV) { system("git $c") }',
    'for my $c ("a") { $c = "push -f"; system("git $c") }',  # the body changes it
    'for my $c ("a") { chomp($c); system("git $c") }',
    'for my $c ("a") { eval "1"; system("git $c") }',
    'system("git $_") for qw(status log)',  # `$_`: any code may change it
    'for $c ("ls") { f(); system($c) } sub f { $c = "rm -rf /" }',  # a global a sub writes
    'my @a = ("ls"); for my $x (@a) { $x = "rm -rf /" } system(@a)',  # written through the alias
    'my @a = ("ls"); for (@a) { s/ls/rm/; } system(@a)',
]


PIECES = ["system", "(", ")", "'ls'", '"a$x b"', ",", "`", "qx{", "}", "eval", "open", "FH", "'-|'",
           "<<'E';\n", "\nE\n", "[", "]", "{", "=", "my", "$x", "@y", ".", "s/a/", "/e", ";", " ",
           "\\", "for", "foreach", "(", "qw(a b)", "glob", "<~/*>", "rmtree", "dirname", "getcwd",
           "$ENV{X}"]  # fmt: skip


LOOPS = [
    ('for my $c ("status", "log -1") { system("git $c") }', ["git status", "git log -1"]),
    ('foreach my $d (qw(a b)) { my $cmd = "make $d"; system($cmd); }', ["make a", "make b"]),
    ('my @steps = ("npm ci", "npm test"); for my $s (@steps) { system $s }', ["npm ci", "npm test"]),
    ('for my $f ("a", "b") { `cat $f` }', ["cat a", "cat b"]),
]


REMOVALS = [
    ("remove_tree((getpwuid($<))[7])", "remove_tree", ("rm", "-rf", "$HOME")),
    ("rmtree(dirname(getcwd()))", "rmtree", ("rm", "-rf", "..")),
    ("use Cwd; rmtree(Cwd::cwd())", "rmtree", ("rm", "-rf", ".")),
    ('rmtree(dirname("/home/dev/x"))', "rmtree", ("rm", "-rf", "/home/dev")),
    ("rmtree($ENV{PWD})", "rmtree", ("rm", "-rf", ".")),
    ('unlink("~/x")', "unlink", ("rm", "~/x")),  # a literal `~` is a file named so
]


NESTED_EVAL = nested(
    "system 'ls'", lambda code: "eval '" + code.replace("\\", "\\\\").replace("'", "\\'") + "'"
)
LINES = "my $x = 1;\n\nsystem 'ls';\neval \"\\n\\nsystem 'pwd'\";\n`id`;"
ARGV_HOLE = ("system 'git', 'push', $b", ("git", "push", None))
ARGV_SPREAD = ("system 'git', 'push', @ARGV", ("git", "push", None))
ARGV_PROGRAM = ("system $prog, 'push'", (None, "push"))
BROKEN_QUIET = "print((("
BROKEN_PARTIAL = ["system 'git push -f';\nprint((("]
ENV_REMOVAL = (
    "rmtree($ENV{TARGET})",
    {"TARGET": "/usr"},
    Launch(api="rmtree", argv=("rm", "-rf", "/usr"), line=1),
)
ENV_SHELL = ("system $ENV{CMD}", {"CMD": "ls"})


# --- Perl's own ----------------------------------------------------------------------------------------


def test_code_run_by_s_e_with_a_run_time_value_is_unknown() -> None:
    found = only("$s =~ s/(\\w+)/system($1)/e")
    assert (found.api, found.shell) == ("system", None)
    assert found.unknown


def test_ipc_run_reads_each_command_of_a_pipeline() -> None:
    assert read("IPC::Run::run(['ls'], '|', ['wc', '-l'])") == (
        Launch(api="IPC::Run::run", argv=("ls",), line=1),
        Launch(api="IPC::Run::run", argv=("wc", "-l"), line=1),
    )


def test_command_heredocs_run() -> None:
    assert only("print <<`CMD`;\ngit push -f\nCMD\n") == Launch(
        api="backticks", shell="git push -f\n", line=1
    )


@pytest.mark.parametrize(
    "code",
    [
        "print <<E;\n$y",  # tree-sitter-perl loops forever on these unless the text ends in a newline
        "print <<~E;\n  $y",
        "print <<E;\n\\n",
        "print <<E;\n${x}",
        "<<E\n@y",
        "s/a/<<`E`;\n'-|'#\\Q`<<'E';\n<<`E`;\n@y*foo{*foo\\Ulocallocal&/ee",  # the same, in code s///ee reads
    ],
)
def test_text_the_grammar_would_hang_on_is_read(code: str) -> None:
    for launch in read(code):
        assert not launch.unknown.startswith("reading the perl program failed"), launch


@pytest.mark.parametrize(
    ("code", "line"),
    [
        ('remove_tree(glob("~"))', "rm -rf $HOME"),
        ('remove_tree(glob("/home/dev/*"))', "rm -rf /home/dev/*"),
        ('rmtree(glob("~/*"))', "rm -rf $HOME/*"),
        ('rmtree(glob "~/*")', "rm -rf $HOME/*"),
        ("rmtree(<~/*>)", "rm -rf $HOME/*"),
        ("rmtree(<$ENV{HOME}/*>)", "rm -rf $HOME/*"),
        ('unlink glob("/tmp/*.log")', "rm /tmp/*.log"),
    ],
)
def test_removing_a_glob_is_a_shell_line_with_the_wildcards_unquoted(code: str, line: str) -> None:
    assert only(code).shell == line


def test_a_sub_the_program_defines_is_no_builtin_path_function() -> None:
    assert read('sub dirname { "/" } rmtree(dirname("x"))') == ()  # built at run time: data


def test_a_lexical_loop_variable_is_its_own() -> None:
    code = 'for my $c ("ls") { f(); system($c) } sub f { $c = "rm -rf /" }'
    assert [launch.shell for launch in read(code)] == ["ls"]
