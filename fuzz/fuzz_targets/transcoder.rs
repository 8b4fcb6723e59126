//! Conversion between protocols, and every encoder: no panic on any input;
//! the Transcoder writes the same bytes in any chunking and whether its
//! decoder takes the quick path or parses every event; and what any
//! encoder writes is a stream its protocol's decoder reads without an error.
//! The first byte picks the source, one of the protocols (SSE bytes) or
//! neutral events (one JSON object a line) given to the encoder directly,
//! and the target: one pair an input, so that inputs stay fast. The bytes
//! past the pairs' count leave out the tool calls the agent ran
//! (`executed_tool_calls="omit"`), whose held events must come out alike in
//! any chunking too.
#![no_main]

use agentcodec::events::Event;
use agentcodec::json::{self, Value};
use agentcodec::registry::{Descriptor, EncoderOptions, OptionKind, OptionValue};
use agentcodec::sse::Limits;
use agentcodec::stream::{Assemble, OnError};
use agentcodec::transcode::{self, Transcoder};
use agentcodec::PROTOCOLS;
use libfuzzer_sys::fuzz_target;

#[path = "chunks.rs"]
mod chunks;

const LIMITS: Limits = Limits {
    max_line_bytes: Some(4096),
    max_event_bytes: Some(8192),
};

/// A target's encoder, with every id and time fixed so runs compare.
fn options(target: &'static Descriptor) -> EncoderOptions {
    let fixed = target.options.iter().map(|option| {
        let value = match option.kind {
            OptionKind::Str => OptionValue::from("x"),
            OptionKind::Int => OptionValue::Int(1),
            OptionKind::Bool => OptionValue::Bool(false),
            OptionKind::StrList => OptionValue::StrList(Vec::new()),
            OptionKind::Choice(choices) => OptionValue::from(choices[0]),
        };
        (option.name.to_owned(), value)
    });
    EncoderOptions::parse(target, fixed).expect("options of the declared kinds")
}

/// What `source` converts to; `full` observes every event, which keeps
/// the decoder off its quick path.
fn convert(
    source: &'static Descriptor,
    target: &'static Descriptor,
    pieces: &[&[u8]],
    full: bool,
    omit: bool,
) -> Vec<u8> {
    let mut transcoder = Transcoder::new(source, options(target), LIMITS, OnError::Skip);
    if omit {
        transcoder.omit_executed_tool_calls();
    }
    let mut out = Vec::new();
    for piece in pieces {
        let _ = if full {
            transcoder.feed_observed(piece, &mut |_| {})
        } else {
            transcoder.feed(piece)
        };
        out.extend(transcoder.take_bytes());
    }
    let _ = transcoder.close();
    out.extend(transcoder.take_bytes());
    out
}

fn encode(target: &'static Descriptor, events: &[Event], omit: bool) -> Vec<u8> {
    let mut encoder = transcode::Encoder::new(options(target));
    if omit {
        encoder.omit_executed_tool_calls();
    }
    let mut out = Vec::new();
    for event in events {
        out.extend(encoder.encode(event));
    }
    out.extend(encoder.close());
    out
}

/// What `target`'s decoder makes of `bytes` must be free of errors; but
/// that it held no event of the protocol where it held none at all, or
/// where `foreign` (all it holds passed through, and need not be the
/// protocol's).
fn reads_back(target: &'static Descriptor, bytes: &[u8], foreign: bool) {
    let mut decoder = transcode::Decoder::new(target, Limits::default(), OnError::Skip);
    let _ = decoder.feed(bytes);
    let _ = decoder.close();
    let excused = foreign || decoder.event_count() == 0;
    assert!(
        decoder
            .errors()
            .iter()
            .all(|error| excused && error.code == "unrecognized_stream"),
        "{} reads its encoder's output with errors {:?}: {}",
        target.name,
        decoder.errors(),
        String::from_utf8_lossy(bytes)
    );
}

/// Whether `target`'s encoder writes nothing of its own for `events`: all
/// it writes is what passed through.
fn writes_nothing_of_its_own(target: &'static Descriptor, events: &[Event], omit: bool) -> bool {
    let own: Vec<Event> = events
        .iter()
        .filter(|event| event.get("type").and_then(Value::as_str) != Some("passthrough"))
        .cloned()
        .collect();
    encode(target, &own, omit).is_empty()
}

fuzz_target!(|input: &[u8]| {
    let Some((&pick, input)) = input.split_first() else {
        return;
    };
    let (seed, data) = chunks::split(input);
    let pick = usize::from(pick);
    let pairs = (PROTOCOLS.len() + 1) * PROTOCOLS.len();
    let omit = pick >= pairs;
    let pick = pick % pairs;
    let target = PROTOCOLS[pick / (PROTOCOLS.len() + 1)];
    match PROTOCOLS.get(pick % (PROTOCOLS.len() + 1)) {
        Some(source) => {
            let whole = convert(source, target, &[data], false, omit);
            let pieces = chunks::chunks(seed, data);
            assert_eq!(convert(source, target, &pieces, false, omit), whole);
            assert_eq!(
                convert(source, target, &[data], true, omit),
                whole,
                "the full path"
            );
            let mut decoder = transcode::Decoder::new(source, LIMITS, OnError::Skip);
            let _ = decoder.feed(data);
            let _ = decoder.close();
            reads_back(
                target,
                &whole,
                writes_nothing_of_its_own(target, &decoder.take(), omit),
            );
        }
        None => {
            let events: Vec<Event> = data
                .split(|&byte| byte == b'\n')
                .filter_map(|line| match json::parse(std::str::from_utf8(line).ok()?) {
                    Ok(Value::Object(event)) => Some(event),
                    _ => None,
                })
                .collect();
            let foreign = writes_nothing_of_its_own(target, &events, omit);
            reads_back(target, &encode(target, &events, omit), foreign);
        }
    }
});
