//! Passing on a JSON text that arrives in fragments so that what has been
//! passed on is always a clean prefix of a JSON text, and can be ended as
//! one whatever comes next: what a target that reads tool arguments as
//! JSON while they stream needs (a delta its SDK parses after every
//! fragment, and which must end as a whole object).
//!
//! A source's arguments may not be JSON at all (a producer that dropped
//! their first fragment). [`JsonPrefix`] lets each fragment through as far
//! as it ends cleanly (after an opening bracket, a whole value, or a whole
//! character of a string value), holds back the rest (a key until its value
//! begins, a comma until what follows it, a number until it is one, a
//! literal or an escape until whole), and stops at the first byte that
//! cannot be JSON. [`JsonPrefix::finish`] gives what ends the text passed on:
//! the closing quote of a string value, then the open containers' closers.
//! Valid text passes through byte for byte (only where it is cut may move).
//! `python/agentcodec/_pure/json_prefix.py` mirrors this module.

use crate::json::{MAX_DEPTH, MAX_INT_DIGITS};

/// Where the reader is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Nothing but white space yet.
    Start,
    /// After `[`: a value or `]`.
    ArrayStart,
    /// After `{`: a key or `}`.
    ObjectStart,
    /// After `:`, or `,` in an array: a value.
    Value,
    /// After `,` in an object: a key.
    Key,
    /// In a key's string.
    KeyString,
    /// After a key: `:`.
    Colon,
    /// In a string value.
    Str,
    /// In a number.
    Number(NumberPart),
    /// In a literal: the rest of it still to come.
    Literal(&'static [u8]),
    /// After a value: `,` or a closer (at the top level, only white space).
    After,
    /// Nothing more can make it JSON.
    Broken,
}

/// How far a number has come: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NumberPart {
    Minus,
    Zero,
    Integer,
    Dot,
    Fraction,
    Exponent,
    ExponentSign,
    ExponentDigits,
}

impl NumberPart {
    /// Whether the number may end here.
    fn whole(self) -> bool {
        matches!(
            self,
            NumberPart::Zero
                | NumberPart::Integer
                | NumberPart::Fraction
                | NumberPart::ExponentDigits
        )
    }

    /// The part after `byte`, or `None` where `byte` does not go on the number.
    fn next(self, byte: u8) -> Option<NumberPart> {
        use NumberPart::*;
        Some(match (self, byte) {
            (Minus, b'0') => Zero,
            (Minus, b'1'..=b'9') | (Integer, b'0'..=b'9') => Integer,
            (Zero | Integer, b'.') => Dot,
            (Dot | Fraction, b'0'..=b'9') => Fraction,
            (Zero | Integer | Fraction, b'e' | b'E') => Exponent,
            (Exponent, b'+' | b'-') => ExponentSign,
            (Exponent | ExponentSign | ExponentDigits, b'0'..=b'9') => ExponentDigits,
            _ => return None,
        })
    }
}

/// An escape in a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Escape {
    None,
    /// After `\`.
    Backslash,
    /// After `\u` and this many hex digits, with their value so far.
    Unicode(u8, u32),
}

/// See the module's documentation.
#[derive(Debug, Clone)]
pub struct JsonPrefix {
    require_object: bool,
    state: State,
    /// The digits of the number being read, before any `.` or exponent:
    /// an integer of more than [`MAX_INT_DIGITS`] is no JSON the readers take.
    digits: usize,
    /// The open containers, outermost first: true for an object.
    stack: Vec<bool>,
    escape: Escape,
    /// A high surrogate's escape was read: its low half must follow.
    high_surrogate: bool,
    /// What was read after the last clean end, not passed on yet.
    held: String,
    /// Whether the last clean end was inside a string value.
    safe_in_string: bool,
}

impl JsonPrefix {
    /// With `require_object`, the text must be an object (a tool's input):
    /// anything else is refused at its first byte.
    pub fn new(require_object: bool) -> Self {
        JsonPrefix {
            require_object,
            state: State::Start,
            digits: 0,
            stack: Vec::new(),
            escape: Escape::None,
            high_surrogate: false,
            held: String::new(),
            safe_in_string: false,
        }
    }

    /// Reads the next fragment; appends to `out` what may be passed on now.
    pub fn feed(&mut self, fragment: &str, out: &mut String) {
        let mut clean_end = None;
        for (at, character) in fragment.char_indices() {
            self.step(character);
            if self.state == State::Broken {
                break;
            }
            if self.is_clean() {
                clean_end = Some(at + character.len_utf8());
                self.safe_in_string = self.state == State::Str;
            }
        }
        match clean_end {
            Some(end) => {
                out.push_str(&self.held);
                out.push_str(&fragment[..end]);
                self.held.clear();
                if self.state != State::Broken {
                    self.held.push_str(&fragment[end..]);
                }
            }
            None if self.state != State::Broken => self.held.push_str(fragment),
            None => {}
        }
        if self.state == State::Broken {
            self.held.clear();
        }
    }

    /// What ends the text passed on: nothing when it was whole, otherwise
    /// the closing quote of the string value it stopped in and the closers
    /// of the containers open there.
    pub fn finish(&self) -> String {
        if self.is_whole() {
            return String::new();
        }
        let mut end = String::with_capacity(self.stack.len() + 1);
        if self.safe_in_string {
            end.push('"');
        }
        for &object in self.stack.iter().rev() {
            end.push(if object { '}' } else { ']' });
        }
        end
    }

    /// Whether the text read so far is one whole JSON value (an object,
    /// where one is required), or nothing at all.
    pub fn is_whole(&self) -> bool {
        match self.state {
            State::Start => true,
            State::After => self.stack.is_empty(),
            State::Number(part) => self.stack.is_empty() && self.number_whole(part),
            _ => false,
        }
    }

    /// Whether the number being read may end here.
    fn number_whole(&self, part: NumberPart) -> bool {
        part.whole()
            && !(matches!(part, NumberPart::Zero | NumberPart::Integer)
                && self.digits > MAX_INT_DIGITS)
    }

    /// Whether the text can no longer be JSON.
    pub fn is_broken(&self) -> bool {
        self.state == State::Broken
    }

    /// Whether the text read so far ends cleanly: [`JsonPrefix::finish`]
    /// ends it as JSON without making anything up. (Between two clean ends
    /// the open containers do not change: opening or closing one is one.)
    fn is_clean(&self) -> bool {
        match self.state {
            // (White space alone is no JSON text: it waits for a value.)
            State::ArrayStart | State::ObjectStart | State::After => true,
            State::Str => self.escape == Escape::None && !self.high_surrogate,
            State::Number(part) => self.number_whole(part),
            _ => false,
        }
    }

    fn step(&mut self, character: char) {
        let in_string = matches!(self.state, State::Str | State::KeyString);
        if in_string {
            self.string_character(character);
            return;
        }
        let Ok(byte) = u8::try_from(character) else {
            self.state = State::Broken; // no character outside ASCII is JSON's outside a string
            return;
        };
        if let State::Number(part) = self.state {
            match part.next(byte) {
                Some(next) => {
                    if matches!(next, NumberPart::Zero | NumberPart::Integer) {
                        self.digits += 1;
                    }
                    self.state = State::Number(next);
                    return;
                }
                None if self.number_whole(part) => self.state = State::After, // and `byte` follows it
                None => {
                    self.state = State::Broken;
                    return;
                }
            }
        }
        if let State::Literal(rest) = self.state {
            self.state = match rest.split_first() {
                Some((&expected, [])) if expected == byte => State::After,
                Some((&expected, tail)) if expected == byte => State::Literal(tail),
                _ => State::Broken,
            };
            return;
        }
        if matches!(byte, b' ' | b'\t' | b'\n' | b'\r') {
            return;
        }
        self.state = match (self.state, byte) {
            (State::Start, b'{') => self.open(true),
            (State::Start, _) if self.require_object => State::Broken,
            (State::ObjectStart, b'}') | (State::ArrayStart, b']') => self.close(),
            (State::Start | State::ArrayStart | State::Value, _) => self.value(byte),
            (State::ObjectStart | State::Key, b'"') => {
                self.escape = Escape::None;
                State::KeyString
            }
            (State::Colon, b':') => State::Value,
            (State::After, b',') if !self.stack.is_empty() => {
                if self.stack.last() == Some(&true) {
                    State::Key
                } else {
                    State::Value
                }
            }
            (State::After, b'}') if self.stack.last() == Some(&true) => self.close(),
            (State::After, b']') if self.stack.last() == Some(&false) => self.close(),
            _ => State::Broken,
        };
    }

    /// The first byte of a value.
    fn value(&mut self, byte: u8) -> State {
        match byte {
            b'{' => self.open(true),
            b'[' => self.open(false),
            b'"' => {
                self.escape = Escape::None;
                State::Str
            }
            b'-' | b'0'..=b'9' => {
                self.digits = usize::from(byte != b'-');
                State::Number(if byte == b'-' {
                    NumberPart::Minus
                } else if byte == b'0' {
                    NumberPart::Zero
                } else {
                    NumberPart::Integer
                })
            }
            b't' => State::Literal(b"rue"),
            b'f' => State::Literal(b"alse"),
            b'n' => State::Literal(b"ull"),
            _ => State::Broken,
        }
    }

    fn open(&mut self, object: bool) -> State {
        // As deep as the assemblers read.
        if self.stack.len() >= MAX_DEPTH {
            return State::Broken;
        }
        self.stack.push(object);
        if object {
            State::ObjectStart
        } else {
            State::ArrayStart
        }
    }

    fn close(&mut self) -> State {
        self.stack.pop();
        State::After
    }

    fn string_character(&mut self, character: char) {
        let code = u32::from(character);
        match self.escape {
            Escape::Backslash => {
                self.escape = match character {
                    'u' => Escape::Unicode(0, 0),
                    '"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't' if !self.high_surrogate => {
                        Escape::None
                    }
                    _ => {
                        self.state = State::Broken;
                        return;
                    }
                };
            }
            Escape::Unicode(digits, value) => {
                let Some(digit) = character.to_digit(16) else {
                    self.state = State::Broken;
                    return;
                };
                let value = value * 16 + digit;
                if digits < 3 {
                    self.escape = Escape::Unicode(digits + 1, value);
                    return;
                }
                self.escape = Escape::None;
                match (value, self.high_surrogate) {
                    (0xD800..=0xDBFF, false) => self.high_surrogate = true,
                    (0xDC00..=0xDFFF, true) => self.high_surrogate = false,
                    (0xD800..=0xDFFF, _) | (_, true) => self.state = State::Broken,
                    _ => {}
                }
            }
            Escape::None if self.high_surrogate && character != '\\' => {
                self.state = State::Broken; // a high surrogate alone
            }
            Escape::None => match character {
                '\\' => self.escape = Escape::Backslash,
                '"' => {
                    self.state = if self.state == State::KeyString {
                        State::Colon
                    } else {
                        State::After
                    };
                }
                _ if code < 0x20 => self.state = State::Broken,
                _ => {}
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What passes through `fragments`, and what ends it.
    fn pass(fragments: &[&str], require_object: bool) -> (Vec<String>, String) {
        let mut prefix = JsonPrefix::new(require_object);
        let passed = fragments
            .iter()
            .map(|fragment| {
                let mut out = String::new();
                prefix.feed(fragment, &mut out);
                out
            })
            .collect();
        (passed, prefix.finish())
    }

    #[test]
    fn valid_text_passes_whole_held_back_only_where_it_is_cut() {
        let (passed, end) = pass(
            &[r#"{"city": "#, r#""Par"#, r#"is", "days": 1"#, "2}"],
            true,
        );
        assert_eq!(
            passed,
            [r#"{"#, r#""city": "Par"#, r#"is", "days": 1"#, "2}"]
        );
        assert_eq!(end, "");
    }

    #[test]
    fn broken_text_ends_as_the_json_of_what_came_before_the_break() {
        // A producer that dropped the first fragment: not an object.
        assert_eq!(
            pass(&[r#""city": "東京"}"#], true),
            (vec![String::new()], String::new())
        );
        // `1` was a whole number, and passed; `1.` is not, and `}` cannot follow it.
        let (passed, end) = pass(&[r#"{"city": "東"#, r#"京", "n": 1.}"#], true);
        assert_eq!(passed.concat() + &end, r#"{"city": "東京", "n": 1}"#);
        let (passed, end) = pass(&[r#"{"a": [1, {"b": tru"#], true);
        assert_eq!(passed.concat() + &end, r#"{"a": [1, {}]}"#);
        let (passed, end) = pass(&[r#"{"a": "x\u00"#], true);
        assert_eq!(passed.concat() + &end, r#"{"a": "x"}"#);
        let (passed, end) = pass(&[r#"{"a": "\ud83d"#, r#"\ude00", "b": "\ud83d"}"#], true);
        assert_eq!(passed.concat() + &end, r#"{"a": "\ud83d\ude00", "b": ""}"#);
    }

    #[test]
    fn what_passes_and_its_end_is_always_json() {
        let texts = [
            r#"{"a": [1, 2.5e-3, "x\n", null, true, {"b": {}}], "c": -0}"#,
            r#"[{"a": 1}, [], "x"] "#,
            r#"{"a": 01}"#,
            r#"{"a" 1}"#,
            "  -12.5E+7",
            r#"{"k": "\ud800x"}"#,
            "{\"a\": \"\u{1}\"}",
        ];
        for text in texts {
            for require_object in [false, true] {
                for cut in 0..=text.len() {
                    if !text.is_char_boundary(cut) {
                        continue;
                    }
                    let (passed, end) = pass(&[&text[..cut], &text[cut..]], require_object);
                    let whole = passed.concat() + &end;
                    assert!(text.starts_with(&passed.concat()), "{text:?} at {cut}");
                    if !whole.trim().is_empty() {
                        crate::json::parse(&whole).unwrap_or_else(|error| {
                            panic!("{text:?} cut at {cut} gives {whole:?}: {error}")
                        });
                    }
                    if serde_json::from_str::<serde_json::Value>(text).is_ok()
                        && (!require_object || text.trim_start().starts_with('{'))
                    {
                        assert_eq!(whole.trim_end(), text.trim_end());
                    }
                }
            }
        }
    }
}
