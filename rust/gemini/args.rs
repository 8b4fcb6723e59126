//! A function call's arguments as Vertex AI streams them: `partialArgs`,
//! each a JSONPath (RFC 9535, the `$.a.b[0]` / `$['a']` forms) and a value,
//! a string value continuing over several while `willContinue` says so.
//! `python/agentcodec/_pure/gemini/args.py` mirrors this module.
//!
//! [`ArgsWriter`] turns them into the arguments' JSON text as it grows: the
//! containers the paths open are written as they come and closed when a
//! path leaves them, a continued string is written piece by piece. The text
//! so far, closed, is valid JSON at every point: the assembler parses it to
//! give the call's `args`, the decoder hands each piece on as the tool
//! call's argument delta. Paths come in document order from the server; one
//! that goes back into a container already closed opens it again, and
//! parsing keeps the later value of a key written twice.

use std::fmt;

use crate::json::{to_text, write_string, Map, Value};

/// A step of a path: an object's member or an array's element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key {
    Name(String),
    Index(usize),
}

impl Key {
    fn is_name(&self) -> bool {
        matches!(self, Key::Name(_))
    }
}

/// A `jsonPath` this reader cannot follow, or one the text so far cannot take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathError(pub String);

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn path_error<T>(message: String) -> Result<T, PathError> {
    Err(PathError(message))
}

/// The keys of a JSONPath: names for `.name` and `['name']`, indexes for `[n]`.
pub fn parse_path(path: &str) -> Result<Vec<Key>, PathError> {
    let Some(rest) = path.strip_prefix('$') else {
        return path_error(format!("jsonPath {} does not start at $", quoted(path)));
    };
    let chars: Vec<char> = rest.chars().collect();
    let mut keys = Vec::new();
    let mut at = 0;
    while at < chars.len() {
        // Positions are counted in characters of the whole path, as Python does.
        let position = at + 1;
        match chars[at] {
            '.' => {
                let mut end = at + 1;
                while end < chars.len() && chars[end] != '.' && chars[end] != '[' {
                    end += 1;
                }
                if end == at + 1 {
                    return path_error(format!(
                        "jsonPath {} has an empty name at {position}",
                        quoted(path)
                    ));
                }
                keys.push(Key::Name(chars[at + 1..end].iter().collect()));
                at = end;
            }
            '[' => {
                let close = chars[at..]
                    .iter()
                    .position(|&c| c == ']')
                    .map(|found| at + found);
                let inner: String = match close {
                    Some(close) => chars[at + 1..close].iter().collect(),
                    None => String::new(),
                };
                let is_quoted = inner.chars().count() >= 2
                    && (inner.starts_with('\'') || inner.starts_with('"'))
                    && inner.ends_with(inner.chars().next().unwrap_or(' '));
                if is_quoted {
                    keys.push(Key::Name(inner[1..inner.len() - 1].to_owned()));
                } else if !inner.is_empty() && inner.bytes().all(|b| b.is_ascii_digit()) {
                    match inner.parse() {
                        Ok(index) => keys.push(Key::Index(index)),
                        Err(_) => {
                            return path_error(format!(
                                "jsonPath {} gives index {inner}, past any there can be",
                                quoted(path)
                            ))
                        }
                    }
                } else {
                    return path_error(format!(
                        "jsonPath {} has a selector this reader does not follow at {position}",
                        quoted(path)
                    ));
                }
                at = close.unwrap_or(chars.len()) + 1;
            }
            other => {
                return path_error(format!(
                    "jsonPath {} has {} where . or [ belongs, at {position}",
                    quoted(path),
                    quoted(&other.to_string())
                ))
            }
        }
    }
    Ok(keys)
}

/// The value a partial argument carries, if any.
pub fn partial_value(arg: &Map<String, Value>) -> Option<Value> {
    for key in ["stringValue", "numberValue", "boolValue", "nullValue"] {
        if let Some(value) = arg.get(key) {
            return Some(if key == "nullValue" {
                Value::Null
            } else {
                value.clone()
            });
        }
    }
    None
}

/// An open container: whether it is an object, and its members so far.
#[derive(Debug, Clone)]
struct Open {
    object: bool,
    members: usize,
}

/// The arguments' JSON text, written from partial arguments as they come.
#[derive(Debug, Clone, Default)]
pub struct ArgsWriter {
    text: String,
    /// The open containers, the root object first.
    containers: Vec<Open>,
    /// The keys naming each open container but the root.
    path: Vec<Key>,
    /// The path of the string value left open, to continue.
    string_at: Option<Vec<Key>>,
}

/// A string's JSON, without its quotes.
fn escaped(text: &str) -> String {
    let mut out = Vec::with_capacity(text.len() + 2);
    write_string(&mut out, text);
    String::from_utf8_lossy(&out[1..out.len() - 1]).into_owned()
}

fn quoted(text: &str) -> String {
    let mut out = Vec::with_capacity(text.len() + 2);
    write_string(&mut out, text);
    String::from_utf8(out).unwrap_or_default()
}

impl ArgsWriter {
    /// Writes one partial argument and returns the text it adds; a
    /// `PathError`, having written nothing, for a path the text so far
    /// cannot take (an index that skips or goes back, a name in an array).
    pub fn write(
        &mut self,
        keys: Vec<Key>,
        value: &Value,
        will_continue: bool,
    ) -> Result<String, PathError> {
        let mut out = String::new();
        let opening = self.containers.is_empty();
        if keys.is_empty() {
            return path_error(
                "jsonPath $ names the arguments themselves, not one of them".to_owned(),
            );
        }
        if opening {
            self.containers.push(Open {
                object: true,
                members: 0,
            });
            out.push('{');
        }
        if let (Some(open), Value::String(piece)) = (&self.string_at, value) {
            if *open == keys {
                out.push_str(&escaped(piece));
                if !will_continue {
                    self.string_at = None;
                    out.push('"');
                }
                return Ok(self.add(out));
            }
        }
        let parents = &keys[..keys.len() - 1];
        let shared = parents
            .iter()
            .zip(&self.path)
            .take_while(|(a, b)| a == b)
            .count();
        if let Err(err) = self.check(&keys, shared) {
            if opening {
                self.containers.clear();
            }
            return Err(err);
        }
        if self.string_at.take().is_some() {
            out.push('"');
        }
        while self.path.len() > shared {
            self.path.pop();
            let closed = self.containers.pop().expect("a container a key");
            out.push(if closed.object { '}' } else { ']' });
        }
        for depth in shared..parents.len() {
            self.member(&parents[depth], &mut out);
            let object = keys[depth + 1].is_name();
            out.push(if object { '{' } else { '[' });
            self.path.push(parents[depth].clone());
            self.containers.push(Open { object, members: 0 });
        }
        self.member(&keys[keys.len() - 1], &mut out);
        match value {
            Value::String(piece) if will_continue => {
                let text = quoted(piece);
                out.push_str(&text[..text.len() - 1]);
                self.string_at = Some(keys);
            }
            other => out.push_str(&to_text(other)),
        }
        Ok(self.add(out))
    }

    fn check(&self, keys: &[Key], shared: usize) -> Result<(), PathError> {
        let open = &self.containers[shared];
        let key = &keys[shared];
        if key.is_name() != open.object {
            let kind = if key.is_name() { "name" } else { "index" };
            return path_error(format!(
                "jsonPath gives an {kind} where the arguments hold no such container"
            ));
        }
        if let Key::Index(index) = key {
            if *index != open.members {
                return path_error(format!(
                    "jsonPath gives index {index} where the next is {}",
                    open.members
                ));
            }
        }
        if keys[shared + 1..]
            .iter()
            .any(|key| matches!(key, Key::Index(index) if *index != 0))
        {
            return path_error("jsonPath gives an index that skips the ones before it".to_owned());
        }
        Ok(())
    }

    /// Opens a member of the innermost container: a comma after another,
    /// an object's key.
    fn member(&mut self, key: &Key, out: &mut String) {
        let open = self.containers.last_mut().expect("the root is open");
        if open.members > 0 {
            out.push(',');
        }
        if let Key::Name(name) = key {
            out.push_str(&quoted(name));
            out.push(':');
        }
        open.members += 1;
    }

    fn add(&mut self, out: String) -> String {
        self.text.push_str(&out);
        out
    }

    /// The text that closes what is open: the string, the containers.
    pub fn closing(&self) -> String {
        if self.containers.is_empty() {
            return "{}".to_owned();
        }
        let mut closers = String::new();
        if self.string_at.is_some() {
            closers.push('"');
        }
        for open in self.containers.iter().rev() {
            closers.push(if open.object { '}' } else { ']' });
        }
        closers
    }

    /// Closes what is open and returns the text that did.
    pub fn finish(&mut self) -> String {
        let closing = self.closing();
        self.string_at = None;
        self.containers.clear();
        self.path.clear();
        self.text.push_str(&closing);
        closing
    }

    /// The arguments so far, closed: valid JSON.
    pub fn text(&self) -> String {
        let mut text = self.text.clone();
        text.push_str(&self.closing());
        text
    }

    /// The arguments so far, parsed (an empty object should they not parse).
    pub fn value(&self) -> Value {
        crate::json::parse(&self.text()).unwrap_or_else(|_| Value::Object(Map::new()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_values_become_the_arguments_text() {
        let mut writer = ArgsWriter::default();
        let steps: [(&str, Value, bool); 6] = [
            ("$.recipe.items[0].amount", "16 oz".into(), true),
            ("$.recipe.items[0].amount", "".into(), false),
            ("$.recipe.items[0]['name']", "Noodles \"x\"".into(), false),
            ("$.recipe.items[1].amount", 2.5.into(), false),
            ("$.recipe.steps[0]", "a".into(), true),
            ("$.n", Value::Null, false),
        ];
        let mut deltas = String::new();
        for (path, value, more) in steps {
            deltas.push_str(
                &writer
                    .write(parse_path(path).unwrap(), &value, more)
                    .unwrap(),
            );
            assert!(
                crate::json::parse(&writer.text()).is_ok(),
                "{}",
                writer.text()
            );
        }
        deltas.push_str(&writer.finish());
        assert_eq!(
            deltas,
            r#"{"recipe":{"items":[{"amount":"16 oz","name":"Noodles \"x\""},{"amount":2.5}],"steps":["a"]},"n":null}"#
        );
    }

    #[test]
    fn a_path_the_text_cannot_take_writes_nothing() {
        let mut writer = ArgsWriter::default();
        writer
            .write(parse_path("$.a[0]").unwrap(), &1.into(), false)
            .unwrap();
        let before = writer.text();
        for path in ["$.a[2]", "$.a.b", "$[0]", "$.c[1]"] {
            assert!(
                writer
                    .write(parse_path(path).unwrap(), &1.into(), false)
                    .is_err(),
                "{path}"
            );
            assert_eq!(writer.text(), before);
        }
        assert!(parse_path("a.b").is_err());
        assert!(parse_path("$.a[*]").is_err());
        assert!(parse_path("$..a").is_err());
    }
}
