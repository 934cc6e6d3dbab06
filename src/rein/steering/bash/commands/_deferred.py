"""Commands installed to run later: `crontab` entries and `systemd-run` timers (`at`, `batch` and
`trap` are `_shells`'). Each entry is checked now, as a command that may run.

A crontab is read line by line (cronie, Vixie cron): blank lines and `#` comments, `NAME=value`
environment lines (`SHELL=` changes the shell that runs the entries), and entries of five time
fields or an `@reboot`/`@daily`/... nickname, then the command. In the command an unescaped `%`
ends the command line and starts its stdin, each further `%` a newline (`sh %git push -f`).
"""

from __future__ import annotations

import posixpath
import re

from rein.steering.bash.commands._inner import NOTHING, Call, Inner, Unwrapped, run
from rein.steering.bash.commands._interp import language
from rein.steering.bash.commands._options import Options, parse
from rein.steering.bash.commands._sources import file_text, stdin_text
from rein.steering.bash.commands._table_kit import longs
from rein.steering.bash.model import Stdin, Word

_CRONTAB = Options(short_value="unsx", permute=True, abbreviate=False)
"""cronie `crontab [-u user] [-n host] [-c] [-x mask] [-l | -r | -e | -i | -T | file]`."""
_ENTRY = re.compile(
    r"\s*(?:@(?:reboot|yearly|annually|monthly|weekly|daily|midnight|hourly)"
    r"|(?:[\d*][\d*,/-]*\s+){3}(?:[\d*][\d*,/-]*|[a-z]{3}\S*)\s+(?:[\d*][\d*,/-]*|[a-z]{3}\S*))\s+(.*)",
    re.IGNORECASE,
)
"""An entry: a nickname or five time fields (names only for the month and the weekday), then the command."""
_ENVIRONMENT = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)")
_PERCENT = re.compile(r"\\%|%")


def crontab(call: Call) -> Unwrapped:
    """`crontab FILE`, `crontab -` and `crontab` fed a pipe or heredoc install a crontab; `-l`, `-r`,
    `-e` (an editor: `_env_commands`) and `-T` (check only) install none."""
    parsed = parse(call.argv, 1, _CRONTAB)
    if parsed.has("-l", "-r", "-e", "-i", "-T", "-V", "-h"):
        return NOTHING
    operand = parsed.operands[0] if parsed.operands else Word.literal("-")
    if operand.value == "-":
        text, note = stdin_text(call, "a crontab")
    else:
        text, note = file_text(call, operand, "a crontab")
    if text is None:
        return Unwrapped(notes=(note,) if note else ())
    home = call.state.env.get("HOME")
    other = parsed.has("-u")  # another user's crontab runs in that user's home
    cwd = Word.literal(home) if isinstance(home, str) and home and not other else None
    return entries(text, "crontab", cwd)


def entries(text: str, label: str, cwd: Word | None) -> Unwrapped:
    """The commands of a crontab's entries, each with the environment lines before it."""
    env: list[tuple[str, Word]] = []
    inners: list[Inner] = []
    notes: list[str] = []
    shell = "sh"
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        entry = _ENTRY.fullmatch(line)
        setting = _ENVIRONMENT.fullmatch(line) if entry is None else None
        if setting is not None:
            name, value = setting[1], _unquoted(setting[2].strip())
            env.append((name, Word.literal(value)))
            shell = posixpath.basename(value) if name == "SHELL" else shell
            continue
        if entry is None:  # no crontab line rein knows: checked as a command, in case cron reads it so
            inners.append(Inner(label, "maybe", script=line, via=label, cwd=cwd, cwd_unknown=cwd is None))
            continue
        if not entry[1].strip():
            continue
        if language(shell) != "shell":
            notes.append(f"{label} runs its entries with SHELL={shell}, which rein cannot read")
            continue
        command, stdin = _split_percent(entry[1])
        why = f"{label} installs it: it runs later, as cron runs it"
        inners.append(
            Inner(
                label,
                "maybe",
                script=command,
                via=label,
                why=why,
                env_set=tuple(env),
                cwd=cwd,
                cwd_unknown=cwd is None,
                stdin=Stdin("pipe", content=stdin) if stdin is not None else None,
            )
        )
    return Unwrapped(tuple(inners), tuple(notes))


def _split_percent(command: str) -> tuple[str, str | None]:
    """`cmd %line1%line2`: the command, and the text cron feeds it on stdin (None without `%`)."""
    parts: list[str] = []
    current: list[str] = []
    last = 0
    for match in _PERCENT.finditer(command):
        current.append(command[last : match.start()])
        if match[0] == "\\%":
            current.append("%")
        else:
            parts.append("".join(current))
            current = []
        last = match.end()
    current.append(command[last:])
    parts.append("".join(current))
    if len(parts) == 1:
        return parts[0], None
    return parts[0], "\n".join(parts[1:]) + "\n"


def _unquoted(value: str) -> str:
    if len(value) > 1 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


_SYSTEMD_RUN = Options(
    short_value="CEHMpu",
    long=longs("""
        background= capsule= description= expand-environment= gid= host= json= machine= nice= on-active=
        on-boot= on-calendar= on-startup= on-unit-active= on-unit-inactive= path-property= property=
        service-type= setenv= slice= socket-property= timer-property= uid= unit= working-directory=
        collect help ignore-failure no-ask-password no-block on-clock-change on-timezone-change pipe pty
        pty-late quiet remain-after-exit same-dir scope send-sighup shell slice-inherit system user
        verbose version wait
    """),
    permute=False,
)
"""systemd-run (src/run/run.c): getopt_long "+hrC:H:M:E:p:tPqGdSu:", exact long names."""
_LATER = ("--on-active", "--on-boot", "--on-startup", "--on-unit-active", "--on-unit-inactive",
          "--on-calendar", "--on-clock-change", "--on-timezone-change", "--path-property",
          "--socket-property", "--timer-property")  # fmt: skip
_WAITS = ("--wait", "--pty", "-t", "--pipe", "-P", "--scope", "--shell", "-S", "--pty-late")


def systemd_run(call: Call) -> Unwrapped:
    """`systemd-run [options] CMD`: a transient unit runs CMD, now or, with a timer (`--on-calendar`,
    `--on-active`, ...), later; without `--wait`/`--pty`/`--pipe`/`--scope` it returns at once and CMD
    goes on apart. `-H`/`-M` run it on another machine or container. A system unit starts in `/`, a
    `--user` one in the home directory, unless `--working-directory` or `--same-dir` says otherwise."""
    parsed = parse(call.argv, 1, _SYSTEMD_RUN)
    argv = call.argv[parsed.rest :]
    if parsed.has("-S", "--shell") or not argv:
        return NOTHING
    if parsed.has("-H", "--host", "-M", "--machine"):
        return run("systemd-run", "remote", argv)
    home = call.state.env.get("HOME")
    cwd = parsed.last("--working-directory")
    if cwd is None and not parsed.has("-d", "--same-dir"):
        user = parsed.has("--user")
        cwd = (
            Word.literal(home)
            if user and isinstance(home, str) and home
            else None
            if user
            else Word.literal("/")
        )
    later = parsed.has(*_LATER)
    why = "systemd-run starts it later, on its timer" if later else ""
    background = later or not parsed.has(*_WAITS)
    unknown = cwd is None and parsed.has("--user") and not parsed.has("-d", "--same-dir")
    inner = Inner(
        "systemd-run", "maybe", argv=argv, cwd=cwd, cwd_unknown=unknown, background=background, why=why
    )
    return Unwrapped((inner,))
