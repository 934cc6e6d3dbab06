"""The JavaScript reader: what node, Bun and Deno programs launch, read from their text."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rein.steering.bash.launch import RUNTIME, Launch, launches
from rein.steering.bash.launch.javascript._reader import read

CP = "require('child_process')"


def one(text: str, env: dict[str, str] | None = None) -> Launch:
    found = read(text, env or {})
    assert len(found) == 1, found
    return found[0]


# --- shell lines -------------------------------------------------------------------------------------

SHELLS = [
    (f"{CP}.execSync('git push --force')", "child_process.execSync", "git push --force"),
    (f'{CP}.exec("ls -l", (err, out) => console.log(out))', "child_process.exec", "ls -l"),
    ("require('node:child_process').execSync('a')", "child_process.execSync", "a"),
    ("const cp = require('child_process'); cp.execSync('b')", "child_process.execSync", "b"),
    ("var cp = require('child_process'); cp.exec('b2')", "child_process.exec", "b2"),
    ("let cp; cp = require('child_process'); cp.exec('b3')", "child_process.exec", "b3"),
    ("import cp from 'child_process'; cp.exec('c')", "child_process.exec", "c"),
    ("import * as cp from 'node:child_process'; cp.execSync('d')", "child_process.execSync", "d"),
    ("import * as cp from 'child_process'; cp.default.execSync('d2')", "child_process.execSync", "d2"),
    ("import {execSync as run} from 'child_process'; run('e')", "child_process.execSync", "e"),
    ("import {exec} from 'child_process'; exec('e2')", "child_process.exec", "e2"),
    ("const {exec, spawn: s} = require('child_process'); exec('f')", "child_process.exec", "f"),
    ("const {execSync: run = null} = require('child_process'); run('f2')", "child_process.execSync", "f2"),
    ("const {...rest} = require('child_process'); rest.execSync('f3')", "child_process.execSync", "f3"),
    (
        "const cp = require('child_process'); const {execSync} = cp; execSync('f4')",
        "child_process.execSync",
        "f4",
    ),
    (
        "const cp = require('child_process'); const other = cp; other.execSync('f5')",
        "child_process.execSync",
        "f5",
    ),
    ("const run = require('child_process').execSync; run('f6')", "child_process.execSync", "f6"),
    ("(await import('node:child_process')).execSync('g')", "child_process.execSync", "g"),
    ("const cp = await import('child_process'); cp.exec('g2')", "child_process.exec", "g2"),
    ("const {execSync} = await import('child_process'); execSync('g3')", "child_process.execSync", "g3"),
    ("process.mainModule.require('child_process').execSync('h')", "child_process.execSync", "h"),
    ("module.require('child_process').execSync('i')", "child_process.execSync", "i"),
    ("require.main.require('child_process').execSync('i2')", "child_process.execSync", "i2"),
    ("module.constructor._load('child_process').execSync('i3')", "child_process.execSync", "i3"),
    (
        "require('module').createRequire(__filename)('child_process').execSync('i4')",
        "child_process.execSync",
        "i4",
    ),
    ("globalThis.require('child_process').execSync('i5')", "child_process.execSync", "i5"),
    ("require.call(null, 'child_process').execSync('i6')", "child_process.execSync", "i6"),
    ("child_process.execSync('j')", "child_process.execSync", "j"),  # node -e has the built-ins as globals
    ("function f(child_process) {}; child_process.execSync('j2')", "child_process.execSync", "j2"),
    ("const cp = require('child_process'); cp?.execSync?.('k')", "child_process.execSync", "k"),
    ("const cp = require('child_process'); cp['execSync']('l')", "child_process.execSync", "l"),
    ("const cp = require('child_process'); cp['exec' + 'Sync']('m')", "child_process.execSync", "m"),
    (f"{CP}.execSync.call(null, 'n')", "child_process.execSync", "n"),
    (f"{CP}.execSync.apply(null, ['o'])", "child_process.execSync", "o"),
    (f"{CP}.execSync.bind(null)('p')", "child_process.execSync", "p"),
    (f"const ex = require('util').promisify({CP}.exec); await ex('q')", "child_process.exec", "q"),
    (f"const {{promisify}} = require('util'); promisify({CP}.exec)('r')", "child_process.exec", "r"),
    (f"{CP}.execSync('x', {{shell: '/bin/bash'}})", "child_process.execSync", "x"),
    ("require(['child', 'process'].join('_')).execSync('s')", "child_process.execSync", "s"),
    ("const m = 'child_process'; require(m).execSync('t')", "child_process.execSync", "t"),
    (f"{CP}.spawn('ls', ['-l'], {{shell: true}})", "child_process.spawn", "ls -l"),
    (f"{CP}.spawnSync('git push -f', {{shell: true}})", "child_process.spawnSync", "git push -f"),
    (f"{CP}.execFileSync('git', ['push'], {{shell: 1}})", "child_process.execFileSync", "git push"),
    (
        f"{CP}.spawn('rm', ['-rf', '/'], {{stdio: 'inherit', shell: 'bash'}})",
        "child_process.spawn",
        "rm -rf /",
    ),
    (f"const o = {{shell: true}}; {CP}.spawn('a', ['b'], o)", "child_process.spawn", "a b"),
    (
        f"const base = {{shell: true}}; {CP}.spawn('a', ['c'], {{...base, cwd: '/'}})",
        "child_process.spawn",
        "a c",
    ),
    ("Bun.$`git push -f`", "Bun.$", "git push -f"),
    ("await Bun.$`git reset --hard`.quiet()", "Bun.$", "git reset --hard"),
    ("import {$} from 'bun'; await $`rm -rf /`", "Bun.$", "rm -rf /"),
    ("const sh = Bun.$; await sh`ls`", "Bun.$", "ls"),
    ("import {$} from 'zx'; await $`git push -f`", "$", "git push -f"),
    ("await $`git push -f`", "$", "git push -f"),
    ("await $.sync`git clean -fdx`", "$", "git clean -fdx"),
    ("await $({cwd: '/tmp'})`rm -rf x`", "$", "rm -rf x"),
    ("const execa = require('execa'); execa.command('git push -f')", "execa.command", "git push -f"),
    ("const sh = require('shelljs'); sh.exec('git push -f')", "shelljs.exec", "git push -f"),
    ("import {execa} from 'execa'; await execa`git push -f`", "execa", "git push -f"),
    ("process.getBuiltinModule('child_process').execSync('u')", "child_process.execSync", "u"),
    ("require('child_process').\\u0065xecSync('v')", "child_process.execSync", "v"),
    ("const \\u0063p = require('child_process'); cp.execSync('w')", "child_process.execSync", "w"),
    (f"const shell = true; {CP}.spawn('ls', ['x'], {{shell}})", "child_process.spawn", "ls x"),
]


@pytest.mark.parametrize(("text", "api", "line"), SHELLS, ids=[case[0] for case in SHELLS])
def test_shell_lines(text: str, api: str, line: str) -> None:
    assert one(text) == Launch(api=api, shell=line, line=1)


# --- argvs -------------------------------------------------------------------------------------------

ARGVS = [
    ('const {spawnSync} = require("child_process"); spawnSync("rm", ["-rf", "/"])', "child_process.spawnSync",
     ("rm", "-rf", "/")),
    (f"{CP}.spawn('git', ['push', '--force'], {{stdio: 'inherit'}})", "child_process.spawn",
     ("git", "push", "--force")),
    (f"{CP}.spawn('ls')", "child_process.spawn", ("ls",)),
    (f"{CP}.spawn('ls', {{cwd: '/'}})", "child_process.spawn", ("ls",)),
    (f"{CP}.spawn('ls', [], {{shell: false}})", "child_process.spawn", ("ls",)),
    (f"{CP}.spawn('ls', ['-l'], {{shell: undefined}})", "child_process.spawn", ("ls", "-l")),
    (f"{CP}.spawn('ls', ['-l'], {{shell: !1}})", "child_process.spawn", ("ls", "-l")),
    (f"{CP}.execFile('git', ['push', '-f'], (err) => {{}})", "child_process.execFile", ("git", "push", "-f")),
    (f"{CP}.execFileSync('git', ['status'])", "child_process.execFileSync", ("git", "status")),
    (f"{CP}.spawnSync('sleep', [5])", "child_process.spawnSync", ("sleep", "5")),
    (f"{CP}.spawnSync('git', 'push -f'.split(' '))", "child_process.spawnSync", ("git", "push", "-f")),
    (f"const args = ['push', '-f']; {CP}.spawnSync('git', args)", "child_process.spawnSync",
     ("git", "push", "-f")),
    (f"const a = ['-f']; {CP}.spawnSync('git', ['push', ...a])", "child_process.spawnSync",
     ("git", "push", "-f")),
    (f"{CP}.spawnSync('git', ['push', branch])", "child_process.spawnSync", ("git", "push", None)),
    (f"{CP}.spawnSync('rm', ['-rf', require('os').homedir()])", "child_process.spawnSync",
     ("rm", "-rf", "$HOME")),
    (f"{CP}.spawnSync('rm', ['-rf', process.env.HOME + '/x'])", "child_process.spawnSync",
     ("rm", "-rf", "$HOME/x")),
    (f"{CP}.fork('x.js', ['a'])", "child_process.fork", ("node", "x.js", "a")),
    (f"{CP}.fork('x.js')", "child_process.fork", ("node", "x.js")),
    (f"{CP}.fork('-c', ['git push -f'], {{execPath: '/bin/sh'}})", "child_process.fork",
     ("/bin/sh", "-c", "git push -f")),
    (f"{CP}.fork('x.js', [], {{execArgv: ['-e', 'y']}})", "child_process.fork", ("node", "-e", "y", "x.js")),
    ("Bun.spawn(['git', 'push', '-f'])", "Bun.spawn", ("git", "push", "-f")),
    ("Bun.spawnSync({cmd: ['ls', '-l']})", "Bun.spawnSync", ("ls", "-l")),
    ("import {spawn} from 'bun'; spawn(['ls'], {stdout: 'pipe'})", "Bun.spawn", ("ls",)),
    ("new Deno.Command('git', {args: ['push', '--force']}).outputSync()", "Deno.Command",
     ("git", "push", "--force")),
    ("new Deno.Command('ls').spawn()", "Deno.Command", ("ls",)),
    ("const {Command} = Deno; new Command('ls', {args: ['-a']})", "Deno.Command", ("ls", "-a")),
    ("Deno.run({cmd: ['rm', '-rf', '/']})", "Deno.run", ("rm", "-rf", "/")),
    ("const execa = require('execa'); execa('git', ['push', '-f'])", "execa", ("git", "push", "-f")),
    ("import {execa} from 'execa'; await execa('ls')", "execa", ("ls",)),
    ("const spawn = require('cross-spawn'); spawn.sync('rm', ['-rf', '/'])", "cross-spawn.sync",
     ("rm", "-rf", "/")),
    ("require('shelljs').rm('-rf', '/')", "shelljs.rm", ("rm", "-rf", "/")),
    ("const args = ['push', '-f']; new Deno.Command('git', {args}); console.log(args.join(' '))",
     "Deno.Command", ("git", "push", "-f")),
    (f"const a = ['-l']; {CP}.spawnSync('ls', a); console.log(a.length)", "child_process.spawnSync",
     ("ls", "-l")),
]  # fmt: skip


@pytest.mark.parametrize(("text", "api", "argv"), ARGVS, ids=[case[0] for case in ARGVS])
def test_argvs(text: str, api: str, argv: tuple[str | None, ...]) -> None:
    assert one(text) == Launch(api=api, argv=argv, line=1)


# --- removals through fs ----------------------------------------------------------------------------

REMOVALS = [
    ("require('fs').rmSync('/', {recursive: true, force: true})", "fs.rmSync", ("rm", "-rf", "/")),
    ("require('node:fs').rmSync('dist', {recursive: true})", "fs.rmSync", ("rm", "-rf", "dist")),
    ("require('fs').rmSync('a.txt')", "fs.rmSync", ("rm", "a.txt")),
    ("require('fs').rmSync('a.txt', {force: true})", "fs.rmSync", ("rm", "a.txt")),
    ("require('fs').rmSync('x', opts)", "fs.rmSync", ("rm", "-rf", "x")),  # maybe recursive: the worst
    ("require('fs').rm('/x', {recursive: true}, () => {})", "fs.rm", ("rm", "-rf", "/x")),
    ("require('fs').rmdirSync('/tmp/x')", "fs.rmdirSync", ("rmdir", "/tmp/x")),
    ("require('fs').rmdirSync('/x', {recursive: true})", "fs.rmdirSync", ("rm", "-rf", "/x")),
    ("require('fs').unlinkSync('/etc/passwd')", "fs.unlinkSync", ("rm", "/etc/passwd")),
    ("require('fs').promises.rm('/', {recursive: true})", "fs.promises.rm", ("rm", "-rf", "/")),
    ("import {rm} from 'fs/promises'; await rm('/', {recursive: true})", "fs.promises.rm",
     ("rm", "-rf", "/")),
    ("import fs from 'node:fs/promises'; await fs.unlink('f')", "fs.promises.unlink", ("rm", "f")),
    ("const {promises: p} = require('fs'); p.rm('/', {recursive: true})", "fs.promises.rm",
     ("rm", "-rf", "/")),
    ("const {rmSync} = require('fs'); rmSync('/', {recursive: true})", "fs.rmSync", ("rm", "-rf", "/")),
    ("fs.rmSync('/', {recursive: true})", "fs.rmSync", ("rm", "-rf", "/")),  # node -e's global fs
    ("require('fs-extra').removeSync('/x')", "fs-extra.removeSync", ("rm", "-rf", "/x")),
    ("Deno.remove('/', {recursive: true})", "Deno.remove", ("rm", "-rf", "/")),
    ("Deno.removeSync('/tmp/x')", "Deno.removeSync", ("rm", "/tmp/x")),
    ("const os = require('os'); require('fs').rmSync(os.homedir(), {recursive: true})", "fs.rmSync",
     ("rm", "-rf", "$HOME")),
    ("require('fs').rmSync(require('os').homedir(), {recursive: true})", "fs.rmSync", ("rm", "-rf", "$HOME")),
    ("require('fs').rmSync(process.env.HOME, {recursive: true})", "fs.rmSync", ("rm", "-rf", "$HOME")),
    ("const {HOME} = process.env; require('fs').rmSync(HOME, {recursive: true})", "fs.rmSync",
     ("rm", "-rf", "$HOME")),
    ("const path = require('path'), os = require('os'); require('fs').rmSync(path.join(os.homedir(), 'x'), "
     "{recursive: true})", "fs.rmSync", ("rm", "-rf", "$HOME/x")),
    ("const os = require('os'); require('fs').rmSync(`${os.homedir()}/.ssh`, {recursive: true})", "fs.rmSync",
     ("rm", "-rf", "$HOME/.ssh")),
    ("const home = require('os').homedir(); require('fs').rmSync(home + '/', {recursive: true})", "fs.rmSync",
     ("rm", "-rf", "$HOME/")),
    ("require('fs').rmSync(require('path').join('/tmp', '..'), {recursive: true})", "fs.rmSync",
     ("rm", "-rf", "/")),
    ("require('fs').rmSync(require('path').resolve('/a', '/b'), {recursive: true})", "fs.rmSync",
     ("rm", "-rf", "/b")),
    ("Deno.remove(Deno.env.get('HOME'), {recursive: true})", "Deno.remove", ("rm", "-rf", "$HOME")),
]  # fmt: skip


@pytest.mark.parametrize(("text", "api", "argv"), REMOVALS, ids=[case[0] for case in REMOVALS])
def test_removals_are_the_rm_command(text: str, api: str, argv: tuple[str, ...]) -> None:
    assert one(text) == Launch(api=api, argv=argv, line=1)


@pytest.mark.parametrize(
    "text",
    [
        "require('fs').rmSync(dir, {recursive: true})",
        "require('fs').rmSync(path.join(__dirname, 'dist'), {recursive: true})",
        "require('fs').unlinkSync(`/tmp/${name}`)",
        "require('fs').rmSync(require('path').join(require('os').homedir(), sub), {recursive: true})",
        "require('fs').readFileSync('/etc/passwd')",
        "require('fs').writeFileSync('/tmp/x', 'rm -rf /')",
        "thing.rmSync('/', {recursive: true})",
    ],
)
def test_removals_of_paths_built_at_run_time_are_data(text: str) -> None:
    assert read(text, {}) == ()


# --- nothing launched --------------------------------------------------------------------------------

DATA = [
    "",
    "   \n",
    "console.log('rm -rf /')",
    "'git push -f'.split(' ')",
    "const s = 'git push --force'; console.log(s)",
    "/re/.exec(s)",
    "const m = /x(y)/.exec('rm -rf /'); console.log(m)",
    "db.exec('DROP TABLE users')",
    "x.spawn('rm -rf /')",
    "exec('git push -f')",  # no child_process anywhere: someone else's exec
    "JSON.parse('{\"a\": 1}')",
    "fetch('http://example.com').then(r => r.text())",
    "setTimeout(() => console.log('git push -f'), 10)",
    "setTimeout(done, 10)",
    "new Promise(resolve => setTimeout(resolve, 100))",
    "require('fs').readFileSync('x', 'utf8')",
    "require('./local-module').run('git push -f')",
    "import fs from 'fs'; fs.writeFileSync('out.txt', 'data')",
    "require('child_process')",
    "import 'child_process'",
    "const {execSync} = require('child_process')",
    "process.stdout.write('git reset --hard\\n')",
    "1 + 1",
    "#!/usr/bin/env node\nconsole.log(process.argv)",
    "x instanceof Function",
    "typeof eval",
    "const e = `git push ${'-f'}`",
    "Bun.file('x').text()",
    "Deno.readTextFile('x')",
    "String.raw`rm -rf /`",
    "tag`rm -rf /`",
    "new Worker('./worker.js')",
    "new Function()",
    "eval('1 + 1')",
    "eval('console.log(\"rm -rf /\")')",
    "require.resolve('lodash')",
    "new this.constructor(this)",
    "x.constructor(y)",
    "({}).constructor(1)",
    "class A { clone() { return new this.constructor(this.value) } }",
]


@pytest.mark.parametrize("text", DATA)
def test_code_that_starts_nothing_launches_nothing(text: str) -> None:
    assert read(text, {}) == ()


# --- unknowns ----------------------------------------------------------------------------------------

UNKNOWNS = [
    (f"{CP}.exec(cmd)", "child_process.exec", "built at run time"),
    (f"{CP}.execSync(process.argv[2])", "child_process.execSync", "built at run time"),
    (f"{CP}.execSync(...args)", "child_process.execSync", "built at run time"),
    (f"{CP}.spawn(prog, ['x'])", "child_process.spawn", "program named at run time"),
    (f"{CP}.spawn('x', [], opts)", "child_process.spawn", "shell option built at run time"),
    (f"{CP}.spawn('x', [], {{shell: useShell}})", "child_process.spawn", "shell option built at run time"),
    (f"{CP}.spawn('x', [], {{...opts}})", "child_process.spawn", "shell option built at run time"),
    (f"{CP}.execSync.apply(null, args)", "child_process.execSync", "built at run time"),
    ("Bun.spawn(cmd)", "Bun.spawn", "argv built at run time"),
    ("Bun.spawn({cmd})", "Bun.spawn", "argv built at run time"),
    ("new Deno.Command(cmd)", "Deno.Command", "program named at run time"),
    ("Deno.run(options)", "Deno.run", "built at run time"),
    ("require(name)", "require", "named at run time"),
    ("require(`./${name}`)", "require", "named at run time"),
    ("await import(spec)", "import", "named at run time"),
    ("module.require(x)", "require", "named at run time"),
    ("const r = require; r(x)", "require", "named at run time"),
    ("process.binding('spawn_sync')", "process.binding", "internals"),
    ("process._linkedBinding('x')", "process._linkedBinding", "internals"),
    ("eval(code)", "eval", "code built at run time"),
    ("eval(atob('cm0gLXJmIC8='))", "eval", "code built at run time"),
    ("new Function(body)()", "Function", "code built at run time"),
    ("Function('a', body)()", "Function", "code built at run time"),
    ("''.constructor.constructor(code)()", "Function", "code built at run time"),
    ("require('vm').runInThisContext(code)", "vm.runInThisContext", "code built at run time"),
    ("const vm = require('vm'); vm.runInNewContext(src, {})", "vm.runInNewContext", "code built at run time"),
    ("new (require('vm').Script)(code)", "vm.Script", "code built at run time"),
    ("setTimeout('x' + code, 1)", "setTimeout", "code built at run time"),
    ("const {Worker} = require('worker_threads'); new Worker(src, {eval: true})", "worker_threads.Worker",
     "code built at run time"),
    ("const {Worker} = require('worker_threads'); new Worker(src, opts)", "worker_threads.Worker", "may run"),
    (f"[{CP}.execSync][0]('x')", "child_process.execSync", "passed where rein cannot follow it"),
    (f"const cp = {CP}; [cp.exec].map(f => f('x'))", "child_process.exec", "passed where rein cannot follow"),
    (f"const o = {{run: {CP}.execSync}}", "child_process.execSync", "passed where"),
    ("[eval][0]('x')", "eval", "passed where"),
    ("[require][0]('child_process')", "require", "passed where"),
    (f"const cp = {CP}; cp[name]('x')", "child_process", "named at run time"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "api", "why"), UNKNOWNS, ids=[case[0] for case in UNKNOWNS])
def test_values_built_at_run_time_are_unknown(text: str, api: str, why: str) -> None:
    found = read(text, {})
    assert any(launch.api == api and why in launch.unknown for launch in found), found


def test_a_join_with_a_spread_built_at_run_time_keeps_the_separator() -> None:
    launch = one(f"{CP}.execSync(['git', 'push', ...rest].join(' '))")
    assert launch.shell == f"git push {RUNTIME}"
    assert launch.unknown


def test_a_template_with_a_substitution_is_a_line_with_a_runtime_part() -> None:
    launch = one(f"const x = `ls ${{dir}}`; {CP}.execSync(x)")
    assert launch.shell == "ls " + RUNTIME
    assert launch.unknown


def test_home_in_a_shell_line_is_home_not_unknown() -> None:
    assert one(f"{CP}.execSync(`rm -rf ${{require('os').homedir()}}/x`)") == Launch(
        api="child_process.execSync", shell="rm -rf $HOME/x", line=1
    )


def test_a_shell_line_keeps_its_known_parts() -> None:
    launch = one(f"{CP}.execSync('git push ' + remote + ' --force')")
    assert launch.shell == f"git push {RUNTIME} --force"
    assert "built at run time" in launch.unknown


def test_a_spawn_with_a_shell_set_by_a_condition_is_read_both_ways() -> None:
    assert read(f"{CP}.spawn('git', ['push', '-f'], {{shell: process.platform === 'win32'}})", {}) == (
        Launch(api="child_process.spawn", argv=("git", "push", "-f"), line=1),
        Launch(api="child_process.spawn", shell="git push -f", line=1),
    )


@pytest.mark.parametrize(
    "text",
    [
        f"const win = process.platform === 'win32'; {CP}.spawnSync('npm', ['test'], {{shell: win}})",
        f"{CP}.spawnSync('npm', ['test'], {{shell: !isUnix}})",
        f"{CP}.spawnSync('npm', ['test'], {{stdio: 'inherit', shell: os.platform() !== 'linux'}})",
    ],
)
def test_a_shell_option_that_is_a_condition_reads_the_call_both_ways(text: str) -> None:
    found = read(text, {})
    assert [(launch.shell, launch.argv, launch.unknown) for launch in found] == [
        (None, ("npm", "test"), ""),
        ("npm test", (), ""),
    ]


def test_a_shell_option_built_at_run_time_otherwise_stays_unknown() -> None:
    launch = one(f"{CP}.spawn('git', ['push', '-f'], {{shell: pickShell()}})")
    assert launch.shell == "git push -f"
    assert "shell option" in launch.unknown


@pytest.mark.parametrize(
    ("text", "argv"),
    [
        (f"{CP}.spawnSync('import os', [], {{shell: 'python3'}})", ("python3", "-c", "import os")),
        (
            f"{CP}.execSync('import os', {{shell: '/usr/bin/python3'}})",
            ("/usr/bin/python3", "-c", "import os"),
        ),
        (f"{CP}.exec('x', {{shell: 'node'}}, () => {{}})", ("node", "-c", "x")),
    ],
)
def test_a_shell_option_naming_another_program_runs_it_with_the_line(
    text: str, argv: tuple[str, ...]
) -> None:
    assert one(text).argv == argv


def test_a_shell_option_naming_a_posix_shell_is_a_shell_line() -> None:
    assert one(f"{CP}.execSync('git status', {{shell: '/usr/bin/zsh'}})").shell == "git status"


def test_a_spawned_shell_line_with_an_unknown_argument_list() -> None:
    launch = one(f"{CP}.spawn('git', rest, {{shell: true}})")
    assert launch.shell == f"git {RUNTIME}"
    assert launch.unknown


def test_an_argv_element_built_at_run_time_alone_is_not_unknown() -> None:
    assert one(f"{CP}.execFileSync('git', ['push', 'origin', branch])") == Launch(
        api="child_process.execFileSync", argv=("git", "push", "origin", None), line=1
    )


# --- constants ---------------------------------------------------------------------------------------

CONSTANTS = [
    (f"const cmd = 'git push -f'; {CP}.execSync(cmd)", "git push -f"),
    (f"let cmd = 'git push -f'; {CP}.execSync(cmd)", "git push -f"),
    (f"var cmd = 'git push -f'; {CP}.execSync(cmd)", "git push -f"),
    (f"const a = 'git', b = a + ' push'; {CP}.execSync(b + ' -f')", "git push -f"),
    (f"const f = '-f'; {CP}.execSync(`git push ${{f}}`)", "git push -f"),
    (f"const parts = ['git', 'push']; {CP}.execSync(parts.join(' '))", "git push"),
    (f"{CP}.execSync(String('ls'))", "ls"),
    (f"{CP}.execSync('git'.concat(' push'))", "git push"),
    (f"{CP}.execSync(('git' + ' status').toString())", "git status"),
]


@pytest.mark.parametrize(("text", "line"), CONSTANTS, ids=[case[0] for case in CONSTANTS])
def test_constants_resolve(text: str, line: str) -> None:
    assert one(text).shell == line


NOT_CONSTANTS = [
    f"let cmd = 'ls'; cmd = 'git push -f'; {CP}.execSync(cmd)",
    f"let cmd = 'ls'; cmd += ' -f'; {CP}.execSync(cmd)",
    f"var cmd = 'ls'; globalThis.cmd = 'rm -rf /'; {CP}.execSync(cmd)",
    f"const c = 'ls'; (c => {CP}.execSync(c))('rm -rf /')",
    f"const c = 'ls'; function f(c) {{ {CP}.execSync(c) }} f(x)",
    f"const c = 'ls'; try {{}} catch (c) {{ {CP}.execSync(c) }}",
    f"const c = 'ls'; for (const c of list) {CP}.execSync(c)",
    f"{{ const c = 'ls'; }} globalThis.c = 'rm -rf /'; {CP}.execSync(c)",
    f"with (obj) {{ const c = 'ls'; {CP}.execSync(c) }}",
    f"let c = 'ls'; eval(\"c = 'rm -rf /'\"); {CP}.execSync(c)",
    f"const c = c + 'x'; {CP}.execSync(c)",
    f"let cmd; {CP}.execSync(cmd)",
]


@pytest.mark.parametrize("text", NOT_CONSTANTS)
def test_names_that_may_change_are_not_constants(text: str) -> None:
    found = read(text, {})
    assert any(launch.api == "child_process.execSync" and launch.unknown for launch in found), found
    assert all(
        RUNTIME in (launch.shell or RUNTIME) for launch in found if launch.api == "child_process.execSync"
    )


def test_an_array_changed_in_place_is_not_a_constant() -> None:
    launch = one(f"const a = ['status']; a.push('-f'); {CP}.spawnSync('git', a)")
    assert launch.argv == ("git",) and launch.rest and not launch.unknown


def test_an_array_read_twice_without_change_stays_a_constant() -> None:
    text = f"const a = ['-l']; {CP}.spawnSync('ls', a); {CP}.spawnSync('ls', [...a, '-a'])"
    assert [launch.argv for launch in read(text, {})] == [("ls", "-l"), ("ls", "-l", "-a")]


def test_an_options_object_read_by_process_apis_only_stays_a_constant() -> None:
    run = f"{CP}.execFileSync"
    text = f"const o = {{stdio: 'inherit'}}; {run}('git', ['a'], o); {run}('git', ['b'], o)"
    assert [launch.argv for launch in read(text, {})] == [("git", "a"), ("git", "b")]


@pytest.mark.parametrize(
    "change",
    ["o.shell = true", "o['shell'] = true", "Object.assign(o, {shell: true})", "const p = o; p.shell = true",
     "mutate(o)", "eval('o.shell = true')"],
)  # fmt: skip
def test_an_options_object_that_may_change_is_not_a_constant(change: str) -> None:
    found = read(f"const o = {{shell: false}}; {change}; {CP}.spawn('git push -f', [], o)", {})
    assert Launch(api="child_process.spawn", argv=("git push -f",), line=1) not in found
    assert any(launch.api == "child_process.spawn" and launch.unknown for launch in found), found


def test_an_options_object_changed_in_place_is_not_a_constant() -> None:
    launch = one(f"const o = {{shell: false}}; o.shell = true; {CP}.spawnSync('git push -f', [], o)")
    assert launch.shell == "git push -f" and launch.unknown


# --- escapes -----------------------------------------------------------------------------------------

ESCAPES = [
    (r"'a\nb'", "a\nb"),
    (r"'\x41\u0042\u{43}'", "ABC"),
    (r"'\u{1F600}'", "\U0001f600"),
    (r"'\uD83D\uDE00'", "\U0001f600"),
    ("'a\\\nb'", "ab"),
    ("'a\\\r\nb'", "ab"),
    (r"'\t\v\f\b\r'", "\t\v\f\b\r"),
    (r"'\0'", "\0"),
    (r"'\101'", "A"),
    (r"'\q\'\"\\'", "q'\"\\"),
    (r'"it\'s"', "it's"),
    (r"`a\x41${'b'}\u0043`", "aAbC"),
    (r"String.raw`a\nb`", r"a\nb"),
    ("'git' + ' ' + 'push'", "git push"),
    ("['a', 'b'].join()", "a,b"),
    ("['a', 'b'].join('')", "ab"),
]


@pytest.mark.parametrize(("expression", "value"), ESCAPES, ids=[case[0] for case in ESCAPES])
def test_string_values(expression: str, value: str) -> None:
    assert one(f"{CP}.execSync({expression})").shell == value


# --- code run from strings ---------------------------------------------------------------------------

CODE = [
    (f'eval("{CP}.execSync(\'a\')")', "child_process.execSync", "a"),
    (f"eval(`{CP}.execSync('b')`)", "child_process.execSync", "b"),
    (f"new Function(\"{CP}.execSync('c')\")()", "child_process.execSync", "c"),
    (f"Function('x', \"{CP}.execSync('d')\")()", "child_process.execSync", "d"),
    (f"new Function(\"a = {CP}.execSync('e')\", '')()", "child_process.execSync", "e"),  # a default value
    (f"require('vm').runInThisContext(\"{CP}.execSync('f')\")", "child_process.execSync", "f"),
    (f"const vm = require('vm'); vm.runInNewContext(\"{CP}.execSync('g')\")", "child_process.execSync", "g"),
    (f"setTimeout(\"{CP}.execSync('h')\", 1)", "child_process.execSync", "h"),
    (f"const code = \"{CP}.execSync('i')\"; setInterval(code, 1)", "child_process.execSync", "i"),
    (f"const e = eval; e(\"{CP}.execSync('j')\")", "child_process.execSync", "j"),
    (f"(0, eval)(\"{CP}.execSync('k')\")", "child_process.execSync", "k"),
    (f"globalThis.eval(\"{CP}.execSync('l')\")", "child_process.execSync", "l"),
    (f"''.constructor.constructor(\"{CP}.execSync('m')\")()", "child_process.execSync", "m"),
    (f"const {{Worker}} = require('worker_threads'); new Worker(\"{CP}.execSync('n')\", {{eval: true}})",
     "child_process.execSync", "n"),
    ("const cp = require('child_process'); eval(\"cp.execSync('o')\")", "child_process.execSync", "o"),
    ("const c = 'git push -f'; eval(\"require('child_process').execSync(c)\")", "child_process.execSync",
     "git push -f"),
    ("Function('return process')().mainModule.require('child_process').execSync('p')",
     "child_process.execSync", "p"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "api", "line"), CODE, ids=[case[0] for case in CODE])
def test_code_run_from_a_string_is_read(text: str, api: str, line: str) -> None:
    assert one(text) == Launch(api=api, shell=line, line=1)


def test_code_run_from_strings_is_read_to_a_bounded_depth() -> None:
    text = "require('child_process').execSync('x')"
    for _ in range(8):
        text = "eval(" + repr(text) + ")"
    found = read(text, {})
    assert any("nests too deeply" in launch.unknown for launch in found)


def test_launches_in_code_run_from_a_string_are_at_the_line_of_the_call() -> None:
    assert one(f"\n\neval(\"\\n\\n{CP}.execSync('x')\")").line == 3


# --- child_process the reader cannot follow ----------------------------------------------------------

LOST = [
    ("import('child_process').then(cp => cp.execSync('a'))", "child_process.execSync", "a"),
    ("const cp = require('child_process'); function run(m) { m.execSync('b') } run(cp)",
     "child_process.execSync", "b"),
    ("module.exports = require('child_process'); exports.exec('c')", "child_process.exec", "c"),
    ("export * from 'child_process'; x.spawn('d', {shell: true})", "child_process.spawn", "d"),
    ("export {exec} from 'child_process'; exec('e')", "child_process.exec", "e"),
    ("const name = 'child_process'; load(name).execSync('f')", "child_process.execSync", "f"),
    ("const cp = [require('child_process')][0]; cp.exec('g')", "child_process.exec", "g"),
    ("console.log('child_process'); x.exec('h')", "child_process.exec", "h"),
    ("const {ChildProcess} = require('child_process'); new ChildProcess().spawn('i')", "child_process.spawn",
     "i"),
    ("function f({execSync} = require('child_process')) { execSync('j') } f()", "child_process.execSync",
     "j"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "api", "line"), LOST, ids=[case[0] for case in LOST])
def test_calls_are_matched_by_name_once_child_process_is_lost(text: str, api: str, line: str) -> None:
    assert Launch(api=api, shell=line, line=1) in read(text, {}) or any(
        launch.api == api and launch.argv == (line,) for launch in read(text, {})
    )


def test_a_lost_child_process_makes_other_exec_calls_launches() -> None:
    found = read("import('child_process').then(m => m.exec(x)); /re/.exec(s)", {})
    assert [launch.api for launch in found] == ["child_process.exec", "child_process.exec"]
    assert all(launch.unknown for launch in found)


def test_a_followed_child_process_leaves_other_exec_calls_alone() -> None:
    assert read(f"{CP}.execSync('ls'); /re/.exec(s); db.exec(sql)", {}) == (
        Launch(api="child_process.execSync", shell="ls", line=1),
    )


# --- the input option: the launched command's stdin --------------------------------------------------


def test_the_input_of_a_sync_call_is_a_heredoc() -> None:
    launch = one(f"{CP}.execSync('sh', {{input: 'git push -f'}})")
    assert launch.shell == "sh <<'REIN_INPUT'\ngit push -f\nREIN_INPUT"


def test_the_input_of_an_argv_is_a_heredoc_after_its_quoted_words() -> None:
    launch = one(f"{CP}.spawnSync('bash', ['-s', 'a b'], {{input: 'REIN_INPUT'}})")
    assert launch.shell == "bash -s 'a b' <<'REIN_INPUT_'\nREIN_INPUT\nREIN_INPUT_"


def test_an_input_built_at_run_time_is_a_runtime_part_of_the_heredoc() -> None:
    launch = one(f"{CP}.execSync('grep x', {{input: data}})")
    assert launch.shell == f"grep x <<'REIN_INPUT'\n{RUNTIME}\nREIN_INPUT"
    assert not launch.unknown  # grep reading data is known; a shell reading it would find RUNTIME


def test_an_async_call_takes_no_input() -> None:
    assert one(f"{CP}.exec('sh', {{input: 'git push -f'}})").shell == "sh"


# --- lines, parse errors, the environment, the dispatcher --------------------------------------------


def test_lines_are_the_lines_of_the_calls() -> None:
    text = f"const cp = {CP};\n\ncp.execSync('a');\n// cp.execSync('comment')\ncp.execSync(\n  'b'\n)"
    assert [(launch.shell, launch.line) for launch in read(text, {})] == [("a", 3), ("b", 5)]


def test_launches_come_in_source_order() -> None:
    text = f"{CP}.execSync('a'); Bun.spawn(['b']); eval(\"{CP}.execSync('c')\"); {CP}.execSync('d')"
    assert [launch.shell or launch.argv[0] for launch in read(text, {})] == ["a", "b", "c", "d"]


def test_text_that_does_not_parse_near_a_process_api_is_unknown() -> None:
    found = read("exec('git push -f'", {})
    assert found and "does not parse" in found[-1].unknown


def test_text_that_does_not_parse_still_reports_what_it_can() -> None:
    found = read(f"{CP}.execSync('a');\n)))( spawn(", {})
    assert found[0] == Launch(api="child_process.execSync", shell="a", line=1)
    assert "does not parse" in found[-1].unknown


def test_text_that_does_not_parse_without_a_process_api_launches_nothing() -> None:
    assert read("const = = 1 )))", {}) == ()


def test_the_environment_rein_knows_fills_process_env() -> None:
    assert one(f"{CP}.execSync(process.env.CMD)", {"CMD": "git push -f"}).shell == "git push -f"
    assert one(f"{CP}.execSync(process.env.CMD)").unknown


def test_the_dispatcher_reads_javascript_with_this_reader() -> None:
    assert launches("javascript", f"{CP}.execSync('git push --force')") == (
        Launch(api="child_process.execSync", shell="git push --force", line=1),
    )


def test_a_one_liner_reads_fast() -> None:
    text = f"const {{spawnSync}} = {CP}; spawnSync('git', ['push', '--force'], {{stdio: 'inherit'}})"
    read(text, {})  # the grammar loads on first use
    batches = []
    for _ in range(5):  # the best batch, in CPU time: the work done, not how busy the machine is
        start = time.process_time()
        for _ in range(50):
            read(text, {})
        batches.append((time.process_time() - start) / 50)
    assert min(batches) < 0.001


# --- never raises ------------------------------------------------------------------------------------

_TOKENS = [
    "require", "(", ")", "'child_process'", "'node:child_process'", ".", "execSync", "exec", "spawn", "[",
    "]", "{", "}", ",", ";", "`", "${", "'ls'", "x", "const", "=", "await", "import", "eval", "new",
    "Function", "Bun", "$", "Deno", "Command", "shell", ":", "true", "...", "+", "'\\", "\\u{", "fs",
    "rmSync", "os", "homedir", "\n", "=>", "with", "globalThis", "process", "env", "HOME", "/re/", "#!",
    "//", "/*", "for", "of", "forEach", "function", "run", "c", "readdirSync", "Reflect", "get", "cwd",
]  # fmt: skip


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=200))
def test_arbitrary_text_never_raises(text: str) -> None:
    for launch in read(text, {}):
        assert isinstance(launch, Launch)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_TOKENS), max_size=40))
def test_javascript_like_text_never_raises(tokens: list[str]) -> None:
    for launch in read(" ".join(tokens), {}):
        assert isinstance(launch, Launch)
        assert launch.shell is None or not launch.argv


# --- loops over known values, and helpers called with them ------------------------------------------

LOOPS = [
    (f"for (const c of ['git status', 'git log -1']) {CP}.execSync(c)", ["git status", "git log -1"]),
    (f"const cp = {CP}; ['lint', 'test'].forEach(t => cp.execSync(`npm run ${{t}}`))",
     ["npm run lint", "npm run test"]),
    (f"const cp = {CP}; for (const t of ['lint', 'test']) cp.execSync(`npm run ${{t}}`, {{stdio: 1}})",
     ["npm run lint", "npm run test"]),
    (f"for (let c of ['a', 'b']) {{ {CP}.execSync(c) }}", ["a", "b"]),
    (f"const steps = ['npm ci', 'npm test']; for (const s of steps) {CP}.execSync(s)",
     ["npm ci", "npm test"]),
    (f"for (const s of 'a b'.split(' ')) {CP}.execSync('make ' + s)", ["make a", "make b"]),
    (f"['x', 'y'].map(function (f) {{ return {CP}.execSync('cat ' + f) }})", ["cat x", "cat y"]),
    (f"for (const f of ['a.py', 'b.py']) {{ const cmd = 'black ' + f; {CP}.execSync(cmd) }}",
     ["black a.py", "black b.py"]),
    (f"for (const c of [...['a'], 'b']) {CP}.execSync(c)", ["a", "b"]),
    (f"for (const c of ['a', 'a']) {CP}.execSync(c)", ["a"]),  # one launch per distinct command
    (f"const cp = {CP}; function sh(c) {{ cp.execSync(c) }} sh('make build'); sh('make test')",
     ["make build", "make test"]),
    (f"const cp = {CP}; const sh = c => cp.execSync(c); for (const t of ['a', 'b']) sh('make ' + t)",
     ["make a", "make b"]),
    (f"const cp = {CP}; const run = c => cp.execSync(c); for (const c of ['ls', 'pwd']) run(c)",
     ["ls", "pwd"]),
]  # fmt: skip


@pytest.mark.parametrize(("text", "lines"), LOOPS, ids=[case[0] for case in LOOPS])
def test_a_call_in_a_loop_over_known_values_launches_once_per_value(text: str, lines: list[str]) -> None:
    found = read(text, {})
    assert [launch.shell for launch in found] == lines, found
    assert not any(launch.unknown for launch in found)


HELPERS = [
    (f"const {{execFileSync}} = {CP}; const run = (...a) => execFileSync('git', a).toString(); "
     "console.log(run('status')); run('log', '-1')", [("git", "status"), ("git", "log", "-1")]),
    (f"const git = (...a) => {CP}.execFileSync('git', a); const st = () => git('status'); st()",
     [("git", "status")]),
    (f"function g(sub, ...rest) {{ {CP}.spawnSync('git', [sub, ...rest]) }} g('push'); g('log', '-1')",
     [("git", "push"), ("git", "log", "-1")]),
    (f"for (const cmd of [['git', 'status'], ['git', 'log']]) {CP}.spawnSync(cmd[0], cmd.slice(1))",
     [("git", "status"), ("git", "log")]),
]  # fmt: skip


@pytest.mark.parametrize(("text", "argvs"), HELPERS, ids=[case[0] for case in HELPERS])
def test_a_helper_called_with_known_values_launches_once_per_call(
    text: str, argvs: list[tuple[str | None, ...]]
) -> None:
    assert [launch.argv for launch in read(text, {})] == argvs


STILL_UNKNOWN = [
    f"for (const c of list) {CP}.execSync(c)",  # a list built at run time
    f"for (const c of ['ls']) {{}} {CP}.execSync(c)",  # read outside the loop
    f"for (let c of ['ls']) {{ c = 'rm -rf /'; {CP}.execSync(c) }}",  # written in the loop
    f"for (var c of ['ls']) {{ f(); {CP}.execSync(c) }} function f() {{ c = 'rm -rf /' }}",
    f"for (c of ['ls']) {CP}.execSync(c)",  # no declaration: any `c`
    f"for (const c in {{a: 1}}) {CP}.execSync(c)",  # keys of an object
    f"for (const [c] of [['ls']]) {CP}.execSync(c)",  # destructured
    f"const a = ['ls']; a.push(x); for (const c of a) {CP}.execSync(c)",  # changed before the loop
    f"const cp = {CP}; const run = c => cp.execSync(c); run('ls'); setTimeout(run, 0, 'rm -rf /')",
    f"const cp = {CP}; const run = c => cp.execSync(c); run('ls'); run(x)",
    f"const cp = {CP}; function run(c) {{ cp.execSync(c) }} run('ls'); globalThis.run('rm -rf /')",
    f"const cp = {CP}; function run(c) {{ arguments[0] = 'rm -rf /'; cp.execSync(c) }} run('ls')",
    f"const cp = {CP}; const run = c => cp.execSync(c); run('ls'); eval(\"run('rm -rf /')\")",
    f"const cp = {CP}; const run = (c = 'ls') => cp.execSync(c); run()",
    f"const cp = {CP}; const run = c => cp.execSync(c); run(...args)",
    f"const cp = {CP}; function f(c) {{ cp.execSync(c); f('rm -rf /') }} f('ls')",  # calls itself
    f"with (o) {{ for (const c of ['ls']) {CP}.execSync(c) }}",
    f"for (const c of ['a','b','c','d','e']) for (const d of ['1','2','3','4']) {CP}.execSync(c + d)",
]


@pytest.mark.parametrize("text", STILL_UNKNOWN)
def test_names_that_may_take_other_values_stay_built_at_run_time(text: str) -> None:
    found = read(text, {})
    assert any(launch.unknown for launch in found), found
    assert not any(launch.shell == "rm -rf /" for launch in found)


def test_a_loop_keeps_each_launch_on_the_line_of_its_call() -> None:
    found = read(f"for (const c of ['a', 'b'])\n  {CP}.execSync(c)", {})
    assert [(launch.shell, launch.line) for launch in found] == [("a", 2), ("b", 2)]


# --- the running interpreter, argument lists of unknown length -----------------------------------------


@pytest.mark.parametrize(
    ("text", "argv"),
    [
        (f"{CP}.spawnSync(process.execPath, ['--version'])", ("node", "--version")),
        (f"{CP}.execFileSync(process.argv[0], ['x.js'])", ("node", "x.js")),
        ("new Deno.Command(Deno.execPath(), {args: ['fmt']})", None),
    ],
)
def test_the_running_interpreter_is_node(text: str, argv: tuple[str, ...] | None) -> None:
    if argv is None:
        assert one(text).unknown  # Deno.execPath() is a call: built at run time
    else:
        assert one(text).argv == argv


@pytest.mark.parametrize(
    ("text", "argv"),
    [
        (f"{CP}.spawnSync('pytest', [...files])", ("pytest",)),
        (f"{CP}.spawn('git', ['add', ...files])", ("git", "add")),
        (f"{CP}.spawn('git', args)", ("git",)),
        ("new Deno.Command('git', {args})", ("git",)),
        (f"{CP}.fork('x.js', args)", ("node", "x.js")),
        ("Bun.spawn(['git', 'add', ...files])", ("git", "add")),
    ],
)
def test_an_argv_of_unknown_length_keeps_its_known_part(text: str, argv: tuple[str, ...]) -> None:
    assert one(text) == Launch(api=one(text).api, argv=argv, rest=True, line=1)


def test_a_program_named_at_run_time_is_still_unknown() -> None:
    assert one(f"{CP}.spawn(prog, [...files])").unknown


def test_fork_with_node_options_built_at_run_time_is_unknown() -> None:
    assert "node options" in one(f"{CP}.fork('x.js', [], {{execArgv: flags}})").unknown


def test_the_rest_of_an_argv_fed_input_is_an_unknown_word() -> None:
    launch = one(f"{CP}.spawnSync('sh', args, {{input: 'ls'}})")
    assert launch.shell == f"sh \"{RUNTIME}\" <<'REIN_INPUT'\nls\nREIN_INPUT"


# --- process APIs reached through Reflect and Object ---------------------------------------------------

REFLECTED = [
    (f"const cp = {CP}; Reflect.get(cp, 'execSync')('git push -f')", "git push -f"),
    (f"Reflect.apply({CP}.execSync, null, ['git push -f'])", "git push -f"),
    (f"const run = Reflect.get({CP}, 'exec'); run('ls')", "ls"),
]


@pytest.mark.parametrize(("text", "line"), REFLECTED, ids=[case[0] for case in REFLECTED])
def test_reflect_with_a_literal_name_is_the_call(text: str, line: str) -> None:
    assert one(text).shell == line


@pytest.mark.parametrize(
    "text",
    [
        f"const cp = {CP}; Object.values(cp)[5]('git push -f')",
        f"const cp = {CP}; Object.entries(cp).find(([k]) => k === 'execSync')[1]('git push -f')",
        f"const cp = {CP}; cp[Object.keys(cp)[3]]('git push -f')",
        f"const cp = {CP}; Reflect.get(cp, name)('git push -f')",
        f"const cp = {CP}; const f = Reflect.get(cp, name); f('git push -f')",
        f"const cp = {CP}; const f = cp[name]; f('git push -f')",
        f"const cp = {CP}; Object.getOwnPropertyNames(cp).forEach(k => k)",
    ],
)
def test_child_process_functions_picked_at_run_time_are_unknown(text: str) -> None:
    found = read(text, {})
    assert found and any(launch.api.startswith("child_process") and launch.unknown for launch in found)


def test_a_process_function_passed_on_through_a_logical_operator_is_unknown() -> None:
    assert "passed where" in one(f"const {{exec}} = {CP}; (exec || fallback)('git push -f')").unknown


# --- code that never runs, and process functions only looked at --------------------------------------

NEVER_RUN = [
    "new Function(\"require('child_process').execSync('git push -f')\")",
    "const fn = new Function(\"require('child_process').execSync('git push -f')\")",
    f"function danger() {{ {CP}.execSync('git push -f') }} console.log('ok')",
    f"const danger = () => {CP}.execSync('git push -f'); console.log('ok')",
    f"function a() {{ {CP}.execSync('git push -f') }} function b() {{ a() }}",  # only dead code calls it
    f"function danger() {{ danger(); {CP}.execSync('git push -f') }}",
    f"const {{exec}} = {CP}; console.log(typeof exec)",
    f"const {{exec}} = {CP}; console.log(exec)",
    f"const {{exec}} = {CP}; if (!exec) throw 0",
    f"const {{exec}} = {CP}; console.log(exec.name, String(exec))",
    f"const cp = {CP}; console.log(typeof cp.execSync === 'function')",
]


@pytest.mark.parametrize("text", NEVER_RUN)
def test_code_that_never_runs_launches_nothing(text: str) -> None:
    assert read(text, {}) == ()


MAY_RUN = [
    f"function danger() {{ {CP}.execSync('git push -f') }} danger()",
    f"function danger() {{ {CP}.execSync('git push -f') }} setTimeout(danger)",
    f"function danger() {{ {CP}.execSync('git push -f') }} eval('dang' + 'er()')",
    f"function danger() {{ {CP}.execSync('git push -f') }} eval('\\\\u0064anger()')",
    f"function danger() {{ {CP}.execSync('git push -f') }} globalThis['dan' + 'ger']()",
    f"function danger() {{ {CP}.execSync('git push -f') }} this[name]()",
    f"export function danger() {{ {CP}.execSync('git push -f') }}",
    f"function danger() {{ {CP}.execSync('git push -f') }} module.exports = {{danger}}",
    f"function danger() {{ {CP}.execSync('git push -f') }} require('./x.js')",
    f"function danger() {{ {CP}.execSync('git push -f') }} import('data:text/javascript,d' + 'anger()')",
    "new Function(\"require('child_process').execSync('git push -f')\")()",
    "const f = new Function(\"require('child_process').execSync('git push -f')\"); f()",
    "[new Function(\"require('child_process').execSync('git push -f')\")][0]()",
]


@pytest.mark.parametrize("text", MAY_RUN)
def test_code_that_may_run_is_read(text: str) -> None:
    found = read(text, {})
    assert any(launch.shell == "git push -f" or launch.unknown for launch in found), found


# --- removals of computed paths -----------------------------------------------------------------------

COMPUTED_REMOVALS = [
    ("require('fs').rmSync(require('path').dirname(process.cwd()), {recursive: true})", ("rm", "-rf", "..")),
    ("require('fs').rmSync(require('os').tmpdir(), {recursive: true})", ("rm", "-rf", "/tmp")),
    ("require('fs').rmSync(process.cwd() + '/..', {recursive: true})", ("rm", "-rf", "..")),
    ("require('fs').rmSync(require('path').join(process.cwd(), '..'), {recursive: true})",
     ("rm", "-rf", "..")),
    ("require('fs').rmSync(process.cwd(), {recursive: true})", ("rm", "-rf", ".")),
    ("Deno.removeSync(Deno.cwd() + '/..', {recursive: true})", ("rm", "-rf", "..")),
    ("require('fs').rmSync(require('path').dirname(require('os').homedir()), {recursive: true})",
     ("rm", "-rf", "$HOME/..")),
    ("require('fs').rmSync(require('path').dirname('/home/dev/project'), {recursive: true})",
     ("rm", "-rf", "/home/dev")),
    ("const os = require('os'); require('fs').rmSync(require('path').dirname(os.homedir() + '/a/b'))",
     ("rm", "$HOME/a")),
    ("require('fs-extra').emptyDirSync('/home/dev')", ("rm", "-rf", "/home/dev")),
    ("require('fs-extra').removeSync('/home/dev')", ("rm", "-rf", "/home/dev")),
    ("require('rimraf').sync('/home/dev')", ("rm", "-rf", "/home/dev")),
    ("require('rimraf').rimrafSync('/')", ("rm", "-rf", "/")),
    ("const rimraf = require('rimraf'); rimraf('/x', () => {})", ("rm", "-rf", "/x")),
    ("import {rimraf} from 'rimraf'; await rimraf('/x')", ("rm", "-rf", "/x")),
    ("require('fs').rmSync(`${process.env.PWD}/..`, {recursive: true})", ("rm", "-rf", "..")),
]  # fmt: skip


@pytest.mark.parametrize(("text", "argv"), COMPUTED_REMOVALS, ids=[case[0] for case in COMPUTED_REMOVALS])
def test_removals_of_computed_paths(text: str, argv: tuple[str, ...]) -> None:
    assert one(text).argv == argv


GLOB_REMOVALS = [
    ("const fs = require('fs'); for (const f of fs.readdirSync('/home/dev')) "
     "fs.rmSync('/home/dev/' + f, {recursive: true})", "rm -rf /home/dev/*"),
    ("const h = require('os').homedir(); require('fs').readdirSync(h).forEach(f => "
     "require('fs').rmSync(h + '/' + f, {recursive: true}))", "rm -rf $HOME/*"),
    ("const fs = require('fs'), p = require('path'), h = require('os').homedir(); "
     "for (const f of fs.readdirSync(h)) fs.rmSync(p.join(h, f), {recursive: true})", "rm -rf $HOME/*"),
    ("const fs = require('fs'); for (const f of fs.readdirSync('.')) fs.rmSync(f, {recursive: true})",
     "rm -rf ./*"),
    ("const fs = require('fs'), d = '/a b'; for (const f of fs.readdirSync(d)) fs.unlinkSync(`${d}/${f}`)",
     "rm '/a b/'*"),
    ("require('rimraf')('/home/dev/*')", "rm -rf /home/dev/*"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "line"), GLOB_REMOVALS, ids=[case[0] for case in GLOB_REMOVALS])
def test_removing_each_entry_of_a_listed_directory_is_a_glob(text: str, line: str) -> None:
    found = read(text, {})
    assert [launch.shell for launch in found] == [line], found
    assert not found[0].unknown


@pytest.mark.parametrize(
    "text",
    [
        "const fs = require('fs'); for (const f of fs.readdirSync('/x')) fs.rmSync('/y/' + f)",  # elsewhere
        "const fs = require('fs'); for (const f of fs.readdirSync(dir)) fs.rmSync(dir + '/' + f)",
        "require('fs').rmSync('/home/dev/*', {recursive: true})",  # fs takes no globs: a file named `*`
        "require('fs').rmSync(require('path').dirname(x), {recursive: true})",
    ],
)
def test_removals_that_are_no_glob_of_a_known_directory(text: str) -> None:
    assert all(launch.shell is None for launch in read(text, {}))
