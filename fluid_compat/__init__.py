"""fluid_compat package."""
