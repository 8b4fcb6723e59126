//! A quick look at a Chat Completions chunk, for the common case: one
//! choice that exists, whose delta appends text (`content`, `refusal`, a
//! provider's `reasoning_content` or `reasoning`) or one tool call's
//! argument fragment. What it cannot settle goes to the full path (see
//! `crate::json_probe`).

use std::borrow::Cow;

use crate::json_probe::{Cursor, Fields, Obj, Result, Scalar, StrField};

#[derive(Debug, Default, PartialEq)]
pub struct Chunk<'a> {
    pub object: Option<StrField<'a>>,
    pub choices: Option<Obj<Choice<'a>>>,
    pub usage: Option<Scalar<'a>>,
    pub moderation: Option<Scalar<'a>>,
    pub system_fingerprint: Option<Scalar<'a>>,
    pub error: Option<Scalar<'a>>,
}

#[derive(Debug, Default, PartialEq)]
pub struct Choice<'a> {
    pub index: Option<Scalar<'a>>,
    pub delta: Option<Obj<Delta<'a>>>,
    pub finish_reason: Option<Scalar<'a>>,
    pub logprobs: Option<Scalar<'a>>,
}

/// The delta's fields a quick path applies; `other` when it has any more.
#[derive(Debug, Default, PartialEq)]
pub struct Delta<'a> {
    pub role: Option<Scalar<'a>>,
    /// `content`, `refusal`, `reasoning_content`, `reasoning`, in that order.
    pub texts: [Option<Scalar<'a>>; 4],
    pub tool_calls: Option<Obj<ToolCall<'a>>>,
    pub other: bool,
}

/// The delta keys that append text, in the order of [`Delta::texts`].
pub const TEXT_KEYS: [&str; 4] = ["content", "refusal", "reasoning_content", "reasoning"];

#[derive(Debug, Default, PartialEq)]
pub struct ToolCall<'a> {
    pub index: Option<Scalar<'a>>,
    pub function: Option<Obj<Function<'a>>>,
    pub other: bool,
}

#[derive(Debug, Default, PartialEq)]
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

    /// Probes a chunk's text: `None` when it is not a JSON object. A delta
    /// in the layout OpenAI's API and the servers modelled on it write is
    /// read literal by literal; anything else in general.
    pub fn read(text: &'a str) -> Option<Chunk<'a>> {
        Chunk::read_layout(text).or_else(|| Chunk::parse(text))
    }

    /// A chunk as the API writes it (`id`, `object`, `created`, `model`,
    /// maybe `service_tier` and `system_fingerprint`, then one choice: its
    /// `index`, a `delta` of one text key or one tool call's argument
    /// fragment, maybe `logprobs` and `finish_reason`; no white space), read
    /// literal by literal up to the choice's end; the rest through the
    /// general loop. `None` for any other text.
    fn read_layout(text: &'a str) -> Option<Chunk<'a>> {
        let mut cursor = Cursor::new(text);
        let mut chunk = Chunk::default();
        cursor.open_object().then_some(())?;
        // The header: what the general reading skips, checked the same way.
        cursor.expect(br#""id":"#)?;
        cursor.skip().ok()?;
        cursor.expect(br#","object":"chat.completion.chunk","created":"#)?;
        chunk.object = Some(StrField::Str(Cow::Borrowed("chat.completion.chunk")));
        cursor.skip().ok()?;
        cursor.expect(br#","model":"#)?;
        cursor.skip().ok()?;
        if cursor.expect(br#","service_tier":"#).is_some() {
            cursor.skip().ok()?;
        }
        if cursor.expect(br#","system_fingerprint":"#).is_some() {
            chunk.system_fingerprint = Some(cursor.scalar().ok()?);
        }
        cursor.expect(br#","choices":"#)?;
        cursor.open_nested(b'[')?;
        cursor.open_nested(b'{')?;
        let mut choice = Choice::default();
        cursor.expect(br#""index":"#)?;
        choice.index = Some(match cursor.digit() {
            Some(index) => index,
            None => cursor.scalar().ok()?,
        });
        cursor.expect(br#","delta":"#)?;
        cursor.open_nested(b'{')?;
        let mut delta = Delta::default();
        if cursor.expect(br#""content":"#).is_some() {
            delta.texts[0] = Some(cursor.scalar().ok()?);
        } else if cursor.expect(br#""reasoning_content":"#).is_some() {
            delta.texts[2] = Some(cursor.scalar().ok()?);
        } else if cursor.expect(br#""tool_calls":"#).is_some() {
            delta.tool_calls = Some(Obj(Some(Self::read_call_layout(&mut cursor)?)));
        } else if cursor.expect(br#""reasoning":"#).is_some() {
            delta.texts[3] = Some(cursor.scalar().ok()?);
        } else if cursor.expect(br#""refusal":"#).is_some() {
            delta.texts[1] = Some(cursor.scalar().ok()?);
        } else {
            return None;
        }
        cursor.close_nested(b'}')?;
        choice.delta = Some(Obj(Some(delta)));
        if cursor
            .expect(br#","logprobs":null,"finish_reason":null}"#)
            .is_some()
        {
            choice.logprobs = Some(Scalar::Null);
            choice.finish_reason = Some(Scalar::Null);
        } else {
            cursor.finish_nested(&mut choice)?;
        }
        cursor.close_nested(b']')?;
        chunk.choices = Some(Obj(Some(choice)));
        cursor.finish_object(&mut chunk).then_some(chunk)
    }

    /// The one tool call of a delta, as the API writes an argument
    /// fragment: `[{"index":N,"function":{"arguments":"..."}}]`.
    fn read_call_layout(cursor: &mut Cursor<'a>) -> Option<ToolCall<'a>> {
        let mut call = ToolCall::default();
        cursor.open_nested(b'[')?;
        cursor.open_nested(b'{')?;
        cursor.expect(br#""index":"#)?;
        call.index = Some(match cursor.digit() {
            Some(index) => index,
            None => cursor.scalar().ok()?,
        });
        cursor.expect(br#","function":"#)?;
        cursor.open_nested(b'{')?;
        cursor.expect(br#""arguments":"#)?;
        let function = Function {
            arguments: Some(cursor.scalar().ok()?),
            other: false,
        };
        cursor.close_nested(b'}')?;
        cursor.close_nested(b'}')?;
        cursor.close_nested(b']')?;
        call.function = Some(Obj(Some(function)));
        Some(call)
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

    const CONTENT: &str = r#"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1763700000,"model":"m","choices":[{"index":0,"delta":{"content":" the \"agent\""},"logprobs":null,"finish_reason":null}]}"#;
    const REASONING: &str = r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","service_tier":"default","system_fingerprint":"fp","choices":[{"index":0,"delta":{"reasoning_content":"h\u00e9"},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"x"}"#;
    const ARGUMENTS: &str = r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"city\": \"Pa"}}]}}]}"#;

    #[test]
    fn the_layout_reading_is_the_general_one() {
        for text in [CONTENT, REASONING, ARGUMENTS] {
            assert!(Chunk::read_layout(text).is_some(), "{text}");
            assert_eq!(Chunk::read(text), Chunk::parse(text), "{text}");
        }
        for key in ["refusal", "reasoning"] {
            let text = CONTENT.replace("content", key);
            assert!(Chunk::read_layout(&text).is_some(), "{text}");
            assert_eq!(Chunk::read(&text), Chunk::parse(&text), "{text}");
        }
        // Off the layout: white space, another order, more in the delta or
        // the choice, repeated keys, values of other kinds, trailing text.
        for text in [
            r#"{"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [{"index": 0, "delta": {"content": "a"}}]}"#,
            r#"{"object":"chat.completion.chunk","id":"c","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"}}]}"#,
            r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"a"}}]}"#,
            r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a","content":"b"}}]}"#,
            r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop","logprobs":null}]}"#,
            r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"},"delta":{}}]}"#,
            r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"}},{"index":1,"delta":{}}]}"#,
            r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"}}],"choices":[]}"#,
            r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"x","function":{"arguments":""}}]}}]}"#,
            r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"a"}},{"index":1}]}}]}"#,
            r#"{"id":"c","object":"chat.completion.chunk","created":1.5,"model":7,"system_fingerprint":[],"choices":[{"index":"0","delta":{"content":5}}]}"#,
            r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"}}]} x"#,
        ] {
            assert_eq!(Chunk::read(text), Chunk::parse(text), "{text}");
        }
    }

    /// Every one-byte mutation of a canonical chunk: the layout reading and
    /// the general one agree, field for field.
    #[test]
    fn the_layout_reading_agrees_on_mutations() {
        crate::json_probe::each_mutation(&[CONTENT, REASONING, ARGUMENTS], |text| {
            assert_eq!(Chunk::read(text), Chunk::parse(text), "{text}")
        });
    }

    #[test]
    fn nesting_is_counted_as_in_general() {
        // The choice's tail read in general after the layout's nested opens:
        // the depth limit holds there as everywhere.
        let deep = "[".repeat(130) + &"]".repeat(130);
        let text = format!(
            r#"{{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{{"index":0,"delta":{{"content":"a"}},"x":{deep}}}]}}"#
        );
        assert!(Chunk::read(&text).is_none());
        assert!(Chunk::parse(&text).is_none());
        let fits = "[".repeat(124) + &"]".repeat(124);
        let text = text.replace(&deep, &fits);
        assert!(Chunk::read_layout(&text).is_some());
        assert_eq!(Chunk::read(&text), Chunk::parse(&text));
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
