"""Conformance vectors for the SSE decoder, written from the rules of the
WHATWG "parsing an event stream" algorithm.

Each vector is a whole stream and what a conformant decoder yields for it:
the events as ``(type, data, last event id, retry in the block)`` and, after
``close()``, the decoder's ``last_event_id`` and ``retry``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Event = tuple[str, str, str, "int | None"]


@dataclass(frozen=True)
class Vector:
    name: str
    stream: bytes
    events: list[Event]
    last_event_id: str = ""
    retry: int | None = None
    start_id: str = field(default="")


def m(data: str, id: str = "", event: str = "message", retry: int | None = None) -> Event:
    return (event, data, id, retry)


VECTORS = [
    # Line ends
    Vector("lf", b"data: a\n\n", [m("a")]),
    Vector("crlf", b"data: a\r\n\r\n", [m("a")]),
    Vector("cr", b"data: a\r\r", [m("a")]),
    Vector("mixed_line_ends", b"data: a\rdata: b\ndata: c\r\n\r\n", [m("a\nb\nc")]),
    Vector("lf_cr_is_two_line_ends", b"data: a\n\rdata: b\n\n", [m("a"), m("b")]),
    Vector("cr_cr_lf", b"data: a\r\r\ndata: b\r\n\r\n", [m("a"), m("b")]),
    Vector("crlf_then_cr", b"data: a\r\n\rdata: b\r\r", [m("a"), m("b")]),
    Vector("trailing_cr_at_eof_ends_line", b"data: a\n\r", [m("a")]),
    Vector(
        "unicode_separators_do_not_end_lines",
        "data: a\u2028b\u2029c\x85d\x0be\x0cf\x1cg\n\n".encode(),
        [m("a\u2028b\u2029c\x85d\x0be\x0cf\x1cg")],
    ),
    # BOM
    Vector("bom", b"\xef\xbb\xbfdata: 1\n\n", [m("1")]),
    Vector(
        "bom_only_at_start", b"\xef\xbb\xbfdata: 1\n\n\xef\xbb\xbfdata: 2\n\ndata: 3\n\n", [m("1"), m("3")]
    ),
    Vector("bom_double", b"\xef\xbb\xbf\xef\xbb\xbfdata: 1\n\ndata: 2\n\n", [m("2")]),
    Vector("bom_partial_is_content", b"\xef\xbbdata: 1\n\ndata: 2\n\n", [m("2")]),
    Vector("bom_lookalike_prefix", b"\xefdata: 1\n\ndata: 2\n\n", [m("2")]),
    Vector("bom_alone", b"\xef\xbb\xbf", []),
    Vector("partial_bom_alone", b"\xef\xbb", []),
    Vector("bom_then_blank", b"\xef\xbb\xbf\ndata: x\n\n", [m("x")]),
    # Comments
    Vector("comment_only", b": ping\n\n", []),
    Vector(
        "comments_everywhere",
        b"data:1\r:\0\n:\r\ndata:2\n:"
        + b"x" * 2048
        + b"\rdata:3\n:data:fail\r:"
        + b"x" * 2048
        + b"\ndata:4\n\n",
        [m("1\n2\n3\n4")],
    ),
    Vector("colon_only_line", b":\ndata: a\n\n", [m("a")]),
    # Field and value split
    Vector("no_space", b"data:a\n\n", [m("a")]),
    Vector("one_space_removed", b"data: a\n\n", [m("a")]),
    Vector("second_space_kept", b"data:  a\n\n", [m(" a")]),
    Vector("tab_kept", b"data:\ta\n\n", [m("\ta")]),
    Vector("trailing_space_kept", b"data: a \n\n", [m("a ")]),
    Vector("colon_in_value", b"data: a:b: c\n\n", [m("a:b: c")]),
    Vector("field_without_colon", b"data\n\n", [m("")]),
    Vector("spec_example_data_forms", b"data:\n\ndata\ndata\n\ndata:test\n\n", [m(""), m("\n"), m("test")]),
    Vector("empty_data_dispatches", b"data:\n\n", [m("")]),
    Vector("field_names_are_case_sensitive", b"Data: x\nDATA: y\ndata : z\n data: w\n\n", []),
    Vector("unknown_fields_ignored", b"foo: bar\ndata: a\nbaz\n\n", [m("a")]),
    Vector("multiline_data", b"data: a\ndata: b\ndata: \ndata: c\n\n", [m("a\nb\n\nc")]),
    Vector("nul_in_data_kept", b"data:\0\n\n", [m("\0")]),
    Vector("json_with_u2028", '{"t":"a\u2028b"}'.join(["data: ", "\n\n"]).encode(), [m('{"t":"a\u2028b"}')]),
    # event
    Vector("event_type", b"event: add\ndata: 1\n\n", [m("1", event="add")]),
    Vector("event_type_resets", b"event:test\ndata:x\n\ndata:x\n\n", [m("x", event="test"), m("x")]),
    Vector("empty_event_is_message", b"event: \ndata: data\n\n", [m("data")]),
    Vector("last_event_field_wins", b"event: a\nevent: b\ndata: 1\n\n", [m("1", event="b")]),
    Vector("event_without_data_is_not_dispatched", b"event: a\n\ndata: 1\n\n", [m("1")]),
    Vector("event_name_with_spaces", b"event:  spaced name \ndata: 1\n\n", [m("1", event=" spaced name ")]),
    # id
    Vector("id_persists", b"id: 1\ndata: 1\n\ndata: 2\n\n", [m("1", "1"), m("2", "1")], last_event_id="1"),
    Vector(
        "id_changes_and_persists",
        b"id: 1\ndata: 1\n\nid: 2\ndata: 2\n\ndata: 3\n\n",
        [m("1", "1"), m("2", "2"), m("3", "2")],
        last_event_id="2",
    ),
    Vector(
        "id_reset_by_empty", b"id: 1\ndata: 1\n\nid:\ndata: 2\n\ndata: 3\n\n", [m("1", "1"), m("2"), m("3")]
    ),
    Vector("id_reset_without_colon", b"id: 1\ndata: 1\n\nid\ndata: 2\n\n", [m("1", "1"), m("2")]),
    Vector(
        "id_with_nul_ignored",
        b"id: 1\ndata: 1\n\nid: 2\x003\ndata: 2\n\n",
        [m("1", "1"), m("2", "1")],
        last_event_id="1",
    ),
    Vector("id_nul_only_ignored", b"id: \0\0\ndata: hello\n\n", [m("hello")]),
    Vector("id_only_block_commits", b"id: 7\n\n", [], last_event_id="7"),
    Vector(
        "comment_after_id_no_phantom", b"id: 1\ndata: a\n\n: ping\n\n\n\n", [m("a", "1")], last_event_id="1"
    ),
    Vector("id_after_data_same_block", b"data: a\nid: 5\n\n", [m("a", "5")], last_event_id="5"),
    Vector(
        "unterminated_id_not_committed",
        b"retry:1000\ndata:test1\n\nid:test\ndata:test2\n",
        [m("test1", retry=1000)],
        retry=1000,
    ),
    Vector("id_utf8", "id: \u2026\ndata: x\n\n".encode(), [m("x", "\u2026")], last_event_id="\u2026"),
    Vector("id_from_constructor", b"data: a\n\n", [m("a", "42")], last_event_id="42", start_id="42"),
    # retry
    Vector("retry_sets_reconnection", b"retry: 2000\ndata: a\n\n", [m("a", retry=2000)], retry=2000),
    Vector("retry_leading_zeros_decimal", b"retry: 02000\n\n", [], retry=2000),
    Vector("retry_bogus_ignored", b"retry:2000\nretry:1000x\ndata: a\n\n", [m("a", retry=2000)], retry=2000),
    Vector(
        "retry_invalid_forms",
        "retry: +5\nretry: -1\nretry:  7\nretry: 1_000\nretry: \u0663\nretry: 1.5\n"
        "retry:\nretry\n\n".encode(),
        [],
    ),
    Vector("retry_overflow_ignored", b"retry: 5\nretry: 99999999999999999999999\n\n", [], retry=5),
    Vector("retry_just_over_u64_ignored", b"retry: 7\nretry: 18446744073709551616\n\n", [], retry=7),
    Vector("retry_u64_max", b"retry: 18446744073709551615\n\n", [], retry=18446744073709551615),
    Vector("retry_in_unterminated_block_counts", b"data: a\n\nretry: 300\ndata: b\n", [m("a")], retry=300),
    Vector("retry_only_block_no_event", b"retry: 10\n\ndata: a\n\n", [m("a")], retry=10),
    # End of stream
    Vector("unterminated_event_discarded", b"data: a\n\ndata: b", [m("a")]),
    Vector("unterminated_after_line_end_discarded", b"data: a\n\ndata: b\n", [m("a")]),
    Vector("empty_stream", b"", []),
    Vector("blank_lines_only", b"\n\n\r\n\r\r", []),
    # UTF-8
    Vector("invalid_utf8_replaced", b"data: a\xffb\n\n", [m("a\ufffdb")]),
    Vector("utf8_truncated_before_lf", b"data: \xe2\x82\ndata: x\n\n", [m("\ufffd\nx")]),
    Vector(
        "utf8_maximal_subpart", b"data: \xf0\x9f\x98\xe2\x82\xac\xc0\xaf\n\n", [m("\ufffd\u20ac\ufffd\ufffd")]
    ),
    Vector("surrogate_bytes_replaced", b"data: \xed\xa0\x80\n\n", [m("\ufffd\ufffd\ufffd")]),
    Vector(
        "multibyte_characters",
        "data: h\u00e9llo \u4e16\u754c \U0001f600\n\n".encode(),
        [m("h\u00e9llo \u4e16\u754c \U0001f600")],
    ),
    Vector("invalid_utf8_in_event_name", b"event: a\xffb\ndata: 1\n\n", [m("1", event="a\ufffdb")]),
    # Realistic streams
    Vector(
        "openai_style",
        b'data: {"choices":[{"delta":{"content":"Hel"}}]}\n\n'
        b'data: {"choices":[{"delta":{"content":"lo"}}]}\n\ndata: [DONE]\n\n',
        [
            m('{"choices":[{"delta":{"content":"Hel"}}]}'),
            m('{"choices":[{"delta":{"content":"lo"}}]}'),
            m("[DONE]"),
        ],
    ),
    Vector(
        "sse_starlette_style",
        b"id: 1\r\nevent: token\r\ndata: a\r\n\r\n: ping - 2026-01-01 00:00:00\r\n\r\n"
        b"id: 2\r\nevent: token\r\ndata: b\r\nretry: 15000\r\n\r\n",
        [m("a", "1", "token"), m("b", "2", "token", 15000)],
        last_event_id="2",
        retry=15000,
    ),
]
