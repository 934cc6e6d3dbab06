"""The JavaScript reader: what a program run by `node -e/-p`, `nodejs`, `bun -e`, `deno eval` or fed
on stdin would launch, read with tree-sitter-javascript (never run)."""

from rein.steering.bash.launch.javascript._reader import read

__all__ = ["read"]
