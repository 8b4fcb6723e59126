//! Leaves out the tool calls the agent has run itself, for a target whose
//! readers would run them again: a Chat client's agent loop runs every
//! `tool_calls` entry it reads, and an agent's turn served as Chat would
//! hand it the calls the agent made and answered. Such a call is one that a
//! provider or a server runs (a server tool's, an MCP call: `tool` is
//! `server` or `mcp`), or one whose result comes in the run (a `tool_result`
//! block of its `call_id`, or an `output` on the call itself). A call's
//! result is left out with it.
//!
//! Whether a function call is answered is known only when its result comes,
//! so the events from a call's start are held until each call held is
//! answered (then they go on, but the answered calls' and their results'
//! blocks), or until
//! what comes says none will be (another message than a tool's, the run's
//! end, or more held than [`MAX_HELD_BYTES`]): then they go on as they
//! came, calls and all. A run of a model that asks its client to call tools
//! streams its calls at its end.
//! `python/agentcodec/_pure/executed_calls.py` mirrors this module.

use crate::events::{as_int, get, get_str, BlockRef, Event};
use crate::hashing::{HashSet, IndexSet};
use crate::json::Value;

/// How much the held events may weigh (their deltas' bytes, and a fixed
/// weight for any other event): past it, they go on as they came.
pub const MAX_HELD_BYTES: usize = 16 << 20;

/// The weight of a held event that is not a delta.
const EVENT_WEIGHT: usize = 256;

type BlockKey = (String, i64);

/// A call held until its result comes or none will.
struct HeldCall {
    block: BlockKey,
    call_id: Option<String>,
}

/// Neutral events in, the same events out but the blocks of tool calls the
/// agent has run, each with the number of the source's event it came with.
#[derive(Default)]
pub struct ExecutedCalls {
    held: Vec<(u64, Event)>,
    held_bytes: usize,
    calls: Vec<HeldCall>,
    /// The open blocks of calls run upstream, whose events go nowhere
    /// (found by a [`BlockRef`], with no key built for a lookup).
    left_out: IndexSet<BlockKey>,
    /// The ids of the server's and MCP calls left out, until their results
    /// come (which go with them).
    left_out_calls: HashSet<String>,
}

fn block_ref(event: &Event) -> Option<BlockRef<'_>> {
    Some(BlockRef(
        get_str(event, "message_id")?,
        as_int(event.get("index"))?,
    ))
}

fn block_key(event: &Event) -> Option<BlockKey> {
    block_ref(event).map(|BlockRef(message_id, index)| (message_id.to_owned(), index))
}

fn is_set(value: Option<&Value>) -> bool {
    !matches!(value, None | Some(Value::Null))
}

impl ExecutedCalls {
    /// Whether a delta of this block must come as an event: the block is
    /// left out, or events are held.
    pub fn takes_delta(&self, message_id: &str, index: i64) -> bool {
        !self.calls.is_empty()
            || (!self.left_out.is_empty() && self.left_out.contains(&BlockRef(message_id, index)))
    }

    /// What goes on after `event` (of the source's event `number`), in order.
    pub fn push(&mut self, number: u64, event: Event, out: &mut Vec<(u64, Event)>) {
        let kind = get_str(&event, "type").unwrap_or_default();
        if kind.starts_with("block_") && !self.left_out.is_empty() {
            if let Some(block) = block_ref(&event) {
                // A left-out block's end is the last of it: what is left out
                // stays as few as the blocks open at once.
                let left_out = if kind == "block_finished" {
                    self.left_out.swap_remove(&block)
                } else {
                    self.left_out.contains(&block)
                };
                if left_out {
                    return;
                }
            }
        }
        let block_kind = get_str(&event, "kind");
        match kind {
            "block_started" if block_kind == Some("tool_call") => {
                if let Some(key) = block_key(&event) {
                    if matches!(get_str(&event, "tool"), Some("server" | "mcp")) {
                        self.left_out.insert(key);
                        if let Some(call_id) = get_str(&event, "call_id") {
                            self.left_out_calls.insert(call_id.to_owned());
                        }
                        return;
                    }
                    let call_id = get_str(&event, "call_id").map(str::to_owned);
                    self.calls.push(HeldCall {
                        block: key,
                        call_id,
                    });
                    self.hold(number, event, out);
                    return;
                }
            }
            "block_replaced" if !self.calls.is_empty() => {
                if let Some(BlockRef(message_id, index)) = block_ref(&event) {
                    let of_block =
                        |call: &HeldCall| call.block.0 == message_id && call.block.1 == index;
                    if let Some(at) = self.calls.iter().position(of_block) {
                        if let Some(call_id) = get_str(&event, "call_id") {
                            self.calls[at].call_id = Some(call_id.to_owned());
                        }
                        if is_set(get(&event, "output")) {
                            self.answered(at);
                            return self.release_if_answered(out);
                        }
                    }
                }
            }
            "block_started" if block_kind == Some("tool_result") => {
                // The result goes with its call: a reader given it alone
                // would hold an answer to a call it never saw.
                let call_id = get_str(&event, "call_id");
                if call_id.is_some_and(|call_id| self.left_out_calls.remove(call_id)) {
                    self.leave_out(&event);
                    return;
                }
                let at = call_id.and_then(|call_id| {
                    self.calls
                        .iter()
                        .position(|call| call.call_id.as_deref() == Some(call_id))
                });
                if let Some(at) = at {
                    self.answered(at);
                    self.leave_out(&event);
                    return self.release_if_answered(out);
                }
            }
            // A tool's message may answer a call; any other, none.
            "message_started"
                if !self.calls.is_empty() && get_str(&event, "role") != Some("tool") =>
            {
                self.release(out)
            }
            "run_finished" | "run_failed" => self.release(out),
            _ => {}
        }
        if self.calls.is_empty() {
            out.push((number, event));
        } else {
            self.hold(number, event, out);
        }
    }

    /// The block `event` starts goes nowhere, to its end.
    fn leave_out(&mut self, event: &Event) {
        if let Some(key) = block_key(event) {
            self.left_out.insert(key);
        }
    }

    /// What is held, as it came: the stream is over.
    pub fn finish(&mut self, out: &mut Vec<(u64, Event)>) {
        self.release(out);
    }

    fn hold(&mut self, number: u64, event: Event, out: &mut Vec<(u64, Event)>) {
        self.held_bytes += match event.get("delta") {
            Some(Value::String(delta)) => delta.len(),
            _ => EVENT_WEIGHT,
        };
        self.held.push((number, event));
        if self.held_bytes > MAX_HELD_BYTES {
            self.release(out);
        }
    }

    /// The call at `at` is answered: its block goes nowhere (what is left
    /// of it, where it has not ended).
    fn answered(&mut self, at: usize) {
        let call = self.calls.remove(at);
        let (message_id, index) = (&call.block.0, call.block.1);
        let mut ended = false;
        self.held.retain(|(_, event)| {
            let kind = get_str(event, "type").unwrap_or_default();
            let of_call = kind.starts_with("block_")
                && get_str(event, "message_id") == Some(message_id)
                && as_int(event.get("index")) == Some(index);
            ended |= of_call && kind == "block_finished";
            !of_call
        });
        if !ended {
            self.left_out.insert(call.block);
        }
    }

    fn release_if_answered(&mut self, out: &mut Vec<(u64, Event)>) {
        if self.calls.is_empty() {
            self.release(out);
        }
    }

    /// The held events go on as they are; the calls still held are written.
    fn release(&mut self, out: &mut Vec<(u64, Event)>) {
        self.calls.clear();
        self.held_bytes = 0;
        out.append(&mut self.held);
    }
}

#[cfg(test)]
mod tests {
    use super::ExecutedCalls;
    use crate::events::Event;
    use crate::json::{self, Value};

    fn event(text: &str) -> Event {
        match json::parse(text) {
            Ok(Value::Object(event)) => event,
            _ => panic!("not an object: {text}"),
        }
    }

    fn run(events: &[&str]) -> Vec<String> {
        let mut calls = ExecutedCalls::default();
        let mut out = Vec::new();
        for (number, text) in events.iter().enumerate() {
            calls.push(number as u64 + 1, event(text), &mut out);
        }
        calls.finish(&mut out);
        out.iter()
            .map(|(number, event)| format!("{number}:{}", event["type"].as_str().unwrap_or("")))
            .collect()
    }

    const CALL: &[&str] = &[
        r#"{"type":"message_started","message_id":"m","role":"assistant"}"#,
        r#"{"type":"block_started","message_id":"m","index":0,"kind":"text"}"#,
        r#"{"type":"block_delta","message_id":"m","index":0,"delta":"Let me look."}"#,
        r#"{"type":"block_finished","message_id":"m","index":0}"#,
        r#"{"type":"block_started","message_id":"m","index":1,"kind":"tool_call","call_id":"c","name":"f","tool":"function"}"#,
        r#"{"type":"block_delta","message_id":"m","index":1,"delta":"{}"}"#,
        r#"{"type":"block_finished","message_id":"m","index":1}"#,
        r#"{"type":"message_finished","message_id":"m"}"#,
    ];

    #[test]
    fn an_answered_call_is_left_out() {
        let mut events = CALL.to_vec();
        events.extend([
            r#"{"type":"message_started","message_id":"t","role":"tool"}"#,
            r#"{"type":"block_started","message_id":"t","index":0,"kind":"tool_result","call_id":"c"}"#,
            r#"{"type":"block_finished","message_id":"t","index":0}"#,
            r#"{"type":"message_finished","message_id":"t"}"#,
            r#"{"type":"run_finished","status":"completed"}"#,
        ]);
        let expected = [
            "1:message_started",
            "2:block_started",
            "3:block_delta",
            "4:block_finished",
            "8:message_finished",
            "9:message_started",
            "12:message_finished",
            "13:run_finished",
        ];
        assert_eq!(run(&events), expected);
        // (the call's block had ended, and its result's has: nothing is kept of them)
        let mut calls = ExecutedCalls::default();
        let mut out = Vec::new();
        for text in &events {
            calls.push(1, event(text), &mut out);
        }
        assert!(calls.left_out.is_empty() && calls.calls.is_empty() && calls.held.is_empty());
    }

    #[test]
    fn a_call_the_run_leaves_to_its_client_is_written_at_its_end() {
        let mut events = CALL.to_vec();
        events.push(r#"{"type":"run_finished","status":"completed"}"#);
        let written: Vec<String> = (1..=9)
            .map(|number| {
                format!(
                    "{number}:{}",
                    event(events[number - 1])["type"].as_str().unwrap()
                )
            })
            .collect();
        assert_eq!(run(&events), written);
    }

    #[test]
    fn a_server_tools_call_is_left_out_at_once() {
        let events = [
            r#"{"type":"message_started","message_id":"m","role":"assistant"}"#,
            r#"{"type":"block_started","message_id":"m","index":0,"kind":"tool_call","call_id":"s","tool":"server"}"#,
            r#"{"type":"block_delta","message_id":"m","index":0,"delta":"{}"}"#,
            r#"{"type":"block_finished","message_id":"m","index":0}"#,
            r#"{"type":"message_finished","message_id":"m"}"#,
            r#"{"type":"block_started","message_id":"m","index":1,"kind":"tool_result","call_id":"s"}"#,
            r#"{"type":"block_delta","message_id":"m","index":1,"delta":"found"}"#,
            r#"{"type":"block_finished","message_id":"m","index":1}"#,
            r#"{"type":"block_started","message_id":"m","index":2,"kind":"tool_result","call_id":"s"}"#,
        ];
        // Its result goes with it; a second result of that id is no longer its.
        assert_eq!(
            run(&events),
            ["1:message_started", "5:message_finished", "9:block_started"]
        );
    }

    #[test]
    fn a_left_out_block_is_forgotten_at_its_end() {
        let mut calls = ExecutedCalls::default();
        let mut out = Vec::new();
        for text in [
            r#"{"type":"block_started","message_id":"m","index":0,"kind":"tool_call","tool":"mcp"}"#,
            r#"{"type":"block_finished","message_id":"m","index":0}"#,
        ] {
            calls.push(1, event(text), &mut out);
        }
        assert!(out.is_empty());
        assert!(calls.left_out.is_empty());
    }
}
