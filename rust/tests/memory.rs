//! The heap an assembler holds per message, counted by a global allocator
//! that keeps the bytes live: a short message that is done costs about its
//! text. As a tree of serde_json maps, one cost 4.6 KB (AgentScope) and
//! 4.0 KB (LangChain), twice the pure backend's Python dicts.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

use agentcodec::stream::Assemble;
use agentcodec::{agentscope, langchain};

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call is passed to the system allocator unchanged; the
// counter is only read.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const MESSAGES: usize = 2000;

/// Heap bytes per message the assembler holds after `stream`.
fn bytes_per_message<A: Assemble>(mut assembler: A, stream: &str) -> isize {
    let before = LIVE.load(Ordering::Relaxed);
    assembler.feed(stream.as_bytes()).unwrap();
    let held = LIVE.load(Ordering::Relaxed) - before;
    drop(assembler);
    held / MESSAGES as isize
}

fn agentscope_stream() -> String {
    (0..MESSAGES)
        .map(|n| {
            let message = format!(
                r#""object":"message","id":"msg_{n:08}","type":"message","role":"assistant""#
            );
            let content =
                format!(r#""object":"content","type":"text","index":0,"msg_id":"msg_{n:08}""#);
            [
                format!(r#"{{{message},"status":"in_progress"}}"#),
                format!(r#"{{{content},"delta":true,"status":"in_progress","text":"hello "}}"#),
                format!(r#"{{{content},"delta":true,"status":"in_progress","text":"there"}}"#),
                format!(r#"{{{content},"delta":false,"status":"completed","text":"hello there"}}"#),
                format!(r#"{{{message},"status":"completed"}}"#),
            ]
            .map(|event| format!("data: {event}\n\n"))
            .concat()
        })
        .collect()
}

fn langchain_stream() -> String {
    (0..MESSAGES)
        .map(|n| {
            [
                format!(r#"{{"event":"message-start","role":"ai","id":"run-{n}"}}"#),
                r#"{"event":"content-block-start","index":0,"content":{"type":"text","text":""}}"#.to_owned(),
                r#"{"event":"content-block-delta","index":0,"delta":{"type":"text-delta","text":"hello "}}"#.to_owned(),
                r#"{"event":"content-block-delta","index":0,"delta":{"type":"text-delta","text":"there"}}"#.to_owned(),
                r#"{"event":"content-block-finish","index":0,"content":{"type":"text","text":"hello there"}}"#.to_owned(),
                r#"{"event":"message-finish","reason":"stop"}"#.to_owned(),
            ]
            .map(|data| {
                format!(
                    "data: {{\"type\":\"event\",\"method\":\"messages\",\"params\":{{\"namespace\":[\"agent:1\"],\"node\":\"model\",\"data\":{data}}}}}\n\n"
                )
            })
            .concat()
        })
        .collect()
}

// One test: the counter is the whole process's, so nothing may run beside it.
#[test]
fn a_short_message_that_is_done_costs_about_its_text() {
    let agentscope = bytes_per_message(agentscope::Assembler::default(), &agentscope_stream());
    let langchain = bytes_per_message(langchain::Assembler::default(), &langchain_stream());
    // Its JSON text is about 330 bytes (AgentScope) and 200 (LangChain).
    assert!(
        agentscope < 800,
        "AgentScope holds {agentscope} bytes per message"
    );
    assert!(
        langchain < 600,
        "LangChain holds {langchain} bytes per message"
    );
}
