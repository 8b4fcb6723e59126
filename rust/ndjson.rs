//! Newline-delimited JSON (NDJSON, JSON Lines): one JSON text a line, as
//! model servers stream answers. [`crate::framing::Framing`] tells it from
//! SSE by a stream's first byte.
//!
//! Lines end at LF alone, a CR before it dropped: a JSON text holds no raw
//! LF, but may hold other characters some readers take for line breaks
//! (U+2028, U+0085), which must not split it. Lines of white space are
//! skipped; the last line needs no LF. As the SSE decoder does, the decoder
//! looks at each byte once and copies only a line split across chunks, and
//! decodes UTF-8 lossily.

use memchr::memchr;

use crate::sse::{lossy_utf8, LimitError, LimitKind, Limits};

pub(crate) const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// The white space JSON allows around a text.
pub(crate) fn is_white_space(byte: u8) -> bool {
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
}
