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
        ("def f():\n    cmd = 'ls'\n    os.system(cmd)", "ls"),
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
            ("rm", "-rf", "~"),
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
        ("import shutil, os; shutil.rmtree(os.path.expanduser('~'))", "shutil.rmtree", ("rm", "-rf", "~")),
        (
            "import shutil, os; shutil.rmtree(os.path.expanduser('~/src'))",
            "shutil.rmtree",
            ("rm", "-rf", "~/src"),
        ),
        ("import shutil, os; shutil.rmtree(os.environ['HOME'])", "shutil.rmtree", ("rm", "-rf", "~")),
        ("import shutil, os; shutil.rmtree(os.getenv('HOME'))", "shutil.rmtree", ("rm", "-rf", "~")),
        ("import shutil, os; shutil.rmtree(os.environ.get('HOME'))", "shutil.rmtree", ("rm", "-rf", "~")),
        (
            "import shutil, os; shutil.rmtree(os.path.join(os.environ['HOME'], 'x'))",
            "shutil.rmtree",
            ("rm", "-rf", "~/x"),
        ),
        (
            "import shutil, os; shutil.rmtree(os.environ['HOME'] + '/x')",
            "shutil.rmtree",
            ("rm", "-rf", "~/x"),
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
            ("rm", "-rf", "~"),
        ),
        (
            "import shutil; from pathlib import Path; shutil.rmtree(Path.home() / 'p')",
            "shutil.rmtree",
            ("rm", "-rf", "~/p"),
        ),
        (
            "import shutil, pathlib; shutil.rmtree(pathlib.Path('~').expanduser())",
            "shutil.rmtree",
            ("rm", "-rf", "~"),
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
            ("rm", "~/x"),
        ),
        (
            "from pathlib import Path; Path('~').expanduser().rmdir()",
            "Path('~').expanduser().rmdir",
            ("rmdir", "~"),
        ),
        (
            "from pathlib import Path; Path('/a').joinpath('b').unlink()",
            "Path('/a').joinpath('b').unlink",
            ("rm", "/a/b"),
        ),
        ("from pathlib import Path; Path('/a', 'b').unlink()", "Path('/a', 'b').unlink", ("rm", "/a/b")),
        ("from pathlib import Path\np = Path('/etc')\np.rmdir()", "p.rmdir", ("rmdir", "/etc")),
        ("import pathlib; pathlib.Path.unlink(pathlib.Path('/x'))", "pathlib.Path.unlink", ("rm", "/x")),
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
        "from pathlib import Path; Path.cwd().rmdir()",
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
        ("CMD = 'ls'\ndef f(CMD): os.system(CMD)", "os.system", "a value built at run time"),
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
        ("import subprocess; subprocess.run([x, 'push'])", "subprocess.run", "a program whose name is built"),
        (
            "import subprocess; subprocess.run(['git', *args])",
            "subprocess.run",
            "argument list built at run time",
        ),
        (
            "import subprocess; subprocess.run(['git'] + args)",
            "subprocess.run",
            "argument list built at run time",
        ),
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
        (
            "import subprocess; subprocess.run(['ls'], executable=exe)",
            "subprocess.run",
            "a program whose name",
        ),
        ("import os; os.execv(path, ['x'])", "os.execv", "a program whose name is built at run time"),
        ("import os; os.execv('/bin/ls', args)", "os.execv", "argument list built at run time"),
        ("import os; os.execl(*argv)", "os.execl", "argument list built at run time"),
        ("import os; os.execle('/bin/ls', 'ls', *rest)", "os.execle", "argument list built at run time"),
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
        ("import os\nprint(getattr(os, 'system'))", "getattr(os, 'system')", "used as a value"),
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
        start = time.perf_counter()
        read(code)
        assert time.perf_counter() - start < 3


def test_launches_come_in_program_order_with_their_lines() -> None:
    code = (
        "import os, subprocess\n"
        "def main():\n"
        "    subprocess.run(['git', 'status'])\n"
        "    os.system('git push -f')\n"
        "exec('os.system(\"ls\")')\n"
        "os.remove('/x')\n"
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
    start = time.perf_counter()
    found = read(code)
    assert time.perf_counter() - start < 2
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
    start = time.perf_counter()
    for _ in range(100):
        read(code)
    assert (time.perf_counter() - start) / 100 < 0.002
