//! What every protocol assembler shares: SSE framing, counting events, the
//! error policy, and the backlog that keeps the events that followed a
//! failure, so that an error never loses input. A protocol only says what
//! one event does ([`Protocol`]).

use std::collections::VecDeque;
use std::fmt;

use crate::eventstream::FrameError;
use crate::framing::{Framing, FramingError, Kind};
use crate::json::{Map, Value};
use crate::sse::{LimitError, Limits};

/// Whether an event's text is the `[DONE]` sentinel some servers end with
/// (ASCII white space around it allowed, as in the pure backend).
#[inline]
pub fn is_done_marker(text: &str) -> bool {
    // An event's JSON object settles it at the first byte: every event
    // asks, so it must not cost a trim.
    text.as_bytes().first() != Some(&b'{') && trim_white_space(text) == "[DONE]"
}

fn trim_white_space(text: &str) -> &str {
    text.trim_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c'])
}

/// Whether an event's text is empty or white space: a keep-alive some
/// servers send as `data:` with nothing after it, never a protocol's event.
pub fn is_blank(text: &str) -> bool {
    trim_white_space(text).is_empty()
}

/// What an event that cannot be used does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnError {
    /// Stop with an error; the events after it wait for the next call.
    Raise,
    /// Skip it and record it in the errors.
    Skip,
}

/// What an assembler takes that every protocol shares: the error policy and
/// the SSE limits. (Protocols with more to say have their own options.)
#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub on_error: OnError,
    pub limits: Limits,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            on_error: OnError::Raise,
            limits: Limits::default(),
        }
    }
}

/// One event of the stream could not be used: `event` counts from 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventError {
    /// How the protocol names its events, e.g. "AgentScope event".
    pub subject: &'static str,
    pub event: u64,
    pub problem: String,
}

impl fmt::Display for EventError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.subject, self.event, self.problem)
    }
}

/// The stream went past one of the assembler's own limits
/// (`max_stream_bytes`, `max_messages`, `max_blocks`) at event `event`: the
/// assembler takes no more input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exceeded {
    pub subject: &'static str,
    pub event: u64,
    /// The setting, as users spell it.
    pub limit: &'static str,
    pub maximum: u64,
    /// How the event went past it.
    pub detail: String,
}

impl fmt::Display for Exceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} exceeds {}={}: {}; the assembler takes no more input",
            self.subject, self.event, self.limit, self.maximum, self.detail
        )
    }
}

/// The stream ended without one event of the protocol: it was another
/// protocol's, or a body that is no stream (a JSON answer to a request that
/// did not ask to stream).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unrecognized {
    /// How the protocol names its events, e.g. "AgentScope event".
    pub subject: &'static str,
    /// The events the stream held.
    pub events: u64,
}

impl fmt::Display for Unrecognized {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.events {
            0 => write!(f, "the stream held no {}: it held no events", self.subject),
            1 => write!(
                f,
                "the stream held no {}: its one event is not one",
                self.subject
            ),
            events => write!(
                f,
                "the stream held no {}: none of its {events} events is one",
                self.subject
            ),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The SSE framing exceeded a size limit.
    Limit(LimitError),
    /// A message of a binary framing (the AWS event stream) cannot be read.
    Frame(FrameError),
    /// The stream went past a limit of the assembler's.
    Exceeded(Exceeded),
    /// An event could not be used.
    Event(EventError),
    /// Input after `close()`: what was closed, as users name it (the
    /// assembler, the Transcoder, ...).
    Closed(&'static str),
    /// At `close()`: no event of the protocol came.
    Unrecognized(Unrecognized),
    /// A conversion told to fail on a loss (`on_loss="error"`) lost
    /// something: the source's event, and what its target could not carry.
    Loss(u64, crate::events::Loss),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Limit(err) => err.fmt(f),
            Error::Frame(err) => err.fmt(f),
            Error::Exceeded(err) => err.fmt(f),
            Error::Event(err) => err.fmt(f),
            Error::Closed(what) => write!(f, "the {what} is closed"),
            Error::Unrecognized(err) => err.fmt(f),
            Error::Loss(event, loss) => write!(f, "event {event}: {}", loss.why),
        }
    }
}

impl std::error::Error for Error {}

impl From<FramingError> for Error {
    fn from(err: FramingError) -> Self {
        match err {
            FramingError::Limit(err) => Error::Limit(err),
            FramingError::Frame(err) => Error::Frame(err),
        }
    }
}

/// An event skipped, or an error the stream itself reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorRecord {
    pub event: u64,
    pub code: String,
    pub message: Option<String>,
}

/// How many error records an assembler keeps unless told otherwise: a
/// stream of junk skipped with [`OnError::Skip`] must not grow memory
/// without bound. Every error is still counted.
pub const DEFAULT_MAX_ERRORS: usize = 1000;

/// How many bytes one stream may bring an assembler unless told otherwise:
/// everything it holds comes from them, so this bounds its memory (at
/// worst some ten times over, for a stream of tiny content blocks). Twice
/// the largest stream the benchmarks assemble, five 50 MB images.
pub const DEFAULT_MAX_STREAM_BYTES: u64 = 1 << 28;

/// How many messages one stream may bring an assembler unless told
/// otherwise: each costs a few hundred bytes of bookkeeping whatever its
/// size, so a stream of tiny messages needs a count of its own.
pub const DEFAULT_MAX_MESSAGES: u64 = 100_000;

/// How many blocks (content parts, tool calls) one stream's assembled
/// messages may hold unless told otherwise: like a message, each costs a
/// few hundred bytes of maps whatever its size, so that a stream of tiny
/// ones could make an assembler hold ten times what it brought. Five a
/// message at `max_messages`.
pub const DEFAULT_MAX_BLOCKS: u64 = 500_000;

/// What a stream has brought, against `max_stream_bytes`: the data of its
/// events (fed as SSE or text; events given decoded are the caller's own),
/// and what JSON Patch `copy` operations duplicate (measured by
/// [`crate::json::measure`]), the one way a small event can make the state
/// grow by more than its own size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// `u64::MAX`: no limit (one comparison an event either way).
    max: u64,
    pub used: u64,
}

impl Budget {
    pub fn new(max: Option<u64>) -> Budget {
        Budget {
            max: max.unwrap_or(u64::MAX),
            used: 0,
        }
    }

    /// No limit.
    pub fn unlimited() -> Budget {
        Budget::new(None)
    }

    /// The limit, `None` for none.
    pub fn max(&self) -> Option<u64> {
        (self.max != u64::MAX).then_some(self.max)
    }

    pub fn set_max(&mut self, max: Option<u64>) {
        self.max = max.unwrap_or(u64::MAX);
    }

    /// Whether `bytes` more stay within the limit.
    #[inline]
    pub fn allows(&self, bytes: u64) -> bool {
        self.used.saturating_add(bytes) <= self.max
    }

    #[inline]
    pub fn spend(&mut self, bytes: u64) {
        self.used = self.used.saturating_add(bytes);
    }

    /// Why `bytes` more are refused.
    pub fn refusal(&self, what: &str, bytes: u64) -> String {
        format!(
            "exceeds max_stream_bytes={}: {what} {bytes} bytes, after the {} the stream has brought",
            self.max, self.used
        )
    }
}

/// The bookkeeping a protocol reads and writes while it applies events.
#[derive(Debug, Clone)]
pub struct Log {
    /// Events seen so far; the one being applied is number `events`.
    pub events: u64,
    /// The first `max_errors` errors recorded.
    errors: Vec<ErrorRecord>,
    /// Every error recorded, kept or not.
    error_count: u64,
    max_errors: Option<usize>,
    on_error: OnError,
    subject: &'static str,
    /// What the stream has brought, against `max_stream_bytes`.
    pub budget: Budget,
    /// `u64::MAX`: no limit.
    max_messages: u64,
    /// `u64::MAX`: no limit.
    max_blocks: u64,
    /// Whether an event of the protocol came (see [`Protocol::recognizes`]).
    recognized: bool,
}

impl Log {
    /// A log for work that follows the stream's end, where no event is
    /// being applied: what it is told is dropped.
    pub fn detached() -> Self {
        Log::new(OnError::Skip, "")
    }

    fn new(on_error: OnError, subject: &'static str) -> Self {
        Log {
            events: 0,
            errors: Vec::new(),
            error_count: 0,
            max_errors: Some(DEFAULT_MAX_ERRORS),
            on_error,
            subject,
            budget: Budget::new(Some(DEFAULT_MAX_STREAM_BYTES)),
            max_messages: DEFAULT_MAX_MESSAGES,
            max_blocks: DEFAULT_MAX_BLOCKS,
            recognized: false,
        }
    }

    #[cold]
    fn exceeded(&self, limit: &'static str, maximum: u64, detail: String) -> Error {
        Error::Exceeded(Exceeded {
            subject: self.subject,
            event: self.events,
            limit,
            maximum,
            detail,
        })
    }

    /// Takes the data of the event being applied from the budget, or says
    /// it goes past `max_stream_bytes`.
    #[inline]
    fn charge(&mut self, bytes: usize) -> Result<(), Error> {
        let bytes = bytes as u64;
        if !self.budget.allows(bytes) {
            return Err(self.exceeded(
                "max_stream_bytes",
                self.budget.max,
                format!(
                    "its data is {bytes} bytes, after the {} the stream has brought",
                    self.budget.used
                ),
            ));
        }
        self.budget.spend(bytes);
        Ok(())
    }

    /// Says whether the event just applied took what the assembler holds
    /// past `max_messages` or `max_blocks` (the messages first).
    #[inline]
    fn count<P: Protocol>(&self, protocol: &P) -> Result<(), Error> {
        let (messages, blocks) = (protocol.message_count(), protocol.block_count());
        if messages as u64 > self.max_messages {
            return Err(self.held_past("max_messages", self.max_messages, "messages", messages));
        }
        if blocks as u64 > self.max_blocks {
            return Err(self.held_past("max_blocks", self.max_blocks, "blocks", blocks));
        }
        Ok(())
    }

    #[cold]
    fn held_past(&self, limit: &'static str, maximum: u64, what: &str, count: usize) -> Error {
        self.exceeded(
            limit,
            maximum,
            format!("it brings the stream's {what} to {count}"),
        )
    }

    /// Records an error: counted, and kept while fewer than `max_errors` are.
    pub fn record(&mut self, record: ErrorRecord) {
        self.error_count += 1;
        if self.max_errors.is_none_or(|max| self.errors.len() < max) {
            self.errors.push(record);
        }
    }

    /// The errors kept: the first `max_errors` recorded.
    pub fn errors(&self) -> &[ErrorRecord] {
        &self.errors
    }

    /// Every error recorded, kept or not.
    pub fn error_count(&self) -> u64 {
        self.error_count
    }

    /// How many error records to keep (`None`: all of them).
    pub fn set_max_errors(&mut self, max_errors: Option<usize>) {
        self.max_errors = max_errors;
        if let Some(max) = max_errors {
            self.errors.truncate(max);
        }
    }

    /// Reports that the text of the event being applied is not JSON, unless
    /// it is blank: a keep-alive (`data:` and nothing), which is nothing to
    /// apply. (Asked only once the text failed to parse, so that the events
    /// that are JSON pay nothing for it.)
    #[cold]
    pub fn not_json(&mut self, text: &str) -> Result<(), Error> {
        if is_blank(text) {
            return Ok(());
        }
        self.fail(crate::partial_json::why_not_json(text))
    }

    /// Reports that the event being applied cannot be used, as `on_error`
    /// says: an error, or a record and `Ok`.
    pub fn fail(&mut self, problem: String) -> Result<(), Error> {
        let error = EventError {
            subject: self.subject,
            event: self.events,
            problem,
        };
        match self.on_error {
            OnError::Raise => Err(Error::Event(error)),
            OnError::Skip => {
                self.record(ErrorRecord {
                    event: error.event,
                    code: "invalid_event".to_owned(),
                    message: Some(error.to_string()),
                });
                Ok(())
            }
        }
    }
}

/// Something that watches every event, decoded, before it is applied.
pub type Observer<'a, 'b> = Option<&'a mut (dyn FnMut(&Value) + 'b)>;

/// Why an event cannot be applied, said where it is found: the protocol's
/// [`Protocol::apply_object`] reports it through [`Log::report`], as
/// `on_error` says.
#[derive(Debug)]
pub struct Bad(pub String);

/// An event that cannot be applied, for `?` in a protocol's own code.
pub fn bad<T>(problem: impl Into<String>) -> Result<T, Bad> {
    Err(Bad(problem.into()))
}

impl Log {
    /// Reports what applying an event found wrong, if anything, as
    /// `on_error` says.
    pub fn report(&mut self, applied: Result<(), Bad>) -> Result<(), Error> {
        match applied {
            Ok(()) => Ok(()),
            Err(Bad(problem)) => self.fail(problem),
        }
    }
}

/// What a protocol does with its events. It says what one event does
/// ([`Protocol::apply_object`]) and, where it has one, its quick path; the
/// skeleton every protocol shares ([`Protocol::apply_text`],
/// [`Protocol::apply_value`]) does the rest: `[DONE]`, the quick path,
/// parsing, the observer, and refusing what is not an object.
pub trait Protocol {
    /// The framing its streams may have instead of SSE (NDJSON lines, a
    /// streamed JSON array, the AWS event stream): the stream's first byte
    /// tells ([`Framing`]).
    fn framing(&self) -> Option<Kind> {
        None
    }

    /// Applies one event that is a JSON object.
    fn apply_object(&mut self, log: &mut Log, event: Map<String, Value>) -> Result<(), Error>;

    /// The quick path: applies an event from its text without building a
    /// tree where it can (a delta to what exists), and says whether it did;
    /// when it did not, the event is parsed and applied whole. Not asked
    /// when someone watches the events go by.
    #[inline]
    fn apply_quickly(&mut self, _text: &str) -> bool {
        false
    }

    /// `[DONE]`, the OpenAI-style end of a stream, came. Most protocols
    /// end by their own events, and some proxies write it after any
    /// stream: nothing to do unless the protocol says otherwise.
    #[inline]
    fn done_marker(&mut self, _log: &mut Log) -> Result<(), Error> {
        Ok(())
    }

    /// Whether an event is one of the protocol's: a reader that saw none
    /// says so at `close()`. Asked only until one is.
    fn recognizes(&self, event: &Map<String, Value>) -> bool;

    /// The stream has ended.
    fn finish(&mut self);

    /// How many messages the stream has brought (for `max_messages`); cheap,
    /// since it is asked after every event.
    fn message_count(&self) -> usize;

    /// How many blocks (content parts, tool calls: what each protocol's
    /// messages are made of) the assembled messages hold now, for
    /// `max_blocks`; kept as a count, since it is asked after every event.
    fn block_count(&self) -> usize;

    /// Applies the text of one event (SSE data, or a WebSocket frame).
    /// `observe`, when given, sees the event decoded before it is applied.
    #[inline]
    fn apply_text(
        &mut self,
        log: &mut Log,
        text: &str,
        observe: Observer<'_, '_>,
    ) -> Result<(), Error> {
        // Most events are deltas to what exists: they take the quick path,
        // unless the caller wants every event decoded (which is also how
        // the fuzz targets hold a reader to the full path). `[DONE]` is not
        // an object: no quick path takes it.
        if observe.is_none() && self.apply_quickly(text) {
            return Ok(());
        }
        if is_done_marker(text) {
            return self.done_marker(log);
        }
        match crate::json::parse(text) {
            Ok(event) => {
                if let (Some(observe), Value::Object(_)) = (observe, &event) {
                    observe(&event);
                }
                self.apply_value(log, event)
            }
            Err(_) => log.not_json(text),
        }
    }

    /// Applies one event that is already decoded.
    #[inline]
    fn apply_value(&mut self, log: &mut Log, event: Value) -> Result<(), Error> {
        match event {
            Value::Object(event) => self.apply_object(log, event),
            other => log.fail(format!("is {}, not an object", crate::json::kind(&other))),
        }
    }
}

/// `impl Assemble` for a protocol's assembler, which holds its [`Driver`]
/// as `driver`: what every assembler's `impl` was, written once.
macro_rules! assemble_with_driver {
    ($assembler:ty, $protocol:ty) => {
        impl $crate::stream::Assemble for $assembler {
            type Protocol = $protocol;

            fn driver(&self) -> &$crate::stream::Driver<$protocol> {
                &self.driver
            }

            fn driver_mut(&mut self) -> &mut $crate::stream::Driver<$protocol> {
                &mut self.driver
            }
        }
    };
}

pub(crate) use assemble_with_driver;

/// The final object an assembler gives (what its protocol's SDK gives),
/// under one name whatever the protocol calls it.
pub trait Assembled {
    fn result(&self) -> Value;
}

/// Any protocol's assembler behind one interface, as the registry builds it
/// ([`crate::registry::Descriptor::assembler`]): for what treats every
/// protocol alike (the fuzz targets, the benches).
pub trait Reader: Send {
    /// See [`Assemble::feed`].
    fn feed(&mut self, chunk: &[u8]) -> Result<(), Error>;
    /// See [`Assemble::feed_observed`].
    fn feed_observed(&mut self, chunk: &[u8], observe: &mut dyn FnMut(&Value))
        -> Result<(), Error>;
    /// See [`Assemble::close`].
    fn close(&mut self) -> Result<(), Error>;
    /// See [`Assemble::event_count`].
    fn event_count(&self) -> u64;
    /// See [`Assemble::errors`].
    fn errors(&self) -> &[ErrorRecord];
    /// See [`Assembled::result`].
    fn result(&self) -> Value;
}

impl<A: Assemble + Assembled + Send> Reader for A {
    fn feed(&mut self, chunk: &[u8]) -> Result<(), Error> {
        Assemble::feed(self, chunk)
    }

    fn feed_observed(
        &mut self,
        chunk: &[u8],
        observe: &mut dyn FnMut(&Value),
    ) -> Result<(), Error> {
        Assemble::feed_observed(self, chunk, observe)
    }

    fn close(&mut self) -> Result<(), Error> {
        Assemble::close(self)
    }

    fn event_count(&self) -> u64 {
        Assemble::event_count(self)
    }

    fn errors(&self) -> &[ErrorRecord] {
        Assemble::errors(self)
    }

    fn result(&self) -> Value {
        Assembled::result(self)
    }
}

/// What every assembler does with its input, over its [`Driver`]: each
/// protocol's `Assembler` says where its driver is, and gets the rest.
pub trait Assemble {
    type Protocol: Protocol;

    fn driver(&self) -> &Driver<Self::Protocol>;

    fn driver_mut(&mut self) -> &mut Driver<Self::Protocol>;

    /// Assembles a chunk of the raw SSE stream, in any chunking. After an
    /// error, what was assembled before it stays, and the events that
    /// followed it in the chunk wait for the next call.
    fn feed(&mut self, chunk: &[u8]) -> Result<(), Error> {
        self.driver_mut().feed(chunk, None)
    }

    /// Like [`Assemble::feed`]; `observe` sees every event, decoded, before
    /// it is applied.
    fn feed_observed(
        &mut self,
        chunk: &[u8],
        observe: &mut dyn FnMut(&Value),
    ) -> Result<(), Error> {
        self.driver_mut().feed(chunk, Some(observe))
    }

    /// Assembles one event that is already decoded.
    fn feed_event(&mut self, event: Value) -> Result<(), Error> {
        self.driver_mut().feed_value(event)
    }

    /// Counts an event that could not even be taken as JSON (a Python value
    /// of another type, say) and reports it as `on_error` says.
    fn feed_invalid_event(&mut self, problem: String) -> Result<(), Error> {
        self.driver_mut().feed_invalid(problem)
    }

    /// Ends the stream: applies what is left, then lets the protocol finish.
    fn close(&mut self) -> Result<(), Error> {
        self.driver_mut().close()
    }

    /// Events seen so far (SSE events, and events given to `feed_event`).
    fn event_count(&self) -> u64 {
        self.driver().log.events
    }

    /// Errors the stream reported or, with [`OnError::Skip`], events skipped.
    fn errors(&self) -> &[ErrorRecord] {
        self.driver().log.errors()
    }

    /// Every error recorded, including those past `max_errors` not kept.
    fn error_count(&self) -> u64 {
        self.driver().log.error_count()
    }

    /// How many error records to keep (`None`: all of them).
    fn set_max_errors(&mut self, max_errors: Option<usize>) {
        self.driver_mut().log.set_max_errors(max_errors);
    }

    /// The most bytes the stream may bring (`None`: no limit); see [`Budget`].
    fn set_max_stream_bytes(&mut self, max: Option<u64>) {
        self.driver_mut().log.budget.set_max(max);
    }

    /// The most messages the stream may bring (`None`: no limit).
    fn set_max_messages(&mut self, max: Option<u64>) {
        self.driver_mut().log.max_messages = max.unwrap_or(u64::MAX);
    }

    /// The most blocks the assembled messages may hold (`None`: no limit).
    fn set_max_blocks(&mut self, max: Option<u64>) {
        self.driver_mut().log.max_blocks = max.unwrap_or(u64::MAX);
    }

    fn is_closed(&self) -> bool {
        self.driver().is_closed()
    }

    /// A new connection carries the stream on: see [`Driver::reconnect`].
    fn reconnect(&mut self) -> Result<(), Error> {
        self.driver_mut().reconnect()
    }

    fn last_event_id(&self) -> &str {
        self.driver().last_event_id()
    }

    fn retry(&self) -> Option<u64> {
        self.driver().retry()
    }
}

/// Feeds a protocol: frames SSE, counts events, keeps the backlog.
#[derive(Debug, Clone)]
pub struct Driver<P> {
    decoder: Framing,
    pub protocol: P,
    pub log: Log,
    /// Event texts decoded but not applied yet, because an earlier one failed.
    backlog: VecDeque<String>,
    closed: bool,
    /// `close()` was called: the input has ended, even if the close failed
    /// on an event and must be called again to apply the rest.
    input_ended: bool,
    /// What it drives, as users name it, for the error on input after
    /// `close()`: "assembler" unless told otherwise.
    pub name: &'static str,
    /// The SSE framing exceeded a limit: the stream cannot go on.
    framing_failed: bool,
    /// A limit error not reported yet (an event error was raised instead):
    /// `close()` reports it.
    pending_limit: Option<FramingError>,
    /// The stream went past a limit of the assembler's: every call that
    /// brings input says so again, and `close()` finishes what was applied.
    exceeded: Option<Exceeded>,
}

impl<P: Protocol> Driver<P> {
    pub fn new(protocol: P, limits: Limits, on_error: OnError, subject: &'static str) -> Self {
        Driver {
            decoder: match protocol.framing() {
                Some(json) => Framing::sniffing(limits, json),
                None => Framing::sse(limits),
            },
            protocol,
            log: Log::new(on_error, subject),
            backlog: VecDeque::new(),
            closed: false,
            input_ended: false,
            name: "assembler",
            framing_failed: false,
            pending_limit: None,
            exceeded: None,
        }
    }

    /// Whether the SSE framing exceeded a limit (no more input is read).
    pub fn framing_failed(&self) -> bool {
        self.framing_failed
    }

    /// Ends a stream that cannot go on: what was applied stands, and the
    /// protocol finishes with it.
    pub fn abandon(&mut self) {
        if !self.closed {
            self.closed = true;
            self.protocol.finish();
        }
    }

    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// Feeds a chunk of a raw SSE stream, in any chunking. After an error,
    /// what was applied stays, and the events that followed wait.
    pub fn feed(&mut self, chunk: &[u8], mut observe: Observer<'_, '_>) -> Result<(), Error> {
        self.check_open()?;
        // The chunk is decoded even when the backlog fails again, so that no
        // input is lost: its events join the backlog.
        let mut failure = self.drain_backlog(observe.as_deref_mut()).err();
        let Driver {
            decoder,
            protocol,
            log,
            backlog,
            ..
        } = self;
        // What each event's text is given to, written out for each framing:
        // one closure called from two decoders would not be inlined into
        // either, and SSE, every protocol's framing but one, pays a call an
        // event for it.
        macro_rules! take {
            ($data:expr) => {{
                let data: &str = $data;
                if failure.is_some() {
                    backlog.push_back(data.to_owned());
                } else if let Err(err) = apply_event(protocol, log, data, observe.as_deref_mut()) {
                    failure = Some(err);
                }
            }};
        }
        let framing = match decoder {
            Framing::Sse(sse) => sse
                .feed(chunk, |event| take!(event.data))
                .map_err(FramingError::Limit),
            other => other.feed(chunk, |data| take!(data)),
        };
        if framing.is_err() {
            self.framing_failed = true;
        }
        let result = match (failure, framing) {
            (Some(err), Err(limit)) => {
                self.pending_limit = Some(limit);
                Err(err)
            }
            (Some(err), Ok(())) => Err(err),
            (None, Err(limit)) => Err(limit.into()),
            (None, Ok(())) => Ok(()),
        };
        self.note(result)
    }

    /// Remembers a limit of the assembler's that the stream went past: the
    /// input that waits is dropped, and no more is taken.
    fn note(&mut self, result: Result<(), Error>) -> Result<(), Error> {
        if let Err(Error::Exceeded(exceeded)) = &result {
            self.exceeded = Some(exceeded.clone());
            self.backlog.clear();
            self.pending_limit = None;
        }
        result
    }

    /// Feeds one event's text (a WebSocket frame).
    pub fn feed_text(&mut self, text: &str) -> Result<(), Error> {
        self.check_open()?;
        self.backlog.push_back(text.to_owned());
        let result = self.drain_backlog(None);
        self.note(result)
    }

    /// Feeds one event that is already decoded.
    pub fn feed_value(&mut self, event: Value) -> Result<(), Error> {
        self.check_open()?;
        let result = self.drain_backlog(None).and_then(|()| {
            // Decoded by the caller: its data is not counted.
            self.log.events += 1;
            if !self.log.recognized {
                self.log.recognized =
                    matches!(&event, Value::Object(map) if self.protocol.recognizes(map));
            }
            self.protocol.apply_value(&mut self.log, event)?;
            self.log.count(&self.protocol)
        });
        self.note(result)
    }

    /// Counts an event that could not even be taken as JSON (a Python value
    /// of another type, say) and reports it as `on_error` says.
    pub fn feed_invalid(&mut self, problem: String) -> Result<(), Error> {
        self.check_open()?;
        let result = self.drain_backlog(None);
        self.note(result)?;
        self.log.events += 1;
        self.log.fail(problem)
    }

    /// Ends the stream: the input ends at once (an unterminated event is
    /// discarded, as SSE says), then the events still waiting are applied
    /// and the protocol finishes. If one of them fails, its error is
    /// returned and a later `close()` applies the rest; more input is
    /// refused either way. A limit error that an event error hid is
    /// returned last.
    pub fn close(&mut self) -> Result<(), Error> {
        if self.closed {
            return Ok(());
        }
        if self.exceeded.is_some() {
            // What was applied before the limit is all there is.
            self.abandon();
            return Ok(());
        }
        if !self.input_ended {
            self.input_ended = true;
            if !self.framing_failed {
                let Driver {
                    decoder, backlog, ..
                } = self;
                let framing = decoder.close(|data| backlog.push_back(data.to_owned()));
                if let Err(limit) = framing {
                    self.framing_failed = true;
                    self.pending_limit = Some(limit);
                }
            }
        }
        let result = self.drain_backlog(None);
        if result.is_err() {
            return match self.note(result) {
                // Past a limit of the assembler's: that was the stream's end.
                Err(Error::Exceeded(exceeded)) => {
                    self.abandon();
                    Err(Error::Exceeded(exceeded))
                }
                other => other,
            };
        }
        if let Some(limit) = self.pending_limit.take() {
            return Err(limit.into());
        }
        self.closed = true;
        self.protocol.finish();
        if self.log.recognized {
            return Ok(());
        }
        // What was assembled stands (a later `close()` returns it); the
        // error says why there is nothing in it.
        let unrecognized = Unrecognized {
            subject: self.log.subject,
            events: self.log.events,
        };
        match self.log.on_error {
            OnError::Raise => Err(Error::Unrecognized(unrecognized)),
            OnError::Skip => {
                self.log.record(ErrorRecord {
                    event: self.log.events,
                    code: "unrecognized_stream".to_owned(),
                    message: Some(unrecognized.to_string()),
                });
                Ok(())
            }
        }
    }

    /// The connection carrying the stream dropped and another carries it
    /// on (a client resuming with `Last-Event-ID`): the event the old
    /// connection left unterminated is discarded, as SSE says, since the
    /// server sends it again; what was applied, and what waits, stays.
    pub fn reconnect(&mut self) -> Result<(), Error> {
        self.check_open()?;
        let Driver {
            decoder, backlog, ..
        } = self;
        decoder
            .close(|data| backlog.push_back(data.to_owned()))
            .map_err(Error::from)
    }

    /// The last event ID of the stream, to send as `Last-Event-ID`.
    pub fn last_event_id(&self) -> &str {
        self.decoder.last_event_id()
    }

    /// The reconnection time in milliseconds the stream set, if any.
    pub fn retry(&self) -> Option<u64> {
        self.decoder.retry()
    }

    fn check_open(&self) -> Result<(), Error> {
        if self.closed || self.input_ended {
            Err(Error::Closed(self.name))
        } else if let Some(exceeded) = &self.exceeded {
            Err(Error::Exceeded(exceeded.clone()))
        } else {
            Ok(())
        }
    }

    fn drain_backlog(&mut self, mut observe: Observer<'_, '_>) -> Result<(), Error> {
        while let Some(text) = self.backlog.pop_front() {
            apply_event(
                &mut self.protocol,
                &mut self.log,
                &text,
                observe.as_deref_mut(),
            )?;
        }
        Ok(())
    }
}

/// Counts an event and applies its text, within the assembler's limits.
fn apply_event<P: Protocol>(
    protocol: &mut P,
    log: &mut Log,
    text: &str,
    observe: Observer<'_, '_>,
) -> Result<(), Error> {
    log.events += 1;
    log.charge(text.len())?;
    if !log.recognized {
        recognize(protocol, log, text);
    }
    protocol.apply_text(log, text, observe)?;
    log.count(protocol)
}

/// Whether the event's text is one of the protocol's: parsed again, only
/// until the first that is, and kept off the path every event takes.
#[cold]
#[inline(never)]
fn recognize<P: Protocol>(protocol: &P, log: &mut Log, text: &str) {
    log.recognized =
        matches!(crate::json::parse(text), Ok(Value::Object(map)) if protocol.recognizes(&map));
}
