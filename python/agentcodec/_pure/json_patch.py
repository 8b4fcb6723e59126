"""JSON Patch (RFC 6902) over JSON Pointers (RFC 6901), applied atomically:
the pure-Python mirror of ``rust/json_patch.rs``.

A patch is applied in place, each operation recording how to undo itself;
if one fails, the ones before it are undone, so a patch that does not apply
leaves the document exactly as it was (key order included). Nothing is copied
but what ``copy`` copies and what a failure restores.

Two bounds hold whatever the patches, as in the Rust core: the document nests
at most ``MAX_DEPTH`` deep, and what ``copy`` duplicates is taken from the
stream's budget (``max_stream_bytes``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .json_values import MAX_DEPTH, measure
from .json_values import quote as _quote

if TYPE_CHECKING:
    from .stream import Budget

__all__ = ["PatchError", "apply_patch", "json_equal"]

_ABSENT = object()


class PatchError(ValueError):
    """A patch that is malformed or does not apply; says which operation and why."""


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return "a scalar"


def json_equal(a: Any, b: Any) -> bool:
    """Equality of JSON values: numbers by value (1 == 1.0), but never a
    boolean with a number; objects regardless of key order."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(value, b[key]) for key, value in a.items())
    return False


def _tokens(pointer: Any, name: str) -> tuple[str, list[str]]:
    """The pointer, checked, and its reference tokens, unescaped."""
    if not isinstance(pointer, str):
        raise PatchError(f"'{name}' is not a string")
    if pointer == "":
        return pointer, []
    if not pointer.startswith("/"):
        raise PatchError(f"'{name}' {_quote(pointer)} does not start with '/'")
    tokens = pointer[1:].split("/")
    for token in tokens:
        if "~" in token and any(part[:1] not in ("0", "1") for part in token.split("~")[1:]):
            raise PatchError(f"'{name}' {_quote(pointer)} has an invalid escape")
    return pointer, [token.replace("~1", "/").replace("~0", "~") for token in tokens]


def _array_index(token: str, length: int, pointer: str, *, append: bool) -> int:
    """An array index token: digits without leading zeros, within the array
    (or at its end, or ``-``, where ``append`` allows)."""
    if token == "-" and append:
        return length
    if not token.isdigit() or not token.isascii() or (len(token) > 1 and token[0] == "0"):
        raise PatchError(f"{_quote(pointer)}: {_quote(token)} is not an array index")
    index = int(token)
    if index > length or (index == length and not append):
        raise PatchError(f"{_quote(pointer)}: index {index} is out of range")
    return index


class _Document:
    """The document being patched, with the undo log of the patch so far."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self.undo: list[tuple[Any, ...]] = []

    def parent(self, tokens: list[str], pointer: str) -> Any:
        """The container the last token addresses into."""
        node = self.root
        for token in tokens[:-1]:
            node = self._child(node, token, pointer)
        return node

    def get(self, tokens: list[str], pointer: str) -> Any:
        if not tokens:
            return self.root
        return self._child(self.parent(tokens, pointer), tokens[-1], pointer)

    @staticmethod
    def _child(node: Any, token: str, pointer: str) -> Any:
        if isinstance(node, dict):
            if token not in node:
                raise PatchError(f"{_quote(pointer)}: no member {_quote(token)}")
            return node[token]
        if isinstance(node, list):
            return node[_array_index(token, len(node), pointer, append=False)]
        raise PatchError(f"{_quote(pointer)}: cannot descend into {_kind(node)}")

    # The primitive changes, each with its inverse in the log.

    def add(self, tokens: list[str], value: Any, pointer: str) -> None:
        if not tokens:
            self.undo.append(("root", self.root))
            self.root = value
            return
        parent, token = self.parent(tokens, pointer), tokens[-1]
        if isinstance(parent, dict):
            if token in parent:
                self.undo.append(("set", parent, token, parent[token]))
            else:
                self.undo.append(("delete", parent, token))
            parent[token] = value
        elif isinstance(parent, list):
            index = _array_index(token, len(parent), pointer, append=True)
            parent.insert(index, value)
            self.undo.append(("pop", parent, index))
        else:
            raise PatchError(f"{_quote(pointer)}: cannot add to {_kind(parent)}")

    def remove(self, tokens: list[str], pointer: str) -> Any:
        if not tokens:
            raise PatchError("cannot remove the whole document")
        parent, token = self.parent(tokens, pointer), tokens[-1]
        if isinstance(parent, dict):
            if token not in parent:
                raise PatchError(f"{_quote(pointer)}: no member {_quote(token)}")
            position = list(parent).index(token)
            value = parent.pop(token)
            self.undo.append(("restore", parent, token, value, position))
            return value
        if isinstance(parent, list):
            index = _array_index(token, len(parent), pointer, append=False)
            value = parent.pop(index)
            self.undo.append(("insert", parent, index, value))
            return value
        raise PatchError(f"{_quote(pointer)}: cannot remove from {_kind(parent)}")

    def replace(self, tokens: list[str], value: Any, pointer: str) -> None:
        if not tokens:
            self.undo.append(("root", self.root))
            self.root = value
            return
        parent, token = self.parent(tokens, pointer), tokens[-1]
        if isinstance(parent, dict):
            if token not in parent:
                raise PatchError(f"{_quote(pointer)}: no member {_quote(token)}")
            self.undo.append(("set", parent, token, parent[token]))
            parent[token] = value
        elif isinstance(parent, list):
            index = _array_index(token, len(parent), pointer, append=False)
            self.undo.append(("set", parent, index, parent[index]))
            parent[index] = value
        else:
            raise PatchError(f"{_quote(pointer)}: cannot replace in {_kind(parent)}")

    def rollback(self) -> Any:
        for entry in reversed(self.undo):
            action = entry[0]
            if action == "root":
                self.root = entry[1]
            elif action == "set":
                entry[1][entry[2]] = entry[3]
            elif action == "delete":
                del entry[1][entry[2]]
            elif action == "pop":
                entry[1].pop(entry[2])
            elif action == "insert":
                entry[1].insert(entry[2], entry[3])
            else:  # "restore": the member goes back to its place
                _, parent, key, value, position = entry
                items = list(parent.items())
                items.insert(position, (key, value))
                parent.clear()
                parent.update(items)
        return self.root


def _deep_copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _deep_copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_deep_copy(item) for item in value]
    return value


def _within_depth(tokens: list[str], depth: int, pointer: str) -> None:
    """A value ``depth`` deep put at ``tokens`` keeps the document within ``MAX_DEPTH``."""
    nesting = len(tokens) + depth
    if nesting > MAX_DEPTH:
        raise PatchError(
            f"{_quote(pointer)}: the value would nest {nesting} deep, past the limit of {MAX_DEPTH}"
        )


def _apply_one(document: _Document, operation: Any, position: int, budget: Budget, copied: list[int]) -> None:
    """Applies one operation; ``copied[0]`` is what the patch's copies have
    duplicated so far, against ``budget``."""
    if not isinstance(operation, dict):
        raise PatchError(f"operation {position} is not an object")
    op = operation.get("op")
    if not isinstance(op, str):
        raise PatchError(f"operation {position} has no 'op'")
    pointer, tokens = _tokens(operation.get("path"), "path")
    if op in ("add", "replace", "test") and "value" not in operation:
        raise PatchError(f"operation {position} ({op}) has no 'value'")
    if op in ("add", "replace"):
        _within_depth(tokens, measure(operation["value"])[1], pointer)
    if op == "add":
        document.add(tokens, _deep_copy(operation["value"]), pointer)
    elif op == "remove":
        document.remove(tokens, pointer)
    elif op == "replace":
        document.replace(tokens, _deep_copy(operation["value"]), pointer)
    elif op in ("move", "copy"):
        source, from_tokens = _tokens(operation.get("from"), "from")
        if op == "move":
            if from_tokens == tokens:
                document.get(tokens, pointer)  # must exist
                return
            if from_tokens == tokens[: len(from_tokens)]:
                raise PatchError(f"operation {position} moves {_quote(source)} into itself")
            _within_depth(tokens, measure(document.get(from_tokens, source))[1], pointer)
            document.add(tokens, document.remove(from_tokens, source), pointer)
        else:
            value = document.get(from_tokens, source)
            size, depth = measure(value)
            _within_depth(tokens, depth, pointer)
            copied[0] += size
            if not budget.allows(copied[0]):
                refusal = budget.refusal("the patch's copies are", copied[0])
                raise PatchError(f"operation {position} (copy) {refusal}")
            document.add(tokens, _deep_copy(value), pointer)
    elif op == "test":
        if not json_equal(document.get(tokens, pointer), operation["value"]):
            raise PatchError(f"operation {position} (test) failed: {_quote(pointer)} is not the value tested")
    else:
        raise PatchError(f"operation {position} has an unknown op {_quote(op)}")


def apply_patch(document: Any, patch: Any, budget: Budget) -> Any:
    """Applies ``patch`` to ``document`` in place and returns the new document
    (a different object only when the root was replaced). Raises
    ``PatchError`` (with the document as it was, and nothing taken from
    ``budget``) when it does not apply."""
    if not isinstance(patch, list):
        raise PatchError("the patch is not an array")
    target = _Document(document)
    copied = [0]
    for position, operation in enumerate(patch):
        try:
            _apply_one(target, operation, position, budget, copied)
        except PatchError as exc:
            target.rollback()
            message = str(exc)
            if not message.startswith("operation"):
                message = f"operation {position} ({operation.get('op')}): {message}"
            raise PatchError(message) from None
    budget.spend(copied[0])
    return target.root
