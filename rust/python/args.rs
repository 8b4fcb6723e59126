//! Arguments shared by several classes, checked as the pure backend checks them.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt};

use crate::sse::Limits;

/// A size-limit argument: omitted (the default), or the object given, which
/// must be None (no limit) or a non-negative int.
pub enum LimitArg {
    Default,
    Given(Py<PyAny>),
}

impl LimitArg {
    /// The decoder limits from the two arguments.
    pub fn limits(
        py: Python<'_>,
        max_line_bytes: &LimitArg,
        max_event_bytes: &LimitArg,
    ) -> PyResult<Limits> {
        let defaults = Limits::default();
        Ok(Limits {
            max_line_bytes: max_line_bytes.resolve(
                py,
                "max_line_bytes",
                defaults.max_line_bytes,
            )?,
            max_event_bytes: max_event_bytes.resolve(
                py,
                "max_event_bytes",
                defaults.max_event_bytes,
            )?,
        })
    }

    fn resolve(
        &self,
        py: Python<'_>,
        name: &str,
        default: Option<usize>,
    ) -> PyResult<Option<usize>> {
        let value = match self {
            LimitArg::Default => return Ok(default),
            LimitArg::Given(value) => value.bind(py),
        };
        if value.is_none() {
            return Ok(None);
        }
        if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
            return Err(PyTypeError::new_err(format!(
                "{name} must be an int or None"
            )));
        }
        if value.lt(0)? {
            return Err(PyValueError::new_err(format!(
                "{name} must not be negative, got {value}"
            )));
        }
        // More than memory can hold is the same as no limit.
        Ok(Some(value.extract::<usize>().unwrap_or(usize::MAX)))
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for LimitArg {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        Ok(LimitArg::Given(obj.to_owned().unbind()))
    }
}
