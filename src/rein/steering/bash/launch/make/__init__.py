"""What a GNU makefile launches: every recipe line of every rule (rein cannot know which targets run,"""

from rein.steering.bash.launch.make._reader import Include, read

__all__ = ["Include", "read"]
