//! Every assembler: no panic on any byte stream, errors skipped; fed in
//! chunks it assembles what it assembles from the whole stream at once, and
//! its quick paths (deltas applied from a probe, without a `Value` tree)
//! assemble what the full path does (taken when every event is observed).
//! The first byte picks the protocol: one assembler an input, so that an
//! input's coverage is its protocol's and inputs stay fast.
#![no_main]

use agentcodec::stream::{Assemble, OnError};
use agentcodec::{agentscope, agui, ai_sdk, anthropic, langchain, openai_chat, openai_responses};
use libfuzzer_sys::fuzz_target;

#[path = "chunks.rs"]
mod chunks;

/// Feeds `pieces` (observing every event when `full`, which keeps events
/// off the quick paths), closes, and says what came of it.
fn run<A: Assemble>(
    mut assembler: A,
    pieces: &[&[u8]],
    full: bool,
    view: impl Fn(&A) -> String,
) -> String {
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
        view(&assembler)
    )
}

fn both<A: Assemble>(make: impl Fn() -> A, view: impl Fn(&A) -> String, seed: &[u8], data: &[u8]) {
    let whole = run(make(), &[data], false, &view);
    assert_eq!(
        run(make(), &chunks::chunks(seed, data), false, &view),
        whole
    );
    assert_eq!(run(make(), &[data], true, &view), whole, "the full path");
}

fuzz_target!(|input: &[u8]| {
    let Some((&pick, input)) = input.split_first() else {
        return;
    };
    let (seed, data) = chunks::split(input);
    let skip = OnError::Skip;
    let limits = agentcodec::sse::Limits {
        max_line_bytes: Some(4096),
        max_event_bytes: Some(8192),
    };
    match pick % 7 {
        0 => both(
            || {
                agentscope::Assembler::new(agentscope::Options {
                    on_error: skip,
                    limits,
                    ..Default::default()
                })
            },
            |a| a.response().to_string(),
            seed,
            data,
        ),
        1 => both(
            || {
                langchain::Assembler::new(langchain::Options {
                    on_error: skip,
                    limits,
                    ..Default::default()
                })
            },
            |a| format!("{:?}", a.messages()),
            seed,
            data,
        ),
        2 => both(
            || {
                agui::Assembler::new(agui::Options {
                    on_error: skip,
                    limits,
                })
            },
            |a| format!("{:?}", a.messages()),
            seed,
            data,
        ),
        3 => both(
            || {
                openai_responses::Assembler::new(openai_responses::Options {
                    on_error: skip,
                    limits,
                })
            },
            |a| a.response().to_string(),
            seed,
            data,
        ),
        4 => both(
            || {
                openai_chat::Assembler::new(openai_chat::Options {
                    on_error: skip,
                    limits,
                })
            },
            |a| a.completion().to_string(),
            seed,
            data,
        ),
        5 => both(
            || {
                anthropic::Assembler::new(anthropic::Options {
                    on_error: skip,
                    limits,
                })
            },
            |a| a.message().to_string(),
            seed,
            data,
        ),
        _ => both(
            || {
                ai_sdk::Assembler::new(ai_sdk::Options {
                    on_error: skip,
                    limits,
                })
            },
            |a| a.message().to_string(),
            seed,
            data,
        ),
    }
});
