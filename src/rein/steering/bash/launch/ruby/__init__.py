"""What a Ruby program (`ruby -e`, a script on stdin) would launch."""

from rein.steering.bash.launch.ruby._reader import read

__all__ = ["read"]
