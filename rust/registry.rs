//! The protocols, each described once by its own module: its name, how its
//! errors name its events, its assembler, its decoder into the neutral
//! vocabulary, and its encoder out of it with the options that encoder takes.
//!
//! `lib.rs` lists the protocol modules once; the list of descriptors,
//! [`crate::PROTOCOLS`], and the binding's dispatch are generated from it,
//! so nothing else enumerates protocols and an unknown name can only be a
//! lookup that fails ([`find`]), never a fallback to some other protocol.
//! `python/agentcodec/_pure/registry.py` is the pure backend's mirror.

use std::fmt;

use crate::events::{Decode, Encode};
use crate::sse::Limits;
use crate::stream::{OnError, Reader};

/// A protocol, as its module describes it.
pub struct Descriptor {
    /// Its name, as the CLI, the Transcoder and the docs spell it.
    pub name: &'static str,
    /// How its event errors name one of its events ("AgentScope event").
    pub subject: &'static str,
    /// A new assembler of its streams, with the options every protocol's
    /// assembler takes (the others at their defaults).
    pub assembler: fn(OnError, Limits) -> Box<dyn Reader>,
    /// A new decoder of its events into neutral ones.
    pub decoder: fn() -> Box<dyn Decode + Send + Sync>,
    /// The options its encoder takes, in the order messages list them.
    pub options: &'static [EncoderOption],
    /// A new encoder, built from options checked against `options`.
    pub encoder: fn(&EncoderOptions) -> Box<dyn Encode + Send + Sync>,
    /// Its vocabulary's tables by name (`[NAME]` in its `vocabulary.txt`):
    /// what another protocol's codec reads of it without naming it (the AI
    /// SDK, where its provider package keeps this protocol's signatures).
    pub vocabulary: fn(&str) -> Option<&'static [&'static str]>,
}

impl fmt::Debug for Descriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Descriptor")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// The protocol of that name.
pub fn find(name: &str) -> Option<&'static Descriptor> {
    crate::PROTOCOLS
        .iter()
        .copied()
        .find(|protocol| protocol.name == name)
}

/// The protocols' names, in the order of [`crate::PROTOCOLS`].
pub fn names() -> impl Iterator<Item = &'static str> {
    crate::PROTOCOLS.iter().map(|protocol| protocol.name)
}

/// One option an encoder takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncoderOption {
    pub name: &'static str,
    pub kind: OptionKind,
}

impl EncoderOption {
    /// A str option.
    pub const fn str(name: &'static str) -> Self {
        EncoderOption {
            name,
            kind: OptionKind::Str,
        }
    }

    /// An int option.
    pub const fn int(name: &'static str) -> Self {
        EncoderOption {
            name,
            kind: OptionKind::Int,
        }
    }

    /// A bool option.
    pub const fn bool(name: &'static str) -> Self {
        EncoderOption {
            name,
            kind: OptionKind::Bool,
        }
    }

    /// A str option that is one of `choices`.
    pub const fn choice(name: &'static str, choices: &'static [&'static str]) -> Self {
        EncoderOption {
            name,
            kind: OptionKind::Choice(choices),
        }
    }

    /// A list-of-str option.
    pub const fn str_list(name: &'static str) -> Self {
        EncoderOption {
            name,
            kind: OptionKind::StrList,
        }
    }
}

/// What an option holds (each may also be given as none, its default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionKind {
    Str,
    Int,
    Bool,
    StrList,
    /// A str, one of these.
    Choice(&'static [&'static str]),
}

impl OptionKind {
    /// The type's name, as Python spells it in the messages.
    pub fn describe(self) -> &'static str {
        match self {
            OptionKind::Str | OptionKind::Choice(_) => "str",
            OptionKind::Int => "int",
            OptionKind::Bool => "bool",
            OptionKind::StrList => "list[str]",
        }
    }
}

/// An option's value as given.
#[derive(Debug, Clone, PartialEq)]
pub enum OptionValue {
    /// Given as none: no value, even where the encoder has a default (the
    /// LangChain encoder names its node "model" unless given none).
    None,
    Str(String),
    Int(i64),
    /// An integer that does not fit in 64 bits.
    IntTooBig,
    Bool(bool),
    StrList(Vec<String>),
    /// Something else, by its type's name (as Python names it).
    Other(String),
}

impl OptionValue {
    fn type_name(&self) -> &str {
        match self {
            OptionValue::None => "None",
            OptionValue::Str(_) => "str",
            OptionValue::Int(_) | OptionValue::IntTooBig => "int",
            OptionValue::Bool(_) => "bool",
            OptionValue::StrList(_) => "list",
            OptionValue::Other(name) => name,
        }
    }

    fn fits(&self, kind: OptionKind) -> bool {
        matches!(
            (self, kind),
            (OptionValue::None, _)
                | (OptionValue::Str(_), OptionKind::Str | OptionKind::Choice(_))
                | (
                    OptionValue::Int(_) | OptionValue::IntTooBig,
                    OptionKind::Int
                )
                | (OptionValue::Bool(_), OptionKind::Bool)
                | (OptionValue::StrList(_), OptionKind::StrList)
        )
    }
}

impl From<&str> for OptionValue {
    fn from(value: &str) -> Self {
        OptionValue::Str(value.to_owned())
    }
}

impl From<i64> for OptionValue {
    fn from(value: i64) -> Self {
        OptionValue::Int(value)
    }
}

impl From<Vec<String>> for OptionValue {
    fn from(value: Vec<String>) -> Self {
        OptionValue::StrList(value)
    }
}

/// An option an encoder refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionError {
    /// The encoder takes no option of that name.
    Unknown {
        protocol: &'static str,
        name: String,
        takes: Vec<&'static str>,
    },
    /// The value is of another type.
    Type {
        name: &'static str,
        expected: &'static str,
        given: String,
    },
    /// An integer beyond 64 bits.
    TooBig { name: &'static str },
    /// A str that is none of the option's choices.
    Choice {
        name: &'static str,
        choices: &'static [&'static str],
        given: String,
    },
}

impl OptionError {
    /// The message, with an unknown option's name quoted by `repr` (the
    /// binding passes Python's own).
    pub fn message(&self, repr: impl Fn(&str) -> String) -> String {
        match self {
            OptionError::Unknown {
                protocol,
                name,
                takes,
            } if takes.is_empty() => format!(
                "the {protocol} encoder takes no option {} (it takes none)",
                repr(name)
            ),
            OptionError::Unknown {
                protocol,
                name,
                takes,
            } => format!(
                "the {protocol} encoder takes no option {} (it takes {})",
                repr(name),
                takes.join(", ")
            ),
            OptionError::Type {
                name,
                expected,
                given,
            } => format!("{name} must be {expected} or None, not {given}"),
            OptionError::TooBig { name } => format!("{name} does not fit in 64 bits"),
            OptionError::Choice {
                name,
                choices,
                given,
            } => {
                let choices: Vec<String> = choices.iter().map(|choice| repr(choice)).collect();
                format!(
                    "{name} must be one of {} or None, not {}",
                    choices.join(", "),
                    repr(given)
                )
            }
        }
    }
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message(python_repr))
    }
}

impl std::error::Error for OptionError {}

/// A str quoted as Python's `repr` quotes plain text.
fn python_repr(text: &str) -> String {
    if text.contains('\'') && !text.contains('"') {
        format!("\"{text}\"")
    } else {
        format!("'{}'", text.replace('\'', "\\'"))
    }
}

/// An encoder's options, checked against what it takes.
#[derive(Debug, Clone)]
pub struct EncoderOptions {
    protocol: &'static Descriptor,
    given: Vec<(&'static str, OptionValue)>,
}

impl EncoderOptions {
    /// No option given: the encoder's defaults.
    pub fn defaults(protocol: &'static Descriptor) -> Self {
        EncoderOptions {
            protocol,
            given: Vec::new(),
        }
    }

    /// The options given, checked as the pure backend checks them: first
    /// that the encoder takes each (the first unknown name in sorted order
    /// is the one reported), then each value's type, in the order given.
    pub fn parse(
        protocol: &'static Descriptor,
        given: impl IntoIterator<Item = (String, OptionValue)>,
    ) -> Result<Self, OptionError> {
        let given: Vec<(String, OptionValue)> = given.into_iter().collect();
        let find = |name: &str| protocol.options.iter().find(|option| option.name == name);
        if let Some(unknown) = given
            .iter()
            .map(|(name, _)| name)
            .filter(|name| find(name).is_none())
            .min()
        {
            return Err(OptionError::Unknown {
                protocol: protocol.name,
                name: unknown.clone(),
                takes: protocol.options.iter().map(|option| option.name).collect(),
            });
        }
        let mut options = EncoderOptions::defaults(protocol);
        for (name, value) in given {
            let option = find(&name).expect("checked above");
            if !value.fits(option.kind) {
                return Err(OptionError::Type {
                    name: option.name,
                    expected: option.kind.describe(),
                    given: value.type_name().to_owned(),
                });
            }
            if value == OptionValue::IntTooBig {
                return Err(OptionError::TooBig { name: option.name });
            }
            if let (OptionKind::Choice(choices), OptionValue::Str(text)) = (option.kind, &value) {
                if !choices.contains(&text.as_str()) {
                    return Err(OptionError::Choice {
                        name: option.name,
                        choices,
                        given: text.clone(),
                    });
                }
            }
            options.given.retain(|(other, _)| *other != option.name);
            options.given.push((option.name, value));
        }
        Ok(options)
    }

    /// The protocol these options are for.
    pub fn protocol(&self) -> &'static Descriptor {
        self.protocol
    }

    /// A new encoder built from these options.
    /// The target's name.
    pub fn name(&self) -> &'static str {
        self.protocol.name
    }

    pub fn encoder(&self) -> Box<dyn Encode + Send + Sync> {
        (self.protocol.encoder)(self)
    }

    fn value(&self, name: &str) -> Option<&OptionValue> {
        debug_assert!(
            self.protocol
                .options
                .iter()
                .any(|option| option.name == name),
            "the {} encoder reads an option it does not declare: {name}",
            self.protocol.name
        );
        self.given
            .iter()
            .find(|(given, _)| *given == name)
            .map(|(_, value)| value)
    }

    /// A str option: `None` when not given, `Some(None)` when given as none.
    pub fn str(&self, name: &str) -> Option<Option<String>> {
        match self.value(name)? {
            OptionValue::Str(text) => Some(Some(text.clone())),
            _ => Some(None),
        }
    }

    /// An int option: `None` when not given, `Some(None)` when given as none.
    pub fn int(&self, name: &str) -> Option<Option<i64>> {
        match self.value(name)? {
            OptionValue::Int(number) => Some(Some(*number)),
            _ => Some(None),
        }
    }

    /// A bool option: `None` when not given, `Some(None)` when given as none.
    pub fn bool(&self, name: &str) -> Option<Option<bool>> {
        match self.value(name)? {
            OptionValue::Bool(value) => Some(Some(*value)),
            _ => Some(None),
        }
    }

    /// A list option: empty when not given or given as none.
    pub fn str_list(&self, name: &str) -> Vec<String> {
        match self.value(name) {
            Some(OptionValue::StrList(items)) => items.clone(),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_protocol_has_a_unique_name() {
        let mut names: Vec<&str> = names().collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count);
        for name in names {
            assert_eq!(find(name).map(|protocol| protocol.name), Some(name));
        }
        assert!(find("responses").is_none());
    }

    #[test]
    fn each_protocol_builds_its_own_assembler() {
        for protocol in crate::PROTOCOLS {
            let mut assembler = (protocol.assembler)(OnError::Skip, Limits::default());
            assembler.feed(b"data: {\"x\": 1}\n\n").unwrap();
            assembler.close().unwrap();
            assert_eq!(assembler.event_count(), 1);
            let said = assembler
                .errors()
                .last()
                .and_then(|error| error.message.clone())
                .expect("a foreign stream is refused");
            assert!(said.contains(protocol.subject), "{}: {said}", protocol.name);
        }
    }

    #[test]
    fn options_are_checked_as_the_pure_backend_checks_them() {
        let agentscope = find("agentscope").unwrap();
        let err = EncoderOptions::parse(
            agentscope,
            [
                ("zeta".to_owned(), OptionValue::None),
                ("model".to_owned(), OptionValue::None),
            ],
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "the agentscope encoder takes no option 'model' (it takes session_id, response_id, created_at)"
        );
        let err =
            EncoderOptions::parse(agentscope, [("session_id".to_owned(), OptionValue::Int(1))])
                .unwrap_err();
        assert_eq!(err.to_string(), "session_id must be str or None, not int");
        let err = EncoderOptions::parse(
            agentscope,
            [("created_at".to_owned(), OptionValue::IntTooBig)],
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "created_at does not fit in 64 bits");
        let options = EncoderOptions::parse(
            agentscope,
            [
                ("session_id".to_owned(), "s".into()),
                ("created_at".to_owned(), OptionValue::None),
            ],
        )
        .unwrap();
        assert_eq!(options.str("session_id"), Some(Some("s".to_owned())));
        assert_eq!(options.int("created_at"), Some(None));
        assert_eq!(options.str("response_id"), None);
    }

    #[test]
    fn a_bool_option_takes_a_bool_or_none() {
        let (protocol, option) = crate::PROTOCOLS
            .iter()
            .find_map(|protocol| {
                let option = protocol
                    .options
                    .iter()
                    .find(|o| o.kind == OptionKind::Bool)?;
                Some((*protocol, option.name))
            })
            .expect("an encoder takes a bool option");
        let given = |value| EncoderOptions::parse(protocol, [(option.to_owned(), value)]);
        let err = given(OptionValue::Int(0)).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("{option} must be bool or None, not int")
        );
        assert_eq!(
            given(OptionValue::Bool(false)).unwrap().bool(option),
            Some(Some(false))
        );
        assert_eq!(given(OptionValue::None).unwrap().bool(option), Some(None));
        assert_eq!(EncoderOptions::defaults(protocol).bool(option), None);
    }
}
