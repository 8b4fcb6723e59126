//! Why a message stopped, from one protocol's words into another's. Every
//! protocol names the same few reasons in its own words (`end_turn`, `stop`,
//! `STOP`; `max_tokens`, `length`, `MAX_TOKENS`), so the neutral vocabulary
//! gives each word a kind (its `STOP_REASON_KINDS` table) and a protocol's
//! vocabulary its word for each kind (`STOP_REASON_WORDS`), read by
//! [`crate::words::Words`]. An encoder keeps a reason that is one of its own
//! words and writes any other as its word for the reason's kind; what it
//! has no word for is a loss, where the stream does not say it otherwise. `python/agentcodec/_pure/stop_reasons.py` mirrors
//! this module.

use crate::events::vocabulary::STOP_REASON_KINDS;
use crate::events::Loss;
use crate::words::{lookup, Words};

/// The kind of a stop reason (`end`, `tool_use`, `stop_sequence`, `length`,
/// `content_filter`, `pause`), in whichever protocol's words it comes; None
/// for a word of no kind (a model's own, an error).
pub fn kind(reason: &str) -> Option<&'static str> {
    lookup(&STOP_REASON_KINDS, reason)
}

/// Whether a reason says no more than what a stream says without it: that
/// the message ended as the model meant, to call tools or at a stop
/// sequence, or that it ran out of tokens (the run's status, incomplete,
/// says that). A target with no word for it loses nothing.
pub fn is_implied(reason: &str) -> bool {
    is_ordinary(reason) || kind(reason) == Some("length")
}

/// Whether a reason says the message ended as the model meant: at the
/// end of its turn, to call tools, or at a stop sequence.
pub fn is_ordinary(reason: &str) -> bool {
    matches!(kind(reason), Some("end" | "tool_use" | "stop_sequence"))
}

/// Whether a reason says the message was cut short: it ran out of tokens,
/// or a filter (a guardrail, a refusal) stopped it. Every decoder reads a
/// run that stops so as incomplete, as the Responses API says of both
/// (`incomplete_details.reason`), and every encoder reports a status its
/// reason does not read back as.
pub fn cuts_short(reason: &str) -> bool {
    matches!(kind(reason), Some("length" | "content_filter"))
}

/// A message's (or a run's) stop reason the target has no place for: no
/// word, neither its own nor one of its kind, or none where it stands. None
/// when there is none, or it says no more than the stream does
/// ([`is_implied`]).
pub fn loss(target: &str, reason: Option<&str>) -> Option<Loss> {
    let reason = reason.filter(|reason| !reason.is_empty())?;
    if is_implied(reason) {
        return None;
    }
    Some(Loss {
        what: "stop_reason".to_owned(),
        why: format!("{target} has no place for the stop reason {reason}"),
    })
}

/// A protocol's words for why a message stopped: its own (as its
/// vocabulary lists them) and its word for each kind of reason.
#[derive(Debug, Clone, Copy)]
pub struct StopWords(Words);

impl StopWords {
    /// `own`: the protocol's stop reasons; `by_kind`: its
    /// `STOP_REASON_WORDS` table (`kind=word` lines).
    pub const fn new(own: &'static [&'static str], by_kind: &'static [&'static str]) -> Self {
        StopWords(Words::new(&STOP_REASON_KINDS, own, by_kind))
    }

    /// The word it writes for `reason`: the reason, where it is one of its
    /// own words (in its own spelling), or else its word for the reason's
    /// kind. None where it has neither.
    pub fn word(&self, reason: &str) -> Option<&'static str> {
        self.0.word(reason)
    }

    /// [`StopWords::word`] for a reason that may be missing or empty, and
    /// the loss where the target has no word for one that says more than
    /// the stream does ([`is_implied`]).
    pub fn translate(
        &self,
        target: &str,
        reason: Option<&str>,
    ) -> (Option<&'static str>, Option<Loss>) {
        let Some(reason) = reason.filter(|reason| !reason.is_empty()) else {
            return (None, None);
        };
        match self.word(reason) {
            Some(word) => (Some(word), None),
            None => (None, loss(target, Some(reason))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OWN: [&str; 3] = ["STOP", "MAX_TOKENS", "SAFETY"];
    const BY_KIND: [&str; 3] = ["end=STOP", "length=MAX_TOKENS", "content_filter=SAFETY"];

    #[test]
    fn other_protocols_reasons_take_the_word_of_their_kind() {
        // (by the neutral STOP_REASON_KINDS: the words of every protocol)
        let words = StopWords::new(&OWN, &BY_KIND);
        assert_eq!(words.word("end_turn"), Some("STOP"));
        assert_eq!(words.word("length"), Some("MAX_TOKENS"));
        assert_eq!(words.word("refusal"), Some("SAFETY"));
        assert_eq!(words.word("content-filter"), Some("SAFETY"));
        assert_eq!(words.word("pause_turn"), None);
        assert_eq!(words.word("load"), None);
    }

    #[test]
    fn only_a_reason_that_says_more_than_the_stream_is_lost() {
        let words = StopWords::new(&OWN, &BY_KIND);
        assert_eq!(words.translate("t", None), (None, None));
        assert_eq!(words.translate("t", Some("")), (None, None));
        // A tool call's stop is said by the call; no word, no loss.
        assert_eq!(words.translate("t", Some("tool_use")), (None, None));
        let (word, lost) = words.translate("t", Some("pause_turn"));
        assert_eq!(word, None);
        assert_eq!(lost.map(|loss| loss.what), Some("stop_reason".to_owned()));
        assert!(is_implied("MAX_TOKENS"));
        assert!(!is_implied("refusal"));
        assert!(!is_implied("malformed_function_call"));
    }

    #[test]
    fn running_out_of_tokens_and_a_filter_cut_a_message_short() {
        for reason in [
            "length",
            "MAX_TOKENS",
            "refusal",
            "SAFETY",
            "content-filter",
        ] {
            assert!(cuts_short(reason), "{reason}");
        }
        for reason in [
            "stop",
            "tool_use",
            "stop_sequence",
            "pause_turn",
            "load",
            "",
        ] {
            assert!(!cuts_short(reason), "{reason}");
        }
    }
}
