//! How a stream is framed ([`Framing`]): no panic on any bytes, and any
//! chunking gives the same event texts and errors as the whole input at
//! once, whether the stream turns out JSON (its first byte that is not
//! white space is `{` or `[`: NDJSON, or a streamed JSON array), an AWS
//! event stream (a zero byte) or SSE.
//! The line and array decoders alone hold to the same, and so does the AWS
//! event stream's, whose CRCs a mutated input mostly fails (seeded with
//! valid messages, it reaches the headers too).
#![no_main]

use agentcodec::eventstream;
use agentcodec::framing::{Framing, Kind};
use agentcodec::json_array;
use agentcodec::ndjson::Decoder;
use agentcodec::sse::Limits;
use libfuzzer_sys::fuzz_target;

#[path = "chunks.rs"]
mod chunks;

const LIMITS: Limits = Limits {
    max_line_bytes: Some(512),
    max_event_bytes: Some(1024),
};

fn framed(pieces: &[&[u8]], kind: Kind) -> (Vec<String>, Option<String>) {
    let mut framing = Framing::sniffing(LIMITS, kind);
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

fn elements(pieces: &[&[u8]]) -> (Vec<String>, Option<String>) {
    let mut decoder = json_array::Decoder::new(LIMITS);
    let mut texts = Vec::new();
    for piece in pieces {
        if let Err(err) = decoder.feed(piece, |text| texts.push(text.to_owned())) {
            return (texts, Some(err.to_string()));
        }
    }
    let error = decoder.close(|text| texts.push(text.to_owned())).err();
    (texts, error.map(|err| err.to_string()))
}

/// The messages of an event stream, as comparable values, and the error.
fn messages(pieces: &[&[u8]]) -> (Vec<String>, Option<String>) {
    let mut decoder = eventstream::Decoder::new(Some(4096));
    let mut out = Vec::new();
    for piece in pieces {
        if let Err(err) = decoder.feed(piece, |message| out.push(format!("{message:?}"))) {
            return (out, Some(err.to_string()));
        }
    }
    let error = decoder.close().err();
    (out, error.map(|err| err.to_string()))
}

fuzz_target!(|input: &[u8]| {
    let (seed, data) = chunks::split(input);
    let pieces = chunks::chunks(seed, data);
    for kind in [Kind::Lines, Kind::Array, Kind::EventStream] {
        assert_eq!(framed(&pieces, kind), framed(&[data], kind));
    }
    assert_eq!(messages(&pieces), messages(&[data]));
    // A message made of the input (as headers when it parses as them, else
    // as the payload) decodes to what was written.
    let mut written = Vec::new();
    eventstream::encode::<&str>(&[], data, &mut written).expect("a payload of any bytes");
    let mut decoder = eventstream::Decoder::new(None);
    let mut payloads = Vec::new();
    decoder
        .feed(&written, |message| payloads.push(message.payload.to_vec()))
        .expect("what was written reads back");
    assert_eq!(payloads, [data.to_vec()]);
    let whole = elements(&[data]);
    assert_eq!(elements(&pieces), whole);
    // An element is never empty and never opens with white space.
    for element in &whole.0 {
        assert!(!element.is_empty() && !element.starts_with([' ', '\t', '\r', '\n']));
    }
    let whole = lines(&[data]);
    assert_eq!(lines(&pieces), whole);
    // A line is never empty, never white space, never holds an LF.
    for line in &whole.0 {
        assert!(!line.trim_matches([' ', '\t', '\r', '\n']).is_empty() && !line.contains('\n'));
    }
});
