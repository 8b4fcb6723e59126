//! Arguments shared by several classes, checked as the pure backend checks them.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyString};

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

    /// The `max_errors` argument: how many error records to keep.
    pub fn max_errors(&self, py: Python<'_>) -> PyResult<Option<usize>> {
        self.resolve(py, "max_errors", Some(crate::stream::DEFAULT_MAX_ERRORS))
    }

    /// The `max_stream_bytes` argument: how many bytes a stream may bring.
    pub fn max_stream_bytes(&self, py: Python<'_>) -> PyResult<Option<u64>> {
        let default = Some(crate::stream::DEFAULT_MAX_STREAM_BYTES as usize);
        Ok(self
            .resolve(py, "max_stream_bytes", default)?
            .map(|max| max as u64))
    }

    /// The `max_messages` argument: how many messages a stream may bring.
    pub fn max_messages(&self, py: Python<'_>) -> PyResult<Option<u64>> {
        let default = Some(crate::stream::DEFAULT_MAX_MESSAGES as usize);
        Ok(self
            .resolve(py, "max_messages", default)?
            .map(|max| max as u64))
    }

    /// The `max_blocks` argument: how many blocks the assembled messages
    /// may hold.
    pub fn max_blocks(&self, py: Python<'_>) -> PyResult<Option<u64>> {
        let default = Some(crate::stream::DEFAULT_MAX_BLOCKS as usize);
        Ok(self
            .resolve(py, "max_blocks", default)?
            .map(|max| max as u64))
    }

    pub(super) fn resolve(
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

/// A `str` argument: omitted (its default), or the object given, which is
/// refused as the pure backend refuses it (`on_error must be str, not int`)
/// rather than with PyO3's message, which does not name the argument.
pub enum StrArg {
    Default(&'static str),
    Given(Py<PyAny>),
}

impl StrArg {
    /// The text given, or the default; `name` is how errors name it.
    pub fn get(&self, py: Python<'_>, name: &str) -> PyResult<String> {
        match self {
            StrArg::Default(text) => Ok((*text).to_owned()),
            StrArg::Given(value) => text_of(value.bind(py), name, "str"),
        }
    }

    /// An optional `str` argument: None is no value.
    pub fn optional(arg: Option<&StrArg>, py: Python<'_>, name: &str) -> PyResult<Option<String>> {
        match arg {
            None => Ok(None),
            Some(StrArg::Default(text)) => Ok(Some((*text).to_owned())),
            Some(StrArg::Given(value)) => text_of(value.bind(py), name, "str or None").map(Some),
        }
    }
}

fn text_of(value: &Bound<'_, PyAny>, name: &str, expected: &str) -> PyResult<String> {
    Ok(str_object(value, name, expected)?.to_str()?.to_owned())
}

/// `value` as a `str`, or the pure backend's error: `{name} must be
/// {expected}, not {type}`.
pub fn str_object<'a, 'py>(
    value: &'a Bound<'py, PyAny>,
    name: &str,
    expected: &str,
) -> PyResult<&'a Bound<'py, PyString>> {
    value.cast::<PyString>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{name} must be {expected}, not {}",
            value
                .get_type()
                .name()
                .map(|name| name.to_string())
                .unwrap_or_default()
        ))
    })
}

impl<'a, 'py> FromPyObject<'a, 'py> for StrArg {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        Ok(StrArg::Given(obj.to_owned().unbind()))
    }
}
