//! JSON as both backends accept it: strict RFC 8259 (no `NaN`, no lone
//! surrogate escapes), integers of any size kept exactly, objects in the
//! order their keys came, nesting at most [`MAX_DEPTH`] deep.

pub use serde_json::{Map, Value};

/// Deepest nesting accepted, in arrays and objects: serde_json's own limit
/// (it refuses the 128th level).
pub const MAX_DEPTH: usize = 127;

/// Parses one JSON document.
pub fn parse(text: &str) -> Result<Value, serde_json::Error> {
    serde_json::from_str(text)
}

/// What kind of JSON value this is, for error messages.
pub fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "JSON null",
        Value::Bool(_) => "a JSON boolean",
        Value::Number(_) => "a JSON number",
        Value::String(_) => "a JSON string",
        Value::Array(_) => "a JSON array",
        Value::Object(_) => "a JSON object",
    }
}

/// The nesting depth of a value: a scalar is 0, `[]` is 1.
pub fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((item, depth)) = stack.pop() {
        let depth = match item {
            Value::Array(items) => {
                stack.extend(items.iter().map(|child| (child, depth + 1)));
                depth + 1
            }
            Value::Object(map) => {
                stack.extend(map.values().map(|child| (child, depth + 1)));
                depth + 1
            }
            _ => continue,
        };
        deepest = deepest.max(depth);
    }
    deepest
}

/// Appends `text` as a JSON string, quoted and escaped exactly as Python's
/// `json.dumps(text, ensure_ascii=False)` does: `"`, `\\` and the control
/// characters escaped (short forms where JSON has them, `\u00xx` otherwise),
/// everything else, non-ASCII included, as is.
pub fn write_string(out: &mut Vec<u8>, text: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(text.len() + 2);
    out.push(b'"');
    let bytes = text.as_bytes();
    let mut start = 0;
    for (i, &byte) in bytes.iter().enumerate() {
        let short = match byte {
            b'"' => b'"',
            b'\\' => b'\\',
            b'\n' => b'n',
            b'\r' => b'r',
            b'\t' => b't',
            0x08 => b'b',
            0x0c => b'f',
            0x00..=0x1f => 0,
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..i]);
        if short == 0 {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(byte >> 4)]);
            out.push(HEX[usize::from(byte & 0xf)]);
        } else {
            out.extend_from_slice(&[b'\\', short]);
        }
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// `text` as a JSON string: how error messages quote what they name, the
/// same in both backends (`json.dumps(text, ensure_ascii=False)`).
pub fn quote(text: &str) -> String {
    let mut out = Vec::with_capacity(text.len() + 2);
    write_string(&mut out, text);
    String::from_utf8(out).expect("escaping keeps UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(levels: usize) -> String {
        "[".repeat(levels) + &"]".repeat(levels)
    }

    #[test]
    fn strict() {
        assert!(parse("NaN").is_err());
        assert!(parse("[Infinity]").is_err());
        assert!(parse(r#""\ud800""#).is_err());
        assert!(parse(r#""\udc00\ud800""#).is_err());
        assert_eq!(
            parse(r#""\ud83d\ude00""#).unwrap(),
            Value::String("\u{1F600}".into())
        );
    }

    #[test]
    fn exact_numbers_and_key_order() {
        let value = parse(r#"{"b":123456789012345678901234567890,"a":1.50,"c":-0}"#).unwrap();
        assert_eq!(
            value.to_string(),
            r#"{"b":123456789012345678901234567890,"a":1.50,"c":-0}"#
        );
    }

    #[test]
    fn duplicate_keys_keep_first_place_last_value() {
        let value = parse(r#"{"a":1,"b":2,"a":3}"#).unwrap();
        assert_eq!(value.to_string(), r#"{"a":3,"b":2}"#);
    }

    #[test]
    fn writes_strings_as_python_json_dumps() {
        let mut out = Vec::new();
        write_string(&mut out, "a\"b\\c\n\r\t\u{8}\u{c}\u{0}\u{1f}\u{7f}é🙂/");
        // DEL and non-ASCII pass through; so does '/'.
        let expected = r#""a\"b\\c\n\r\t\b\f\u0000\u001f"#.to_owned() + "\u{7f}é🙂/\"";
        assert_eq!(String::from_utf8(out).unwrap(), expected);
        // What the text writes parses back to the text.
        let text = "tab\there \"quoted\" \u{1} 数据";
        let mut out = Vec::new();
        write_string(&mut out, text);
        assert_eq!(
            parse(std::str::from_utf8(&out).unwrap()).unwrap(),
            Value::from(text)
        );
    }

    #[test]
    fn depth_limit() {
        assert_eq!(depth(&parse(&nested(MAX_DEPTH)).unwrap()), MAX_DEPTH);
        assert!(parse(&nested(MAX_DEPTH + 1)).is_err());
        let objects = r#"{"a":"#.repeat(MAX_DEPTH) + "1" + &"}".repeat(MAX_DEPTH);
        assert!(parse(&objects).is_ok());
        let deeper = r#"{"a":"#.repeat(MAX_DEPTH + 1) + "1" + &"}".repeat(MAX_DEPTH + 1);
        assert!(parse(&deeper).is_err());
    }
}
