//! The strict JSON cursor the protocol probes read with: on any text it
//! accepts exactly what the full parse (`json::parse`, serde_json) accepts,
//! and a string or number it reads is the value the full parse gives. (Each
//! protocol's probe against its full path is the `assemblers` target's.)
//! The shortcuts a probe takes (`digit`, `plain_str` told the string) read
//! what `scalar` reads, or decline.
#![no_main]

use agentcodec::json;
use agentcodec::json_probe::{Cursor, Scalar};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let full = json::parse(text);
    let mut cursor = Cursor::new(text);
    let skipped = cursor.skip().and_then(|()| cursor.end()).is_ok();
    assert_eq!(skipped, full.is_ok(), "skip: {text:?}");

    let mut cursor = Cursor::new(text);
    let scalar = cursor
        .scalar()
        .and_then(|scalar| cursor.end().map(|()| scalar));
    assert_eq!(scalar.is_ok(), full.is_ok(), "scalar: {text:?}");
    shortcuts_agree(text);
    if let (Ok(scalar), Ok(value)) = (scalar, full) {
        match scalar {
            Scalar::Composite => assert!(value.is_array() || value.is_object()),
            scalar => assert_eq!(scalar.to_value(), Some(value), "{text:?}"),
        }
    }
});

fn shortcuts_agree(text: &str) {
    let mut cursor = Cursor::new(text);
    let general = cursor
        .scalar()
        .ok()
        .map(|scalar| (scalar, cursor.position()));
    let mut cursor = Cursor::new(text);
    if let Some(digit) = cursor.digit() {
        assert_eq!(Some((digit, cursor.position())), general, "digit: {text:?}");
    }
    // Told the text up to its next quote: taken when that is plain, and
    // then it is the string `scalar` reads.
    let Some(rest) = text.strip_prefix('"') else {
        return;
    };
    let told = &rest[..rest.find('"').unwrap_or(rest.len())];
    if json::plain_run(told.as_bytes(), 0) != told.len() {
        return;
    }
    let mut cursor = Cursor::new(text);
    match cursor.plain_str(told) {
        Some(read) => {
            let read = (Scalar::Str(read.into()), cursor.position());
            assert_eq!(Some(read), general, "plain_str: {text:?}");
        }
        None => assert!(!rest.contains('"'), "plain_str declined: {text:?}"),
    }
    let other = format!("{told}x");
    assert_eq!(Cursor::new(text).plain_str(&other), None, "{text:?}");
}
