"""Drive the real `rein` in a tmux pane as a person would: send keys, read the screen.

    with rein_in_tmux("--provider", "faux", cwd=project, home=home) as pane:
        pane.type("hello")
        pane.send("Enter")
        pane.wait_for("You said: hello")
        pane.send("C-d")
        assert pane.wait_exit() == 0

Each pane gets its own tmux server (`-L`, a unique socket) and no user config; the pane stays after
the program ends (`remain-on-exit`) so its last screen and exit status can be read. The program runs
with HOME set to the test's home and without the caller's API keys. Waiting is polling the screen
with a deadline, never a fixed sleep.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

WIDTH = 120
HEIGHT = 40
TIMEOUT = 30.0
"""Seconds a wait may take before the test fails (generous: the suite runs on busy machines)."""
POLL = 0.05
COMMAND = (sys.executable, "-m", "rein.cli")
CONFIG = (
    "set -g remain-on-exit on\nset -s escape-time 0\nset -g history-limit 5000\n"
    "set -g scroll-on-clear off\n"  # else a clear at the top-left copies the screen into history
)


class PaneTimeout(AssertionError):
    """What was awaited never showed; the message carries the screen as it was."""


@dataclass
class Pane:
    socket: str
    status_file: Path
    target: str = "rein"

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=True, timeout=10
        )
        return done.stdout

    def send(self, *keys: str) -> None:
        """tmux key names: `Enter`, `Escape`, `C-c`, `Tab`, `Up`, `M-Enter`, ..."""
        self.tmux("send-keys", "-t", self.target, *keys)

    def type(self, text: str) -> None:
        """Literal text, as typed."""
        self.tmux("send-keys", "-t", self.target, "-l", text)

    def paste(self, text: str) -> None:
        """Text pasted with bracketed paste (when the program asked for it), as a terminal does."""
        self.tmux("set-buffer", "-b", "test", text)
        self.tmux("paste-buffer", "-p", "-d", "-b", "test", "-t", self.target)

    def screen(self) -> str:
        """The visible screen (wrapped lines joined), trailing blank lines dropped."""
        return _tidy(self.tmux("capture-pane", "-p", "-J", "-t", self.target))

    def history(self) -> str:
        """The scrollback and the screen."""
        return _tidy(self.tmux("capture-pane", "-p", "-J", "-S", "-", "-E", "-", "-t", self.target))

    def wait_for(self, wanted: str | Callable[[str], bool], timeout: float = TIMEOUT) -> str:
        """The screen once `wanted` (text, or a test of the screen) shows on it."""
        test = wanted if callable(wanted) else (lambda screen: wanted in screen)
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if test(screen):
                return screen
            if time.monotonic() > deadline:
                raise PaneTimeout(f"waited {timeout}s for {wanted!r}; the screen:\n{screen}")
            time.sleep(POLL)

    def wait_history(self, wanted: str, timeout: float = TIMEOUT) -> str:
        deadline = time.monotonic() + timeout
        while wanted not in (text := self.history()):
            if time.monotonic() > deadline:
                raise PaneTimeout(f"waited {timeout}s for {wanted!r}; the pane:\n{text}")
            time.sleep(POLL)
        return text

    def exit_status(self) -> int | None:
        """The program's exit status once it ended, else None. (The shell that ran it writes it to
        a file: tmux, under load, sometimes never notices that the pane's process ended.)"""
        try:
            text = self.status_file.read_text()
        except FileNotFoundError:
            return None
        return int(text) if text.endswith("\n") else None

    def wait_exit(self, timeout: float = TIMEOUT) -> int:
        deadline = time.monotonic() + timeout
        while (status := self.exit_status()) is None:
            if time.monotonic() > deadline:
                raise PaneTimeout(f"still running after {timeout}s; the screen:\n{self.screen()}")
            time.sleep(POLL)
        return status


def _socket_path(socket: str) -> Path:
    return Path(os.environ.get("TMUX_TMPDIR", "/tmp")) / f"tmux-{os.getuid()}" / socket


def _tidy(captured: str) -> str:
    return "\n".join(line.rstrip() for line in captured.splitlines()).rstrip("\n")


def rein_env(home: Path, extra: Mapping[str, str] = {}) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("TMUX")}
    env.update(HOME=str(home), **extra)
    env.pop("NO_COLOR", None)
    return env


@contextlib.contextmanager
def rein_in_tmux(
    *args: str, cwd: Path, home: Path, env: Mapping[str, str] = {}, config_dir: Path | None = None
) -> Iterator[Pane]:
    """`python -m rein.cli ARGS` in a fresh tmux server's 120x40 pane; the server is killed after."""
    socket = f"rein-test-{os.getpid()}-{uuid.uuid4().hex[:10]}"
    pane = Pane(socket=socket, status_file=(config_dir or home) / f".tmux-{socket}.status")
    config = (config_dir or home) / f".tmux-{socket}.conf"
    config.write_text(CONFIG)
    command = f"{shlex.join([*COMMAND, *args])}; echo $? > {shlex.quote(str(pane.status_file))}"
    subprocess.run(
        [
            "tmux",
            "-L",
            pane.socket,
            "-f",
            str(config),
            "new-session",
            "-d",
            "-s",
            pane.target,
            "-x",
            str(WIDTH),
            "-y",
            str(HEIGHT),
            "-c",
            str(cwd),
            command,
        ],
        env=rein_env(home, env),
        check=True,
        timeout=10,
    )
    try:
        yield pane
    finally:
        subprocess.run(
            ["tmux", "-L", pane.socket, "kill-server"], capture_output=True, timeout=10, check=False
        )
        config.unlink(missing_ok=True)
        pane.status_file.unlink(missing_ok=True)
        _socket_path(pane.socket).unlink(missing_ok=True)  # tmux leaves it behind
