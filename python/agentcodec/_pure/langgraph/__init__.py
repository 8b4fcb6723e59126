"""The pure backend's LangGraph Agent Server stream, the mirror of
``rust/langgraph/``: its assembler, its decoder and encoder, and the
``PROTOCOL`` that ``_pure/registry.py`` collects.

Importing the package imports none of it: the native backend imports its
``errors`` alone."""
