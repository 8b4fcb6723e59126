"""The ``agentcodec`` command line.

``agentcodec decode [FILE]`` reads a captured ``text/event-stream`` (a file,
or standard input when FILE is omitted or ``-``) and prints its events as
JSON lines. ``agentcodec assemble --protocol agentscope [FILE]`` prints the
final response the stream assembles to (``--neutral``: the protocol-neutral
view). ``agentcodec convert --from agentscope --to langchain [FILE]``
converts a stream into another protocol's, writing it as it reads.

``agentcodec gateway [--upstream URL]`` serves one agent (an AgentScope
``/process`` server, or the built-in demo agent) as every protocol with a
gateway endpoint. ``agentcodec stream URL --protocol NAME --data JSON``
posts a request and prints the events of the stream it answers with as
they come.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import textwrap
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from . import (
    AgentCodecError,
    SSEDecoder,
    SSEEvent,
    SSELimitError,
    Transcoder,
    __version__,
    _protocols,
    backend,
    events,
)

__all__ = ["main"]

CHUNK_SIZE = 64 * 1024


# How the commands that print a whole JSON document indent it (the ones
# that print events write one compact JSON object a line).
_INDENT = 2


def _read_chunks(stream: BinaryIO, size: int) -> Iterator[bytes]:
    while True:
        chunk = stream.read(size)
        if not chunk:
            return
        yield chunk


def _event_json(event: SSEEvent, parse_json: bool) -> str:
    record: dict[str, object] = {"event": event.event, "id": event.id, "retry": event.retry}
    if parse_json:
        try:
            record["json"] = json.loads(event.data)
        except ValueError:
            # Not JSON (a "[DONE]" sentinel, say): kept as text, under its own key.
            record["data"] = event.data
    else:
        record["data"] = event.data
    return json.dumps(record, ensure_ascii=False)


def _limit(text: str) -> int | None:
    if text.lower() in ("none", "unlimited"):
        return None
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("a limit must not be negative")
    return value


def _seconds(text: str) -> float | None:
    if text.lower() == "none":
        return None
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError("a timeout is a positive number of seconds, or 'none'")
    return value


def _open(args: argparse.Namespace) -> tuple[BinaryIO, str]:
    if args.file in (None, "-"):
        return sys.stdin.buffer, "<stdin>"
    return open(args.file, "rb"), args.file


def _cmd_assemble(args: argparse.Namespace, out: TextIO) -> int:
    options: dict[str, Any] = {
        "on_error": "skip" if args.skip_errors else "raise",
        "max_line_bytes": args.max_line_bytes,
        "max_event_bytes": args.max_event_bytes,
    }
    assembler: Any
    if args.neutral:
        assembler = events.Assembler(args.protocol, **options)
    else:
        # The options only some protocols' assemblers take (their flags say whose).
        if args.protocol == "agentscope":
            options.update(data_merge=args.data_merge, strict=args.strict)
        elif args.protocol == "langchain":
            options.update(tool_args=args.tool_args)
        assembler = _protocols.assembler(args.protocol, **options)
    source, name = _open(args)
    status = 0
    try:
        with source:
            for chunk in _read_chunks(source, args.chunk_size):
                assembler.feed(chunk)
    except AgentCodecError as err:
        # What was assembled before the error is still printed.
        print(f"agentcodec assemble: {name}: {err}", file=sys.stderr)
        status = 1
    if status == 0:
        try:
            result = assembler.close()
        except AgentCodecError as err:
            # Nothing of the protocol came: what was read is printed all the same.
            print(f"agentcodec assemble: {name}: {err}", file=sys.stderr)
            status = 1
    if status != 0:
        result = assembler.result
    out.write(json.dumps(result, ensure_ascii=False, indent=_INDENT) + "\n")
    return status


def _cmd_convert(args: argparse.Namespace, out: TextIO) -> int:
    transcoder = Transcoder(
        args.source,
        args.target,
        on_error="skip" if args.skip_errors else "raise",
        on_loss="error" if args.fail_on_loss else "record",
        executed_tool_calls=args.executed_tool_calls,
        max_line_bytes=args.max_line_bytes,
        max_event_bytes=args.max_event_bytes,
    )
    sink = out.buffer if hasattr(out, "buffer") else None
    source, name = _open(args)
    reported = 0

    def write(data: bytes) -> None:
        nonlocal reported
        if sink is not None:
            sink.write(data)
            sink.flush()  # the target streams as the source does
        else:
            out.write(data.decode("utf-8"))
        # What the target could not carry, as it happens.
        losses = transcoder.losses
        for loss in losses[reported:]:
            print(f"agentcodec convert: {name}: event {loss['event']}: {loss['why']}", file=sys.stderr)
        reported = len(losses)

    try:
        with source:
            for chunk in _read_chunks(source, args.chunk_size):
                write(transcoder.feed(chunk))
            write(transcoder.close())
    except AgentCodecError as err:
        # What was converted before the chunk that failed is written already.
        print(f"agentcodec convert: {name}: {err}", file=sys.stderr)
        return 1
    return 0


def _cmd_decode(args: argparse.Namespace, out: TextIO) -> int:
    decoder = SSEDecoder(
        last_event_id=args.last_event_id,
        max_line_bytes=args.max_line_bytes,
        max_event_bytes=args.max_event_bytes,
    )
    source, name = _open(args)
    count = 0
    try:
        with source:
            for chunk in _read_chunks(source, args.chunk_size):
                for event in decoder.feed(chunk):
                    out.write(_event_json(event, args.json) + "\n")
                    count += 1
            for event in decoder.close():
                out.write(_event_json(event, args.json) + "\n")
                count += 1
    except SSELimitError as err:
        for event in err.events:
            out.write(_event_json(event, args.json) + "\n")
        print(f"agentcodec decode: {name}: {err}", file=sys.stderr)
        return 1
    if count == 0:
        print(
            f"agentcodec decode: {name}: no events: the input holds no Server-Sent Events "
            "(an event is lines such as 'data: ...', ended by an empty line)",
            file=sys.stderr,
        )
        return 1
    return 0


class _HelpFormatter(argparse.HelpFormatter):
    """Wraps help without breaking a hyphenated protocol name
    across lines, where it would read as two words."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return textwrap.fill(
            " ".join(text.split()),
            width,
            initial_indent=indent,
            subsequent_indent=indent,
            break_on_hyphens=False,
        )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agentcodec",
        formatter_class=_HelpFormatter,
        description="Fast, conformant codec for AI-agent streaming protocols.",
    )
    parser.add_argument(
        "--version", action="version", version=f"agentcodec {__version__} ({backend} backend)"
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    decode = commands.add_parser(
        "decode",
        formatter_class=_HelpFormatter,
        help="print the events of an SSE capture as JSON lines",
        description="Decode a captured text/event-stream and print one JSON object per event: "
        '{"event", "id", "retry", "data"}.',
    )
    decode.add_argument("file", nargs="?", help="the capture; standard input when omitted or '-'")
    decode.add_argument(
        "--json",
        action="store_true",
        help='parse each event\'s data as JSON, under "json" (data that is not JSON stays under "data")',
    )
    decode.add_argument("--last-event-id", default="", help="the last event ID to resume from")
    _add_limits(decode)
    decode.set_defaults(run=_cmd_decode)

    assemble = commands.add_parser(
        "assemble",
        formatter_class=_HelpFormatter,
        help="print what an agent stream assembles to, as JSON",
        description="Assemble a captured agent stream and print the result as JSON: the final "
        "object the protocol's own SDK gives (the AgentScope response, the LangChain protocol's "
        "messages, ...; with --neutral: the protocol-neutral view of any of them). What was still "
        'streaming when the capture ended is printed with status "incomplete".',
    )
    assemble.add_argument("file", nargs="?", help="the capture; standard input when omitted or '-'")
    assemble.add_argument(
        "--protocol",
        choices=events.PROTOCOLS,
        required=True,
        help="the stream's protocol, one of: %(choices)s",
    )
    assemble.add_argument(
        "--neutral", action="store_true", help="print the protocol-neutral view (messages of blocks)"
    )
    assemble.add_argument(
        "--data-merge",
        choices=["merge", "upstream"],
        default="merge",
        help="how data deltas merge: as users expect (default), or exactly as agentscope-runtime",
    )
    assemble.add_argument(
        "--strict", action="store_true", help="agentscope: reject unknown roles and content types"
    )
    assemble.add_argument(
        "--tool-args",
        choices=["strict", "auto"],
        default="strict",
        help="langchain: block-delta args replace (strict, the spec) or may be fragments to append (auto)",
    )
    assemble.add_argument(
        "--skip-errors", action="store_true", help="skip events that are not JSON objects instead of stopping"
    )
    _add_limits(assemble)
    assemble.set_defaults(run=_cmd_assemble)

    convert = commands.add_parser(
        "convert",
        formatter_class=_HelpFormatter,
        help="convert an agent stream into another protocol's, as it streams",
        description="Convert a captured or live agent stream into another protocol's SSE stream, "
        "writing each event as soon as the input completes it.",
    )
    convert.add_argument("file", nargs="?", help="the stream; standard input when omitted or '-'")
    convert.add_argument(
        "--from", dest="source", choices=events.PROTOCOLS, required=True, help="its protocol"
    )
    convert.add_argument("--to", dest="target", choices=events.PROTOCOLS, required=True, help="the output's")
    convert.add_argument(
        "--skip-errors", action="store_true", help="skip events that cannot be read instead of stopping"
    )
    convert.add_argument(
        "--fail-on-loss",
        action="store_true",
        help="stop at what the target cannot carry instead of reporting it on stderr and going on",
    )
    convert.add_argument(
        "--executed-tool-calls",
        choices=("write", "omit"),
        default="write",
        help="'omit': leave out the tool calls the agent ran itself (a server's, or one whose result "
        "the stream holds), which a client that runs the calls it reads would run again "
        "(default: %(default)s)",
    )
    _add_limits(convert)
    convert.set_defaults(run=_cmd_convert)

    gateway = commands.add_parser(
        "gateway",
        formatter_class=_HelpFormatter,
        help="serve one agent as /process and every protocol with a gateway endpoint "
        "(needs agentcodec[gateway])",
        description="Front an AgentScope Agent API server (POST /process) and serve the same agent as "
        "/process and as every protocol with a gateway endpoint ("
        + ", ".join(name for name in events.PROTOCOLS if _protocols.has_gateway_endpoint(name))
        + "; docs/guides/gateway.md lists their routes), converting every stream as it arrives; a client "
        "that drops resumes with Last-Event-ID. Without --upstream, a built-in demo agent answers.",
    )
    gateway.add_argument("--upstream", metavar="URL", help="the agent's /process URL (or its base URL)")
    gateway.add_argument(
        "--upstream-header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="send this header with every request to the upstream (repeatable): its credentials, "
        "which do not belong in its URL",
    )
    gateway.add_argument(
        "--forward-header",
        action="append",
        metavar="NAME",
        help="forward this header of a client's request to the upstream (repeatable; 'none' for no "
        "header; default: authorization, cookie, x-request-id, traceparent, tracestate)",
    )
    gateway.add_argument(
        "--api-key",
        action="append",
        default=[],
        metavar="KEY",
        help="a key clients must send (Authorization: Bearer KEY, or X-Api-Key: KEY); repeatable. "
        "Also read from --api-keys-file and AGENTCODEC_GATEWAY_API_KEYS (comma-separated). "
        "Without any, the gateway takes every request",
    )
    gateway.add_argument("--api-keys-file", metavar="PATH", help="a file of keys, one a line")
    gateway.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="let browser pages from this origin call the gateway (repeatable; * for any). "
        "Without any, nothing cross-origin",
    )
    gateway.add_argument(
        "--max-body-bytes",
        type=_limit,
        default=argparse.SUPPRESS,
        metavar="N",
        help="largest request body taken, refused with 413 past it ('none' for no limit; "
        "default: Gateway's, 16 MiB)",
    )
    gateway.add_argument(
        "--max-runs",
        type=_limit,
        default=None,
        metavar="N",
        help="runs going on at once, past which a request is answered 429 (default: no limit)",
    )
    gateway.add_argument(
        "--max-runs-per-key",
        type=_limit,
        default=None,
        metavar="N",
        help="the same, for the runs of one API key (default: no limit)",
    )
    for name, default, what in (
        ("connect", "10", "for a connection to the upstream"),
        ("first-byte", "120", "from a request to the upstream's first event"),
        ("idle", "300", "between two of the upstream's events (keep-alive comments are none)"),
        ("run", "3600", "for a whole run"),
        ("send", "30", "for a client to take a write; one that stops reading is let go"),
        ("abandoned", "60", "for a client to come back to a run it left, before the run is cancelled"),
    ):
        gateway.add_argument(
            f"--{name}-timeout",
            type=_seconds,
            default=argparse.SUPPRESS,
            metavar="SECONDS",
            help=f"how long to wait {what} ('none' for no limit; default: {default})",
        )
    gateway.add_argument("--host", default="127.0.0.1", help="bind to this host (default: %(default)s)")
    gateway.add_argument("--port", type=int, default=8000, help="bind to this port (default: %(default)s)")
    gateway.add_argument("--uds", metavar="PATH", help="bind to this Unix domain socket")
    gateway.add_argument("--fd", type=int, metavar="N", help="serve on this open socket's file descriptor")
    gateway.add_argument(
        "--redis",
        metavar="URL",
        help="keep streams in Redis (redis://...), so that replicas resume each other's (default: in memory)",
    )
    gateway.add_argument(
        "--store-max-bytes",
        type=_limit,
        default=argparse.SUPPRESS,
        metavar="N",
        help="the in-memory store's budget: past it the oldest finished streams, then the oldest "
        "events, are forgotten ('none' for no budget; default: 256 MiB)",
    )
    gateway.add_argument(
        "--ping-interval",
        type=float,
        default=15.0,
        metavar="SECONDS",
        help="keep-alive comment interval on quiet streams (default: %(default)s)",
    )
    gateway.add_argument(
        "--demo-delay",
        type=float,
        default=0.03,
        metavar="SECONDS",
        help="the demo agent's pause between tokens (default: %(default)s)",
    )
    gateway.add_argument("--log-level", default="info", help="uvicorn's log level (default: %(default)s)")
    gateway.add_argument(
        "--access-log",
        choices=("text", "json", "off"),
        default="text",
        help="a line for each request once its response ends: its method, path, status, time, and a "
        "stream's protocol and events; json writes each as a JSON object (default: %(default)s)",
    )
    gateway.set_defaults(run=_cmd_gateway)

    stream = commands.add_parser(
        "stream",
        formatter_class=_HelpFormatter,
        help="post a request and print the events of the stream it answers with (needs httpx)",
        description="POST a JSON request to URL and print the events of the stream that answers it as "
        "JSON lines as they arrive (with --assemble, then what they assemble to); a dropped connection "
        "is resumed with Last-Event-ID.",
    )
    stream.add_argument("url", help="the endpoint, e.g. http://127.0.0.1:8000/process")
    stream.add_argument("--protocol", choices=events.PROTOCOLS, required=True, help="the stream's protocol")
    stream.add_argument(
        "--data",
        default="{}",
        metavar="JSON",
        help="the request body (default: {}); @FILE reads it from a file, @- from standard input",
    )
    stream.add_argument("--assemble", action="store_true", help="print the assembled result last")
    stream.set_defaults(run=_cmd_stream)
    return parser


class _JSONLines(logging.Formatter):
    """A log record as one JSON object a line: its time, level and message,
    and the fields the access log gives as attributes."""

    FIELDS = ("method", "path", "status", "duration_ms", "protocol", "events", "client", "request_id")

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"),
            "level": record.levelname.lower(),
            "message": record.getMessage(),
        }
        entry.update({name: getattr(record, name) for name in self.FIELDS if hasattr(record, name)})
        return json.dumps(entry, ensure_ascii=False)


def _access_log(form: str, level: str) -> None:
    """Sends the gateway's access log to stderr, as text or JSON lines, at
    the server's log level; ``off`` sends it nowhere."""
    from .gateway._access import access_logger  # noqa: PLC0415

    access_logger.propagate = False
    if form == "off":
        access_logger.disabled = True
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_JSONLines() if form == "json" else logging.Formatter("%(asctime)s %(message)s"))
    access_logger.addHandler(handler)
    access_logger.setLevel("DEBUG" if level.lower() == "trace" else level.upper())


def _cmd_gateway(args: argparse.Namespace, out: TextIO) -> int:
    try:  # the gateway's extra, imported only by the command that needs it
        import uvicorn  # noqa: PLC0415

        from .gateway import DemoAgent, Gateway, ProcessUpstream, Timeouts  # noqa: PLC0415
        from .server import MemoryReplayStore, RedisReplayStore, ReplayStore  # noqa: PLC0415
    except ImportError as err:
        print(
            f"agentcodec gateway needs its extra: pip install 'agentcodec[gateway]' ({err})", file=sys.stderr
        )
        return 1
    if args.redis and "store_max_bytes" in vars(args):
        print(
            "agentcodec gateway: --store-max-bytes is the memory store's: Redis's is its maxmemory",
            file=sys.stderr,
        )
        return 2
    try:
        store: ReplayStore | None = (
            RedisReplayStore(args.redis)
            if args.redis
            else MemoryReplayStore(max_bytes=args.store_max_bytes)
            if "store_max_bytes" in vars(args)
            else None
        )
    except ImportError as err:
        print(
            f"agentcodec gateway --redis needs redis: pip install 'agentcodec[redis]' ({err})",
            file=sys.stderr,
        )
        return 1
    except ValueError as err:  # a URL redis-py cannot read, or a budget of 0
        where = f"--redis {args.redis!r}" if args.redis else "--store-max-bytes"
        print(f"agentcodec gateway: {where}: {err}", file=sys.stderr)
        return 2
    headers: dict[str, str] = {}
    for header in args.upstream_header:
        name, colon, value = header.partition(":")
        if not colon or not name.strip():
            print(f"agentcodec gateway: --upstream-header {header!r} is not 'NAME: VALUE'", file=sys.stderr)
            return 2
        headers[name.strip().lower()] = value.strip()
    if headers and not args.upstream:
        print("agentcodec gateway: --upstream-header needs --upstream", file=sys.stderr)
        return 2
    if args.forward_header is not None and not args.upstream:
        print("agentcodec gateway: --forward-header needs --upstream", file=sys.stderr)
        return 2
    timeouts = Timeouts(
        **{
            name: vars(args)[f"{name}_timeout"]
            for name in ("connect", "first_byte", "idle", "run", "send", "abandoned")
            if f"{name}_timeout" in vars(args)
        }
    )
    try:
        upstream = (
            ProcessUpstream(
                args.upstream,
                headers=headers,
                timeout=None,
                connect_timeout=timeouts.connect,
                **(
                    {"forward_headers": [name for name in args.forward_header if name.lower() != "none"]}
                    if args.forward_header is not None
                    else {}
                ),
            )
            if args.upstream
            else DemoAgent(delay=args.demo_delay)
        )
    except ValueError as err:  # credentials in the URL
        print(f"agentcodec gateway: --upstream: {err}", file=sys.stderr)
        return 2
    keys = list(args.api_key)
    keys += [
        key.strip() for key in os.environ.get("AGENTCODEC_GATEWAY_API_KEYS", "").split(",") if key.strip()
    ]
    if args.api_keys_file:
        try:
            with open(args.api_keys_file, encoding="utf-8") as lines:
                keys += [line.strip() for line in lines if line.strip() and not line.startswith("#")]
        except OSError as err:
            print(f"agentcodec gateway: --api-keys-file: {err}", file=sys.stderr)
            return 2
    app = Gateway(
        upstream,
        store=store,
        ping_interval=args.ping_interval,
        api_keys=keys or None,
        cors_origins=args.cors_origin or None,
        timeouts=timeouts,
        max_runs=args.max_runs or None,
        max_runs_per_key=args.max_runs_per_key or None,
        # Given or not: the gateway's own default stands unless the flag is.
        **({"max_body_bytes": args.max_body_bytes} if "max_body_bytes" in vars(args) else {}),
    )
    where = args.uds or (f"fd {args.fd}" if args.fd is not None else f"http://{args.host}:{args.port}")
    print(
        f"agentcodec gateway: serving {args.upstream or 'the demo agent'} on {where}",
        file=sys.stderr,
        flush=True,
    )
    _access_log(args.access_log, args.log_level)
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        uds=args.uds,
        fd=args.fd,
        log_level=args.log_level,
        access_log=False,  # the gateway's own, which knows a stream's protocol and events
        lifespan="on",
        timeout_graceful_shutdown=5,
    )

    class DrainingServer(uvicorn.Server):
        """On SIGTERM or SIGINT, the gateway's runs end first (each stream
        with its protocol's error event, recorded as ended), so that the
        connections the server then waits for close on their own."""

        def handle_exit(self, sig: int, frame: Any) -> None:
            app.request_stop()
            super().handle_exit(sig, frame)

    DrainingServer(config).run()
    return 0


def _cmd_stream(args: argparse.Namespace, out: TextIO) -> int:
    try:  # httpx is the command's own dependency, not the package's
        import httpx  # noqa: PLC0415

        from .client import connect  # noqa: PLC0415
    except ImportError as err:
        print(f"agentcodec stream needs httpx: pip install httpx ({err})", file=sys.stderr)
        return 1
    try:
        text = args.data
        if text.startswith("@"):
            text = sys.stdin.read() if text == "@-" else Path(text[1:]).read_text(encoding="utf-8")
        body = json.loads(text)
    except ValueError as err:
        print(f"agentcodec stream: --data is not JSON: {err}", file=sys.stderr)
        return 2
    try:
        with (
            httpx.Client(timeout=httpx.Timeout(60.0, connect=10.0)) as client,
            connect(client, "POST", args.url, protocol=args.protocol, json=body) as stream,
        ):
            for event in stream:
                out.write(json.dumps(event, ensure_ascii=False) + "\n")
                out.flush()
            if args.assemble:
                out.write(json.dumps(stream.until_done(), ensure_ascii=False, indent=_INDENT) + "\n")
    except httpx.HTTPStatusError as err:
        print(f"agentcodec stream: {err.response.status_code} {err.response.text}", file=sys.stderr)
        return 1
    except (httpx.HTTPError, AgentCodecError) as err:
        print(f"agentcodec stream: {err}", file=sys.stderr)
        return 1
    return 0


def _add_limits(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--max-line-bytes",
        type=_limit,
        default=SSEDecoder().max_line_bytes,
        metavar="N",
        help="longest line accepted ('none' for no limit)",
    )
    command.add_argument(
        "--max-event-bytes",
        type=_limit,
        default=SSEDecoder().max_event_bytes,
        metavar="N",
        help="largest event data accepted ('none' for no limit)",
    )
    command.add_argument("--chunk-size", type=int, default=CHUNK_SIZE, metavar="N", help=argparse.SUPPRESS)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        status = int(args.run(args, sys.stdout))
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (piped into `head`, say): stop quietly, and
        # keep the interpreter from failing to flush stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as err:
        print(f"agentcodec {args.command}: {err}", file=sys.stderr)
        return 1
    return status
