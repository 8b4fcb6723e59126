//! Where a target writes a run's messages into one text of each kind (a
//! choice's `content` and `reasoning_content`, an answer that is one
//! message, a candidate's text and thoughts), a message's text runs on from
//! the one before: `"Let me check."` and `"It is sunny."` read back as
//! `"Let me check.It is sunny."`, and where one message ended and the next
//! began is lost. [`JoinedText`] tells an encoder so, at the first text of
//! a block whose text runs on from another message's. Blocks of one message
//! that its target joins (text around a tool call, in a choice's one
//! `content`) are the target's own way and lose nothing: its reader gives them so from
//! any server. `python/agentcodec/_pure/joined_text.py` mirrors this module.

use crate::events::{BlockRef, Loss};
use crate::hashing::{HashMap, IndexSet};

/// Which message last wrote each text of a target's, and the text blocks
/// that have written nothing yet.
#[derive(Debug, Clone, Default)]
pub struct JoinedText {
    /// Text blocks started that have written no text yet: empty but for
    /// the moment between a block's start and its first text, so that a
    /// delta pays for a lookup only then.
    fresh: IndexSet<(String, i64)>,
    /// (the place: a choice, a candidate; the kind of text) -> the message
    /// whose text it holds last.
    last: HashMap<(i64, &'static str), String>,
}

impl JoinedText {
    /// A text block of `kind` started (`text`, `reasoning`, `refusal`).
    pub fn started(&mut self, message_id: &str, index: i64) {
        self.fresh.insert((message_id.to_owned(), index));
    }

    /// Whether the block has written no text yet: its next text is
    /// [`JoinedText::writes`]'s to see.
    pub fn is_fresh(&self, message_id: &str, index: i64) -> bool {
        !self.fresh.is_empty() && self.fresh.contains(&BlockRef(message_id, index))
    }

    /// Before a block's text (not empty) is written into `place`'s text of
    /// `kind`: the loss, where it is the block's first and that text came
    /// last from another message.
    pub fn writes(
        &mut self,
        target: &str,
        place: i64,
        kind: &'static str,
        message_id: &str,
        index: i64,
    ) -> Option<Loss> {
        if !self.is_fresh(message_id, index) {
            return None;
        }
        self.fresh.swap_remove(&BlockRef(message_id, index));
        match self.last.get_mut(&(place, kind)) {
            Some(last) if last == message_id => None,
            Some(last) => {
                message_id.clone_into(last);
                Some(Loss {
                    what: "message_boundary".to_owned(),
                    why: format!(
                        "{target} writes a run's messages into one {kind}: a message's {kind} runs on from the one before"
                    ),
                })
            }
            None => {
                self.last.insert((place, kind), message_id.to_owned());
                None
            }
        }
    }

    /// A block finished (one that wrote nothing is fresh no more).
    pub fn finished(&mut self, message_id: &str, index: i64) {
        if !self.fresh.is_empty() {
            self.fresh.swap_remove(&BlockRef(message_id, index));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_later_messages_first_text_in_the_same_place_runs_on() {
        let mut joined = JoinedText::default();
        joined.started("m1", 0);
        assert_eq!(joined.writes("t", 0, "text", "m1", 0), None);
        // Its next text, and another block of the same message.
        assert_eq!(joined.writes("t", 0, "text", "m1", 0), None);
        joined.started("m1", 2);
        assert_eq!(joined.writes("t", 0, "text", "m1", 2), None);
        // Another message's reasoning, and its text in another place.
        joined.started("m2", 0);
        assert_eq!(joined.writes("t", 0, "reasoning", "m2", 0), None);
        joined.started("m3", 0);
        assert_eq!(joined.writes("t", 1, "text", "m3", 0), None);
        // Another message's text, where m1's was.
        joined.started("m2", 1);
        let lost = joined.writes("t", 0, "text", "m2", 1);
        assert_eq!(
            lost.map(|loss| loss.what),
            Some("message_boundary".to_owned())
        );
        assert!(!joined.is_fresh("m2", 1));
        // A block that wrote nothing leaves nothing behind.
        joined.started("m4", 0);
        joined.finished("m4", 0);
        assert!(joined.fresh.is_empty());
    }
}
