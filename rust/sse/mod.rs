//! Server-Sent Events: the incremental decoder and its mirror, the encoder.

mod decoder;
mod encoder;
mod limits;

pub(crate) use decoder::lossy_utf8;
pub use decoder::{Decoder, Event, OwnedEvent};
pub use encoder::{encode_comment, encode_event, encode_head, EncodeError};
pub use limits::{LimitError, LimitKind, Limits, DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_LINE_BYTES};
