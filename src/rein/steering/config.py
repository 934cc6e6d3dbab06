"""Read `.rein/steering.toml` layers from disk and load plugins: the steering package's only I/O.

Layers are read from the cwd up to the home directory (and `~/.rein/steering.toml` even when the cwd
is outside home). The innermost layer wins on a rule-name clash. A broken file is an error that names
the file and line; nothing falls back silently: a `steering.toml` that is a directory or a link to
nothing is an error too, not a layer skipped. A `disabled_rules` name that is no rule is a warning
(with the closest names): disabling nothing only leaves a rule on, which fails safe, and a name may be
a rule another project's layer or plugin defines.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Literal, cast

from rein.steering._defaults import DEFAULT_RULES, OPTIONAL_RULES
from rein.steering._packs import SETTINGS, Setting, default_packs
from rein.steering._policy import DEFAULT_PLUGINS, Built, Layer, build_policy
from rein.steering._rule import Plugin
from rein.steering._schema import Reader, read_observer, read_rule, show, table_lines
from rein.steering.errors import ConfigError

CONFIG = Path(".rein") / "steering.toml"
TOP_KEYS = frozenset({
    "rule", "observer", "plugins", "disabled_rules", "enable_rules", "allow_override", "disable_defaults",
    "on_parse_error", "packs",
})  # fmt: skip


def config_files(cwd: Path, home: Path) -> list[Path]:
    """Config files, innermost first: cwd, its parents up to home, then home's. Any entry by that name
    counts, a directory or a dangling link too: `load_policy` then says what is wrong with it."""
    found: list[Path] = []
    for directory in (cwd, *cwd.parents):
        if _present(directory / CONFIG):
            found.append(directory / CONFIG)
        if directory == home:
            break
    home_file = home / CONFIG
    if _present(home_file) and home_file not in found:
        found.append(home_file)
    return found


def _present(path: Path) -> bool:
    return path.is_symlink() or path.exists()


def not_a_file(path: Path) -> str | None:
    """Why `path` cannot be read as a file (a directory, a dangling link, missing), or None."""
    if path.is_dir():
        return "is a directory, not a file"
    if path.is_symlink() and not path.exists():
        return f"is a link to {path.readlink()}, which does not exist"
    if not path.exists():
        return "does not exist"
    return None


PLUGIN_ENTRY_POINTS = "rein.steering"
"""The entry point group of installed steering plugins: `name = "pkg.module"` (a module that defines
`plugin`) or `name = "pkg.module:plugin"` (the `Plugin` itself)."""


def _load_plugin(spec: str, base: Path, file: str) -> Plugin:
    """A plugin is a `.py` file relative to the config file's directory, the name of an installed
    package's plugin (the `rein.steering` entry point group), or a module path (`mypkg.steering`);
    its module must define `plugin = Plugin(...)`."""
    installed = None if spec.endswith(".py") else _installed_plugin(spec, file)
    if installed is not None:
        return installed
    try:
        if spec.endswith(".py"):
            problem = not_a_file(base / spec)
            if problem is not None:
                raise ConfigError(f"plugin {spec!r}: {base / spec} {problem}", file=file)
            path = (base / spec).resolve()
            module_spec = importlib.util.spec_from_file_location(f"rein_plugin_{path.stem}", path)
            if module_spec is None or module_spec.loader is None:
                raise ConfigError(f"plugin {spec!r}: cannot load {path}", file=file)
            module = importlib.util.module_from_spec(module_spec)
            module_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(spec)
    except ConfigError:
        raise
    except Exception as error:
        raise ConfigError(f"plugin {spec!r} failed to import: {error}", file=file) from error
    plugin = getattr(module, "plugin", None)
    if not isinstance(plugin, Plugin):
        raise ConfigError(f"plugin {spec!r} must define `plugin = Plugin(...)`", file=file)
    return plugin


def _installed_plugin(spec: str, file: str) -> Plugin | None:
    """The plugin an installed package declares under the name `spec`, or None when none does."""
    import importlib.metadata  # lazy: 35 ms, paid only by a config that names plugins

    for point in importlib.metadata.entry_points(group=PLUGIN_ENTRY_POINTS, name=spec):
        where = f"plugin {spec!r} (entry point {point.value})"
        try:
            loaded = point.load()
        except Exception as error:
            raise ConfigError(f"{where} failed to import: {error}", file=file) from error
        plugin = loaded if isinstance(loaded, Plugin) else getattr(loaded, "plugin", None)
        if not isinstance(plugin, Plugin):
            raise ConfigError(f"{where} must name a `Plugin` or a module that defines `plugin`", file=file)
        return plugin
    return None


def parse_layer(text: str, file: str, *, base: Path | None = None) -> Layer:
    """Parse one config file's text. `base` is where `.py` plugin paths are resolved from."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"not valid TOML: {error}", file=file) from None
    top = Reader(data, file=file, line=None, what="config")
    top.known(TOP_KEYS)
    rule_lines = table_lines(text, "rule")
    observer_lines = table_lines(text, "observer")
    rules_data = data.get("rule", [])
    observers_data = data.get("observer", [])
    if not isinstance(rules_data, list) or not isinstance(observers_data, list):
        raise ConfigError(
            "config: `rule` and `observer` must be arrays of tables ([[rule]], [[observer]])", file=file
        )
    rules = tuple(
        read_rule(_table(t, file), file=file, line=_at(rule_lines, i), index=i)
        for i, t in enumerate(rules_data)
    )
    observers = tuple(
        read_observer(_table(t, file), file=file, line=_at(observer_lines, i), index=i)
        for i, t in enumerate(observers_data)
    )
    disable = data.get("disable_defaults")
    if disable is not None and not isinstance(disable, bool):
        raise ConfigError(f"config: disable_defaults must be true or false, not {show(disable)}", file=file)
    on_parse_error = (
        top.choice("on_parse_error", ("block", "allow"), "block") if "on_parse_error" in data else None
    )
    plugin_dir = base if base is not None else Path(file).parent
    return Layer(
        file=file,
        rules=rules,
        observers=observers,
        plugins=tuple(_load_plugin(spec, plugin_dir, file) for spec in top.strings("plugins")),
        disabled_rules=frozenset(top.strings("disabled_rules")),
        enabled_rules=frozenset(top.strings("enable_rules")),
        allow_override=frozenset(top.strings("allow_override")),
        disable_defaults=disable,
        on_parse_error=cast(Literal["block", "allow"] | None, on_parse_error),
        packs=_packs(top),
    )


def _packs(top: Reader) -> dict[str, Setting]:
    """`packs = { database = "ask", publish = "off" }`: each value one of block, ask, off."""
    table = top.table_of("packs")
    for key, value in table.items():
        if value not in SETTINGS:
            raise top.fail(f"packs.{key} must be one of {', '.join(SETTINGS)}, not {show(value)}")
    return cast(dict[str, Setting], dict(table))


def _table(value: object, file: str) -> Mapping[str, object]:
    if not isinstance(value, dict):
        raise ConfigError("each [[rule]] and [[observer]] must be a table", file=file)
    return cast(dict[str, object], value)


def _at(lines: list[int], index: int) -> int | None:
    return lines[index] if index < len(lines) else None


def load_policy(cwd: Path, home: Path, *, defaults: bool = True) -> Built:
    """Read every config layer that applies at `cwd` and build the policy."""
    layers: list[Layer] = []
    for path in config_files(cwd, home):
        problem = not_a_file(path)
        if problem is not None:
            raise ConfigError(problem, file=str(path))
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise ConfigError(f"cannot read: {error.strerror or error}", file=str(path)) from None
        except UnicodeDecodeError as error:
            raise ConfigError(f"cannot read: not UTF-8 text ({error.reason})", file=str(path)) from None
        layers.append(parse_layer(text, str(path)))
    built = build_policy(layers, defaults=defaults)
    unknown = unknown_disabled(layers)
    return Built(policy=built.policy, warnings=(*built.warnings, *unknown)) if unknown else built


def unknown_disabled(layers: Iterable[Layer]) -> list[str]:
    """A warning for each `disabled_rules` name that no layer, plugin or default rule has."""
    layers = list(layers)
    plugins = [*(p for layer in layers for p in layer.plugins), *DEFAULT_PLUGINS]
    known = {
        *(rule.name for layer in layers for rule in layer.rules),
        *(rule.name for plugin in plugins for rule in plugin.rules),
        *(rule.name for rule in DEFAULT_RULES),
        *(rule.name for pack in default_packs() for rule in pack.rules),
        *OPTIONAL_RULES,
    }
    warnings: list[str] = []
    for layer in layers:
        for key, names, extra in (
            ("disabled_rules", layer.disabled_rules, set[str]()),
            ("allow_override", layer.allow_override, {"unknown"}),
        ):
            for name in sorted(names - known - extra):
                close = difflib.get_close_matches(name, sorted(known | extra), n=3, cutoff=0.6)
                hint = "no rule has a similar name"
                if close:
                    hint = f"did you mean {', '.join(map(repr, close))}?"
                warnings.append(f"{layer.file}: {key}: no rule is named {name!r} ({hint})")
    return warnings
