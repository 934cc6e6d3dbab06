"""The JavaScript reader: what a program run by `node -e/-p`, `nodejs`, `bun -e`, `deno eval` or fed"""

from rein.steering.bash.launch.javascript._reader import read

__all__ = ["read"]
