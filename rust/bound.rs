//! The strict-validation bound: what reading a stream costs with nothing
//! assembled. Each event is framed as the protocol's assembler frames it
//! (the same [`Framing`], SSE or the protocol's own) and its JSON checked
//! by serde_json into [`IgnoredAny`], which validates every byte (grammar,
//! escapes, numbers) and builds nothing. No reader of a protocol can do
//! less and still refuse what is not JSON, so an assembler's throughput as
//! a share of this one's, on the same bytes, says how much of its time
//! goes to what it builds. `benches/report.py` measures both in one run.

use serde::de::IgnoredAny;

use crate::framing::{Framing, Kind};
use crate::sse::Limits;

/// Frames a stream and validates each event's JSON, counting the events.
#[derive(Debug)]
pub struct StrictValidation {
    framing: Framing,
    events: u64,
}

impl StrictValidation {
    /// A reader of streams framed as SSE or, as the first byte says, as
    /// `kind` (a protocol's [`crate::events::Decode::framing`]).
    pub fn new(kind: Option<Kind>) -> Self {
        let limits = Limits::default();
        let framing = match kind {
            Some(kind) => Framing::sniffing(limits, kind),
            None => Framing::sse(limits),
        };
        StrictValidation { framing, events: 0 }
    }

    /// Reads one chunk. An event that is not JSON is an error naming it;
    /// blank events (keep-alives) and `[DONE]` are not JSON and are skipped.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), String> {
        let mut failure = None;
        let events = &mut self.events;
        self.framing
            .feed(chunk, |text| validate(text, events, &mut failure))
            .map_err(|error| error.to_string())?;
        failure.map_or(Ok(()), Err)
    }

    /// Ends the stream: the number of events validated.
    pub fn close(&mut self) -> Result<u64, String> {
        let mut failure = None;
        let events = &mut self.events;
        self.framing
            .close(|text| validate(text, events, &mut failure))
            .map_err(|error| error.to_string())?;
        failure.map_or(Ok(self.events), Err)
    }
}

fn validate(text: &str, events: &mut u64, failure: &mut Option<String>) {
    let text = text.trim_ascii();
    if text.is_empty() || text == "[DONE]" {
        return;
    }
    *events += 1;
    if let Err(error) = serde_json::from_str::<IgnoredAny>(text) {
        failure.get_or_insert_with(|| format!("event {events} is not JSON: {error}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_events_in_any_chunking_and_refuses_what_is_not_json() {
        let stream = b"data: {\"a\": [1, 2.5e3, \"\\u00e9\"]}\n\n: keep-alive\n\ndata: [DONE]\n\n";
        for size in 1..stream.len() {
            let mut reader = StrictValidation::new(None);
            for chunk in stream.chunks(size) {
                reader.feed(chunk).unwrap();
            }
            assert_eq!(reader.close(), Ok(1));
        }
        let mut reader = StrictValidation::new(None);
        let error = reader.feed(b"data: {\"a\": 1}\n\ndata: {\"a\": 01}\n\n");
        assert!(error.unwrap_err().starts_with("event 2 is not JSON"));
    }

    #[test]
    fn reads_the_protocols_own_framing() {
        let mut reader = StrictValidation::new(Some(Kind::Lines));
        reader
            .feed(b"{\"done\": false}\n{\"done\": true}\n")
            .unwrap();
        assert_eq!(reader.close(), Ok(2));
    }
}
