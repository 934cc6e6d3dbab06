"""Option tables of the runners that wrap a command: privilege (`sudo`, `doas`, `pkexec`, `runuser`),
process settings (`env`, `timeout`, `nice`, `chrt`, `stdbuf`, ...), and the ones that hand it to a shell
(`script`, `watch`, `flock`, `ssh`).

Each entry is the real tool's table: every option that takes a value, as its parser reads it. A GNU
getopt_long tool whose short options start with `+` stops at its first operand (`permute=False`) and
takes a unique prefix of a long option (`abbreviate=True`). Sources: the tools' own getopt tables
(coreutils, util-linux, procps-ng, sudo, OpenSSH, OpenDoas, GNU time, polkit), checked against
`--help` of coreutils 9.1, util-linux 2.38 and procps-ng 4.0 where installed.
"""

from __future__ import annotations

from rein.steering.bash.commands._options import Options
from rein.steering.bash.commands._table_kit import RUNNER, longs

WRAPPERS: dict[str, Options] = {
    # sudo 1.9 (src/parse_args.c): getopt_long "+Aa:BbC:c:D:Eeg:Hh::iKklNnPp:R:r:SsT:t:U:u:Vv". A bare
    # `-h` followed by a word takes it as the host (`sudo -h host cmd`), so `h` takes a value here.
    "sudo": Options(
        short_value="CDRTUacghprtu",
        long=longs("""
            auth-type= chdir= chroot= close-from= command-timeout= group= host= login-class= other-user=
            prompt= role= type= user= preserve-env? askpass background bell edit help list login
            non-interactive no-update preserve-groups remove-timestamp reset-timestamp set-home shell
            stdin validate version
        """),
        permute=False,
    ),
    # OpenDoas (doas.c): getopt "+C:nsu:v"; OpenBSD doas adds `-a style` and `-L`. No long options.
    "doas": Options(short_value="Cau", permute=False, abbreviate=False),
    # coreutils env: getopt_long "+a:C:iS:u:v0" (`-a`/`--argv0` since 9.5).
    "env": Options(
        short_value="CSau",
        long=longs("""
            argv0= chdir= env0-from= split-string= unset= block-signal? default-signal? ignore-signal?
            debug help ignore-environment list-signal-handling null version
        """),
        permute=False,
    ),
    # bash builtin: `exec [-cl] [-a name] [command]`.
    "exec": Options(short_value="a", permute=False, abbreviate=False),
    # GNU time 1.9 (src/time.c): getopt_long "+af:o:pqvV"; the keyword `time` is read by the handler.
    "time": Options(
        short_value="fo",
        long=longs("format= output-file= append help portability quiet verbose version"),
        permute=False,
    ),
    # coreutils timeout: getopt_long "+fk:ps:v"; the duration operand comes before the command.
    "timeout": Options(
        short_value="ks",
        long=longs("kill-after= signal= foreground help preserve-status verbose version"),
        permute=False,
    ),
    # coreutils nice: getopt_long "+n:" (the obsolete `-5` is read by the handler).
    "nice": Options(short_value="n", long=longs("adjustment= help version"), permute=False),
    # coreutils nohup: only --help and --version.
    "nohup": Options(long=longs("help version"), permute=False),
    # util-linux ionice: getopt_long "+n:c:p:P:u:tVh".
    "ionice": Options(
        short_value="Pcnpu",
        long=longs("class= classdata= pgid= pid= uid= help ignore version"),
        permute=False,
    ),
    # util-linux chrt: getopt_long "+abdD:efiphmoOP:T:rRU:X:GvV"; the priority operand comes first.
    "chrt": Options(
        short_value="DPTUX",
        long=longs("""
            clamp-max= clamp-min= sched-deadline= sched-period= sched-runtime= all-tasks batch deadline
            deadline-overrun ext fifo help idle max other pid reclaim-grub reset-on-fork rr verbose
            version
        """),
        permute=False,
    ),
    # util-linux taskset: getopt_long "+apchV"; no option takes a value (the mask is an operand).
    "taskset": Options(long=longs("all-tasks cpu-list help pid version"), permute=False),
    # coreutils stdbuf: getopt_long "+i:o:e:".
    "stdbuf": Options(short_value="eio", long=longs("error= input= output= help version"), permute=False),
    # expect's unbuffer script: `unbuffer [-p] program [args]`.
    "unbuffer": RUNNER,
    # util-linux setsid: getopt_long "+Vhcfw".
    "setsid": Options(long=longs("ctty fork help version wait"), permute=False),
    # polkit pkexec: reads `--user`/`-u NAME`, `--keep-cwd`, `--disable-internal-agent`, `--help`,
    # `--version` by exact match and stops at the first other word.
    "pkexec": Options(
        short_value="u",
        long=longs("user= disable-internal-agent help keep-cwd version"),
        permute=False,
        abbreviate=False,
    ),
    # coreutils chroot: getopt_long "+"; NEWROOT is an operand before the command.
    "chroot": Options(long=longs("groups= userspec= help skip-chdir version"), permute=False),
    # util-linux script: getopt_long "aB:c:eE:fI:O:o:qm:T:t::Vh" (options may follow the file).
    "script": Options(
        short_value="BEIOTcmo",
        short_optional="t",
        long=longs("""
            command= echo= log-in= log-io= log-out= log-timing= logging-format= output-limit= timing?
            append flush force help quiet return version
        """),
    ),
    # procps-ng watch 4.0.6: getopt_long "+bCcefd::ghq:n:prs:twvx".
    "watch": Options(
        short_value="nqs",
        short_optional="d",
        long=longs("""
            equexit= interval= shotsdir= differences? beep chgexit color errexit exec follow help
            no-color no-rerun no-title no-wrap precise version
        """),
        permute=False,
    ),
    # util-linux flock: getopt_long "+sexnoFuw:E:hV?"; `flock FILE -c CMD` is read after the lock
    # file by the handler. Before the file, flock rejects `-c`/`--command` and runs nothing; they are
    # read as taking the command all the same, so that command is still checked.
    "flock": Options(
        short_value="Ecw",
        long=longs("""
            command= conflict-exit-code= length= start= timeout= wait= close exclusive fcntl help nb
            no-fork nonblocking shared unlock verbose version
        """),
        permute=False,
    ),
    # OpenSSH 9.x (ssh.c): getopt "1246ab:c:e:fgi:kl:m:no:p:qstvxAB:CD:E:F:GI:J:KL:MNO:P:Q:R:S:TVw:W:XYy"
    # (`-P tag` since 9.4). BSD getopt: no long options; the handler reads options after the host too.
    "ssh": Options(short_value="BDEFIJLOPQRSWbceilmopw", permute=False, abbreviate=False),
    # util-linux su (login-utils/su-common.c): getopt_long "c:fg:G:lmpPs:w:", options anywhere; a
    # lone `-` is `--login`. `-c` takes the rest of its word (`-c'cmd'`) or the next word.
    "su": Options(
        short_value="Gcgsw",
        long=longs("""
            command= group= session-command= shell= supp-group= whitelist-environment= fast help login
            preserve-environment pty version
        """),
    ),
    # util-linux runuser (login-utils/su-common.c): getopt_long "c:fg:G:lmpPTs:u:hVw:". The real
    # parser permutes; the command is taken from the first operand on, which keeps any later option.
    "runuser": Options(
        short_value="Gcgsuw",
        long=longs("""
            command= group= session-command= shell= supp-group= user= whitelist-environment= fast help
            login no-pty preserve-environment pty version
        """),
        permute=False,
    ),
}
