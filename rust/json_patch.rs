//! JSON Patch (RFC 6902) over JSON Pointers (RFC 6901), applied atomically.
//! `python/agentcodec/_pure/json_patch.py` mirrors this module, messages
//! included.
//!
//! A patch is applied in place, each operation recording how to undo
//! itself; if one fails, the ones before it are undone, so a patch that does
//! not apply leaves the document exactly as it was (key order included).
//! Nothing is copied but what `copy` copies.
//!
//! Two bounds hold whatever the patches: the document nests at most
//! [`MAX_DEPTH`] deep, as parsed JSON does (a patch adding under the
//! deepest member, event after event, would otherwise nest it deeper than
//! anything can walk); and what `copy` duplicates is taken from the
//! stream's [`Budget`] (a patch copying the document into itself doubles
//! it, and thirty small events would ask for a terabyte).

use std::fmt;

use crate::json::{measure, quote, Value, MAX_DEPTH};
use crate::stream::Budget;

/// A patch that is malformed or does not apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchError(pub String);

impl fmt::Display for PatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PatchError {}

type Result<T> = std::result::Result<T, PatchError>;

fn fail<T>(message: String) -> Result<T> {
    Err(PatchError(message))
}

/// Equality of JSON values: numbers by value (1 == 1.0), never a boolean
/// with a number; objects regardless of key order.
pub fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => numbers_equal(&x.to_string(), &y.to_string()),
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| json_equal(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(key, value)| y.get(key).is_some_and(|other| json_equal(value, other)))
        }
        _ => false,
    }
}

/// Whether two JSON number texts are the same number, as Python compares
/// the `int`s and `float`s `json.loads` makes of them: integers exactly,
/// floats as doubles, an integer and a float exactly.
fn numbers_equal(a: &str, b: &str) -> bool {
    let is_int = |text: &str| !text.contains(['.', 'e', 'E']);
    match (is_int(a), is_int(b)) {
        (true, true) => canonical_int(a) == canonical_int(b),
        (false, false) => parse_f64(a) == parse_f64(b),
        (true, false) => int_equals_float(a, b),
        (false, true) => int_equals_float(b, a),
    }
}

/// An integer's text without a minus on zero.
fn canonical_int(text: &str) -> &str {
    if text == "-0" {
        "0"
    } else {
        text
    }
}

/// The double Python's `float()` makes of the text; an overflow is infinite.
fn parse_f64(text: &str) -> f64 {
    text.parse().unwrap_or(f64::NAN)
}

fn int_equals_float(int: &str, float: &str) -> bool {
    let value = parse_f64(float);
    if !value.is_finite() || value.fract() != 0.0 {
        return false;
    }
    // An integral double printed in full is an exact integer text.
    canonical_int(int) == canonical_int(&format!("{value:.0}"))
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Object(_) => "an object",
        Value::Array(_) => "an array",
        _ => "a scalar",
    }
}

fn tokens(pointer: Option<&Value>, name: &str) -> Result<Vec<String>> {
    let Some(Value::String(pointer)) = pointer else {
        return fail(format!("'{name}' is not a string"));
    };
    if pointer.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = pointer.strip_prefix('/') else {
        return fail(format!(
            "'{name}' {} does not start with '/'",
            quote(pointer)
        ));
    };
    let mut out = Vec::new();
    for token in rest.split('/') {
        let mut parts = token.split('~');
        parts.next();
        if parts.any(|part| !(part.starts_with('0') || part.starts_with('1'))) {
            return fail(format!("'{name}' {} has an invalid escape", quote(pointer)));
        }
        out.push(token.replace("~1", "/").replace("~0", "~"));
    }
    Ok(out)
}

/// An array index token: digits without leading zeros, within the array
/// (or at its end, or `-`, where `append` allows).
fn array_index(token: &str, length: usize, pointer: &str, append: bool) -> Result<usize> {
    if token == "-" && append {
        return Ok(length);
    }
    let digits = !token.is_empty() && token.bytes().all(|byte| byte.is_ascii_digit());
    if !digits || (token.len() > 1 && token.starts_with('0')) {
        return fail(format!(
            "{}: {} is not an array index",
            quote(pointer),
            quote(token)
        ));
    }
    // Past usize, it is past any array.
    let index = token.parse::<usize>().unwrap_or(usize::MAX);
    if index > length || (index == length && !append) {
        let shown = if index == usize::MAX {
            token.to_owned()
        } else {
            index.to_string()
        };
        return fail(format!("{}: index {shown} is out of range", quote(pointer)));
    }
    Ok(index)
}

/// How to undo one change; the paths are token lists from the root.
enum Undo {
    Root(Value),
    /// Set the member or element back to the value.
    Set(Vec<String>, Value),
    /// Delete the member.
    Delete(Vec<String>),
    /// Remove the element at the index.
    Pop(Vec<String>, usize),
    /// Insert the element back at the index; `None`: the value a later
    /// change (a move's add) took, which undoing that change gives back.
    Insert(Vec<String>, usize, Option<Value>),
    /// Put the member back at its place; `None` as for `Insert`.
    Restore(Vec<String>, String, Option<Value>, usize),
}

struct Document<'a> {
    root: &'a mut Value,
    undo: Vec<Undo>,
}

fn child<'v>(node: &'v Value, token: &str, pointer: &str) -> Result<&'v Value> {
    match node {
        Value::Object(map) => match map.get(token) {
            Some(value) => Ok(value),
            None => fail(format!("{}: no member {}", quote(pointer), quote(token))),
        },
        Value::Array(items) => Ok(&items[array_index(token, items.len(), pointer, false)?]),
        other => fail(format!(
            "{}: cannot descend into {}",
            quote(pointer),
            kind(other)
        )),
    }
}

fn child_mut<'v>(node: &'v mut Value, token: &str, pointer: &str) -> Result<&'v mut Value> {
    match node {
        Value::Object(map) => match map.get_mut(token) {
            Some(value) => Ok(value),
            None => fail(format!("{}: no member {}", quote(pointer), quote(token))),
        },
        Value::Array(items) => {
            let index = array_index(token, items.len(), pointer, false)?;
            Ok(&mut items[index])
        }
        other => fail(format!(
            "{}: cannot descend into {}",
            quote(pointer),
            kind(other)
        )),
    }
}

/// The container the last of `tokens` addresses into.
fn parent_mut<'v>(root: &'v mut Value, tokens: &[String], pointer: &str) -> Result<&'v mut Value> {
    let mut node = root;
    for token in &tokens[..tokens.len() - 1] {
        node = child_mut(node, token, pointer)?;
    }
    Ok(node)
}

/// The container at a path known to exist (undoing).
fn at_path<'v>(root: &'v mut Value, path: &[String]) -> &'v mut Value {
    let mut node = root;
    for token in path {
        node = match node {
            Value::Object(map) => map.get_mut(token.as_str()).expect("undo path exists"),
            Value::Array(items) => &mut items[token.parse::<usize>().expect("undo index")],
            _ => unreachable!("undo paths go through containers"),
        };
    }
    node
}

impl Document<'_> {
    fn get(&self, tokens: &[String], pointer: &str) -> Result<&Value> {
        let mut node: &Value = self.root;
        for token in tokens {
            node = child(node, token, pointer)?;
        }
        Ok(node)
    }

    fn add(&mut self, tokens: &[String], value: Value, pointer: &str) -> Result<()> {
        self.add_or_return(tokens, value, pointer)
            .map_err(|(err, _)| err)
    }

    /// Adds `value`, or fails having changed nothing and hands it back (a
    /// move puts it back where it came from).
    fn add_or_return(
        &mut self,
        tokens: &[String],
        value: Value,
        pointer: &str,
    ) -> std::result::Result<(), (PatchError, Value)> {
        let Some((last, parent_path)) = tokens.split_last() else {
            self.undo
                .push(Undo::Root(std::mem::replace(self.root, value)));
            return Ok(());
        };
        let parent = match parent_mut(self.root, tokens, pointer) {
            Ok(parent) => parent,
            Err(err) => return Err((err, value)),
        };
        match parent {
            Value::Object(map) => {
                let mut path = parent_path.to_vec();
                path.push(last.clone());
                let undo = match map.insert(last.clone(), value) {
                    Some(old) => Undo::Set(path, old),
                    None => Undo::Delete(path),
                };
                self.undo.push(undo);
            }
            Value::Array(items) => match array_index(last, items.len(), pointer, true) {
                Ok(index) => {
                    items.insert(index, value);
                    self.undo.push(Undo::Pop(parent_path.to_vec(), index));
                }
                Err(err) => return Err((err, value)),
            },
            other => {
                let err = PatchError(format!("{}: cannot add to {}", quote(pointer), kind(other)));
                return Err((err, value));
            }
        }
        Ok(())
    }

    /// Removes what `tokens` address. `take`: return it (a move), and let
    /// the undo log get it back from where the move put it.
    fn remove(&mut self, tokens: &[String], pointer: &str, take: bool) -> Result<Option<Value>> {
        let Some((last, parent_path)) = tokens.split_last() else {
            return fail("cannot remove the whole document".to_owned());
        };
        let parent_path = parent_path.to_vec();
        match parent_mut(self.root, tokens, pointer)? {
            Value::Object(map) => match map
                .keys()
                .position(|key| key == last)
                .zip(map.shift_remove_entry(last.as_str()))
            {
                Some((position, (key, value))) => {
                    let (kept, taken) = if take {
                        (None, Some(value))
                    } else {
                        (Some(value), None)
                    };
                    self.undo
                        .push(Undo::Restore(parent_path, key, kept, position));
                    Ok(taken)
                }
                None => fail(format!("{}: no member {}", quote(pointer), quote(last))),
            },
            Value::Array(items) => {
                let index = array_index(last, items.len(), pointer, false)?;
                let value = items.remove(index);
                let (kept, taken) = if take {
                    (None, Some(value))
                } else {
                    (Some(value), None)
                };
                self.undo.push(Undo::Insert(parent_path, index, kept));
                Ok(taken)
            }
            other => fail(format!(
                "{}: cannot remove from {}",
                quote(pointer),
                kind(other)
            )),
        }
    }

    fn replace(&mut self, tokens: &[String], value: Value, pointer: &str) -> Result<()> {
        let Some((last, parent_path)) = tokens.split_last() else {
            self.undo
                .push(Undo::Root(std::mem::replace(self.root, value)));
            return Ok(());
        };
        let mut path = parent_path.to_vec();
        match parent_mut(self.root, tokens, pointer)? {
            Value::Object(map) => match map.get_mut(last.as_str()) {
                Some(slot) => {
                    let old = std::mem::replace(slot, value);
                    path.push(last.clone());
                    self.undo.push(Undo::Set(path, old));
                }
                None => return fail(format!("{}: no member {}", quote(pointer), quote(last))),
            },
            Value::Array(items) => {
                let index = array_index(last, items.len(), pointer, false)?;
                let old = std::mem::replace(&mut items[index], value);
                path.push(index.to_string());
                self.undo.push(Undo::Set(path, old));
            }
            other => {
                return fail(format!(
                    "{}: cannot replace in {}",
                    quote(pointer),
                    kind(other)
                ))
            }
        }
        Ok(())
    }

    fn rollback(&mut self) {
        // What the last change undone took out, for a move's remove.
        let mut carried: Option<Value> = None;
        while let Some(undo) = self.undo.pop() {
            match undo {
                Undo::Root(value) => carried = Some(std::mem::replace(self.root, value)),
                Undo::Set(path, value) => {
                    let (last, parent) = path.split_last().expect("a member path");
                    let slot = match at_path(self.root, parent) {
                        Value::Object(map) => map.get_mut(last.as_str()).expect("undo member"),
                        Value::Array(items) => {
                            &mut items[last.parse::<usize>().expect("undo index")]
                        }
                        _ => unreachable!("undo paths go through containers"),
                    };
                    carried = Some(std::mem::replace(slot, value));
                }
                Undo::Delete(path) => {
                    let (last, parent) = path.split_last().expect("a member path");
                    if let Value::Object(map) = at_path(self.root, parent) {
                        carried = map.shift_remove(last.as_str());
                    }
                }
                Undo::Pop(path, index) => {
                    if let Value::Array(items) = at_path(self.root, &path) {
                        carried = Some(items.remove(index));
                    }
                }
                Undo::Insert(path, index, value) => {
                    let value = value.or_else(|| carried.take()).expect("a moved value");
                    if let Value::Array(items) = at_path(self.root, &path) {
                        items.insert(index, value);
                    }
                }
                Undo::Restore(path, key, value, position) => {
                    let value = value.or_else(|| carried.take()).expect("a moved value");
                    if let Value::Object(map) = at_path(self.root, &path) {
                        map.shift_insert(position, key, value);
                    }
                }
            }
        }
    }
}

fn op_name(operation: &Value) -> String {
    match operation.get("op") {
        Some(Value::String(op)) => op.clone(),
        _ => "None".to_owned(),
    }
}

/// A value `depth` deep put at `path` keeps the document within
/// [`MAX_DEPTH`].
fn within_depth(path: &[String], depth: usize, pointer: &str) -> Result<()> {
    let nesting = path.len() + depth;
    if nesting > MAX_DEPTH {
        return fail(format!(
            "{}: the value would nest {nesting} deep, past the limit of {MAX_DEPTH}",
            quote(pointer)
        ));
    }
    Ok(())
}

/// Applies one operation; `copied` is what the patch's copies have
/// duplicated so far, against `budget`.
fn apply_one(
    document: &mut Document<'_>,
    operation: &Value,
    position: usize,
    budget: &Budget,
    copied: &mut u64,
) -> Result<()> {
    let Value::Object(operation) = operation else {
        return fail(format!("operation {position} is not an object"));
    };
    let Some(Value::String(op)) = operation.get("op") else {
        return fail(format!("operation {position} has no 'op'"));
    };
    let pointer = operation.get("path");
    let path = tokens(pointer, "path")?;
    let pointer = pointer.and_then(Value::as_str).unwrap_or("");
    let op = op.as_str();
    if matches!(op, "add" | "replace" | "test") && !operation.contains_key("value") {
        return fail(format!("operation {position} ({op}) has no 'value'"));
    }
    if matches!(op, "add" | "replace") {
        within_depth(&path, measure(&operation["value"]).depth, pointer)?;
    }
    match op {
        "add" => document.add(&path, operation["value"].clone(), pointer),
        "remove" => document.remove(&path, pointer, false).map(drop),
        "replace" => document.replace(&path, operation["value"].clone(), pointer),
        "move" | "copy" => {
            let source = operation.get("from");
            let from = tokens(source, "from")?;
            let source = source.and_then(Value::as_str).unwrap_or("");
            if op == "move" {
                if from == path {
                    return document.get(&path, pointer).map(drop);
                }
                if path.starts_with(&from) {
                    return fail(format!(
                        "operation {position} moves {} into itself",
                        quote(source)
                    ));
                }
                within_depth(&path, measure(document.get(&from, source)?).depth, pointer)?;
                let value = document.remove(&from, source, true)?.expect("taken");
                document
                    .add_or_return(&path, value, pointer)
                    .map_err(|(err, value)| {
                        // The remove's undo gets the value back.
                        match document.undo.last_mut() {
                            Some(Undo::Restore(_, _, slot, _) | Undo::Insert(_, _, slot)) => {
                                *slot = Some(value);
                            }
                            _ => unreachable!("a move's remove was the last change"),
                        }
                        err
                    })
            } else {
                let value = document.get(&from, source)?;
                let size = measure(value);
                within_depth(&path, size.depth, pointer)?;
                *copied += size.bytes;
                if !budget.allows(*copied) {
                    return fail(format!(
                        "operation {position} (copy) {}",
                        budget.refusal("the patch's copies are", *copied)
                    ));
                }
                let value = value.clone();
                document.add(&path, value, pointer)
            }
        }
        "test" => {
            if json_equal(document.get(&path, pointer)?, &operation["value"]) {
                Ok(())
            } else {
                fail(format!(
                    "operation {position} (test) failed: {} is not the value tested",
                    quote(pointer)
                ))
            }
        }
        other => fail(format!(
            "operation {position} has an unknown op {}",
            quote(other)
        )),
    }
}

/// Applies `patch` to `document` in place; when it does not apply, the
/// document is left exactly as it was and the error says which operation
/// failed and why.
pub fn apply_patch(document: &mut Value, patch: &Value, budget: &mut Budget) -> Result<()> {
    let Value::Array(operations) = patch else {
        return fail("the patch is not an array".to_owned());
    };
    let mut target = Document {
        root: document,
        undo: Vec::new(),
    };
    let mut copied = 0;
    for (position, operation) in operations.iter().enumerate() {
        if let Err(PatchError(message)) =
            apply_one(&mut target, operation, position, budget, &mut copied)
        {
            target.rollback();
            let message = if message.starts_with("operation") {
                message
            } else {
                format!("operation {position} ({}): {message}", op_name(operation))
            };
            return fail(message);
        }
    }
    budget.spend(copied);
    Ok(())
}

/// A copy of an object with its keys in order; for tests.
#[cfg(test)]
fn object(text: &str) -> crate::json::Map<String, Value> {
    match crate::json::parse(text).unwrap() {
        Value::Object(map) => map,
        _ => panic!("not an object"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    fn apply(doc: &str, patch: &str) -> std::result::Result<String, String> {
        let mut doc = parse(doc).unwrap();
        let before = doc.clone();
        match apply_patch(&mut doc, &parse(patch).unwrap(), &mut Budget::unlimited()) {
            Ok(()) => Ok(doc.to_string()),
            Err(err) => {
                assert_eq!(doc.to_string(), before.to_string(), "rolled back exactly");
                Err(err.0)
            }
        }
    }

    #[test]
    fn rfc_6902_appendix_examples() {
        assert_eq!(
            apply(
                r#"{"foo":"bar"}"#,
                r#"[{"op":"add","path":"/baz","value":"qux"}]"#
            )
            .unwrap(),
            r#"{"foo":"bar","baz":"qux"}"#
        );
        assert_eq!(
            apply(
                r#"{"foo":["bar","baz"]}"#,
                r#"[{"op":"add","path":"/foo/1","value":"qux"}]"#
            )
            .unwrap(),
            r#"{"foo":["bar","qux","baz"]}"#
        );
        assert_eq!(
            apply(
                r#"{"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}}"#,
                r#"[{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]"#
            )
            .unwrap(),
            r#"{"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}}"#
        );
        assert_eq!(
            apply(
                r#"{"foo":["all","grass","cows","eat"]}"#,
                r#"[{"op":"move","from":"/foo/1","path":"/foo/3"}]"#
            )
            .unwrap(),
            r#"{"foo":["all","cows","eat","grass"]}"#
        );
        assert!(apply(
            r#"{"baz":"qux"}"#,
            r#"[{"op":"test","path":"/baz","value":"bar"}]"#
        )
        .is_err());
        assert!(apply(
            r#"{"foo":"bar"}"#,
            r#"[{"op":"add","path":"/baz/bat","value":"qux"}]"#
        )
        .is_err());
        assert_eq!(
            apply(
                r#"{"/":9,"~1":10}"#,
                r#"[{"op":"test","path":"/~01","value":10}]"#
            )
            .unwrap(),
            r#"{"/":9,"~1":10}"#
        );
        assert_eq!(
            apply(
                r#"{"foo":["bar"]}"#,
                r#"[{"op":"add","path":"/foo/-","value":["abc","def"]}]"#
            )
            .unwrap(),
            r#"{"foo":["bar",["abc","def"]]}"#
        );
    }

    #[test]
    fn a_failed_patch_changes_nothing() {
        let err = apply(
            r#"{"a":1,"b":[1,2],"c":{"d":true}}"#,
            r#"[{"op":"remove","path":"/a"},{"op":"add","path":"/b/0","value":0},{"op":"replace","path":"/c/d","value":null},{"op":"move","from":"/b","path":"/z"},{"op":"test","path":"/z/0","value":1}]"#,
        )
        .unwrap_err();
        assert_eq!(
            err,
            r#"operation 4 (test) failed: "/z/0" is not the value tested"#
        );
    }

    #[test]
    fn numbers_compare_by_value_booleans_do_not() {
        assert!(apply(r#"{"a":1}"#, r#"[{"op":"test","path":"/a","value":1.0}]"#).is_ok());
        assert!(apply(r#"{"a":1}"#, r#"[{"op":"test","path":"/a","value":true}]"#).is_err());
        assert!(apply(r#"{"a":-0}"#, r#"[{"op":"test","path":"/a","value":0}]"#).is_ok());
        assert!(apply(
            r#"{"a":9007199254740993}"#,
            r#"[{"op":"test","path":"/a","value":9007199254740992.0}]"#
        )
        .is_err());
        assert!(apply(
            r#"{"a":{"x":1,"y":[2]}}"#,
            r#"[{"op":"test","path":"/a","value":{"y":[2],"x":1}}]"#
        )
        .is_ok());
    }

    #[test]
    fn errors_name_the_operation() {
        assert_eq!(
            apply("{}", r#"[{"op":"remove","path":"/x"}]"#).unwrap_err(),
            r#"operation 0 (remove): "/x": no member "x""#
        );
        assert_eq!(
            apply("[]", r#"[{"op":"add","path":"/01","value":1}]"#).unwrap_err(),
            r#"operation 0 (add): "/01": "01" is not an array index"#
        );
        assert_eq!(
            apply("{}", r#"[{"op":"jump","path":""}]"#).unwrap_err(),
            r#"operation 0 has an unknown op "jump""#
        );
        assert_eq!(
            apply("{}", r#"[{"op":"add","path":"a","value":1}]"#).unwrap_err(),
            r#"operation 0 (add): 'path' "a" does not start with '/'"#
        );
        assert_eq!(
            apply(
                r#"{"a":{}}"#,
                r#"[{"op":"move","from":"/a","path":"/a/b"}]"#
            )
            .unwrap_err(),
            r#"operation 0 moves "/a" into itself"#
        );
        assert_eq!(
            apply("{}", r#"{}"#).unwrap_err(),
            "the patch is not an array"
        );
    }

    #[test]
    fn a_move_that_cannot_land_puts_the_value_back() {
        let err = apply(
            r#"{"a":{"x":[1,{"y":2}]},"b":[3]}"#,
            r#"[{"op":"move","from":"/a/x","path":"/b/7"}]"#,
        )
        .unwrap_err();
        assert_eq!(
            err,
            r#"operation 0 (move): "/b/7": index 7 is out of range"#
        );
        let err = apply(
            r#"{"a":{"x":1},"b":[3]}"#,
            r#"[{"op":"move","from":"/a/x","path":"/b/0"},{"op":"move","from":"/b/1","path":"/c/d"}]"#,
        )
        .unwrap_err();
        assert_eq!(err, r#"operation 1 (move): "/c/d": no member "c""#);
    }

    #[test]
    fn restores_key_order() {
        let mut doc = Value::Object(object(r#"{"a":1,"b":2,"c":3}"#));
        let patch =
            parse(r#"[{"op":"remove","path":"/b"},{"op":"test","path":"/a","value":2}]"#).unwrap();
        assert!(apply_patch(&mut doc, &patch, &mut Budget::unlimited()).is_err());
        assert_eq!(doc.to_string(), r#"{"a":1,"b":2,"c":3}"#);
    }

    fn nested(depth: usize) -> String {
        r#"{"a":"#.repeat(depth) + "1" + &"}".repeat(depth)
    }

    #[test]
    fn the_document_nests_no_deeper_than_parsed_json() {
        let doc = nested(MAX_DEPTH - 1);
        let path = "/a".repeat(MAX_DEPTH - 1);
        // One more level fits; two do not, by add, copy or move.
        assert!(apply(
            &doc,
            &format!(r#"[{{"op":"add","path":"{path}","value":[]}}]"#)
        )
        .is_ok());
        let err = apply(
            &doc,
            &format!(r#"[{{"op":"add","path":"{path}","value":[[]]}}]"#),
        )
        .unwrap_err();
        assert_eq!(
            err,
            format!(
                r#"operation 0 (add): "{path}": the value would nest 128 deep, past the limit of 127"#
            )
        );
        let err = apply(
            r#"{"a":{"b":{}},"c":{}}"#,
            r#"[{"op":"copy","from":"","path":"/c/d"}]"#,
        );
        assert!(err.is_ok(), "{err:?}");
        let deep = format!(r#"{{"x":{},"y":[]}}"#, nested(MAX_DEPTH - 1));
        for op in ["copy", "move"] {
            let err = apply(
                &deep,
                &format!(r#"[{{"op":"{op}","from":"/x","path":"/y/0"}}]"#),
            )
            .unwrap_err();
            assert!(err.ends_with("past the limit of 127"), "{err}");
        }
    }

    #[test]
    fn copies_are_taken_from_the_budget() {
        // {"a":"xxxx"}: 1 + 1 + (1 + 4) = 7; a copy of it, 7 more.
        let mut budget = Budget::new(Some(20));
        let mut doc = parse(r#"{"a":"xxxx"}"#).unwrap();
        let copy = parse(r#"[{"op":"copy","from":"","path":"/b"}]"#).unwrap();
        apply_patch(&mut doc, &copy, &mut budget).unwrap();
        assert_eq!(budget.used, 7);
        let before = doc.clone();
        let again = parse(r#"[{"op":"copy","from":"","path":"/c"}]"#).unwrap();
        let err = apply_patch(&mut doc, &again, &mut budget).unwrap_err();
        assert_eq!(
            err.0,
            "operation 0 (copy) exceeds max_stream_bytes=20: the patch's copies are 15 bytes, \
             after the 7 the stream has brought"
        );
        assert_eq!((doc, budget.used), (before, 7), "nothing taken");
    }
}
