"""File writers beyond `tee` and redirects: `cp`/`mv`/`install` (also from `/dev/stdin`, into a
directory, a directory's files), `sponge`, `dd of=`, `truncate`, `ed`/`ex`, `sed`'s `w` command and
the decompressors that write a file beside their input (`gunzip x.sh.gz`).

Each says what a file holds afterwards as far as rein can tell, so a script the line wrote this way
and then runs is read (`... | sponge x.sh; bash x.sh`), and one whose content is not known is unknown.
"""

from __future__ import annotations

import re

from rein.steering.bash._effects import join_path
from rein.steering.bash.commands._inner import Call, Value
from rein.steering.bash.commands._options import Options, parse
from rein.steering.bash.commands._sources import STDIN_PATHS
from rein.steering.bash.commands._table_kit import longs
from rein.steering.bash.model import UNKNOWN, Word

Write = tuple[Word, Value, bool]
"""A path as written, the content (UNKNOWN when not known) and whether it is appended."""
Writes = tuple[tuple[Write, ...], bool]

_COPY = Options(
    short_value="STgmot",
    long=longs("""
        backup? context? group= mode= no-preserve= owner= preserve? reflink? sparse= strip-program= suffix=
        target-directory= update? archive attributes-only compare copy-contents debug dereference directory
        force help interactive link no-clobber no-dereference no-target-directory one-file-system parents
        preserve-context preserve-timestamps recursive remove-destination strip strip-trailing-slashes
        symbolic-link verbose version
    """),
)
"""GNU cp, mv and install together (install: `-m`/`-o`/`-g`/`-S`/`-t`; `-D` and `-d` are flags)."""


def stdin_content(call: Call) -> Value:
    return call.stdin.content if call.stdin is not None else UNKNOWN


def copy(call: Call) -> Writes:
    """`cp SRC DEST`, `cp SRC... DIR`, `cp -t DIR SRC...`, `install -m 755 /dev/stdin x`: each target
    holds its source (stdin for `/dev/stdin`); DEST may be a directory, so `DEST/SRC-name` too. A
    directory copied (`cp -r d e`) takes the files the line wrote in it along."""
    parsed = parse(call.argv, 1, _COPY)
    if call.name == "install" and parsed.has("-d", "--directory"):
        return (), False
    operands = list(parsed.operands)
    directory = parsed.last("-t", "--target-directory")
    if directory is None and len(operands) < 2:
        return (), False
    target = directory if directory is not None else operands.pop()
    into = directory is not None or len(operands) > 1
    found: list[Write] = []
    for source in operands:
        content = _source(call, source)
        base = source.value.rstrip("/").rpartition("/")[2]
        inside = Word.literal(f"{target.value.rstrip('/')}/{base}") if not target.dynamic else target
        found.extend(
            [(inside, content, False)] if into else [(target, content, False), (inside, content, False)]
        )
        found.extend(_tree(call, source, None if into else target, inside))
    return tuple(found), False


def _source(call: Call, source: Word) -> Value:
    """What a copy's source holds: a file the line wrote, stdin, or what `<(cmd)` prints."""
    if len(source.parts) == 1 and not isinstance(part := source.parts[0], str) and part.kind == "process":
        return part.value if isinstance(part.value, str) else UNKNOWN
    if source.dynamic:
        return UNKNOWN
    if source.value in STDIN_PATHS and source.value != "-":
        return stdin_content(call)
    path = join_path(call.state.cwd, source.value)
    return call.files.get(path, UNKNOWN) if isinstance(path, str) else UNKNOWN


def _tree(call: Call, source: Word, target: Word | None, inside: Word) -> list[Write]:
    """The files the line wrote below a directory being copied, at their new places: below
    `DEST/SRC-name`, and below DEST itself when DEST may not exist yet (`target`)."""
    path = join_path(call.state.cwd, source.value) if not source.dynamic else UNKNOWN
    if not isinstance(path, str) or not call.files:
        return []
    prefix = path.rstrip("/") + "/"
    found: list[Write] = []
    for written, content in call.files.items():
        if written.startswith(prefix):
            rest = written[len(prefix) :]
            found.append((Word.literal(f"{inside.value}/{rest}"), content, False))
            if target is not None and not target.dynamic:
                found.append((Word.literal(f"{target.value.rstrip('/')}/{rest}"), content, False))
    return found


def fifo(call: Call) -> Writes:
    """`mkfifo p`, `mknod p p`: a named pipe holds whatever any process writes into it later, so a
    shell reading it (`sh < p & ... > p`) reads what rein cannot tell."""
    parsed = parse(call.argv, 1, Options(short_value="m", long=longs("mode= context? help version")))
    operands = parsed.operands[:1] if call.name == "mknod" else parsed.operands
    return tuple((word, UNKNOWN, False) for word in operands), False


def sponge(call: Call) -> Writes:
    """moreutils `sponge [-a] FILE`: soaks up stdin, then writes it to FILE."""
    operands = [word for word in call.argv[1:] if not word.value.startswith("-")]
    append = any(word.value == "-a" for word in call.argv[1:])
    return tuple((word, stdin_content(call), append) for word in operands[:1]), False


def dd(call: Call) -> Writes:
    """`dd if=SRC of=DEST`: DEST holds SRC (stdin without `if=`); `seek=`, `skip=`, `count=` and
    conversions change what is copied: unknown then."""
    settings = {word.value.partition("=")[0]: word for word in call.argv[1:] if "=" in word.value}
    target = settings.get("of")
    if target is None:
        return (), False
    out = Word(value=target.value.partition("=")[2], raw=target.raw)
    source = settings.get("if")
    content = stdin_content(call) if source is None else _source(call, Word.literal(source.value[3:]))
    partial = any(
        key in settings for key in ("seek", "skip", "count", "iseek", "oseek", "conv", "cbs", "ibs")
    )
    append = "append" in (settings["oflag"].value if "oflag" in settings else "")
    return ((out, UNKNOWN if partial and not append else content, append),), False


def truncate(call: Call) -> Writes:
    """`truncate -s 0 f` empties f; any other size leaves it holding what rein cannot tell."""
    parsed = parse(
        call.argv, 1, Options(short_value="sr", long=longs("size= reference= io-blocks no-create"))
    )
    size = parsed.last("-s", "--size")
    empty = size is not None and size.value in ("0", "=0") and not parsed.has("-r", "--reference")
    return tuple((word, "" if empty else UNKNOWN, False) for word in parsed.operands), False


_ED_WRITE = re.compile(r"(?m)^\s*[0-9,.$;'a-z+-]*[wW]q?\s+(\S+)\s*$")
"""An ed or ex command that writes to a named file: `w x.sh`, `1,$w! out`, `wq new`."""


def editor(call: Call) -> Writes:
    """`ed f`, `ex f`, `vim -es -c ... f`: the files they edit, and the ones their script writes by
    name, hold what rein cannot tell (it does not run the script); a script it cannot read may write
    any file."""
    operands = [word for word in call.argv[1:] if not word.value.startswith(("-", "+"))]
    scripts = [word.value for word in call.argv[1:] if word.value.startswith("+")]
    scripts += [
        call.argv[i + 1].value for i, word in enumerate(call.argv[:-1]) if word.value in ("-c", "--cmd")
    ]
    unnamed = False
    if call.name in ("ed", "ex"):
        text = stdin_content(call) if call.stdin is not None else ""
        unnamed = not isinstance(text, str)
        scripts.append(text if isinstance(text, str) else "")
    named = [
        Word.literal(match) for script in scripts for match in _ED_WRITE.findall(script.replace("|", "\n"))
    ]
    return tuple((word, UNKNOWN, False) for word in (*operands, *named)), unnamed


SED_OPTIONS = Options(
    short_value="efl",
    short_optional="i",
    long=longs("""
        expression= file= line-length= in-place? posix regexp-extended separate unbuffered null-data
        sandbox silent quiet debug follow-symlinks help version
    """),
)
_SED_WRITE = re.compile(r"(?:^|[;\n{}0-9$]|/[gpIiMme0-9]*)\s*w\s+([^\n]+)")
"""sed's `w FILE` command and `s///w FILE` flag: the file name runs to the end of the line."""


def sed_files(call: Call) -> Writes:
    """`sed -n 'w x.sh'`, `sed 's/a/b/w out'`: the files the script writes hold what rein does not
    work out (a script from a file may write any)."""
    parsed = parse(call.argv, 1, SED_OPTIONS)
    if parsed.has("--sandbox"):
        return (), False
    scripts = [word.value for word in parsed.values("-e", "--expression")]
    from_file = bool(parsed.values("-f", "--file"))
    if not scripts and not from_file and parsed.operands:
        scripts = [parsed.operands[0].value]
    names = dict.fromkeys(match.strip() for script in scripts for match in _SED_WRITE.findall(script))
    found = tuple((Word.literal(name), UNKNOWN, False) for name in names if name not in _STREAMS)
    return found, False


_STREAMS = frozenset({"/dev/stdout", "/dev/stderr"})


_SUFFIXES = {
    "gunzip": (".gz", ".tgz", ".z"), "gzip": (".gz", ".tgz", ".z"), "bunzip2": (".bz2", ".tbz2"),
    "bzip2": (".bz2",), "unxz": (".xz",), "xz": (".xz",), "unzstd": (".zst",), "zstd": (".zst",),
    "unlzma": (".lzma",), "lzma": (".lzma",),
}  # fmt: skip


def decompress(call: Call) -> Writes:
    """`gunzip x.sh.gz` (`gzip -d`, `xz -d`, ...) writes `x.sh`, whose content rein cannot read;
    `-c`/`--stdout` writes to stdout instead."""
    words = [word.value for word in call.argv[1:]]
    flags = "".join(value[1:] for value in words if value.startswith("-") and not value.startswith("--"))
    decompressing = (
        call.name.startswith("un") or call.name == "gunzip" or "d" in flags or "--decompress" in words
    )
    if not decompressing or "c" in flags or "--stdout" in words or "--to-stdout" in words:
        return (), False
    found: list[Write] = []
    for word in call.argv[1:]:
        value = word.value
        suffix = next((end for end in _SUFFIXES[call.name] if value.lower().endswith(end)), None)
        if suffix is not None and not value.startswith("-"):
            out = value[: -len(suffix)] + (".tar" if suffix.startswith(".t") and len(suffix) > 3 else "")
            found.append((Word.literal(out), UNKNOWN, False))
    return tuple(found), False
