"""The pure backend's Anthropic Messages stream, the mirror of ``rust/anthropic/``:
its assembler, its decoder and encoder, its exceptions
(``errors.py``), and the ``PROTOCOL`` that ``_pure/registry.py`` collects
(``protocol.py``).

Importing the package imports none of it: the native backend imports its
``errors`` alone."""
