"""What an awk program (POSIX awk, gawk, mawk) launches: `system(cmd)`, output piped to a command"""

from rein.steering.bash.launch.awk._reader import read

__all__ = ["read"]
