"""The work behind the ``fluid-compat`` commands (run, ...), importable for tests."""
