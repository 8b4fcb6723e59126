//! Encoding events as `text/event-stream` bytes: the decoder's mirror.

use std::fmt;

use memchr::{memchr, memchr2};

/// Why an event cannot be written so that it decodes as given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EncodeError {
    /// The event name contains CR or LF, which would end its line early.
    EventLineBreak,
    /// The id contains CR or LF, which would end its line early.
    IdLineBreak,
    /// The id contains NUL, which makes decoders ignore the whole field.
    IdNul,
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EncodeError::EventLineBreak => "SSE event name must not contain CR or LF",
            EncodeError::IdLineBreak => "SSE id must not contain CR or LF",
            EncodeError::IdNul => "SSE id must not contain NUL (decoders ignore such an id)",
        })
    }
}

impl std::error::Error for EncodeError {}

/// Appends one event to `out`.
///
/// Every CR, LF or CRLF in `data` starts a new `data:` line, so the decoder
/// gives back `data` with its line breaks as LF. Each value is written after
/// `": "`, so a value's own leading space survives the decoder's removal of
/// one space.
pub fn encode_event(
    out: &mut Vec<u8>,
    data: &str,
    event: Option<&str>,
    id: Option<&str>,
    retry: Option<u64>,
) -> Result<(), EncodeError> {
    out.reserve(data.len() + 16);
    encode_head(out, event, id, retry)?;
    let bytes = data.as_bytes();
    let mut pos = 0;
    loop {
        match memchr2(b'\r', b'\n', &bytes[pos..]) {
            Some(found) => {
                let end = pos + found;
                write_field(out, b"data", &bytes[pos..end]);
                pos = end + 1;
                if bytes[end] == b'\r' && bytes.get(pos) == Some(&b'\n') {
                    pos += 1;
                }
            }
            None => {
                write_field(out, b"data", &bytes[pos..]);
                break;
            }
        }
    }
    out.push(b'\n');
    Ok(())
}

/// Appends an event's fields before its data (`id`, `event`, `retry`),
/// checked to decode as given; its `data:` lines are the caller's (a line
/// of JSON text, which holds no line break, is written as is).
pub fn encode_head(
    out: &mut Vec<u8>,
    event: Option<&str>,
    id: Option<&str>,
    retry: Option<u64>,
) -> Result<(), EncodeError> {
    if let Some(id) = id {
        if memchr2(b'\r', b'\n', id.as_bytes()).is_some() {
            return Err(EncodeError::IdLineBreak);
        }
        if memchr(0, id.as_bytes()).is_some() {
            return Err(EncodeError::IdNul);
        }
    }
    if let Some(event) = event {
        if memchr2(b'\r', b'\n', event.as_bytes()).is_some() {
            return Err(EncodeError::EventLineBreak);
        }
    }
    if let Some(id) = id {
        write_field(out, b"id", id.as_bytes());
    }
    if let Some(event) = event {
        write_field(out, b"event", event.as_bytes());
    }
    if let Some(retry) = retry {
        write_field(out, b"retry", retry.to_string().as_bytes());
    }
    Ok(())
}

/// Appends a comment (ignored by decoders; servers send one as keep-alive).
/// Each line of `text` becomes its own comment line.
pub fn encode_comment(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    let mut pos = 0;
    loop {
        let end = memchr2(b'\r', b'\n', &bytes[pos..]).map(|found| pos + found);
        let line = &bytes[pos..end.unwrap_or(bytes.len())];
        out.push(b':');
        if !line.is_empty() {
            out.push(b' ');
            out.extend_from_slice(line);
        }
        out.push(b'\n');
        let Some(end) = end else { break };
        pos = end + 1;
        if bytes[end] == b'\r' && bytes.get(pos) == Some(&b'\n') {
            pos += 1;
        }
    }
}

fn write_field(out: &mut Vec<u8>, name: &[u8], value: &[u8]) {
    out.extend_from_slice(name);
    out.extend_from_slice(b": ");
    out.extend_from_slice(value);
    out.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sse::{Decoder, OwnedEvent};

    fn encode(data: &str, event: Option<&str>, id: Option<&str>, retry: Option<u64>) -> Vec<u8> {
        let mut out = Vec::new();
        encode_event(&mut out, data, event, id, retry).unwrap();
        out
    }

    fn decode(bytes: &[u8]) -> Vec<OwnedEvent> {
        let mut decoder = Decoder::default();
        let mut events = Vec::new();
        decoder.feed(bytes, |e| events.push(e.into())).unwrap();
        decoder.close(|e| events.push(e.into())).unwrap();
        events
    }

    #[test]
    fn writes_fields_in_order() {
        assert_eq!(
            encode("x", Some("delta"), Some("7"), Some(1500)),
            b"id: 7\nevent: delta\nretry: 1500\ndata: x\n\n"
        );
        assert_eq!(encode("", None, None, None), b"data: \n\n");
    }

    #[test]
    fn line_breaks_become_data_lines() {
        assert_eq!(
            encode("a\r\nb\rc\n", None, None, None),
            b"data: a\ndata: b\ndata: c\ndata: \n\n"
        );
    }

    #[test]
    fn round_trips() {
        for text in [
            "",
            " lead",
            "  two",
            "a\nb",
            "\n",
            "\n\n",
            "tab\t",
            "nul\0",
            "\u{feff}bom",
            "\u{2028}",
        ] {
            let events = decode(&encode(text, Some(" name"), Some(""), None));
            assert_eq!(events.len(), 1, "{text:?}");
            assert_eq!(events[0].data, text);
            assert_eq!(events[0].event, " name");
        }
        assert_eq!(
            decode(&encode("a\r\nb\rc", None, None, None))[0].data,
            "a\nb\nc"
        );
    }

    #[test]
    fn rejects_what_cannot_round_trip() {
        let mut out = Vec::new();
        assert_eq!(
            encode_event(&mut out, "", Some("a\nb"), None, None),
            Err(EncodeError::EventLineBreak)
        );
        assert_eq!(
            encode_event(&mut out, "", None, Some("a\rb"), None),
            Err(EncodeError::IdLineBreak)
        );
        assert_eq!(
            encode_event(&mut out, "", None, Some("a\0"), None),
            Err(EncodeError::IdNul)
        );
        assert!(out.is_empty());
    }

    #[test]
    fn comments() {
        let mut out = Vec::new();
        encode_comment(&mut out, "");
        encode_comment(&mut out, "ping\r\nx");
        assert_eq!(out, b":\n: ping\n: x\n");
        assert!(decode(&out).is_empty());
    }
}
