//! A quick look at a Gemini record, for the common case: one candidate's
//! piece of text (`candidates[0].content.parts[0].text`) in a record of no
//! other fields than its model, id, time and running usage. What it cannot
//! settle goes to the full path (see `crate::json_probe`).

use crate::json_probe::{Cursor, Fields, Obj, Result, Scalar};

#[derive(Debug, Default)]
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

#[derive(Debug, Default)]
pub struct Candidate<'a> {
    pub content: Option<Obj<Content<'a>>>,
    pub index: Option<Scalar<'a>>,
    pub other: bool,
}

#[derive(Debug, Default)]
pub struct Content<'a> {
    pub parts: Option<Obj<Part<'a>>>,
    pub role: Option<Scalar<'a>>,
    pub other: bool,
}

/// A part that is text alone; `other` when it has any more fields (a
/// signature too).
#[derive(Debug, Default)]
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
