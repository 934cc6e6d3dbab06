"""Deserializers that call what their data names: pickle and its kin, and the loaders built on them.

One rule for all of them: deserializing data from outside the program (a file, a stream, another
program's objects) is reading data, not a command, like any program reading its input, so it runs.
Only data the program itself holds is code rein cannot read and makes the program unknown: a
literal, or a value built from one (`pickle.loads(b"cposix\\nsystem...")`, `pickle.loads(base64.
b64decode("..."))`, `yaml.unsafe_load("!!python/object/apply:os.system [...]")`, `io.BytesIO(b"...")`),
or fetched from a literal address (`pickle.loads(urlopen("https://...").read())`, as `curl ... | sh`).
A literal that names a file (`open("m.pkl", "rb")`, `torch.load("m.pt")`) is a path, not data.

Loaders that unpickle only when asked are data otherwise: `torch.load` with `weights_only=False`
(`True` is the default since torch 2.6), `numpy.load` with `allow_pickle=True`, `yaml.load` with an
unsafe `Loader`. marshal builds code objects but calls nothing (running one takes `exec`, read apart).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from rein.steering.bash.launch._launch import Launch
from rein.steering.bash.launch.python._call_site import Absent, Handler, Site, argument
from rein.steering.bash.launch.python._scope import Scope
from rein.steering.bash.launch.python._values import Const, Text

_OPENERS = frozenset({
    "builtins.open", "io.open", "io.FileIO", "os.open", "os.fdopen", "codecs.open", "gzip.open", "bz2.open",
    "lzma.open", "gzip.GzipFile", "bz2.BZ2File", "lzma.LZMAFile", "pathlib.Path", "pathlib.PosixPath",
    "pathlib.PurePath", "os.path.join", "os.path.expanduser", "os.path.abspath", "os.path.realpath",
    "os.path.expandvars", "os.path.normpath", "tempfile.NamedTemporaryFile", "tempfile.TemporaryFile",
    "zipfile.ZipFile", "tarfile.open",
})  # fmt: skip
"""Calls whose literal arguments name a file or say how to open it."""
_SERIALIZERS = frozenset(
    f"{module}.{name}"
    for module in ("pickle", "_pickle", "cPickle", "dill", "cloudpickle", "jsonpickle")
    for name in ("dumps", "encode")
)
"""The program's own objects serialized: data, whatever literals built them."""
_READS = frozenset({"read", "read_bytes", "read_text", "readline", "readlines", "open", "getvalue", "decode"})
"""Methods whose arguments are no data (`f.read(4096)`, `p.open("rb")`)."""
_SAFE_LOADERS = frozenset(
    {"SafeLoader", "CSafeLoader", "BaseLoader", "CBaseLoader", "FullLoader", "CFullLoader"}
)
"""PyYAML's loaders that build no arbitrary object (FullLoader since 5.4)."""
_DEPTH = 24
Guard = Callable[[Site], bool]


def _always(site: Site) -> bool:
    return True


def _keyword(name: str, unsafe: object, index: int = -1) -> Guard:
    """Unpickles only when the argument `name` (at `index`) is `unsafe`, or a value built at run time."""

    def guard(site: Site) -> bool:
        value = site.argument(index, name)
        return not isinstance(value, Absent) and (not isinstance(value, Const) or value.value == unsafe)

    return guard


def _unsafe_loader(site: Site) -> bool:
    """`yaml.load(s, Loader=yaml.Loader)`: a loader other than the safe ones, or one rein cannot name."""
    node = argument(site.node, 1, "Loader")
    if node is None:
        return True
    if isinstance(node, Absent):
        return False
    names = [name.rpartition(".")[2] for name in site.scope.resolve(node)]
    spelled = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
    return not any(name in _SAFE_LOADERS for name in names or [spelled])


def deserializer(keyword: str, *, path: bool = False, guard: Guard = _always) -> Handler:
    """A call that deserializes its first argument (or `keyword`): a file object, or a path when
    `path` (a literal there names a file)."""

    def handle(site: Site) -> tuple[Launch, ...]:
        if not guard(site):
            return ()
        node = argument(site.node, 0, keyword)
        if node is None or isinstance(node, Absent):
            return ()
        if path and isinstance(site.scope.value(node), Text):
            return ()  # `torch.load("m.pt")`, `joblib.load(f"{d}/m.pkl")`: a file
        if _own(site.scope, node, 0):
            return (
                site.unknown(
                    "deserializes data written in the program: unpickling calls what the data names"
                ),
            )
        return ()

    return handle


def _own(scope: Scope, node: ast.AST, depth: int) -> bool:
    """Whether `node` holds data the program itself writes: a string or bytes literal that names no
    file, also through a name bound once to such an expression."""
    if depth > _DEPTH:
        return True
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str | bytes) and bool(node.value)
    if isinstance(node, ast.Name):
        bound = scope.names.consts.get(node.id)
        return bound is not None and _own(scope, bound, depth + 1)
    if isinstance(node, ast.Call):
        names = scope.resolve(node.func)
        if any(name in _OPENERS or name in _SERIALIZERS for name in names):
            return False
        if not names and isinstance(node.func, ast.Name) and node.func.id == "open":
            return False  # the builtin, which rein does not resolve
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _READS:
            return _own(scope, func.value, depth + 1)
    return any(_own(scope, child, depth + 1) for child in ast.iter_child_nodes(node))


_PICKLES = ("pickle", "_pickle", "cPickle", "dill", "cloudpickle")
DESERIALIZERS: dict[str, Handler] = {
    **{f"{module}.{name}": deserializer(keyword) for module in _PICKLES for name, keyword in (
        ("load", "file"), ("loads", "data"), ("Unpickler", "file"))},
    **{f"yaml.{name}": deserializer("stream") for name in ("unsafe_load", "unsafe_load_all")},
    **{f"yaml.{name}": deserializer("stream", guard=_unsafe_loader) for name in ("load", "load_all")},
    "jsonpickle.decode": deserializer("string"),
    "jsonpickle.loads": deserializer("string"),
    "pandas.read_pickle": deserializer("filepath_or_buffer", path=True),
    "shelve.open": deserializer("filename", path=True),
    "joblib.load": deserializer("filename", path=True),
    "torch.load": deserializer("f", path=True, guard=_keyword("weights_only", False)),
    "numpy.load": deserializer("file", path=True, guard=_keyword("allow_pickle", True, 2)),
}  # fmt: skip
"""Deserializers that may call what their data names, by qualified name."""
