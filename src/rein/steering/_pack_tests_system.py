"""The `disk`, `permissions` and `system` packs' structural tests: what their fields cannot say as data.

`disk-device`: some operand of a formatter, partitioner or eraser (`mkfs.ext4 /dev/sdb1`, `sgdisk -Z
/dev/nvme0n1`), or the output of a copier (dd's `of=`, ddrescue's second operand), names a disk
device: a whole disk, a partition, or a volume on one (LVM, RAID, a mapped or network volume). The
same tool on an image file (`mkfs.ext4 disk.img`, `sgdisk -n 1:0:0 disk.img`) changes only that file,
and a loop device (`/dev/loop0`) only the file behind it. An operand rein cannot read may be a device
(`mkfs.ext4 "$DEV"`): UNKNOWN, unless its last component is written out and names no device
(`"$OUT/disk.img"`).

`recursive-system-path`: a recursive chmod, chown, chgrp, setfacl, chattr or chcon whose target
`system-path` would flag, read with each tool's options (`setfacl -Rm SPEC /`, `chmod -R -w /`); a
word rein cannot read may be `-R`, but not `-R` and the target at once (`chmod +x "$SCRIPT"`).

`kills-everything`: `killall` without a name (on Linux with `-u USER`: every process of that user; on
Solaris, HP-UX and AIX: every process), `pkill` without a pattern that picks by user or group (`pkill
-u dev`, `pkill -9 -U 1000`), and a pattern that matches every process (`pkill -f .`, `killall -r
'.*'`). `kill -9 -1` is data in the pack (`pattern`).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from typing import cast

from rein.steering._args import may_be_flag, may_split
from rein.steering._defaults._rm import root_risk
from rein.steering._rule import Tri
from rein.steering._types import Context
from rein.steering.bash import UNKNOWN, Bounded, CommandRef, Expansion, Unknown, Word
from rein.steering.bash._words import resolve
from rein.steering.bash.commands import Options, parse
from rein.steering.bash.commands._table_kit import longs

DEVICE = re.compile(
    r"^/dev/("
    r"(sd|hd|vd|xvd)[a-z]+[0-9]*|nvme[0-9]+(n[0-9]+(p[0-9]+)?)?|mmcblk[0-9]+(p[0-9]+|boot[0-9]+)?|"
    r"r?disk[0-9]+(s[0-9]+)*|(disk|block|md|zvol|stratis)/.+|mapper/(?!control$).+|dm-[0-9]+|md[0-9]+(p[0-9]+)?|"
    r"(nbd|rbd|pmem)[0-9]+(p[0-9]+)?|zd[0-9]+|bcache[0-9]+|mtd(block)?[0-9]+|"
    r"(ada|da|ad|nvd|vtbd)[0-9]+([sp][0-9]+[a-h]?)?|r?(sd|wd)[0-9]+[a-p]?|root"
    r")$"
)
"""A disk device by absolute path: Linux whole disks and partitions (`sda1`, `nvme0n1p2`, `mmcblk0p1`,
`vda`, `xvdf`), udev's names for them (`/dev/disk/by-id/...`), volumes built on them (LVM and
dm-crypt in `/dev/mapper`, `dm-0`, RAID `md0`, NBD, Ceph RBD, ZFS volumes, Stratis, bcache, persistent
memory, MTD flash), macOS (`disk2s1`, `rdisk2`) and the BSDs (`ada0p2`, `da0s1a`, `sd0c`, `wd0a`). The pack
file's `writes` regex is the same (a test holds them equal). Not: `/dev/loop*`, `/dev/zram*`,
`/dev/ram*`, `/dev/null`, `/dev/zero`, terminals, `/dev/shm`."""

_VALUED: dict[str, str] = {
    "mkfs": "tbCdEeGgiIJLlmMNoOrTUz",
    "mke2fs": "bCdEeGgiIJLlmMNoOrtTUz",
    "mkfs.xfs": "bcdilmnprsL",
    "mkfs.btrfs": "AbcdLmnOrRsU",
    "mkfs.vfat": "bDfFghilmMnrRsS",
    "mkfs.ntfs": "cHLpsSz",
    "mkswap": "eLoOpsU",
    "wipefs": "boOt",
    "blkdiscard": "lop",
    "shred": "ns",
    "fdisk": "bCHoStuwW",
    "sfdisk": "NoOuwWXY",
    "sgdisk": "aAcdeEfFhiklmnrRtTuU",
    "parted": "af",
}
"""For each tool, its short options that take the next word as their value (`mkfs -t ext4`,
`mkswap -L swap`); a word after one of them is that value, not an operand."""
_SAME = {
    **dict.fromkeys(("mkfs.ext2", "mkfs.ext3", "mkfs.ext4", "mke4fs"), "mke2fs"),
    **dict.fromkeys(("mkfs.fat", "mkfs.msdos", "mkdosfs"), "mkfs.vfat"),
    "mkntfs": "mkfs.ntfs",
    "gdisk": "fdisk",
}
"""Tools that read their options as another does."""
_LONG_VALUED = frozenset(
    {
        "--type", "--label", "--uuid", "--offset", "--length", "--step", "--iterations", "--size",
        "--output", "--types", "--backup-file", "--pagesize", "--endianness", "--sector-size",
        "--color", "--wipe", "--wipe-partitions", "--label-nested", "--align", "--compress",
        "--lock", "--random-source", "--remove", "--codepage", "--volume-id",
    }
)  # fmt: skip
"""Long options, across these tools, that take the next word as their value (`--label swap`)."""


def disk_device(ref: CommandRef, context: Context) -> Tri:
    """Whether a device the command formats, partitions, erases or copies onto is a disk device (see
    the module's docstring)."""
    pick = _TARGETS.get(ref.name)
    valued = _VALUED.get(_SAME.get(ref.name, ref.name), "")
    targets = pick(ref) if pick is not None else _operands(ref, valued)
    risks = [_device(word, ref) for word in targets]
    if True in risks:
        return True
    return UNKNOWN if any(isinstance(risk, Unknown) for risk in risks) else False


def _operands(ref: CommandRef, valued: str) -> list[Word]:
    """The operands: words that are neither options nor the values `valued` options (and the long
    ones in `_LONG_VALUED`) take."""
    found: list[Word] = []
    skip = dashdash = False
    for word in ref.args:
        value = word.value
        head = word.parts[0] if word.parts else value
        option = not dashdash and isinstance(head, str) and head.startswith("-") and value != "-"
        if skip:
            skip = False
        elif not option:
            found.append(word)
        elif value == "--":
            dashdash = True
        elif value.startswith("--"):
            skip = value in _LONG_VALUED
        else:
            skip = len(value) == 2 and value[1] in valued
    return found


def _after(word: Word, sign: str) -> Word | None:
    """What follows the first `sign` in the word's literal head (`of=$DEV` gives `$DEV`); None without one."""
    parts = word.parts or (word.value,)
    head = parts[0]
    if not isinstance(head, str) or sign not in head:
        return None
    rest = head.partition(sign)[2]
    tail = ((rest,) if rest else ()) + tuple(parts[1:])
    if all(isinstance(part, str) for part in tail):
        return Word.literal("".join(cast(tuple[str, ...], tail)))
    return Word(value=word.value.partition(sign)[2], raw=word.raw, parts=tail)


def _dd(ref: CommandRef) -> list[Word]:
    """dd's (and dcfldd's, dc3dd's) output files: `of=` (dc3dd's `hof=`, `ofs=` too)."""
    found: list[Word] = []
    for word in ref.args:
        key = word.value.partition("=")[0]
        given = _after(word, "=") if key in ("of", "hof", "ofs", "hofs") else None
        found.extend([given] if given is not None else [])
    return found


def _ddrescue(ref: CommandRef) -> list[Word]:
    """`ddrescue [options] INFILE OUTFILE [MAPFILE]`: OUTFILE."""
    words = _operands(ref, "abceimorsxKT")
    return words[1:2]


def _bmaptool(ref: CommandRef) -> list[Word]:
    """`bmaptool copy [options] IMAGE DEST`: DEST."""
    words = _operands(ref, "")
    return words[-1:] if len(words) >= 3 and words[0].value == "copy" else []


_TARGETS: dict[str, Callable[[CommandRef], list[Word]]] = {
    "dd": _dd,
    "dcfldd": _dd,
    "dc3dd": _dd,
    "ddrescue": _ddrescue,
    "bmaptool": _bmaptool,
}
"""Tools that read other operands and write one: the words that name what they write."""


def _device(word: Word, ref: CommandRef) -> Tri:
    text = resolve(word, ref.state.expansion)
    if isinstance(text, Unknown):
        return _unread(word, text)
    if not text.startswith("/"):
        cwd = ref.state.cwd
        if isinstance(cwd, Unknown):  # relative to a cwd rein does not know: in /dev only by `cd /dev`
            return UNKNOWN if DEVICE.match(f"/dev/{text}") else False
        text = posixpath.join(cwd, text)
    return DEVICE.match(posixpath.normpath(text).replace("//", "/")) is not None


def _unread(word: Word, value: Unknown) -> Tri:
    """A word rein cannot read names a device unless what rein knows of it rules that out: a fresh
    temp path, or a last component written out that no device has (`"$OUT/disk.img"`)."""
    if isinstance(value, Bounded) and value.kind in ("temp", "ref"):
        return False
    if isinstance(value, Bounded) and value.kind == "below" and value.path.startswith("/"):
        below = value.path.rstrip("/") + "/"
        return UNKNOWN if "/dev/".startswith(below) or below.startswith("/dev/") else False
    tail: list[str] = []
    for part in reversed(word.parts):
        if isinstance(part, Expansion):
            return UNKNOWN
        head, slash, after = part.rpartition("/")
        tail.append(after)
        if slash:
            name = "".join(reversed(tail))
            return UNKNOWN if not name or DEVICE.match(f"/dev/{name}") or head.endswith("/dev") else False
    return UNKNOWN


_KILL_VALUED = {
    "pkill": frozenset("gGPstuUFOqr") | {"--signal", "--pgroup", "--group", "--parent", "--session",
                                         "--terminal", "--euid", "--uid", "--pidfile", "--ns", "--nslist",
                                         "--cgroup", "--older", "--queue", "--runstates"},
    "killall": frozenset("sunoyZ") | {"--signal", "--user", "--ns", "--older-than", "--younger-than",
                                      "--context"},
}  # fmt: skip
"""pkill's and killall's (psmisc's and BSD's) options that take the next word: letters for short ones."""
_BY_OWNER = frozenset({"-u", "-U", "-G", "--euid", "--uid", "--group", "--user"})
"""pkill's options that pick every process of a user or a group."""
_LISTING = frozenset({"-l", "--list", "-L", "--list-signals", "-V", "--version", "-h", "--help"})
_EVERY = re.compile(r"^\^?(\.[*+]?)?\$?$")
"""A pattern (an extended regex searched in each process name) that every name matches: `.`, `.*`,
`^`, `$`, an empty one."""


def kills_everything(ref: CommandRef, context: Context) -> Tri:
    """Whether `killall` or `pkill` signals every process (of a user), not the ones a name picks. A
    name rein cannot read is taken as a name: `pkill -f "$APP"` stops that app."""
    valued = _KILL_VALUED.get(ref.name)
    if valued is None:
        return False
    names: list[Word] = []
    options: set[str] = set()
    skip = dashdash = False
    for word in ref.args:
        value = word.value
        if skip:
            skip = False
        elif dashdash or word.dynamic or not value.startswith("-") or value == "-":
            names.append(word)
        elif value == "--":
            dashdash = True
        else:
            option = value.partition("=")[0]
            options.add(option)
            letter = len(option) == 2 and option[1] in valued
            skip = "=" not in value and (letter or option in valued)
    if _LISTING & options:
        return False
    if ref.name == "pkill" and ({"-v", "--inverse"} & options):
        return True  # every process but the ones the pattern picks
    regex = ref.name == "pkill" or bool({"-r", "--regexp"} & options)
    if names:
        return regex and any(not word.dynamic and _EVERY.match(word.value) for word in names)
    return ref.name == "killall" or bool(_BY_OWNER & options)


_PERMISSION_TOOLS: dict[str, Options] = {
    "chmod": Options(
        long=longs("""
            changes silent quiet verbose no-preserve-root preserve-root reference= recursive help version
        """)
    ),
    "chown": Options(
        long=longs("""
            changes silent quiet verbose dereference no-dereference from= no-preserve-root preserve-root
            reference= recursive help version
        """)
    ),
    "setfacl": Options(
        short_value="mMxX",
        long=longs("""
            modify= modify-file= remove= remove-file= set= set-file= remove-all remove-default mask no-mask
            default restore= test recursive logical physical version help
        """),
    ),
    "chattr": Options(short_value="vp", abbreviate=False),
    "chcon": Options(
        short_value="urtl",
        long=longs("""
            dereference no-dereference preserve-root no-preserve-root reference= user= role= type= range=
            recursive verbose help version
        """),
    ),
}
_PERMISSION_TOOLS["chgrp"] = _PERMISSION_TOOLS["chown"]
_MODE = re.compile(r"^-[rwxXst]+$")
"""A chmod mode written with a leading minus (`chmod -R -w /`): a mode, not an option."""


def recursive_system_path(ref: CommandRef, context: Context) -> Tri:
    """Whether chmod, chown, chgrp, setfacl, chattr or chcon changes every file below `/`, a directory
    right under it or the home directory (read as `system-path` reads a target). A word rein cannot
    read may be `-R` (UNKNOWN then, when another operand is such a directory), but not at the same time
    the directory: `chmod +x "$SCRIPT"` changes one file."""
    options = _PERMISSION_TOOLS.get(ref.name)
    if options is None:
        return False
    argv = ref.argv
    modes: list[Word] = []
    if ref.name == "chmod":
        modes = [word for word in argv[1:] if not word.dynamic and _MODE.match(word.value)]
        argv = tuple(word for word in argv if word not in modes)
    parsed = parse(argv, 1, options)
    operands = [*modes, *parsed.operands]
    if parsed.has("--restore"):
        return False
    if ref.name == "chattr":  # `+i`, `=i` are modes (`-i` reads as an option)
        operands = [word for word in operands if word.dynamic or not word.value.startswith(("+", "="))]
    unknown = [word for word in operands if may_be_flag(word)]
    if ref.name in ("chmod", "chown", "chgrp", "chcon") and operands and not parsed.has("--reference"):
        typed = parsed.has("-u", "-r", "-t", "-l", "--user", "--role", "--type", "--range")
        if ref.name != "chcon" or not typed:  # the first operand is the mode, owner, group or context
            first, operands = operands[0], operands[1:]
            if unknown == [first] and not may_split(first):
                unknown = []  # were it `-R`, the next word would be the mode and there would be no target
    if parsed.has("-R", "--recursive"):
        return _any([root_risk(word, ref, context) for word in operands])
    if not unknown:
        return False
    targets = [word for word in operands if word not in unknown or len(unknown) > 1 or may_split(word)]
    return UNKNOWN if _any([root_risk(word, ref, context) for word in targets]) is not False else False


def _any(risks: list[Tri]) -> Tri:
    if True in risks:
        return True
    return UNKNOWN if any(isinstance(risk, Unknown) for risk in risks) else False
