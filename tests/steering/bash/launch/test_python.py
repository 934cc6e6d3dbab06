"""The Python reader: what a `python -c` program or a script on stdin would launch."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rein.steering.bash.launch import RUNTIME, Launch, launches
from rein.steering.bash.launch.python._reader import read as read_python


def read(code: str, env: dict[str, str] | None = None) -> tuple[Launch, ...]:
    return launches("python", code, env)


def only(code: str, env: dict[str, str] | None = None) -> Launch:
    found = read(code, env)
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize(
    ("code", "api", "shell"),
    [
        ("import os; os.system('git push --force')", "os.system", "git push --force"),
        ('import os; os.system("git push --force")', "os.system", "git push --force"),
        ("os.system('ls')", "os.system", "ls"),  # no import: `-c` code rein may see only part of
        ("import os; os.system(command='ls')", "os.system", "ls"),
        ("import os; os.popen('ls').read()", "os.popen", "ls"),
        ("import os as o; o.system('ls')", "o.system", "ls"),
        ("import os.path; os.system('ls')", "os.system", "ls"),
        ("from os import system; system('ls')", "system", "ls"),
        ("from os import system as s; s('rm -rf /')", "s", "rm -rf /"),
        ("from os import popen as p\np('ls')", "p", "ls"),
        ("from os import *\nsystem('ls')", "system", "ls"),
        ("import posix; posix.system('ls')", "posix.system", "ls"),
        ("import subprocess; subprocess.run('ls', shell=True)", "subprocess.run", "ls"),
        ("import subprocess; subprocess.call('ls', shell=True)", "subprocess.call", "ls"),
        ("import subprocess; subprocess.check_call('ls', shell=True)", "subprocess.check_call", "ls"),
        ("import subprocess; subprocess.check_output('ls', shell=True)", "subprocess.check_output", "ls"),
        ("import subprocess; subprocess.Popen('ls', shell=True).wait()", "subprocess.Popen", "ls"),
        ("import subprocess; subprocess.run(args='ls', shell=True)", "subprocess.run", "ls"),
        ("import subprocess; subprocess.run('ls', shell=1)", "subprocess.run", "ls"),
        ("import subprocess; subprocess.run(['ls -l', 'sh', 'x'], shell=True)", "subprocess.run", "ls -l"),
        ("import subprocess; subprocess.run(('ls',), shell=True)", "subprocess.run", "ls"),
        (
            "import subprocess; subprocess.run('ls', shell=True, executable='/bin/bash')",
            "subprocess.run",
            "ls",
        ),
        ("import subprocess; subprocess.getoutput('ls')", "subprocess.getoutput", "ls"),
        ("import subprocess; subprocess.getstatusoutput('ls')", "subprocess.getstatusoutput", "ls"),
        ("import subprocess as sp; sp.call('rm -rf ~', shell=True)", "sp.call", "rm -rf ~"),
        ("from subprocess import *\nrun('git push -f', shell=True)", "run", "git push -f"),
        ("from subprocess import run as r; r('ls', shell=True)", "r", "ls"),
        ("import commands; commands.getoutput('ls')", "commands.getoutput", "ls"),
        ("import commands; commands.getstatusoutput('ls')", "commands.getstatusoutput", "ls"),
        ("import platform; platform.popen('ls')", "platform.popen", "ls"),
        ("import os; os.popen2('ls')", "os.popen2", "ls"),
        (
            "import asyncio; asyncio.create_subprocess_shell('npm run dev')",
            "asyncio.create_subprocess_shell",
            "npm run dev",
        ),
        (
            "import asyncio.subprocess as s; s.create_subprocess_shell('ls')",
            "s.create_subprocess_shell",
            "ls",
        ),
        ("loop.subprocess_shell(Proto, 'git clean -fdx')", "loop.subprocess_shell", "git clean -fdx"),
        ("self.loop.subprocess_shell(Proto, cmd='ls')", "self.loop.subprocess_shell", "ls"),
        ("import pexpect; pexpect.spawn('ssh host')", "pexpect.spawn", "ssh host"),
        ("import pexpect; pexpect.run('ls')", "pexpect.run", "ls"),
        # Indirections
        ("__import__('os').system('id')", "__import__('os').system", "id"),
        ("__import__('os.path').system('id')", "__import__('os.path').system", "id"),
        (
            "import importlib; importlib.import_module('os').system('id')",
            "importlib.import_module('os').system",
            "id",
        ),
        ("import os; getattr(os, 'system')('id')", "getattr(os, 'system')", "id"),
        ("import os; getattr(os, 'sys' + 'tem')('id')", "getattr(os, 'sys' + 'tem')", "id"),
        ("getattr(__import__('os'), 'system')('id')", "getattr(__import__('os'), 'system')", "id"),
        ("import os; os.__dict__['system']('id')", "os.__dict__['system']", "id"),
        ("import os; vars(os)['system']('id')", "vars(os)['system']", "id"),
        ("import sys; sys.modules['os'].system('id')", "sys.modules['os'].system", "id"),
        ("import os; o = os; o.system('id')", "o.system", "id"),
        ("import os; a = os; b = a; b.system('id')", "b.system", "id"),
        ("import os; run = os.system; run('id')", "run", "id"),
        ("import os; run: object = os.system; run('id')", "run", "id"),
        ("import os\nif (run := os.system):\n    run('id')", "run", "id"),
        ("sp = __import__('subprocess'); sp.call('id', shell=True)", "sp.call", "id"),
        ("m = 'os'; __import__(m).system('id')", "__import__(m).system", "id"),
        ("eval('os.system')('id')", "eval('os.system')", "id"),
        ("eval(\"__import__('os')\").system('id')", "eval(\"__import__('os')\").system", "id"),
        ("import subprocess; subprocess.os.system('id')", "subprocess.os.system", "id"),
        ("import os; os.system.__call__('id')", "os.system.__call__", "id"),
        ("import builtins; builtins.__import__('os').system('id')", "builtins.__import__('os').system", "id"),
        ("import ctypes; ctypes.CDLL(None).system(b'rm -rf /')", "ctypes.CDLL(None).system", "rm -rf /"),
        ("import ctypes; libc = ctypes.CDLL('libc.so.6'); libc.system(b'ls')", "libc.system", "ls"),
        (
            "import ctypes; ctypes.cdll.LoadLibrary('libc.so.6').system(b'ls')",
            "ctypes.cdll.LoadLibrary('libc.so.6').system",
            "ls",
        ),
        ("import os\nglobals()['os'].system('id')", "globals()['os'].system", "id"),
        ("from os import system as s\nvars()['s']('id')", "vars()['s']", "id"),
        (
            "__builtins__.__dict__['__import__']('os').system('id')",
            "__builtins__.__dict__['__import__']('os').system",
            "id",
        ),
        (
            "import operator, os; operator.attrgetter('system')(os)('id')",
            "operator.attrgetter('system')(os)",
            "id",
        ),
        ("import sys; sys.modules[__name__].os.system('id')", "sys.modules[__name__].os.system", "id"),
        ("import subprocess; subprocess.Popen[bytes]('id', shell=True)", "subprocess.Popen[bytes]", "id"),
        (
            "import os\ndef setup():\n    global b\n    b = a\na = os\nsetup()\nb.system('id')",
            "b.system",
            "id",
        ),
        (
            "try:\n    import subprocess32 as subprocess\nexcept ImportError:\n    import subprocess\n"
            "subprocess.call('ls', shell=True)",
            "subprocess.call",
            "ls",
        ),
    ],
)
def test_a_string_runs_through_a_shell(code: str, api: str, shell: str) -> None:
    found = only(code)
    assert found == Launch(api=api, shell=shell, line=found.line)


@pytest.mark.parametrize(
    ("code", "shell"),
    [
        ("os.system('git ' 'push')", "git push"),
        ("os.system('git ' + 'push' + ' -f')", "git push -f"),
        ("os.system('git\\x20push\\t-f')", "git push\t-f"),
        ("os.system('\\u0067it push')", "git push"),
        ("os.system(r'echo \\n')", "echo \\n"),
        ("os.system(b'git push')", "git push"),
        ("os.system('''git\npush''')", "git\npush"),
        ("os.system(f'git push')", "git push"),
        ("os.system(f'git {\"push\"} -f')", "git push -f"),
        ("os.system(f'sleep {5}')", "sleep 5"),
        ("os.system(f'echo {\"a\"!r}')", "echo 'a'"),
        ("os.system('rm -rf %s' % '/')", "rm -rf /"),
        ("os.system('%s %s' % ('git', 'push'))", "git push"),
        ("os.system('100%% %s' % ('x',))", "100% x"),
        ("os.system('sleep %d' % 3)", "sleep 3"),
        ("os.system('{} {}'.format('git', 'push'))", "git push"),
        ("os.system('{1} {0}'.format('push', 'git'))", "git push"),
        ("os.system('{a} {b}'.format(a='git', b='push'))", "git push"),
        ("os.system('{{x}} {}'.format('y'))", "{x} y"),
        ("os.system(' '.join(['git', 'push', '-f']))", "git push -f"),
        ("os.system(' '.join(('git', 'push')))", "git push"),
        ("import shlex; os.system(shlex.join(['git', 'commit', '-m', 'a b']))", "git commit -m 'a b'"),
        ("import shlex; os.system('rm -rf ' + shlex.quote('/'))", "rm -rf /"),
        ("os.system('GIT PUSH'.lower())", "git push"),
        ("os.system('  ls  '.strip())", "ls"),
        ("os.system('git pull'.replace('pull', 'push'))", "git push"),
        ("os.system(str('ls'))", "ls"),
        ("os.system(chr(108) + chr(115))", "ls"),
        ("os.system(b'ls'.decode())", "ls"),
        ("os.system(['ls', 'rm'][1])", "rm"),
        ("CMD = 'git push --force'\nos.system(CMD)", "git push --force"),
        ("A = 'git'\nB = A + ' push'\nos.system(B)", "git push"),
        ("CMD: str = 'ls'\nos.system(CMD)", "ls"),
        ("def f():\n    cmd = 'ls'\n    os.system(cmd)\nf()", "ls"),
        ("cmd = 'rm -rf %s' % '/'\nos.system(cmd)", "rm -rf /"),
        ("base = 'git'\nos.system(f'{base} push')", "git push"),
        ("os.system(f'{__name__}')", "__main__"),
    ],
)
def test_literals_are_decoded_and_joined(code: str, shell: str) -> None:
    found = only(code)
    assert (found.shell, found.unknown, found.api) == (shell, "", "os.system")


@pytest.mark.parametrize(
    ("code", "api", "argv"),
    [
        ("import subprocess as sp\nsp.run(['rm', '-rf', '/'])", "sp.run", ("rm", "-rf", "/")),
        ("import subprocess; subprocess.run(('git', 'push'))", "subprocess.run", ("git", "push")),
        (
            "import subprocess; subprocess.run(['git', 'push'], shell=False)",
            "subprocess.run",
            ("git", "push"),
        ),
        ("import subprocess; subprocess.run(args=['ls'])", "subprocess.run", ("ls",)),
        (
            "import subprocess; subprocess.Popen(['npm', 'run', 'dev'])",
            "subprocess.Popen",
            ("npm", "run", "dev"),
        ),
        (
            "import subprocess; subprocess.check_output(['git', 'log'], text=True)",
            "subprocess.check_output",
            ("git", "log"),
        ),
        ("import subprocess; subprocess.run('ls -la')", "subprocess.run", ("ls -la",)),
        (
            "import subprocess; subprocess.run(['git', 'push', branch])",
            "subprocess.run",
            ("git", "push", None),
        ),
        (
            "import subprocess; subprocess.run(['git', *['push', '-f']])",
            "subprocess.run",
            ("git", "push", "-f"),
        ),
        ("import subprocess; subprocess.run(['git'] + ['push'])", "subprocess.run", ("git", "push")),
        ("import subprocess; subprocess.run('git push -f'.split())", "subprocess.run", ("git", "push", "-f")),
        (
            "import subprocess, shlex; subprocess.run(shlex.split('git commit -m \"a b\"'))",
            "subprocess.run",
            ("git", "commit", "-m", "a b"),
        ),
        ("import subprocess; subprocess.run(['ls'], executable='/bin/rm')", "subprocess.run", ("/bin/rm",)),
        (
            "import subprocess; subprocess.run(['x', '-rf', '/'], executable='rm')",
            "subprocess.run",
            ("rm", "-rf", "/"),
        ),
        (
            "from subprocess import check_output; check_output(['git', 'branch', '-D', 'old'])",
            "check_output",
            ("git", "branch", "-D", "old"),
        ),
        (
            "ARGS = ['git', 'reset', '--hard']\nimport subprocess; subprocess.run(ARGS)",
            "subprocess.run",
            ("git", "reset", "--hard"),
        ),
        ("import os; os.execvp('git', ['git', 'push', '-f'])", "os.execvp", ("git", "push", "-f")),
        ("import os; os.execv('/bin/rm', ['rm', '-rf', '/'])", "os.execv", ("/bin/rm", "-rf", "/")),
        ("import os; os.execve('/bin/rm', ['rm', '-rf', '/'], {})", "os.execve", ("/bin/rm", "-rf", "/")),
        ("import os; os.execvpe('git', ('git', 'push'), env)", "os.execvpe", ("git", "push")),
        ("import os; os.execl('/bin/rm', 'rm', '-rf', '/')", "os.execl", ("/bin/rm", "-rf", "/")),
        ("import os; os.execlp('git', 'git', 'push', '-f')", "os.execlp", ("git", "push", "-f")),
        ("import os; os.execle('/bin/ls', 'ls', '-l', {'A': '1'})", "os.execle", ("/bin/ls", "-l")),
        ("import os; os.execlpe('ls', 'ls', '-l', env)", "os.execlpe", ("ls", "-l")),
        ("import os; os.execl('/bin/ls')", "os.execl", ("/bin/ls",)),
        ("import os; os.execlp('git', 'fake', 'push')", "os.execlp", ("git", "push")),
        (
            "import os; os.spawnl(os.P_WAIT, '/bin/rm', 'rm', '-rf', '/')",
            "os.spawnl",
            ("/bin/rm", "-rf", "/"),
        ),
        (
            "import os; os.spawnlp(os.P_WAIT, 'git', 'git', 'reset', '--hard')",
            "os.spawnlp",
            ("git", "reset", "--hard"),
        ),
        ("import os; os.spawnle(0, '/bin/ls', 'ls', '-a', env)", "os.spawnle", ("/bin/ls", "-a")),
        ("import os; os.spawnlpe(0, 'ls', 'ls', '-a', env)", "os.spawnlpe", ("ls", "-a")),
        (
            "import os; os.spawnv(os.P_NOWAIT, '/bin/rm', ['rm', '-rf', '/'])",
            "os.spawnv",
            ("/bin/rm", "-rf", "/"),
        ),
        (
            "import os; os.spawnve(os.P_WAIT, '/bin/rm', ['rm', '-rf', '/'], {})",
            "os.spawnve",
            ("/bin/rm", "-rf", "/"),
        ),
        ("import os; os.spawnvp(0, 'git', ['git', 'push'])", "os.spawnvp", ("git", "push")),
        ("import os; os.spawnvpe(0, 'git', ['git', 'push'], env)", "os.spawnvpe", ("git", "push")),
        (
            "import os; os.posix_spawn('/bin/rm', ['rm', '-rf', '/'], {})",
            "os.posix_spawn",
            ("/bin/rm", "-rf", "/"),
        ),
        ("import os; os.posix_spawnp('git', ['git', 'push'], {})", "os.posix_spawnp", ("git", "push")),
        ("from os import *\nexecvp('git', ['git', 'push'])", "execvp", ("git", "push")),
        ("import pty; pty.spawn('bash')", "pty.spawn", ("bash",)),
        ("import pty; pty.spawn(['git', 'stash', 'clear'])", "pty.spawn", ("git", "stash", "clear")),
        (
            "import asyncio; asyncio.create_subprocess_exec('git', 'push', '-f')",
            "asyncio.create_subprocess_exec",
            ("git", "push", "-f"),
        ),
        (
            "import asyncio; asyncio.create_subprocess_exec(*['git', 'push'])",
            "asyncio.create_subprocess_exec",
            ("git", "push"),
        ),
        ("loop.subprocess_exec(Proto, 'git', 'push')", "loop.subprocess_exec", ("git", "push")),
        ("import pexpect; pexpect.spawn('git', ['push', '-f'])", "pexpect.spawn", ("git", "push", "-f")),
        ("import pexpect; pexpect.spawn('git', args=['push'])", "pexpect.spawn", ("git", "push")),
        (
            "import subprocess; subprocess.run(['rm', '-rf', __import__('os').path.expanduser('~')])",
            "subprocess.run",
            ("rm", "-rf", "$HOME"),
        ),
    ],
)
def test_a_list_is_an_argv(code: str, api: str, argv: tuple[str | None, ...]) -> None:
    assert only(code) == Launch(api=api, argv=argv, line=only(code).line)


@pytest.mark.parametrize(
    ("code", "api", "argv"),
    [
        ("import shutil; shutil.rmtree('/')", "shutil.rmtree", ("rm", "-rf", "/")),
        (
            "import shutil; shutil.rmtree(path='/tmp/x', ignore_errors=True)",
            "shutil.rmtree",
            ("rm", "-rf", "/tmp/x"),
        ),
        ("from shutil import rmtree; rmtree('build')", "rmtree", ("rm", "-rf", "build")),
        ("import os; os.remove('/etc/passwd')", "os.remove", ("rm", "/etc/passwd")),
        ("import os; os.unlink('a')", "os.unlink", ("rm", "a")),
        ("import os; os.unlink('-rf')", "os.unlink", ("rm", "./-rf")),
        ("import os; os.rmdir('/usr')", "os.rmdir", ("rmdir", "/usr")),
        ("import os; os.removedirs('a/b')", "os.removedirs", ("rmdir", "a/b")),
        (
            "import shutil, os; shutil.rmtree(os.path.expanduser('~'))",
            "shutil.rmtree",
            ("rm", "-rf", "$HOME"),
        ),
        (
            "import shutil, os; shutil.rmtree(os.path.expanduser('~/src'))",
            "shutil.rmtree",
            ("rm", "-rf", "$HOME/src"),
        ),
        ("import shutil, os; shutil.rmtree(os.environ['HOME'])", "shutil.rmtree", ("rm", "-rf", "$HOME")),
        ("import shutil, os; shutil.rmtree(os.getenv('HOME'))", "shutil.rmtree", ("rm", "-rf", "$HOME")),
        (
            "import shutil, os; shutil.rmtree(os.environ.get('HOME'))",
            "shutil.rmtree",
            ("rm", "-rf", "$HOME"),
        ),
        (
            "import shutil, os; shutil.rmtree(os.path.join(os.environ['HOME'], 'x'))",
            "shutil.rmtree",
            ("rm", "-rf", "$HOME/x"),
        ),
        (
            "import shutil, os; shutil.rmtree(os.environ['HOME'] + '/x')",
            "shutil.rmtree",
            ("rm", "-rf", "$HOME/x"),
        ),
        (
            "import shutil, os; shutil.rmtree(os.path.join('/tmp', x, '/etc'))",
            "shutil.rmtree",
            ("rm", "-rf", "/etc"),
        ),
        ("import shutil, os; shutil.rmtree(os.path.abspath('/a/../'))", "shutil.rmtree", ("rm", "-rf", "/")),
        (
            "import shutil; from pathlib import Path; shutil.rmtree(Path.home())",
            "shutil.rmtree",
            ("rm", "-rf", "$HOME"),
        ),
        (
            "import shutil; from pathlib import Path; shutil.rmtree(Path.home() / 'p')",
            "shutil.rmtree",
            ("rm", "-rf", "$HOME/p"),
        ),
        (
            "import shutil, pathlib; shutil.rmtree(pathlib.Path('~').expanduser())",
            "shutil.rmtree",
            ("rm", "-rf", "$HOME"),
        ),
        (
            "import shutil, pathlib; shutil.rmtree(str(pathlib.Path('/srv/')))",
            "shutil.rmtree",
            ("rm", "-rf", "/srv"),
        ),
        ("from pathlib import Path; Path('/tmp/x').unlink()", "Path('/tmp/x').unlink", ("rm", "/tmp/x")),
        (
            "from pathlib import Path; Path('/tmp/x').unlink(missing_ok=True)",
            "Path('/tmp/x').unlink",
            ("rm", "/tmp/x"),
        ),
        ("from pathlib import Path; Path('/srv').rmdir()", "Path('/srv').rmdir", ("rmdir", "/srv")),
        ("from pathlib import Path; Path('/srv').rmtree()", "Path('/srv').rmtree", ("rm", "-rf", "/srv")),
        (
            "from pathlib import Path; (Path.home() / 'x').unlink()",
            "(Path.home() / 'x').unlink",
            ("rm", "$HOME/x"),
        ),
        (
            "from pathlib import Path; Path('~').expanduser().rmdir()",
            "Path('~').expanduser().rmdir",
            ("rmdir", "$HOME"),
        ),
        (
            "from pathlib import Path; Path('/a').joinpath('b').unlink()",
            "Path('/a').joinpath('b').unlink",
            ("rm", "/a/b"),
        ),
        ("from pathlib import Path; Path('/a', 'b').unlink()", "Path('/a', 'b').unlink", ("rm", "/a/b")),
        ("from pathlib import Path\np = Path('/etc')\np.rmdir()", "p.rmdir", ("rmdir", "/etc")),
        ("import pathlib; pathlib.Path.unlink(pathlib.Path('/x'))", "pathlib.Path.unlink", ("rm", "/x")),
        ("from pathlib import Path; Path.cwd().rmdir()", "Path.cwd().rmdir", ("rmdir", ".")),
    ],
)
def test_a_removal_is_the_rm_it_is(code: str, api: str, argv: tuple[str, ...]) -> None:
    assert only(code) == Launch(api=api, argv=argv, line=1 if "\n" not in code else code.count("\n") + 1)


def test_home_from_the_command_line_environment_is_its_value() -> None:
    code = "import shutil, os; shutil.rmtree(os.environ['HOME'])"
    assert only(code, {"HOME": "/root"}).argv == ("rm", "-rf", "/root")
    assert only("import os; os.system(os.environ['CMD'])", {"CMD": "git push -f"}).shell == "git push -f"
    assert only("import os; os.system(os.getenv('CMD'))", {"CMD": "ls"}).shell == "ls"


@pytest.mark.parametrize(
    "code",
    [
        "import shutil; shutil.rmtree(tmp)",
        "import shutil, tempfile; d = tempfile.mkdtemp(); shutil.rmtree(d)",
        "import os; os.remove(path)",
        "import os; os.unlink(os.path.join(d, 'x'))",
        "import shutil; shutil.rmtree('/tmp/' + name)",
        "from pathlib import Path; Path(p).unlink()",
        "import atexit, shutil; atexit.register(shutil.rmtree, d)",
        "import weakref, shutil; weakref.finalize(o, shutil.rmtree, d)",
        "items = ['a']; items.remove('a')",
        "s = {'/'}; s.remove('/')",
        "x.unlink()",
        "conn.rmdir('/')",
    ],
)
def test_a_removal_of_a_path_built_at_run_time_is_data(code: str) -> None:
    assert read(code) == ()


@pytest.mark.parametrize(
    ("code", "api", "shell"),
    [
        ("import os\nos.system('rm -rf ' + d)", "os.system", f"rm -rf {RUNTIME}"),
        ("import os; os.system(f'rm -rf {d}/x')", "os.system", f"rm -rf {RUNTIME}/x"),
        ("import os; os.system(f'ls {x:>10}')", "os.system", f"ls {RUNTIME}"),
        ("import os; os.system('rm -rf %s' % d)", "os.system", f"rm -rf {RUNTIME}"),
        ("import os; os.system('rm -rf %s %s' % (a, '/'))", "os.system", f"rm -rf {RUNTIME} /"),
        ("import os; os.system('rm %-5s' % 'x')", "os.system", f"rm {RUNTIME}"),
        ("import os; os.system('git {}'.format(x))", "os.system", f"git {RUNTIME}"),
        ("import os; os.system('git {:>3}'.format('x'))", "os.system", f"git {RUNTIME}"),
        ("import os; os.system('git {0.x}'.format(o))", "os.system", f"git {RUNTIME}"),
        ("import os; os.system(' '.join(['git', x]))", "os.system", f"git {RUNTIME}"),
        ("import os; os.system(' '.join(['git', *rest]))", "os.system", f"git {RUNTIME}"),
        ("import os; os.system('rm -rf ' + os.environ['HOME'])", "os.system", f"rm -rf {RUNTIME}"),
        ("import subprocess; subprocess.run('git ' + sub, shell=True)", "subprocess.run", f"git {RUNTIME}"),
        ("import os; os.system(x + ' --force')", "os.system", f"{RUNTIME} --force"),
        ("cmd = 'git push ' + sys.argv[1]\nimport os; os.system(cmd)", "os.system", f"git push {RUNTIME}"),
    ],
)
def test_a_shell_text_built_at_run_time_is_known_in_part(code: str, api: str, shell: str) -> None:
    found = only(code)
    assert (found.api, found.shell) == (api, shell)
    assert found.unknown == f"{api} is called with a value built at run time"


@pytest.mark.parametrize(
    "code",
    [
        "import subprocess; subprocess.run([x, 'push'])",
        "import subprocess; subprocess.run(['ls'], executable=exe)",
        "import os; os.execv(path, ['x'])",
    ],
)
def test_a_program_named_at_run_time_with_known_arguments_is_left_to_the_walk(code: str) -> None:
    """Its arguments are known: the walker checks it as a command whose name is unknown, which every
    rule tries under each name it is about (`x push --force` may be git: blocked)."""
    (launch,) = read(code)
    assert launch.argv[0] is None and None not in launch.argv[1:] and not launch.unknown


@pytest.mark.parametrize(
    ("code", "api", "unknown"),
    [
        ("import subprocess\nsubprocess.run(cmd, shell=True)", "subprocess.run", "a value built at run time"),
        ("import os; os.system(cmd)", "os.system", "a value built at run time"),
        ("import os; os.system(input())", "os.system", "a value built at run time"),
        ("import os, sys; os.system(sys.argv[1])", "os.system", "a value built at run time"),
        ("import os; os.system(open('c').read())", "os.system", "a value built at run time"),
        ("import os; os.system(' '.join(args))", "os.system", "a value built at run time"),
        ("import os; os.system(a if b else 'ls')", "os.system", "a value built at run time"),
        ("import os; os.system(os.environ['CMD'])", "os.system", "a value built at run time"),
        ("import os; os.system(x or 'ls')", "os.system", "a value built at run time"),
        ("CMD = 'ls'\nCMD += ' -la'\nimport os; os.system(CMD)", "os.system", "a value built at run time"),
        ("CMD = 'ls'\nCMD = 'rm'\nimport os; os.system(CMD)", "os.system", "a value built at run time"),
        (
            "CMD = 'ls'\nfor CMD in cmds: pass\nimport os; os.system(CMD)",
            "os.system",
            "a value built at run time",
        ),
        (
            "CMD = 'ls'\nwith f() as CMD: pass\nimport os; os.system(CMD)",
            "os.system",
            "a value built at run time",
        ),
        ("CMD = 'ls'\ndef f(CMD): os.system(CMD)\nf(x)", "os.system", "a value built at run time"),
        (
            "CMD = 'ls'\ndef f():\n    global CMD\n    CMD = x\nos.system(CMD)",
            "os.system",
            "a value built at run time",
        ),
        ("CMD = 'ls'\nglobals()['CMD'] = x\nos.system(CMD)", "os.system", "a value built at run time"),
        ("CMD = 'ls'\nexec('CMD = x')\nos.system(CMD)", "os.system", "a value built at run time"),
        ("CMD = 'ls'\ndel CMD\nos.system(CMD)", "os.system", "a value built at run time"),
        ("a = b\nb = a\nos.system(a)", "os.system", "a value built at run time"),
        ("import subprocess; subprocess.run(cmd)", "subprocess.run", "a value built at run time"),
        ("import subprocess; subprocess.run(*a)", "subprocess.run", "a value built at run time"),
        ("import subprocess; subprocess.run(**kw)", "subprocess.run", "a value built at run time"),
        (
            "import subprocess; subprocess.run(['ls'], shell=flag)",
            "subprocess.run",
            "shell= built at run time",
        ),
        ("import subprocess; subprocess.run('ls', shell=flag)", "subprocess.run", "shell= built at run time"),
        ("import subprocess; subprocess.run(['ls'], **opts)", "subprocess.run", "shell= built at run time"),
        (
            "import subprocess; subprocess.run('ls', shell=True, executable='/usr/bin/python3')",
            "subprocess.run",
            "executable= rein does not know",
        ),
        ("import os; os.execl(*argv)", "os.execl", "argument list built at run time"),
        ("import pty; pty.spawn(argv)", "pty.spawn", "a value built at run time"),
        (
            "import asyncio; asyncio.create_subprocess_exec(*cmd)",
            "asyncio.create_subprocess_exec",
            "argument list built at run time",
        ),
        (
            "import asyncio; asyncio.create_subprocess_shell(cmd)",
            "asyncio.create_subprocess_shell",
            "a value built at run time",
        ),
        (
            "import ctypes; ctypes.CDLL(None).execv(b'/bin/sh', argv)",
            "ctypes.CDLL(None).execv",
            "C library's execv",
        ),
        (
            "import _posixsubprocess; _posixsubprocess.fork_exec(*a)",
            "_posixsubprocess.fork_exec",
            "starts a process rein cannot read",
        ),
        ("exec(code)", "exec", "exec is called with code built at run time"),
        ("eval(code)", "eval", "eval is called with code built at run time"),
        ("exec(open('x.py').read())", "exec", "code built at run time"),
        ("exec('import os; os.system(\"' + c + '\")')", "exec", "code built at run time"),
        ("import builtins; builtins.exec(c)", "builtins.exec", "code built at run time"),
        ("e = exec; e(c)", "e", "code built at run time"),
        ("compile(src, 'f', 'exec')", "compile", "code built at run time"),
        ("exec(compile(src, 'f', 'exec'))", "compile", "code built at run time"),
        ("import timeit; timeit.timeit(stmt)", "timeit.timeit", "code built at run time"),
        ("import timeit; timeit.timeit('pass', setup=s)", "timeit.timeit", "code built at run time"),
        ("import cProfile; cProfile.run(code)", "cProfile.run", "code built at run time"),
        ("import pdb; pdb.run(code)", "pdb.run", "code built at run time"),
        ("if 0:\n    from x import exec\nexec(c)", "exec", "code built at run time"),
        ("__import__(name)", "__import__", "imports a module whose name is built at run time"),
        ("__import__(name).system('ls')", "__import__", "imports a module whose name is built at run time"),
        (
            "import importlib; importlib.import_module(m)",
            "importlib.import_module",
            "imports a module whose name",
        ),
        ("import importlib; importlib.import_module('o' + m)", "importlib.import_module", "imports a module"),
        (
            "import importlib; importlib.import_module('os.' + m)",
            "importlib.import_module",
            "imports a module",
        ),
        ("import sys; sys.modules[name]", "sys.modules", "imports a module whose name is built at run time"),
        ("import sys; sys.modules.get(name)", "sys.modules.get", "imports a module whose name"),
        ("import os; getattr(os, name)('whoami')", "getattr", "reaches os by a name built at run time"),
        ("import os; getattr(os, 'sys' + x)('whoami')", "getattr", "reaches os by a name built at run time"),
        ("import subprocess; getattr(subprocess, f)('ls')", "getattr", "reaches subprocess by a name"),
        ("import builtins; getattr(builtins, 'ex' + 'ec'[:n])(c)", "getattr", "reaches builtins by a name"),
        ("import os; vars(os)[k]('x')", "vars(os)", "reaches os by a name built at run time"),
        ("import os; os.__dict__[k]('x')", "os.__dict__", "reaches os by a name built at run time"),
        ("import os; os.__dict__.get(k)('x')", "os.__dict__.get", "reaches os by a name built at run time"),
        (
            "import os, threading; threading.Thread(target=os.system, args=('ls',))",
            "os.system",
            "is used as a value rein cannot follow",
        ),
        ("import os; list(map(os.system, cmds))", "os.system", "is used as a value"),
        (
            "import subprocess; f = functools.partial(subprocess.run, shell=True)",
            "subprocess.run",
            "used as a value",
        ),
        ("from os import system\ncallbacks = [system]", "system", "used as a value"),
        ("list(map(exec, codes))", "exec", "used as a value"),
        ("import os\nclass A:\n    run = staticmethod(os.system)", "os.system", "used as a value"),
        ("import os\nself.run = os.system", "os.system", "used as a value"),
        ("import os\nf, a = (os.system, 'ls')", "os.system", "used as a value"),
        ("import os\nclass P(subprocess.Popen): pass", "subprocess.Popen", "used as a value"),
        (
            "import subprocess\nmap(subprocess.Popen[bytes], cmds)",
            "subprocess.Popen[bytes]",
            "used as a value",
        ),
        ("import os\nhooks.append(getattr(os, 'system'))", "getattr(os, 'system')", "used as a value"),
        ("import os\nglobals()[k]('ls')", "globals()", "reaches the program's own names by a name built"),
        ("globals()[k].exec(c)", "globals()", "reaches the program's own names by a name built at run time"),
        ("__builtins__['exec'](c)", "__builtins__['exec']", "code built at run time"),
        ("CMD = 'ls'\nimport __main__\n__main__.CMD = x\nos.system(CMD)", "os.system", "a value built"),
        ("CMD = 'ls'\nfrom os import *\nsystem(CMD)", "system", "a value built at run time"),
        ("CMD = 'ls'\nfrom mylib import *\nos.system(CMD)", "os.system", "a value built at run time"),
        ("CMD = 'ls'\nfrom . import *\nos.system(CMD)", "os.system", "a value built at run time"),
    ],
)
def test_what_is_built_at_run_time_is_unknown(code: str, api: str, unknown: str) -> None:
    found = [launch for launch in read(code) if launch.unknown]
    assert found, read(code)
    assert found[0].api == api
    assert unknown in found[0].unknown


@pytest.mark.parametrize(
    "code",
    [
        "print('rm -rf /')",
        "x = 'git push --force'",
        "import re; re.compile('git push -f')",
        "from re import compile; compile(pattern)",
        "import re; pattern = re.compile(p)",
        "print(__name__)",
        "import os; print(os.getcwd())",
        "import os; os.environ['X'] = '1'",
        "import subprocess; print(subprocess.__file__)",
        "import subprocess; print(subprocess.PIPE)",
        "import os; print(os.system.__doc__)",
        "cmd = 'git push --force'; print(cmd.split())",
        "cursor.execute('DROP TABLE x')",
        "obj.run('rm -rf /')",
        "conn.exec('rm -rf /')",
        "x.system('rm -rf /')",
        "x.system",
        "self.popen('ls')",
        "df.eval('a + b')",
        "model.eval()",
        "import torch; torch.compile(model)",
        "app.run(debug=True)",
        "import ast; ast.literal_eval('[1]')",
        "def system(c): pass",
        "def f(exec): return 1",
        "import os\nif hasattr(os, 'fork'): pass",
        "import importlib; importlib.import_module('json')",
        "import importlib; importlib.import_module('plugins.' + name)",
        "import importlib; importlib.import_module('.' + name, 'pkg')",
        "__import__('json').dumps({})",
        "import sys; sys.modules[__name__]",
        "import sys; mod = sys.modules['json']",
        "import os; getattr(os, 'O_' + flag)",
        "import os; getattr(os, 'getcwd')()",
        "getattr(obj, name)()",
        "import os; os.environ.get(name)",
        "d = {}; d.get(k)",
        "exec('x = 1')",
        "eval('1 + 2')",
        "exec(compile('print(1)', 'f', 'exec'))",
        "import timeit; timeit.timeit('sum(range(9))', number=10)",
        "import timeit; timeit.timeit(lambda: 1)",
        "import timeit\ndef f(): pass\ntimeit.timeit(f)",
        "import subprocess; subprocess.run([])",
        "import os; os.system('')",
        "import json, sys; print(json.load(sys.stdin)['version'])",
        "import subprocess\nsubprocess.CalledProcessError",
        "async def main():\n    await asyncio.sleep(1)",
        "match x:\n    case {'a': 1, **rest}: pass",
        "import subprocess\ndef f(p: subprocess.Popen) -> subprocess.Popen | None: pass",
        "import subprocess\nx: dict[str, subprocess.Popen] = {}",
        "import subprocess\nisinstance(p, (subprocess.Popen, int))",
        "import os\nif f is os.system: pass",
        "import os\nos.__dict__['system']",
        "x = globals()['json']",
        "CMD = 'ls'\nself.__dict__.update(a)\nprint(CMD)",
        "exec\n",
        "'exec(x)'",
        "# os.system('rm -rf /')",
        "",
        "   \n\n",
    ],
)
def test_code_that_starts_nothing_launches_nothing(code: str) -> None:
    assert read(code) == ()


@pytest.mark.parametrize(
    ("code", "launch"),
    [
        ("exec(\"import os; os.system('ls')\")", Launch(api="os.system", shell="ls", line=1)),
        (
            "eval(\"__import__('os').system('ls')\")",
            Launch(api="__import__('os').system", shell="ls", line=1),
        ),
        ("x = 1\nexec('import os\\nos.system(\"ls\")')", Launch(api="os.system", shell="ls", line=2)),
        ('exec("exec(\\"import os; os.system(\'ls\')\\")")', Launch(api="os.system", shell="ls", line=1)),
        ("CODE = 'import os; os.system(\"ls\")'\nexec(CODE)", Launch(api="os.system", shell="ls", line=2)),
        (
            "exec(compile('import os; os.system(\"ls\")', '<s>', 'exec'))",
            Launch(api="os.system", shell="ls", line=1),
        ),
        (
            "c = compile('import os; os.system(\"ls\")', '<s>', 'exec')\nexec(c)",
            Launch(api="os.system", shell="ls", line=1),
        ),
        (
            "import timeit; timeit.timeit(\"__import__('os').system('ls')\")",
            Launch(api="__import__('os').system", shell="ls", line=1),
        ),
        (
            "import timeit; timeit.timeit('pass', setup='import os; os.system(\"ls\")')",
            Launch(api="os.system", shell="ls", line=1),
        ),
        (
            "import cProfile; cProfile.run('import os; os.system(\"ls\")')",
            Launch(api="os.system", shell="ls", line=1),
        ),
        ("import pdb; pdb.run('import os; os.system(\"ls\")')", Launch(api="os.system", shell="ls", line=1)),
        ("exec('import subprocess as sp')\nsp.run(['ls'])", Launch(api="sp.run", argv=("ls",), line=2)),
        ("import subprocess as sp\nexec(\"sp.run(['ls'])\")", Launch(api="sp.run", argv=("ls",), line=2)),
        ("exec('cmd = \"ls\"')\nimport os; os.system(cmd)", Launch(api="os.system", shell="ls", line=2)),
        ("exec(b'import os; os.system(\"ls\")')", Launch(api="os.system", shell="ls", line=1)),
        ("exec('import os; os.system(\"' + 'ls' + '\")')", Launch(api="os.system", shell="ls", line=1)),
    ],
)
def test_code_run_from_a_literal_is_read(code: str, launch: Launch) -> None:
    assert read(code) == (launch,)


def test_code_nested_too_deeply_is_unknown() -> None:
    code = "import os; os.system('ls')"
    for _ in range(10):
        code = f"exec({code!r})"
    found = only(code)
    assert found.api == "exec" and "nested more than 8 levels deep" in found.unknown


def test_code_run_from_a_literal_that_does_not_parse() -> None:
    found = only("exec('os.system(')")
    assert found.api == "python" and "does not parse near line 1" in found.unknown and found.line == 1
    assert read("exec('x = (')") == ()


@pytest.mark.parametrize(
    ("code", "line"),
    [
        ("def f(:\n  os.system('x')", 1),
        ("import os\nos.system('ls'\n", 2),
        ("print 'hi'\nimport os; os.system('x')", 1),
        ("exec 'import os'", 1),
        ("type X[T] = list[T]\nsubprocess.run(x)", 1),
        ("x = 1\n\nimport subprocess\nsubprocess.run(['ls']) )", 4),
        ("eval('1' +", 1),
    ],
)
def test_a_program_that_does_not_parse_is_unknown_when_it_names_a_process_api(code: str, line: int) -> None:
    found = read(code)[-1]
    assert found.api == "python" and found.line == line
    assert found.unknown.startswith(f"the python program does not parse near line {line}: ")


@pytest.mark.parametrize("code", ["def f(:\n  print('x')", "print 'hi'", "x = = 1", "if x\n  y", "\x00"])
def test_a_program_that_does_not_parse_and_names_no_process_api_launches_nothing(code: str) -> None:
    assert read(code) == ()


def test_what_the_lines_before_a_syntax_error_launch_still_counts() -> None:
    found = read("import os\nos.system('git push -f')\ndef f(:")
    assert found[0] == Launch(api="os.system", shell="git push -f", line=2)
    assert found[1].api == "python" and found[1].line == 3


def test_a_const_survives_an_instance_dict_but_not_a_module_rebinding() -> None:
    assert only("CMD = 'ls'\nself.__dict__.update(a)\nos.system(CMD)").shell == "ls"
    assert only("CMD = 'ls'\nimport __main__\n__main__.CMD = x\nos.system(CMD)").shell is None


@pytest.mark.parametrize("size", [60, 200])
def test_aliases_bound_in_an_order_rein_cannot_settle_are_unknown(size: int) -> None:
    lines = [f"def f{i}():\n    global a{i}\n    a{i} = a{i - 1}" for i in range(1, size + 1)]
    lines = lines[1::2][::-1] + lines[0::2]  # each link's source bound after it, in both orders
    code = "import os\n" + "\n".join(lines) + f"\na0 = os\na{size}.system('ls')\n"
    found = read(code)
    assert found[-1].api == "python" or found == (
        Launch(api=f"a{size}.system", shell="ls", line=found[0].line),
    )
    assert any(launch.unknown for launch in found) or found[0].shell == "ls"


def test_many_names_and_imports_read_in_time() -> None:
    many = 1000
    programs = [
        "import os\n"
        + "".join(f"a = os.x{i}\n" for i in range(many))
        + "a = os\na.system('ls')\n"
        + "".join(f"a.b.c.d(x{i})\n" for i in range(many)),
        "".join(f"import m{i} as a\n" for i in range(many))
        + "".join(f"a.b.c.d(x{i})\n" for i in range(many)),
        "".join(f"from m{i} import *\n" for i in range(many)) + "from os import *\nsystem('ls')\n",
    ]
    for code in programs:
        start = time.process_time()  # CPU time: the work done, not how busy the machine is
        read(code)
        assert time.process_time() - start < 3


def test_launches_come_in_program_order_with_their_lines() -> None:
    code = (
        "import os, subprocess\n"
        "def main():\n"
        "    subprocess.run(['git', 'status'])\n"
        "    os.system('git push -f')\n"
        "exec('os.system(\"ls\")')\n"
        "os.remove('/x')\n"
        "main()\n"
    )
    assert read(code) == (
        Launch(api="subprocess.run", argv=("git", "status"), line=3),
        Launch(api="os.system", shell="git push -f", line=4),
        Launch(api="os.system", shell="ls", line=5),
        Launch(api="os.remove", argv=("rm", "/x"), line=6),
    )


def test_a_call_in_each_branch_is_each_a_launch() -> None:
    code = "import os\nif x:\n    os.system('ls')\nelse:\n    os.system('git push -f')"
    assert [launch.shell for launch in read(code)] == ["ls", "git push -f"]


def test_the_same_launch_twice_is_reported_once_per_line() -> None:
    assert len(read("import os\nos.system('ls')\nos.system('ls')")) == 2
    assert len(read("import os; os.system('ls'); os.system('ls')")) == 1


def test_a_long_api_is_shortened() -> None:
    found = only("getattr(__import__('os'), 'system' + '' + '' + '' + '' + '' + '' + '')('ls')")
    assert found.shell == "ls" and len(found.api) == 60 and found.api.endswith("...")


@pytest.mark.parametrize(
    "code",
    [
        "x = " + "(" * 150 + ")" * 150,
        "x = " + "[" * 150 + "]" * 150,
        "os.system(" + "'a' + " * 3000 + "'b')",
        "a0 = 'xxxxxxxxxx'\n"
        + "".join(f"a{i + 1} = a{i} + a{i}\n" for i in range(40))
        + "import os; os.system(a40)",
        "a0 = ['x']\n"
        + "".join(f"a{i + 1} = a{i} + a{i}\n" for i in range(40))
        + "import os; os.execv('x', a40)",
        "a0 = 'x'\n"
        + "".join(f"a{i + 1} = a{i}.replace('x', a{i} + a{i})\n" for i in range(30))
        + "os.system(a30)",
        "os.system('%9999999999s' % 'x')",
        "os.system('{:9999999999}'.format('x'))",
        "os.system(chr(99999999))",
        "x = 1" + "0" * 5000,
        ".".join(["a"] * 3000),
        "f(" * 100 + ")" * 100,
        "exec(" * 50 + "'x'" + ")" * 50,
        "a = b\nb = c\nc = a\na.system('x')",
    ],
)
def test_hostile_programs_are_read_without_error(code: str) -> None:
    start = time.process_time()  # CPU time: the work done, not how busy the machine is
    found = read(code)
    assert time.process_time() - start < 2
    assert all(launch.api != "python" or "reading" not in launch.unknown for launch in found), found


def test_read_directly_never_raises_on_deep_nesting() -> None:
    found = read_python("x = " + "-" * 100_000 + "1", {})
    assert found == () or found[0].unknown


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_read_never_raises(text: str) -> None:
    for launch in read_python(text, {}):
        assert launch.shell is not None or launch.argv or launch.unknown


_PIECES = [
    "import os",
    "import subprocess as sp",
    "from os import *",
    "os.system(",
    "sp.run(",
    "exec(",
    "eval(",
    "getattr(os, ",
    "__import__(",
    "'ls'",
    "'git push -f'",
    "[",
    "]",
    "(",
    ")",
    ",",
    " + ",
    " % ",
    "x",
    "=",
    "\n",
    "shell=True",
    "f'{x}'",
    "*",
    "**",
    "Path(",
    ".unlink()",
    "shutil.rmtree(",
    "'~'",
    ":",
    "lambda: ",
    "def f(a):",
    "    ",
    "'{}'.format(",
    "' '.join(",
    "b'x'",
    "1",
    "None",
    "compile(",
    "vars(os)[",
    "sys.modules[",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=30))
def test_read_never_raises_on_python_like_text(pieces: list[str]) -> None:
    for launch in read_python("".join(pieces), {}):
        assert launch.api
        assert launch.shell is not None or launch.argv or launch.unknown


def test_a_one_liner_reads_fast() -> None:
    code = "import os; os.system('git push --force')"
    read(code)
    start = time.process_time()  # CPU time: the work done, not how busy the machine is
    for _ in range(100):
        read(code)
    assert (time.process_time() - start) / 100 < 0.002


def _seen(launch: Launch) -> str | tuple[str | None, ...] | None:
    """What a launch runs: its shell text or its argv."""
    return launch.shell if launch.shell is not None else launch.argv or None


@pytest.mark.parametrize(
    ("code", "runs"),
    [
        (
            "import subprocess\nfor cmd in [['git', 'status'], ['git', 'log', '-1']]:\n    subproces"
            "s.run(cmd)",
            [("git", "status"), ("git", "log", "-1")],
        ),
        (
            "import subprocess\nfor s in ('npm ci', 'npm test'): subprocess.run(s, shell=True)",
            ["npm ci", "npm test"],
        ),
        (
            "import subprocess\ncmds = {'status': ['git', 'status'], 'log': ['git', 'log', '-1']}\n"
            "for name, cmd in cmds.items():\n    subprocess.run(cmd)",
            [("git", "status"), ("git", "log", "-1")],
        ),
        ("import os\nfor c in {'ls': 1, 'pwd': 2}:\n    os.system(c)", ["ls", "pwd"]),
        ("import os\nfor c in {'a': 'ls'}.values():\n    os.system(c)", ["ls"]),
        ("import os\nfor c in {'ls', 'pwd'}:\n    os.system(c)", ["ls", "pwd"]),
        (
            "import subprocess\nfor f in ['a.py', 'b.py']:\n    subprocess.run(f'black {f}', shell=True)",
            ["black a.py", "black b.py"],
        ),
        (
            "import subprocess\nsteps = ['npm ci', 'npm test']\nfor s in steps:\n    subprocess.run("
            "s, shell=True)",
            ["npm ci", "npm test"],
        ),
        (
            "import subprocess\n[subprocess.run(['git', x]) for x in ('status', 'diff')]",
            [("git", "status"), ("git", "diff")],
        ),
        ("import os\nfor i, c in enumerate(['ls', 'pwd']):\n    os.system(c)", ["ls", "pwd"]),
        (
            "import os\nfor a, b in zip(['ls', 'du'], ['-l', '-s']):\n    os.system(a + ' ' + b)",
            ["ls -l", "du -s"],
        ),
        ("import os\nfor c in sorted(['pwd', 'ls']):\n    os.system(c)", ["ls", "pwd"]),
        ("import os\nfor c in ['ls', 'pwd']:\n    cmd = c + ' -a'\n    os.system(cmd)", ["ls -a", "pwd -a"]),
        ("import os\nfor g in [['ls', 'pwd']]:\n    for c in g:\n        os.system(c)", ["ls", "pwd"]),
        (
            "import os\nfor a in ['x', 'y']:\n    for b in ['1', '2']:\n        os.system(a + b)",
            ["x1", "x2", "y1", "y2"],
        ),
        ("import os\nfor (a, (b, c)) in [('x', ('y', 'z'))]:\n    os.system(a + b + c)", ["xyz"]),
        ("import os\nfor c in 'ab':\n    os.system(c)", ["a", "b"]),
        ("import importlib\nfor m in ['os']:\n    importlib.import_module(m).system('ls')", ["ls"]),
        ("for m in ['os']:\n    x = __import__(m)\n    x.system('ls')", ["ls"]),
        ("for code in ['import os; os.system(\"ls\")']:\n    exec(code)", ["ls"]),
        ("import os\nfor c in []:\n    os.system(c)", []),
    ],
)
def test_a_loop_over_a_literal_launches_once_per_item(code: str, runs: list[object]) -> None:
    found = read(code)
    assert [_seen(launch) for launch in found] == runs
    assert not any(launch.unknown for launch in found)


@pytest.mark.parametrize(
    "code",
    [
        "import subprocess\nfor f in files:\n    subprocess.run(f, shell=True)",
        "import subprocess\nfor f in open('list').read().split():\n    subprocess.run(f, shell=True)",
        "import os\nfor c in [f'echo {i}' for i in range(40)]:\n    os.system(c)",
        "import os\nfor c in ['ls'] + extra:\n    os.system(c)",
        "import os\nfor c in ['ls']:\n    c = c + x\n    os.system(c)",
        "import os\nfor c in ['ls']:\n    pass\nfor c in cmds:\n    os.system(c)",
        "import os\nfor a, b in [('ls',)]:\n    os.system(a)",
        "import os\nfor *a, b in [('ls', 'x')]:\n    os.system(a[0])",
        "import os\nfor c in ['ls']:\n    globals()['c'] = x\n    os.system(c)",
        "import os\nfor c in ['ls']:\n    exec('c = x')\n    os.system(c)",
        "import importlib\nfor m in names:\n    importlib.import_module(m)",
        "for code in codes:\n    exec(code)",
    ],
)
def test_a_loop_over_what_is_built_at_run_time_is_unknown(code: str) -> None:
    assert any(launch.unknown for launch in read(code)), read(code)


def test_a_loop_over_many_items_is_unknown() -> None:
    items = ", ".join(f"'echo {i}'" for i in range(17))
    found = only(f"import os\nfor c in [{items}]:\n    os.system(c)")
    assert found.unknown == "os.system is called with a value built at run time"
    items = ", ".join(f"'echo {i}'" for i in range(16))
    assert len(read(f"import os\nfor c in [{items}]:\n    os.system(c)")) == 16


@pytest.mark.parametrize(
    ("code", "runs"),
    [
        (
            "import subprocess\ndef sh(c):\n    print('+', c)\n    subprocess.run(c, shell=True, che"
            "ck=True)\n"
            "sh('npm ci')\nsh('npm test')",
            ["npm ci", "npm test"],
        ),
        (
            "import subprocess as sp\ndef sh(cmd): return sp.run(cmd, shell=True)\nsh('make build')"
            "\nsh('make test')",
            ["make build", "make test"],
        ),
        (
            "import subprocess\ndef run(*args):\n    return subprocess.run(['git', *args]).stdout\n"
            "print(run('status'))\nprint(run('log', '--oneline', '-5'))",
            [("git", "status"), ("git", "log", "--oneline", "-5")],
        ),
        (
            "import subprocess\ndef git(args):\n    return subprocess.check_output(['git'] + args)\n"
            "git(['status'])",
            [("git", "status")],
        ),
        (
            "import subprocess\ndef sh(c, shell=True):\n    subprocess.run(c, shell=shell)\nsh('ls')"
            "\nsh(['ls'], False)",
            ["ls", ("ls",)],
        ),
        (
            "import subprocess\ndef sh(c, *, shell=True):\n    subprocess.run(c, shell=shell)\nsh(sh"
            "ell=True, c='ls')",
            ["ls"],
        ),
        ("import os\ndef sh(**kw):\n    os.system(kw['c'])\nsh(c='ls')", ["ls"]),
        ("import os\ndef sh(c):\n    os.system(c)\nfor s in ['ls', 'pwd']:\n    sh(s)", ["ls", "pwd"]),
        ("import os\ndef sh(c):\n    os.system(c)\ndef twice(c):\n    sh(c)\n    sh(c)\ntwice('ls')", ["ls"]),
        ("import os\ndef sh(c):\n    os.system(c)\nsh(*['ls'])", ["ls"]),
        ("import os\nsh = lambda c: os.system(c)\nsh('ls')", ["ls"]),
        ("import os\ndef sh(c):\n    os.system(c)\nexec('sh(\"ls\")')", ["ls"]),
        ("import os\ndef sh(c):\n    os.system(c)\nsh('ls') if x else sh('pwd')", ["ls", "pwd"]),
    ],
)
def test_a_helper_launches_with_every_call_s_arguments(code: str, runs: list[object]) -> None:
    found = read(code)
    assert [_seen(launch) for launch in found] == runs, found
    assert not any(launch.unknown for launch in found)


@pytest.mark.parametrize(
    "code",
    [
        "import os\ndef sh(c):\n    os.system(c)\nsh('ls')\nsh(x)",
        "import os\ndef sh(c):\n    os.system(c)\nsh('ls')\ncallbacks = [sh]",
        "import os\ndef sh(c):\n    os.system(c)\nsh('ls')\nthreading.Thread(target=sh, args=('rm -rf /',))",
        "import os\n@decorate\ndef sh(c):\n    os.system(c)\nsh('ls')",
        "import os\nclass A:\n    def sh(self, c):\n        os.system(c)\nA().sh('ls')",
        "import os\ndef sh(c):\n    os.system(c)\nsh('ls')\nsh = other",
        "import os\ndef sh(c):\n    os.system(c)\nsh('ls')\ndef sh(c): pass",
        "import os\ndef sh(c):\n    os.system(c)\nsh('ls')\nglobals()['sh']('rm -rf /')",
        "import os, sys\ndef sh(c):\n    os.system(c)\nsh('ls')\ngetattr(sys.modules[__name__], 'sh')('x')",
        "import os, mine\ndef sh(c):\n    os.system(c)\nsh('ls')\nmine.sh('git push -f')",
        "import os, mine\ndef sh(c):\n    os.system(c)\nsh('ls')\ngetattr(mine, 'sh')('git push -f')",
        "import os\ndef sh(c):\n    os.system(c)\nsh('ls')\nsh(**options)",
        "import os\ndef sh(c):\n    os.system(c)\nsh('ls')\nsh(*args)",
        "import os\ndef sh(c):\n    c = c + ' -f'\n    os.system(c)\nsh('ls')",
        "import os\ndef f(n):\n    os.system(n)\n    f(n + 'x')\nf('a')",
        "import subprocess\ndef run(args):\n    args.insert(1, '-f')\n    subprocess.run(args)\nrun("
        "['git', 'push'])",
    ],
)
def test_a_helper_rein_cannot_follow_is_unknown(code: str) -> None:
    assert any(launch.unknown for launch in read(code)), read(code)


def test_a_helper_s_values_are_its_own_not_a_caller_s_names() -> None:
    code = "import os\ndef sh(c, d):\n    os.system(c + d)\nfor d in ['git push -f']:\n    sh(d, '')"
    assert [launch.shell for launch in read(code)] == ["git push -f"]


def test_a_helper_called_many_times_reads_fast() -> None:
    code = "import os\ndef sh(c):\n    os.system(c)\n" + "".join(f"sh('echo {i}')\n" for i in range(60))
    start = time.process_time()  # CPU time: the work done, not how busy the machine is
    assert len(read(code)) == 60
    assert time.process_time() - start < 1
    nested = "import os\ndef sh(a, b):\n    os.system(a + b)\n"
    nested += "for x in [" + ", ".join(f"'{i}'" for i in range(16)) + "]:\n"
    nested += "    for y in [" + ", ".join(f"'{i}'" for i in range(16)) + "]:\n        sh(x, y)\n"
    start = time.process_time()
    assert any(launch.unknown for launch in read(nested))
    assert time.process_time() - start < 2


@pytest.mark.parametrize(
    ("code", "argv"),
    [
        (
            "import subprocess, sys\nsubprocess.check_call([sys.executable, '-m', 'pytest', '-q'])",
            ("python3", "-m", "pytest", "-q"),
        ),
        (
            "from sys import executable\nimport os\nos.execv(executable, [executable, '-V'])",
            ("python3", "-V"),
        ),
        (
            "import subprocess, shutil\ngit = shutil.which('git')\nsubprocess.run([git, 'status'])",
            ("git", "status"),
        ),
        ("import subprocess, shutil\nsubprocess.run([shutil.which('npm') or 'npm', 'test'])", (None, "test")),
    ],
)
def test_the_running_interpreter_and_a_which_result_name_their_program(
    code: str, argv: tuple[str | None, ...]
) -> None:
    assert only(code).argv == argv


@pytest.mark.parametrize(
    ("code", "argv"),
    [
        ("import subprocess, sys\nsubprocess.run(['pytest'] + sys.argv[1:])", ("pytest",)),
        (
            "import subprocess\nfiles = subprocess.check_output(['git', 'diff']).split()\nsubprocess"
            ".run(['git', 'add', *files])",
            ("git", "add"),
        ),
        ("import subprocess\nsubprocess.run(['git', 'push', *args])", ("git", "push")),
        ("import subprocess, glob\nsubprocess.run(['pytest', *glob.glob('tests/test_*.py')])", ("pytest",)),
        (
            "import subprocess, glob\nfor p in glob.glob('/home/dev/*'):\n    subprocess.run(['rm', "
            "'-rf', p])",
            ("rm", "-rf"),
        ),
        ("import subprocess\nsubprocess.run(['git', *args, '-f'])", ("git",)),
        ("import subprocess\nsubprocess.run(['git', x, *args])", ("git", None)),
        ("import subprocess\nsubprocess.run(['git'] + args + ['-f'])", ("git",)),
        ("import os\nos.execv('/bin/ls', args)", ("/bin/ls",)),
        ("import os\nos.execle('/bin/ls', 'ls', *rest)", ("/bin/ls",)),
        ("import os\nos.execvp('git', ['git', *args])", ("git",)),
        ("import asyncio\nasyncio.create_subprocess_exec('git', 'push', *args)", ("git", "push")),
        ("import pexpect\npexpect.spawn('git', args)", ("git",)),
    ],
)
def test_an_argv_of_unknown_length_is_its_known_part_and_a_rest(
    code: str, argv: tuple[str | None, ...]
) -> None:
    found = read(code)[-1]
    assert (found.argv, found.rest, found.unknown) == (argv, True, "")


@pytest.mark.parametrize(
    "code",
    [
        "import subprocess\nsubprocess.run([prog, *args])",
        "import subprocess\nsubprocess.run([*args, 'push'])",
        "import subprocess\nsubprocess.run(args)",
        "import os\nos.execl(*argv)",
        "import asyncio\nasyncio.create_subprocess_exec(*cmd)",
    ],
)
def test_an_argv_whose_program_is_built_at_run_time_is_unknown(code: str) -> None:
    assert read(code)[-1].unknown


@pytest.mark.parametrize(
    ("code", "launch"),
    [
        (
            "import operator, os\noperator.methodcaller('system', 'git push -f')(os)",
            Launch(api="os.system", shell="git push -f", line=2),
        ),
        (
            "import os\nos.__getattribute__('system')('git push -f')",
            Launch(api="os.__getattribute__('system')", shell="git push -f", line=2),
        ),
        (
            "import os\ntype(os).__getattribute__(os, 'system')('git push -f')",
            Launch(api="type(os).__getattribute__(os, 'system')", shell="git push -f", line=2),
        ),
        (
            "import os\n(os.system,)[0]('git push -f')",
            Launch(api="(os.system,)[0]", shell="git push -f", line=2),
        ),
        (
            "import ctypes\nctypes.cdll['libc.so.6'].system(b'git push -f')",
            Launch(api="ctypes.cdll['libc.so.6'].system", shell="git push -f", line=2),
        ),
        (
            "import ctypes\nctypes.CDLL(None)['system'](b'ls')",
            Launch(api="ctypes.CDLL(None)['system']", shell="ls", line=2),
        ),
        (
            "import pydoc\npydoc.locate('os.system')('ls')",
            Launch(api="pydoc.locate('os.system')", shell="ls", line=2),
        ),
        (
            "import code\ncode.InteractiveInterpreter().runsource('import os; os.system(\"git push -f\")')",
            Launch(api="os.system", shell="git push -f", line=2),
        ),
        (
            "import code\ni = code.InteractiveConsole()\ni.push('import os; os.system(\"ls\")')",
            Launch(api="os.system", shell="ls", line=3),
        ),
        (
            "from distutils.spawn import spawn\nspawn(['git', 'push', '-f'])",
            Launch(api="spawn", argv=("git", "push", "-f"), line=2),
        ),
        (
            "import pipes\nt = pipes.Template()\nt.append('git push -f', '--')",
            Launch(api="t.append", shell="git push -f", line=3),
        ),
        ("import sh\nsh.git.push('-f')", Launch(api="sh.git.push", argv=("git", "push", "-f"), line=2)),
        (
            "import sh\nsh.rm('-rf', '/home/dev')",
            Launch(api="sh.rm", argv=("rm", "-rf", "/home/dev"), line=2),
        ),
        (
            "import sh\nsh.git.push(force=True, u=False, _cwd='/')",
            Launch(api="sh.git.push", argv=("git", "push", "--force"), line=2),
        ),
        (
            "import sh\nsh.ls(['-l', '-a'], color='never', n='1')",
            Launch(api="sh.ls", argv=("ls", "-l", "-a", "--color=never", "-n", "1"), line=2),
        ),
        ("from sh import git\ngit.push('-f')", Launch(api="git.push", argv=("git", "push", "-f"), line=2)),
        (
            "from plumbum import local\nlocal['git']['push', '-f']()",
            Launch(api="local['git']['push', '-f']", argv=("git", "push", "-f"), line=2),
        ),
        (
            "from plumbum.cmd import git\ngit('push', '-f')",
            Launch(api="git", argv=("git", "push", "-f"), line=2),
        ),
        (
            "from plumbum.cmd import git\ngit['push'].run(['-f'])",
            Launch(api="git['push'].run", argv=("git", "push", "-f"), line=2),
        ),
        (
            "from plumbum import local, FG\nlocal['git']['push', '-f'] & FG",
            Launch(api="local['git']['push', '-f']", argv=("git", "push", "-f"), line=2),
        ),
        ("import invoke\ninvoke.run('git push -f')", Launch(api="invoke.run", shell="git push -f", line=2)),
        (
            "from invoke import task\n@task\ndef deploy(c):\n    c.run('git push -f')",
            Launch(api="c.run", shell="git push -f", line=4),
        ),
        (
            "from fabric import Connection\nc = Connection('h')\nc.run('git push -f')",
            Launch(api="c.run", shell="git push -f", line=3),
        ),
        (
            "import os\nlist(map(os.system, ['git push -f']))",
            Launch(api="os.system", shell="git push -f", line=2),
        ),
    ],
)
def test_a_process_api_reached_another_way_is_the_launch_it_is(code: str, launch: Launch) -> None:
    assert read(code) == (launch,)


@pytest.mark.parametrize(
    ("code", "unknown"),
    [
        ("import operator, os\nm = operator.methodcaller('system', 'x')\nm(os)", "method caller"),
        (
            "import operator, os\noperator.methodcaller(name, 'x')(os)",
            "reaches os by a name built at run time",
        ),
        ("import os\nos.__getattribute__(n)('x')", "reaches os by a name built at run time"),
        ("import os\n[v for k, v in vars(os).items() if k == 'system'][0]('x')", "reaches os by a name"),
        ("import os\ndict(os.__dict__)['system']('x')", "reaches os by a name built at run time"),
        ("import os\nfor f in os.__dict__.values(): f('x')", "reaches os by a name built at run time"),
        ("import sys\n[m for m in sys.modules.values()][0].system('x')", "imports a module whose name"),
        (
            "import inspect, os\ndict(inspect.getmembers(os))['system']('x')",
            "reaches os by listing its names",
        ),
        ("import os\nclass C:\n    run = os.system\nC.run('git push -f')", "used as a value"),
        ("import os\n[os.system][i]('x')", "used as a value"),
        ("[c for c in object.__subclasses__() if c.__name__ == 'Popen'][0](['x'])", "__subclasses__"),
        ("().__class__.__base__.__subclasses__()[1].__init__.__globals__['system']('x')", "__subclasses__"),
        ("import sys\nsys._getframe().f_globals['os'].system('x')", "f_globals"),
        ("import ctypes\nctypes.CDLL(None).printf(b'x')", "calls a C library function rein cannot read"),
        ("import ctypes\nctypes.pythonapi.PyRun_SimpleString(b'x')", "calls a C library function"),
        (
            "import ctypes\nctypes.cdll.LoadLibrary('libc.so.6').execvp(b'git', argv)",
            "the C library's execvp",
        ),
        (
            "import pickle\npickle.loads(b'cos\\nsystem\\n(S\"ls\"\\ntR.')",
            "unpickling calls what the data names",
        ),
        ("import pickle, io\npickle.Unpickler(io.BytesIO(b'cos')).load()", "unpickling"),
        ("import marshal\nexec(marshal.loads(data))", "code built at run time"),
        ("import runpy\nrunpy.run_path('/dev/stdin')", "runs a Python program rein cannot read"),
        ("import runpy\nrunpy.run_module('http.server', run_name='__main__')", "runs a Python program"),
        ("import code\ncode.interact()", "runs the Python code it reads from its input"),
        ("import code\ncode.InteractiveConsole().interact()", "runs the Python code it reads"),
        ("import code\ncode.InteractiveInterpreter().runsource(src)", "code built at run time"),
        (
            "import gc\n[o for o in gc.get_objects() if getattr(o, '__name__', '') == 'system']",
            "every object",
        ),
        ("import sh\nsh.Command('git')('push')", "names a command through the sh library"),
        ("import sh\nsh.git.bake('push')('-f')", "names a command through the sh library"),
        ("import sh\nsh.bash(_in='git push -f')", "feeds bash a program on its input"),
        ("import sh\nrun_all(sh.git, 'push')", "used as a value"),
        ("from plumbum.cmd import git, grep\n(git['log'] | grep['x'])()", "plumbum command used where"),
        ("from plumbum.cmd import git\ncommands = [git['push', '-f']]", "plumbum command used where"),
    ],
)
def test_a_process_api_reached_where_rein_cannot_follow_is_unknown(code: str, unknown: str) -> None:
    found = [launch for launch in read(code) if launch.unknown]
    assert found, read(code)
    assert unknown in found[0].unknown, found


@pytest.mark.parametrize(
    "code",
    [
        "import operator\noperator.methodcaller('strip')('x')",
        "import operator\nm = operator.methodcaller('lower')",
        "import os\nprint('system' in vars(os))",
        "import os\nos.__dict__.keys()",
        "import os\nprint(callable(os.system))",
        "import subprocess\nhelp(subprocess.run)",
        "import os\nprint(os.system)",
        "import sh\nsh.which('git')",
        "import ctypes\nlibc = ctypes.CDLL(None)",
        "import json\njson.loads('{}')",
        "import code\ncode.compile_command('x = 1')",
    ],
)
def test_a_process_module_only_looked_at_launches_nothing(code: str) -> None:
    assert read(code) == ()


@pytest.mark.parametrize(
    "code",
    [
        "import subprocess\na = ['git', 'push', 'origin', 'main']\na.insert(2, '-f')\nsubprocess.run(a)",
        "import subprocess\na = ['git', 'push', '--dry-run']\na[2] = '--force'\nsubprocess.run(a)",
        "import subprocess\na = ['git', 'push']\na += ['-f']\nsubprocess.run(a)",
        "import subprocess\na = ['git', 'push', '-n']\ndel a[2]\nsubprocess.run(a)",
        "import subprocess\na = ['git', 'push']\nlist.append(a, '-f')\nsubprocess.run(a)",
        "import subprocess\na = ['git', 'push']\ntype(a).append(a, '-f')\nsubprocess.run(a)",
        "import subprocess\na = ['git', 'push']\ngetattr(a, 'append')('-f')\nsubprocess.run(a)",
        "import subprocess\na = ['git', 'push']\nadd_force(a)\nsubprocess.run(a)",
        "import subprocess\na = ['git', 'push']\nb = a\nb.append('-f')\nb.insert(0, 'x')\nsubprocess.run(a)",
        "import subprocess\ndef add(x):\n    x[1:1] = ['-f']\na = ['git', 'push']\nadd(a)\nsubprocess.run(a)",
        "import subprocess\nfor c in [['git', 'push']]:\n    c.insert(1, '-f')\n    subprocess.run(c)",
        "import subprocess\na = ['git', 'push']\nself.cmd = a\nself.cmd.append('-f')\nsubprocess.run(a)",
        "import subprocess\na = [['git', 'push']]\na[0].append('-f')\nsubprocess.run(a[0])",
        "import subprocess\nc = {'push': ['git', 'push']}\nc['push'] = ['git', 'push', '-f']\nsubpro"
        "cess.run(c['push'])",
        "import subprocess\nsteps = ['ls']\nsteps.append('git push -f')\nfor s in steps:\n    subpro"
        "cess.run(s, shell=True)",
    ],
)
def test_a_list_changed_before_it_is_run_is_unknown(code: str) -> None:
    found = read(code)
    assert found and found[-1].unknown, found


@pytest.mark.parametrize(
    ("code", "argv"),
    [
        ("import os\nc = ['git', 'push']\nc.append('-f')\nos.execvp(c[0], c)", ("git", "push")),
        (
            "import subprocess\nc = ['pytest', '-q']\nc.append('--maxfail=1')\nsubprocess.run(c)",
            ("pytest", "-q"),
        ),
        ("import subprocess\na = ['git', 'push']\na.extend(['-f'])\nsubprocess.run(a)", ("git", "push")),
        ("import subprocess\na = ['git', 'push']\nb = a\nb.append('-f')\nsubprocess.run(a)", ("git", "push")),
        (
            "import subprocess\ndef add(x):\n    x.append('-f')\na = ['git', 'push']\nadd(a)\nsubpro"
            "cess.run(a)",
            ("git", "push"),
        ),
        (
            "import subprocess\nfor c in [['git', 'push']]:\n    c.append('-f')\n    subprocess.run(c)",
            ("git", "push"),
        ),
        (
            "import subprocess\ndef run(args):\n    args.append('-f')\n    subprocess.run(args)\nrun"
            "(['git', 'push'])",
            ("git", "push"),
        ),
    ],
)
def test_a_list_appended_to_keeps_its_items_and_more_follow(code: str, argv: tuple[str, ...]) -> None:
    found = read(code)[-1]
    assert (found.argv, found.rest, found.unknown) == (argv, True, "")


@pytest.mark.parametrize(
    ("code", "argv"),
    [
        ("import subprocess\na = ['git', 'status']\nprint(a, len(a))\nsubprocess.run(a)", ("git", "status")),
        (
            "import subprocess\na = ['git', 'status']\nprint(' '.join(a))\nsubprocess.run(a)",
            ("git", "status"),
        ),
        ("import subprocess\nA = ('git', 'status')\nsubprocess.run([*A, '-s'])", ("git", "status", "-s")),
        ("import subprocess\ncmd = 'git status'\nlog(cmd)\nsubprocess.run(cmd.split())", ("git", "status")),
    ],
)
def test_a_list_only_read_stays_known(code: str, argv: tuple[str, ...]) -> None:
    assert read(code)[-1].argv == argv


@pytest.mark.parametrize(
    ("code", "seen"),
    [
        ("import shutil, os\nshutil.rmtree(os.path.dirname(os.getcwd()))", ("rm", "-rf", "..")),
        ("import shutil, os\nshutil.rmtree(os.sep)", ("rm", "-rf", "/")),
        ("import shutil, os\nshutil.rmtree(os.path.abspath(os.sep))", ("rm", "-rf", "/")),
        ("import shutil, os\nshutil.rmtree(os.getcwd())", ("rm", "-rf", ".")),
        ("import shutil, pathlib\nshutil.rmtree(pathlib.Path.cwd().parent)", ("rm", "-rf", "..")),
        ("import shutil, pathlib\nshutil.rmtree(pathlib.Path.cwd().parents[1])", ("rm", "-rf", "../..")),
        ("import shutil, pathlib\nshutil.rmtree(pathlib.Path.home().parent)", ("rm", "-rf", "$HOME/..")),
        (
            "import shutil, pathlib\nshutil.rmtree(pathlib.Path('/home/dev/project').parent)",
            ("rm", "-rf", "/home/dev"),
        ),
        ("import shutil, pathlib\nshutil.rmtree(pathlib.Path('/a/b/c').parents[1])", ("rm", "-rf", "/a")),
        (
            "import shutil, os\nshutil.rmtree(os.path.dirname(os.path.expanduser('~')))",
            ("rm", "-rf", "$HOME/.."),
        ),
        ("import shutil, os\nshutil.rmtree(os.path.dirname('/srv/x'))", ("rm", "-rf", "/srv")),
        ("import shutil, os\nshutil.rmtree(os.environ['HOME'].rstrip('/'))", ("rm", "-rf", "$HOME")),
        (
            "import shutil, pathlib\nshutil.rmtree(pathlib.Path(pathlib.Path.home().anchor))",
            ("rm", "-rf", "/"),
        ),
        ("import shutil, tempfile\nshutil.rmtree(tempfile.gettempdir())", ("rm", "-rf", "/tmp")),
        ("import shutil\n[shutil.rmtree(p) for p in ['/home/dev']]", ("rm", "-rf", "/home/dev")),
        ("import shutil\nlist(map(shutil.rmtree, ['/home/dev']))", ("rm", "-rf", "/home/dev")),
        ("import shutil, pathlib\nshutil.rmtree(f'{pathlib.Path.home()}/x')", ("rm", "-rf", "$HOME/x")),
        ("import shutil, glob\n[shutil.rmtree(p) for p in glob.glob('/home/dev/*')]", "rm -rf /home/dev/*"),
        (
            "import shutil, os\n[shutil.rmtree(os.path.join('/home/dev', p)) for p in os.listdir('/h"
            "ome/dev')]",
            "rm -rf /home/dev/*",
        ),
        (
            "import shutil, pathlib\n[shutil.rmtree(p) for p in pathlib.Path.home().iterdir()]",
            "rm -rf $HOME/*",
        ),
        (
            "import shutil, os\nh = os.path.expanduser('~')\n[shutil.rmtree(os.path.join(h, d)) for "
            "d in os.listdir(h)]",
            "rm -rf $HOME/*",
        ),
        (
            "import shutil, os\n[shutil.rmtree(d) for d in os.scandir(os.path.expanduser('~'))]",
            "rm -rf $HOME/*",
        ),
        (
            "import shutil, glob, os\n[shutil.rmtree(p) for p in glob.glob(os.path.expanduser('~/*'))]",
            "rm -rf $HOME/*",
        ),
        ("import pathlib\nfor p in pathlib.Path.home().glob('*.txt'):\n    p.unlink()", "rm $HOME/*.txt"),
        ("import shutil, os\nfor n in os.listdir('/'):\n    shutil.rmtree(f'/{n}')", "rm -rf /*"),
        ("import shutil, os\nfor n in os.listdir('/'):\n    shutil.rmtree('/' + n)", "rm -rf /*"),
        ("import os\nfor n in os.listdir('.'):\n    os.remove(n)", "rm *"),
        ("import shutil, glob\nfor p in glob.glob('-x*'):\n    shutil.rmtree(p)", "rm -rf ./-x*"),
        (
            "import shutil, glob\nfor p in glob.glob('/srv/my dir/[ab]*'):\n    shutil.rmtree(p)",
            "rm -rf '/srv/my dir/'?*",
        ),
        (
            "import os, glob\nfor p in glob.glob('/home/dev/*'):\n    os.system(f'rm -rf {p}')",
            "rm -rf /home/dev/*",
        ),
        ("import shutil, glob\nshutil.rmtree(glob.glob('build')[0])", ("rm", "-rf", "build")),
    ],
)
def test_a_removal_target_computed_from_the_root_home_or_working_directory(code: str, seen: object) -> None:
    found = only(code)
    assert (_seen(found), found.unknown) == (seen, "")


@pytest.mark.parametrize(
    "code",
    [
        "import shutil\nfor p in glob.glob(pattern):\n    shutil.rmtree(p)",
        "import shutil, os\nfor p in os.listdir(d):\n    shutil.rmtree(p)",
        "import shutil, os\nfor r, _, fs in os.walk(top):\n    shutil.rmtree(r)",
    ],
)
def test_a_removal_in_a_directory_built_at_run_time_is_data(code: str) -> None:
    assert read(code) == ()


@pytest.mark.parametrize(
    "code",
    [
        "compile('import os; os.system(\"git push -f\")', 'x', 'exec')",
        "c = compile('import os; os.system(\"git push -f\")', 'x', 'exec')",
        "f = lambda: __import__('os').system('git push -f')",
        "lambda: __import__('os').system('git push -f')",
        "def danger():\n    import os\n    os.system('git push -f')\nprint('defined')",
        "def outer():\n    def inner():\n        __import__('os').system('git push -f')\n    inner()",
        "def danger():\n    exec('import os; os.system(\"git push -f\")')",
        "def danger():\n    c = compile('import os; os.system(\"x\")', 'x', 'exec')\n    exec(c)",
        "import subprocess\ndef run():\n    subprocess.run(['git', 'push', '-f'])\nsubprocess.run(['"
        "git', 'status'])[1:]",
    ],
)
def test_code_that_never_runs_launches_nothing(code: str) -> None:
    assert [launch for launch in read(code) if launch.argv != ("git", "status")] == []


@pytest.mark.parametrize(
    "code",
    [
        "c = compile('import os; os.system(\"ls\")', 'x', 'exec')\nexec(c)",
        "exec(compile('import os; os.system(\"ls\")', 'x', 'exec'))",
        "f = lambda: __import__('os').system('ls')\nf()",
        "(lambda: __import__('os').system('ls'))()",
        "atexit.register(lambda: __import__('os').system('ls'))",
        "def danger():\n    __import__('os').system('ls')\ndanger()",
        "def danger():\n    __import__('os').system('ls')\nhandlers = [danger]",
        "@app.route('/')\ndef danger():\n    __import__('os').system('ls')",
        "def __getattr__(name):\n    __import__('os').system('ls')",
        "class A:\n    def __del__(self):\n        __import__('os').system('ls')",
        "def danger():\n    __import__('os').system('ls')\nglobals()['danger']()",
        "def danger():\n    __import__('os').system('ls')\nexec('danger()')",
        "import mine\ndef danger():\n    __import__('os').system('ls')\nmine.danger",
        "import os\ndef danger(x=os.system('ls')):\n    pass",
        "def danger():\n    __import__('os').system('ls')\nif __name__ == '__main__':\n    danger()",
    ],
)
def test_code_that_may_run_still_launches(code: str) -> None:
    assert [launch.shell for launch in read(code)] == ["ls"]


@pytest.mark.parametrize(
    ("code", "argv"),
    [
        ("import shutil\nshutil.rmtree('~')", ("rm", "-rf", "~")),
        ("import shutil\nshutil.rmtree('~/x')", ("rm", "-rf", "~/x")),
        ("import os\nos.remove(os.path.join('~', 'x'))", ("rm", "~/x")),
        ("from pathlib import Path\nPath('~').rmdir()", ("rmdir", "~")),
        ("import shutil\nshutil.rmtree('$HOME')", ("rm", "-rf", "./$HOME")),
        ("import shutil\nshutil.rmtree('$HOME/x')", ("rm", "-rf", "./$HOME/x")),
        ("import shutil, os\nshutil.rmtree(os.path.expanduser('~'))", ("rm", "-rf", "$HOME")),
        (
            "import shutil\nfrom pathlib import Path\nshutil.rmtree(Path.home() / 'x')",
            ("rm", "-rf", "$HOME/x"),
        ),
        ("import shutil, os\nshutil.rmtree(os.environ['HOME'])", ("rm", "-rf", "$HOME")),
        ("import subprocess\nsubprocess.run(['rm', '-rf', '~'])", ("rm", "-rf", "~")),
    ],
)
def test_only_python_s_own_ways_name_the_home_directory(code: str, argv: tuple[str, ...]) -> None:
    assert only(code).argv == argv
    assert only("import os\nos.system('rm -rf ~')").shell == "rm -rf ~"  # a shell expands it
