//! Incremental decoder for `text/event-stream`, following the WHATWG HTML
//! "parsing an event stream" algorithm.
//!
//! The decoder works on bytes and never re-scans: every byte fed is looked at
//! once by `memchr2` (line ends) and copied at most once (into the pending
//! line or the data buffer). UTF-8 is decoded per field, lossily, which is
//! equivalent to decoding the whole stream first because CR and LF never
//! occur inside a multi-byte sequence.

use std::borrow::Cow;

use memchr::{memchr, memchr2};

use super::limits::{LimitError, LimitKind, Limits};

const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// The field names the algorithm acts on; every other line is ignored.
const KNOWN_FIELDS: [&[u8]; 4] = [b"data", b"event", b"id", b"retry"];
/// Longest known field name plus its colon: a line's fate is decided by then.
const CLASSIFY_PREFIX: usize = 6;

/// One dispatched event, borrowing the decoder's buffers.
///
/// `id` is the last event ID in effect when the event was dispatched (it
/// persists across events until the stream sets another); `retry` is the
/// reconnection time set inside this event's block, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event<'a> {
    pub event: &'a str,
    pub data: &'a str,
    pub id: &'a str,
    pub retry: Option<u64>,
}

/// An owned copy of an [`Event`], convenient for tests and for callers that
/// keep events around.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedEvent {
    pub event: String,
    pub data: String,
    pub id: String,
    pub retry: Option<u64>,
}

impl From<Event<'_>> for OwnedEvent {
    fn from(ev: Event<'_>) -> Self {
        OwnedEvent {
            event: ev.event.to_owned(),
            data: ev.data.to_owned(),
            id: ev.id.to_owned(),
            retry: ev.retry,
        }
    }
}

/// Where the stream-start byte order mark stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BomState {
    /// At the start of a stream: this many bytes matched the BOM so far.
    Matching(usize),
    /// Past the start: a BOM is an ordinary character from here on.
    Done,
}

/// Incremental `text/event-stream` decoder.
///
/// Feed it chunks of any size with [`Decoder::feed`]; events are handed to a
/// callback as soon as their terminating blank line has been seen. Call
/// [`Decoder::close`] at the end of the stream: an unterminated event is
/// discarded, as the specification requires, and the decoder is ready for a
/// new stream (a reconnection), keeping the last event ID and retry.
#[derive(Debug, Clone)]
pub struct Decoder {
    limits: Limits,
    /// Stream offset of the next byte to be fed (counting a stripped BOM).
    offset: u64,
    bom: BomState,
    /// The previous chunk ended with CR: an LF starting the next chunk
    /// belongs to that line end and is skipped.
    skip_lf: bool,
    /// A line was started but its end has not been seen yet.
    line_pending: bool,
    /// The pending line is a comment or an unknown field: it is skipped
    /// without being buffered, so it costs no memory however long it is.
    line_ignored: bool,
    /// Bytes of the pending line (empty while it is ignored).
    line: Vec<u8>,
    /// Stream offset where the pending line started.
    line_start: u64,
    /// The data buffer: each `data` value followed by LF.
    data: Vec<u8>,
    event_type: Vec<u8>,
    /// The last event type dispatched, as bytes and as text: a stream names
    /// most of its events alike, and its text is then not decoded again.
    last_type: (Vec<u8>, String),
    /// The last-event-ID buffer, committed at every blank line.
    id_buffer: String,
    last_event_id: String,
    block_retry: Option<u64>,
    retry: Option<u64>,
    /// A limit was exceeded: the stream cannot be decoded further.
    failed: Option<LimitError>,
}

impl Default for Decoder {
    fn default() -> Self {
        Decoder::new(Limits::default())
    }
}

impl Decoder {
    pub fn new(limits: Limits) -> Self {
        Decoder {
            limits,
            offset: 0,
            bom: BomState::Matching(0),
            skip_lf: false,
            line_pending: false,
            line_ignored: false,
            line: Vec::new(),
            line_start: 0,
            data: Vec::new(),
            event_type: Vec::new(),
            last_type: (Vec::new(), String::new()),
            id_buffer: String::new(),
            last_event_id: String::new(),
            block_retry: None,
            retry: None,
            failed: None,
        }
    }

    /// A decoder resuming after `last_event_id` (the value a client sends as
    /// `Last-Event-ID` when it reconnects).
    pub fn with_last_event_id(limits: Limits, last_event_id: &str) -> Self {
        let mut decoder = Decoder::new(limits);
        decoder.id_buffer = last_event_id.to_owned();
        decoder.last_event_id = last_event_id.to_owned();
        decoder
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The last event ID string: committed at every blank line, even one
    /// that dispatches nothing.
    pub fn last_event_id(&self) -> &str {
        &self.last_event_id
    }

    /// The reconnection time in milliseconds, set by the latest valid `retry`.
    pub fn retry(&self) -> Option<u64> {
        self.retry
    }

    /// Bytes of the current stream consumed so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Feeds one chunk; `on_event` is called for every event it completes.
    ///
    /// On a limit error the events completed before the offending line have
    /// already been handed out, and the decoder refuses further input.
    pub fn feed(
        &mut self,
        chunk: &[u8],
        mut on_event: impl FnMut(Event<'_>),
    ) -> Result<(), LimitError> {
        if let Some(err) = &self.failed {
            return Err(err.clone());
        }
        let result = self.feed_inner(chunk, &mut on_event);
        if let Err(err) = &result {
            self.failed = Some(err.clone());
        }
        result
    }

    /// Ends the current stream. A pending, unterminated event is discarded
    /// and its `id` is not committed. The decoder may then decode a new
    /// stream; the last event ID and retry carry over.
    pub fn close(&mut self, mut on_event: impl FnMut(Event<'_>)) -> Result<(), LimitError> {
        if let Some(err) = &self.failed {
            return Err(err.clone());
        }
        // A stream shorter than a BOM: the bytes held back were content.
        if let BomState::Matching(held) = self.bom {
            if held > 0 {
                self.bom = BomState::Done;
                let result = self.scan(&BOM[..held], &mut on_event);
                if let Err(err) = result {
                    self.failed = Some(err.clone());
                    return Err(err);
                }
            }
        }
        self.reset_stream();
        Ok(())
    }

    fn reset_stream(&mut self) {
        self.offset = 0;
        self.bom = BomState::Matching(0);
        self.skip_lf = false;
        self.line_pending = false;
        self.line_ignored = false;
        self.line.clear();
        self.data.clear();
        self.event_type.clear();
        self.id_buffer.clone_from(&self.last_event_id);
        self.block_retry = None;
    }

    fn feed_inner(
        &mut self,
        mut chunk: &[u8],
        on_event: &mut impl FnMut(Event<'_>),
    ) -> Result<(), LimitError> {
        if let BomState::Matching(held) = self.bom {
            // Only the first three bytes of a stream can be a BOM; they may
            // arrive split across chunks, so a partial match is held back.
            let take = (BOM.len() - held).min(chunk.len());
            let matched = held + take;
            if chunk[..take] == BOM[held..matched] {
                chunk = &chunk[take..];
                if matched < BOM.len() {
                    self.bom = BomState::Matching(matched);
                    return Ok(());
                }
                self.bom = BomState::Done;
                self.offset += BOM.len() as u64;
            } else {
                // Not a BOM: what was held back is content after all.
                self.bom = BomState::Done;
                self.scan(&BOM[..held], on_event)?;
            }
        }
        self.scan(chunk, on_event)
    }

    /// Splits `bytes` into lines and processes them.
    fn scan(
        &mut self,
        bytes: &[u8],
        on_event: &mut impl FnMut(Event<'_>),
    ) -> Result<(), LimitError> {
        let base = self.offset;
        let mut pos = 0;
        if self.skip_lf && !bytes.is_empty() {
            self.skip_lf = false;
            if bytes[0] == b'\n' {
                pos = 1;
            }
        }
        while pos < bytes.len() {
            let Some(found) = memchr2(b'\r', b'\n', &bytes[pos..]) else {
                self.extend_pending_line(&bytes[pos..], base + pos as u64)?;
                break;
            };
            let end = pos + found;
            if self.line_pending {
                self.line_pending = false;
                if self.line_ignored {
                    self.line_ignored = false;
                } else {
                    let mut line = std::mem::take(&mut self.line);
                    line.extend_from_slice(&bytes[pos..end]);
                    let outcome = self.process_line(&line, self.line_start, on_event);
                    // Keep the allocation for the next long line.
                    line.clear();
                    self.line = line;
                    outcome?;
                }
            } else {
                if let Some(next) = self.single_data_line(bytes, pos, end) {
                    // "data: ...", then a blank line: the event's data is this
                    // line's value, dispatched straight from the chunk.
                    let value = strip_field(&bytes[pos..end], 4);
                    self.emit(value, on_event);
                    pos = next + 1;
                    if bytes[next] == b'\r' {
                        if pos < bytes.len() {
                            if bytes[pos] == b'\n' {
                                pos += 1;
                            }
                        } else {
                            self.skip_lf = true;
                        }
                    }
                    continue;
                }
                self.process_line(&bytes[pos..end], base + pos as u64, on_event)?;
            }
            pos = end + 1;
            if bytes[end] == b'\r' {
                if pos < bytes.len() {
                    if bytes[pos] == b'\n' {
                        pos += 1;
                    }
                } else {
                    self.skip_lf = true;
                }
            }
        }
        self.offset = base + bytes.len() as u64;
        Ok(())
    }

    /// Buffers the start (or a further piece) of a line whose end has not
    /// arrived, unless the line is one the algorithm ignores.
    fn extend_pending_line(&mut self, piece: &[u8], piece_start: u64) -> Result<(), LimitError> {
        if !self.line_pending {
            self.line_pending = true;
            self.line_ignored = false;
            self.line_start = piece_start;
            self.line.clear();
        }
        if self.line_ignored {
            return Ok(());
        }
        self.line.extend_from_slice(piece);
        match classify(&self.line) {
            LineClass::Ignored => {
                self.line_ignored = true;
                self.line.clear();
            }
            LineClass::Kept => self.check_line_length(self.line.len(), self.line_start)?,
            LineClass::Undecided => {}
        }
        Ok(())
    }

    fn check_line_length(&self, len: usize, start: u64) -> Result<(), LimitError> {
        match self.limits.max_line_bytes {
            Some(max) if len > max => Err(LimitError {
                kind: LimitKind::Line,
                max_bytes: max,
                offset: start,
            }),
            _ => Ok(()),
        }
    }

    fn process_line(
        &mut self,
        line: &[u8],
        start: u64,
        on_event: &mut impl FnMut(Event<'_>),
    ) -> Result<(), LimitError> {
        if line.is_empty() {
            self.dispatch(on_event);
            return Ok(());
        }
        if line[0] == b':' {
            return Ok(());
        }
        // The fields a stream repeats on every event are told by their
        // first bytes, without a search for the colon.
        let (name, value) = if line.starts_with(b"event:") {
            (&b"event"[..], strip_field(line, 5))
        } else if line.starts_with(b"id:") {
            (&b"id"[..], strip_field(line, 2))
        } else {
            match memchr(b':', line) {
                Some(colon) => (&line[..colon], strip_field(line, colon)),
                None => (line, &b""[..]),
            }
        };
        match name {
            b"data" => {
                self.check_line_length(line.len(), start)?;
                // The data buffer holds each value plus LF; the event's data
                // is that without the final LF.
                if let Some(max) = self.limits.max_event_bytes {
                    if self.data.len() + value.len() > max {
                        return Err(LimitError {
                            kind: LimitKind::Event,
                            max_bytes: max,
                            offset: start,
                        });
                    }
                }
                self.data.extend_from_slice(value);
                self.data.push(b'\n');
            }
            b"event" => {
                self.check_line_length(line.len(), start)?;
                self.event_type.clear();
                self.event_type.extend_from_slice(value);
            }
            b"id" => {
                self.check_line_length(line.len(), start)?;
                // An id containing NUL is ignored as a whole: the previous
                // id survives.
                // Ids are short: the inlined slice search, not a call into
                // the vector one.
                if !value.contains(&0) {
                    self.id_buffer.clear();
                    self.id_buffer.push_str(&lossy_utf8(value));
                }
            }
            b"retry" => {
                self.check_line_length(line.len(), start)?;
                if let Some(ms) = parse_retry(value) {
                    self.retry = Some(ms);
                    self.block_retry = Some(ms);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// When the line at `start..end` is the block's first `data` line and a
    /// blank line follows it in the same chunk, where that blank line
    /// starts. The limits are checked as the line-by-line path checks them;
    /// a line over a limit takes that path, which reports it.
    fn single_data_line(&self, bytes: &[u8], start: usize, end: usize) -> Option<usize> {
        let line = &bytes[start..end];
        if !self.data.is_empty() || !line.starts_with(b"data:") {
            return None;
        }
        let mut next = end + 1;
        if bytes[end] == b'\r' && bytes.get(next) == Some(&b'\n') {
            next += 1;
        }
        if !matches!(bytes.get(next), Some(b'\n' | b'\r')) {
            return None;
        }
        let within = |limit: Option<usize>, len: usize| limit.is_none_or(|max| len <= max);
        let value = strip_field(line, 4);
        (within(self.limits.max_line_bytes, line.len())
            && within(self.limits.max_event_bytes, value.len()))
        .then_some(next)
    }

    fn dispatch(&mut self, on_event: &mut impl FnMut(Event<'_>)) {
        if self.data.is_empty() {
            self.commit_id();
            // A block without data dispatches nothing; its type and retry
            // do not leak into the next block.
            self.event_type.clear();
            self.block_retry = None;
            return;
        }
        self.data.pop();
        let data = std::mem::take(&mut self.data);
        self.emit(&data, on_event);
        // Keep the allocation for the next event.
        self.data = data;
        self.data.clear();
    }

    /// Dispatches an event with this data: commits the last event ID and
    /// clears the block's type and retry.
    /// The id buffer becomes the last event id (a copy only when it changed).
    fn commit_id(&mut self) {
        // Lengths first: comparing two empty strings still calls memcmp,
        // and most streams send no ids (measured: an eighth of the time).
        let (last, buffer) = (&self.last_event_id, &self.id_buffer);
        if last.len() != buffer.len() || (!buffer.is_empty() && last != buffer) {
            self.last_event_id.clone_from(&self.id_buffer);
        }
    }

    fn emit(&mut self, data: &[u8], on_event: &mut impl FnMut(Event<'_>)) {
        self.commit_id();
        let data = lossy_utf8(data);
        let event_type = if self.event_type.is_empty() {
            "message"
        } else {
            if self.event_type != self.last_type.0 {
                self.last_type.0.clone_from(&self.event_type);
                self.last_type.1 = lossy_utf8(&self.event_type).into_owned();
            }
            &self.last_type.1
        };
        on_event(Event {
            event: event_type,
            data: &data,
            id: &self.last_event_id,
            retry: self.block_retry,
        });
        self.event_type.clear();
        self.block_retry = None;
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineClass {
    /// A comment or an unknown field.
    Ignored,
    /// A field the algorithm acts on.
    Kept,
    /// Too short to tell yet.
    Undecided,
}

/// What becomes of a line, judged from its first bytes.
fn classify(prefix: &[u8]) -> LineClass {
    match prefix.first() {
        None => return LineClass::Undecided,
        Some(b':') => return LineClass::Ignored,
        Some(_) => {}
    }
    let head = &prefix[..prefix.len().min(CLASSIFY_PREFIX)];
    match memchr(b':', head) {
        Some(colon) if KNOWN_FIELDS.contains(&&head[..colon]) => LineClass::Kept,
        Some(_) => LineClass::Ignored,
        // Six bytes without a colon: longer than any known name.
        None if head.len() == CLASSIFY_PREFIX => LineClass::Ignored,
        None if KNOWN_FIELDS.iter().any(|name| name.starts_with(head)) => LineClass::Undecided,
        None => LineClass::Ignored,
    }
}

/// The value of a field whose colon is at `colon`: what follows it, less
/// one leading space.
fn strip_field(line: &[u8], colon: usize) -> &[u8] {
    let value = &line[colon + 1..];
    value.strip_prefix(b" ").unwrap_or(value)
}

/// UTF-8 with invalid sequences replaced by U+FFFD. Valid text, the usual
/// case, takes the fast validator and is borrowed.
#[inline]
pub(crate) fn lossy_utf8(bytes: &[u8]) -> Cow<'_, str> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// `retry` takes one or more ASCII digits and nothing else; a value too large
/// for 64 bits is ignored.
fn parse_retry(value: &[u8]) -> Option<u64> {
    if value.is_empty() || !value.iter().all(u8::is_ascii_digit) {
        return None;
    }
    value.iter().try_fold(0u64, |acc, &digit| {
        acc.checked_mul(10)?.checked_add(u64::from(digit - b'0'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_chunks(
        chunks: &[&[u8]],
        limits: Limits,
    ) -> (Vec<OwnedEvent>, Result<(), LimitError>) {
        let mut decoder = Decoder::new(limits);
        let mut events = Vec::new();
        for chunk in chunks {
            if let Err(err) = decoder.feed(chunk, |ev| events.push(ev.into())) {
                return (events, Err(err));
            }
        }
        let result = decoder.close(|ev| events.push(ev.into()));
        (events, result)
    }

    fn decode(input: &[u8]) -> Vec<OwnedEvent> {
        let (events, result) = decode_chunks(&[input], Limits::default());
        result.unwrap();
        events
    }

    fn ev(event: &str, data: &str, id: &str) -> OwnedEvent {
        OwnedEvent {
            event: event.into(),
            data: data.into(),
            id: id.into(),
            retry: None,
        }
    }

    /// The same events whether fed whole, byte by byte or split anywhere.
    fn assert_chunking_invariant(input: &[u8]) {
        let whole = decode(input);
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        assert_eq!(
            decode_chunks(&bytes, Limits::default()).0,
            whole,
            "byte by byte"
        );
        for cut in 0..=input.len() {
            let (events, _) = decode_chunks(&[&input[..cut], &input[cut..]], Limits::default());
            assert_eq!(events, whole, "split at {cut}");
        }
    }

    #[test]
    fn line_ends_cr_lf_crlf() {
        let input = b"data: a\rdata: b\ndata: c\r\n\r\n";
        assert_eq!(decode(input), vec![ev("message", "a\nb\nc", "")]);
        assert_chunking_invariant(input);
    }

    #[test]
    fn lf_cr_is_two_line_ends() {
        assert_eq!(decode(b"data: a\n\rdata: b\n\n").len(), 2);
    }

    #[test]
    fn cr_at_chunk_end_dispatches_at_once() {
        let mut decoder = Decoder::default();
        let mut events = Vec::new();
        decoder
            .feed(b"data: x\r\r", |e| events.push(OwnedEvent::from(e)))
            .unwrap();
        assert_eq!(events, vec![ev("message", "x", "")]);
        decoder
            .feed(b"\ndata: y\n\n", |e| events.push(e.into()))
            .unwrap();
        assert_eq!(events.len(), 2);
    }

    #[test]
    fn bom_stripped_once_at_start_only() {
        assert_eq!(
            decode(b"\xEF\xBB\xBFdata: 1\n\n"),
            vec![ev("message", "1", "")]
        );
        // A second BOM makes the first line an unknown field.
        assert_eq!(
            decode(b"\xEF\xBB\xBF\xEF\xBB\xBFdata: 1\n\ndata: 2\n\n"),
            vec![ev("message", "2", "")]
        );
        assert_chunking_invariant(b"\xEF\xBB\xBFdata: 1\n\n\xEF\xBB\xBFdata: 2\n\ndata: 3\n\n");
        assert_chunking_invariant(b"\xEFdata: 1\n\n");
    }

    #[test]
    fn partial_bom_at_close_is_content() {
        let mut decoder = Decoder::default();
        decoder.feed(b"\xEF\xBB", |_| {}).unwrap();
        decoder.close(|_| {}).unwrap();
        assert_eq!(decoder.offset(), 0);
    }

    #[test]
    fn comments_and_unknown_fields_are_ignored() {
        let input = b"data:1\r:\0\n:\r\ndata:2\n: long comment\rdata:3\n:data:fail\r:x\ndata:4\nfoo: bar\n\n";
        assert_eq!(decode(input), vec![ev("message", "1\n2\n3\n4", "")]);
        assert_chunking_invariant(input);
    }

    #[test]
    fn one_optional_space_is_removed() {
        assert_eq!(decode(b"data:  x\n\n")[0].data, " x");
        assert_eq!(decode(b"data:\tx\n\n")[0].data, "\tx");
        assert_eq!(decode(b"data:x\n\n")[0].data, "x");
    }

    #[test]
    fn field_without_colon_has_empty_value() {
        assert_eq!(
            decode(b"data:\n\ndata\ndata\n\ndata:test\n\n"),
            vec![
                ev("message", "", ""),
                ev("message", "\n", ""),
                ev("message", "test", "")
            ]
        );
    }

    #[test]
    fn event_type_resets_after_dispatch_and_dataless_blocks() {
        assert_eq!(
            decode(b"event: a\ndata: 1\n\ndata: 2\n\nevent: b\n\ndata: 3\n\nevent:\ndata: 4\n\n"),
            vec![
                ev("a", "1", ""),
                ev("message", "2", ""),
                ev("message", "3", ""),
                ev("message", "4", "")
            ]
        );
    }

    #[test]
    fn each_event_has_its_own_type_when_types_repeat_and_change() {
        let stream =
            b"event: a\ndata: 1\n\nevent: a\ndata: 2\n\nevent: ab\ndata: 3\n\nevent: \xffb\ndata: 4\n\nevent: \xffb\ndata: 5\n\ndata: 6\n\nevent: a\ndata: 7\n\n";
        assert_eq!(
            decode(stream),
            vec![
                ev("a", "1", ""),
                ev("a", "2", ""),
                ev("ab", "3", ""),
                ev("\u{fffd}b", "4", ""),
                ev("\u{fffd}b", "5", ""),
                ev("message", "6", ""),
                ev("a", "7", "")
            ]
        );
    }

    #[test]
    fn id_persists_resets_and_ignores_nul() {
        let events = decode(b"id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\nid: 2\0\ndata: d\n\n");
        let ids: Vec<_> = events.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["1", "1", "", ""]);
    }

    #[test]
    fn id_committed_without_dispatch() {
        let mut decoder = Decoder::default();
        let mut count = 0;
        decoder.feed(b"id: 7\n\n", |_| count += 1).unwrap();
        assert_eq!((count, decoder.last_event_id()), (0, "7"));
    }

    #[test]
    fn unterminated_block_id_is_not_committed() {
        let mut decoder = Decoder::default();
        let mut events = Vec::new();
        decoder
            .feed(b"data: 1\n\nid: x\ndata: 2\n", |e| {
                events.push(OwnedEvent::from(e))
            })
            .unwrap();
        decoder.close(|e| events.push(e.into())).unwrap();
        assert_eq!(events, vec![ev("message", "1", "")]);
        assert_eq!(decoder.last_event_id(), "");
    }

    #[test]
    fn retry_digits_only() {
        let mut decoder = Decoder::default();
        for value in [
            "+5",
            "-1",
            "  7",
            "1_000",
            "\u{663}",
            "1000x",
            "",
            "99999999999999999999999",
        ] {
            decoder
                .feed(format!("retry:{value}\n").as_bytes(), |_| {})
                .unwrap();
        }
        assert_eq!(decoder.retry(), None);
        decoder.feed(b"retry: 02000\n", |_| {}).unwrap();
        assert_eq!(decoder.retry(), Some(2000));
        let mut events = Vec::new();
        decoder
            .feed(b"retry: 5\ndata: x\n\ndata: y\n\n", |e| {
                events.push(OwnedEvent::from(e))
            })
            .unwrap();
        assert_eq!(events[0].retry, Some(5));
        assert_eq!(events[1].retry, None);
    }

    #[test]
    fn invalid_utf8_becomes_replacement_and_split_chars_decode_whole() {
        assert_eq!(
            decode(b"data: a\xFFb\xE2\x82\n\n")[0].data,
            "a\u{FFFD}b\u{FFFD}"
        );
        assert_chunking_invariant("data: h\u{e9}llo \u{1F600}\n\n".as_bytes());
    }

    #[test]
    fn nul_in_data_is_kept() {
        assert_eq!(decode(b"data:\0\n\n")[0].data, "\0");
    }

    #[test]
    fn line_limit_names_offset_and_keeps_earlier_events() {
        let limits = Limits {
            max_line_bytes: Some(8),
            max_event_bytes: None,
        };
        let input = b"data: ok\n\ndata: too long\n\n";
        let (events, result) = decode_chunks(&[input], limits);
        assert_eq!(events, vec![ev("message", "ok", "")]);
        let err = result.unwrap_err();
        assert_eq!(
            (err.kind, err.max_bytes, err.offset),
            (LimitKind::Line, 8, 10)
        );
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        assert_eq!(decode_chunks(&bytes, limits).1.unwrap_err(), err);
    }

    #[test]
    fn ignored_lines_are_not_limited_nor_buffered() {
        let limits = Limits {
            max_line_bytes: Some(8),
            max_event_bytes: None,
        };
        let mut input = b":".to_vec();
        input.extend(std::iter::repeat_n(b'x', 1000));
        input.extend(b"\nunknownfield: yyyyyyyyyyyyyyyy\ndata: ok\n\n");
        let bytes: Vec<&[u8]> = input.chunks(3).collect();
        let (events, result) = decode_chunks(&bytes, limits);
        result.unwrap();
        assert_eq!(events, vec![ev("message", "ok", "")]);
    }

    #[test]
    fn event_limit() {
        let limits = Limits {
            max_line_bytes: None,
            max_event_bytes: Some(5),
        };
        let (events, result) =
            decode_chunks(&[b"data: ab\ndata: cd\n\ndata: abc\ndata: def\n\n"], limits);
        assert_eq!(events, vec![ev("message", "ab\ncd", "")]);
        let err = result.unwrap_err();
        assert_eq!((err.kind, err.offset), (LimitKind::Event, 29));
    }

    #[test]
    fn failed_decoder_refuses_input() {
        let limits = Limits {
            max_line_bytes: Some(4),
            max_event_bytes: None,
        };
        let mut decoder = Decoder::new(limits);
        let first = decoder.feed(b"data: xxxxx", |_| {}).unwrap_err();
        assert_eq!(decoder.feed(b"\n\n", |_| {}).unwrap_err(), first);
        assert_eq!(decoder.close(|_| {}).unwrap_err(), first);
    }

    #[test]
    fn close_allows_a_new_stream_keeping_the_id() {
        let mut decoder = Decoder::with_last_event_id(Limits::default(), "5");
        let mut events = Vec::new();
        decoder
            .feed(b"data: a\n\nid: 6\ndata: b", |e| {
                events.push(OwnedEvent::from(e))
            })
            .unwrap();
        decoder.close(|_| {}).unwrap();
        decoder
            .feed(b"\xEF\xBB\xBFdata: c\n\n", |e| events.push(e.into()))
            .unwrap();
        assert_eq!(
            events,
            vec![ev("message", "a", "5"), ev("message", "c", "5")]
        );
    }

    #[test]
    fn long_line_fed_bytewise_is_linear() {
        // 4 MiB one byte at a time: quadratic rescanning would take minutes.
        let mut input = b"data: ".to_vec();
        input.extend(std::iter::repeat_n(b'a', 4 << 20));
        input.extend(b"\n\n");
        let mut decoder = Decoder::default();
        let mut sizes = Vec::new();
        for byte in input.chunks(1) {
            decoder.feed(byte, |e| sizes.push(e.data.len())).unwrap();
        }
        assert_eq!(sizes, vec![4 << 20]);
    }
}
