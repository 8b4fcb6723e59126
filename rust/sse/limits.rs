//! Size limits that bound the decoder's memory, whatever the stream sends.

use std::fmt;

/// Default for both limits: generous enough for multi-megabyte base64 media
/// events, small enough that a runaway stream cannot exhaust memory.
pub const DEFAULT_MAX_LINE_BYTES: usize = 64 * 1024 * 1024;
pub const DEFAULT_MAX_EVENT_BYTES: usize = 64 * 1024 * 1024;

/// Limits on what the decoder buffers. `None` means unlimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Longest `data`, `event`, `id` or `retry` line, terminator excluded.
    /// Comments and unknown fields are skipped without buffering and are
    /// not limited.
    pub max_line_bytes: Option<usize>,
    /// Largest data an event may carry (its `data` values joined by LF).
    pub max_event_bytes: Option<usize>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_line_bytes: Some(DEFAULT_MAX_LINE_BYTES),
            max_event_bytes: Some(DEFAULT_MAX_EVENT_BYTES),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitKind {
    Line,
    Event,
    /// A line of newline-delimited JSON (`max_line_bytes`).
    JsonLine,
    /// An element of a streamed JSON array (`max_event_bytes`).
    JsonElement,
}

impl LimitKind {
    /// The name of the setting, as users spell it.
    pub fn setting(self) -> &'static str {
        match self {
            LimitKind::Line | LimitKind::JsonLine => "max_line_bytes",
            LimitKind::Event | LimitKind::JsonElement => "max_event_bytes",
        }
    }

    /// Where the offset points: the start of a line, or of an element.
    pub fn unit(self) -> &'static str {
        match self {
            LimitKind::JsonElement => "element",
            _ => "line",
        }
    }

    /// What went past the limit, as messages name it.
    pub fn subject(self) -> &'static str {
        match self {
            LimitKind::Line => "SSE line",
            LimitKind::Event => "SSE event data",
            LimitKind::JsonLine => "NDJSON line",
            LimitKind::JsonElement => "JSON array element",
        }
    }
}

/// A limit was exceeded by the line (or the event's data line) starting at
/// `offset`, counted in bytes from the start of the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitError {
    pub kind: LimitKind,
    pub max_bytes: usize,
    pub offset: u64,
}

impl fmt::Display for LimitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} exceeds {}={} at the {} starting at byte offset {}",
            self.kind.subject(),
            self.kind.setting(),
            self.max_bytes,
            self.kind.unit(),
            self.offset
        )
    }
}

impl std::error::Error for LimitError {}
