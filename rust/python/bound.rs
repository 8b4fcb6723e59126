//! `_StrictValidation`: the strict-validation bound of `crate::bound`, for
//! `benches/report.py` to time beside the assemblers, on the same chunks
//! and through the same kind of call (the GIL released for a large chunk,
//! as theirs is). Not part of the API.

use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;

use super::bytes::with_bytes_detached;
use super::guard::Guarded;
use crate::bound::StrictValidation;

/// Frames a protocol's stream as its assembler does and validates each
/// event's JSON, building nothing: what no reader of it can go below.
#[pyclass(frozen, module = "agentcodec", name = "_StrictValidation")]
pub struct StrictValidationBound {
    state: Guarded<StrictValidation>,
}

#[pymethods]
impl StrictValidationBound {
    #[new]
    fn new(protocol: &str) -> PyResult<Self> {
        let descriptor = crate::registry::find(protocol)
            .ok_or_else(|| PyKeyError::new_err(format!("unknown protocol {protocol:?}")))?;
        let kind = (descriptor.decoder)().framing();
        Ok(StrictValidationBound {
            state: Guarded::new("_StrictValidation", StrictValidation::new(kind)),
        })
    }

    /// Reads one chunk; an event that is not JSON is a ValueError.
    fn feed(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        self.state.with(py, |reader| {
            with_bytes_detached(data, "_StrictValidation.feed()", |bytes| {
                reader.feed(bytes).map_err(PyValueError::new_err)
            })?
        })
    }

    /// Ends the stream: how many events it held.
    fn close(&self, py: Python<'_>) -> PyResult<u64> {
        self.state
            .with(py, |reader| reader.close().map_err(PyValueError::new_err))
    }
}
