//! Converting JSON values between Rust and Python, by the rules of
//! `agentcodec/_pure/json_values.py`.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple, PyType};

use jiter::{FloatMode, PartialMode, PythonParse, StringCacheMode};

use crate::frozen::Rendered;
use crate::json::{Map, Value, MAX_DEPTH};

static PY_INT: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// Reads JSON text an assembler kept (its own writing of a value) into the
/// objects `to_python` makes of the value: jiter builds them straight from
/// the text, several times faster than parsing it into a `Value` first.
const KEPT_JSON: PythonParse = PythonParse {
    allow_inf_nan: false,
    cache_mode: StringCacheMode::Keys,
    partial_mode: PartialMode::Off,
    catch_duplicate_keys: false,
    float_mode: FloatMode::Float,
};

/// A value an assembler read out, as Python objects.
pub fn rendered_to_python<'py>(
    py: Python<'py>,
    rendered: Rendered<'_>,
) -> PyResult<Bound<'py, PyAny>> {
    match rendered {
        Rendered::Value(value) => to_python(py, &value),
        Rendered::Json(text) => match KEPT_JSON.python_parse(py, text.as_bytes()) {
            Ok(value) => Ok(value),
            // What jiter does not read (an integer past what it holds, say)
            // takes the general way.
            Err(_) => to_python(py, &Rendered::Json(text).into_value()),
        },
    }
}

/// A list of values an assembler read out, as Python objects.
pub fn rendered_list<'py>(
    py: Python<'py>,
    values: Vec<Rendered<'_>>,
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for value in values {
        list.append(rendered_to_python(py, value)?)?;
    }
    Ok(list)
}

/// A Python value for `value`: dicts keep their key order; numbers are `int`
/// or `float` exactly as `json.loads` makes them from the same text.
pub fn to_python<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(flag) => PyBool::new(py, *flag).to_owned().into_any(),
        Value::Number(number) => {
            if let Some(int) = number.as_i64() {
                int.into_pyobject(py)?.into_any()
            } else {
                let text = number.as_str();
                if text.bytes().any(|b| matches!(b, b'.' | b'e' | b'E')) {
                    // Correctly rounded, as Python's float() is.
                    let float: f64 = text
                        .parse()
                        .map_err(|_| PyValueError::new_err("bad JSON number"))?;
                    PyFloat::new(py, float).into_any()
                } else {
                    long_int(py, text)?
                }
            }
        }
        Value::String(text) => PyString::new(py, text).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_python(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (key, item) in map {
                dict.set_item(PyString::new(py, key), to_python(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

/// An `int` from its digits (at most `MAX_INT_DIGITS`, which parsing
/// holds). Where the interpreter's own limit was set lower
/// (`sys.set_int_max_str_digits`), built from pieces under it, so that what
/// was assembled stays readable.
pub fn long_int<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    let int_type = PY_INT.get_or_init(py, || py.get_type::<PyInt>().unbind());
    let int_type = int_type.bind(py);
    if let Ok(int) = int_type.call1((text,)) {
        return Ok(int);
    }
    // 18 digits at a time: far under the lowest limit CPython takes (640).
    let (negative, digits) = match text.strip_prefix('-') {
        Some(digits) => (true, digits),
        None => (false, text),
    };
    let mut int = 0u8.into_pyobject(py)?.into_any();
    for piece in digits.as_bytes().chunks(18) {
        let piece = std::str::from_utf8(piece).expect("ASCII digits");
        let scale = 10u64.pow(piece.len() as u32);
        let value: u64 = piece
            .parse()
            .map_err(|_| PyValueError::new_err("bad JSON number"))?;
        int = int.mul(scale)?.add(value)?;
    }
    if negative {
        int.neg()
    } else {
        Ok(int)
    }
}

/// Why a Python value cannot be taken as JSON; the wording matches the
/// pure-Python backend's.
pub struct NotJson(pub String);

/// A JSON value for a Python one: dicts with `str` keys, lists or tuples,
/// `str`, `int`, finite `float`, `bool` and `None`, nested at most
/// `MAX_DEPTH` deep.
pub fn from_python(obj: &Bound<'_, PyAny>) -> Result<Value, NotJson> {
    from_python_at(obj, 0)
}

fn from_python_at(obj: &Bound<'_, PyAny>, depth: usize) -> Result<Value, NotJson> {
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(flag) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(flag.is_true()));
    }
    if let Ok(text) = obj.cast::<PyString>() {
        return match text.to_str() {
            Ok(text) => Ok(Value::String(text.to_owned())),
            Err(_) => Err(NotJson("lone surrogate in a string".to_owned())),
        };
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(int) = obj.extract::<i64>() {
            return Ok(Value::from(int));
        }
        // str() refuses past the interpreter's limit: that is past ours too,
        // unless the limit was raised, which the length then catches.
        let text = match obj.str() {
            Ok(text) => text,
            Err(err) if err.is_instance_of::<PyValueError>(obj.py()) => {
                return Err(NotJson(crate::json::LONG_INT.to_owned()));
            }
            Err(err) => return Err(NotJson(err.to_string())),
        };
        let text = text.to_string_lossy();
        if crate::json::is_long_int(&text) {
            return Err(NotJson(crate::json::LONG_INT.to_owned()));
        }
        return serde_json::from_str(&text)
            .map(Value::Number)
            .map_err(|err| NotJson(err.to_string()));
    }
    if let Ok(float) = obj.cast::<PyFloat>() {
        let value = float.value();
        return serde_json::Number::from_f64(value)
            .map(Value::Number)
            .ok_or_else(|| {
                let repr = float.repr().map(|r| r.to_string()).unwrap_or_default();
                NotJson(format!("{repr} is not valid JSON"))
            });
    }
    let is_container = obj.is_instance_of::<PyDict>()
        || obj.is_instance_of::<PyList>()
        || obj.is_instance_of::<PyTuple>();
    if is_container && depth >= MAX_DEPTH {
        return Err(NotJson(format!("nesting deeper than {MAX_DEPTH}")));
    }
    if let Ok(dict) = obj.cast::<PyDict>() {
        let mut map = Map::new();
        for (key, item) in dict.iter() {
            let Ok(key) = key.cast::<PyString>() else {
                return Err(NotJson(format!(
                    "JSON object keys must be str, not {}",
                    type_name(&key)
                )));
            };
            let key = key
                .to_str()
                .map_err(|_| NotJson("lone surrogate in a string".to_owned()))?;
            map.insert(key.to_owned(), from_python_at(&item, depth + 1)?);
        }
        return Ok(Value::Object(map));
    }
    if let Ok(list) = obj.cast::<PyList>() {
        return list
            .iter()
            .map(|item| from_python_at(&item, depth + 1))
            .collect::<Result<_, _>>()
            .map(Value::Array);
    }
    if let Ok(tuple) = obj.cast::<PyTuple>() {
        return tuple
            .iter()
            .map(|item| from_python_at(&item, depth + 1))
            .collect::<Result<_, _>>()
            .map(Value::Array);
    }
    Err(NotJson(format!("{} is not a JSON value", type_name(obj))))
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|name| name.to_string())
        .unwrap_or_default()
}

/// The UTF-8 of an exact `str`, or [`NotWritten`] for one with a lone
/// surrogate. A compact ASCII string (every key an event has, and most of
/// its values) is its own UTF-8, read where CPython keeps it, as orjson and
/// jiter read it: asking CPython for it cost a quarter of writing a short
/// string. Where that storage is not CPython's to read this way (PyPy,
/// GraalPy, the limited API, 3.14's opaque string flags), CPython is asked.
fn utf8<'a>(text: &'a Bound<'_, PyString>) -> Result<&'a str, NotWritten> {
    #[cfg(not(any(PyPy, GraalPy, Py_LIMITED_API, Py_3_14)))]
    {
        use pyo3::ffi;
        let ptr = text.as_ptr();
        // SAFETY: `ptr` is a live exact `str` for as long as `text` is
        // borrowed; a compact ASCII string's characters are `length` bytes
        // right after its `PyASCIIObject` header, immutable, and ASCII is
        // valid UTF-8.
        unsafe {
            if ffi::PyUnicode_IS_COMPACT_ASCII(ptr) != 0 {
                let data = ptr.cast::<ffi::PyASCIIObject>().add(1).cast::<u8>();
                let len = ffi::PyUnicode_GET_LENGTH(ptr) as usize;
                let bytes = std::slice::from_raw_parts(data, len);
                return Ok(std::str::from_utf8_unchecked(bytes));
            }
        }
    }
    text.to_str().map_err(|_| NotWritten)
}

/// Calls `write` with each key and value of `dict`, in order, stopping at
/// the first error. With the GIL, borrowed from the dict as `PyDict_Next`
/// gives them: nothing `write_python` does runs Python code (it reads exact
/// built-in types only, and allocates nothing the garbage collector tracks
/// but the exception of a value it cannot write, after which it reads no
/// further), so the dict cannot change under it, and PyO3's iterator, which
/// holds a reference to each key and value and checks the dict's size on
/// every step, cost a sixth of writing an event. Free-threaded, where
/// another thread may change the dict, PyO3's iterator is used.
fn for_each_item(
    dict: &Bound<'_, PyDict>,
    mut write: impl FnMut(&Bound<'_, PyAny>, &Bound<'_, PyAny>) -> Result<(), NotWritten>,
) -> Result<(), NotWritten> {
    #[cfg(not(any(Py_GIL_DISABLED, PyPy, GraalPy)))]
    {
        use pyo3::ffi;
        let py = dict.py();
        let mut position: ffi::Py_ssize_t = 0;
        let mut key = std::ptr::null_mut();
        let mut value = std::ptr::null_mut();
        // SAFETY: the GIL is held (`dict` is bound to it) and not released
        // while the dict is read; `PyDict_Next` gives borrowed references,
        // valid while the dict is unchanged, which it is (see above).
        while unsafe { ffi::PyDict_Next(dict.as_ptr(), &mut position, &mut key, &mut value) } != 0 {
            let (key, value) = unsafe {
                (
                    pyo3::Borrowed::from_ptr(py, key),
                    pyo3::Borrowed::from_ptr(py, value),
                )
            };
            write(&key, &value)?;
        }
        Ok(())
    }
    #[cfg(any(Py_GIL_DISABLED, PyPy, GraalPy))]
    {
        for (key, value) in dict.iter() {
            write(&key, &value)?;
        }
        Ok(())
    }
}

/// Why [`write_python`] left a value to `agentcodec._json.dumps`: a type it
/// does not write itself, or a value whose error (a lone surrogate, NaN, a
/// cycle) is the stdlib's to word.
pub struct NotWritten;

/// How deep `write_python` goes before leaving the value to Python, whose
/// writer reports a cycle (which this one cannot tell from depth) in its
/// own words.
const WRITE_DEPTH: usize = 64;

/// Appends `obj` as `agentcodec._json.dumps(obj)` writes it (compact,
/// non-ASCII as is, floats as pydantic writes them), for the exact types
/// events are made of: `dict` with `str` keys, `list`, `tuple`, `str`,
/// `int`, `float`, `bool` and `None`. Anything else, subclasses included
/// (whose `__str__` or iteration may be their own), is [`NotWritten`], and
/// `out` is then to be thrown away.
pub fn write_python(
    out: &mut Vec<u8>,
    obj: &Bound<'_, PyAny>,
    depth: usize,
) -> Result<(), NotWritten> {
    if obj.is_none() {
        out.extend_from_slice(b"null");
    } else if let Ok(text) = obj.cast_exact::<PyString>() {
        crate::json::write_string(out, utf8(text)?);
    } else if let Ok(flag) = obj.cast_exact::<PyBool>() {
        out.extend_from_slice(if flag.is_true() { b"true" } else { b"false" });
    } else if obj.is_exact_instance_of::<PyInt>() {
        crate::json::write_int(out, obj.extract::<i64>().map_err(|_| NotWritten)?);
    } else if let Ok(float) = obj.cast_exact::<PyFloat>() {
        let value = float.value();
        if !value.is_finite() {
            return Err(NotWritten);
        }
        crate::json::write_float(out, value);
    } else if depth >= WRITE_DEPTH {
        return Err(NotWritten);
    } else if let Ok(dict) = obj.cast_exact::<PyDict>() {
        out.push(b'{');
        let mut first = true;
        for_each_item(dict, |key, item| {
            if !first {
                out.push(b',');
            }
            first = false;
            let key = key.cast_exact::<PyString>().map_err(|_| NotWritten)?;
            crate::json::write_string(out, utf8(key)?);
            out.push(b':');
            write_python(out, item, depth + 1)
        })?;
        out.push(b'}');
    } else if let Ok(list) = obj.cast_exact::<PyList>() {
        out.push(b'[');
        for (position, item) in list.iter().enumerate() {
            if position > 0 {
                out.push(b',');
            }
            write_python(out, &item, depth + 1)?;
        }
        out.push(b']');
    } else if let Ok(tuple) = obj.cast_exact::<PyTuple>() {
        out.push(b'[');
        for (position, item) in tuple.iter().enumerate() {
            if position > 0 {
                out.push(b',');
            }
            write_python(out, &item, depth + 1)?;
        }
        out.push(b']');
    } else {
        return Err(NotWritten);
    }
    Ok(())
}
