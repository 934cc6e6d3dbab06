"""The Ruby reader: what a `ruby -e` program or a script on stdin would launch."""

from __future__ import annotations

import pytest

from rein.steering.bash.launch import RUNTIME, Launch, launches
from tests.steering.bash.launch._script_contract import nested


def read(code: str) -> tuple[Launch, ...]:
    return launches("ruby", code)


def only(code: str) -> Launch:
    found = read(code)
    assert len(found) == 1, found
    return found[0]


# --- the examples of the contract all three readers keep (test_script_readers.py) ----------------------

LANGUAGE = "ruby"

SHELL = [
    ("system('git push --force')", "system", "git push --force"),
    ('system("git push --force")', "system", "git push --force"),
    ("system 'ls -l'", "system", "ls -l"),
    ("system('ls') if true", "system", "ls"),
    ("exec('ls')", "exec", "ls"),
    ("spawn 'ls', out: :close", "spawn", "ls"),
    ("Kernel.system('ls')", "Kernel.system", "ls"),
    ("::Kernel.system('ls')", "Kernel.system", "ls"),
    ("Kernel.exec('ls')", "Kernel.exec", "ls"),
    ("Kernel.spawn('ls')", "Kernel.spawn", "ls"),
    ("Process.spawn('ls')", "Process.spawn", "ls"),
    ("Process.exec('ls')", "Process.exec", "ls"),
    ("PTY.spawn('ls')", "PTY.spawn", "ls"),
    ("`rm -rf ~`", "backticks", "rm -rf ~"),
    ("%x(ls)", "%x", "ls"),
    ("%x{git stash clear}", "%x", "git stash clear"),
    ("x = `ls`", "backticks", "ls"),
    ("IO.popen('ls')", "IO.popen", "ls"),
    ("IO.popen('ls', 'r') { |f| f.read }", "IO.popen", "ls"),
    ("IO.popen({'A' => '1'}, 'ls')", "IO.popen", "ls"),
    ("File.popen('ls')", "File.popen", "ls"),
    ("Open3.popen3('ls')", "Open3.popen3", "ls"),
    ("Open3.popen2('ls')", "Open3.popen2", "ls"),
    ("Open3.popen2e('ls')", "Open3.popen2e", "ls"),
    ("Open3.capture2('ls', stdin_data: 'x')", "Open3.capture2", "ls"),
    ("Open3.capture2e('ls')", "Open3.capture2e", "ls"),
    ("o, e, s = Open3.capture3('git reset --hard')", "Open3.capture3", "git reset --hard"),
    ("open('|rm -rf ~')", "open", "rm -rf ~"),
    ("Kernel.open('|ls')", "Kernel.open", "ls"),
    ("IO.read('|ls')", "IO.read", "ls"),
    ("IO.readlines('|ls')", "IO.readlines", "ls"),
    ("system({'A' => '1'}, 'cmd')", "system", "cmd"),
    ("system({'A' => '1'}, 'cmd', chdir: '/')", "system", "cmd"),
    ("system('cmd', exception: true)", "system", "cmd"),
    ("send(:system, 'ls')", "send(:system)", "ls"),
    ("send('system', 'ls')", "send(:system)", "ls"),
    ("__send__(:system, 'ls')", "__send__(:system)", "ls"),
    ("public_send(:system, 'ls')", "public_send(:system)", "ls"),
    ("Kernel.send(:system, 'ls')", "Kernel.send(:system)", "ls"),
    ("Object.new.send(:system, 'ls')", "send(:system)", "ls"),
    ("Process.send(:spawn, 'ls')", "Process.send(:spawn)", "ls"),
    ("send(:send, :system, 'ls')", "send(:system)", "ls"),
    ("send(:\"system\", 'ls')", "send(:system)", "ls"),
    ("method(:system).call('ls')", "method(:system).call", "ls"),
    ("method(:system).('ls')", "method(:system).()", "ls"),
    ("method(:system)['ls']", "method(:system).[]", "ls"),
    ("Kernel.method(:exec).call('ls')", "method(:exec).call", "ls"),
    ("m = method(:system); m.call('ls')", "method(:system).call", "ls"),
    ("Process::spawn('ls')", "Process.spawn", "ls"),
    ("Kernel.`('ls')", "Kernel.`", "ls"),
    ("send(:`, 'ls')", "send(:`)", "ls"),
    ("Object.const_get(:Kernel).system('ls')", "Kernel.system", "ls"),
    ("Object.const_get(name).system('ls')", "Kernel.system", "ls"),  # may well be Kernel
    ("k = Kernel; k.system('ls')", "system", "ls"),
    ("Kernel.then { |k| k.system('ls') }", "system", "ls"),
    ("obj.spawn('ls')", "spawn", "ls"),  # Kernel's private methods: no other object has them
    ("include Open3; capture2('ls')", "capture2", "ls"),
]

ARGV = [
    ("system('git', 'push', '-f')", "system", ("git", "push", "-f")),
    ("system 'git', 'push'", "system", ("git", "push")),
    ("exec('ls', '-l')", "exec", ("ls", "-l")),
    ("system(['ls', 'argv0'], '-l')", "system", ("ls", "-l")),
    ("system(['ls', 'argv0'])", "system", ("ls",)),
    ("system({'A' => '1'}, 'git', 'push', unsetenv_others: true)", "system", ("git", "push")),
    ("system(*%w[git push -f])", "system", ("git", "push", "-f")),
    ("system(*['git', 'push'])", "system", ("git", "push")),
    ("cmd = %w[git push -f]; system(*cmd)", "system", ("git", "push", "-f")),
    ("system('git', *%w[push -f])", "system", ("git", "push", "-f")),
    ("IO.popen(['git', 'push', '-f'])", "IO.popen", ("git", "push", "-f")),
    ("IO.popen([['git', 'g'], 'push'])", "IO.popen", ("git", "push")),
    ("IO.popen([{'A' => '1'}, 'ls', '-l', {err: :out}])", "IO.popen", ("ls", "-l")),
    ("Open3.capture3('git', 'push')", "Open3.capture3", ("git", "push")),
    ("Process.spawn({'A' => '1'}, 'ls', '-l')", "Process.spawn", ("ls", "-l")),
    ("PTY.spawn('ls', '-l')", "PTY.spawn", ("ls", "-l")),
    ("send(:system, 'git', 'push')", "send(:system)", ("git", "push")),
    ("FileUtils.rm_rf('/tmp/x')", "FileUtils.rm_rf", ("rm", "-rf", "/tmp/x")),
    ("FileUtils.rm_r('/tmp/x')", "FileUtils.rm_r", ("rm", "-rf", "/tmp/x")),
    ("FileUtils.remove_dir('/x')", "FileUtils.remove_dir", ("rm", "-rf", "/x")),
    ("FileUtils.remove_entry('/x')", "FileUtils.remove_entry", ("rm", "-rf", "/x")),
    ("FileUtils.rmtree('/x')", "FileUtils.rmtree", ("rm", "-rf", "/x")),
    ("FileUtils.rm_rf(['/a', '/b'])", "FileUtils.rm_rf", ("rm", "-rf", "/a", "/b")),
    ("FileUtils.rm_rf('~/x')", "FileUtils.rm_rf", ("rm", "-rf", "~/x")),
    ("FileUtils.rm_rf(Dir.home)", "FileUtils.rm_rf", ("rm", "-rf", "$HOME")),
    ("FileUtils.rm_rf(ENV['HOME'])", "FileUtils.rm_rf", ("rm", "-rf", "$HOME")),
    ("FileUtils.rm_rf(ENV.fetch('HOME'))", "FileUtils.rm_rf", ("rm", "-rf", "$HOME")),
    ("FileUtils.rm_rf(File.expand_path('~'))", "FileUtils.rm_rf", ("rm", "-rf", "$HOME")),
    ("FileUtils.rm_rf(File.expand_path('~/src'))", "FileUtils.rm_rf", ("rm", "-rf", "$HOME/src")),
    ("FileUtils.rm_rf(File.join(Dir.home, 'x'))", "FileUtils.rm_rf", ("rm", "-rf", "$HOME/x")),
    ('FileUtils.rm_rf("#{Dir.home}/x")', "FileUtils.rm_rf", ("rm", "-rf", "$HOME/x")),
    ("FileUtils.rm('/x')", "FileUtils.rm", ("rm", "/x")),
    ("FileUtils.rm_f('/x')", "FileUtils.rm_f", ("rm", "-f", "/x")),
    ("File.delete('/etc/x')", "File.delete", ("rm", "/etc/x")),
    ("File.unlink('/etc/x')", "File.unlink", ("rm", "/etc/x")),
    ("Dir.rmdir('/x')", "Dir.rmdir", ("rmdir", "/x")),
    ("include FileUtils; rm_rf '/x'", "rm_rf", ("rm", "-rf", "/x")),
]

FOLDS = [
    ("system('a\\'b\\\\c\\n')", "a'b\\c\\n"),  # single quotes: only \\ and \' are escapes
    ("system(%q(a\\nb))", "a\\nb"),
    ('system("a\\tb\\u0041\\x41\\101\\e")', "a\tbAAA\x1b"),
    ('system("a\\sb")', "a b"),
    ('system("a\\qb")', "aqb"),
    ('system("a\\\nb")', "ab"),
    ('system("a\\u{42 43}")', "aBC"),
    ("system(%Q(git push -f))", "git push -f"),
    ("system(%(git push -f))", "git push -f"),
    ("system(%Q{git #{'push'} -f})", "git push -f"),
    ('system("git " "push")', "git push"),
    ('system("git " + "push" + " -f")', "git push -f"),
    ('system("git push #{"-f"}")', "git push -f"),
    ('system("count #{1}")', "count 1"),
    ('x = "git push -f"; system x', "git push -f"),
    ('X = "git push -f"; system X', "git push -f"),
    ('@x = "git push -f"; system @x', "git push -f"),
    ('f = "-f"; system "git push #{f}"', "git push -f"),
    ('a = "git"; b = a + " push"; system b', "git push"),
    ('x = "git push -f"; puts x; system(x)', "git push -f"),
    ('system(%w[git push -f].join(" "))', "git push -f"),
    ('system("rm -rf #{Dir.home}")', "rm -rf $HOME"),
    ('system("ls #{Dir.home}_x #{Dir.home}x")', "ls ${HOME}_x ${HOME}x"),  # not $HOME_x, $HOMEx
    ('system("rm -rf #{ENV["HOME"]}/src")', "rm -rf $HOME/src"),
    ('system("rm -rf \\"#{Dir.home}\\"")', 'rm -rf "$HOME"'),
    ("system(<<~EOS)\n  git push -f\nEOS\n", "  git push -f\n"),
    ("system(<<-'EOS')\n  ls #{x}\n  EOS\n", "  ls #{x}\n"),
    ("system(<<EOS)\ngit push -f\nEOS", "git push -f\n"),
    ('system("ls".freeze)', "ls"),
    ("system(?l + ?s)", "ls"),
    ('x = y = "git push"; system x', "git push"),
    ('system(x = "ls")', "ls"),
    ('$c = "git push"; system $c', "git push"),
]

HOLES = [
    ('d = ARGV[0]; system("rm -rf #{d}")', f"rm -rf {RUNTIME}"),
    ('system("git push #{branch}")', f"git push {RUNTIME}"),
    ('system("git push #@b #$g")', f"git push {RUNTIME} {RUNTIME}"),
    ("`git push #{x}`", f"git push {RUNTIME}"),
    ("%x(git #{x})", f"git {RUNTIME}"),
    ('system("git " + ARGV[0])', f"git {RUNTIME}"),
    ("system(\"rm -rf '#{Dir.home}'\")", f"rm -rf '{RUNTIME}'"),  # $HOME would not expand in '...'
    ('x = "ls"; x = "rm"; system("#{x} -l")', f"{RUNTIME} -l"),
    ('x = "ls"; x << " /"; system("#{x} -l")', f"{RUNTIME} -l"),
    ('x = "ls"; x.replace("rm"); system("#{x} -l")', f"{RUNTIME} -l"),
    ('x = "ls"; x += "a"; system("#{x} -l")', f"{RUNTIME} -l"),
    ('x = "ls"; f(x); system("#{x} -l")', f"{RUNTIME} -l"),
    ('x = "ls"; eval("x = 1"); system("#{x} -l")', f"{RUNTIME} -l"),
    ('list.each { |x| system("#{x} -l") }', f"{RUNTIME} -l"),
    ('(x = "ls") << " /"; system("#{x} -l")', f"{RUNTIME} -l"),
    ('x = "ls"; (x) << " /"; system("#{x} -l")', f"{RUNTIME} -l"),
    ('x = "ls"; y = x; y << " /"; system("#{x} -l")', f"{RUNTIME} -l"),
    ('$_ = "ls"; gets; system("#{$_} -l")', f"{RUNTIME} -l"),
    ("system(<<~EOS)\n  git push #{x}\nEOS\n", f"  git push {RUNTIME}\n"),
    ('open("|git #{x}")', f"git {RUNTIME}"),
]

UNKNOWN = [
    ("system(ARGV[0])", "system"),
    ("system cmd", "system"),
    ("x = gets; system(x)", "system"),
    ("exec(*ARGV)", "exec"),
    ("send(name, 'ls')", "send"),
    ("Kernel.send(name, 'ls')", "Kernel.send"),
    ("eval(ARGV[0])", "eval"),
    ('eval("system #{x}")', "eval"),
    ("Kernel.eval(code)", "Kernel.eval"),
    ("binding.eval(code)", "binding.eval"),
    ("Object.class_eval(code)", "Object.class_eval"),
    ("String.module_eval(code)", "String.module_eval"),
    ("x.instance_eval(code)", "instance_eval"),
    ("[1].each(&method(:system))", "method"),
    ("m = method(:system); [1].each(&m)", "method"),
    ("method(name).call('ls')", "method"),
    ("open(ARGV[0])", "open"),
    ("IO.read(path)", "IO.read"),
    ("IO.popen(cmd)", "IO.popen"),
    ("alias run system", "alias"),
    ("alias_method :run, :system", "alias"),
    ("Kernel.instance_method(:system).bind(self).call('ls')", "method"),
    ("Kernel.instance_method(:system).bind_call(self, 'ls')", "method"),
    ("method(:system).to_proc.call('ls')", "method"),
    ("public_method(:exec).unbind", "method"),
    ("send(:method, :system).call('ls')", "send"),
]

NOTHING = [
    "",
    "puts 'git push -f'",
    'print "rm -rf /"',
    "x = 'git push --force'",
    "p %w[rm -rf /]",
    "File.read('|ls')",  # File.read never runs a command; only IO.read does
    "File.open('x')",
    "open('foo.txt')",
    "open('foo.txt') { |f| f.read }",
    "IO.popen('-')",  # forks, runs no command
    "open('|-')",
    "FileUtils.rm_rf(path)",  # a removal of a path built at run time is data
    "FileUtils.rm_rf(Dir.glob(pattern))",
    "File.delete(x)",
    "conn.exec('DROP TABLE x')",  # some other object's method
    "send(:puts, 'git push -f')",
    "method(:puts).call('rm -rf /')",
    "x.instance_eval { 1 }",
    "def system(x); end",
    "# system('git push -f')",
    "=begin\nsystem('git push -f')\n=end",
    "y = :system",
    "alias say puts",
    "alias_method :run, :puts",
]

EVALS = [
    ('eval("system(%q(git stash clear))")', [("system", "git stash clear")]),
    ("eval('`ls`')", [("backticks", "ls")]),
    ("instance_eval('system \"ls\"')", [("system", "ls")]),
    ("Kernel.eval('system \"ls\"')", [("system", "ls")]),
    ("send(:eval, 'system \"ls\"')", [("system", "ls")]),
    ("eval('eval(\"system 1.to_s\")')", [("system", "1")]),
    ("x.instance_eval { system 'y' }", [("system", "y")]),
    ("fork { exec 'ls' }", [("exec", "ls")]),
    ("RubyVM::InstructionSequence.compile('system %q(ls)').eval", [("system", "ls")]),
    ("system(`which git`.strip + ' push')", [("system", f"{RUNTIME} push"), ("backticks", "which git")]),
]

BROKEN = ["if x\n system(y", "def f(\n`ls", "foo(((\nsystem"]

BROKEN_PARTIAL = ["system('git push -f')\nputs(((", "system('git push -f'"]

GROWING = [
    "a0 = 'xxxxxxxxxx'\n" + "".join(f"a{i + 1} = a{i} + a{i}\n" for i in range(60)) + "system(a60)",
    "a0 = ['x']\n" + "".join(f"a{i + 1} = [*a{i}, *a{i}]\n" for i in range(60)) + "system(*a60)",
    "a0 = ARGV[0]\n" + "".join(f"a{i + 1} = a{i} + a{i}\n" for i in range(60)) + "system(a60)",
]

CHANGING_LOOPS = [
    'list.each { |c| system("git #{c}") }',
    '%w[a].each { |c| c << " -f"; system("git push #{c}") }',  # the body changes it
    '%w[a].each { |c| c = "push -f"; system("git #{c}") }',
    '%w[a].each { |c| mutate(c); system("git #{c}") }',  # passed where rein cannot see
    '%w[a].each { |c, d| system("git #{c}") }',
    '%w[a].each { |c| eval("c = 1"); system("git #{c}") }',
    '[*rest, "a"].each { |c| system(c) }',
    'y = "a"; pr = proc { y.replace("rm") }; for y in ["ls"] do pr.call; system(y) end',
]


PIECES = ["system", "(", ")", "'ls'", '"a#{x}b"', ",", "`", "%x(", "eval", "send", ":system", "<<~E\n",
           "\nE\n", "[", "]", "{", "}", "=", "x", ".", "method", "call", "*", "FileUtils", "rm_rf",
           " ", "each", "|c|", "do", "end", "for", "in", "%w[a b]", "Dir", "glob", "Pathname", "rmtree",
           "ENV"]  # fmt: skip


LOOPS = [
    ('%w[status log].each { |c| system("git #{c}") }', ["git status", "git log"]),
    ('["a", "b"].each do |x| cmd = "make #{x}"; system(cmd) end', ["make a", "make b"]),
    ('for y in ["b", "c"] do system(y) end', ["b", "c"]),
    ('steps = ["npm ci", "npm test"]; steps.each { |s| system(s) }', ["npm ci", "npm test"]),
    ("%w[a b].map { |f| `cat #{f}` }", ["cat a", "cat b"]),
    ("%w[a a].each { |c| system(c) }", ["a"]),
]


REMOVALS = [
    ("Pathname.new(Dir.home).rmtree", "Pathname#rmtree", ("rm", "-rf", "$HOME")),
    ('Pathname("/usr").rmtree', "Pathname#rmtree", ("rm", "-rf", "/usr")),
    ('Pathname.new("/x").delete', "Pathname#delete", ("rm", "/x")),
    ("FileUtils.rm_rf(File.dirname(Dir.pwd))", "FileUtils.rm_rf", ("rm", "-rf", "..")),
    ('FileUtils.rm_rf(File.expand_path(".."))', "FileUtils.rm_rf", ("rm", "-rf", "..")),
    ('FileUtils.rm_rf(File.expand_path("/usr/local/.."))', "FileUtils.rm_rf", ("rm", "-rf", "/usr")),
    ("FileUtils.rm_rf(File.dirname(Dir.home))", "FileUtils.rm_rf", ("rm", "-rf", "$HOME/..")),
    ('FileUtils.rm_rf(File.dirname("/home/dev/x"))', "FileUtils.rm_rf", ("rm", "-rf", "/home/dev")),
    ("FileUtils.rm_rf(Dir.pwd)", "FileUtils.rm_rf", ("rm", "-rf", ".")),
    ('FileUtils.rm_rf("~")', "FileUtils.rm_rf", ("rm", "-rf", "~")),  # a literal `~` is a file named so
    ('FileUtils.rm_rf(ENV["PWD"])', "FileUtils.rm_rf", ("rm", "-rf", ".")),
]


NESTED_EVAL = nested("system('ls')", lambda code: f"eval({code!r})")
LINES = "x = 1\n\nsystem('ls')\neval(\"\\n\\nsystem 'pwd'\")\n`id`"
ARGV_HOLE = ("system('git', 'push', ARGV[0])", ("git", "push", None))
ARGV_SPREAD = ("system('git', *ARGV)", ("git", None))
ARGV_PROGRAM = ("system(cmd, 'push')", (None, "push"))
BROKEN_QUIET = "puts((("
ENV_REMOVAL = (
    'FileUtils.rm_rf(ENV["TARGET"])',
    {"TARGET": "/"},
    Launch(api="FileUtils.rm_rf", argv=("rm", "-rf", "/"), line=1),
)
ENV_SHELL = ('system(ENV.fetch("CMD"))', {"CMD": "ls"})


# --- Ruby's own ----------------------------------------------------------------------------------------


def test_pipelines_are_one_launch_per_command() -> None:
    found = read("Open3.pipeline('ls', ['git', 'push'], {'A' => '1'})")
    assert found == (
        Launch(api="Open3.pipeline", shell="ls", line=1),
        Launch(api="Open3.pipeline", argv=("git", "push"), line=1),
    )
    assert len(read("Open3.pipeline_r('a', 'b') { |o, t| }")) == 2


def test_a_method_reference_held_in_a_variable_is_read_where_it_is_called() -> None:
    found = read("m = method(:system); m.call('a'); m['b']; m.('c')")
    assert [launch.shell for launch in found] == ["a", "b", "c"]
    assert not any(launch.unknown for launch in found)


@pytest.mark.parametrize(
    ("code", "line"),
    [
        ('FileUtils.rm_rf(Dir.glob("/home/dev/*"))', "rm -rf /home/dev/*"),
        ('FileUtils.rm_rf(Dir["/home/dev/*"])', "rm -rf /home/dev/*"),
        ('FileUtils.rm_r(Dir.glob("~/*"))', "rm -rf $HOME/*"),
        ('FileUtils.rm_rf(Dir.glob("/a b/*.log"))', "rm -rf '/a b/'*.log"),
        ('FileUtils.rm_rf(Dir.glob("*"))', "rm -rf *"),
    ],
)
def test_removing_a_glob_is_a_shell_line_with_the_wildcards_unquoted(code: str, line: str) -> None:
    assert only(code) == Launch(api=only(code).api, shell=line, line=1)


def test_home_in_a_shell_line_is_the_variable() -> None:
    assert only('system("rm -rf #{Dir.home}/x")').shell == "rm -rf $HOME/x"
    assert only('system("ls #{Dir.pwd}")').shell == "ls $PWD"
