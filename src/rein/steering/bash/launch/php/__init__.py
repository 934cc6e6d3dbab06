"""What a PHP program (`php -r` code, or a script with `<?php` on stdin) would launch."""

from rein.steering.bash.launch.php._reader import read

__all__ = ["read"]
