//! One call at a time on an object shared by threads.
//!
//! Python threads can reach one assembler at once: a call that runs Python
//! code mid-way (building an exception, a dict) lets another thread in. Each
//! binding keeps its state in a [`Guarded`], so calls on one object are
//! serialized: a call that finds the state in use waits for it with the GIL
//! released (the holder may need the GIL to finish), and loses nothing. The
//! one call that cannot wait is a nested one on the thread that holds the
//! state (Python code the call ran, such as a debugger or profiler hook or a
//! signal handler, calling the object again): it is refused with a
//! `RuntimeError`, as the pure backend refuses it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError, TryLockError};

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// A binding's mutable state, used by one call at a time.
pub struct Guarded<T> {
    state: Mutex<T>,
    /// The thread whose call holds the state (its token), 0 when none.
    holder: AtomicUsize,
    /// The class's name in Python, for the error a nested call gets.
    class: &'static str,
}

thread_local! {
    static TOKEN: u8 = const { 0 };
}

/// A number unique to the calling thread among the threads alive.
fn thread_token() -> usize {
    TOKEN.with(|token| std::ptr::from_ref(token) as usize)
}

impl<T: Send> Guarded<T> {
    pub fn new(class: &'static str, state: T) -> Self {
        Guarded {
            state: Mutex::new(state),
            holder: AtomicUsize::new(0),
            class,
        }
    }

    /// Runs `call` with the state, once no other call holds it.
    pub fn with<R>(&self, py: Python<'_>, call: impl FnOnce(&mut T) -> PyResult<R>) -> PyResult<R> {
        let mut state = self.lock(py)?;
        let holding = Holding::new(&self.holder);
        let result = call(&mut state);
        drop(holding);
        result
    }

    fn lock(&self, py: Python<'_>) -> PyResult<MutexGuard<'_, T>> {
        loop {
            match self.state.try_lock() {
                Ok(state) => return Ok(state),
                // A call panicked mid-way (a bug, reported to Python as a
                // PanicException): what it assembled before stays readable.
                Err(TryLockError::Poisoned(poisoned)) => {
                    self.state.clear_poison();
                    return Ok(poisoned.into_inner());
                }
                Err(TryLockError::WouldBlock) => {}
            }
            if self.holder.load(Ordering::Relaxed) == thread_token() {
                return Err(PyRuntimeError::new_err(format!(
                    "this {} is already in use by this thread: calls on one object cannot nest",
                    self.class
                )));
            }
            // Wait for the holder with the GIL released, then take the
            // state holding the GIL (a guard cannot cross `detach`).
            py.detach(|| drop(self.state.lock().unwrap_or_else(PoisonError::into_inner)));
        }
    }
}

/// Marks the state held by this thread for as long as it lives (a panic
/// included).
struct Holding<'a>(&'a AtomicUsize);

impl<'a> Holding<'a> {
    fn new(holder: &'a AtomicUsize) -> Self {
        holder.store(thread_token(), Ordering::Relaxed);
        Holding(holder)
    }
}

impl Drop for Holding<'_> {
    fn drop(&mut self) {
        self.0.store(0, Ordering::Relaxed);
    }
}
