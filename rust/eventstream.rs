//! The AWS event stream (`application/vnd.amazon.eventstream`), the binary
//! framing of the AWS streaming APIs:
//! decoding its messages in any chunking, and encoding them.
//!
//! A message is a prelude (its total length, its headers' length, both
//! 32-bit big-endian, and the CRC32 of those 8 bytes), its headers (each a
//! name of 1 to 255 bytes, a type byte and a value of that type), its
//! payload, and the CRC32 of everything before it. Both CRCs are checked: a
//! message that fails either is an error naming where it starts, and the
//! messages before it have been handed out. A message longer than the limit
//! is refused from its prelude, before it is held.
//! `python/agentcodec/_pure/eventstream.py` mirrors this module.

use std::borrow::Cow;
use std::fmt;

/// The bytes of a prelude, and of a prelude and the message CRC.
const PRELUDE: usize = 12;
const OVERHEAD: usize = 16;

/// CRC32 (IEEE 802.3, as zlib computes it), eight bytes a step ("slicing
/// by 8"): table `k` gives the CRC of a byte followed by `k` zero bytes.
/// Made at compile time.
const CRC_TABLES: [[u32; 256]; 8] = {
    let mut tables = [[0u32; 256]; 8];
    let mut n = 0;
    while n < 256 {
        let mut crc = n as u32;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 1 == 1 {
                0xEDB8_8320 ^ (crc >> 1)
            } else {
                crc >> 1
            };
            bit += 1;
        }
        tables[0][n] = crc;
        n += 1;
    }
    let mut n = 0;
    while n < 256 {
        let mut crc = tables[0][n];
        let mut k = 1;
        while k < 8 {
            crc = tables[0][(crc & 0xFF) as usize] ^ (crc >> 8);
            tables[k][n] = crc;
            k += 1;
        }
        n += 1;
    }
    tables
};

/// The CRC32 of `bytes`.
pub fn crc32(bytes: &[u8]) -> u32 {
    let t = &CRC_TABLES;
    let mut crc = !0u32;
    let mut steps = bytes.chunks_exact(8);
    for step in &mut steps {
        let low = u32::from_le_bytes([step[0], step[1], step[2], step[3]]) ^ crc;
        let high = u32::from_le_bytes([step[4], step[5], step[6], step[7]]);
        crc = t[7][(low & 0xFF) as usize]
            ^ t[6][((low >> 8) & 0xFF) as usize]
            ^ t[5][((low >> 16) & 0xFF) as usize]
            ^ t[4][(low >> 24) as usize]
            ^ t[3][(high & 0xFF) as usize]
            ^ t[2][((high >> 8) & 0xFF) as usize]
            ^ t[1][((high >> 16) & 0xFF) as usize]
            ^ t[0][(high >> 24) as usize];
    }
    for &byte in steps.remainder() {
        crc = t[0][((crc ^ u32::from(byte)) & 0xFF) as usize] ^ (crc >> 8);
    }
    !crc
}

/// A header's value, by its type byte (0 to 9). A decoded message's
/// strings and bytes borrow from the stream: a message is read once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeaderValue<'a> {
    Bool(bool),
    Byte(i8),
    Short(i16),
    Int(i32),
    Long(i64),
    Bytes(Cow<'a, [u8]>),
    String(Cow<'a, str>),
    /// Milliseconds since the Unix epoch.
    Timestamp(i64),
    Uuid([u8; 16]),
}

impl HeaderValue<'_> {
    /// The value, owning what it borrowed.
    pub fn into_owned(self) -> HeaderValue<'static> {
        match self {
            HeaderValue::Bool(flag) => HeaderValue::Bool(flag),
            HeaderValue::Byte(number) => HeaderValue::Byte(number),
            HeaderValue::Short(number) => HeaderValue::Short(number),
            HeaderValue::Int(number) => HeaderValue::Int(number),
            HeaderValue::Long(number) => HeaderValue::Long(number),
            HeaderValue::Bytes(data) => HeaderValue::Bytes(Cow::Owned(data.into_owned())),
            HeaderValue::String(text) => HeaderValue::String(Cow::Owned(text.into_owned())),
            HeaderValue::Timestamp(millis) => HeaderValue::Timestamp(millis),
            HeaderValue::Uuid(raw) => HeaderValue::Uuid(raw),
        }
    }
}

/// A message's headers, in order.
pub type Headers<'a> = Vec<(&'a str, HeaderValue<'a>)>;

/// One message: its headers in order, and its payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message<'a> {
    pub headers: Headers<'a>,
    pub payload: &'a [u8],
}

impl Message<'_> {
    /// The value of a string header.
    pub fn header_str(&self, name: &str) -> Option<&str> {
        self.headers.iter().find_map(|(key, value)| match value {
            HeaderValue::String(text) if *key == name => Some(text.as_ref()),
            _ => None,
        })
    }
}

/// What is wrong with the stream, and where the message it is in starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameError {
    pub offset: u64,
    pub reason: String,
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "event stream message at byte offset {}: {}",
            self.offset, self.reason
        )
    }
}

impl std::error::Error for FrameError {}

/// A name as JSON writes it, for the messages both backends share.
fn quoted(name: &str) -> String {
    crate::json::to_text(&crate::json::Value::String(name.to_owned()))
}

fn be32(bytes: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// Incremental decoder: hands out each message as soon as it is whole.
#[derive(Debug, Clone, Default)]
pub struct Decoder {
    max_message_bytes: Option<usize>,
    /// Bytes of a message not whole yet.
    held: Vec<u8>,
    /// Stream offset of `held[0]`.
    offset: u64,
    failed: Option<FrameError>,
}

impl Decoder {
    /// A decoder refusing messages longer than `max_message_bytes`.
    pub fn new(max_message_bytes: Option<usize>) -> Self {
        Decoder {
            max_message_bytes,
            ..Decoder::default()
        }
    }

    /// Feeds one chunk; `on_message` is called with every message it
    /// completes. After an error the messages before the bad one have been
    /// handed out, and the decoder refuses further input.
    pub fn feed(
        &mut self,
        chunk: &[u8],
        mut on_message: impl FnMut(&Message<'_>),
    ) -> Result<(), FrameError> {
        if let Some(err) = &self.failed {
            return Err(err.clone());
        }
        let result = if self.held.is_empty() {
            // Whole messages are read from the chunk itself; only a message
            // cut by the chunk's end is copied.
            let read = scan(chunk, self.offset, self.max_message_bytes, &mut on_message);
            match read {
                Ok(used) => {
                    self.held.extend_from_slice(&chunk[used..]);
                    self.offset += used as u64;
                    Ok(())
                }
                Err(err) => Err(err),
            }
        } else {
            self.held.extend_from_slice(chunk);
            let held = std::mem::take(&mut self.held);
            let read = scan(&held, self.offset, self.max_message_bytes, &mut on_message);
            self.held = held;
            match read {
                Ok(used) => {
                    self.held.drain(..used);
                    self.offset += used as u64;
                    Ok(())
                }
                Err(err) => Err(err),
            }
        };
        if let Err(err) = &result {
            self.failed = Some(err.clone());
            self.held = Vec::new();
        }
        result
    }

    /// Ends the stream: one that ends inside a message is an error. The
    /// decoder may then read a new stream.
    pub fn close(&mut self) -> Result<(), FrameError> {
        if let Some(err) = &self.failed {
            return Err(err.clone());
        }
        let cut = !self.held.is_empty();
        let error = FrameError {
            offset: self.offset,
            reason: format!("the stream ends {} bytes into it", self.held.len()),
        };
        *self = Decoder::new(self.max_message_bytes);
        if cut {
            return Err(error);
        }
        Ok(())
    }
}

/// Hands out the whole messages `bytes` holds; gives how many bytes they took.
fn scan(
    bytes: &[u8],
    base: u64,
    max: Option<usize>,
    on_message: &mut impl FnMut(&Message<'_>),
) -> Result<usize, FrameError> {
    let mut pos = 0;
    while bytes.len() - pos >= PRELUDE {
        let offset = base + pos as u64;
        let fail = |reason: String| Err(FrameError { offset, reason });
        let prelude = &bytes[pos..pos + PRELUDE];
        let expected = be32(prelude, 8);
        let found = crc32(&prelude[..8]);
        if expected != found {
            return fail(format!(
                "its prelude CRC is {expected:#010x}, not {found:#010x}"
            ));
        }
        let total = be32(prelude, 0) as usize;
        let headers = be32(prelude, 4) as usize;
        if total < OVERHEAD || headers > total - OVERHEAD {
            return fail(format!(
                "its length {total} cannot hold its {headers} bytes of headers"
            ));
        }
        if let Some(max) = max.filter(|&max| total > max) {
            return fail(format!(
                "its length {total} exceeds max_message_bytes={max}"
            ));
        }
        if bytes.len() - pos < total {
            break;
        }
        let frame = &bytes[pos..pos + total];
        let expected = be32(frame, total - 4);
        let found = crc32(&frame[..total - 4]);
        if expected != found {
            return fail(format!(
                "its message CRC is {expected:#010x}, not {found:#010x}"
            ));
        }
        let parsed = match parse_headers(&frame[PRELUDE..PRELUDE + headers]) {
            Ok(parsed) => parsed,
            Err(reason) => return fail(reason),
        };
        on_message(&Message {
            headers: parsed,
            payload: &frame[PRELUDE + headers..total - 4],
        });
        pos += total;
    }
    Ok(pos)
}

/// `piece`, which starts `start` bytes into the block `whole` read as text
/// (when it was), as text: a slice of it, or read alone.
fn text_at<'a>(whole: Option<&'a str>, start: usize, piece: &'a [u8]) -> Option<&'a str> {
    whole
        .and_then(|whole| whole.get(start..start + piece.len()))
        .or_else(|| std::str::from_utf8(piece).ok())
}

fn parse_headers(mut bytes: &[u8]) -> Result<Headers<'_>, String> {
    // The whole block read as text once (it is, where every header is a
    // string of ASCII, as a Converse message's are): a name or value is then
    // a slice of it, where each apart would cost a `from_utf8` call.
    let whole = std::str::from_utf8(bytes).ok();
    let mut headers = Vec::new();
    let mut at = 0usize;
    let short =
        |what: &str, at: usize| format!("its headers end inside {what} at header byte {at}");
    while !bytes.is_empty() {
        let name_length = usize::from(bytes[0]);
        if name_length == 0 {
            return Err(format!("a header at header byte {at} has an empty name"));
        }
        if bytes.len() < 2 + name_length {
            return Err(short("a header's name", at));
        }
        let Some(name) = text_at(whole, at + 1, &bytes[1..1 + name_length]) else {
            return Err(format!("the header name at header byte {at} is not UTF-8"));
        };
        let kind = bytes[1 + name_length];
        let rest = &bytes[2 + name_length..];
        let fixed = |size: usize| -> Result<&[u8], String> {
            rest.get(..size)
                .ok_or_else(|| short(&format!("header {}", quoted(name)), at))
        };
        let (value, size) = match kind {
            0 => (HeaderValue::Bool(true), 0),
            1 => (HeaderValue::Bool(false), 0),
            2 => (HeaderValue::Byte(fixed(1)?[0] as i8), 1),
            3 => {
                let raw = fixed(2)?;
                (HeaderValue::Short(i16::from_be_bytes([raw[0], raw[1]])), 2)
            }
            4 => {
                let raw = fixed(4)?;
                (
                    HeaderValue::Int(i32::from_be_bytes([raw[0], raw[1], raw[2], raw[3]])),
                    4,
                )
            }
            5 | 8 => {
                let raw: [u8; 8] = fixed(8)?.try_into().expect("eight bytes");
                let number = i64::from_be_bytes(raw);
                let value = if kind == 5 {
                    HeaderValue::Long(number)
                } else {
                    HeaderValue::Timestamp(number)
                };
                (value, 8)
            }
            6 | 7 => {
                let raw = fixed(2)?;
                let length = usize::from(u16::from_be_bytes([raw[0], raw[1]]));
                let data = &fixed(2 + length)?[2..];
                let value = if kind == 6 {
                    HeaderValue::Bytes(Cow::Borrowed(data))
                } else {
                    match text_at(whole, at + 2 + name_length + 2, data) {
                        Some(text) => HeaderValue::String(Cow::Borrowed(text)),
                        None => {
                            return Err(format!(
                                "header {} is a string that is not UTF-8",
                                quoted(name)
                            ))
                        }
                    }
                };
                (value, 2 + length)
            }
            9 => {
                let raw: [u8; 16] = fixed(16)?.try_into().expect("sixteen bytes");
                (HeaderValue::Uuid(raw), 16)
            }
            other => {
                return Err(format!(
                    "header {} has the unknown type {other}",
                    quoted(name)
                ))
            }
        };
        headers.push((name, value));
        let used = 2 + name_length + size;
        bytes = &bytes[used..];
        at += used;
    }
    Ok(headers)
}

/// Appends one message: its prelude, headers, payload and CRCs. A header
/// name longer than 255 bytes, or a string or bytes value longer than
/// 65,535, is an error (the format has no room for it).
pub fn encode<N: AsRef<str>>(
    headers: &[(N, HeaderValue<'_>)],
    payload: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let mut written = Vec::new();
    for (name, value) in headers {
        let name = name.as_ref();
        let name_length = u8::try_from(name.len())
            .ok()
            .filter(|&length| length > 0)
            .ok_or_else(|| format!("header name {} is not 1 to 255 bytes long", quoted(name)))?;
        written.push(name_length);
        written.extend_from_slice(name.as_bytes());
        match value {
            HeaderValue::Bool(true) => written.push(0),
            HeaderValue::Bool(false) => written.push(1),
            HeaderValue::Byte(byte) => {
                written.push(2);
                written.extend_from_slice(&byte.to_be_bytes());
            }
            HeaderValue::Short(number) => {
                written.push(3);
                written.extend_from_slice(&number.to_be_bytes());
            }
            HeaderValue::Int(number) => {
                written.push(4);
                written.extend_from_slice(&number.to_be_bytes());
            }
            HeaderValue::Long(number) => {
                written.push(5);
                written.extend_from_slice(&number.to_be_bytes());
            }
            HeaderValue::Bytes(_) | HeaderValue::String(_) => {
                let (kind, data) = match value {
                    HeaderValue::String(text) => (7, text.as_bytes()),
                    HeaderValue::Bytes(data) => (6, data.as_ref()),
                    _ => unreachable!("matched above"),
                };
                let length = u16::try_from(data.len())
                    .map_err(|_| format!("header {} is longer than 65535 bytes", quoted(name)))?;
                written.push(kind);
                written.extend_from_slice(&length.to_be_bytes());
                written.extend_from_slice(data);
            }
            HeaderValue::Timestamp(millis) => {
                written.push(8);
                written.extend_from_slice(&millis.to_be_bytes());
            }
            HeaderValue::Uuid(raw) => {
                written.push(9);
                written.extend_from_slice(raw);
            }
        }
    }
    let total = OVERHEAD + written.len() + payload.len();
    let total = u32::try_from(total).map_err(|_| "the message is longer than 4 GiB".to_owned())?;
    let headers_length = written.len() as u32;
    let start = out.len();
    out.extend_from_slice(&total.to_be_bytes());
    out.extend_from_slice(&headers_length.to_be_bytes());
    let prelude_crc = crc32(&out[start..]);
    out.extend_from_slice(&prelude_crc.to_be_bytes());
    out.extend_from_slice(&written);
    out.extend_from_slice(payload);
    let message_crc = crc32(&out[start..]);
    out.extend_from_slice(&message_crc.to_be_bytes());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    type Owned = Vec<(String, HeaderValue<'static>)>;

    fn messages(chunks: &[&[u8]]) -> Result<Vec<(Owned, Vec<u8>)>, FrameError> {
        let mut decoder = Decoder::new(Some(1 << 20));
        let mut out = Vec::new();
        for chunk in chunks {
            decoder.feed(chunk, |message| {
                let headers = message
                    .headers
                    .iter()
                    .map(|(name, value)| (name.to_string(), value.clone().into_owned()))
                    .collect();
                out.push((headers, message.payload.to_vec()));
            })?;
        }
        decoder.close()?;
        Ok(out)
    }

    #[test]
    fn crc32_is_zlibs() {
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        // Every length about the eight-byte step, against one byte a step.
        let data: Vec<u8> = (0..100u32).map(|n| (n * 37 + 11) as u8).collect();
        for end in 0..data.len() {
            let mut crc = !0u32;
            for &byte in &data[..end] {
                crc = CRC_TABLES[0][((crc ^ u32::from(byte)) & 0xFF) as usize] ^ (crc >> 8);
            }
            assert_eq!(crc32(&data[..end]), !crc, "{end}");
        }
    }

    #[test]
    fn what_is_encoded_decodes_in_any_chunking() {
        let headers = vec![
            (
                ":event-type".to_owned(),
                HeaderValue::String("contentBlockDelta".into()),
            ),
            ("flag".to_owned(), HeaderValue::Bool(false)),
            ("n".to_owned(), HeaderValue::Int(-7)),
            ("when".to_owned(), HeaderValue::Timestamp(1_700_000_000_000)),
            ("raw".to_owned(), HeaderValue::Bytes(vec![0, 1, 2].into())),
            ("id".to_owned(), HeaderValue::Uuid([7; 16])),
        ];
        let mut stream = Vec::new();
        encode(&headers, br#"{"delta":{"text":"Hi"}}"#, &mut stream).unwrap();
        encode::<&str>(&[], b"", &mut stream).unwrap();
        let whole = messages(&[&stream]).unwrap();
        assert_eq!(whole.len(), 2);
        assert_eq!(whole[0].0, headers);
        assert_eq!(whole[0].1, br#"{"delta":{"text":"Hi"}}"#);
        for cut in 0..stream.len() {
            assert_eq!(
                messages(&[&stream[..cut], &stream[cut..]]).unwrap(),
                whole,
                "{cut}"
            );
        }
    }

    #[test]
    fn headers_of_text_alone_read_as_slices_of_one_text_alike() {
        // All strings (the block is text: each value a slice of it), one
        // not ASCII; then one more header of bytes that are not UTF-8 (the
        // block is not text: each string read alone).
        let mut headers: Owned = vec![
            (
                ":event-type".to_owned(),
                HeaderValue::String("héllo".into()),
            ),
            ("ünïcode".to_owned(), HeaderValue::String("日本".into())),
        ];
        for _ in 0..2 {
            let mut stream = Vec::new();
            encode(&headers, b"{}", &mut stream).unwrap();
            assert_eq!(messages(&[&stream]).unwrap()[0].0, headers);
            headers.push((
                "raw".to_owned(),
                HeaderValue::Bytes(vec![0xff, 0xc3].into()),
            ));
        }
        // A string whose bytes are not UTF-8 is refused either way.
        let mut stream = Vec::new();
        encode(
            &[("s", HeaderValue::Bytes(vec![0xc3].into()))],
            b"",
            &mut stream,
        )
        .unwrap();
        let kind = PRELUDE + 2; // (after the name's length and the name)
        stream[kind] = 7; // (bytes -> string)
        let crc = |bytes: &[u8]| crc32(bytes).to_be_bytes();
        let end = stream.len() - 4;
        let message_crc = crc(&stream[..end]);
        stream[end..].copy_from_slice(&message_crc);
        let err = messages(&[&stream]).unwrap_err();
        assert!(
            err.reason.contains("is a string that is not UTF-8"),
            "{err}"
        );
    }

    #[test]
    fn a_bad_crc_names_the_message_and_what_came_before_stands() {
        let mut stream = Vec::new();
        encode::<&str>(&[], b"first", &mut stream).unwrap();
        let second = stream.len();
        encode::<&str>(&[], b"second", &mut stream).unwrap();
        let mut corrupt = stream.clone();
        *corrupt.last_mut().unwrap() ^= 1;
        let mut decoder = Decoder::new(None);
        let mut seen = Vec::new();
        let err = decoder
            .feed(&corrupt, |message| seen.push(message.payload.to_vec()))
            .unwrap_err();
        assert_eq!(seen, vec![b"first".to_vec()]);
        assert_eq!(err.offset, second as u64);
        assert!(err.reason.starts_with("its message CRC is"), "{err}");
        assert!(decoder.feed(b"", |_| ()).is_err());
        let mut corrupt = stream.clone();
        corrupt[second + 2] ^= 1;
        let err = messages(&[&corrupt]).unwrap_err();
        assert!(err.reason.starts_with("its prelude CRC is"), "{err}");
        let err = messages(&[&stream[..second + 3]]).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "event stream message at byte offset {second}: the stream ends 3 bytes into it"
            )
        );
    }
}
