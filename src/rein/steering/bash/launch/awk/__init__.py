"""What an awk program (POSIX awk, gawk, mawk) launches: `system(cmd)`, output piped to a command or
read from one, and gawk's indirect call of `system`."""

from rein.steering.bash.launch.awk._reader import read

__all__ = ["read"]
