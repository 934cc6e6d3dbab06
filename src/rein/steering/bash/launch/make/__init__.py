"""What a GNU makefile launches: every recipe line of every rule (rein cannot know which targets run,"""

from rein.steering.bash.launch.make._reader import read

__all__ = ["read"]
