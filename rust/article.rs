//! "a" or "an": the article before a word that a message names as it came
//! (a block's kind, an event's name, a field's key), so that a loss or an
//! error reads "an updates event" and "an item_id", not "a updates event".
//! `python/agentcodec/_pure/article.py` mirrors this module.

/// The indefinite article for `word`, by its first letter (a quote or other
/// mark before it aside): "an" before a vowel's sound, "a" before any
/// other. A `u` or `e` that sounds as "you" (`usage`, `unit`, `euro`) and
/// `one` take "a"; words are the protocols' names in English or ASCII
/// identifiers, which the letters tell well enough.
pub fn article(word: &str) -> &'static str {
    let start = word.trim_start_matches(|c: char| !c.is_ascii_alphanumeric());
    let lower: String = start
        .chars()
        .take(3)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    let sounds_as_you = ["uni", "use", "usa", "usu", "uti", "eu", "one"]
        .iter()
        .any(|prefix| lower.starts_with(prefix));
    match lower.as_bytes().first() {
        Some(b'a' | b'e' | b'i' | b'o' | b'u') if !sounds_as_you => "an",
        _ => "a",
    }
}

#[cfg(test)]
mod tests {
    use super::article;

    #[test]
    fn an_before_a_vowels_sound() {
        for word in [
            "image",
            "updates",
            "item_id",
            "audio",
            "ACTIVITY_SNAPSHOT",
            "\"error\"",
            "output_index",
        ] {
            assert_eq!(article(word), "an", "{word}");
        }
    }

    #[test]
    fn a_before_any_other() {
        for word in [
            "text",
            "tool_call",
            "usage",
            "user",
            "unit",
            "euro",
            "one",
            "RAW",
            "",
            "5",
            "\"values\"",
            "İtem",
        ] {
            assert_eq!(article(word), "a", "{word}");
        }
    }
}
