//! A streamed JSON array (`[{...},\r\n{...}]`), as an HTTP API answers
//! that streams the elements of one JSON array as they come: each element is
//! handed out as its own text as soon as it is whole, in any chunking.
//!
//! The decoder tracks only what it must to find an element's end: the
//! nesting depth and whether it is inside a string (and after a backslash
//! there). Elements are not parsed here: their texts go to the protocol as
//! SSE events' data do. Between elements, white space and commas are
//! skipped; the array's `]` ends it. A JSON text outside any array (the
//! object an HTTP error answers with) is an element too, so that nothing
//! the stream holds is dropped; so is anything else that is not white space
//! (a stray byte), which then fails as JSON where the protocol reads it.
//! As the other decoders do, it looks at each byte once, copies only an
//! element split across chunks, and decodes UTF-8 lossily.

use memchr::memchr2;

use crate::ndjson::{is_white_space, BOM};
use crate::sse::{lossy_utf8, LimitError, LimitKind, Limits};

/// Where the decoder is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum At {
    /// Outside any array: before it, or after its `]`.
    #[default]
    Outside,
    /// Inside the array, between elements.
    Between,
    /// Inside an element that is an object or an array, `depth` deep.
    Nested { depth: u32 },
    /// Inside an element that is a string (top-level, or a nested one's:
    /// `depth` says which), after a backslash when `escaped`.
    Text { depth: u32, escaped: bool },
    /// Inside an element that is a bare word (a number, `true`, or junk):
    /// it ends at white space, `,` or `]`.
    Word,
}

/// Incremental decoder of a streamed JSON array: hands out each element's text.
#[derive(Debug, Clone, Default)]
pub struct Decoder {
    max_element_bytes: Option<usize>,
    at: At,
    /// Whether an array's `[` came and its `]` has not.
    in_array: bool,
    /// Whether only a BOM's bytes came yet.
    opening: bool,
    /// Stream offset of the next byte to be fed.
    offset: u64,
    /// The start of an element split across chunks, and where it started.
    element: Vec<u8>,
    element_start: u64,
    failed: Option<LimitError>,
}

impl Decoder {
    /// A decoder refusing elements larger than `max_event_bytes` (the limit
    /// an SSE event's data has).
    pub fn new(limits: Limits) -> Self {
        Decoder {
            max_element_bytes: limits.max_event_bytes,
            opening: true,
            ..Decoder::default()
        }
    }

    /// Feeds one chunk; `on_element` is called with every element it
    /// completes. On a limit error the elements before the large one have
    /// been handed out, and the decoder refuses further input.
    pub fn feed(
        &mut self,
        chunk: &[u8],
        mut on_element: impl FnMut(&str),
    ) -> Result<(), LimitError> {
        if let Some(err) = &self.failed {
            return Err(err.clone());
        }
        let result = self.scan(chunk, &mut on_element);
        if let Err(err) = &result {
            self.failed = Some(err.clone());
        }
        result
    }

    /// Ends the stream: an element cut off by the end is handed out as it
    /// came (it then fails as JSON), so that the protocol says what was
    /// lost. The decoder may then read a new stream.
    pub fn close(&mut self, mut on_element: impl FnMut(&str)) -> Result<(), LimitError> {
        if let Some(err) = &self.failed {
            return Err(err.clone());
        }
        let element = std::mem::take(&mut self.element);
        if !element.is_empty() {
            on_element(&lossy_utf8(&element));
        }
        *self = Decoder::new(Limits {
            max_line_bytes: None,
            max_event_bytes: self.max_element_bytes,
        });
        Ok(())
    }

    fn scan(&mut self, bytes: &[u8], on_element: &mut impl FnMut(&str)) -> Result<(), LimitError> {
        let base = self.offset;
        // Where the element being read starts in this chunk (0 when it
        // started in an earlier one, whose bytes `element` holds).
        let mut start = 0;
        let mut pos = 0;
        while pos < bytes.len() {
            let byte = bytes[pos];
            match self.at {
                At::Outside | At::Between => {
                    pos += 1;
                    // A BOM opening the stream, in any chunking.
                    let at = base + pos as u64 - 1;
                    if at < 3 && self.opening {
                        if byte == BOM[at as usize] {
                            continue;
                        }
                        self.opening = false;
                    }
                    if is_white_space(byte) || (self.at == At::Between && byte == b',') {
                        continue;
                    }
                    match (self.at, byte) {
                        (At::Outside, b'[') => {
                            self.in_array = true;
                            self.at = At::Between;
                            continue;
                        }
                        (At::Between, b']') => {
                            self.in_array = false;
                            self.at = At::Outside;
                            continue;
                        }
                        _ => {}
                    }
                    start = pos - 1;
                    self.element_start = base + start as u64;
                    self.at = match byte {
                        b'{' | b'[' => At::Nested { depth: 1 },
                        b'"' => At::Text {
                            depth: 0,
                            escaped: false,
                        },
                        _ => At::Word,
                    };
                }
                At::Text { depth, escaped } => {
                    if escaped {
                        pos += 1;
                        self.at = At::Text {
                            depth,
                            escaped: false,
                        };
                        continue;
                    }
                    // The rest of a string is skipped to its quote or
                    // backslash at once.
                    let Some(found) = memchr2(b'"', b'\\', &bytes[pos..]) else {
                        break;
                    };
                    pos += found + 1;
                    if bytes[pos - 1] == b'\\' {
                        self.at = At::Text {
                            depth,
                            escaped: true,
                        };
                    } else if depth == 0 {
                        self.end_element(bytes, start, pos, on_element)?;
                    } else {
                        self.at = At::Nested { depth };
                    }
                }
                At::Nested { depth } => {
                    pos += 1;
                    match byte {
                        b'"' => {
                            self.at = At::Text {
                                depth,
                                escaped: false,
                            }
                        }
                        b'{' | b'[' => {
                            self.at = At::Nested {
                                depth: depth.saturating_add(1),
                            }
                        }
                        b'}' | b']' if depth == 1 => {
                            self.end_element(bytes, start, pos, on_element)?;
                        }
                        b'}' | b']' => self.at = At::Nested { depth: depth - 1 },
                        _ => {}
                    }
                }
                At::Word => {
                    if is_white_space(byte) || byte == b',' || (byte == b']' && self.in_array) {
                        // The byte that ends a word is read again between
                        // elements.
                        self.end_element(bytes, start, pos, on_element)?;
                    } else {
                        pos += 1;
                    }
                }
            }
        }
        if self.in_element() {
            let held = self.element.len() + bytes.len() - start;
            self.check(held)?;
            self.element.extend_from_slice(&bytes[start..]);
        }
        self.offset = base + bytes.len() as u64;
        Ok(())
    }

    fn in_element(&self) -> bool {
        !matches!(self.at, At::Outside | At::Between)
    }

    /// Hands out the element that ends at `end` in this chunk.
    fn end_element(
        &mut self,
        bytes: &[u8],
        start: usize,
        end: usize,
        on_element: &mut impl FnMut(&str),
    ) -> Result<(), LimitError> {
        self.at = if self.in_array {
            At::Between
        } else {
            At::Outside
        };
        if self.element.is_empty() {
            self.check(end - start)?;
            on_element(&lossy_utf8(&bytes[start..end]));
        } else {
            self.check(self.element.len() + end - start)?;
            self.element.extend_from_slice(&bytes[start..end]);
            let element = std::mem::take(&mut self.element);
            on_element(&lossy_utf8(&element));
            self.element = element;
            self.element.clear();
        }
        Ok(())
    }

    fn check(&self, len: usize) -> Result<(), LimitError> {
        match self.max_element_bytes {
            Some(max) if len > max => Err(LimitError {
                kind: LimitKind::JsonElement,
                max_bytes: max,
                offset: self.element_start,
            }),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn elements(chunks: &[&[u8]], limits: Limits) -> Result<Vec<String>, LimitError> {
        let mut decoder = Decoder::new(limits);
        let mut out = Vec::new();
        for chunk in chunks {
            decoder.feed(chunk, |element| out.push(element.to_owned()))?;
        }
        decoder.close(|element| out.push(element.to_owned()))?;
        Ok(out)
    }

    const STREAM: &[u8] = b"\xEF\xBB\xBF[{\"a\": \"x,]}\\\"\"},\r\n{\"b\": [1, {\"c\": \"[\"}]}\n, 7, \"s\\\\\", true]";

    #[test]
    fn hands_out_each_element_in_any_chunking() {
        let expected = vec![
            "{\"a\": \"x,]}\\\"\"}".to_owned(),
            "{\"b\": [1, {\"c\": \"[\"}]}".to_owned(),
            "7".to_owned(),
            "\"s\\\\\"".to_owned(),
            "true".to_owned(),
        ];
        assert_eq!(elements(&[STREAM], Limits::default()).unwrap(), expected);
        for split in 1..STREAM.len() {
            let (a, b) = STREAM.split_at(split);
            assert_eq!(
                elements(&[a, b], Limits::default()).unwrap(),
                expected,
                "{split}"
            );
        }
        let bytes: Vec<&[u8]> = STREAM.chunks(1).collect();
        assert_eq!(elements(&bytes, Limits::default()).unwrap(), expected);
    }

    #[test]
    fn what_is_outside_an_array_is_kept() {
        let got = elements(&[b"{\"error\": {\"code\": 400}}\n"], Limits::default()).unwrap();
        assert_eq!(got, vec!["{\"error\": {\"code\": 400}}"]);
        let got = elements(&[b"[{\"a\": 1} x, ] junk"], Limits::default()).unwrap();
        assert_eq!(got, vec!["{\"a\": 1}", "x", "junk"]);
        let got = elements(&[b"[{\"a\": [1, 2"], Limits::default()).unwrap();
        assert_eq!(got, vec!["{\"a\": [1, 2"]);
    }

    #[test]
    fn a_large_element_is_refused_where_it_starts() {
        let limits = Limits {
            max_line_bytes: None,
            max_event_bytes: Some(8),
        };
        let mut decoder = Decoder::new(limits);
        let mut out = Vec::new();
        let err = decoder
            .feed(b"[{\"a\":1},\n{\"b\": 12345}]", |e| out.push(e.to_owned()))
            .unwrap_err();
        assert_eq!(out, vec!["{\"a\":1}"]);
        assert_eq!(
            (err.kind, err.offset, err.max_bytes),
            (LimitKind::JsonElement, 10, 8)
        );
        let mut decoder = Decoder::new(limits);
        decoder.feed(b"[{\"b\": 1", |_| {}).unwrap();
        let err = decoder.feed(b"2345}", |_| {}).unwrap_err();
        assert_eq!(err.offset, 1);
        assert!(decoder.feed(b"]", |_| {}).is_err());
    }
}
