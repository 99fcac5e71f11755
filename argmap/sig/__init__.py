"""Hand-written mappings of irregular ops: ``argmap/sig/<op>.py`` (as Paddle's
``paddle/phi/ops/compat/<op>_sig.cc``) holds the mapping of op type ``<op>`` and of its grad
ops (``<op>_grad``, ``<op>_double_grad`` ... are in ``<op>.py``), each recorded in the module's
``MAPPINGS`` (a `argmap.registry.MappingFamily`).  Helpers shared by several modules are in
`argmap.sig.funcs`, which registers nothing.

An op is irregular when its signature depends on more than which tensor gives an attribute: the
kernel name changes with an attribute value (``split``: ``num``), with the kind of a variable
(``scale``: SelectedRows), with an optional output (``flatten_contiguous_range``: XShape), or
sources are checked in a non-generated order (``reshape2``).  Each function carries a one-line
comment saying why.  Regular ops are declared in ``argmap/op_compat.yaml``.

No list names these modules: the process-wide registry imports an op's module the first time it
is asked about the op (`argmap.registry.SIG_LAYOUT`, the layout rule), and every module when it
lists its mappings.
"""
