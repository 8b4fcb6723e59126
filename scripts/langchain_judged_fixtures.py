"""Records tests/fixtures/langchain_judged/: what langchain-core makes of the
LangChain streams agentcodec writes when it converts the other protocols.

For every recorded stream of another protocol (AgentScope, AG-UI, OpenAI
Responses): the SHA-256 of the stream agentcodec's Transcoder writes in the
LangChain protocol (pure backend, fixed timestamp) and, for each AI message
in it, the message langchain-core's own ``ChatModelStream`` assembles from
that message's events. tests/test_transcode.py holds both backends to
those bytes, and agentcodec's LangChain assembler to langchain-core's
messages; a change to the converter that changes the bytes means
recording again.

Run it in an environment with langchain-core (the test suite reads the
recorded fixtures instead):

    python3 -m venv /tmp/lc
    /tmp/lc/bin/pip install langchain-core==1.8.2 langchain-protocol==0.0.20
    AGENTCODEC_BACKEND=python PYTHONPATH=python /tmp/lc/bin/python scripts/langchain_judged_fixtures.py
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from langchain_core import __version__ as core_version
from langchain_core.language_models.chat_model_stream import ChatModelStream

from agentcodec import _pure

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from protocol_table import FIXTURES, TABLE  # noqa: E402  (the tests' table of protocols)

OUT = FIXTURES / "langchain_judged"
# Every other protocol's recorded streams, as the tests take them.
SOURCES = {name: row.streams() for name, row in TABLE.items() if name != "langchain"}
TIMESTAMP = 1763700000000


def envelopes(stream: bytes) -> list[dict[str, Any]]:
    blocks = stream.decode().split("\n\n")
    return [json.loads(block.split("data: ", 1)[1]) for block in blocks if "data: " in block]


def judged(stream: ChatModelStream) -> dict[str, Any]:
    """The message ChatModelStream gives, or the error it raises instead
    (for a message that failed or never finished)."""
    try:
        message = stream.output
    except Exception as exc:  # what langchain-core says is the reference
        return {"id": stream.message_id, "error": str(exc)}
    return {"id": message.id, "content": message.content, "tool_calls": message.tool_calls,
            "invalid_tool_calls": message.invalid_tool_calls, "usage": message.usage_metadata}  # fmt: skip


def ai_messages(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each AI message of the messages channel, as ChatModelStream assembles
    it, in the order they end: one at a time in each namespace and node, as
    the protocol keys them (a subgraph's beside the run's)."""
    messages, streams = [], {}
    for envelope in events:
        if envelope.get("method") != "messages":
            continue
        params = envelope["params"]
        key = (tuple(params["namespace"]), params.get("node"))
        data = params["data"]
        if data.get("event") == "message-start":
            if key in streams:
                messages.append(judged(streams.pop(key)))
            if data.get("role") == "ai":
                streams[key] = ChatModelStream(namespace=params["namespace"], node=params.get("node"),
                                               message_id=data.get("id"))  # fmt: skip
        stream = streams.get(key)
        if stream is None:
            continue
        stream.dispatch(data)
        if data.get("event") in ("message-finish", "error"):
            messages.append(judged(streams.pop(key)))
    messages += [judged(stream) for stream in streams.values()]  # the stream was cut
    return messages


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    count = 0
    for source, paths in SOURCES.items():
        for path in paths:
            transcoder = _pure.Transcoder(source, "langchain", timestamp=TIMESTAMP)
            stream = transcoder.feed(path.read_bytes()) + transcoder.close()
            name = f"{path.parent.name}__{path.stem}"
            expected = {"source": f"{source}:{path.relative_to(FIXTURES)}",
                        "sha256": hashlib.sha256(stream).hexdigest(),
                        "judge": f"langchain-core {core_version} ChatModelStream",
                        "messages": ai_messages(envelopes(stream))}  # fmt: skip
            text = json.dumps(expected, indent=2, ensure_ascii=False, default=str) + "\n"
            (OUT / f"{name}.json").write_text(text, encoding="utf-8")
            count += 1
    print(f"wrote {count} fixtures to {OUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
