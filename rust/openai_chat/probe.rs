//! A quick look at a Chat Completions chunk, for the common case: one
//! choice that exists, whose delta appends text (`content`, `refusal`, a
//! provider's `reasoning_content` or `reasoning`) or one tool call's
//! argument fragment. What it cannot settle goes to the full path (see
//! `crate::json_probe`).

use crate::json_probe::{Cursor, Fields, Obj, Result, Scalar, StrField};

#[derive(Debug, Default)]
pub struct Chunk<'a> {
    pub object: Option<StrField<'a>>,
    pub choices: Option<Obj<Choice<'a>>>,
    pub usage: Option<Scalar<'a>>,
    pub moderation: Option<Scalar<'a>>,
    pub system_fingerprint: Option<Scalar<'a>>,
    pub error: Option<Scalar<'a>>,
}

#[derive(Debug, Default)]
pub struct Choice<'a> {
    pub index: Option<Scalar<'a>>,
    pub delta: Option<Obj<Delta<'a>>>,
    pub finish_reason: Option<Scalar<'a>>,
    pub logprobs: Option<Scalar<'a>>,
}

/// The delta's fields a quick path applies; `other` when it has any more.
#[derive(Debug, Default)]
pub struct Delta<'a> {
    pub role: Option<Scalar<'a>>,
    /// `content`, `refusal`, `reasoning_content`, `reasoning`, in that order.
    pub texts: [Option<Scalar<'a>>; 4],
    pub tool_calls: Option<Obj<ToolCall<'a>>>,
    pub other: bool,
}

/// The delta keys that append text, in the order of [`Delta::texts`].
pub const TEXT_KEYS: [&str; 4] = ["content", "refusal", "reasoning_content", "reasoning"];

#[derive(Debug, Default)]
pub struct ToolCall<'a> {
    pub index: Option<Scalar<'a>>,
    pub function: Option<Obj<Function<'a>>>,
    pub other: bool,
}

#[derive(Debug, Default)]
pub struct Function<'a> {
    pub arguments: Option<Scalar<'a>>,
    pub other: bool,
}

impl<'a> Fields<'a> for Chunk<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"object" => self.object = Some(cursor.str_field()?),
            b"choices" => cursor.sole_object_into(&mut self.choices)?,
            b"usage" => self.usage = Some(cursor.scalar()?),
            b"moderation" => self.moderation = Some(cursor.scalar()?),
            b"system_fingerprint" => self.system_fingerprint = Some(cursor.scalar()?),
            b"error" => self.error = Some(cursor.scalar()?),
            _ => cursor.skip()?,
        });
        Ok(())
    }
}

impl<'a> Fields<'a> for Choice<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"index" => self.index = Some(cursor.scalar()?),
            b"delta" => cursor.object_into(&mut self.delta)?,
            b"finish_reason" => self.finish_reason = Some(cursor.scalar()?),
            b"logprobs" => self.logprobs = Some(cursor.scalar()?),
            _ => cursor.skip()?,
        });
        Ok(())
    }
}

impl<'a> Fields<'a> for Delta<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"content" => self.texts[0] = Some(cursor.scalar()?),
            b"role" => self.role = Some(cursor.scalar()?),
            b"refusal" => self.texts[1] = Some(cursor.scalar()?),
            b"reasoning_content" => self.texts[2] = Some(cursor.scalar()?),
            b"reasoning" => self.texts[3] = Some(cursor.scalar()?),
            b"tool_calls" => cursor.sole_object_into(&mut self.tool_calls)?,
            _ => {
                self.other = true;
                cursor.skip()?
            },
        });
        Ok(())
    }
}

impl<'a> Fields<'a> for ToolCall<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"index" => self.index = Some(cursor.scalar()?),
            b"function" => cursor.object_into(&mut self.function)?,
            _ => {
                self.other = true;
                cursor.skip()?
            },
        });
        Ok(())
    }
}

impl<'a> Fields<'a> for Function<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"arguments" => self.arguments = Some(cursor.scalar()?),
            _ => {
                self.other = true;
                cursor.skip()?
            },
        });
        Ok(())
    }
}

impl<'a> Chunk<'a> {
    /// Probes a chunk's text: `None` when it is not a JSON object (the full
    /// path then reports it).
    pub fn parse(text: &'a str) -> Option<Chunk<'a>> {
        Cursor::parse_object(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_content_delta() {
        let text = r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"content":"Hi"},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"x"}"#;
        let chunk = Chunk::parse(text).unwrap();
        assert_eq!(
            chunk.object.unwrap().as_str(),
            Some("chat.completion.chunk")
        );
        assert_eq!(chunk.usage, Some(Scalar::Null));
        let choice = chunk.choices.unwrap().0.unwrap();
        assert_eq!(choice.index.unwrap().as_i64(), Some(0));
        let delta = choice.delta.unwrap().0.unwrap();
        assert_eq!(delta.texts[0].as_ref().unwrap().as_str(), Some("Hi"));
        assert!(!delta.other);
    }

    #[test]
    fn reads_a_tool_call_fragment() {
        let text = r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"a\""}}]}}]}"#;
        let chunk = Chunk::parse(text).unwrap();
        let delta = chunk.choices.unwrap().0.unwrap().delta.unwrap().0.unwrap();
        let call = delta.tool_calls.unwrap().0.unwrap();
        assert_eq!(call.index.unwrap().as_i64(), Some(1));
        let function = call.function.unwrap().0.unwrap();
        assert_eq!(function.arguments.unwrap().as_str(), Some("{\"a\""));
    }

    #[test]
    fn only_a_sole_object_is_read() {
        for choices in ["[]", "[1]", "[{},{}]", "{}", "null", "[{}, 2]"] {
            let text = format!(r#"{{"choices":{choices}}}"#);
            let chunk = Chunk::parse(&text).unwrap();
            assert!(chunk.choices.unwrap().0.is_none(), "{choices}");
        }
        assert!(Chunk::parse(r#"{"choices":[{},]}"#).is_none());
        assert!(Chunk::parse(r#"{"choices":[{}"#).is_none());
    }
}
