"""What a Python program would launch, read with the standard library's `ast` (never run)."""

from rein.steering.bash.launch.python._reader import read

__all__ = ["read"]
