//! The few things every protocol names in its own words: why a message
//! stopped (`end_turn`, `stop`, `STOP`), what kind of error ended a run
//! (`rate_limit_exceeded`, `throttlingException`, `RESOURCE_EXHAUSTED`). The
//! neutral vocabulary gives each protocol's word a kind (a `word=kind`
//! table) and a protocol's vocabulary its word for each kind (a `kind=word`
//! table); [`Words`] reads them, so that an encoder keeps a word of its own
//! and writes any other as its word for the other's kind.
//! `python/agentcodec/_pure/words.py` mirrors this module.

/// Whether two words are one, case aside and with `-` and `_` alike
/// (`MAX_TOKENS` and `max_tokens`, `tool-calls` and `tool_calls`).
pub fn same_word(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes().zip(b.bytes()).all(|(a, b)| {
            a.eq_ignore_ascii_case(&b) || (matches!(a, b'-' | b'_') && matches!(b, b'-' | b'_'))
        })
}

/// The value of `key` in a table of `key=value` lines, the key read as a
/// word ([`same_word`]).
pub fn lookup(table: &[&'static str], key: &str) -> Option<&'static str> {
    table.iter().find_map(|line| {
        let (word, value) = line.split_once('=')?;
        same_word(word, key).then_some(value)
    })
}

/// A protocol's words for one thing: its own (as its vocabulary lists
/// them) and its word for each kind, by the neutral kinds of every
/// protocol's words.
#[derive(Debug, Clone, Copy)]
pub struct Words {
    kinds: &'static [&'static str],
    own: &'static [&'static str],
    by_kind: &'static [&'static str],
}

impl Words {
    /// `kinds`: the neutral `word=kind` table; `own`: the protocol's words;
    /// `by_kind`: its `kind=word` table.
    pub const fn new(
        kinds: &'static [&'static str],
        own: &'static [&'static str],
        by_kind: &'static [&'static str],
    ) -> Self {
        Words {
            kinds,
            own,
            by_kind,
        }
    }

    /// The kind of a word, in whichever protocol's words it comes.
    pub fn kind(&self, word: &str) -> Option<&'static str> {
        lookup(self.kinds, word)
    }

    /// The word it writes for `word`: the word, where it is one of its own
    /// (in its own spelling), or else its word for the other's kind. None
    /// where it has neither.
    pub fn word(&self, word: &str) -> Option<&'static str> {
        if let Some(own) = self.own.iter().find(|own| same_word(own, word)) {
            return Some(own);
        }
        lookup(self.by_kind, self.kind(word)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KINDS: [&str; 4] = [
        "stop=end",
        "end_turn=end",
        "max_tokens=length",
        "refusal=filter",
    ];
    const OWN: [&str; 3] = ["STOP", "MAX_TOKENS", "SAFETY"];
    const BY_KIND: [&str; 3] = ["end=STOP", "length=MAX_TOKENS", "filter=SAFETY"];

    #[test]
    fn own_words_keep_their_spelling_and_others_take_their_kinds_word() {
        let words = Words::new(&KINDS, &OWN, &BY_KIND);
        assert_eq!(words.word("max_tokens"), Some("MAX_TOKENS"));
        assert_eq!(words.word("safety"), Some("SAFETY"));
        assert_eq!(words.word("end_turn"), Some("STOP"));
        assert_eq!(words.word("Refusal"), Some("SAFETY"));
        assert_eq!(words.word("end-turn"), Some("STOP"));
        assert_eq!(words.word("pause_turn"), None);
        assert_eq!(words.word(""), None);
        assert_eq!(words.kind("MAX-TOKENS"), Some("length"));
    }
}
