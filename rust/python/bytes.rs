//! Borrowing the bytes of any bytes-like Python object without copying.

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

/// Calls `f` with the contents of `obj`: `bytes`, `bytearray`, `memoryview`
/// or anything else exporting a byte buffer.
pub fn with_bytes<R>(
    obj: &Bound<'_, PyAny>,
    what: &str,
    f: impl FnOnce(&[u8]) -> R,
) -> PyResult<R> {
    if let Ok(bytes) = obj.cast::<PyBytes>() {
        return Ok(f(bytes.as_bytes()));
    }
    if obj.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "{what} takes bytes-like data, not str: encode it as UTF-8 first"
        )));
    }
    let buffer = PyBuffer::<u8>::get(obj).map_err(|_| {
        PyTypeError::new_err(format!(
            "{what} takes bytes-like data (bytes, bytearray, memoryview), not {}",
            obj.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    match buffer.as_slice_ptr() {
        // SAFETY: the buffer stays exported (so it cannot be resized or
        // freed) until `buffer` drops after `f` returns, and `f` runs no
        // Python code that could write to it.
        Some(ptr) => Ok(f(unsafe { ptr.as_ref() })),
        None => Ok(f(&buffer.to_vec(obj.py())?)),
    }
}
