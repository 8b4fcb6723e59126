//! The partial-JSON parser: no panic on any bytes in any chunking; fed in
//! chunks it ends where it ends fed whole (the same error at the same
//! offset, or the same value), and what it completes is what `json::parse`
//! reads.
#![no_main]

use agentcodec::json;
use agentcodec::partial_json::{Builder, PartialJson, Scalar};
use libfuzzer_sys::fuzz_target;

#[path = "chunks.rs"]
mod chunks;

/// Builds nothing: the parser's own checks are what is under test.
struct Nothing;

impl Builder for Nothing {
    fn open(&mut self, _object: bool) -> Result<(), String> {
        Ok(())
    }
    fn close(&mut self) {}
    fn key(&mut self, _key: &str) -> Result<(), String> {
        Ok(())
    }
    fn scalar(&mut self, _value: Scalar<'_>) -> Result<(), String> {
        Ok(())
    }
}

fn parse(pieces: &[&[u8]]) -> (Option<(usize, String)>, bool) {
    let mut parser = PartialJson::new(json::MAX_DEPTH);
    for piece in pieces {
        if let Err(error) = parser.feed(piece, &mut Nothing) {
            return (Some((error.offset, error.reason)), false);
        }
    }
    (None, parser.complete_at_end())
}

fuzz_target!(|input: &[u8]| {
    let (seed, data) = chunks::split(input);
    let whole = parse(&[data]);
    assert_eq!(parse(&chunks::chunks(seed, data)), whole);
    if let Ok(text) = std::str::from_utf8(data) {
        let parsed = json::parse(text);
        if whole.1 {
            // Complete JSON to the partial parser is JSON (integers past
            // the digit limit aside, which its builder refuses).
            assert!(
                parsed.is_ok() || text.len() > json::MAX_INT_DIGITS,
                "{text:?}"
            );
        }
        if parsed.is_ok() {
            assert!(whole.0.is_none() && whole.1, "{text:?}");
        }
    }
});
