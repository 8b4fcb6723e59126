//! How a stream is framed: SSE, or the JSON framing a protocol may send
//! instead (NDJSON lines, a streamed JSON array), told by the stream's
//! first byte that is not white space (nor a BOM): `{` or `[` opens JSON,
//! where SSE lines open with a field name or `:`.

use crate::json_array;
use crate::ndjson::{self, is_white_space, BOM};
use crate::sse::{self, LimitError, Limits};

/// The framing a protocol's streams may have besides SSE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonFraming {
    /// A JSON text a line (Ollama).
    Lines,
    /// One JSON array, streamed element by element (Gemini without `alt=sse`).
    Array,
}

/// A stream's reader, once its framing is known.
// One a reader, held inline: SSE, the usual case, is not put behind a box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Framing {
    Sse(sse::Decoder),
    Lines(ndjson::Decoder),
    Array(json_array::Decoder),
    /// Not known yet: the white space the stream opened with, held.
    Undecided {
        limits: Limits,
        json: JsonFraming,
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

    /// SSE or `json`, as the stream's first byte says.
    pub fn sniffing(limits: Limits, json: JsonFraming) -> Self {
        Framing::Undecided {
            limits,
            json,
            held: Vec::new(),
        }
    }

    /// Feeds one chunk; `on_event` is called with every event's text (an
    /// SSE event's data, a JSON line, an array's element).
    #[inline]
    pub fn feed(&mut self, chunk: &[u8], mut on_event: impl FnMut(&str)) -> Result<(), LimitError> {
        match self {
            Framing::Sse(decoder) => decoder.feed(chunk, |event| on_event(event.data)),
            Framing::Lines(decoder) => decoder.feed(chunk, on_event),
            Framing::Array(decoder) => decoder.feed(chunk, on_event),
            Framing::Undecided { .. } => self.decide(chunk, on_event),
        }
    }

    #[cold]
    fn decide(&mut self, chunk: &[u8], on_event: impl FnMut(&str)) -> Result<(), LimitError> {
        let Framing::Undecided { limits, json, held } = self else {
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
        let decided = match (first, *json) {
            (Some(b'{' | b'['), JsonFraming::Lines) => {
                Framing::Lines(ndjson::Decoder::new(*limits))
            }
            (Some(b'{' | b'['), JsonFraming::Array) => {
                Framing::Array(json_array::Decoder::new(*limits))
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
    pub fn close(&mut self, mut on_event: impl FnMut(&str)) -> Result<(), LimitError> {
        match self {
            Framing::Sse(decoder) => decoder.close(|event| on_event(event.data)),
            Framing::Lines(decoder) => decoder.close(on_event),
            Framing::Array(decoder) => decoder.close(on_event),
            Framing::Undecided { held, .. } => {
                held.clear();
                Ok(())
            }
        }
    }

    /// The last event ID an SSE stream set ("" for JSON).
    pub fn last_event_id(&self) -> &str {
        match self {
            Framing::Sse(decoder) => decoder.last_event_id(),
            _ => "",
        }
    }

    /// The reconnection time an SSE stream set.
    pub fn retry(&self) -> Option<u64> {
        match self {
            Framing::Sse(decoder) => decoder.retry(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(chunks: &[&[u8]], json: JsonFraming) -> Vec<String> {
        let mut framing = Framing::sniffing(Limits::default(), json);
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
        for json in [JsonFraming::Lines, JsonFraming::Array] {
            for (chunks, expected) in [
                (&[&b"\xEF\xBB"[..], b"\xBF \n{\"a\":1}\n"][..], "{\"a\":1}"),
                (&[&b"  \n"[..], b"data: {\"a\":1}\n\n"][..], "{\"a\":1}"),
                (&[&b""[..], b": hi\n\ndata: [DONE]\n\n"][..], "[DONE]"),
            ] {
                assert_eq!(framed(chunks, json), [expected]);
            }
        }
        let array: &[&[u8]] = &[b"\r\n[{\"a\":", b"\n 1},\r\n{\"b\":2}]"];
        assert_eq!(
            framed(array, JsonFraming::Array),
            ["{\"a\":\n 1}", "{\"b\":2}"]
        );
        // Lines read the same bytes as lines.
        assert_eq!(
            framed(array, JsonFraming::Lines),
            ["[{\"a\":", " 1},", "{\"b\":2}]"]
        );
    }
}
