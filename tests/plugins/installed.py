"""Make a package installed without pip or network: write its `.dist-info` (METADATA and
entry_points.txt, from its pyproject.toml) into a directory put on PYTHONPATH, as pip would."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from tests.faults.helpers import env

EXAMPLE = Path(__file__).resolve().parent / "example_pkg"
"""The documented example package: the `shout` provider and the `example-rules` steering plugin."""


def write_dist_info(
    site: Path, name: str, entry_points: dict[str, dict[str, str]], version: str = "0.1.0"
) -> Path:
    """Write the `.dist-info` of package `name` declaring `entry_points` (group to name to value)."""
    dist = site / f"{name.replace('-', '_')}-{version}.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    sections = [
        "\n".join([f"[{group}]", *(f"{key} = {value}" for key, value in points.items())])
        for group, points in entry_points.items()
    ]
    (dist / "entry_points.txt").write_text("\n\n".join(sections) + "\n")
    return dist


def install(project: Path, site: Path) -> Path:
    """Install `project` (a directory with a pyproject.toml) into `site`: its dist-info, from the
    pyproject's `[project]` table. Its modules stay where they are: put `project` on the path too."""
    table = tomllib.loads((project / "pyproject.toml").read_text())["project"]
    return write_dist_info(site, table["name"], table.get("entry-points", {}), table["version"])


def plugin_env(home: Path, *paths: Path) -> dict[str, str]:
    """The environment of a `rein` run (tests.faults.helpers.env) with `paths` first on PYTHONPATH."""
    out = env(home)
    out["PYTHONPATH"] = os.pathsep.join([*map(str, paths), *filter(None, [out.get("PYTHONPATH")])])
    return out
