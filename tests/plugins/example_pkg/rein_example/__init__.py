"""An example package that adds to rein: the `shout` provider and the `example-rules` steering plugin.

Its pyproject.toml declares them as entry points; rein finds them once the package is installed.
"""
