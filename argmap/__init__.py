"""argmap package."""
