"""One call at a time on an object shared by threads: the mirror of
``rust/python/guard.rs``.

A thread switch can fall anywhere in a pure-Python call, so two threads
feeding one assembler would interleave its state. ``serialized(cls)`` makes
the class the package exports: a subclass whose public methods and
properties hold a per-object lock for the call. A call that finds the object
in use waits (the lock releases the GIL) and loses nothing; a nested call on
the thread that holds it (code the call ran, such as a debugger or profiler
hook or a signal handler, calling the object again) is refused with the
native backend's ``RuntimeError``. The implementation classes stay unguarded
for the package's own use (the assemblers' decoders and argument parsers
are theirs alone).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from threading import RLock
from types import FunctionType
from typing import Any, TypeVar

__all__ = ["serialized"]

_C = TypeVar("_C")

#: Dunder methods that read state, guarded like the public ones.
_GUARDED_DUNDERS = frozenset({"__repr__"})


def _nested(obj: object) -> RuntimeError:
    return RuntimeError(
        f"this {type(obj).__name__} is already in use by this thread: calls on one object cannot nest"
    )


_TEMPLATE = """\
def call(self{params}):
    lock = self._call_lock
    # An RLock for _is_owned() alone: the holder is never let in again, as a
    # nested call would find the state half-changed.
    if lock._is_owned():
        raise nested(self)
    lock.acquire()
    try:
        return function(self{params})
    finally:
        lock.release()
"""


def _guarded(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` holding the object's lock. The wrapper takes the same
    parameters by name (a generic ``*args, **kwargs`` one costs twice the
    time of the lock, and every pure call pays it)."""
    parameters = list(inspect.signature(function).parameters.values())[1:]
    simple = all(
        parameter.kind is parameter.POSITIONAL_OR_KEYWORD and parameter.default is parameter.empty
        for parameter in parameters
    )
    params = "".join(f", {parameter.name}" for parameter in parameters) if simple else ", *args, **kwargs"
    namespace: dict[str, Any] = {"function": function, "nested": _nested}
    source = _TEMPLATE.format(params=params)
    exec(compile(source, f"<guarded {function.__qualname__}>", "exec"), namespace)
    return functools.wraps(function)(namespace["call"])


def serialized(cls: type[_C], name: str | None = None) -> type[_C]:
    """The class to export for ``cls``: same behaviour, one call at a time
    per object; named ``name`` (the native class's name) if given."""
    namespace: dict[str, Any] = {
        "__slots__": ("_call_lock",),
        "__doc__": cls.__doc__,
        "__module__": cls.__module__,
        "__qualname__": name or cls.__qualname__,
    }
    base_init = cls.__init__

    @functools.wraps(base_init)
    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        self._call_lock = RLock()
        base_init(self, *args, **kwargs)

    namespace["__init__"] = init
    seen: set[str] = {"__init__"}
    for klass in cls.__mro__[:-1]:  # the most derived definition wins
        for member, attr in vars(klass).items():
            if member in seen:
                continue
            seen.add(member)
            if member.startswith("_") and member not in _GUARDED_DUNDERS:
                continue
            if isinstance(attr, property):
                namespace[member] = property(_guarded(attr.fget), doc=attr.__doc__)  # type: ignore[arg-type]
            elif isinstance(attr, FunctionType):
                namespace[member] = _guarded(attr)
    guarded: type[_C] = type(name or cls.__name__, (cls,), namespace)
    return guarded
