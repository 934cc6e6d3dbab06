"""Option tables of the tools that run a command named in an option or an operand: `split --filter`,
`sort --compress-program`, `firebase emulators:exec`, `gh alias set --shell`.

Sources: coreutils 9.1 split.c and sort.c (getopt_long, checked against `--help` of the installed
coreutils), firebase/firebase-tools (src/commands/emulators-exec.ts, src/emulator/commandUtils.ts,
src/bin/cli.ts: commander, which lets options follow operands and gives an option with an optional
value the next word unless it starts with `-`), cli/cli (pkg/cmd/alias/set/set.go: cobra).
"""

from __future__ import annotations

from rein.steering.bash.commands._options import Options
from rein.steering.bash.commands._table_kit import longs

HOOKS: dict[str, Options] = {
    # coreutils split: getopt_long "0123456789C:a:b:del:n:t:ux"; `--filter=COMMAND` runs with $SHELL.
    "split": Options(
        short_value="Cabnlt",
        long=longs("""
            additional-suffix= bytes= filter= io-blksize= line-bytes= lines= number= separator=
            suffix-length= hex-suffixes? numeric-suffixes? elide-empty-files help unbuffered verbose version
        """),
    ),
    # coreutils sort: getopt_long "-bcCdfghik:mMno:rRsS:t:T:uVy:z"; `--compress-program=PROG` runs PROG.
    "sort": Options(
        short_value="kotSTy",
        long=longs("""
            batch-size= buffer-size= compress-program= field-separator= files0-from= key= output= parallel=
            random-source= sort= temporary-directory= check? debug dictionary-order general-numeric-sort
            help human-numeric-sort ignore-case ignore-leading-blanks ignore-nonprinting merge month-sort
            numeric-sort random-sort reverse stable unique version version-sort zero-terminated
        """),
    ),
    # firebase emulators:exec [options] <script>: the global options and the command's own; the
    # optional values (`--export-on-exit [dir]`, `--inspect-functions [port]`) take the next word.
    "firebase emulators:exec": Options(
        short_value="P",
        long=longs("""
            account= config= export-on-exit= import= inspect-functions= log-verbosity= only= project=
            token= debug help interactive json non-interactive ui
        """),
        abbreviate=False,
    ),
    # gh alias set <name> <expansion> [--shell] [--clobber]: cobra, flags anywhere.
    "gh alias set": Options(long=longs("clobber help shell"), abbreviate=False),
}
