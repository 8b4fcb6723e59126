//! An incremental partial-JSON parser: a JSON text fed in fragments, each
//! byte read once, building its value as it goes through a [`Builder`].
//!
//! The value so far is what jiter's `partial_mode="trailing-strings"` gives
//! for the whole prefix: complete keys and values, containers as soon as they
//! open, and the leaf being written ([`PartialJson::pending`]): a string up to
//! its last whole character, a number while it is a valid number. A builder
//! keeps one live tree, so reading the value after every fragment costs the
//! fragment and the leaf, not the text so far.

use std::fmt;

use memchr::memchr2;

use crate::json::{self, short_escape, MAX_DEPTH};

/// How deeply arrays and objects may nest before the text is refused.
pub const DEFAULT_MAX_DEPTH: usize = 512;

/// A complete scalar.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar<'a> {
    Null,
    Bool(bool),
    /// The number's text: valid JSON, `-?int(.frac)?(e[+-]?exp)?`.
    Number(&'a str),
    String(&'a str),
}

/// The leaf being written, as far as it shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pending<'a> {
    String(&'a str),
    /// A valid number so far (more digits may follow).
    Number(&'a str),
}

/// Where values go: every call is about the slot the next value fills (the
/// top level, the innermost array's next element, or the innermost object's
/// value under the last key). An `Err` is the reason the text is refused.
pub trait Builder {
    /// A container opens in the next slot; values go into it until `close`.
    fn open(&mut self, object: bool) -> Result<(), String>;
    /// The innermost container closes.
    fn close(&mut self);
    /// The key of the innermost object's next value.
    fn key(&mut self, key: &str) -> Result<(), String>;
    /// A complete scalar fills the next slot.
    fn scalar(&mut self, value: Scalar<'_>) -> Result<(), String>;
}

/// Invalid JSON: where (the byte offset from the start of the text) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartialJsonError {
    pub offset: usize,
    pub reason: String,
}

impl fmt::Display for PartialJsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid JSON at byte {}: {}", self.offset, self.reason)
    }
}

impl std::error::Error for PartialJsonError {}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    Value,
    /// A value or `]`: just after `[`.
    FirstValue,
    Key,
    /// A key or `}`: just after `{`.
    FirstKey,
    Colon,
    /// `,` or the innermost container's close.
    After,
    /// Nothing but whitespace: the value is complete.
    End,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    None,
    String,
    KeyString,
    Number,
    /// `true`, `false` or `null`, by its first letter.
    Literal(u8),
}

/// The parser's state: small, and never the text read so far (only the
/// token being read).
#[derive(Debug, Clone)]
pub struct PartialJson {
    /// The open containers, outermost first: true for an object.
    stack: Vec<bool>,
    expect: Expect,
    token: Token,
    /// The token's text: a string's decoded characters, a number's or a
    /// literal's characters.
    text: String,
    /// An escape being read: `\`, `\u`, `\u0`, ...
    escape: String,
    /// A high surrogate waiting for its low half.
    high: Option<u32>,
    /// Bytes read before the current fragment.
    offset: usize,
    /// The end of the last fragment when it cut a UTF-8 sequence.
    carry: Vec<u8>,
    max_depth: usize,
    error: Option<PartialJsonError>,
    /// [`PartialJson::end`] was called: the text is over.
    ended: bool,
}

impl Default for PartialJson {
    fn default() -> Self {
        PartialJson::new(DEFAULT_MAX_DEPTH)
    }
}

fn is_number_byte(byte: u8) -> bool {
    matches!(byte, b'0'..=b'9' | b'+' | b'-' | b'.' | b'e' | b'E')
}

/// Whether `text` is a JSON number.
pub fn is_number(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = usize::from(bytes.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < bytes.len() && bytes[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > start
    };
    match bytes.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if bytes.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return false;
        }
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(bytes.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return false;
        }
    }
    i == bytes.len()
}

fn literal(first: u8) -> (&'static str, Scalar<'static>) {
    match first {
        b't' => ("true", Scalar::Bool(true)),
        b'f' => ("false", Scalar::Bool(false)),
        _ => ("null", Scalar::Null),
    }
}

/// The character at `i` in an error message: quoted, or its code point
/// when it is a control character.
fn shown(text: &str, i: usize) -> String {
    match text[i..].chars().next() {
        Some(c) if c.is_control() => format!("U+{:04X}", u32::from(c)),
        Some(c) => format!("'{c}'"),
        None => "the end".to_owned(),
    }
}

impl PartialJson {
    pub fn new(max_depth: usize) -> Self {
        PartialJson {
            stack: Vec::new(),
            expect: Expect::Value,
            token: Token::None,
            text: String::new(),
            escape: String::new(),
            high: None,
            offset: 0,
            carry: Vec::new(),
            max_depth,
            error: None,
            ended: false,
        }
    }

    /// Whether the text is complete (a top-level number is complete once
    /// something follows it).
    pub fn done(&self) -> bool {
        self.expect == Expect::End && self.token == Token::None
    }

    /// Whether the text is complete if it ends here: done, or a top-level
    /// number that nothing followed (and no character cut in two).
    pub fn complete_at_end(&self) -> bool {
        self.carry.is_empty()
            && (self.done()
                || (self.stack.is_empty() && self.token == Token::Number && is_number(&self.text)))
    }

    /// How many bytes of text were read.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The error that stopped the parser, if one did.
    pub fn error(&self) -> Option<&PartialJsonError> {
        self.error.as_ref()
    }

    /// The leaf being written, where the builder's next slot is.
    pub fn pending(&self) -> Option<Pending<'_>> {
        match self.token {
            Token::String => Some(Pending::String(&self.text)),
            Token::Number if is_number(&self.text) => Some(Pending::Number(&self.text)),
            _ => None,
        }
    }

    /// Reads the next fragment (UTF-8, cut anywhere), telling the builder
    /// what it completes. After an error, every call returns it again.
    pub fn feed(
        &mut self,
        fragment: &[u8],
        builder: &mut impl Builder,
    ) -> Result<(), PartialJsonError> {
        if let Some(error) = &self.error {
            return Err(error.clone());
        }
        if self.ended {
            return Err(self.fail_at(0, "the text was ended".to_owned()));
        }
        let joined;
        let bytes = if self.carry.is_empty() {
            fragment
        } else {
            let mut carried = std::mem::take(&mut self.carry);
            carried.extend_from_slice(fragment);
            joined = carried;
            &joined[..]
        };
        let (text, rest) = match std::str::from_utf8(bytes) {
            Ok(text) => (text, &[][..]),
            Err(error) if error.error_len().is_none() => {
                let valid = error.valid_up_to();
                let text = std::str::from_utf8(&bytes[..valid]).expect("valid up to here");
                (text, &bytes[valid..])
            }
            // Not UTF-8: what comes before the bad byte is read first (an
            // error there comes first, however the text was cut), then the
            // bad byte is the error.
            Err(error) => {
                let valid = error.valid_up_to();
                let text = std::str::from_utf8(&bytes[..valid]).expect("valid up to here");
                self.parse(text, builder)?;
                self.offset += valid;
                return Err(self.fail_at(0, "invalid UTF-8".to_owned()));
            }
        };
        let rest = rest.to_vec();
        self.parse(text, builder)?;
        self.offset += text.len();
        self.carry = rest;
        Ok(())
    }

    /// The text is over: a top-level number that nothing followed is
    /// complete now (told to the builder); a text that is not one whole
    /// value is an error, as is any fragment fed after.
    pub fn end(&mut self, builder: &mut impl Builder) -> Result<(), PartialJsonError> {
        if let Some(error) = &self.error {
            return Err(error.clone());
        }
        if self.ended {
            return Ok(());
        }
        if !self.carry.is_empty() {
            return Err(self.fail_at(0, "the text ends inside a character".to_owned()));
        }
        if self.token == Token::Number && self.stack.is_empty() {
            self.end_number(0, builder)?;
        }
        if !self.done() {
            let empty =
                self.expect == Expect::Value && self.stack.is_empty() && self.token == Token::None;
            let reason = if empty {
                "the text ends before a value begins"
            } else {
                "the text ends before its value does"
            };
            return Err(self.fail_at(0, reason.to_owned()));
        }
        self.ended = true;
        Ok(())
    }

    /// Refuses the text `index` bytes into the current fragment (input the
    /// caller found is no UTF-8 text); every later `feed` returns the error.
    pub fn refuse(&mut self, index: usize, reason: &str) -> PartialJsonError {
        self.fail_at(index, reason.to_owned())
    }

    fn fail_at(&mut self, index: usize, reason: String) -> PartialJsonError {
        let error = PartialJsonError {
            offset: self.offset + index,
            reason,
        };
        self.error = Some(error.clone());
        error
    }

    fn check(&mut self, index: usize, result: Result<(), String>) -> Result<(), PartialJsonError> {
        result.map_err(|reason| self.fail_at(index, reason))
    }

    fn parse(&mut self, text: &str, builder: &mut impl Builder) -> Result<(), PartialJsonError> {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            match self.token {
                Token::String | Token::KeyString => {
                    i = self.string(text, i, builder)?;
                    continue;
                }
                Token::Number => {
                    let start = i;
                    while i < bytes.len() && is_number_byte(bytes[i]) {
                        i += 1;
                    }
                    self.text.push_str(&text[start..i]);
                    if i < bytes.len() {
                        self.end_number(i, builder)?;
                    }
                    continue;
                }
                Token::Literal(first) => {
                    let (word, value) = literal(first);
                    while i < bytes.len() && self.text.len() < word.len() {
                        if bytes[i] != word.as_bytes()[self.text.len()] {
                            return Err(
                                self.fail_at(i, format!("invalid literal, expected '{word}'"))
                            );
                        }
                        self.text.push(bytes[i] as char);
                        i += 1;
                    }
                    if self.text.len() == word.len() {
                        self.complete(i, value, builder)?;
                    }
                    continue;
                }
                Token::None => {}
            }
            let byte = bytes[i];
            if matches!(byte, b' ' | b'\t' | b'\n' | b'\r') {
                i += 1;
                continue;
            }
            match self.expect {
                Expect::Value | Expect::FirstValue => {
                    if byte == b']' && self.expect == Expect::FirstValue {
                        self.close(builder);
                    } else {
                        self.begin_value(text, i, builder)?;
                    }
                }
                Expect::Key | Expect::FirstKey => {
                    if byte == b'"' {
                        self.token = Token::KeyString;
                        self.text.clear();
                    } else if byte == b'}' && self.expect == Expect::FirstKey {
                        self.close(builder);
                    } else {
                        return Err(self.fail_at(
                            i,
                            format!("expected a string key, found {}", shown(text, i)),
                        ));
                    }
                }
                Expect::Colon => {
                    if byte != b':' {
                        return Err(self.fail_at(
                            i,
                            format!("expected ':' after a key, found {}", shown(text, i)),
                        ));
                    }
                    self.expect = Expect::Value;
                }
                Expect::After => {
                    let object = *self.stack.last().expect("a container is open");
                    let closer = if object { b'}' } else { b']' };
                    if byte == b',' {
                        self.expect = if object { Expect::Key } else { Expect::Value };
                    } else if byte == closer {
                        self.close(builder);
                    } else {
                        return Err(self.fail_at(
                            i,
                            format!(
                                "expected ',' or '{}', found {}",
                                closer as char,
                                shown(text, i)
                            ),
                        ));
                    }
                }
                Expect::End => {
                    return Err(self.fail_at(
                        i,
                        format!("unexpected {} after the JSON value", shown(text, i)),
                    ));
                }
            }
            i += 1;
        }
        Ok(())
    }

    fn begin_value(
        &mut self,
        text: &str,
        i: usize,
        builder: &mut impl Builder,
    ) -> Result<(), PartialJsonError> {
        let byte = text.as_bytes()[i];
        match byte {
            b'{' | b'[' => {
                if self.stack.len() >= self.max_depth {
                    let reason = format!("nesting deeper than max_depth={}", self.max_depth);
                    return Err(self.fail_at(i, reason));
                }
                let object = byte == b'{';
                let opened = builder.open(object);
                self.check(i, opened)?;
                self.stack.push(object);
                self.expect = if object {
                    Expect::FirstKey
                } else {
                    Expect::FirstValue
                };
            }
            b'"' => {
                self.token = Token::String;
                self.text.clear();
            }
            b'-' | b'0'..=b'9' => {
                self.token = Token::Number;
                self.text.clear();
                self.text.push(byte as char);
            }
            b't' | b'f' | b'n' => {
                self.token = Token::Literal(byte);
                self.text.clear();
                self.text.push(byte as char);
            }
            _ => return Err(self.fail_at(i, format!("expected a value, found {}", shown(text, i)))),
        }
        Ok(())
    }

    fn complete(
        &mut self,
        i: usize,
        value: Scalar<'_>,
        builder: &mut impl Builder,
    ) -> Result<(), PartialJsonError> {
        let done = builder.scalar(value);
        self.check(i, done)?;
        self.token = Token::None;
        self.text.clear();
        self.expect = if self.stack.is_empty() {
            Expect::End
        } else {
            Expect::After
        };
        Ok(())
    }

    fn close(&mut self, builder: &mut impl Builder) {
        self.stack.pop();
        builder.close();
        self.expect = if self.stack.is_empty() {
            Expect::End
        } else {
            Expect::After
        };
    }

    fn end_number(&mut self, i: usize, builder: &mut impl Builder) -> Result<(), PartialJsonError> {
        if !is_number(&self.text) {
            let reason = format!("invalid number '{}'", self.text);
            return Err(self.fail_at(i, reason));
        }
        let text = std::mem::take(&mut self.text);
        let result = self.complete(i, Scalar::Number(&text), builder);
        self.text = text;
        self.text.clear();
        result
    }

    fn string(
        &mut self,
        text: &str,
        mut i: usize,
        builder: &mut impl Builder,
    ) -> Result<usize, PartialJsonError> {
        let bytes = text.as_bytes();
        while i < bytes.len() {
            if !self.escape.is_empty() {
                i = self.escaped(text, i)?;
                continue;
            }
            let stop = memchr2(b'"', b'\\', &bytes[i..]).map_or(bytes.len(), |found| i + found);
            if stop > i {
                if self.high.is_some() {
                    // Before anything later in the run (a control character).
                    return Err(self.fail_at(i, "a lone surrogate".to_owned()));
                }
                if let Some(control) = bytes[i..stop].iter().position(|&byte| byte < 0x20) {
                    return Err(
                        self.fail_at(i + control, "a control character in a string".to_owned())
                    );
                }
                self.text.push_str(&text[i..stop]);
            }
            if stop == bytes.len() {
                return Ok(stop);
            }
            if bytes[stop] == b'\\' {
                self.escape.push('\\');
                i = stop + 1;
                continue;
            }
            if self.high.is_some() {
                return Err(self.fail_at(stop, "a lone surrogate".to_owned()));
            }
            let string = std::mem::take(&mut self.text);
            let result = if self.token == Token::KeyString {
                let keyed = builder.key(&string);
                self.check(stop, keyed).map(|()| {
                    self.token = Token::None;
                    self.expect = Expect::Colon;
                })
            } else {
                self.complete(stop, Scalar::String(&string), builder)
            };
            self.text = string;
            self.text.clear();
            result?;
            return Ok(stop + 1);
        }
        Ok(i)
    }

    fn escaped(&mut self, text: &str, i: usize) -> Result<usize, PartialJsonError> {
        let byte = text.as_bytes()[i];
        if self.escape.len() == 1 {
            if byte == b'u' {
                self.escape.push('u');
                return Ok(i + 1);
            }
            let Some(decoded) = short_escape(byte) else {
                let reason = format!("invalid escape, found {}", shown(text, i));
                return Err(self.fail_at(i, reason));
            };
            if self.high.is_some() {
                return Err(self.fail_at(i, "a lone surrogate".to_owned()));
            }
            self.text.push(decoded);
            self.escape.clear();
            return Ok(i + 1);
        }
        if !byte.is_ascii_hexdigit() {
            return Err(self.fail_at(i, format!("invalid \\u escape, found {}", shown(text, i))));
        }
        self.escape.push(byte as char);
        if self.escape.len() < 6 {
            return Ok(i + 1);
        }
        let code = u32::from_str_radix(&self.escape[2..], 16).expect("four hex digits");
        self.escape.clear();
        match (code, self.high) {
            (0xD800..=0xDBFF, None) => self.high = Some(code),
            (0xDC00..=0xDFFF, Some(high)) => {
                let combined = 0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00);
                self.text
                    .push(char::from_u32(combined).expect("a surrogate pair is a char"));
                self.high = None;
            }
            (0xD800..=0xDFFF, _) | (_, Some(_)) => {
                return Err(self.fail_at(i, "a lone surrogate".to_owned()));
            }
            _ => self
                .text
                .push(char::from_u32(code).expect("not a surrogate")),
        }
        Ok(i + 1)
    }
}

/// A builder of `serde_json` values, for the core's own use and tests.
#[derive(Debug, Default)]
pub struct ValueBuilder {
    pub root: Option<serde_json::Value>,
    /// Paths of the open containers: the key or index of each, from the root.
    open: Vec<(Option<String>, serde_json::Value)>,
}

impl ValueBuilder {
    fn put(&mut self, value: serde_json::Value) {
        match self.open.last_mut() {
            None => self.root = Some(value),
            Some((key, serde_json::Value::Object(map))) => {
                map.insert(key.clone().unwrap_or_default(), value);
            }
            Some((_, serde_json::Value::Array(items))) => items.push(value),
            Some(_) => unreachable!("only containers are open"),
        }
    }

    /// The value so far, with `pending` shown where it goes.
    pub fn value(&self, pending: Option<Pending<'_>>) -> Option<serde_json::Value> {
        let mut shown = self.clone_open();
        if let Some(pending) = pending {
            let leaf = match pending {
                Pending::String(text) => serde_json::Value::from(text),
                Pending::Number(text) => serde_json::from_str(text).expect("a valid number"),
            };
            shown.put(leaf);
        }
        while let Some((_, container)) = shown.open.pop() {
            shown.put(container);
        }
        shown.root
    }

    fn clone_open(&self) -> ValueBuilder {
        ValueBuilder {
            root: self.root.clone(),
            open: self.open.clone(),
        }
    }
}

impl Builder for ValueBuilder {
    fn open(&mut self, object: bool) -> Result<(), String> {
        let container = if object {
            serde_json::Value::Object(serde_json::Map::new())
        } else {
            serde_json::Value::Array(Vec::new())
        };
        self.open.push((None, container));
        Ok(())
    }

    fn close(&mut self) {
        let (_, container) = self.open.pop().expect("a container is open");
        self.put(container);
    }

    fn key(&mut self, key: &str) -> Result<(), String> {
        if let Some(open) = self.open.last_mut() {
            open.0 = Some(key.to_owned());
        }
        Ok(())
    }

    fn scalar(&mut self, value: Scalar<'_>) -> Result<(), String> {
        let value = match value {
            Scalar::Null => serde_json::Value::Null,
            Scalar::Bool(flag) => flag.into(),
            Scalar::Number(text) => {
                serde_json::from_str(text).map_err(|error| error.to_string())?
            }
            Scalar::String(text) => text.into(),
        };
        self.put(value);
        Ok(())
    }
}

/// A `PartialJson` builder that builds nothing and refuses what [`parse`]
/// refuses beyond the grammar (integers past [`MAX_INT_DIGITS`]): with it,
/// the partial parser accepts what `json::parse` accepts.
pub struct Validate;

impl Builder for Validate {
    fn open(&mut self, _object: bool) -> Result<(), String> {
        Ok(())
    }
    fn close(&mut self) {}
    fn key(&mut self, _key: &str) -> Result<(), String> {
        Ok(())
    }
    fn scalar(&mut self, value: Scalar<'_>) -> Result<(), String> {
        match value {
            Scalar::Number(text) if json::is_long_int(text) => Err(json::LONG_INT.to_owned()),
            _ => Ok(()),
        }
    }
}

/// Why `text` is not JSON as [`json::parse`] reads it, for its event's error:
/// what is wrong and the byte offset where, as `PartialJSON` says it on
/// both backends (`is not valid JSON: expected a value, found 'N' at byte
/// 6`). Only called once parsing failed, so its cost is the error's.
pub fn why_not_json(text: &str) -> String {
    let mut parser = PartialJson::new(MAX_DEPTH);
    match parser.feed(text.as_bytes(), &mut Validate) {
        Err(error) => format!(
            "is not valid JSON: {} at byte {}",
            error.reason, error.offset
        ),
        Ok(()) if text.trim_matches([' ', '\t', '\n', '\r']).is_empty() => {
            "is not valid JSON: there is no value".to_owned()
        }
        Ok(()) if !parser.complete_at_end() => {
            format!("is not valid JSON: incomplete at byte {}", text.len())
        }
        Ok(()) => "is not valid JSON".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn prefixes(text: &str) -> Vec<Option<serde_json::Value>> {
        let mut parser = PartialJson::default();
        let mut builder = ValueBuilder::default();
        let mut seen = Vec::new();
        for byte in text.as_bytes() {
            parser
                .feed(std::slice::from_ref(byte), &mut builder)
                .unwrap();
            seen.push(builder.value(parser.pending()));
        }
        seen
    }

    #[test]
    fn shows_what_jiter_shows_for_each_prefix() {
        let seen = prefixes(r#"{"a": [1, "xy"], "b": 1.5e3, "c": "\u00e9\ud83d\ude00"}"#);
        let at = |prefix: &str| seen[prefix.len() - 1].clone();
        assert_eq!(at(r#"{"a"#), Some(json!({})));
        assert_eq!(at(r#"{"a": [1, "x"#), Some(json!({"a": [1, "x"]})));
        assert_eq!(
            at(r#"{"a": [1, "xy"], "b": 1."#),
            Some(json!({"a": [1, "xy"]}))
        );
        assert_eq!(
            at(r#"{"a": [1, "xy"], "b": 1.5"#),
            Some(json!({"a": [1, "xy"], "b": 1.5}))
        );
        assert_eq!(
            seen.last().cloned().flatten(),
            Some(
                json!({"a": [1, "xy"], "b": serde_json::from_str::<serde_json::Value>("1.5e3").unwrap(), "c": "é😀"})
            )
        );
    }

    #[test]
    fn end_completes_a_top_level_number_and_refuses_what_is_not_whole() {
        let end = |text: &str| {
            let mut parser = PartialJson::default();
            let mut builder = ValueBuilder::default();
            parser.feed(text.as_bytes(), &mut builder).unwrap();
            parser.end(&mut builder).map(|()| builder.root.clone())
        };
        assert_eq!(end("12"), Ok(Some(json!(12))));
        assert_eq!(end(" [1] "), Ok(Some(json!([1]))));
        let reason = |text: &str| end(text).unwrap_err().reason;
        assert_eq!(reason(""), "the text ends before a value begins");
        assert_eq!(reason("\"ab"), "the text ends before its value does");
        assert_eq!(reason("[1,"), "the text ends before its value does");
        assert_eq!(reason("1."), "invalid number '1.'");
        let mut parser = PartialJson::default();
        parser.feed(b"1", &mut ValueBuilder::default()).unwrap();
        parser.end(&mut ValueBuilder::default()).unwrap();
        let error = parser.feed(b" ", &mut ValueBuilder::default()).unwrap_err();
        assert_eq!(
            (error.offset, error.reason.as_str()),
            (1, "the text was ended")
        );
    }

    #[test]
    fn errors_say_where_and_stay() {
        let mut parser = PartialJson::default();
        let mut builder = ValueBuilder::default();
        parser.feed(b"[1, 2", &mut builder).unwrap();
        let error = parser.feed(b" x]", &mut builder).unwrap_err();
        assert_eq!(error.offset, 6);
        assert_eq!(
            error.to_string(),
            "invalid JSON at byte 6: expected ',' or ']', found 'x'"
        );
        assert_eq!(parser.feed(b"]", &mut builder).unwrap_err(), error);
        assert_eq!(builder.value(None), Some(json!([1, 2])));
    }

    #[test]
    fn utf8_cut_anywhere() {
        let text = "[\"é😀\"]".as_bytes();
        for cut in 0..text.len() {
            let mut parser = PartialJson::default();
            let mut builder = ValueBuilder::default();
            parser.feed(&text[..cut], &mut builder).unwrap();
            parser.feed(&text[cut..], &mut builder).unwrap();
            assert!(parser.done());
            assert_eq!(builder.value(None), Some(json!(["é😀"])));
        }
    }
}
