//! A quick look at a Gemini record, for the common case: one candidate's
//! piece of text (`candidates[0].content.parts[0].text`) in a record of no
//! other fields than its model, id, time and running usage. What it cannot
//! settle goes to the full path (see `crate::json_probe`).

use crate::json_probe::{Cursor, Fields, Obj, Result, Scalar};

#[derive(Debug, Default, PartialEq)]
pub struct Record<'a> {
    pub candidates: Option<Obj<Candidate<'a>>>,
    pub model_version: Option<Scalar<'a>>,
    pub response_id: Option<Scalar<'a>>,
    pub create_time: Option<Scalar<'a>>,
    /// `usageMetadata` as written, parsed only when the record is taken.
    pub usage: Option<&'a str>,
    /// A field of any other name.
    pub other: bool,
}

#[derive(Debug, Default, PartialEq)]
pub struct Candidate<'a> {
    pub content: Option<Obj<Content<'a>>>,
    pub index: Option<Scalar<'a>>,
    pub other: bool,
}

#[derive(Debug, Default, PartialEq)]
pub struct Content<'a> {
    pub parts: Option<Obj<Part<'a>>>,
    pub role: Option<Scalar<'a>>,
    pub other: bool,
}

/// A part that is text alone; `other` when it has any more fields (a
/// signature too).
#[derive(Debug, Default, PartialEq)]
pub struct Part<'a> {
    pub text: Option<Scalar<'a>>,
    pub thought: Option<Scalar<'a>>,
    pub other: bool,
}

impl<'a> Fields<'a> for Record<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"candidates" => cursor.sole_object_into(&mut self.candidates)?,
            b"usageMetadata" => self.usage = Some(cursor.raw()?),
            b"modelVersion" => self.model_version = Some(cursor.scalar()?),
            b"responseId" => self.response_id = Some(cursor.scalar()?),
            b"createTime" => self.create_time = Some(cursor.scalar()?),
            _ => {
                self.other = true;
                cursor.skip()?
            },
        });
        Ok(())
    }
}

impl<'a> Fields<'a> for Candidate<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"content" => cursor.object_into(&mut self.content)?,
            b"index" => self.index = Some(cursor.scalar()?),
            _ => {
                self.other = true;
                cursor.skip()?
            },
        });
        Ok(())
    }
}

impl<'a> Fields<'a> for Content<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"parts" => cursor.sole_object_into(&mut self.parts)?,
            b"role" => self.role = Some(cursor.scalar()?),
            _ => {
                self.other = true;
                cursor.skip()?
            },
        });
        Ok(())
    }
}

impl<'a> Fields<'a> for Part<'a> {
    fn field(&mut self, key: &str, cursor: &mut Cursor<'a>) -> Result<()> {
        crate::match_key!(key, {
            b"text" => self.text = Some(cursor.scalar()?),
            b"thought" => self.thought = Some(cursor.scalar()?),
            _ => {
                self.other = true;
                cursor.skip()?
            },
        });
        Ok(())
    }
}

impl<'a> Record<'a> {
    /// Probes a record's text: `None` when it is not a JSON object (the
    /// full path then reports it).
    pub fn parse(text: &'a str) -> Option<Record<'a>> {
        Cursor::parse_object(text)
    }

    /// Probes a record's text: `None` when it is not a JSON object. A piece
    /// in the layout the API writes is read literal by literal; anything
    /// else in general.
    pub fn read(text: &'a str) -> Option<Record<'a>> {
        Record::read_layout(text).or_else(|| Record::parse(text))
    }

    /// A record as the API writes a piece (one candidate: its `content` of
    /// one part, `text` and maybe `thought`, and `role`, then its `index`;
    /// then maybe `usageMetadata`, `modelVersion`, `responseId`; no white
    /// space), read literal by literal; the rest of each object through the
    /// general loop. `None` for any other text.
    fn read_layout(text: &'a str) -> Option<Record<'a>> {
        let mut cursor = Cursor::new(text);
        let mut record = Record::default();
        cursor.open_object().then_some(())?;
        cursor.expect(br#""candidates":"#)?;
        cursor.open_nested(b'[')?;
        cursor.open_nested(b'{')?;
        let mut candidate = Candidate::default();
        cursor.expect(br#""content":"#)?;
        cursor.open_nested(b'{')?;
        let mut content = Content::default();
        cursor.expect(br#""parts":"#)?;
        cursor.open_nested(b'[')?;
        cursor.open_nested(b'{')?;
        let mut part = Part::default();
        cursor.expect(br#""text":"#)?;
        part.text = Some(cursor.scalar().ok()?);
        if cursor.expect(br#","thought":"#).is_some() {
            part.thought = Some(cursor.scalar().ok()?);
        }
        cursor.finish_nested(&mut part)?;
        cursor.close_nested(b']')?;
        content.parts = Some(Obj(Some(part)));
        if cursor.expect(br#","role":"#).is_some() {
            content.role = Some(cursor.scalar().ok()?);
        }
        cursor.finish_nested(&mut content)?;
        candidate.content = Some(Obj(Some(content)));
        if cursor.expect(br#","index":"#).is_some() {
            candidate.index = Some(match cursor.digit() {
                Some(index) => index,
                None => cursor.scalar().ok()?,
            });
        }
        cursor.finish_nested(&mut candidate)?;
        cursor.close_nested(b']')?;
        record.candidates = Some(Obj(Some(candidate)));
        if cursor.expect(br#","usageMetadata":"#).is_some() {
            record.usage = Some(cursor.raw().ok()?);
        }
        if cursor.expect(br#","modelVersion":"#).is_some() {
            record.model_version = Some(cursor.scalar().ok()?);
        }
        if cursor.expect(br#","responseId":"#).is_some() {
            record.response_id = Some(cursor.scalar().ok()?);
        }
        cursor.finish_object(&mut record).then_some(record)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"{"candidates":[{"content":{"parts":[{"text":" the \"agent\""}],"role":"model"},"index":0}],"modelVersion":"gemini-2.5-flash","responseId":"r"}"#;
    const THOUGHT: &str = r#"{"candidates":[{"content":{"parts":[{"text":"h\u00e9","thought":true}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":12,"promptTokensDetails":[{"modality":"TEXT","tokenCount":12}]},"modelVersion":"m","responseId":"r"}"#;
    const LAST: &str = r#"{"candidates":[{"content":{"parts":[{"text":"."}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"totalTokenCount":5},"modelVersion":"m","responseId":"r"}"#;

    #[test]
    fn the_layout_reading_is_the_general_one() {
        for text in [TEXT, THOUGHT, LAST] {
            assert!(Record::read_layout(text).is_some(), "{text}");
            assert_eq!(Record::read(text), Record::parse(text), "{text}");
        }
        // Off the layout: white space, another order, two candidates or
        // parts, more fields, repeated keys, values of other kinds, trailing
        // text.
        for text in [
            r#"{"candidates": [{"content": {"parts": [{"text": "a"}],"role": "model"},"index": 0}]}"#,
            r#"{"modelVersion":"m","candidates":[{"content":{"parts":[{"text":"a"}],"role":"model"},"index":0}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"a"}],"role":"model"},"index":0},{"index":1}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"a"},{"text":"b"}],"role":"model"},"index":0}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"a","thoughtSignature":"s"}],"role":"model"},"index":0}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"a","text":"b"}],"role":"model","parts":[]},"index":0,"index":1}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"a"}],"role":"model"},"index":0}],"candidates":null,"error":{}}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":1,"thought":"x"}],"role":2},"index":"0"}],"usageMetadata":[],"modelVersion":3}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"a"}],"role":"model"},"index":0}]} x"#,
        ] {
            assert_eq!(Record::read(text), Record::parse(text), "{text}");
        }
    }

    /// Every one-byte mutation of a canonical record: the layout reading and
    /// the general one agree, field for field.
    #[test]
    fn the_layout_reading_agrees_on_mutations() {
        crate::json_probe::each_mutation(&[TEXT, THOUGHT, LAST], |text| {
            assert_eq!(Record::read(text), Record::parse(text), "{text}")
        });
    }

    #[test]
    fn reads_a_text_record() {
        let text = r#"{"candidates":[{"content":{"parts":[{"text":"Hi \u00e9","thought":true}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":9},"modelVersion":"m","responseId":"r"}"#;
        let record = Record::parse(text).unwrap();
        assert_eq!(record.model_version.unwrap().as_str(), Some("m"));
        assert_eq!(record.usage, Some(r#"{"promptTokenCount":9}"#));
        let candidate = record.candidates.unwrap().0.unwrap();
        assert_eq!(candidate.index.unwrap().as_i64(), Some(0));
        let content = candidate.content.unwrap().0.unwrap();
        let part = content.parts.unwrap().0.unwrap();
        assert_eq!(part.text.unwrap().as_str(), Some("Hi é"));
        assert_eq!(part.thought, Some(Scalar::Bool(true)));
        assert!(!part.other && !content.other && !candidate.other && !record.other);
    }

    #[test]
    fn what_it_cannot_settle_is_noticed() {
        let two = r#"{"candidates":[{"index":0},{"index":1}]}"#;
        assert!(Record::parse(two).unwrap().candidates.unwrap().0.is_none());
        let signed =
            r#"{"candidates":[{"content":{"parts":[{"text":"","thoughtSignature":"x"}]}}]}"#;
        let part = Record::parse(signed)
            .unwrap()
            .candidates
            .unwrap()
            .0
            .unwrap();
        assert!(
            part.content
                .unwrap()
                .0
                .unwrap()
                .parts
                .unwrap()
                .0
                .unwrap()
                .other
        );
        assert!(Record::parse(r#"{"error":{"code":1}}"#).unwrap().other);
        assert!(Record::parse(r#"{"candidates":[}"#).is_none());
    }
}
