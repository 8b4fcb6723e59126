//! Every assembler: no panic on any byte stream, errors skipped; fed in
//! chunks it assembles what it assembles from the whole stream at once, and
//! its quick paths (deltas applied from a probe, without a `Value` tree)
//! assemble what the full path does (taken when every event is observed).
//! The first byte picks the protocol: one assembler an input, so that an
//! input's coverage is its protocol's and inputs stay fast.
#![no_main]

use agentcodec::registry::Descriptor;
use agentcodec::sse::Limits;
use agentcodec::stream::OnError;
use agentcodec::PROTOCOLS;
use libfuzzer_sys::fuzz_target;

#[path = "chunks.rs"]
mod chunks;

const LIMITS: Limits = Limits {
    max_line_bytes: Some(4096),
    max_event_bytes: Some(8192),
};

/// Feeds `pieces` to a new assembler of the protocol (observing every
/// event when `full`, which keeps events off the quick paths), closes, and
/// says what came of it.
fn run(protocol: &Descriptor, pieces: &[&[u8]], full: bool) -> String {
    let mut assembler = (protocol.assembler)(OnError::Skip, LIMITS);
    for piece in pieces {
        let _ = if full {
            assembler.feed_observed(piece, &mut |_| {})
        } else {
            assembler.feed(piece)
        };
    }
    let _ = assembler.close();
    format!(
        "{} {:?} {}",
        assembler.event_count(),
        assembler.errors(),
        assembler.result()
    )
}

fuzz_target!(|input: &[u8]| {
    let Some((&pick, input)) = input.split_first() else {
        return;
    };
    let (seed, data) = chunks::split(input);
    let protocol = PROTOCOLS[usize::from(pick) % PROTOCOLS.len()];
    let whole = run(protocol, &[data], false);
    assert_eq!(run(protocol, &chunks::chunks(seed, data), false), whole);
    assert_eq!(run(protocol, &[data], true), whole, "the full path");
});
