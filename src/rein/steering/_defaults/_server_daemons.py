"""Commands whose staying in the foreground `no-dev-server` reads from an option's value or from their
operands, not from a flag: `nginx -g 'daemon off;'`, `httpd -DFOREGROUND`, `redis-server --daemonize
no`, `socat TCP-LISTEN:8080 ...`, `less +F`, `vmstat 1` (a delay and no count), `top -b` without
`-n`, `docker run -p 8080:80 image` (a container publishing a port, in the foreground).

`less` copies its input and exits when its output is no terminal, but some agents' hosts run commands
in a terminal, where `+F` follows the file forever.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rein.steering._args import read
from rein.steering._defaults._server_read import Words, argv
from rein.steering._rule import Tri
from rein.steering.bash import UNKNOWN
from rein.steering.bash.commands import Options, long_options

_NGINX = Options(short_value="cegps", permute=False, abbreviate=False)
_HTTPD = Options(short_value="dfCcDeEkR", abbreviate=False)
_HTTPD_EXITS = ("-t", "-S", "-v", "-V", "-M", "-l", "-L", "-h", "-T")
_APACHECTL = frozenset({"start", "stop", "restart", "graceful", "graceful-stop", "configtest", "status",
                        "fullstatus", "startssl"})  # fmt: skip
_LISTEN = re.compile(r"^[A-Za-z0-9]+-(?:LISTEN|L|RECV)(?:[:,]|$)", re.IGNORECASE)
"""A socat address that waits for connections or datagrams (`TCP-LISTEN:8080`, `UDP-RECV:9`)."""
_INTERVALS = {"vmstat": "pS", "iostat": "gjo", "mpstat": "INPo", "pidstat": "CGpT", "sar": "fPInseijm"}
"""Tools that report every DELAY seconds, forever unless given a COUNT, and their options that take a
value (sysstat's and procps' manuals)."""
_TOP = Options(short_value="dnpoOsUuwE")


def _nginx(name: str, args: Words) -> Tri:
    found = read(argv(name, args), 1, _NGINX)
    if found.has("-t", "-T", "-s", "-v", "-V", "-h", "-?"):
        return False
    directives = found.values("-g")
    if any(word.dynamic for word in directives):
        return UNKNOWN
    return any(re.search(r"(?:^|;)\s*daemon\s+off\s*;", word.value) for word in directives)


def _httpd(name: str, args: Words) -> Tri:
    """`httpd -DFOREGROUND`, `apache2 -X`; `apachectl start` and a plain `httpd` detach."""
    found = read(argv(name, args), 1, _HTTPD)
    if found.has(*_HTTPD_EXITS) or (found.operands[:1] and found.operands[0].value in _APACHECTL):
        return False
    if any(word.value not in ("", "start") for word in found.values("-k")):
        return False
    return found.has("-X") or any(word.value in ("FOREGROUND", "NO_DETACH") for word in found.values("-D"))


def _redis(name: str, args: Words) -> Tri:
    """`redis-server [config] [--option value ...]`: it serves unless told `--daemonize yes` (or to
    test and exit)."""
    values = [word.value.lower() for word in args]
    if "--test-memory" in values or "--check-system" in values:
        return False
    for index, value in enumerate(values[:-1]):
        if value == "--daemonize":
            if args[index + 1].dynamic:
                return UNKNOWN
            return values[index + 1] not in ("yes", "true")
    return True


def _socat(name: str, args: Words) -> Tri:
    return any(_LISTEN.match(word.value) for word in args if not word.value.startswith("-"))


def _less(name: str, args: Words) -> Tri:
    return any(re.fullmatch(r"\+\+?F", word.value) for word in args)


def _interval(name: str, args: Words) -> Tri:
    """A delay and no count: `vmstat 1`, `iostat -x 2`, `sar -n DEV 1` (not `sar -f file`)."""
    found = read(argv(name, args), 1, Options(short_value=_INTERVALS[name], long=long_options("dec=")))
    if found.has("-f", "-e") and name in ("sar", "pidstat"):
        return False
    numbers = [word for word in found.operands if word.dynamic or word.value.replace(".", "", 1).isdigit()]
    if any(word.dynamic for word in numbers):
        return UNKNOWN if len(numbers) < 3 else False
    return len(numbers) == 1


def _dstat(name: str, args: Words) -> Tri:
    """`dstat` reports every second until stopped; `dstat 5 10` gives ten reports."""
    numbers = [word for word in args if not word.value.startswith("-")]
    return len(numbers) < 2


def _top(name: str, args: Words) -> Tri:
    """`top -b` reports forever in batch mode unless `-n` bounds it."""
    found = read(argv(name, args), 1, _TOP)
    return found.has("-b") and not found.has("-n")


DAEMONS: dict[str, Callable[[str, Words], Tri]] = {
    "nginx": _nginx, "openresty": _nginx, "httpd": _httpd, "apache2": _httpd, "apachectl": _httpd,
    "apache2ctl": _httpd, "redis-server": _redis, "valkey-server": _redis, "redis-stack-server": _redis,
    "keydb-server": _redis, "socat": _socat, "less": _less, "dstat": _dstat, "dool": _dstat, "top": _top,
    **dict.fromkeys(_INTERVALS, _interval),
}  # fmt: skip
"""Readers by command name."""
