//! Tool calls as every assembler offers them: each call's own fields and
//! the text of its arguments so far, for a reader that parses the arguments
//! incrementally (`python/tool_calls.rs` and `_pure/tool_calls.py`), so that
//! reading them after every delta costs the delta, not the arguments so far.
//!
//! Arguments only grow while a call streams; the few events that replace
//! them (a snapshot, a `*.done` carrying the whole text) bump the
//! assembler's `rewrites` count, and a reader then checks each call's text
//! still begins with what it parsed ([`Fingerprint`]) before going on from
//! where it stopped.

use std::borrow::Cow;

use crate::json::{Map, Value};

/// A tool call's arguments as the assembler holds them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Arguments<'a> {
    /// JSON text, streamed: parsed by the reader.
    Text(&'a str),
    /// Already a value (the protocol sent it parsed, or the assembler
    /// parsed it when the call ended).
    Value(&'a Value),
}

impl<'a> Arguments<'a> {
    /// Arguments as a call holds them: none (absent or null), text, or a value.
    pub fn of(value: Option<&'a Value>) -> Option<Self> {
        match value {
            None | Some(Value::Null) => None,
            Some(Value::String(text)) => Some(Arguments::Text(text)),
            Some(value) => Some(Arguments::Value(value)),
        }
    }
}

/// One tool call, as an assembler's `tool_calls` gives it.
#[derive(Debug, Clone)]
pub struct ToolCall<'a> {
    /// Which call this is, stable while the stream goes on: a reader keeps
    /// what it parsed of a call under this key.
    pub key: Cow<'a, str>,
    /// The call's own fields (its id and name), in the protocol's names.
    pub fields: Map<String, Value>,
    /// The field its arguments go in: `arguments`, `input` or `args`.
    pub field: &'static str,
    /// `None` before any argument text came.
    pub arguments: Option<Arguments<'a>>,
    /// No more arguments will come: the call or the stream ended.
    pub finished: bool,
}

/// Every tool call of an assembler, and how many times arguments may have
/// been replaced rather than appended to.
#[derive(Debug, Clone, Default)]
pub struct ToolCalls<'a> {
    pub calls: Vec<ToolCall<'a>>,
    pub rewrites: u64,
}

/// FNV-1a over the bytes a reader parsed, updated fragment by fragment, so
/// that after a rewrite it can tell whether the text it parsed is still
/// the start of a call's arguments without keeping a copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fingerprint(u64);

impl Default for Fingerprint {
    fn default() -> Self {
        Fingerprint(0xcbf2_9ce4_8422_2325)
    }
}

impl Fingerprint {
    pub fn update(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    pub fn of(bytes: &[u8]) -> Self {
        let mut fingerprint = Fingerprint::default();
        fingerprint.update(bytes);
        fingerprint
    }
}

/// Whether replacing arguments `old` by `new` is more than an append, which
/// a reader that parsed the old text must hear of: the old ones were text
/// and the new ones are not that text continued.
pub fn rewritten(old: Option<&Value>, new: Option<&Value>) -> bool {
    match (old, new) {
        (Some(Value::String(old)), Some(Value::String(new))) => !new.starts_with(old.as_str()),
        (Some(Value::String(_)), _) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_is_the_same_however_the_bytes_come() {
        let mut pieces = Fingerprint::default();
        pieces.update(b"{\"a\": ");
        pieces.update(b"");
        pieces.update(b"1}");
        assert_eq!(pieces, Fingerprint::of(b"{\"a\": 1}"));
        assert_ne!(pieces, Fingerprint::of(b"{\"a\": 2}"));
    }

    #[test]
    fn an_extension_is_no_rewrite() {
        let old = Value::from("{\"a\"");
        assert!(!rewritten(Some(&old), Some(&Value::from("{\"a\": 1}"))));
        assert!(rewritten(Some(&old), Some(&Value::from("{\"b\": 1}"))));
        assert!(!rewritten(None, Some(&Value::from("x"))));
        assert!(rewritten(Some(&old), None));
        assert!(rewritten(Some(&old), Some(&Value::from(1))));
        assert!(!rewritten(Some(&Value::from(1)), Some(&Value::from("x"))));
    }
}
