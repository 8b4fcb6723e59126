//! Reading JSON without building it: the pieces the protocol probes share.
//!
//! A probe reads an event's text with serde_json, exactly as the full parse
//! does (so exactly the same JSON is accepted), keeps only the fields a
//! quick path needs, borrowing strings from the input, and validates the
//! rest without building it.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// A value read in full but not kept. Unlike serde's `IgnoredAny`, which
/// serde_json skips without checking escapes or depth, this goes through the
/// parser's every check, so the probe accepts exactly what the full path does.
pub struct Skip;

impl<'de> Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SkipVisitor;

        impl<'de> Visitor<'de> for SkipVisitor {
            type Value = Skip;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }

            fn visit_bool<E>(self, _: bool) -> Result<Skip, E> {
                Ok(Skip)
            }

            fn visit_i64<E>(self, _: i64) -> Result<Skip, E> {
                Ok(Skip)
            }

            fn visit_u64<E>(self, _: u64) -> Result<Skip, E> {
                Ok(Skip)
            }

            fn visit_f64<E>(self, _: f64) -> Result<Skip, E> {
                Ok(Skip)
            }

            fn visit_str<E>(self, _: &str) -> Result<Skip, E> {
                Ok(Skip)
            }

            fn visit_unit<E>(self) -> Result<Skip, E> {
                Ok(Skip)
            }

            fn visit_none<E>(self) -> Result<Skip, E> {
                Ok(Skip)
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Skip, A::Error> {
                while seq.next_element::<Skip>()?.is_some() {}
                Ok(Skip)
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Skip, A::Error> {
                while map.next_entry::<Skip, Skip>()?.is_some() {}
                Ok(Skip)
            }
        }

        deserializer.deserialize_any(SkipVisitor)
    }
}

/// A field that is usually a string: the string, or "present but not a string".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StrField<'a> {
    Str(Cow<'a, str>),
    NotStr,
}

impl StrField<'_> {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            StrField::Str(text) => Some(text),
            StrField::NotStr => None,
        }
    }
}

impl<'de> Deserialize<'de> for StrField<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StrVisitor;

        impl<'de> Visitor<'de> for StrVisitor {
            type Value = StrField<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }

            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(StrField::Str(Cow::Borrowed(text)))
            }

            fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
                Ok(StrField::Str(Cow::Owned(text.to_owned())))
            }

            fn visit_string<E>(self, text: String) -> Result<Self::Value, E> {
                Ok(StrField::Str(Cow::Owned(text)))
            }

            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(StrField::NotStr)
            }

            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(StrField::NotStr)
            }

            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(StrField::NotStr)
            }

            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(StrField::NotStr)
            }

            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(StrField::NotStr)
            }

            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(StrField::NotStr)
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<Skip>()?.is_some() {}
                Ok(StrField::NotStr)
            }

            // Objects, and numbers (which arbitrary_precision hands over as
            // a one-entry map).
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<Skip, Skip>()?.is_some() {}
                Ok(StrField::NotStr)
            }
        }

        deserializer.deserialize_any(StrVisitor)
    }
}

/// Fills itself from the entries of a JSON object, one key at a time;
/// unknown keys are read with [`Skip`].
pub trait FromMap<'de>: Default {
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error>;
}

/// A field that should be an object: `Obj(Some(..))` when it is one,
/// `Obj(None)` when it is anything else.
#[derive(Debug)]
pub struct Obj<T>(pub Option<T>);

impl<'de, T: FromMap<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjVisitor<T>(std::marker::PhantomData<T>);

        impl<'de, T: FromMap<'de>> Visitor<'de> for ObjVisitor<T> {
            type Value = Obj<T>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Obj<T>, A::Error> {
                let mut value = T::default();
                while let Some(key) = map.next_key::<StrField<'de>>()? {
                    value.field(key.as_str().unwrap_or(""), &mut map)?;
                }
                Ok(Obj(Some(value)))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Obj<T>, A::Error> {
                while seq.next_element::<Skip>()?.is_some() {}
                Ok(Obj(None))
            }

            fn visit_bool<E>(self, _: bool) -> Result<Obj<T>, E> {
                Ok(Obj(None))
            }

            fn visit_i64<E>(self, _: i64) -> Result<Obj<T>, E> {
                Ok(Obj(None))
            }

            fn visit_u64<E>(self, _: u64) -> Result<Obj<T>, E> {
                Ok(Obj(None))
            }

            fn visit_f64<E>(self, _: f64) -> Result<Obj<T>, E> {
                Ok(Obj(None))
            }

            fn visit_str<E>(self, _: &str) -> Result<Obj<T>, E> {
                Ok(Obj(None))
            }

            fn visit_unit<E>(self) -> Result<Obj<T>, E> {
                Ok(Obj(None))
            }

            fn visit_none<E>(self) -> Result<Obj<T>, E> {
                Ok(Obj(None))
            }
        }

        deserializer.deserialize_any(ObjVisitor(std::marker::PhantomData))
    }
}

/// A list of strings (a namespace): `None` when it is anything else.
#[derive(Debug)]
pub struct Strings<'a>(pub Option<Vec<Cow<'a, str>>>);

impl<'de> Deserialize<'de> for Strings<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StringsVisitor;

        impl<'de> Visitor<'de> for StringsVisitor {
            type Value = Strings<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Strings<'de>, A::Error> {
                let mut items = Some(Vec::new());
                while let Some(item) = seq.next_element::<StrField<'de>>()? {
                    match (item, items.as_mut()) {
                        (StrField::Str(text), Some(list)) => list.push(text),
                        _ => items = None,
                    }
                }
                Ok(Strings(items))
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Strings<'de>, A::Error> {
                while map.next_entry::<Skip, Skip>()?.is_some() {}
                Ok(Strings(None))
            }

            fn visit_bool<E>(self, _: bool) -> Result<Strings<'de>, E> {
                Ok(Strings(None))
            }

            fn visit_i64<E>(self, _: i64) -> Result<Strings<'de>, E> {
                Ok(Strings(None))
            }

            fn visit_u64<E>(self, _: u64) -> Result<Strings<'de>, E> {
                Ok(Strings(None))
            }

            fn visit_f64<E>(self, _: f64) -> Result<Strings<'de>, E> {
                Ok(Strings(None))
            }

            fn visit_str<E>(self, _: &str) -> Result<Strings<'de>, E> {
                Ok(Strings(None))
            }

            fn visit_unit<E>(self) -> Result<Strings<'de>, E> {
                Ok(Strings(None))
            }

            fn visit_none<E>(self) -> Result<Strings<'de>, E> {
                Ok(Strings(None))
            }
        }

        deserializer.deserialize_any(StringsVisitor)
    }
}
