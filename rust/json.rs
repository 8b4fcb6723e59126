//! JSON as both backends accept it: strict RFC 8259 (no `NaN`, no lone
//! surrogate escapes), integers of any size kept exactly, objects in the
//! order their keys came, nesting at most [`MAX_DEPTH`] deep.

pub use serde_json::{Map, Value};

mod read;

/// Deepest nesting accepted, in arrays and objects: serde_json's own limit
/// (it refuses the 128th level).
pub const MAX_DEPTH: usize = 127;

/// The most digits an integer may have. CPython makes no `int` from longer
/// text (`sys.int_info.default_max_str_digits`), so a longer one would be
/// assembled into a value no Python reader could have: it is its event's
/// error instead, as `json.loads` makes it.
pub const MAX_INT_DIGITS: usize = 4300;

/// Parses one JSON document.
pub fn parse(text: &str) -> Result<Value, serde_json::Error> {
    let value = read::from_str(text)?;
    // An integer over the limit needs as many bytes of text.
    if text.len() > MAX_INT_DIGITS && has_long_int(&value) {
        return Err(serde::de::Error::custom(LONG_INT));
    }
    Ok(value)
}

/// Objects up to this many keys are searched key by key ([`field`]).
const SMALL_OBJECT: usize = 12;

/// A field of an object, looked up as its `get` does. The objects a delta
/// appends to (a message, a content part, a tool call) have a handful of
/// keys: comparing them, length first, costs less than hashing the key
/// asked for, which every event of a stream would pay.
#[inline]
pub fn field<'m, O: Object>(object: &'m O, key: &str) -> Option<&'m Value> {
    if object.size() > SMALL_OBJECT {
        return object.hashed(key);
    }
    object
        .entries()
        .find(|(name, _)| same_key(name, key))
        .map(|(_, value)| value)
}

/// [`field`], to change it.
#[inline]
pub fn field_mut<'m, O: Object>(object: &'m mut O, key: &str) -> Option<&'m mut Value> {
    if object.size() > SMALL_OBJECT {
        return object.hashed_mut(key);
    }
    object
        .entries_mut()
        .find(|(name, _)| same_key(name, key))
        .map(|(_, value)| value)
}

/// Whether two keys are the same: for keys of up to 16 bytes, two
/// overlapping loads from each and no call. Keys of one length differ
/// often (`responseId` and `candidates`), and `==` called memcmp for each
/// (measured: an eighth of one protocol's assembly).
#[inline(always)]
fn same_key(name: &str, key: &str) -> bool {
    let (name, key) = (name.as_bytes(), key.as_bytes());
    let length = key.len();
    if name.len() != length {
        return false;
    }
    // The first and last `N` bytes of each: all of them when `N` is at
    // least half the length.
    fn ends<const N: usize>(bytes: &[u8]) -> ([u8; N], [u8; N]) {
        let mut head = [0; N];
        let mut tail = [0; N];
        head.copy_from_slice(&bytes[..N]);
        tail.copy_from_slice(&bytes[bytes.len() - N..]);
        (head, tail)
    }
    match length {
        0 => true,
        1 => name[0] == key[0],
        2..=3 => ends::<2>(name) == ends::<2>(key),
        4..=7 => ends::<4>(name) == ends::<4>(key),
        8..=16 => {
            let word = |(head, tail): ([u8; 8], [u8; 8])| {
                (u64::from_le_bytes(head), u64::from_le_bytes(tail))
            };
            word(ends::<8>(name)) == word(ends::<8>(key))
        }
        _ => name == key,
    }
}

/// A JSON object as [`field`] reads it: serde_json's, or an `IndexMap` of
/// fields an assembler keeps (with its own hasher).
pub trait Object {
    fn size(&self) -> usize;
    fn hashed(&self, key: &str) -> Option<&Value>;
    fn hashed_mut(&mut self, key: &str) -> Option<&mut Value>;
    fn entries(&self) -> impl Iterator<Item = (&String, &Value)>;
    fn entries_mut(&mut self) -> impl Iterator<Item = (&String, &mut Value)>;
}

impl Object for Map<String, Value> {
    fn size(&self) -> usize {
        self.len()
    }
    fn hashed(&self, key: &str) -> Option<&Value> {
        self.get(key)
    }
    fn hashed_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.get_mut(key)
    }
    fn entries(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.iter()
    }
    fn entries_mut(&mut self) -> impl Iterator<Item = (&String, &mut Value)> {
        self.iter_mut()
    }
}

impl<S: std::hash::BuildHasher> Object for indexmap::IndexMap<String, Value, S> {
    fn size(&self) -> usize {
        self.len()
    }
    fn hashed(&self, key: &str) -> Option<&Value> {
        self.get(key)
    }
    fn hashed_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.get_mut(key)
    }
    fn entries(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.iter()
    }
    fn entries_mut(&mut self) -> impl Iterator<Item = (&String, &mut Value)> {
        self.iter_mut()
    }
}

/// Why a value with an integer of more than [`MAX_INT_DIGITS`] digits is
/// refused; the pure backend says the same.
pub const LONG_INT: &str = "an integer of more than 4300 digits";

/// Whether an integer's text (digits, maybe a `-`) is over the limit.
pub fn is_long_int(text: &str) -> bool {
    text.len() > MAX_INT_DIGITS
        && !text.bytes().any(|b| matches!(b, b'.' | b'e' | b'E'))
        && text.trim_start_matches('-').len() > MAX_INT_DIGITS
}

/// Whether `value` holds an integer of more than [`MAX_INT_DIGITS`] digits.
fn has_long_int(value: &Value) -> bool {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Number(number) if is_long_int(number.as_str()) => return true,
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    false
}

/// What kind of JSON value this is, for error messages.
pub fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "JSON null",
        Value::Bool(_) => "a JSON boolean",
        Value::Number(_) => "a JSON number",
        Value::String(_) => "a JSON string",
        Value::Array(_) => "a JSON array",
        Value::Object(_) => "a JSON object",
    }
}

/// The nesting depth of a value: a scalar is 0, `[]` is 1.
pub fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((item, depth)) = stack.pop() {
        let depth = match item {
            Value::Array(items) => {
                stack.extend(items.iter().map(|child| (child, depth + 1)));
                depth + 1
            }
            Value::Object(map) => {
                stack.extend(map.values().map(|child| (child, depth + 1)));
                depth + 1
            }
            _ => continue,
        };
        deepest = deepest.max(depth);
    }
    deepest
}

/// A value's size and nesting depth, walked without recursion (a document
/// JSON Patch built may be deeper than the parser allows).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Measure {
    /// One byte a value, plus the UTF-8 bytes of its strings and keys: an
    /// estimate of what it holds, in the unit `max_stream_bytes` counts.
    pub bytes: u64,
    /// As [`depth`] gives it.
    pub depth: usize,
}

/// Measures a value, as `json_values.measure` does in the pure backend.
pub fn measure(value: &Value) -> Measure {
    let mut measure = Measure { bytes: 0, depth: 0 };
    let mut stack = vec![(value, 0usize)];
    while let Some((item, depth)) = stack.pop() {
        measure.bytes += 1;
        match item {
            Value::String(text) => measure.bytes += text.len() as u64,
            Value::Array(items) => {
                stack.extend(items.iter().map(|child| (child, depth + 1)));
                measure.depth = measure.depth.max(depth + 1);
            }
            Value::Object(map) => {
                for (key, child) in map {
                    measure.bytes += key.len() as u64;
                    stack.push((child, depth + 1));
                }
                measure.depth = measure.depth.max(depth + 1);
            }
            _ => {}
        }
    }
    measure
}

/// Appends `text` as a JSON string, quoted and escaped exactly as Python's
/// `json.dumps(text, ensure_ascii=False)` does: `"`, `\\` and the control
/// characters escaped (short forms where JSON has them, `\u00xx` otherwise),
/// everything else, non-ASCII included, as is.
#[inline]
pub fn write_string(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    if is_plain(bytes) {
        // Nearly every string an event holds (its keys, ids, a token).
        out.reserve(bytes.len() + 2);
        out.push(b'"');
        out.extend_from_slice(bytes);
        out.push(b'"');
    } else {
        write_escaped(out, bytes);
    }
}

/// Appends `text` to a `String` as [`write_string`] writes it: what wraps
/// an event's text in a few keys writes their names so, with no `Value`
/// made for them.
#[inline]
pub fn push_string(out: &mut String, text: &str) {
    if is_plain(text.as_bytes()) {
        out.reserve(text.len() + 2);
        out.push('"');
        out.push_str(text);
        out.push('"');
    } else {
        out.push_str(&quote(text));
    }
}

/// [`write_string`] for a string with something to escape: kept out of line
/// so that the plain case stays small enough to inline where it is written.
#[inline(never)]
fn write_escaped(out: &mut Vec<u8>, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    loop {
        // Most of any text needs no escape: found eight bytes at a time.
        let at = plain_run(bytes, start);
        out.extend_from_slice(&bytes[start..at]);
        let Some(&byte) = bytes.get(at) else {
            break;
        };
        match byte {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            _ => {
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(byte >> 4)]);
                out.push(HEX[usize::from(byte & 0xf)]);
            }
        }
        start = at + 1;
    }
    out.push(b'"');
}

/// The end of the run of string bytes from `pos` that need no attention:
/// the position of the first quote, backslash or control character (or the
/// end). Eight bytes at a time, since most strings are plain.
pub fn plain_run(bytes: &[u8], mut pos: usize) -> usize {
    while let Some(word) = bytes.get(pos..pos + 8) {
        let flagged = flagged(u64::from_le_bytes(word.try_into().unwrap_or([0; 8])));
        if flagged != 0 {
            return pos + (flagged.trailing_zeros() / 8) as usize;
        }
        pos += 8;
    }
    while let Some(&byte) = bytes.get(pos) {
        if byte == b'"' || byte == b'\\' || byte < 0x20 {
            break;
        }
        pos += 1;
    }
    pos
}

/// Whether no byte of `bytes` needs an escape. The whole string is tested a
/// word at a time, its last few bytes as one more word that overlaps the one
/// before it (or, under eight bytes, as two overlapping halves), with no
/// early exit: for the short strings events are made of, a byte-by-byte tail
/// cost more than the rest of writing them.
fn is_plain(bytes: &[u8]) -> bool {
    let word_at = |at: usize| {
        let mut word = [0u8; 8];
        word.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(word)
    };
    let half_at = |at: usize| {
        let mut half = [0u8; 4];
        half.copy_from_slice(&bytes[at..at + 4]);
        // The upper half spaces, which are never flagged.
        u64::from(u32::from_le_bytes(half)) | 0x2020_2020_0000_0000
    };
    let len = bytes.len();
    let flags = match len {
        0 => 0,
        1..=3 => {
            // The first, middle and last bytes cover up to three.
            let word = 0x2020_2020_2000_0000
                | u64::from(bytes[0])
                | u64::from(bytes[len / 2]) << 8
                | u64::from(bytes[len - 1]) << 16;
            flagged(word)
        }
        4..=7 => flagged(half_at(0)) | flagged(half_at(len - 4)),
        _ => {
            let mut flags = flagged(word_at(len - 8));
            let mut at = 0;
            while at + 8 <= len {
                flags |= flagged(word_at(at));
                at += 8;
            }
            flags
        }
    };
    flags == 0
}

/// The high bit of each byte of `word` that is below 0x20, or equals '"' or
/// '\\' (the classic "has zero byte" test on word ^ pattern); bytes of 0x80
/// and above are not flagged, so UTF-8 passes through.
fn flagged(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let control = word.wrapping_sub(ONES * 0x20) & !word;
    let quote =
        (word ^ (ONES * u64::from(b'"'))).wrapping_sub(ONES) & !(word ^ (ONES * u64::from(b'"')));
    let backslash =
        (word ^ (ONES * u64::from(b'\\'))).wrapping_sub(ONES) & !(word ^ (ONES * u64::from(b'\\')));
    (control | quote | backslash) & HIGHS
}

/// Appends an integer's decimal digits: what `write!(out, "{value}")`
/// writes, without the formatting machinery (a third of a streamed delta's
/// framing, measured with callgrind).
pub fn write_int(out: &mut Vec<u8>, value: i64) {
    let mut buffer = [0u8; 20];
    let at = int_digits(value, &mut buffer);
    out.extend_from_slice(&buffer[at..]);
}

/// An integer's text, as [`write_int`] writes it, in `buffer` (one digit
/// from a table): a key to look up by, where a `String` would be made for
/// each lookup.
pub fn int_text(value: i64, buffer: &mut [u8; 20]) -> &str {
    const DIGITS: [&str; 10] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];
    if let Some(digit) = usize::try_from(value).ok().and_then(|at| DIGITS.get(at)) {
        return digit;
    }
    let at = int_digits(value, buffer);
    std::str::from_utf8(&buffer[at..]).expect("ASCII digits")
}

/// Writes `value`'s text at the end of `buffer` (20 bytes hold any i64,
/// its sign too); gives where it starts.
#[inline]
fn int_digits(value: i64, buffer: &mut [u8; 20]) -> usize {
    let mut at = buffer.len();
    let mut rest = value.unsigned_abs();
    loop {
        at -= 1;
        buffer[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if value < 0 {
        at -= 1;
        buffer[at] = b'-';
    }
    at
}

/// Appends `value` as compact JSON, exactly as `agentcodec._json.dumps`
/// writes the Python value `json.loads` makes of it: `,` and `:` without
/// spaces, non-ASCII as is, integers as their digits (no `-0`), floats as
/// Python's `repr` writes them with pydantic's negative exponents. Keys keep
/// their order. Both backends write converted streams through these rules.
pub fn write_value(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(number) => write_number(out, &number.to_string()),
        Value::String(text) => write_string(out, text),
        Value::Array(items) => {
            out.push(b'[');
            for (position, item) in items.iter().enumerate() {
                if position > 0 {
                    out.push(b',');
                }
                write_value(out, item);
            }
            out.push(b']');
        }
        Value::Object(map) => write_object(out, map),
    }
}

/// Appends an object as compact JSON ([`write_value`]).
pub fn write_object(out: &mut Vec<u8>, map: &Map<String, Value>) {
    out.push(b'{');
    for (position, (key, item)) in map.iter().enumerate() {
        if position > 0 {
            out.push(b',');
        }
        write_string(out, key);
        out.push(b':');
        write_value(out, item);
    }
    out.push(b'}');
}

/// `value` as compact JSON text ([`write_value`]).
pub fn to_text(value: &Value) -> String {
    let mut out = Vec::new();
    write_value(&mut out, value);
    String::from_utf8(out).expect("JSON text is UTF-8")
}

/// A JSON number's text as Python writes the number `json.loads` makes of
/// it: an integer's digits, a float's `repr` (see [`write_float`]).
fn write_number(out: &mut Vec<u8>, text: &str) {
    if !text.contains(['.', 'e', 'E']) {
        out.extend_from_slice(if text == "-0" { b"0" } else { text.as_bytes() });
        return;
    }
    match text.parse::<f64>() {
        Ok(float) if float.is_finite() => write_float(out, float),
        // Past a double's range: Python's float is infinite, which the JSON
        // writers refuse; the number's text is kept here.
        _ => out.extend_from_slice(text.as_bytes()),
    }
}

/// A finite float as `agentcodec._json.format_float` writes it: Python's
/// `repr` (the shortest digits that read back the same, the closest of them
/// to the value; positional between 1e-4 and 1e16, `1e+16` style beyond),
/// with pydantic's negative exponents (`1e-7`, and `0.000015` for
/// `1.5e-05`). zmij writes exactly that, straight into a buffer on the
/// stack: Rust's own `{:e}` picked another of two shortest digit strings
/// where Python picks the closer (1658206780088562.3 for Python's
/// 1658206780088562.2), and allocated twice a float.
pub fn write_float(out: &mut Vec<u8>, value: f64) {
    let mut buffer = zmij::Buffer::new();
    out.extend_from_slice(buffer.format_finite(value).as_bytes());
}

/// `text` as a JSON string: how error messages quote what they name, the
/// same in both backends (`json.dumps(text, ensure_ascii=False)`).
pub fn quote(text: &str) -> String {
    let mut out = Vec::with_capacity(text.len() + 2);
    write_string(&mut out, text);
    String::from_utf8(out).expect("escaping keeps UTF-8")
}

/// The character a one-letter escape (`\n`, `\"`, ...) stands for.
#[inline]
pub(crate) fn short_escape(byte: u8) -> Option<char> {
    Some(match byte {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_run_finds_the_first_byte_to_escape() {
        // Every length up to three words and a half, every start, a special
        // byte (or two) anywhere, against the byte-by-byte rule.
        let plain = |bytes: &[u8], from: usize| {
            (from..bytes.len())
                .find(|&at| matches!(bytes[at], b'"' | b'\\' | 0..=0x1f))
                .unwrap_or(bytes.len())
        };
        for len in 0usize..28 {
            for special in [b'"', b'\\', b'\n', 0, 0x1f, 0x20, 0x7f, 0xc3, 0xff] {
                for at in 0..=len {
                    for second in [None, Some(len.saturating_sub(1))] {
                        let mut bytes = vec![b'a'; len];
                        if let Some(byte) = bytes.get_mut(at) {
                            *byte = special;
                        }
                        if let Some(byte) = second.and_then(|second| bytes.get_mut(second)) {
                            *byte = b'"';
                        }
                        for from in 0..=len {
                            assert_eq!(
                                super::plain_run(&bytes, from),
                                plain(&bytes, from),
                                "{bytes:?} from {from}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn int_text_is_the_integers_text() {
        for number in [0, 7, 9, 10, 42, -1, -3, -10, i64::MAX, i64::MIN] {
            let mut buffer = [0u8; 20];
            assert_eq!(super::int_text(number, &mut buffer), number.to_string());
            let mut written = Vec::new();
            super::write_int(&mut written, number);
            assert_eq!(written, number.to_string().as_bytes());
        }
    }

    #[test]
    fn is_plain_sees_an_escape_at_every_position_of_every_short_length() {
        let needs_escape = |byte: u8| byte == b'"' || byte == b'\\' || byte < 0x20;
        for len in 0..40 {
            assert!(super::is_plain(&vec![b'a'; len]), "{len}");
            for at in 0..len {
                for byte in [
                    b'"', b'\\', 0, b'\n', 0x1f, b' ', b'a', b'~', 0x7f, 0x80, 0xc3, 0xff,
                ] {
                    let mut bytes = vec![b'a'; len];
                    bytes[at] = byte;
                    assert_eq!(super::is_plain(&bytes), !needs_escape(byte), "{bytes:?}");
                }
            }
        }
    }

    #[test]
    fn write_string_escapes_at_every_position() {
        // Each escaped byte at every offset of a word, among plain bytes and
        // non-ASCII text, against the byte-by-byte rule.
        for special in [
            '"', '\\', '\n', '\u{1}', '\u{1f}', '\u{7f}', 'é', ' ', '!', '#', '[', ']',
        ] {
            for at in 0..20 {
                let text: String = (0..20)
                    .map(|i| if i == at { special } else { 'a' })
                    .collect();
                let mut out = Vec::new();
                super::write_string(&mut out, &text);
                let expected = serde_json::to_string(&text).unwrap();
                assert_eq!(String::from_utf8(out).unwrap(), expected, "{text:?}");
            }
        }
    }

    #[test]
    fn write_int_writes_what_display_writes() {
        for value in [0, 1, -1, 9, 10, 99, 100, 12345, -907, i64::MAX, i64::MIN] {
            let mut out = Vec::new();
            super::write_int(&mut out, value);
            assert_eq!(String::from_utf8(out).unwrap(), value.to_string());
        }
    }

    #[test]
    fn same_key_is_equality() {
        // Every length up to past the word-sized compares, with a
        // difference at each position.
        for length in 0..24 {
            let key: String = (0..length).map(|at| char::from(b'a' + at as u8)).collect();
            assert!(super::same_key(&key, &key));
            assert!(!super::same_key(&key, &format!("{key}x")));
            for at in 0..length {
                let mut other = key.clone().into_bytes();
                other[at] = b'Z';
                let other = String::from_utf8(other).unwrap();
                assert!(!super::same_key(&key, &other), "{key} {other}");
            }
        }
        assert!(!super::same_key("responseId", "candidates"));
    }

    #[test]
    fn field_finds_what_get_finds() {
        // Small objects are searched key by key, large ones hashed: the
        // same answer either way, for keys present, absent, and prefixes.
        for size in [0usize, 1, 5, 12, 13, 40] {
            let mut object = Map::new();
            for at in 0..size {
                object.insert(format!("key{at}"), Value::from(at));
            }
            for key in ["key0", "key4", "key12", "key39", "key", "key00", ""] {
                assert_eq!(field(&object, key), object.get(key), "{size} {key}");
                let expected = object.get(key).cloned();
                assert_eq!(
                    field_mut(&mut object, key).map(|value| value.clone()),
                    expected
                );
            }
            if size > 0 {
                *field_mut(&mut object, "key0").unwrap() = Value::from("changed");
                assert_eq!(object["key0"], "changed");
            }
            let fields: crate::hashing::IndexMap<String, Value> =
                object.clone().into_iter().collect();
            for key in ["key0", "key4", "key12", "key39", "key", ""] {
                assert_eq!(field(&fields, key), object.get(key), "{size} {key}");
            }
        }
    }

    fn nested(levels: usize) -> String {
        "[".repeat(levels) + &"]".repeat(levels)
    }

    #[test]
    fn strict() {
        assert!(parse("NaN").is_err());
        assert!(parse("[Infinity]").is_err());
        assert!(parse(r#""\ud800""#).is_err());
        assert!(parse(r#""\udc00\ud800""#).is_err());
        assert_eq!(
            parse(r#""\ud83d\ude00""#).unwrap(),
            Value::String("\u{1F600}".into())
        );
    }

    #[test]
    fn exact_numbers_and_key_order() {
        let value = parse(r#"{"b":123456789012345678901234567890,"a":1.50,"c":-0}"#).unwrap();
        assert_eq!(
            value.to_string(),
            r#"{"b":123456789012345678901234567890,"a":1.50,"c":-0}"#
        );
    }

    #[test]
    fn duplicate_keys_keep_first_place_last_value() {
        let value = parse(r#"{"a":1,"b":2,"a":3}"#).unwrap();
        assert_eq!(value.to_string(), r#"{"a":3,"b":2}"#);
    }

    #[test]
    fn writes_strings_as_python_json_dumps() {
        let mut out = Vec::new();
        write_string(&mut out, "a\"b\\c\n\r\t\u{8}\u{c}\u{0}\u{1f}\u{7f}é🙂/");
        // DEL and non-ASCII pass through; so does '/'.
        let expected = r#""a\"b\\c\n\r\t\b\f\u0000\u001f"#.to_owned() + "\u{7f}é🙂/\"";
        assert_eq!(String::from_utf8(out).unwrap(), expected);
        // What the text writes parses back to the text.
        let text = "tab\there \"quoted\" \u{1} 数据";
        let mut out = Vec::new();
        write_string(&mut out, text);
        assert_eq!(
            parse(std::str::from_utf8(&out).unwrap()).unwrap(),
            Value::from(text)
        );
    }

    #[test]
    fn floats_as_python_and_pydantic_write_them() {
        let cases = [
            (1.0, "1.0"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (1.5, "1.5"),
            (0.1, "0.1"),
            (123.456, "123.456"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1.2345e22, "1.2345e+22"),
            (1e100, "1e+100"),
            (0.0001, "0.0001"),
            (1e-5, "0.00001"),
            (1.5e-5, "0.000015"),
            (1e-7, "1e-7"),
            (-2.5e-10, "-2.5e-10"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
        ];
        for (value, expected) in cases {
            let mut out = Vec::new();
            write_float(&mut out, value);
            assert_eq!(String::from_utf8(out).unwrap(), expected, "{value:e}");
        }
    }

    #[test]
    fn values_as_python_json_writes_them() {
        let value = parse(
            r#"{"a":-0,"b":1.50,"c":1E2,"d":[true,null,"é\n"],"e":123456789012345678901234567890}"#,
        )
        .unwrap();
        assert_eq!(
            to_text(&value),
            r#"{"a":0,"b":1.5,"c":100.0,"d":[true,null,"é\n"],"e":123456789012345678901234567890}"#
        );
    }

    #[test]
    fn integers_past_the_python_limit_are_refused() {
        let digits = "7".repeat(MAX_INT_DIGITS);
        assert!(parse(&format!("[-{digits}]")).is_ok());
        assert!(parse(&format!("[{digits}.5, 1{digits}e1]")).is_ok()); // floats have no limit
        let error = parse(&format!(r#"{{"a": [-1{digits}]}}"#)).unwrap_err();
        assert!(error.to_string().starts_with(LONG_INT));
        assert!(parse(&format!(r#""1{digits}""#)).is_ok()); // digits in a string
    }

    #[test]
    fn depth_limit() {
        assert_eq!(depth(&parse(&nested(MAX_DEPTH)).unwrap()), MAX_DEPTH);
        assert!(parse(&nested(MAX_DEPTH + 1)).is_err());
        let objects = r#"{"a":"#.repeat(MAX_DEPTH) + "1" + &"}".repeat(MAX_DEPTH);
        assert!(parse(&objects).is_ok());
        let deeper = r#"{"a":"#.repeat(MAX_DEPTH + 1) + "1" + &"}".repeat(MAX_DEPTH + 1);
        assert!(parse(&deeper).is_err());
    }
}
