"""The disk, permissions and system packs' tests: which operand is a disk device, which chmod/chown is
recursive on a system path, which pkill/killall signals every process."""

from __future__ import annotations

import tomllib
from importlib.resources import files

import pytest

from rein.steering._pack_tests_system import DEVICE, disk_device, kills_everything, recursive_system_path
from rein.steering.bash import UNKNOWN, CommandRef
from tests.steering.bash.helpers import run
from tests.steering.conftest import make_context


def _last(line: str) -> CommandRef:
    """The last command the line runs (the one after `xargs`, `$(...)` or an assignment)."""
    return run(line).refs[-1]


def test_the_disk_packs_writes_regex_is_the_device_regex() -> None:
    text = (files("rein.steering") / "packs" / "disk.toml").read_text(encoding="utf-8")
    rules = {rule["name"]: rule for rule in tomllib.loads(text)["rule"]}
    assert rules["disk-write-device"]["writes"] == [DEVICE.pattern]


@pytest.mark.parametrize(
    "path",
    [
        "/dev/sda", "/dev/sdb1", "/dev/sdaa3", "/dev/hda", "/dev/vda", "/dev/xvdf1", "/dev/nvme0n1",
        "/dev/nvme1n1p2", "/dev/nvme0", "/dev/mmcblk0", "/dev/mmcblk0p1", "/dev/mmcblk0boot0", "/dev/disk2",
        "/dev/rdisk2", "/dev/disk4s1", "/dev/disk/by-id/usb-X-0:0", "/dev/disk/by-uuid/1234",
        "/dev/mapper/vg0-root", "/dev/dm-0", "/dev/md0", "/dev/md/data", "/dev/nbd0p1", "/dev/rbd0",
        "/dev/zd16", "/dev/zvol/tank/vm", "/dev/bcache0", "/dev/pmem0", "/dev/mtdblock0", "/dev/ada0p2",
        "/dev/da0s1a", "/dev/sd0c", "/dev/block/mmcblk0", "/dev/root",
    ],
)  # fmt: skip
def test_device_names_a_disk(path: str) -> None:
    assert DEVICE.match(path)


@pytest.mark.parametrize(
    "path",
    [
        "/dev/null", "/dev/zero", "/dev/urandom", "/dev/stdout", "/dev/tty", "/dev/pts/3", "/dev/fd/3",
        "/dev/shm/x", "/dev/loop0", "/dev/zram0", "/dev/ram0", "/dev/mapper/control", "/dev/sda/x",
        "/dev/sr0", "/tmp/sda", "/home/dev/disk2",
    ],
)  # fmt: skip
def test_device_leaves_other_files(path: str) -> None:
    assert not DEVICE.match(path)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("mkfs.ext4 /dev/sdb1", True),
        ("mkfs -t ext4 /dev/sdb1", True),
        ("mke2fs -L data -t ext4 /dev/sdc1 100000", True),
        ("mkswap -L swap /dev/nvme0n1p3", True),
        ("cd /dev && mkfs.ext4 sdb1", True),
        ("D=/dev/sdb; mkfs.ext4 $D", True),
        ("dd if=x.img of=/dev/sdb", True),
        ("dd if=/dev/sda of=/dev/sdb", True),
        ("dc3dd if=x hof=/dev/sdb", True),
        ("ddrescue -f -r 3 x.img /dev/sdb map", True),
        ("bmaptool copy x.img /dev/sdb", True),
        ("mkfs.ext4 disk.img", False),
        ("mkfs.ext4 -L /dev/sdb disk.img", False),
        ('mkfs.ext4 --label="$NAME" disk.img', False),
        ('mkfs.ext4 -L "$NAME" disk.img', False),
        ('mkfs.ext4 "$OUT/rootfs.img"', False),
        ("T=$(mktemp); mkfs.ext4 $T", False),
        ("mkswap /swapfile", False),
        ("mkfs.ext4 /dev/loop0", False),
        ("dd if=/dev/sda of=disk.img", False),
        ("dd if=$SRC of=disk.img", False),
        ("ddrescue /dev/sda disk.img map", False),
        ("bmaptool copy x.img out.img", False),
        ("bmaptool create x.img", False),
        ('mkfs.ext4 "$DEV"', UNKNOWN),
        ("mkfs.ext4 /dev/$DISK", UNKNOWN),
        ("mkfs.ext4 /dev/sd*", UNKNOWN),
        ("dd if=x of=$DEV", UNKNOWN),
    ],
)
def test_disk_device(line: str, expected: object) -> None:
    assert disk_device(_last(line), make_context()) is expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("pkill -u dev", True),
        ("pkill -9 -u dev", True),
        ("pkill --euid=dev", True),
        ("pkill -KILL -U 1000", True),
        ("pkill -f .", True),
        ("pkill '.*'", True),
        ("pkill -9 -f '^'", True),
        ("pkill -v sshd", True),
        ("killall", True),
        ("killall -u dev", True),
        ("killall -s KILL --user dev", True),
        ("killall -r '.*'", True),
        ("pkill node", False),
        ("pkill -u dev node", False),
        ("pkill -f 'python server.py'", False),
        ("pkill -P 1234", False),
        ("pkill -t pts/1", False),
        ('pkill -f "$APP"', False),
        ("pkill", False),
        ("killall node", False),
        ("killall -9 node", False),
        ("killall -u dev node", False),
        ("killall .", False),
        ("killall -l", False),
        ("killall --help", False),
        ("kill -9 -1", False),
    ],
)
def test_kills_everything(line: str, expected: object) -> None:
    assert kills_everything(_last(line), make_context()) is expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("chmod -R 777 /", True),
        ("chmod 755 /usr -R", True),
        ("chmod -Rv 755 /bin", True),
        ("chmod --recur 755 /etc", True),
        ("chmod -R -w /", True),
        ("chown -R nobody /usr", True),
        ("chown -R --reference=/etc/passwd /var", True),
        ("chgrp -hR staff ~", True),
        ("setfacl -Rm u:x:rwx /", True),
        ("setfacl -R -m u:x:rwx /var", True),
        ("chattr -R +i /etc", True),
        ("chcon -R system_u:object_r:x:s0 /", True),
        ("chcon -R -t x /usr", True),
        ('chmod -R 755 "$DIR"', UNKNOWN),
        ("chmod +x $SCRIPT", UNKNOWN),
        ("chmod $ARGS /", UNKNOWN),
        ("chmod -R 755 ./build", False),
        ("chmod -R u+w ~/.npm", False),
        ('chown -R "$USER" ~/.npm', False),
        ('chmod +x "$SCRIPT"', False),
        ('chmod "$MODE" -R ~/.npm', False),
        ("chmod 777 /", False),
        ("chmod 700 ~", False),
        ("chcon -R -t x ~/.npm", False),
        ("chattr +i /etc/resolv.conf", False),
        ("setfacl --restore=acl.txt", False),
        ("chown --reference=/etc/hosts ./hosts", False),
        ("chmod --help", False),
    ],
)
def test_recursive_system_path(line: str, expected: object) -> None:
    assert recursive_system_path(_last(line), make_context()) is expected
