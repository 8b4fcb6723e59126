//! A failed run's error code, from one protocol's words into another's,
//! for a target whose codes are a closed set (its vocabulary lists them: an
//! API's codes, an SDK's exception classes or error types, gRPC statuses).
//! The neutral vocabulary gives every protocol's code a kind (its
//! `ERROR_CODE_KINDS` table) and the target's vocabulary its code for each
//! kind (`ERROR_CODE_WORDS`), read by [`crate::words::Words`]: a throttle
//! stays a rate limit, whatever protocol's words it came in.
//! `python/agentcodec/_pure/error_codes.py` mirrors this module.

use crate::events::vocabulary::ERROR_CODE_KINDS;
use crate::events::Loss;
use crate::words::Words;

/// A protocol's error codes: its own, its code for each kind, and the one
/// it writes for a code of no kind (or none).
#[derive(Debug, Clone, Copy)]
pub struct ErrorCodes {
    words: Words,
    fallback: &'static str,
}

impl ErrorCodes {
    /// `own`: the protocol's codes; `by_kind`: its `ERROR_CODE_WORDS`
    /// table (`kind=code` lines); `fallback`: its server error.
    pub const fn new(
        own: &'static [&'static str],
        by_kind: &'static [&'static str],
        fallback: &'static str,
    ) -> Self {
        ErrorCodes {
            words: Words::new(&ERROR_CODE_KINDS, own, by_kind),
            fallback,
        }
    }

    /// The code it writes for `code` (one of its own, in its own spelling,
    /// or its code of the kind, or else its fallback), and the loss where
    /// that is not the code as it came.
    pub fn write(&self, target: &str, code: Option<&str>) -> (&'static str, Option<Loss>) {
        let written = code
            .and_then(|code| self.words.word(code))
            .unwrap_or(self.fallback);
        (written, Loss::error_code(target, code, Some(written)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OWN: [&str; 3] = ["rate_limit_exceeded", "server_error", "invalid_prompt"];
    const BY_KIND: [&str; 2] = [
        "rate_limit=rate_limit_exceeded",
        "invalid_request=invalid_prompt",
    ];

    #[test]
    fn a_code_is_written_as_its_own_or_its_kind_or_the_fallback() {
        let codes = ErrorCodes::new(&OWN, &BY_KIND, "server_error");
        assert_eq!(
            codes.write("t", Some("server_error")),
            ("server_error", None)
        );
        let (written, lost) = codes.write("t", Some("throttlingException"));
        assert_eq!(written, "rate_limit_exceeded");
        assert_eq!(lost.map(|loss| loss.what), Some("error_code".to_owned()));
        let (written, lost) = codes.write("t", Some("E_BOOM"));
        assert_eq!(written, "server_error");
        assert!(lost.is_some());
        assert_eq!(codes.write("t", None), ("server_error", None));
        assert_eq!(codes.write("t", Some("")), ("server_error", None));
    }
}
