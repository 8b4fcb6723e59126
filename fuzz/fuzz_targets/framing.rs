//! How a stream is framed ([`Framing`]): no panic on any bytes, and any
//! chunking gives the same event texts and errors as the whole input at
//! once, whether the stream turns out NDJSON (its first byte that is not
//! white space is `{`) or SSE. The line decoder alone holds to the same.
#![no_main]

use agentcodec::ndjson::{Decoder, Framing};
use agentcodec::sse::Limits;
use libfuzzer_sys::fuzz_target;

#[path = "chunks.rs"]
mod chunks;

const LIMITS: Limits = Limits {
    max_line_bytes: Some(512),
    max_event_bytes: Some(1024),
};

fn framed(pieces: &[&[u8]]) -> (Vec<String>, Option<String>) {
    let mut framing = Framing::sniffing(LIMITS);
    let mut texts = Vec::new();
    for piece in pieces {
        if let Err(err) = framing.feed(piece, |text| texts.push(text.to_owned())) {
            return (texts, Some(err.to_string()));
        }
    }
    let error = framing.close(|text| texts.push(text.to_owned())).err();
    (texts, error.map(|err| err.to_string()))
}

fn lines(pieces: &[&[u8]]) -> (Vec<String>, Option<String>) {
    let mut decoder = Decoder::new(LIMITS);
    let mut texts = Vec::new();
    for piece in pieces {
        if let Err(err) = decoder.feed(piece, |text| texts.push(text.to_owned())) {
            return (texts, Some(err.to_string()));
        }
    }
    let error = decoder.close(|text| texts.push(text.to_owned())).err();
    (texts, error.map(|err| err.to_string()))
}

fuzz_target!(|input: &[u8]| {
    let (seed, data) = chunks::split(input);
    let pieces = chunks::chunks(seed, data);
    assert_eq!(framed(&pieces), framed(&[data]));
    let whole = lines(&[data]);
    assert_eq!(lines(&pieces), whole);
    // A line is never empty, never white space, never holds an LF.
    for line in &whole.0 {
        assert!(!line.trim_matches([' ', '\t', '\r', '\n']).is_empty() && !line.contains('\n'));
    }
});
