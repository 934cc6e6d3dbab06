"""Option tables of the terminal multiplexers and interactive programs that run a command: `tmux` (its
global options and each command's), `psql`, `sqlite3`, `gdb` and `vim`.

Sources: tmux 3.3a (`tmux list-commands`, and cmd-*.c's getopt strings for 3.4 and 3.5, which add
`send-keys -c`, `confirm-before -c`, `run-shell -c` and `source-file -t`); tmux.c "2c:CDdf:hlL:NqS:T:uUvV";
postgres src/bin/psql/startup.c (getopt_long "aAbc:d:eEf:F:h:HlL:no:p:P:qR:sStT:U:vVwWxXz?01");
sqlite shell.c.in (options read by exact name, with one or two dashes); gdb/main.c
(captured_main_1's long_options: getopt_long_only, so `-ex` and `--ex` are one option); vim
src/main.c (command_line_scan: its own parser).
"""

from __future__ import annotations

from rein.steering.bash.commands._options import Options
from rein.steering.bash.commands._table_kit import longs

TMUX_COMMANDS: dict[str, tuple[str, str]] = {
    # command: (alias, the letters of its options that take a value)
    "attach-session": ("attach", "cft"), "bind-key": ("bind", "NT"), "break-pane": ("breakp", "Fnst"),
    "capture-pane": ("capturep", "bESt"), "choose-buffer": ("", "FfKOt"), "choose-client": ("", "FfKOt"),
    "choose-tree": ("", "FfKOt"), "clear-history": ("clearhist", "t"),
    "clear-prompt-history": ("clearphist", "T"), "clock-mode": ("", "t"), "command-prompt": ("", "IptT"),
    "confirm-before": ("confirm", "cpt"), "copy-mode": ("", "st"), "customize-mode": ("", "Fft"),
    "delete-buffer": ("deleteb", "b"), "detach-client": ("detach", "Est"),
    "display-menu": ("menu", "bcCHsStTxy"), "display-message": ("display", "cdFt"),
    "display-popup": ("popup", "bcdehsStTwxy"), "display-panes": ("displayp", "dt"),
    "find-window": ("findw", "t"), "has-session": ("has", "t"), "if-shell": ("if", "t"),
    "join-pane": ("joinp", "lst"), "kill-pane": ("killp", "t"), "kill-server": ("", ""),
    "kill-session": ("", "t"), "kill-window": ("killw", "t"), "last-pane": ("lastp", "t"),
    "last-window": ("last", "t"), "link-window": ("linkw", "st"), "list-buffers": ("lsb", "Ff"),
    "list-clients": ("lsc", "Fft"), "list-commands": ("lscm", "F"), "list-keys": ("lsk", "PT"),
    "list-panes": ("lsp", "Fft"), "list-sessions": ("ls", "Ff"), "list-windows": ("lsw", "Fft"),
    "load-buffer": ("loadb", "bt"), "lock-client": ("lockc", "t"), "lock-server": ("lock", ""),
    "lock-session": ("locks", "t"), "move-pane": ("movep", "lst"), "move-window": ("movew", "st"),
    "new-session": ("new", "cefFnstxy"), "new-window": ("neww", "ceFnt"), "next-layout": ("nextl", "t"),
    "next-window": ("next", "t"), "paste-buffer": ("pasteb", "bst"), "pipe-pane": ("pipep", "t"),
    "previous-layout": ("prevl", "t"), "previous-window": ("prev", "t"),
    "refresh-client": ("refresh", "ABCftl"), "rename-session": ("rename", "t"),
    "rename-window": ("renamew", "t"), "resize-pane": ("resizep", "txy"), "resize-window": ("resizew", "txy"),
    "respawn-pane": ("respawnp", "cet"), "respawn-window": ("respawnw", "cet"),
    "rotate-window": ("rotatew", "t"), "run-shell": ("run", "cdt"), "save-buffer": ("saveb", "b"),
    "select-layout": ("selectl", "t"), "select-pane": ("selectp", "Tt"), "select-window": ("selectw", "t"),
    "send-keys": ("send", "cNt"), "send-prefix": ("", "t"), "server-access": ("", "t"),
    "set-buffer": ("setb", "bnt"), "set-environment": ("setenv", "t"), "set-hook": ("", "t"),
    "set-option": ("set", "t"), "set-window-option": ("setw", "t"), "show-buffer": ("showb", "b"),
    "show-environment": ("showenv", "t"), "show-hooks": ("", "t"), "show-messages": ("showmsgs", "t"),
    "show-options": ("show", "t"), "show-prompt-history": ("showphist", "T"),
    "show-window-options": ("showw", "t"), "source-file": ("source", "t"),
    "split-window": ("splitw", "ceFlpt"), "start-server": ("start", ""), "suspend-client": ("suspendc", "t"),
    "swap-pane": ("swapp", "st"), "swap-window": ("swapw", "st"), "switch-client": ("switchc", "ctT"),
    "unbind-key": ("unbind", "T"), "unlink-window": ("unlinkw", "t"), "wait-for": ("wait", ""),
}  # fmt: skip
"""Every tmux command, its alias, and which of its options take a value (tmux's own args_parse: flags
cluster, a value is attached or the next word, and the first operand ends the options)."""

CONSOLES: dict[str, Options] = {
    "tmux": Options(short_value="cfLST", permute=False, abbreviate=False),
    **{
        f"tmux {name}": Options(short_value=letters, permute=False, abbreviate=False)
        for name, (_, letters) in TMUX_COMMANDS.items()
    },
    # psql: getopt_long, options anywhere; `-c`/`--command` and `-f`/`--file` may repeat.
    "psql": Options(
        short_value="cdfFhLopPRTUv",
        long=longs("""
            command= dbname= field-separator= file= host= log-file= output= port= pset= record-separator=
            set= table-attr= username= variable= csv echo-all echo-errors echo-hidden echo-queries help?
            html list no-align no-password no-psqlrc no-readline password quiet single-line single-step
            single-transaction tuples-only version expanded field-separator-zero record-separator-zero
        """),
    ),
}
