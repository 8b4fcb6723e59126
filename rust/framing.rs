//! How a stream is framed: SSE, or the framing a protocol may send instead
//! (NDJSON lines, a streamed JSON array, the AWS event stream), told by the
//! stream's first byte that is not white space (nor a BOM): `{` or `[`
//! opens JSON, a zero byte an event stream message (the top byte of its
//! length), where SSE lines open with a field name or `:`. A protocol whose
//! SSE event names say what each event is (a stream mode, say) reads SSE
//! alone, each event with its name.

use std::fmt;

use crate::eventstream::{self, FrameError, Message};
use crate::json::push_string;
use crate::json_array;
use crate::ndjson::{self, is_white_space, BOM};
use crate::sse::{self, LimitError, Limits};

/// The framing a protocol's streams may have besides SSE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A JSON text a line (NDJSON).
    Lines,
    /// One JSON array, streamed element by element.
    Array,
    /// The AWS event stream: each message is given as the JSON
    /// its event is in the service's model, `{"<event type>": <payload>}`
    /// (an exception's type, or `error` for an error message, in its place).
    EventStream,
    /// SSE alone, whose event names say what each event is: each is given as
    /// `{"event": <name>, "data": <data>}` ([`named_text`]).
    Named,
}

/// Why a framing stops reading: a limit, or a message it cannot read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FramingError {
    Limit(LimitError),
    Frame(FrameError),
}

impl From<LimitError> for FramingError {
    fn from(err: LimitError) -> Self {
        FramingError::Limit(err)
    }
}

impl fmt::Display for FramingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FramingError::Limit(err) => err.fmt(f),
            FramingError::Frame(err) => err.fmt(f),
        }
    }
}

/// An SSE event as a named protocol's code reads it: `{"event": <name>,
/// "data": <data>}`, its data put in as it is; a blank one (a keep-alive)
/// stays blank, and `[DONE]` stays itself. `_pure/sse_decoder.py`'s `named_text` writes the same.
pub fn named_text(event: &sse::Event<'_>) -> Option<String> {
    if crate::stream::is_blank(event.data) || crate::stream::is_done_marker(event.data) {
        return None;
    }
    let name = if event.event.is_empty() {
        "message"
    } else {
        event.event
    };
    let mut text = String::with_capacity(event.data.len() + name.len() + 21);
    text.push_str("{\"event\":");
    push_string(&mut text, name);
    text.push_str(",\"data\":");
    text.push_str(event.data);
    text.push('}');
    Some(text)
}

/// An event stream message as the JSON text of its event.
pub fn event_text(message: &Message<'_>) -> String {
    // Written piece by piece into one string sized for it: this runs once a
    // message, and `format!` with a `Value` made for each name cost more
    // than reading the event did.
    let wrapped = |name: &str| {
        let payload = String::from_utf8_lossy(message.payload);
        let payload = if payload.trim().is_empty() {
            "{}"
        } else {
            &payload
        };
        let mut text = String::with_capacity(payload.len() + name.len() + 5);
        text.push('{');
        push_string(&mut text, name);
        text.push(':');
        text.push_str(payload);
        text.push('}');
        text
    };
    match message.header_str(":message-type") {
        Some("exception") => wrapped(message.header_str(":exception-type").unwrap_or("exception")),
        Some("error") => {
            let code = message.header_str(":error-code").unwrap_or("");
            let message = message.header_str(":error-message").unwrap_or("");
            let mut text = String::with_capacity(code.len() + message.len() + 32);
            text.push_str("{\"error\":{\"code\":");
            push_string(&mut text, code);
            text.push_str(",\"message\":");
            push_string(&mut text, message);
            text.push_str("}}");
            text
        }
        _ => wrapped(message.header_str(":event-type").unwrap_or("")),
    }
}

/// A stream's reader, once its framing is known.
// One a reader, held inline: SSE, the usual case, is not put behind a box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Framing {
    Sse(sse::Decoder),
    /// SSE whose events are given with their names ([`Kind::Named`]).
    Named(sse::Decoder),
    Lines(ndjson::Decoder),
    Array(json_array::Decoder),
    EventStream(eventstream::Decoder),
    /// Not known yet: the white space the stream opened with, held.
    Undecided {
        limits: Limits,
        kind: Kind,
        held: Vec<u8>,
    },
}

/// White space held before a stream says its framing: past this, it is SSE
/// (whose reader bounds what it keeps).
const MOST_HELD: usize = 4096;

impl Framing {
    /// SSE alone.
    pub fn sse(limits: Limits) -> Self {
        Framing::Sse(sse::Decoder::new(limits))
    }

    /// SSE or the framing of `kind`, as the stream's first byte says (SSE
    /// with its names at once, for [`Kind::Named`]).
    pub fn sniffing(limits: Limits, kind: Kind) -> Self {
        if kind == Kind::Named {
            return Framing::Named(sse::Decoder::new(limits));
        }
        Framing::Undecided {
            limits,
            kind,
            held: Vec::new(),
        }
    }

    /// Feeds one chunk; `on_event` is called with every event's text (an
    /// SSE event's data, a JSON line, an array's element, an event stream
    /// message's event as JSON).
    #[inline]
    pub fn feed(
        &mut self,
        chunk: &[u8],
        mut on_event: impl FnMut(&str),
    ) -> Result<(), FramingError> {
        match self {
            Framing::Sse(decoder) => Ok(decoder.feed(chunk, |event| on_event(event.data))?),
            Framing::Named(decoder) => {
                Ok(decoder.feed(chunk, |event| match named_text(&event) {
                    Some(text) => on_event(&text),
                    None => on_event(event.data),
                })?)
            }
            Framing::Lines(decoder) => Ok(decoder.feed(chunk, on_event)?),
            Framing::Array(decoder) => Ok(decoder.feed(chunk, on_event)?),
            Framing::EventStream(decoder) => decoder
                .feed(chunk, |message| on_event(&event_text(message)))
                .map_err(FramingError::Frame),
            Framing::Undecided { .. } => self.decide(chunk, on_event),
        }
    }

    #[cold]
    fn decide(&mut self, chunk: &[u8], on_event: impl FnMut(&str)) -> Result<(), FramingError> {
        let Framing::Undecided { limits, kind, held } = self else {
            unreachable!("only an undecided framing decides")
        };
        held.extend_from_slice(chunk);
        let opening = held.strip_prefix(&BOM).unwrap_or(held);
        let first = if held.len() < BOM.len() && BOM.starts_with(held) {
            None
        } else {
            opening.iter().copied().find(|&byte| !is_white_space(byte))
        };
        let waiting = held.len() < MOST_HELD;
        let decided = match (first, *kind) {
            (Some(b'{' | b'['), Kind::Lines) => Framing::Lines(ndjson::Decoder::new(*limits)),
            (Some(b'{' | b'['), Kind::Array) => Framing::Array(json_array::Decoder::new(*limits)),
            (Some(0), Kind::EventStream) => {
                Framing::EventStream(eventstream::Decoder::new(limits.max_event_bytes))
            }
            (Some(_), _) => Framing::sse(*limits),
            // White space, or a BOM split across chunks: wait, within reason.
            (None, _) if waiting => return Ok(()),
            (None, _) => Framing::sse(*limits),
        };
        let held = std::mem::take(held);
        *self = decided;
        self.feed(&held, on_event)
    }

    /// Ends the stream (see each decoder's `close`).
    pub fn close(&mut self, mut on_event: impl FnMut(&str)) -> Result<(), FramingError> {
        match self {
            Framing::Sse(decoder) => Ok(decoder.close(|event| on_event(event.data))?),
            Framing::Named(decoder) => Ok(decoder.close(|event| match named_text(&event) {
                Some(text) => on_event(&text),
                None => on_event(event.data),
            })?),
            Framing::Lines(decoder) => Ok(decoder.close(on_event)?),
            Framing::Array(decoder) => Ok(decoder.close(on_event)?),
            Framing::EventStream(decoder) => decoder.close().map_err(FramingError::Frame),
            Framing::Undecided { held, .. } => {
                held.clear();
                Ok(())
            }
        }
    }

    /// The last event ID an SSE stream set ("" for the others).
    pub fn last_event_id(&self) -> &str {
        match self {
            Framing::Sse(decoder) | Framing::Named(decoder) => decoder.last_event_id(),
            _ => "",
        }
    }

    /// The reconnection time an SSE stream set.
    pub fn retry(&self) -> Option<u64> {
        match self {
            Framing::Sse(decoder) | Framing::Named(decoder) => decoder.retry(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(chunks: &[&[u8]], kind: Kind) -> Vec<String> {
        let mut framing = Framing::sniffing(Limits::default(), kind);
        let mut out = Vec::new();
        for chunk in chunks {
            framing
                .feed(chunk, |text| out.push(text.to_owned()))
                .unwrap();
        }
        framing.close(|text| out.push(text.to_owned())).unwrap();
        out
    }

    #[test]
    fn the_first_byte_tells_the_framing() {
        for kind in [Kind::Lines, Kind::Array] {
            for (chunks, expected) in [
                (&[&b"\xEF\xBB"[..], b"\xBF \n{\"a\":1}\n"][..], "{\"a\":1}"),
                (&[&b"  \n"[..], b"data: {\"a\":1}\n\n"][..], "{\"a\":1}"),
                (&[&b""[..], b": hi\n\ndata: [DONE]\n\n"][..], "[DONE]"),
            ] {
                assert_eq!(framed(chunks, kind), [expected]);
            }
        }
        let array: &[&[u8]] = &[b"\r\n[{\"a\":", b"\n 1},\r\n{\"b\":2}]"];
        assert_eq!(framed(array, Kind::Array), ["{\"a\":\n 1}", "{\"b\":2}"]);
        // Lines read the same bytes as lines.
        assert_eq!(
            framed(array, Kind::Lines),
            ["[{\"a\":", " 1},", "{\"b\":2}]"]
        );
    }
}
