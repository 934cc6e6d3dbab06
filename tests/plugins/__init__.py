"""Providers and steering plugins from installed packages: an example package, made installed."""
