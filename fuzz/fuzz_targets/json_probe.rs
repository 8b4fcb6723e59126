//! The strict JSON cursor the protocol probes read with: on any text it
//! accepts exactly what the full parse (`json::parse`, serde_json) accepts,
//! and a string or number it reads is the value the full parse gives. (Each
//! protocol's probe against its full path is the `assemblers` target's.)
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
    if let (Ok(scalar), Ok(value)) = (scalar, full) {
        match scalar {
            Scalar::Composite => assert!(value.is_array() || value.is_object()),
            scalar => assert_eq!(scalar.to_value(), Some(value), "{text:?}"),
        }
    }
});
