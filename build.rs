fn main() {
    // Py_3_14, Py_GIL_DISABLED, PyPy, GraalPy, Py_LIMITED_API: what
    // `rust/python/json.rs` checks before reading an object's storage.
    #[cfg(feature = "python")]
    pyo3_build_config::use_pyo3_cfgs();
}
