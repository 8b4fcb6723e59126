//! Where the AI SDK's provider packages keep a reasoning signature: in a
//! chunk's `providerMetadata` (a reasoning part's, and for some packages a
//! text part's or a tool call's too), under a key and in fields of each
//! package's own. The protocol of a provider's models says where, in its
//! vocabulary's `PROVIDER_METADATA` table, which this module reads through
//! the registry: the codec names no provider, and a provider's signatures
//! are carried by adding that table to its own folder.
//!
//! A table's words are `what=name`:
//! - `by`: whose the signatures are, as the neutral `encrypted_by` says,
//!   where not the protocol's name (`openai` for the Responses API's);
//! - `key`: the metadata's key (each written, where a package writes its
//!   metadata under an old name and a new one; read from the first the
//!   chunk has an object under);
//! - `signature`: the signature's field;
//! - `redacted`: redacted reasoning's field (the first written, each read);
//! - `item_id`: the field for the id of the item the reasoning is (the
//!   OpenAI package's), written with the message's id;
//! - `part`: a kind of block whose part carries a signature (`reasoning`,
//!   `text`, `tool_call`; one or more), where not only `reasoning`.
//!
//! `python/agentcodec/_pure/ai_sdk/providers.py` mirrors this module.

use std::sync::OnceLock;

use crate::events::nonempty;
use crate::json::{Map, Value};

/// The vocabulary table a provider's protocol declares its place in.
pub const TABLE: &str = "PROVIDER_METADATA";

/// One provider package's place for signatures.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Place {
    /// Whose the signatures are: a signature's neutral `encrypted_by`.
    pub by: &'static str,
    pub keys: Vec<&'static str>,
    pub signature: Option<&'static str>,
    pub redacted: Vec<&'static str>,
    pub item_id: Option<&'static str>,
    /// The kinds of block whose parts carry a signature.
    pub parts: Vec<&'static str>,
}

impl Place {
    /// Whether the part of a block of `kind` carries a signature.
    pub fn carries(&self, kind: &str) -> bool {
        self.parts.contains(&kind)
    }
}

/// The kinds of block a signature may ride on, as the AI SDK's parts are.
const PARTS: [&str; 3] = ["reasoning", "text", "tool_call"];

/// A protocol's table, read (`by`: the protocol's name); an error names
/// the word it cannot read.
pub fn read(by: &'static str, words: &[&'static str]) -> Result<Place, String> {
    let mut place = Place {
        by,
        ..Place::default()
    };
    let mut named = false;
    for word in words {
        match word.split_once('=') {
            Some(("by", name)) if !named => {
                place.by = name;
                named = true;
            }
            Some(("key", name)) => place.keys.push(name),
            Some(("signature", name)) if place.signature.is_none() => place.signature = Some(name),
            Some(("redacted", name)) => place.redacted.push(name),
            Some(("item_id", name)) if place.item_id.is_none() => place.item_id = Some(name),
            Some(("part", kind)) if PARTS.contains(&kind) && !place.parts.contains(&kind) => {
                place.parts.push(kind);
            }
            _ => return Err(format!("{by}'s {TABLE}: {word:?} is not one of its words")),
        }
    }
    if place.keys.is_empty() || (place.signature.is_none() && place.redacted.is_empty()) {
        return Err(format!("{by}'s {TABLE} needs a key and a field"));
    }
    if place.parts.is_empty() {
        place.parts.push("reasoning");
    }
    Ok(place)
}

/// Every provider's place, in the registry's order. (A table that does not
/// read is left out: the tests read every one.)
pub fn places() -> &'static [Place] {
    static PLACES: OnceLock<Vec<Place>> = OnceLock::new();
    PLACES.get_or_init(|| {
        crate::PROTOCOLS
            .iter()
            .filter_map(|protocol| read(protocol.name, (protocol.vocabulary)(TABLE)?).ok())
            .collect()
    })
}

/// The signature a chunk's `providerMetadata` carries for a block of `kind`:
/// the encrypted value, whether it is redacted reasoning, and whose it is.
pub fn signature<'m>(metadata: &'m Value, kind: &str) -> Option<(&'m str, bool, &'static str)> {
    for place in places().iter().filter(|place| place.carries(kind)) {
        // The first key the chunk has an object under, as the package reads them.
        let fields = place
            .keys
            .iter()
            .find_map(|key| metadata.get(*key).filter(|fields| fields.is_object()));
        let Some(fields) = fields else {
            continue;
        };
        let field = |name: &str| nonempty(fields.get(name).and_then(Value::as_str));
        if let Some(signature) = place.signature.and_then(field) {
            return Some((signature, false, place.by));
        }
        if let Some(data) = place.redacted.iter().find_map(|name| field(name)) {
            return Some((data, true, place.by));
        }
    }
    None
}

/// A signature as the AI SDK's package for `by`'s models keeps it in the
/// `providerMetadata` of a block of `kind`'s part (`item_id`: the item it
/// belongs to); none where no package has a place for it.
pub fn metadata(
    by: &str,
    kind: &str,
    encrypted: &str,
    redacted: bool,
    item_id: &str,
) -> Option<Value> {
    let place = places()
        .iter()
        .find(|place| place.by == by && place.carries(kind))?;
    let field = if redacted {
        *place.redacted.first()?
    } else {
        place.signature?
    };
    let mut fields = Map::new();
    if let Some(name) = place.item_id {
        fields.insert(name.to_owned(), item_id.into());
    }
    fields.insert(field.to_owned(), encrypted.into());
    let mut metadata = Map::new();
    for key in &place.keys {
        metadata.insert((*key).to_owned(), Value::Object(fields.clone()));
    }
    Some(Value::Object(metadata))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_protocols_table_reads() {
        for protocol in crate::PROTOCOLS {
            if let Some(words) = (protocol.vocabulary)(TABLE) {
                read(protocol.name, words).unwrap();
            }
        }
        assert!(!places().is_empty());
    }

    #[test]
    fn a_table_of_unknown_or_missing_words_is_refused() {
        assert!(read("p", &["key=p", "signature=s", "colour=red"]).is_err());
        assert!(read("p", &["key=p", "signature=s", "signature=t"]).is_err());
        assert!(read("p", &["signature=s"]).is_err());
        assert!(read("p", &["key=p"]).is_err());
        assert!(read("p", &["by=a", "by=b", "key=p", "signature=s"]).is_err());
        assert_eq!(
            read("p", &["by=o", "key=p", "signature=s"]).unwrap().by,
            "o"
        );
        let place = read("p", &["key=a", "key=b", "redacted=r", "item_id=i"]).unwrap();
        assert_eq!(place.keys, ["a", "b"]);
        assert_eq!((place.signature, place.item_id), (None, Some("i")));
    }

    #[test]
    fn a_signature_is_written_under_each_key_and_read_back() {
        let place = places()
            .iter()
            .find(|place| place.keys.len() > 1)
            .expect("a package writes two keys");
        let written = metadata(place.by, "reasoning", "S", false, "m").unwrap();
        let object = written.as_object().unwrap();
        assert_eq!(object.len(), place.keys.len());
        assert_eq!(
            signature(&written, "reasoning"),
            Some(("S", false, place.by))
        );
        assert_eq!(
            metadata("no such protocol", "reasoning", "S", false, "m"),
            None
        );
    }

    #[test]
    fn a_signature_rides_only_on_the_parts_its_package_names() {
        let place = read("p", &["key=p", "signature=s"]).unwrap();
        assert_eq!(place.parts, ["reasoning"]);
        let place = read(
            "p",
            &["key=p", "signature=s", "part=text", "part=tool_call"],
        )
        .unwrap();
        assert_eq!(place.parts, ["text", "tool_call"]);
        assert!(read("p", &["key=p", "signature=s", "part=media"]).is_err());
        assert!(read("p", &["key=p", "signature=s", "part=text", "part=text"]).is_err());
        for place in places() {
            for kind in PARTS {
                let written = metadata(place.by, kind, "S", false, "m");
                assert_eq!(written.is_some(), place.carries(kind));
                if let Some(written) = written {
                    assert_eq!(signature(&written, kind), Some(("S", false, place.by)));
                }
            }
        }
    }
}
