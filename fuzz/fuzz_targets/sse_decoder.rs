//! The SSE decoder: no panic on any bytes, and any chunking decodes to the
//! same events, last event ID and errors as the whole input at once.
#![no_main]

use agentcodec::sse::{Decoder, Limits, OwnedEvent};
use libfuzzer_sys::fuzz_target;

#[path = "chunks.rs"]
mod chunks;

fn decode(pieces: &[&[u8]]) -> (Vec<OwnedEvent>, Option<String>, String) {
    let limits = Limits {
        max_line_bytes: Some(512),
        max_event_bytes: Some(1024),
    };
    let mut decoder = Decoder::new(limits);
    let mut events = Vec::new();
    let mut error = None;
    for piece in pieces {
        if let Err(err) = decoder.feed(piece, |event| events.push(event.into())) {
            error = Some(err.to_string());
            break;
        }
    }
    if error.is_none() {
        if let Err(err) = decoder.close(|event| events.push(event.into())) {
            error = Some(err.to_string());
        }
    }
    (events, error, decoder.last_event_id().to_owned())
}

fuzz_target!(|input: &[u8]| {
    let (seed, data) = chunks::split(input);
    assert_eq!(decode(&chunks::chunks(seed, data)), decode(&[data]));
});
