"""The command line: ``agentcodec decode``, ``assemble`` and ``convert``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentcodec import _protocols, events
from agentcodec.cli import main
from agentcodec.events import PROTOCOLS
from protocol_table import FIXTURES, TABLE

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "agentscope.sse"


def test_decode_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capture = tmp_path / "capture.sse"
    capture.write_bytes(
        b"\xef\xbb\xbfid: 1\r\nevent: delta\r\ndata: a\r\ndata: \xc3\xa9\r\n\r\n: ping\n\ndata: [DONE]\n\n"
    )
    assert main(["decode", str(capture)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines == [
        {"event": "delta", "id": "1", "retry": None, "data": "a\n\u00e9"},
        {"event": "message", "id": "1", "retry": None, "data": "[DONE]"},
    ]


def test_decode_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decode", "--json", str(EXAMPLE)]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert records[0]["json"]["status"] == "created"
    assert records[-1]["json"]["object"] == "response"
    assert records[-1]["json"]["status"] == "completed"
    assert all(set(r) == {"event", "id", "retry", "json"} for r in records)


def test_assemble_agentscope(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["assemble", "--protocol", "agentscope", str(EXAMPLE)]) == 0
    response = json.loads(capsys.readouterr().out)
    assert response["status"] == "completed"
    assert [m["type"] for m in response["output"]] == [
        "reasoning",
        "message",
        "plugin_call",
        "plugin_call_output",
        "message",
    ]
    assert response["output"][-1]["content"][0]["text"] == "It is sunny."


def test_assemble_truncated_stream_is_incomplete(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capture = tmp_path / "cut.sse"
    capture.write_bytes(EXAMPLE.read_bytes()[:2500])
    assert main(["assemble", "--protocol", "agentscope", str(capture)]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "incomplete"


def test_assemble_bad_event_prints_what_came_before(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capture = tmp_path / "bad.sse"
    good = b'data: {"object":"content","type":"text","index":0,"delta":true,"msg_id":"m","text":"Hi"}\n\n'
    capture.write_bytes(good + b"data: {broken\n\n" + good)
    assert main(["assemble", "--protocol", "agentscope", str(capture)]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out)["output"][0]["content"][0]["text"] == "Hi"
    assert "AgentScope event 2 is not valid JSON" in err
    assert main(["assemble", "--protocol", "agentscope", "--skip-errors", str(capture)]) == 0
    assert json.loads(capsys.readouterr().out)["output"][0]["content"][0]["text"] == "HiHi"


def test_decode_in_small_chunks_matches(capsys: pytest.CaptureFixture[str]) -> None:
    main(["decode", str(EXAMPLE)])
    whole = capsys.readouterr().out
    main(["decode", "--chunk-size", "3", str(EXAMPLE)])
    assert capsys.readouterr().out == whole


def test_limit_error_exits_1_after_printing_earlier_events(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capture = tmp_path / "big.sse"
    capture.write_bytes(b"data: 1\n\ndata: 12345\n\n")
    assert main(["decode", "--max-line-bytes", "7", str(capture)]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out) == {"event": "message", "id": "", "retry": None, "data": "1"}
    assert "max_line_bytes=7" in err
    assert "byte offset 9" in err


def test_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decode", "/nonexistent/capture.sse"]) == 1
    assert "No such file" in capsys.readouterr().err


def test_stdin_and_module_entry_point() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "agentcodec", "decode", "-"],
        input=b"data: x\n\n",
        capture_output=True,
        check=True,
        env={**os.environ},
    )
    assert json.loads(result.stdout) == {"event": "message", "id": "", "retry": None, "data": "x"}


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert "agentcodec 0.1.0" in capsys.readouterr().out


def test_assemble_langchain(capsys: pytest.CaptureFixture[str]) -> None:
    capture = Path(__file__).resolve().parent / "fixtures" / "langchain" / "parallel_tool_calls.sse"
    assert main(["assemble", "--protocol", "langchain", str(capture)]) == 0
    (message,) = json.loads(capsys.readouterr().out)
    assert message["status"] == "completed"
    assert [block["type"] for block in message["content"]] == ["text", "tool_call", "tool_call"]


AGENTAPP = Path(__file__).resolve().parent / "fixtures" / "agentapp"


def test_convert_streams_from_stdin_to_stdout() -> None:
    process = (AGENTAPP / "agent_turn.process.sse").read_bytes()
    result = subprocess.run(
        [sys.executable, "-m", "agentcodec", "convert", "--from", "agentscope", "--to", "langchain"],
        input=process,
        capture_output=True,
        check=True,
        env={**os.environ},
    )
    import agentcodec.langchain

    transcoder = agentcodec.Transcoder("agentscope", "langchain")
    written = transcoder.feed(process) + transcoder.close()
    # (the same messages: the envelopes' timestamps are the time of writing)
    assembled = []
    for stream in (result.stdout, written):
        assembler = agentcodec.langchain.Assembler()
        assembler.feed(stream)
        assembled.append(assembler.close())
    assert assembled[0] == assembled[1]
    assert assembled[0][-1]["role"] == "ai"


def test_convert_stops_at_a_bad_event_after_what_came_before(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    capture = tmp_path / "bad.sse"
    capture.write_bytes(b'data: {"object":"response","id":"r","status":"created"}\n\ndata: nope\n\n')
    convert = ["convert", "--from", "agentscope", "--to", "langchain"]
    assert main([*convert, "--chunk-size", "60", str(capture)]) == 1
    captured = capsysbinary.readouterr()
    assert b'"event":"started"' in captured.out
    assert b"AgentScope event 2 is not valid JSON" in captured.err
    assert main([*convert, "--skip-errors", str(capture)]) == 0


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_assemble_prints_what_the_assembler_gives_and_convert_writes_a_readable_stream(
    protocol: str, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """Each protocol's recorded stream: `assemble` prints its assembler's
    result, and with --neutral the protocol-neutral view; `convert` into the
    next protocol writes a stream that protocol's assembler reads without an
    error (a binary framing too)."""
    row = TABLE[protocol]
    capture = FIXTURES / row.stream
    assert main(["assemble", "--protocol", protocol, str(capture)]) == 0
    assembler = _protocols.assembler(protocol)
    assembler.feed(row.recorded())
    assert json.loads(capsysbinary.readouterr().out) == json.loads(json.dumps(assembler.close()))
    assert main(["assemble", "--neutral", "--protocol", protocol, str(capture)]) == 0
    neutral = events.Assembler(protocol)
    neutral.feed(row.recorded())
    view = json.loads(capsysbinary.readouterr().out)
    assert view == json.loads(json.dumps(neutral.close()))
    assert view["protocol"] == protocol
    assert view["messages"]
    target = PROTOCOLS[(PROTOCOLS.index(protocol) + 1) % len(PROTOCOLS)]
    assert main(["convert", "--from", protocol, "--to", target, str(capture)]) == 0
    converted = _protocols.assembler(target)
    converted.feed(capsysbinary.readouterr().out)
    converted.close()
    assert converted.errors == []


def test_convert_leaves_out_the_tool_calls_the_agent_ran_when_told(
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """An agent's recorded run whose tool calls it answered, converted into a
    protocol whose clients run the calls they read: written by default,
    left out with ``--executed-tool-calls omit``."""
    capture = FIXTURES / "agentscope" / "builder_agent_turn.sse"
    # A target that writes calls and has no place for their results.
    target = next(
        name
        for name, row in TABLE.items()
        if "tool_result" in row.cannot_carry and "tool_call" not in row.cannot_carry
    )
    convert = ["convert", "--from", "agentscope", "--to", target, str(capture)]

    def calls(extra: list[str]) -> int:
        assert main([*convert, *extra]) == 0
        view = events.Assembler(target)
        view.feed(capsysbinary.readouterr().out)
        return sum(
            block["kind"] == "tool_call"
            for message in view.close()["messages"]
            for block in message["blocks"]
        )

    assert calls([]) > 0
    assert calls(["--executed-tool-calls", "omit"]) == 0


def test_decode_says_when_the_input_holds_no_events(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A JSON body, or nothing, decoded to no output and exit status 0."""
    for body in (b'{"a": 1}\n', b""):
        capture = tmp_path / "body.json"
        capture.write_bytes(body)
        assert main(["decode", str(capture)]) == 1
        captured = capsys.readouterr()
        assert captured.out == ""
        assert "no events: the input holds no Server-Sent Events" in captured.err


@pytest.mark.parametrize("protocol", [name for name in PROTOCOLS if name != "agentscope"])
def test_assemble_says_when_the_stream_is_not_the_protocols(
    protocol: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """An AgentScope stream read as another protocol's was once made into
    that protocol's result: it is refused (the first event that is not the
    protocol's, or at the end, that none was), with what was read printed
    all the same."""
    assert main(["assemble", "--protocol", protocol, str(EXAMPLE)]) == 1
    captured = capsys.readouterr()
    assert captured.err.startswith(f"agentcodec assemble: {EXAMPLE}: ")
    # (no type, or, for a protocol whose events are named, no stream mode)
    assert " 1 has no " in captured.err or ": the stream held no " in captured.err
    json.loads(captured.out)  # what was read: JSON all the same


def test_every_command_indents_a_whole_document_alike(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["assemble", "--protocol", "agentscope", str(EXAMPLE)]) == 0
    printed = capsys.readouterr().out
    assert printed == json.dumps(json.loads(printed), ensure_ascii=False, indent=2) + "\n"


def test_assemble_help_lists_the_protocols_in_a_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["assemble", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    # Listed from the registry, as a sentence: a new protocol needs no new help text.
    assert "one of: " + ", ".join(PROTOCOLS) in help_text
