//! The partial-JSON parser: no panic on any bytes in any chunking; fed in
//! chunks it ends where it ends fed whole (the same error at the same
//! offset, or the same completeness), it completes exactly what
//! `json::parse` reads, and `end()` takes exactly what is complete.
#![no_main]

use agentcodec::json;
use agentcodec::partial_json::{self, PartialJson};
use libfuzzer_sys::fuzz_target;

#[path = "chunks.rs"]
mod chunks;

/// The error the text stops at, whether it is complete if it ends there,
/// and whether `end()` takes it (as it must exactly when it is complete).
fn parse(pieces: &[&[u8]]) -> (Option<(usize, String)>, bool) {
    let mut parser = PartialJson::new(json::MAX_DEPTH);
    for piece in pieces {
        if let Err(error) = parser.feed(piece, &mut partial_json::Validate) {
            return (Some((error.offset, error.reason)), false);
        }
    }
    let complete = parser.complete_at_end();
    assert_eq!(parser.end(&mut partial_json::Validate).is_ok(), complete);
    (None, complete)
}

fuzz_target!(|input: &[u8]| {
    let (seed, data) = chunks::split(input);
    let whole = parse(&[data]);
    assert_eq!(parse(&chunks::chunks(seed, data)), whole);
    if let Ok(text) = std::str::from_utf8(data) {
        // With `partial_json::Validate` the partial parser completes exactly the
        // texts `json::parse` reads.
        assert_eq!(json::parse(text).is_ok(), whole.1, "{text:?}");
    }
});
