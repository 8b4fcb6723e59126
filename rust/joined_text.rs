//! Where a target writes a run's messages into one text of each kind (a
//! choice's `content` and `reasoning_content`, an answer that is one
//! message, a candidate's text and thoughts), a message's text runs on from
//! the one before: `"Let me check."` and `"It is sunny."` read back as
//! `"Let me check.It is sunny."`, and where one message ended and the next
//! began is lost. [`JoinedText`] tells an encoder so, at the first text of
//! a block whose text runs on from another message's, or, where the
//! encoder's `message_separator` option gives one, writes the separator
//! there (`"\n\n"`: the reader's text says where each message began).
//! Blocks of one message that its target joins (text around a tool call,
//! in a choice's one `content`) are the target's own way and lose nothing:
//! its reader gives them so from any server.
//! `python/agentcodec/_pure/joined_text.py` mirrors this module.

use std::borrow::Cow;

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
    /// What is written between two messages' texts, where one is given.
    separator: Option<String>,
}

impl JoinedText {
    /// With the `message_separator` an encoder was given, if any.
    pub fn new(separator: Option<String>) -> Self {
        JoinedText {
            separator,
            ..JoinedText::default()
        }
    }

    /// A block that writes into one of the target's texts started (text,
    /// reasoning, refusal).
    pub fn started(&mut self, message_id: &str, index: i64) {
        self.fresh.insert((message_id.to_owned(), index));
    }

    /// Whether the block has written no text yet: its next text is
    /// [`JoinedText::writes`]'s to see.
    pub fn is_fresh(&self, message_id: &str, index: i64) -> bool {
        !self.fresh.is_empty() && self.fresh.contains(&BlockRef(message_id, index))
    }

    /// A block's text (`delta`, not empty) as it is written into `place`'s
    /// text of `kind`: where it is the block's first and that text came
    /// last from another message, after the separator, or else with the
    /// loss.
    pub fn writes<'d>(
        &mut self,
        target: &str,
        place: i64,
        kind: &'static str,
        message_id: &str,
        index: i64,
        delta: &'d str,
    ) -> (Cow<'d, str>, Option<Loss>) {
        if !self.is_fresh(message_id, index) {
            return (Cow::Borrowed(delta), None);
        }
        self.fresh.swap_remove(&BlockRef(message_id, index));
        match self.last.get_mut(&(place, kind)) {
            Some(last) if last == message_id => (Cow::Borrowed(delta), None),
            Some(last) => {
                message_id.clone_into(last);
                match &self.separator {
                    Some(separator) => (Cow::Owned(format!("{separator}{delta}")), None),
                    None => (
                        Cow::Borrowed(delta),
                        Some(Loss {
                            what: "message_boundary".to_owned(),
                            why: format!(
                                "{target} writes a run's messages into one {kind}: a message's {kind} runs on from the one before"
                            ),
                        }),
                    ),
                }
            }
            None => {
                self.last.insert((place, kind), message_id.to_owned());
                (Cow::Borrowed(delta), None)
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

    fn lost(
        joined: &mut JoinedText,
        place: i64,
        kind: &'static str,
        message: &str,
        index: i64,
    ) -> bool {
        joined
            .writes("t", place, kind, message, index, "x")
            .1
            .is_some()
    }

    #[test]
    fn only_a_later_messages_first_text_in_the_same_place_runs_on() {
        let mut joined = JoinedText::default();
        joined.started("m1", 0);
        assert!(!lost(&mut joined, 0, "text", "m1", 0));
        // Its next text, and another block of the same message.
        assert!(!lost(&mut joined, 0, "text", "m1", 0));
        joined.started("m1", 2);
        assert!(!lost(&mut joined, 0, "text", "m1", 2));
        // Another message's reasoning, and its text in another place.
        joined.started("m2", 0);
        assert!(!lost(&mut joined, 0, "reasoning", "m2", 0));
        joined.started("m3", 0);
        assert!(!lost(&mut joined, 1, "text", "m3", 0));
        // Another message's text, where m1's was.
        joined.started("m2", 1);
        let (text, loss) = joined.writes("t", 0, "text", "m2", 1, "x");
        assert_eq!(text, "x");
        assert_eq!(
            loss.map(|loss| loss.what),
            Some("message_boundary".to_owned())
        );
        assert!(!joined.is_fresh("m2", 1));
        // A block that wrote nothing leaves nothing behind.
        joined.started("m4", 0);
        joined.finished("m4", 0);
        assert!(joined.fresh.is_empty());
    }

    #[test]
    fn a_separator_goes_before_a_message_that_runs_on_in_place_of_the_loss() {
        let mut joined = JoinedText::new(Some("\n\n".to_owned()));
        joined.started("m1", 0);
        assert_eq!(
            joined.writes("t", 0, "text", "m1", 0, "a"),
            ("a".into(), None)
        );
        joined.started("m2", 0);
        assert_eq!(
            joined.writes("t", 0, "text", "m2", 0, "b"),
            ("\n\nb".into(), None)
        );
        assert_eq!(
            joined.writes("t", 0, "text", "m2", 0, "c"),
            ("c".into(), None)
        );
    }
}
