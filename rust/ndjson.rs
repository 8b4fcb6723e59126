//! Newline-delimited JSON (NDJSON, JSON Lines): one JSON text a line, as
//! model servers stream answers; and [`Framing`], which tells it from SSE by
//! a stream's first byte.
//!
//! Lines end at LF alone, a CR before it dropped: a JSON text holds no raw
//! LF, but may hold other characters some readers take for line breaks
//! (U+2028, U+0085), which must not split it. Lines of white space are
//! skipped; the last line needs no LF. As the SSE decoder does, the decoder
//! looks at each byte once and copies only a line split across chunks, and
//! decodes UTF-8 lossily.

use memchr::memchr;

use crate::sse::{self, lossy_utf8, LimitError, LimitKind, Limits};

const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// The white space JSON allows around a text.
fn is_white_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\n')
}

/// Incremental NDJSON decoder: hands out each line's text.
#[derive(Debug, Clone, Default)]
pub struct Decoder {
    max_line_bytes: Option<usize>,
    /// Stream offset of the next byte to be fed.
    offset: u64,
    /// The start of a line split across chunks, and where it started.
    line: Vec<u8>,
    line_start: u64,
    failed: Option<LimitError>,
}

impl Decoder {
    /// A decoder refusing lines longer than `max_line_bytes` (the limit SSE
    /// lines have).
    pub fn new(limits: Limits) -> Self {
        Decoder {
            max_line_bytes: limits.max_line_bytes,
            ..Decoder::default()
        }
    }

    /// Feeds one chunk; `on_line` is called with every line it completes.
    /// On a limit error the lines before the long one have been handed out,
    /// and the decoder refuses further input.
    pub fn feed(&mut self, chunk: &[u8], mut on_line: impl FnMut(&str)) -> Result<(), LimitError> {
        if let Some(err) = &self.failed {
            return Err(err.clone());
        }
        let result = self.scan(chunk, &mut on_line);
        if let Err(err) = &result {
            self.failed = Some(err.clone());
        }
        result
    }

    /// Ends the stream: a last line without its LF is a line too. The
    /// decoder may then read a new stream.
    pub fn close(&mut self, mut on_line: impl FnMut(&str)) -> Result<(), LimitError> {
        if let Some(err) = &self.failed {
            return Err(err.clone());
        }
        let line = std::mem::take(&mut self.line);
        let start = self.line_start;
        self.offset = 0;
        self.line_start = 0;
        emit(&line, start, &mut on_line);
        Ok(())
    }

    fn scan(&mut self, bytes: &[u8], on_line: &mut impl FnMut(&str)) -> Result<(), LimitError> {
        let base = self.offset;
        let mut pos = 0;
        while let Some(found) = memchr(b'\n', &bytes[pos..]) {
            let end = pos + found;
            if self.line.is_empty() {
                let start = base + pos as u64;
                self.check(end - pos, start)?;
                emit(&bytes[pos..end], start, on_line);
            } else {
                self.check(self.line.len() + end - pos, self.line_start)?;
                self.line.extend_from_slice(&bytes[pos..end]);
                let line = std::mem::take(&mut self.line);
                emit(&line, self.line_start, on_line);
                self.line = line;
                self.line.clear();
            }
            pos = end + 1;
        }
        if pos < bytes.len() {
            if self.line.is_empty() {
                self.line_start = base + pos as u64;
            }
            self.check(self.line.len() + bytes.len() - pos, self.line_start)?;
            self.line.extend_from_slice(&bytes[pos..]);
        }
        self.offset = base + bytes.len() as u64;
        Ok(())
    }

    fn check(&self, len: usize, start: u64) -> Result<(), LimitError> {
        match self.max_line_bytes {
            Some(max) if len > max => Err(LimitError {
                kind: LimitKind::JsonLine,
                max_bytes: max,
                offset: start,
            }),
            _ => Ok(()),
        }
    }
}

/// Hands out a line (less its CR, and a BOM opening the stream) unless it
/// is white space.
fn emit(mut line: &[u8], start: u64, on_line: &mut impl FnMut(&str)) {
    if start == 0 {
        line = line.strip_prefix(&BOM).unwrap_or(line);
    }
    line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(|&byte| is_white_space(byte)) {
        return;
    }
    on_line(&lossy_utf8(line));
}

/// How a stream is framed: SSE, or NDJSON for a protocol that sends it,
/// told by the stream's first byte that is not white space (nor a BOM):
/// `{` opens a JSON line, where SSE lines open with a field name or `:`.
// One a reader, held inline: SSE, the usual case, is not put behind a box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Framing {
    Sse(sse::Decoder),
    Lines(Decoder),
    /// Not known yet: the white space the stream opened with, held.
    Undecided {
        limits: Limits,
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

    /// SSE or NDJSON, as the stream's first byte says.
    pub fn sniffing(limits: Limits) -> Self {
        Framing::Undecided {
            limits,
            held: Vec::new(),
        }
    }

    /// Feeds one chunk; `on_event` is called with every event's text (an
    /// SSE event's data, a JSON line).
    #[inline]
    pub fn feed(&mut self, chunk: &[u8], mut on_event: impl FnMut(&str)) -> Result<(), LimitError> {
        match self {
            Framing::Sse(decoder) => decoder.feed(chunk, |event| on_event(event.data)),
            Framing::Lines(decoder) => decoder.feed(chunk, on_event),
            Framing::Undecided { .. } => self.decide(chunk, on_event),
        }
    }

    #[cold]
    fn decide(&mut self, chunk: &[u8], on_event: impl FnMut(&str)) -> Result<(), LimitError> {
        let Framing::Undecided { limits, held } = self else {
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
        let decided = match first {
            Some(b'{') => Framing::Lines(Decoder::new(*limits)),
            Some(_) => Framing::sse(*limits),
            // White space, or a BOM split across chunks: wait, within reason.
            None if waiting => return Ok(()),
            None => Framing::sse(*limits),
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
            Framing::Undecided { held, .. } => {
                held.clear();
                Ok(())
            }
        }
    }

    /// The last event ID an SSE stream set ("" for NDJSON).
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

    fn lines(chunks: &[&[u8]], limits: Limits) -> Result<Vec<String>, LimitError> {
        let mut decoder = Decoder::new(limits);
        let mut out = Vec::new();
        for chunk in chunks {
            decoder.feed(chunk, |line| out.push(line.to_owned()))?;
        }
        decoder.close(|line| out.push(line.to_owned()))?;
        Ok(out)
    }

    #[test]
    fn splits_at_lf_only_in_any_chunking() {
        let text = "{\"a\":\"x\u{2028}y\u{85}\"}\r\n\n  \n{\"b\":1}";
        let whole = lines(&[text.as_bytes()], Limits::default()).unwrap();
        assert_eq!(whole, ["{\"a\":\"x\u{2028}y\u{85}\"}", "{\"b\":1}"]);
        let bytes = text.as_bytes();
        for cut in 0..bytes.len() {
            let split = lines(&[&bytes[..cut], &bytes[cut..]], Limits::default()).unwrap();
            assert_eq!(split, whole, "cut at {cut}");
        }
    }

    #[test]
    fn a_long_line_is_refused_where_it_starts() {
        let limits = Limits {
            max_line_bytes: Some(8),
            max_event_bytes: None,
        };
        let mut decoder = Decoder::new(limits);
        let mut out = Vec::new();
        decoder
            .feed(b"{\"a\":1}\n{\"b\":", |line| out.push(line.to_owned()))
            .unwrap();
        let err = decoder
            .feed(b"22222}\n", |line| out.push(line.to_owned()))
            .unwrap_err();
        assert_eq!((err.kind, err.offset), (LimitKind::JsonLine, 8));
        assert_eq!(out, ["{\"a\":1}"]);
        assert_eq!(
            err.to_string(),
            "NDJSON line exceeds max_line_bytes=8 at the line starting at byte offset 8"
        );
        assert!(decoder.feed(b"\n", |_| ()).is_err());
    }

    #[test]
    fn the_first_byte_tells_the_framing() {
        for (chunks, expected) in [
            (&[&b"\xEF\xBB"[..], b"\xBF \n{\"a\":1}\n"][..], "{\"a\":1}"),
            (&[&b"  \n"[..], b"data: {\"a\":1}\n\n"][..], "{\"a\":1}"),
            (&[&b""[..], b": hi\n\ndata: [DONE]\n\n"][..], "[DONE]"),
        ] {
            let mut framing = Framing::sniffing(Limits::default());
            let mut out = Vec::new();
            for chunk in chunks {
                framing
                    .feed(chunk, |text| out.push(text.to_owned()))
                    .unwrap();
            }
            framing.close(|text| out.push(text.to_owned())).unwrap();
            assert_eq!(out, [expected]);
        }
    }
}
