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

/// Inputs at least this long are worked on with the GIL released: other
/// threads run Python meanwhile (and assemble their own streams in
/// parallel). Measured with `benches/threads.py`: on one thread, releasing
/// and taking the GIL back costs under 1% of the work of a 4 KiB chunk and
/// about 3% of a 1 KiB one; on two threads, 4 KiB chunks gain 1.6-1.75x,
/// 1 KiB ones only 1.2x.
pub const DETACH_MIN_BYTES: usize = 4 * 1024;

/// Like [`with_bytes`], but `f` runs with the GIL released when `obj` is
/// `bytes` of at least [`DETACH_MIN_BYTES`]: `bytes` cannot change while
/// it is read, where another thread could write to a `bytearray`.
pub fn with_bytes_detached<R: Send>(
    obj: &Bound<'_, PyAny>,
    what: &str,
    f: impl FnOnce(&[u8]) -> R + Send,
) -> PyResult<R> {
    if let Ok(bytes) = obj.cast::<PyBytes>() {
        let bytes = bytes.as_bytes();
        if bytes.len() >= DETACH_MIN_BYTES {
            return Ok(obj.py().detach(|| f(bytes)));
        }
        return Ok(f(bytes));
    }
    with_bytes(obj, what, f)
}
