"""The pure backend's A2A (Agent2Agent) stream, the mirror of ``rust/a2a/``:
its assembler, its decoder and encoder, its exceptions
(``errors.py``), and the ``PROTOCOL`` that ``_pure/registry.py`` collects
(``protocol.py``).

Importing the package imports none of it: the native backend imports its
``errors`` alone."""
