"""A function call's arguments as Vertex AI streams them: ``partialArgs``,
each a JSONPath (RFC 9535, the ``$.a.b[0]`` / ``$['a']`` forms) and a value,
a string value continuing over several while ``willContinue`` says so. The
mirror of ``rust/gemini/args.rs``.

``ArgsWriter`` turns them into the arguments' JSON text as it grows: the
containers the paths open are written as they come and closed when a path
leaves them, a continued string is written piece by piece. The text so far,
closed, is valid JSON at every point: the assembler parses it to give the
call's ``args``, the decoder hands each piece on as the tool call's argument
delta. Paths come in document order from the server; one that goes back
into a container already closed opens it again, and parsing keeps the later
value of a key written twice."""

from __future__ import annotations

from typing import Any

from ..._json import dumps

__all__ = ["ArgsWriter", "Key", "PathError", "parse_path", "partial_value"]

Key = str | int


# The largest index the Rust core holds (a 64-bit usize).
_MOST_INDEX = 2**64 - 1


class PathError(ValueError):
    """A ``jsonPath`` this reader cannot follow."""


def parse_path(path: str) -> list[Key]:
    """The keys of a JSONPath: names for ``.name`` and ``['name']``, indexes for ``[n]``."""
    if not path.startswith("$"):
        raise PathError(f"jsonPath {dumps(path)} does not start at $")
    keys: list[Key] = []
    at = 1
    while at < len(path):
        char = path[at]
        if char == ".":
            end = at + 1
            while end < len(path) and path[end] not in ".[":
                end += 1
            if end == at + 1:
                raise PathError(f"jsonPath {dumps(path)} has an empty name at {at}")
            keys.append(path[at + 1 : end])
            at = end
        elif char == "[":
            close = path.find("]", at)
            inner = path[at + 1 : close] if close > 0 else ""
            if len(inner) >= 2 and inner[0] == inner[-1] and inner[0] in "'\"":
                keys.append(inner[1:-1])
            elif inner.isdigit() and inner.isascii():
                if int(inner) > _MOST_INDEX:
                    raise PathError(f"jsonPath {dumps(path)} gives index {inner}, past any there can be")
                keys.append(int(inner))
            else:
                raise PathError(f"jsonPath {dumps(path)} has a selector this reader does not follow at {at}")
            at = close + 1
        else:
            raise PathError(f"jsonPath {dumps(path)} has {dumps(char)} where . or [ belongs, at {at}")
    return keys


_VALUE_KEYS = ("stringValue", "numberValue", "boolValue", "nullValue")


def partial_value(arg: dict[str, Any]) -> tuple[bool, Any]:
    """Whether a partial argument carries a value, and the value."""
    for key in _VALUE_KEYS:
        if key in arg:
            return True, None if key == "nullValue" else arg[key]
    return False, None


class ArgsWriter:
    """The arguments' JSON text, written from partial arguments as they come."""

    __slots__ = ("_containers", "_path", "_string_at", "_text")

    def __init__(self) -> None:
        self._text: list[str] = []
        # The open containers, the root object first: whether each is an
        # object, and how many members it has; and the keys naming each but
        # the root.
        self._containers: list[list[Any]] = []
        self._path: list[Key] = []
        # The path of the string value left open, to continue.
        self._string_at: list[Key] | None = None

    def write(self, keys: list[Key], value: Any, will_continue: bool) -> str:
        """Writes one partial argument and returns the text it adds. Raises
        ``PathError``, having written nothing, for a path the text so far
        cannot take (an index that skips or goes back, a name in an array)."""
        out: list[str] = []
        if not keys:
            raise PathError("jsonPath $ names the arguments themselves, not one of them")
        opening = not self._containers
        if opening:
            self._containers.append([True, 0])
            out.append("{")
        if self._string_at is not None and isinstance(value, str) and keys == self._string_at:
            out.append(dumps(value)[1:-1])
            if not will_continue:
                self._string_at = None
                out.append('"')
            return self._add(out)
        parents = keys[:-1]
        shared = 0
        while shared < min(len(parents), len(self._path)) and parents[shared] == self._path[shared]:
            shared += 1
        try:
            self._check(keys, shared)
        except PathError:
            if opening:
                self._containers.clear()
            raise
        if self._string_at is not None:
            self._string_at = None
            out.append('"')
        while len(self._path) > shared:
            self._path.pop()
            out.append("}" if self._containers.pop()[0] else "]")
        for depth in range(shared, len(parents)):
            self._member(parents[depth], out)
            is_object = isinstance(keys[depth + 1], str)
            out.append("{" if is_object else "[")
            self._path.append(parents[depth])
            self._containers.append([is_object, 0])
        self._member(keys[-1], out)
        if isinstance(value, str) and will_continue:
            self._string_at = keys
            out.append(dumps(value)[:-1])
        else:
            out.append(dumps(value))
        return self._add(out)

    def _check(self, keys: list[Key], shared: int) -> None:
        is_object, count = self._containers[shared]
        key = keys[shared]
        if isinstance(key, str) != is_object:
            kind = "name" if isinstance(key, str) else "index"
            raise PathError(f"jsonPath gives an {kind} where the arguments hold no such container")
        if isinstance(key, int) and key != count:
            raise PathError(f"jsonPath gives index {key} where the next is {count}")
        if any(isinstance(key, int) and key != 0 for key in keys[shared + 1 :]):
            raise PathError("jsonPath gives an index that skips the ones before it")

    def _member(self, key: Key, out: list[str]) -> None:
        """Opens a member of the innermost container: a comma after another,
        an object's key."""
        container = self._containers[-1]
        separator = "," if container[1] else ""
        out.append(separator + dumps(key) + ":" if isinstance(key, str) else separator)
        container[1] += 1

    def _add(self, out: list[str]) -> str:
        added = "".join(out)
        self._text.append(added)
        return added

    def closing(self) -> str:
        """The text that closes what is open: the string, the containers."""
        if not self._containers:
            return "{}"
        closers = ['"'] if self._string_at is not None else []
        closers += ["}" if container[0] else "]" for container in reversed(self._containers)]
        return "".join(closers)

    def finish(self) -> str:
        """Closes what is open and returns the text that did."""
        closing = self.closing()
        self._string_at = None
        self._containers = []
        self._path = []
        self._text.append(closing)
        return closing

    def text(self) -> str:
        """The arguments so far, closed: valid JSON."""
        return "".join(self._text) + self.closing()

    @property
    def written(self) -> bool:
        """Whether a partial argument was written."""
        return bool(self._text)
