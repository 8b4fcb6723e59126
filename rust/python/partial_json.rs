//! `agentcodec.PartialJSON`: the core's incremental parser building one
//! live Python tree, so that reading the value after every fragment costs
//! the fragment and the leaf being written.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyList, PyString};

use super::bytes::with_bytes;
use super::errors::partial_json_error;
use super::guard::Guarded;
use crate::partial_json::{
    Builder, PartialJson as Parser, PartialJsonError, Pending, Scalar, DEFAULT_MAX_DEPTH,
};

/// The value so far: the top-level value, the open containers and the key
/// each open object's next value goes under.
#[derive(Default)]
struct Tree {
    root: Option<Py<PyAny>>,
    stack: Vec<Py<PyAny>>,
    keys: Vec<Option<Py<PyString>>>,
    /// Whether the leaf being written is shown in the next slot.
    placed: bool,
    /// What the leaf shown in an object replaced under its key (a key given
    /// twice): put back if the leaf is taken back, as jiter keeps it.
    displaced: Option<Py<PyAny>>,
}

struct PyBuilder<'a, 'py> {
    py: Python<'py>,
    tree: &'a mut Tree,
}

fn number<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    if text.bytes().any(|byte| matches!(byte, b'.' | b'e' | b'E')) {
        let value: f64 = text
            .parse()
            .map_err(|_| PyValueError::new_err(format!("invalid number {text:?}")))?;
        return Ok(PyFloat::new(py, value).into_any());
    }
    if let Ok(value) = text.parse::<i64>() {
        return Ok(value.into_pyobject(py)?.into_any());
    }
    if crate::json::is_long_int(text) {
        return Err(PyValueError::new_err(crate::json::LONG_INT));
    }
    super::json::long_int(py, text)
}

impl Tree {
    /// Puts `value` in the next slot, in place of the leaf shown there.
    fn put(&mut self, py: Python<'_>, value: Bound<'_, PyAny>) -> PyResult<()> {
        let placed = std::mem::take(&mut self.placed);
        self.displaced = None;
        let Some(top) = self.stack.last() else {
            self.root = Some(value.unbind());
            return Ok(());
        };
        let top = top.bind(py);
        if let Ok(dict) = top.cast::<PyDict>() {
            let key = self
                .keys
                .last()
                .and_then(Option::as_ref)
                .map(|key| key.clone_ref(py))
                .expect("a key before its value");
            return dict.set_item(key, value);
        }
        let list = top.cast::<PyList>()?;
        if placed {
            list.set_item(list.len() - 1, value)
        } else {
            list.append(value)
        }
    }

    /// Shows the leaf being written in the next slot, or takes back what
    /// was shown there when nothing shows now.
    fn show(&mut self, py: Python<'_>, pending: Option<Pending<'_>>) -> PyResult<()> {
        let leaf = match pending {
            Some(Pending::String(text)) => PyString::new(py, text).into_any(),
            Some(Pending::Number(text)) => match number(py, text) {
                Ok(value) => value,
                Err(_) => return self.take_back(py),
            },
            None => return self.take_back(py),
        };
        // The first time the leaf shows in an object, what its key held.
        let displaced = match (self.placed, self.stack.last(), self.keys.last()) {
            (false, Some(top), Some(Some(key))) => match top.bind(py).cast::<PyDict>() {
                Ok(dict) => dict.get_item(key.bind(py))?.map(Bound::unbind),
                Err(_) => None,
            },
            _ => self.displaced.take(),
        };
        self.put(py, leaf)?;
        self.placed = true;
        self.displaced = displaced;
        Ok(())
    }

    fn take_back(&mut self, py: Python<'_>) -> PyResult<()> {
        if !std::mem::take(&mut self.placed) {
            return Ok(());
        }
        let Some(top) = self.stack.last() else {
            self.root = None;
            return Ok(());
        };
        let top = top.bind(py);
        if let Ok(dict) = top.cast::<PyDict>() {
            if let Some(key) = self
                .keys
                .last()
                .and_then(Option::as_ref)
                .map(|key| key.clone_ref(py))
            {
                if let Some(displaced) = self.displaced.take() {
                    dict.set_item(key, displaced)?;
                } else if dict.contains(&key)? {
                    dict.del_item(key)?;
                }
            }
            return Ok(());
        }
        let list = top.cast::<PyList>()?;
        list.del_item(list.len() - 1)
    }
}

impl Builder for PyBuilder<'_, '_> {
    fn open(&mut self, object: bool) -> Result<(), String> {
        let container = if object {
            PyDict::new(self.py).into_any()
        } else {
            PyList::empty(self.py).into_any()
        };
        self.tree
            .put(self.py, container.clone())
            .map_err(|error| error.to_string())?;
        self.tree.stack.push(container.unbind());
        self.tree.keys.push(None);
        Ok(())
    }

    fn close(&mut self) {
        self.tree.stack.pop();
        self.tree.keys.pop();
    }

    fn key(&mut self, key: &str) -> Result<(), String> {
        if let Some(slot) = self.tree.keys.last_mut() {
            *slot = Some(PyString::new(self.py, key).unbind());
        }
        Ok(())
    }

    fn scalar(&mut self, value: Scalar<'_>) -> Result<(), String> {
        let py = self.py;
        let value = match value {
            Scalar::Null => py.None().into_bound(py),
            Scalar::Bool(flag) => pyo3::types::PyBool::new(py, flag).to_owned().into_any(),
            Scalar::Number(text) => number(py, text).map_err(|error| {
                error
                    .value(py)
                    .str()
                    .map(|text| text.to_string())
                    .unwrap_or_default()
            })?,
            Scalar::String(text) => PyString::new(py, text).into_any(),
        };
        self.tree.put(py, value).map_err(|error| error.to_string())
    }
}

/// The parser and the live Python tree it builds: `PartialJSON`, and each
/// tool call an assembler's `tool_calls` reads.
pub struct LiveJson {
    parser: Parser,
    tree: Tree,
}

impl LiveJson {
    pub fn new(max_depth: usize) -> Self {
        LiveJson {
            parser: Parser::new(max_depth),
            tree: Tree::default(),
        }
    }

    /// Reads the next fragment into the tree.
    pub fn feed(&mut self, py: Python<'_>, bytes: &[u8]) -> Result<(), PartialJsonError> {
        let mut builder = PyBuilder {
            py,
            tree: &mut self.tree,
        };
        self.parser.feed(bytes, &mut builder)
    }

    /// The value so far, the leaf being written shown: None until one has
    /// begun.
    pub fn value(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.tree.show(py, self.parser.pending())?;
        Ok(self
            .tree
            .root
            .as_ref()
            .map_or_else(|| py.None(), |root| root.clone_ref(py)))
    }

    pub fn parser(&self) -> &Parser {
        &self.parser
    }

    /// The text is over: its value, or the error that it is not one.
    pub fn end(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let mut builder = PyBuilder {
            py,
            tree: &mut self.tree,
        };
        self.parser
            .end(&mut builder)
            .map_err(|error| partial_json_error(py, error.offset, &error.reason))?;
        self.value(py)
    }
}

/// Parses a JSON text fed in fragments (`str` or UTF-8 bytes); `value` is
/// the value so far (None before any), `done` whether the text is complete.
#[pyclass(frozen, module = "agentcodec", name = "PartialJSON")]
pub struct PartialJSON {
    state: Guarded<LiveJson>,
}

#[pymethods]
impl PartialJSON {
    #[new]
    #[pyo3(signature = (*, max_depth = None))]
    fn new(max_depth: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let Some(max_depth) = max_depth else {
            return Ok(PartialJSON::from(LiveJson::new(DEFAULT_MAX_DEPTH)));
        };
        let depth = if max_depth.is_instance_of::<pyo3::types::PyBool>() {
            None
        } else {
            max_depth.extract::<i64>().ok().filter(|depth| *depth >= 1)
        };
        let Some(depth) = depth else {
            return Err(PyValueError::new_err(format!(
                "max_depth must be a positive int, not {}",
                max_depth.repr()?
            )));
        };
        Ok(PartialJSON::from(LiveJson::new(
            usize::try_from(depth).unwrap_or(usize::MAX),
        )))
    }

    /// Reads the next fragment of the text.
    fn feed(&self, py: Python<'_>, fragment: &Bound<'_, PyAny>) -> PyResult<()> {
        self.state
            .with(py, |live| feed_fragment(py, live, fragment))
    }

    /// The value so far: None until one has begun.
    #[getter]
    fn value(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.state.with(py, |live| live.value(py))
    }

    /// Ends the text and returns its value; a text that is not one whole
    /// value raises ``PartialJSONError``, as does a fragment fed after.
    fn close(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.state.with(py, |live| live.end(py))
    }

    /// Whether the JSON text is complete (a top-level number is complete
    /// once something follows it, or once the text is closed).
    #[getter]
    fn done(&self, py: Python<'_>) -> PyResult<bool> {
        self.state.with(py, |live| Ok(live.parser.done()))
    }

    /// How many bytes of JSON text were read.
    #[getter]
    fn offset(&self, py: Python<'_>) -> PyResult<usize> {
        self.state.with(py, |live| Ok(live.parser.offset()))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        self.state.with(py, |live| {
            let done = if live.parser.done() { "True" } else { "False" };
            Ok(format!(
                "PartialJSON(offset={}, done={done})",
                live.parser.offset()
            ))
        })
    }
}

impl From<LiveJson> for PartialJSON {
    fn from(live: LiveJson) -> Self {
        PartialJSON {
            state: Guarded::new("PartialJSON", live),
        }
    }
}

/// `PartialJSON.feed(fragment)`: `str` or a bytes-like object of UTF-8.
fn feed_fragment(py: Python<'_>, live: &mut LiveJson, fragment: &Bound<'_, PyAny>) -> PyResult<()> {
    if let Some(error) = live.parser.error() {
        return Err(partial_json_error(py, error.offset, &error.reason));
    }
    if let Ok(text) = fragment.cast::<PyString>() {
        let text = match text.to_str() {
            Ok(text) => text,
            Err(_) => return Err(lone_surrogate(py, live, text)),
        };
        return feed_bytes(py, live, text.as_bytes());
    }
    if !fragment.is_instance_of::<pyo3::types::PyBytes>()
        && !fragment.is_instance_of::<pyo3::types::PyByteArray>()
        && !fragment.is_instance_of::<pyo3::types::PyMemoryView>()
    {
        return Err(PyTypeError::new_err(format!(
            "feed() takes str or bytes, not {}",
            fragment.get_type().name()?
        )));
    }
    with_bytes(fragment, "feed()", |bytes| feed_bytes(py, live, bytes))?
}

fn feed_bytes(py: Python<'_>, live: &mut LiveJson, bytes: &[u8]) -> PyResult<()> {
    live.feed(py, bytes)
        .map_err(|error| partial_json_error(py, error.offset, &error.reason))
}

/// A `str` fragment holding a lone surrogate is no UTF-8 text: refused
/// where the surrogate is, as the pure backend refuses it.
fn lone_surrogate(py: Python<'_>, live: &mut LiveJson, text: &Bound<'_, PyString>) -> PyErr {
    // The text before the first surrogate, as UTF-8.
    let before = (|| -> PyResult<Vec<u8>> {
        let encoded = text.call_method1("encode", ("utf-8", "surrogatepass"))?;
        let bytes: &[u8] = encoded.extract()?;
        let valid =
            std::str::from_utf8(bytes).map_or_else(|error| error.valid_up_to(), |_| bytes.len());
        Ok(bytes[..valid].to_vec())
    })();
    let before = match before {
        Ok(before) => before,
        Err(error) => return error,
    };
    // It is read first: an error there comes first, however the text
    // was cut.
    if let Err(error) = feed_bytes(py, live, &before) {
        return error;
    }
    let error = live.parser.refuse(0, "a lone surrogate");
    partial_json_error(py, error.offset, &error.reason)
}
