//! The AG-UI protocol: assembling its event streams into the run the AG-UI
//! client holds.

mod assembler;
pub mod events;
mod probe;

pub use assembler::{Assembler, Error, ErrorRecord, EventError, OnError, Options};
