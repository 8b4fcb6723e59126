//! Reading JSON without building it: the pieces the protocol probes share.
//!
//! A probe walks an event's text once with [`Cursor`], a strict JSON reader
//! that accepts exactly what the full parse ([`crate::json::parse`],
//! serde_json) accepts: the same grammar, escapes, surrogate pairs and
//! nesting limit. It keeps only the fields a quick path needs, borrowing
//! strings from the input, and checks the rest without building it. The
//! tests below hold it to serde_json on hand-picked and mutated texts.
//!
//! Why not serde_json itself: its visitor machinery and the `Value`s it
//! builds for small fields cost more than the whole scan (measured with
//! `cargo bench --bench assemble`).

use std::borrow::Cow;

use crate::json::{plain_run, short_escape, MAX_DEPTH};

/// The text is not JSON the full parse accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Invalid;

pub type Result<T> = std::result::Result<T, Invalid>;

/// A field that is usually a string: the string, or "present but not a string".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StrField<'a> {
    Str(Cow<'a, str>),
    NotStr,
}

impl StrField<'_> {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            StrField::Str(text) => Some(text),
            StrField::NotStr => None,
        }
    }
}

/// A value read whole when it is a scalar; arrays and objects are checked
/// and skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scalar<'a> {
    Str(Cow<'a, str>),
    /// The number's text, exactly as written (as `arbitrary_precision` keeps it).
    Number(&'a str),
    Bool(bool),
    Null,
    Composite,
}

impl Scalar<'_> {
    /// The integer this is, as `Value::as_i64` reads it.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            // A block's index, mostly: one digit, read without `parse`.
            Scalar::Number(text) if text.len() == 1 && text.as_bytes()[0].is_ascii_digit() => {
                Some(i64::from(text.as_bytes()[0] - b'0'))
            }
            Scalar::Number(text) => text.parse().ok(),
            _ => None,
        }
    }

    /// The integer this is, as `Value::as_u64` reads it.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Scalar::Number(text) => text.parse().ok(),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Scalar::Str(text) => Some(text),
            _ => None,
        }
    }

    /// The value the full parse makes of it; `None` for an array or object.
    pub fn to_value(&self) -> Option<crate::json::Value> {
        use crate::json::Value;
        Some(match self {
            Scalar::Str(text) => Value::String(text.clone().into_owned()),
            Scalar::Number(text) => crate::json::parse(text).ok()?,
            Scalar::Bool(flag) => Value::Bool(*flag),
            Scalar::Null => Value::Null,
            Scalar::Composite => return None,
        })
    }
}

/// Fills itself from the entries of a JSON object, one key at a time. Each
/// call must read the value (or [`Cursor::skip`] it).
pub trait Fields<'a>: Default {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()>;
}

/// Whether `key` is `name`: one integer compare, where a `&str` match calls
/// `memcmp` for every candidate of the same length (measured: a sixth of a
/// probe's time).
#[inline(always)]
pub fn is_key<const N: usize>(key: &str, name: &[u8; N]) -> bool {
    is_key_bytes(key.as_bytes(), name)
}

#[inline(always)]
fn is_key_bytes<const N: usize>(key: &[u8], name: &[u8; N]) -> bool {
    let Ok(key) = <&[u8; N]>::try_from(key) else {
        return false;
    };
    if N < 8 {
        return key == name;
    }
    // Eight bytes at a time, the last word overlapping the one before, with
    // no branch between: LLVM turns an array `==` this long into a call to
    // memcmp, which cost more than the compare (a sixth of reading an
    // AgentScope delta's layout). `name` is a literal, so its words fold
    // into constants.
    let word = |bytes: &[u8; N], at: usize| {
        let mut word = [0u8; 8];
        word.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(word)
    };
    let mut differ = word(key, N - 8) ^ word(name, N - 8);
    let mut at = 0;
    while at + 8 < N {
        differ |= word(key, at) ^ word(name, at);
        at += 8;
    }
    differ == 0
}

/// Dispatches on an object key: `match_key!(key, { b"a" => .., b"b" => .., _ => .. })`,
/// a `match` on byte-string keys compared with [`is_key`].
#[macro_export]
macro_rules! match_key {
    ($key:expr, { $($name:literal => $arm:expr,)* _ => $default:expr $(,)? }) => {{
        let key: &str = $key;
        $(if $crate::json_probe::is_key(key, $name) { $arm } else)* { $default }
    }};
}

/// A field that should be an object: `Obj(Some(..))` when it is one,
/// `Obj(None)` when it is anything else.
#[derive(Debug, PartialEq)]
pub struct Obj<T>(pub Option<T>);

/// A list of strings (a namespace): `None` when it is anything else.
#[derive(Debug, PartialEq)]
pub struct Strings<'a>(pub Option<Vec<Cow<'a, str>>>);

/// Reads one JSON text from the front.
pub struct Cursor<'a> {
    text: &'a str,
    pos: usize,
    depth: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(text: &'a str) -> Self {
        Cursor {
            text,
            pos: 0,
            depth: 0,
        }
    }

    /// Reads a whole text that should be an object into `value`: `false`
    /// when it is not valid JSON, is not an object, or has anything but white
    /// space after it. Filled in place, since probes are a few hundred bytes
    /// and returning them by value copied them at every level (measured).
    pub fn read_object<T: Fields<'a>>(text: &'a str, value: &mut T) -> bool {
        let mut cursor = Cursor::new(text);
        matches!(cursor.fields_into(value), Ok(true)) && cursor.end().is_ok()
    }

    /// [`read_object`](Self::read_object), returning the value.
    pub fn parse_object<T: Fields<'a>>(text: &'a str) -> Option<T> {
        let mut value = T::default();
        Cursor::read_object(text, &mut value).then_some(value)
    }

    /// Only white space may follow the value.
    pub fn end(&mut self) -> Result<()> {
        self.whitespace();
        if self.pos == self.text.len() {
            Ok(())
        } else {
            Err(Invalid)
        }
    }

    /// An object's entries through `T::field` into `slot` (`Obj(Some(..))`);
    /// any other value is checked and skipped (`Obj(None)`). Filled in
    /// place: nested probes returned by value were copied at every level
    /// (measured).
    pub fn object_into<T: Fields<'a>>(&mut self, slot: &mut Option<Obj<T>>) -> Result<()> {
        let Obj(value) = slot.insert(Obj(Some(T::default())));
        let is_object = match value {
            Some(value) => self.fields_into(value)?,
            None => false,
        };
        if !is_object {
            *slot = Some(Obj(None));
        }
        Ok(())
    }

    /// An array that holds exactly one object: its entries through
    /// `T::field` into `slot` (`Obj(Some(..))`). Any other value, an empty
    /// array, or one with more items or items of another kind is checked and
    /// skipped (`Obj(None)`): the full path deals with those.
    pub fn sole_object_into<T: Fields<'a>>(&mut self, slot: &mut Option<Obj<T>>) -> Result<()> {
        if self.peek_value()? != b'[' {
            self.skip()?;
            *slot = Some(Obj(None));
            return Ok(());
        }
        if self.open(b']')? {
            *slot = Some(Obj(None));
            return Ok(());
        }
        self.object_into(slot)?;
        if self.after_item(b']')? {
            return Ok(());
        }
        *slot = Some(Obj(None));
        loop {
            self.skip()?;
            if self.after_item(b']')? {
                return Ok(());
            }
        }
    }

    /// An array of objects, each through `T::field` into a new item of
    /// `items` (`true`); any other value, or an array that holds anything
    /// but objects, is checked and skipped (`false`, `items` then partial).
    pub fn objects_into<T: Fields<'a>>(&mut self, items: &mut Vec<T>) -> Result<bool> {
        if self.peek_value()? != b'[' {
            self.skip()?;
            return Ok(false);
        }
        if self.open(b']')? {
            return Ok(true);
        }
        let mut all_objects = true;
        loop {
            if all_objects {
                let mut item = T::default();
                if self.fields_into(&mut item)? {
                    items.push(item);
                } else {
                    all_objects = false;
                }
            } else {
                self.skip()?;
            }
            if self.after_item(b']')? {
                return Ok(all_objects);
            }
        }
    }

    /// An object's entries into `value` (`true`); any other value is checked
    /// and skipped (`false`).
    fn fields_into<T: Fields<'a>>(&mut self, value: &mut T) -> Result<bool> {
        if self.peek_value()? != b'{' {
            self.skip()?;
            return Ok(false);
        }
        if self.open(b'}')? {
            return Ok(true);
        }
        self.entries_into(value)
    }

    /// The entries of the object the cursor is in, from the start of a key
    /// (after `{` or a comma) to its closing brace.
    fn entries_into<T: Fields<'a>>(&mut self, value: &mut T) -> Result<bool> {
        loop {
            self.whitespace();
            if self.byte() != Some(b'"') {
                return Err(Invalid);
            }
            let key = self.string_body()?;
            self.whitespace();
            if self.byte() != Some(b':') {
                return Err(Invalid);
            }
            self.pos += 1;
            value.field(&key, self)?;
            if self.after_item(b'}')? {
                return Ok(true);
            }
        }
    }

    // --- reading an expected layout ----------------------------------------------------------
    //
    // A server writes its events with the keys in one order and no white
    // space. A probe may read that layout directly, literal by literal,
    // skipping the key scans and dispatch, and finish with the general
    // loop; anything else fails over to the general reading from the start.
    // What such a reading accepts is JSON by construction: the literals are
    // JSON, the values are read by the same functions as everywhere.

    /// Moves past `literal` if the text continues with it (`Some`). A
    /// fixed-size array, so that the compare is inlined, not a memcmp call.
    #[inline]
    pub fn expect<const N: usize>(&mut self, literal: &[u8; N]) -> Option<()> {
        let next = self.bytes().get(self.pos..self.pos + N)?;
        is_key_bytes(next, literal).then(|| self.pos += N)
    }

    /// Moves past an integer written plainly (`0`, or digits not starting
    /// with `0`; no sign, fraction or exponent), or gives `None`, for a
    /// layout read to leave anything else to the general read.
    pub fn plain_integer(&mut self) -> Option<()> {
        let start = self.pos;
        match self.byte()? {
            b'0' => self.pos += 1,
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        if self.pos - start > crate::json::MAX_INT_DIGITS {
            return None;
        }
        match self.byte() {
            Some(b'0'..=b'9' | b'.' | b'e' | b'E') => None,
            _ => Some(()),
        }
    }

    /// The string `expected` when the text has it next, quotes and all:
    /// read with a compare where scanning would look at every byte. The
    /// caller knows `expected` is plain (no quote, backslash or control
    /// character), so that the text holding it unescaped is the string.
    pub fn plain_str(&mut self, expected: &str) -> Option<&'a str> {
        debug_assert_eq!(plain_run(expected.as_bytes(), 0), expected.len());
        let start = self.pos + 1;
        let end = start + expected.len();
        let bytes = self.bytes();
        if bytes.get(self.pos) != Some(&b'"')
            || bytes.get(start..end) != Some(expected.as_bytes())
            || bytes.get(end) != Some(&b'"')
        {
            return None;
        }
        self.pos = end + 1;
        Some(&self.text[start..end])
    }

    /// A one-digit number (a block's index, mostly) when one is next, ended
    /// by `,` or `}`: what [`Cursor::scalar`] reads there, more quickly.
    pub fn digit(&mut self) -> Option<Scalar<'a>> {
        match self.bytes().get(self.pos..self.pos + 2)? {
            [b'0'..=b'9', b',' | b'}'] => {
                self.pos += 1;
                Some(Scalar::Number(&self.text[self.pos - 1..self.pos]))
            }
            _ => None,
        }
    }

    /// Where the next byte is read from.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Opens the object: the text must start with `{`.
    pub fn open_object(&mut self) -> bool {
        if self.pos == 0 && self.expect(b"{").is_some() {
            self.depth = 1;
            true
        } else {
            false
        }
    }

    /// Opens an array or object nested in the layout (`bracket` is `[` or
    /// `{`, next with no white space before it), counting its depth as the
    /// general reading does.
    pub fn open_nested(&mut self, bracket: u8) -> Option<()> {
        if self.byte() != Some(bracket) {
            return None;
        }
        self.enter().ok()?;
        self.pos += 1;
        Some(())
    }

    /// Closes what [`Cursor::open_nested`] opened: `bracket` (`]` or `}`) must
    /// be next.
    pub fn close_nested(&mut self, bracket: u8) -> Option<()> {
        if self.byte() != Some(bracket) {
            return None;
        }
        self.pos += 1;
        self.depth -= 1;
        Some(())
    }

    /// After a value in an object [`Cursor::open_nested`] opened: its other
    /// entries through `T::field`, and its closing brace.
    pub fn finish_nested<T: Fields<'a>>(&mut self, value: &mut T) -> Option<()> {
        match self.after_item(b'}') {
            Ok(true) => Some(()),
            Ok(false) => matches!(self.entries_into(value), Ok(true)).then_some(()),
            Err(Invalid) => None,
        }
    }

    /// After the layout's last value: the object's other entries through
    /// `T::field`, its closing brace, and nothing but white space after it.
    pub fn finish_object<T: Fields<'a>>(&mut self, value: &mut T) -> bool {
        let closed = match self.after_item(b'}') {
            Ok(true) => true,
            Ok(false) => matches!(self.entries_into(value), Ok(true)),
            Err(Invalid) => false,
        };
        closed && self.end().is_ok()
    }

    /// Whether the next value is an object (white space skipped).
    pub fn at_object(&mut self) -> Result<bool> {
        Ok(self.peek_value()? == b'{')
    }

    /// A string, or `NotStr` for any other value (checked and skipped).
    pub fn str_field(&mut self) -> Result<StrField<'a>> {
        if self.peek_value()? == b'"' {
            Ok(StrField::Str(self.string_body()?))
        } else {
            self.skip()?;
            Ok(StrField::NotStr)
        }
    }

    /// An array of strings, or `None` for anything else (checked and skipped).
    pub fn strings(&mut self) -> Result<Strings<'a>> {
        if self.peek_value()? != b'[' {
            self.skip()?;
            return Ok(Strings(None));
        }
        let mut items = Some(Vec::new());
        if self.open(b']')? {
            return Ok(Strings(items));
        }
        loop {
            match (self.str_field()?, items.as_mut()) {
                (StrField::Str(text), Some(list)) => list.push(text),
                _ => items = None,
            }
            if self.after_item(b']')? {
                return Ok(Strings(items));
            }
        }
    }

    /// Moves past `known` when the text continues with it (`true`): an
    /// object or array this reader checked in the same place of an earlier
    /// text, so that the same bytes are the same valid value (a run's
    /// metadata, repeated on every event), compared where reading would
    /// check every byte. An object or array ends itself: a text that
    /// continues with one holds that value whole. An empty `known` is
    /// none.
    pub fn known(&mut self, known: &str) -> bool {
        debug_assert!(matches!(known.as_bytes().first(), None | Some(b'{' | b'[')));
        let end = self.pos + known.len();
        if !known.is_empty() && self.bytes().get(self.pos..end) == Some(known.as_bytes()) {
            self.pos = end;
            true
        } else {
            false
        }
    }

    /// The text of the value at the cursor, as written (checked and
    /// skipped), for a caller that reads it only when it must.
    pub fn raw(&mut self) -> Result<&'a str> {
        self.peek_value()?;
        let start = self.pos;
        self.skip()?;
        Ok(&self.text[start..self.pos])
    }

    /// The text of an array of strings, as written (checked and skipped),
    /// or `None` for any other value (then where the cursor is is not to
    /// be relied on): [`strings`](Self::strings) without making the list.
    pub fn raw_strings(&mut self) -> Option<&'a str> {
        if self.peek_value().ok()? != b'[' {
            return None;
        }
        let start = self.pos;
        if !self.open(b']').ok()? {
            loop {
                if self.peek_value().ok()? != b'"' {
                    return None;
                }
                self.skip_string().ok()?;
                if self.after_item(b']').ok()? {
                    break;
                }
            }
        }
        Some(&self.text[start..self.pos])
    }

    /// Whether the value is an empty array (`Some(true)`), another array
    /// (`Some(false)`), or not an array (`None`); checked and skipped.
    pub fn empty_array(&mut self) -> Result<Option<bool>> {
        if self.peek_value()? != b'[' {
            self.skip()?;
            return Ok(None);
        }
        if self.open(b']')? {
            return Ok(Some(true));
        }
        loop {
            self.skip()?;
            if self.after_item(b']')? {
                return Ok(Some(false));
            }
        }
    }

    /// Any value; arrays and objects are checked and skipped.
    pub fn scalar(&mut self) -> Result<Scalar<'a>> {
        Ok(match self.peek_value()? {
            b'"' => Scalar::Str(self.string_body()?),
            b'{' | b'[' => {
                self.skip()?;
                Scalar::Composite
            }
            b't' => {
                self.literal(b"true")?;
                Scalar::Bool(true)
            }
            b'f' => {
                self.literal(b"false")?;
                Scalar::Bool(false)
            }
            b'n' => {
                self.literal(b"null")?;
                Scalar::Null
            }
            _ => Scalar::Number(self.number()?),
        })
    }

    /// Checks one value of any kind and moves past it.
    pub fn skip(&mut self) -> Result<()> {
        match self.peek_value()? {
            b'"' => self.skip_string(),
            b'{' => {
                if self.open(b'}')? {
                    return Ok(());
                }
                loop {
                    self.whitespace();
                    if self.byte() != Some(b'"') {
                        return Err(Invalid);
                    }
                    self.skip_string()?;
                    self.whitespace();
                    if self.byte() != Some(b':') {
                        return Err(Invalid);
                    }
                    self.pos += 1;
                    self.skip()?;
                    if self.after_item(b'}')? {
                        return Ok(());
                    }
                }
            }
            b'[' => {
                if self.open(b']')? {
                    return Ok(());
                }
                loop {
                    self.skip()?;
                    if self.after_item(b']')? {
                        return Ok(());
                    }
                }
            }
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => self.number().map(drop),
        }
    }

    // --- the grammar ---------------------------------------------------------------------

    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    fn byte(&self) -> Option<u8> {
        self.bytes().get(self.pos).copied()
    }

    fn whitespace(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.byte() {
            self.pos += 1;
        }
    }

    /// Whether the next value is an array (the cursor stays before it).
    pub fn peek_array(&mut self) -> Result<bool> {
        Ok(self.peek_value()? == b'[')
    }

    /// The first byte of the next value, after white space.
    fn peek_value(&mut self) -> Result<u8> {
        self.whitespace();
        self.byte().ok_or(Invalid)
    }

    /// Opens the array or object at the cursor (on its bracket): `true`
    /// when it is empty, and then already closed.
    fn open(&mut self, close: u8) -> Result<bool> {
        self.enter()?;
        self.pos += 1;
        self.whitespace();
        if self.byte() == Some(close) {
            self.pos += 1;
            self.depth -= 1;
            return Ok(true);
        }
        Ok(false)
    }

    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            Err(Invalid)
        } else {
            Ok(())
        }
    }

    /// After an array item or object entry: `true` at the closing bracket
    /// (consumed), `false` after a comma.
    fn after_item(&mut self, close: u8) -> Result<bool> {
        self.whitespace();
        match self.byte() {
            Some(b',') => {
                self.pos += 1;
                Ok(false)
            }
            Some(byte) if byte == close => {
                self.pos += 1;
                self.depth -= 1;
                Ok(true)
            }
            _ => Err(Invalid),
        }
    }

    fn literal(&mut self, word: &[u8]) -> Result<()> {
        if self.bytes()[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(Invalid)
        }
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, as its text; an
    /// integer of more than `json::MAX_INT_DIGITS` digits is not taken, as
    /// `json::parse` does not take it.
    fn number(&mut self) -> Result<&'a str> {
        let start = self.pos;
        if self.byte() == Some(b'-') {
            self.pos += 1;
        }
        let whole = self.pos;
        match self.byte() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(Invalid),
        }
        if self.pos - whole > crate::json::MAX_INT_DIGITS
            && !matches!(self.byte(), Some(b'.' | b'e' | b'E'))
        {
            return Err(Invalid);
        }
        if self.byte() == Some(b'.') {
            self.pos += 1;
            self.required_digits()?;
        }
        if let Some(b'e' | b'E') = self.byte() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.byte() {
                self.pos += 1;
            }
            self.required_digits()?;
        }
        Ok(&self.text[start..self.pos])
    }

    fn digits(&mut self) {
        // Eight at a time while a word is left: events carry timestamps
        // of thirteen digits.
        while let Some(word) = self.bytes().get(self.pos..self.pos + 8) {
            let word = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
            match non_digits(word) {
                0 => self.pos += 8,
                flags => {
                    self.pos += (flags.trailing_zeros() / 8) as usize;
                    return;
                }
            }
        }
        while let Some(b'0'..=b'9') = self.byte() {
            self.pos += 1;
        }
    }

    fn required_digits(&mut self) -> Result<()> {
        let start = self.pos;
        self.digits();
        if self.pos == start {
            Err(Invalid)
        } else {
            Ok(())
        }
    }

    /// The string at the cursor (on its opening quote), decoded: borrowed
    /// from the text when it has no escapes.
    fn string_body(&mut self) -> Result<Cow<'a, str>> {
        self.pos += 1;
        let start = self.pos;
        self.pos = plain_run(self.bytes(), self.pos);
        match self.byte() {
            Some(b'"') => {
                self.pos += 1;
                Ok(Cow::Borrowed(&self.text[start..self.pos - 1]))
            }
            Some(b'\\') => {
                let mut out = String::from(&self.text[start..self.pos]);
                self.escaped_rest(Some(&mut out))?;
                Ok(Cow::Owned(out))
            }
            _ => Err(Invalid), // the end, or a control character
        }
    }

    fn skip_string(&mut self) -> Result<()> {
        self.pos = plain_run(self.bytes(), self.pos + 1);
        match self.byte() {
            Some(b'"') => {
                self.pos += 1;
                Ok(())
            }
            Some(b'\\') => self.escaped_rest(None),
            _ => Err(Invalid),
        }
    }

    /// The rest of a string from an escape on, decoded into `out` when given.
    fn escaped_rest(&mut self, mut out: Option<&mut String>) -> Result<()> {
        loop {
            match self.byte() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let decoded = self.escape()?;
                    if let Some(out) = out.as_deref_mut() {
                        out.push(decoded);
                    }
                }
                _ => return Err(Invalid),
            }
            let start = self.pos;
            self.pos = plain_run(self.bytes(), self.pos);
            if let Some(out) = out.as_deref_mut() {
                out.push_str(&self.text[start..self.pos]);
            }
        }
    }

    /// One escape, after its backslash. Surrogates must come in pairs, as
    /// serde_json requires.
    fn escape(&mut self) -> Result<char> {
        let byte = self.byte().ok_or(Invalid)?;
        self.pos += 1;
        if let Some(decoded) = short_escape(byte) {
            return Ok(decoded);
        }
        Ok(match byte {
            b'u' => {
                let first = self.hex4()?;
                match first {
                    0xD800..=0xDBFF => {
                        if !self.bytes()[self.pos..].starts_with(b"\\u") {
                            return Err(Invalid);
                        }
                        self.pos += 2;
                        let second = self.hex4()?;
                        if !(0xDC00..=0xDFFF).contains(&second) {
                            return Err(Invalid);
                        }
                        let code = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
                        char::from_u32(code).ok_or(Invalid)?
                    }
                    0xDC00..=0xDFFF => return Err(Invalid),
                    code => char::from_u32(code).ok_or(Invalid)?,
                }
            }
            _ => return Err(Invalid),
        })
    }

    fn hex4(&mut self) -> Result<u32> {
        let digits = self.bytes().get(self.pos..self.pos + 4).ok_or(Invalid)?;
        let mut code = 0;
        for &digit in digits {
            let value = match digit {
                b'0'..=b'9' => digit - b'0',
                b'a'..=b'f' => digit - b'a' + 10,
                b'A'..=b'F' => digit - b'A' + 10,
                _ => return Err(Invalid),
            };
            code = code * 16 + u32::from(value);
        }
        self.pos += 4;
        Ok(code)
    }
}

/// Nonzero in (at least) the lowest byte of `word` that is not an ASCII
/// digit, and zero in every byte below it: a byte is a digit when its high
/// nibble is 3 and adding 6 leaves it so. A carry out of a non-digit byte
/// can only disturb the bytes above it, which do not matter.
fn non_digits(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH_NIBBLES: u64 = ONES * 0xf0;
    const THREES: u64 = ONES * 0x30;
    ((word & HIGH_NIBBLES) ^ THREES) | ((word.wrapping_add(ONES * 6) & HIGH_NIBBLES) ^ THREES)
}

/// What the last quick delta appended to (`T`: a position, say), and the
/// id that found it. The next delta most likely names it too: the probe is
/// told [`Hot::id`] and reads it with a compare ([`Cursor::plain_str`]),
/// and when it was that id the assembler reuses the target with no lookup.
/// The assembler forgets it whenever anything else is applied, since that
/// may move or end the target.
#[derive(Debug, Clone)]
pub struct Hot<T> {
    /// Known plain (no escapes), so that it is compared with the text;
    /// kept between targets to reuse its allocation.
    id: String,
    target: Option<T>,
}

impl<T> Default for Hot<T> {
    fn default() -> Self {
        Hot {
            id: String::new(),
            target: None,
        }
    }
}

impl<T: Copy> Hot<T> {
    /// The id to tell the probe, while a target is held.
    pub fn id(&self) -> Option<&str> {
        self.target.is_some().then_some(self.id.as_str())
    }

    /// The target, when the probe read the told id (`expected`).
    pub fn target(&self, expected: bool) -> Option<T> {
        self.target.filter(|_| expected)
    }

    /// Makes `target`, found by `id`, the hot one; an id that is not plain
    /// could not be compared with the text, and forgets instead.
    pub fn remember(&mut self, id: &str, target: T) {
        if plain_run(id.as_bytes(), 0) != id.len() {
            self.target = None;
            return;
        }
        self.id.clear();
        self.id.push_str(id);
        self.target = Some(target);
    }

    pub fn forget(&mut self) {
        self.target = None;
    }
}

/// Every text one byte away from `canonical` (a byte removed, or one of a
/// few JSON-significant bytes inserted or put in its place, at each
/// position): what a probe's layout reading is held to agree with its
/// general reading on.
#[cfg(test)]
pub fn one_byte_mutations(canonical: &str) -> Vec<String> {
    let specials = ["\"", "\\", "{", "}", ",", ":", " ", "0", "-", "n", "t", "x"];
    let mut variants = Vec::new();
    for position in 0..=canonical.len() {
        let (head, tail) = canonical.split_at(position);
        let rest = tail.get(1..).unwrap_or("");
        variants.push(format!("{head}{rest}"));
        for special in specials {
            variants.push(format!("{head}{special}{tail}"));
            variants.push(format!("{head}{special}{rest}"));
        }
    }
    variants
}

/// Runs `check` on every one-byte mutation of each canonical text.
#[cfg(test)]
pub fn each_mutation(canonicals: &[&str], mut check: impl FnMut(&str)) {
    for canonical in canonicals {
        for text in one_byte_mutations(canonical) {
            check(&text);
        }
    }
}

#[cfg(test)]
mod tests {
    /// How many entries an object had.
    #[derive(Default)]
    struct Entries(usize);

    impl<'a> super::Fields<'a> for Entries {
        fn field(&mut self, _key: &str, cursor: &mut super::Cursor<'a>) -> super::Result<()> {
            self.0 += 1;
            cursor.skip()
        }
    }

    #[test]
    fn hot_gives_its_target_only_for_the_told_id() {
        let mut hot = super::Hot::default();
        assert_eq!((hot.id(), hot.target(true)), (None, None));
        hot.remember("m1", 3);
        assert_eq!((hot.id(), hot.target(true)), (Some("m1"), Some(3)));
        assert_eq!(hot.target(false), None);
        hot.remember("m2", 4);
        assert_eq!((hot.id(), hot.target(true)), (Some("m2"), Some(4)));
        // An id with an escape in its text could not be compared with it.
        hot.remember("m\"3", 5);
        assert_eq!((hot.id(), hot.target(true)), (None, None));
        hot.remember("m1", 3);
        hot.forget();
        assert_eq!((hot.id(), hot.target(true)), (None, None));
    }

    #[test]
    fn objects_into_takes_an_array_of_objects_only() {
        let read = |text: &str| {
            let mut cursor = super::Cursor::new(text);
            let mut items: Vec<Entries> = Vec::new();
            let all = cursor.objects_into(&mut items).ok()?;
            cursor.end().ok()?;
            Some((all, items.iter().map(|item| item.0).collect::<Vec<_>>()))
        };
        assert_eq!(read(r#"[{"a":1,"b":[2]},{}]"#), Some((true, vec![2, 0])));
        assert_eq!(read("[]"), Some((true, vec![])));
        assert_eq!(
            read(r#"[{"a":1},2,{"b":3}]"#).map(|(all, _)| all),
            Some(false)
        );
        assert_eq!(read(r#"{"a":1}"#).map(|(all, _)| all), Some(false));
        assert_eq!(read(r#"[{"a":1},"#), None);
    }

    #[test]
    fn is_key_sees_a_difference_at_every_position_of_every_length() {
        fn check<const N: usize>(name: &[u8; N]) {
            assert!(super::is_key_bytes(name, name));
            assert!(!super::is_key_bytes(&name[..N - 1], name));
            let longer = [&name[..], b"x"].concat();
            assert!(!super::is_key_bytes(&longer, name));
            for at in 0..N {
                for flip in [1u8, 0x20, 0x80] {
                    let mut other = *name;
                    other[at] ^= flip;
                    assert!(!super::is_key_bytes(&other, name), "{N} {at} {flip}");
                }
            }
        }
        check(b"a");
        check(b"abcdefg");
        check(b"abcdefgh");
        check(b"abcdefghi");
        check(b"abcdefghijklmnop");
        check(b"abcdefghijklmnopq");
        check(br#","error":null,"type":"text","index":"#);
    }

    #[test]
    fn non_digits_finds_the_first_byte_that_is_not_a_digit() {
        for byte in 0..=255u8 {
            for at in 0..8 {
                let mut word = *b"01234567";
                word[at] = byte;
                let flags = super::non_digits(u64::from_le_bytes(word));
                let first = (flags != 0).then(|| (flags.trailing_zeros() / 8) as usize);
                let expected = (!byte.is_ascii_digit()).then_some(at);
                assert_eq!(first, expected, "{word:?}");
            }
        }
    }

    use super::*;

    fn cursor_accepts(text: &str) -> bool {
        let mut cursor = Cursor::new(text);
        cursor.skip().and_then(|()| cursor.end()).is_ok()
    }

    fn serde_accepts(text: &str) -> bool {
        crate::json::parse(text).is_ok()
    }

    const SAMPLES: &[&str] = &[
        r#"{"object":"content","index":0,"delta":true,"msg_id":"m","text":"a\"b\\c\/d\n\u00e9\ud83d\ude42","x":[1,-2.5e+3,{"y":null}],"z":false}"#,
        r#"{"type":"event","params":{"namespace":["a","b"],"data":{"index":12,"delta":{"args":"{\"q\":1}"}}}}"#,
        "  [ 0 , -0 , 1.0 , 1e5 , 1E-5 , 123456789012345678901234567890 , \"\" , {} , [] ]  ",
        "\"plain \u{e9}\u{1F642} text that runs past eight bytes\"",
        "true",
        "null",
    ];

    #[test]
    fn agrees_with_serde_json_on_edge_cases() {
        let cases = [
            "",
            " ",
            "{",
            "}",
            "[",
            "]",
            "[1,]",
            "{\"a\":1,}",
            "{\"a\" 1}",
            "{1:2}",
            "[1 2]",
            "01",
            "-01",
            "-",
            "1.",
            ".5",
            "1e",
            "1e+",
            "+1",
            "1E+5",
            "-0.0e-0",
            "1e999999",
            "tru",
            "nulll",
            "falsey",
            "NaN",
            "Infinity",
            "\"\\ud800\"",
            "\"\\udc00\"",
            "\"\\ud800\\u0041\"",
            "\"\\ud800\\udc00\"",
            "\"\\uDBFF\\uDFFF\"",
            "\"\\ud800x\"",
            "\"\\ud800\\ud800\"",
            "\"\\x\"",
            "\"\\U0041\"",
            "\"\\u00G1\"",
            "\"\\u00\"",
            "\"\u{1}\"",
            "\"\u{1f}\"",
            "\"\u{7f}\"",
            "\"a\tb\"",
            "\"12345678\u{1}\"",
            "\"1234567\\",
            "\"unterminated",
            "[]\u{a0}",
            "1 x",
            "\t\r\n1\n",
            "{\"a\":1}{}",
            // The key serde_json marks a number with is a key like any other.
            "{\"$serde_json::private::Number\":{}}",
            "{\"$serde_json::private::Number\":\"1\",\"b\":2}",
        ];
        for text in cases.iter().chain(SAMPLES) {
            assert_eq!(cursor_accepts(text), serde_accepts(text), "{text:?}");
        }
    }

    #[test]
    fn nesting_limit_is_serde_jsons() {
        for levels in [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1] {
            let arrays = "[".repeat(levels) + &"]".repeat(levels);
            let objects = "{\"a\":".repeat(levels) + "1" + &"}".repeat(levels);
            let mixed = "[{\"a\":".repeat(levels / 2) + "[]" + &"}]".repeat(levels / 2);
            for text in [arrays, objects, mixed] {
                assert_eq!(cursor_accepts(&text), serde_accepts(&text), "{levels}");
            }
        }
    }

    #[test]
    fn decodes_strings_as_serde_json_does() {
        for text in [
            r#""plain""#,
            r#""a\"b\\c\/d\b\f\n\r\t""#,
            r#""\u0041\u00e9\u4e2d\ud83d\ude42 and more after the escapes""#,
            "\"\u{e9}\u{1F642}\"",
            r#""""#,
        ] {
            let mut cursor = Cursor::new(text);
            let StrField::Str(decoded) = cursor.str_field().unwrap() else {
                panic!("{text}");
            };
            let expected: String = serde_json::from_str(text).unwrap();
            assert_eq!(decoded, expected);
            assert_eq!(matches!(decoded, Cow::Borrowed(_)), !text.contains('\\'));
        }
    }

    #[test]
    fn scalars_keep_their_text() {
        let mut cursor = Cursor::new("[-12.50e3, true, null, \"s\", {\"a\":[]}]");
        let mut scalars = Vec::new();
        assert_eq!(cursor.peek_value(), Ok(b'['));
        cursor.enter().unwrap();
        cursor.pos += 1;
        loop {
            scalars.push(cursor.scalar().unwrap());
            if cursor.after_item(b']').unwrap() {
                break;
            }
        }
        assert_eq!(
            scalars,
            [
                Scalar::Number("-12.50e3"),
                Scalar::Bool(true),
                Scalar::Null,
                Scalar::Str(Cow::Borrowed("s")),
                Scalar::Composite,
            ]
        );
        assert_eq!(Scalar::Number("7").as_u64(), Some(7));
        assert_eq!(Scalar::Number("-0").as_i64(), Some(0));
        assert_eq!(Scalar::Number("1.0").as_i64(), None);
    }

    /// Every sample, mutated one byte at a time (deleted, or replaced by a
    /// byte that matters to the grammar): the cursor and serde_json accept
    /// exactly the same texts.
    #[test]
    fn agrees_with_serde_json_on_mutations() {
        let specials = [
            "\"", "\\", "{", "}", "[", "]", ",", ":", " ", "0", "-", ".", "e", "u", "d8", "\u{1}",
            "x",
        ];
        let mut checked = 0;
        for sample in SAMPLES {
            for position in 0..=sample.len() {
                if !sample.is_char_boundary(position) {
                    continue;
                }
                let (head, tail) = sample.split_at(position);
                let next = tail.chars().next().map_or(0, char::len_utf8);
                let mut variants = vec![format!("{head}{}", &tail[next..])];
                for special in specials {
                    variants.push(format!("{head}{special}{tail}"));
                    variants.push(format!("{head}{special}{}", &tail[next..]));
                }
                for text in variants {
                    assert_eq!(cursor_accepts(&text), serde_accepts(&text), "{text:?}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 5000);
    }
}
