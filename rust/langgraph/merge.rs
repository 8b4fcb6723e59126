//! Adding LangChain message chunks as langchain-core adds them
//! (`AIMessageChunk.__add__`: `merge_content`, `merge_dicts`, `merge_lists`,
//! `add_usage`, the id it keeps), into state held so that each addition
//! costs what it adds: strings grow in place, and the elements of a
//! message's content and tool-call chunks are found by their `index`
//! through a table, not a scan. `python/agentcodec/_pure/langgraph/merge.py`
//! mirrors this module.
//!
//! Where langchain-core raises (two values of one key whose types differ,
//! two booleans that differ), the error says which key.

use crate::hashing::HashMap;
use crate::json::{kind, Map, Value};

/// The id langchain-core gives a message its provider gave none: its run's.
pub const LC_RUN_PREFIX: &str = "lc_run-";
const LC_PREFIX: &str = "lc_";

/// An element's `index`, as `merge_lists` tells them apart.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum IndexKey {
    Int(i64),
    Str(String),
}

/// The index an element merges with its like by: an integer, or an `lc_`
/// string (as `merge_lists` says).
fn index_key(element: &Value) -> Option<IndexKey> {
    match element.get("index")? {
        Value::Number(number) => number.as_i64().map(IndexKey::Int),
        Value::String(text) if text.starts_with(LC_PREFIX) => Some(IndexKey::Str(text.clone())),
        _ => None,
    }
}

/// A list being merged into: its elements with an `index` found by it.
#[derive(Debug, Clone, Default)]
pub struct Blocks {
    pub items: Vec<Value>,
    positions: HashMap<IndexKey, Vec<usize>>,
}

impl Blocks {
    pub fn from_items(items: Vec<Value>) -> Blocks {
        let mut blocks = Blocks::default();
        for item in items {
            blocks.push(item);
        }
        blocks
    }

    fn push(&mut self, item: Value) {
        if let Some(key) = index_key(&item) {
            self.positions
                .entry(key)
                .or_default()
                .push(self.items.len());
        }
        self.items.push(item);
    }

    /// The first element of an integer `index` (the one an element of that
    /// index and no id merges into), as an object.
    pub fn first_of(&mut self, index: i64) -> Option<&mut Map<String, Value>> {
        let at = *self.positions.get(&IndexKey::Int(index))?.first()?;
        self.items[at].as_object_mut()
    }

    /// `merge_lists(self, right)`, into `self`.
    pub fn merge(&mut self, right: Vec<Value>) -> Result<(), String> {
        for element in right {
            let found = index_key(&element).and_then(|key| {
                let positions = self.positions.get(&key)?;
                positions
                    .iter()
                    .copied()
                    .find(|&at| ids_agree(&self.items[at], &element))
            });
            match (found, element) {
                (Some(at), Value::Object(mut new)) => {
                    new.shift_remove("type");
                    let Value::Object(held) = &mut self.items[at] else {
                        unreachable!("an element with an index is an object")
                    };
                    merge_dicts(held, new)?;
                }
                (_, element) => self.push(element),
            }
        }
        Ok(())
    }
}

/// Whether two elements of one index are one: neither names an id, or both the same.
fn ids_agree(held: &Value, element: &Value) -> bool {
    let id = |value: &Value| match value.get("id") {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) if text.is_empty() => None,
        Some(other) => Some(other.clone()),
    };
    match (id(held), id(element)) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    }
}

/// `merge_lists` on a list inside a dict (rare: no table kept).
fn merge_plain_lists(held: &mut Vec<Value>, right: Vec<Value>) -> Result<(), String> {
    let mut blocks = Blocks::from_items(std::mem::take(held));
    let merged = blocks.merge(right);
    *held = blocks.items;
    merged
}

fn same_type(held: &Value, value: &Value) -> bool {
    match (held, value) {
        (Value::Number(a), Value::Number(b)) => a.is_f64() == b.is_f64(),
        _ => std::mem::discriminant(held) == std::mem::discriminant(value),
    }
}

/// `merge_dicts(held, right)`, into `held`.
pub fn merge_dicts(held: &mut Map<String, Value>, right: Map<String, Value>) -> Result<(), String> {
    for (key, value) in right {
        let current = match held.get_mut(&key) {
            Some(current) if !current.is_null() || value.is_null() => current,
            _ => {
                held.insert(key, value);
                continue;
            }
        };
        if value.is_null() {
            continue;
        }
        if !same_type(current, &value) {
            return Err(format!(
                "cannot add its \"{key}\" ({}) to the {} before it",
                kind(&value),
                kind(current)
            ));
        }
        match (current, value) {
            (Value::String(text), Value::String(piece)) => {
                let kept = (key == "index" && text.starts_with(LC_PREFIX))
                    || (matches!(key.as_str(), "id" | "output_version" | "model_provider")
                        && *text == piece);
                if !kept {
                    text.push_str(&piece);
                }
            }
            (Value::Object(inner), Value::Object(piece)) => merge_dicts(inner, piece)?,
            (Value::Array(items), Value::Array(piece)) => merge_plain_lists(items, piece)?,
            (current, value) if *current == value => {}
            (Value::Number(number), Value::Number(piece))
                if !number.is_f64() && !piece.is_f64() =>
            {
                if matches!(key.as_str(), "index" | "created" | "timestamp") {
                    *number = piece;
                } else {
                    let sum = number
                        .as_i64()
                        .zip(piece.as_i64())
                        .and_then(|(a, b)| a.checked_add(b))
                        .ok_or_else(|| format!("its \"{key}\" adds up past 64 bits"))?;
                    *number = sum.into();
                }
            }
            (current, value) => {
                return Err(format!(
                    "cannot add its \"{key}\" ({}) to the {} before it",
                    crate::json::to_text(&value),
                    crate::json::to_text(current)
                ))
            }
        }
    }
    Ok(())
}

/// A message's content as it adds up: a string, or a list of blocks.
#[derive(Debug, Clone)]
pub enum Content {
    Text(String),
    List(Blocks),
}

impl Content {
    pub fn new(content: Value) -> Content {
        match content {
            Value::Array(items) => Content::List(Blocks::from_items(items)),
            Value::String(text) => Content::Text(text),
            _ => Content::Text(String::new()),
        }
    }

    /// `merge_content(self, right)`.
    pub fn merge(&mut self, right: Value) -> Result<(), String> {
        match (&mut *self, right) {
            (Content::Text(text), Value::String(piece)) => text.push_str(&piece),
            (Content::Text(text), Value::Array(items)) => {
                let mut blocks = Blocks::from_items(vec![Value::String(std::mem::take(text))]);
                for item in items {
                    blocks.push(item);
                }
                *self = Content::List(blocks);
            }
            (Content::List(blocks), Value::Array(items)) => blocks.merge(items)?,
            (Content::List(blocks), Value::String(piece)) => {
                if let Some(Value::String(last)) = blocks.items.last_mut() {
                    last.push_str(&piece);
                } else if !piece.is_empty() && !blocks.items.is_empty() {
                    blocks.push(Value::String(piece));
                }
            }
            _ => {}
        }
        Ok(())
    }

    pub fn blocks(&self) -> usize {
        match self {
            Content::Text(_) => 0,
            Content::List(blocks) => blocks.items.len(),
        }
    }

    pub fn value(&self) -> Value {
        match self {
            Content::Text(text) => Value::String(text.clone()),
            Content::List(blocks) => Value::Array(blocks.items.clone()),
        }
    }
}

/// `add_usage`: integers summed, nested objects added alike.
pub fn add_usage(
    held: &mut Option<Map<String, Value>>,
    right: Option<&Value>,
) -> Result<(), String> {
    let Some(Value::Object(right)) = right else {
        return Ok(());
    };
    if right.is_empty() {
        return Ok(());
    }
    match held {
        Some(held) if !held.is_empty() => add_ints(held, right, "usage_metadata"),
        _ => {
            *held = Some(right.clone());
            Ok(())
        }
    }
}

fn add_ints(
    held: &mut Map<String, Value>,
    right: &Map<String, Value>,
    at: &str,
) -> Result<(), String> {
    for (key, value) in right {
        let refused =
            || format!("cannot add its {at}.{key}: only integers and objects of them add");
        match (held.get_mut(key), value) {
            (None, Value::Number(number)) if is_int(number) => {
                held.insert(key.clone(), value.clone());
            }
            (None, Value::Object(inner)) => {
                let mut added = Map::new();
                add_ints(&mut added, inner, &format!("{at}.{key}"))?;
                held.insert(key.clone(), Value::Object(added));
            }
            (Some(Value::Number(current)), Value::Number(number))
                if is_int(current) && is_int(number) =>
            {
                let sum = current
                    .as_i64()
                    .zip(number.as_i64())
                    .and_then(|(a, b)| a.checked_add(b))
                    .ok_or_else(|| format!("its {at}.{key} adds up past 64 bits"))?;
                *current = sum.into();
            }
            (Some(Value::Object(current)), Value::Object(inner)) => {
                add_ints(current, inner, &format!("{at}.{key}"))?;
            }
            _ => return Err(refused()),
        }
    }
    Ok(())
}

fn is_int(number: &serde_json::Number) -> bool {
    number.is_i64() || number.is_u64()
}

/// The id langchain-core keeps: the first the provider gave, else the
/// first of a run (`lc_run-`), else the first.
pub fn best_id(held: &mut Option<String>, right: Option<&str>) {
    let Some(right) = right.filter(|id| !id.is_empty()) else {
        return;
    };
    let replace = match held.as_deref() {
        None => true,
        Some(held) if !held.starts_with(LC_PREFIX) => false,
        Some(_) if !right.starts_with(LC_PREFIX) => true,
        Some(held) => !held.starts_with(LC_RUN_PREFIX) && right.starts_with(LC_RUN_PREFIX),
    };
    if replace {
        *held = Some(right.to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!("an object"),
        }
    }

    #[test]
    fn strings_join_ints_add_and_kept_keys_stay() {
        let mut held =
            map(serde_json::json!({"model_provider": "openai", "text": "a", "n": 1, "index": 0}));
        let right =
            map(serde_json::json!({"model_provider": "openai", "text": "b", "n": 2, "index": 3}));
        merge_dicts(&mut held, right).unwrap();
        assert_eq!(
            Value::Object(held),
            serde_json::json!({"model_provider": "openai", "text": "ab", "n": 3, "index": 3})
        );
    }

    #[test]
    fn values_of_other_types_are_refused_saying_which() {
        let mut held = map(serde_json::json!({"n": 1}));
        let err = merge_dicts(&mut held, map(serde_json::json!({"n": 1.5}))).unwrap_err();
        assert_eq!(
            err,
            "cannot add its \"n\" (a JSON number) to the a JSON number before it"
        );
    }

    #[test]
    fn elements_merge_by_index_unless_their_ids_differ() {
        let mut blocks = Blocks::from_items(vec![
            serde_json::json!({"index": 0, "id": "a", "args": "{"}),
        ]);
        blocks
            .merge(vec![
                serde_json::json!({"index": 0, "args": "}", "type": "x"}),
                serde_json::json!({"index": 0, "id": "b", "args": "[]"}),
            ])
            .unwrap();
        assert_eq!(
            blocks.items,
            vec![
                serde_json::json!({"index": 0, "id": "a", "args": "{}"}),
                serde_json::json!({"index": 0, "id": "b", "args": "[]"}),
            ]
        );
    }

    #[test]
    fn the_providers_id_wins_then_a_runs() {
        let mut id = None;
        for given in ["lc_auto", "lc_run--1", "chatcmpl-1", "lc_run--2"] {
            best_id(&mut id, Some(given));
        }
        assert_eq!(id.as_deref(), Some("chatcmpl-1"));
        let mut id = Some("lc_auto".to_owned());
        best_id(&mut id, Some("lc_run--1"));
        assert_eq!(id.as_deref(), Some("lc_run--1"));
    }

    #[test]
    fn usage_adds_up_nested() {
        let mut usage = None;
        add_usage(
            &mut usage,
            Some(&serde_json::json!({"input_tokens": 1, "details": {"cache": 2}})),
        )
        .unwrap();
        add_usage(
            &mut usage,
            Some(&serde_json::json!({"input_tokens": 3, "details": {"cache": 1}})),
        )
        .unwrap();
        assert_eq!(
            Value::Object(usage.unwrap()),
            serde_json::json!({"input_tokens": 4, "details": {"cache": 3}})
        );
    }
}
