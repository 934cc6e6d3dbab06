"""What a Perl program (`perl -e/-E`, the body of a `-n`/`-p` loop, a script on stdin) would launch."""

from rein.steering.bash.launch.perl._reader import read

__all__ = ["read"]
