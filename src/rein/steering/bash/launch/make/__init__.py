"""What a GNU makefile launches: every recipe line of every rule (rein cannot know which targets run,
so it checks them all), each `$(shell ...)` wherever it appears, and `VAR != command`."""

from rein.steering.bash.launch.make._reader import Include, read

__all__ = ["Include", "read"]
