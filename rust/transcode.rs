//! Streams through the neutral vocabulary ([`crate::events`]): decoding any
//! protocol into it, encoding it into any protocol, converting one protocol
//! into another as it streams, and the neutral view of a stream.
//! `python/agentcodec/_pure/transcode.py` mirrors this module.
//!
//! All three ride the shared [`Driver`]: SSE framing, limits, the error
//! policy and the backlog are the assemblers' own. What one source event
//! becomes is handed to a [`Sink`] as it is decoded; nothing already
//! emitted is read again.

use crate::events::{
    appended_field, as_namespace, block_delta, block_fields, get_str, BlockRef, Decode, Encode,
    Event, Loss, Losses, Quick,
};
use crate::executed_calls::ExecutedCalls;
use crate::framing::Kind;
use crate::hashing::{HashMap, HashSet, IndexMap, IndexSet};
use crate::json::{self, Map, Value};
use crate::json_patch::apply_patch;
use crate::registry::Descriptor;
pub use crate::registry::EncoderOptions;
use crate::sse::Limits;
use crate::stop_reasons;
use crate::stream::{
    is_done_marker, Assemble, Budget, Driver, Error, Log, Observer, OnError, Protocol,
};

/// Where decoded neutral events go.
pub trait Sink {
    /// One neutral event; an error is reported through `log`.
    fn neutral(&mut self, log: &mut Log, event: Event) -> Result<(), Error>;

    /// The messages it holds (a converter holds none).
    fn message_count(&self) -> usize {
        0
    }

    /// The blocks its messages hold.
    fn block_count(&self) -> usize {
        0
    }

    /// One `block_delta`, in parts (the hot path, without a map).
    fn delta(
        &mut self,
        log: &mut Log,
        message_id: &str,
        index: i64,
        delta: &str,
    ) -> Result<(), Error> {
        self.neutral(log, block_delta(message_id, index, delta))
    }

    /// The source's event is all given. A sink that holds an error for the
    /// event's end (a loss, with `on_loss="error"`) returns it now, so that
    /// everything the event brought is given first.
    fn event_done(&mut self, _log: &mut Log) -> Result<(), Error> {
        Ok(())
    }

    /// The stream has ended.
    fn finish(&mut self) {}
}

/// A source protocol's events, decoded into a sink.
pub struct Decoding<S> {
    decoder: Box<dyn Decode + Send + Sync>,
    scratch: Vec<Event>,
    pub sink: S,
    /// The events the stream brought so far: what the decoder gives at its
    /// end came with the last of them.
    events: u64,
}

impl<S: Sink> Decoding<S> {
    fn emit(&mut self, log: &mut Log) -> Result<(), Error> {
        let events = std::mem::take(&mut self.scratch);
        for event in events {
            self.sink.neutral(log, event)?;
        }
        self.sink.event_done(log)
    }
}

impl<S: Sink> Protocol for Decoding<S> {
    fn recognizes(&self, event: &Map<String, Value>) -> bool {
        self.decoder.recognizes(event)
    }

    /// The skeleton's, with a quick path that emits neutral events.
    fn apply_text(
        &mut self,
        log: &mut Log,
        text: &str,
        observe: Observer<'_, '_>,
    ) -> Result<(), Error> {
        self.events = log.events;
        if is_done_marker(text) {
            return self.done_marker(log);
        }
        if observe.is_none() {
            match self.decoder.decode_text(text, &mut self.scratch) {
                Quick::No => {}
                Quick::Events => return self.emit(log),
                Quick::Delta {
                    message_id,
                    index,
                    delta,
                } => {
                    self.sink.delta(log, &message_id, index, &delta)?;
                    return self.sink.event_done(log);
                }
            }
        }
        match json::parse(text) {
            Ok(event) => {
                if let (Some(observe), Value::Object(_)) = (observe, &event) {
                    observe(&event);
                }
                self.apply_value(log, event)
            }
            Err(_) => log.not_json(text),
        }
    }

    fn framing(&self) -> Option<Kind> {
        self.decoder.framing()
    }

    /// Chat's end of the run; the other protocols end by an event.
    fn done_marker(&mut self, log: &mut Log) -> Result<(), Error> {
        self.decoder.done(&mut self.scratch);
        self.emit(log)
    }

    fn apply_object(&mut self, log: &mut Log, event: Map<String, Value>) -> Result<(), Error> {
        self.events = log.events;
        self.decoder.decode(&event, &mut self.scratch);
        self.emit(log)
    }

    fn message_count(&self) -> usize {
        self.sink.message_count()
    }

    fn block_count(&self) -> usize {
        self.sink.block_count()
    }

    fn finish(&mut self) {
        self.decoder.finish(&mut self.scratch);
        for event in std::mem::take(&mut self.scratch) {
            // Decoders end with events that cannot fail (no state patches).
            let mut log = Log::detached();
            log.events = self.events;
            let _ = self.sink.neutral(&mut log, event);
        }
        self.sink.finish();
    }
}

fn driver<S: Sink>(
    source: &'static Descriptor,
    sink: S,
    limits: Limits,
    on_error: OnError,
) -> Driver<Decoding<S>> {
    let decoding = Decoding {
        decoder: (source.decoder)(),
        scratch: Vec::new(),
        sink,
        events: 0,
    };
    Driver::new(decoding, limits, on_error, source.subject)
}

macro_rules! assemble_over_driver {
    ($name:ident, $sink:ty) => {
        impl Assemble for $name {
            type Protocol = Decoding<$sink>;

            fn driver(&self) -> &Driver<Self::Protocol> {
                &self.driver
            }

            fn driver_mut(&mut self) -> &mut Driver<Self::Protocol> {
                &mut self.driver
            }

            /// After the SSE framing exceeded a limit, what was decoded
            /// before it is all there is: closing hands it on.
            fn close(&mut self) -> Result<(), Error> {
                if self.driver.framing_failed() {
                    self.driver.abandon();
                    return Ok(());
                }
                self.driver.close()
            }
        }
    };
}

// --- decoding ------------------------------------------------------------------------------

/// Neutral events, kept until they are taken.
#[derive(Debug, Default)]
pub struct Collect(Vec<Event>);

impl Sink for Collect {
    fn neutral(&mut self, _log: &mut Log, event: Event) -> Result<(), Error> {
        self.0.push(event);
        Ok(())
    }
}

/// Decodes a protocol's stream into neutral events.
pub struct Decoder {
    driver: Driver<Decoding<Collect>>,
}

assemble_over_driver!(Decoder, Collect);

impl Decoder {
    /// A decoder of `source`'s streams ([`crate::registry::find`] finds a
    /// protocol by its name).
    pub fn new(source: &'static Descriptor, limits: Limits, on_error: OnError) -> Self {
        let mut driver = driver(source, Collect::default(), limits, on_error);
        driver.name = "events.Decoder";
        // It holds nothing the stream brings: no budget to keep.
        driver.log.budget = Budget::unlimited();
        Decoder { driver }
    }

    /// The neutral events decoded since the last call.
    pub fn take(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.driver.protocol.sink.0)
    }
}

// --- converting ----------------------------------------------------------------------------

/// Neutral events, encoded as a target protocol's events as they come.
/// Deltas the encoder writes straight to bytes are kept as bytes; the
/// events in `out` follow the bytes in `framed`.
pub struct Convert {
    /// The target's name, for the losses the Transcoder itself records.
    target: &'static str,
    encoder: Box<dyn Encode + Send + Sync>,
    framed: Vec<u8>,
    out: Vec<Event>,
    /// What the target could not carry, each with the source's event that
    /// brought it.
    losses: Losses,
    /// Whether a loss is an error (`on_loss="error"`) rather than a record.
    fail_on_loss: bool,
    /// The loss to raise once the source's event is all converted.
    failing: Option<(u64, Loss)>,
    /// The source's event being converted, for the losses at the end.
    event: u64,
    ruled: RuledLosses,
    /// The tool calls the agent ran, left out (`executed_tool_calls="omit"`).
    executed: Option<ExecutedCalls>,
}

impl Convert {
    /// Encodes one neutral event that came with the source's event `number`.
    fn convert(&mut self, number: u64, event: &Event) {
        let lost = self.ruled.of(self.target, self.encoder.as_ref(), event);
        self.encoder.encode(event, &mut self.out);
        self.note_losses(number, lost);
    }

    /// Encodes what the left-out calls let go on.
    fn convert_released(&mut self, released: Vec<(u64, Event)>) {
        for (number, event) in released {
            self.convert(number, &event);
        }
    }

    fn frame_pending(&mut self) {
        for event in self.out.drain(..) {
            self.encoder.frame(&event, &mut self.framed);
        }
    }

    /// Keeps what the encoder could not carry of the source's event `event`
    /// (after `first`, what the Transcoder found lost before encoding it);
    /// told to fail on a loss, holds the first for the event's end.
    fn note_losses(&mut self, event: u64, first: [Option<Loss>; 2]) {
        self.event = event;
        let mut losses = self.encoder.take_losses();
        if first.iter().any(Option::is_some) {
            let mut ruled: Vec<Loss> = first.into_iter().flatten().collect();
            ruled.append(&mut losses);
            losses = ruled;
        }
        if losses.is_empty() {
            return;
        }
        if self.fail_on_loss && self.failing.is_none() {
            self.failing = Some((event, losses[0].clone()));
        }
        self.losses.extend(event, losses);
    }
}

impl Sink for Convert {
    fn neutral(&mut self, log: &mut Log, event: Event) -> Result<(), Error> {
        match &mut self.executed {
            Some(executed) => {
                let mut released = Vec::new();
                executed.push(log.events, event, &mut released);
                self.convert_released(released);
            }
            None => self.convert(log.events, &event),
        }
        Ok(())
    }

    fn delta(
        &mut self,
        log: &mut Log,
        message_id: &str,
        index: i64,
        delta: &str,
    ) -> Result<(), Error> {
        if let Some(executed) = &self.executed {
            if executed.takes_delta(message_id, index) {
                return self.neutral(log, block_delta(message_id, index, delta));
            }
        }
        self.event = log.events;
        self.frame_pending();
        if self.encoder.has_ended_before("block_delta") {
            let lost = self.ruled.after_end(self.target, "block_delta", None);
            self.note_losses(log.events, [lost, None]);
            return Ok(());
        }
        if !self
            .encoder
            .write_delta(message_id, index, delta, &mut self.framed)
        {
            self.encoder
                .encode(&block_delta(message_id, index, delta), &mut self.out);
            self.note_losses(log.events, [None, None]);
        }
        Ok(())
    }

    fn event_done(&mut self, _log: &mut Log) -> Result<(), Error> {
        match self.failing.take() {
            Some((event, loss)) => Err(Error::Loss(event, loss)),
            None => Ok(()),
        }
    }

    fn finish(&mut self) {
        if let Some(executed) = &mut self.executed {
            let mut released = Vec::new();
            executed.finish(&mut released);
            self.convert_released(released);
        }
        self.encoder.finish(&mut self.out);
        // The stream is over: what the end loses is recorded, not raised.
        let event = self.event;
        let losses = self.encoder.take_losses();
        self.losses.extend(event, losses);
        self.frame_pending();
        self.encoder.trailer(&mut self.framed);
    }
}

/// The events of SSE frames this crate wrote: one `data:` line each.
fn unframe(bytes: &[u8]) -> Vec<Event> {
    let text = String::from_utf8_lossy(bytes);
    text.split("\n\n")
        .filter_map(|frame| frame.lines().find_map(|line| line.strip_prefix("data: ")))
        .filter_map(|data| match json::parse(data) {
            Ok(Value::Object(event)) => Some(event),
            _ => None,
        })
        .collect()
}

/// Converts a stream of one protocol into another, as it streams.
pub struct Transcoder {
    driver: Driver<Decoding<Convert>>,
}

assemble_over_driver!(Transcoder, Convert);

impl Transcoder {
    /// Converts `source`'s streams into the target of `target`'s options.
    pub fn new(
        source: &'static Descriptor,
        target: EncoderOptions,
        limits: Limits,
        on_error: OnError,
    ) -> Self {
        let sink = Convert {
            target: target.name(),
            encoder: target.encoder(),
            framed: Vec::new(),
            out: Vec::new(),
            losses: Losses::default(),
            fail_on_loss: false,
            failing: None,
            event: 0,
            ruled: RuledLosses::default(),
            executed: None,
        };
        let mut driver = driver(source, sink, limits, on_error);
        driver.name = "Transcoder";
        // What it holds is bounded by itself, not by what the stream brings.
        driver.log.budget = Budget::unlimited();
        Transcoder { driver }
    }

    /// The target's events converted since the last call.
    pub fn take_events(&mut self) -> Vec<Event> {
        let sink = &mut self.driver.protocol.sink;
        // Bytes wait here only when `feed` failed before a `feed_event`.
        let mut events = unframe(&std::mem::take(&mut sink.framed));
        events.append(&mut sink.out);
        events
    }

    /// Makes a loss an error (`Error::Loss`, raised at the source's event
    /// that brought it) instead of a record only.
    pub fn fail_on_loss(&mut self, fail: bool) {
        self.driver.protocol.sink.fail_on_loss = fail;
    }

    /// What the target could not carry so far, each with the source's
    /// event that brought it.
    pub fn losses(&self) -> &[(u64, Loss)] {
        self.driver.protocol.sink.losses.as_slice()
    }

    /// Leaves out the tool calls the agent ran ([`ExecutedCalls`]).
    pub fn omit_executed_tool_calls(&mut self) {
        self.driver.protocol.sink.executed = Some(ExecutedCalls::default());
    }

    /// The target's SSE bytes for the events converted since the last call.
    pub fn take_bytes(&mut self) -> Vec<u8> {
        let sink = &mut self.driver.protocol.sink;
        sink.frame_pending();
        std::mem::take(&mut sink.framed)
    }
}

/// What a target loses by one rule for every encoder, which says what it
/// carries: a message's namespace, where its messages have none; the run's
/// state and result, where it has no place for them; an event with no
/// neutral meaning, another protocol's where it keeps none, its own where
/// it does not write it back; an event after its stream's end; what a
/// replacement brings to a block that is not open, beyond what the encoder
/// writes after a block's end; a stop reason, where the target has none
/// (one that carries them says itself what it has no word for). All but the
/// namespace and the result once for each kind of event (or reason): a
/// stream may bring one with every step.
#[derive(Default)]
struct RuledLosses {
    /// The kinds of events reported already (their losses' sentences).
    dropped_kinds: HashSet<String>,
    /// The open blocks (started, not finished: a message's end does not
    /// end them, as in the neutral view): as many as the stream holds open
    /// at once.
    open: IndexSet<(String, i64)>,
}

impl RuledLosses {
    /// What the target loses of `event`: what [`RuledLosses::one`] says,
    /// then a stop reason it has no place for.
    fn of(
        &mut self,
        target: &str,
        encoder: &(dyn Encode + Send + Sync),
        event: &Event,
    ) -> [Option<Loss>; 2] {
        // (one look at the event's type: this runs for every event a delta
        // does not take the quick path for)
        let Some(kind) = get_str(event, "type") else {
            return [None, None];
        };
        if encoder.has_ended_before(kind) {
            return [self.after_end(target, kind, Some(event)), None];
        }
        let reason = match kind {
            "message_finished" | "run_finished" if !encoder.carries_stop_reasons() => {
                stop_reasons::loss(target, get_str(event, "stop_reason"))
                    .and_then(|lost| self.once(lost))
            }
            _ => None,
        };
        [self.one(target, kind, encoder, event), reason]
    }

    /// What the target loses of an event of `kind`, but for its stop reason.
    fn one(
        &mut self,
        target: &str,
        kind: &str,
        encoder: &(dyn Encode + Send + Sync),
        event: &Event,
    ) -> Option<Loss> {
        match kind {
            "message_started" if !encoder.carries_namespaces() => Loss::namespace(target, event),
            "state_snapshot" | "state_patch" if !encoder.carries_state() => {
                self.once(Loss::state(target, kind, event)?)
            }
            "run_finished" if !encoder.carries_run_result() => Loss::run_result(target, event),
            "block_started" => {
                if let Some((message_id, index)) = block_of(event) {
                    self.open.insert((message_id.to_owned(), index));
                }
                None
            }
            "block_finished" => {
                if let Some((message_id, index)) = block_of(event) {
                    self.open.swap_remove(&BlockRef(message_id, index));
                }
                None
            }
            "block_replaced" if !self.is_open(event) => {
                let written = encoder.writes_after_block_end(event);
                let mut fields: Vec<&str> = event
                    .keys()
                    .map(String::as_str)
                    .filter(|field| !BLOCK_NAMED_BY.contains(field) && !written.contains(field))
                    .collect();
                if fields.is_empty() {
                    return None;
                }
                fields.sort_unstable();
                self.once(Loss::block_not_open(target, kind, &fields))
            }
            "passthrough" => {
                let kept = if get_str(event, "protocol") == Some(target) {
                    encoder.keeps_own_event(event)
                } else {
                    encoder.keeps_foreign_events()
                };
                if kept {
                    return None;
                }
                self.once(Loss::passthrough(target, event)?)
            }
            _ => None,
        }
    }

    /// A `block_delta` given to an encoder (built by hand: decoders start
    /// every block they write to) for a block that is not open, which no
    /// encoder writes.
    fn stray_delta(&mut self, target: &str, event: &Event) -> Option<Loss> {
        if get_str(event, "type") != Some("block_delta")
            || get_str(event, "delta").is_none_or(str::is_empty)
            || self.is_open(event)
        {
            return None;
        }
        self.once(Loss::block_not_open(target, "block_delta", &[]))
    }

    fn is_open(&self, event: &Event) -> bool {
        block_of(event)
            .is_some_and(|(message_id, index)| self.open.contains(&BlockRef(message_id, index)))
    }

    /// The loss, the first time its kind comes.
    fn once(&mut self, loss: Loss) -> Option<Loss> {
        Some(loss).filter(|loss| self.dropped_kinds.insert(loss.why.clone()))
    }

    /// An event of `kind` (`event`, where there is one) the target drops
    /// for coming after its end, once for each kind (a passed-through
    /// event's own); an end that only repeats the end loses nothing.
    fn after_end(&mut self, target: &str, kind: &str, event: Option<&Event>) -> Option<Loss> {
        if matches!(kind, "block_finished" | "message_finished" | "run_finished") {
            return None;
        }
        self.once(Loss::after_end(target, kind, event))
    }
}

/// The fields that name the block an event is for.
const BLOCK_NAMED_BY: [&str; 3] = ["type", "message_id", "index"];

/// The block an event names: its message id and index.
fn block_of(event: &Event) -> Option<(&str, i64)> {
    Some((
        get_str(event, "message_id")?,
        crate::events::as_int(event.get("index"))?,
    ))
}

/// Encodes neutral events into a protocol's events and SSE bytes.
pub struct Encoder {
    target: &'static str,
    encoder: Box<dyn Encode + Send + Sync>,
    /// The neutral events encoded so far.
    events: u64,
    /// What the target could not carry, by the neutral event (from 1)
    /// that brought it.
    losses: Losses,
    ruled: RuledLosses,
    /// The tool calls the agent ran, left out (`executed_tool_calls="omit"`).
    executed: Option<ExecutedCalls>,
}

impl Encoder {
    pub fn new(target: EncoderOptions) -> Self {
        Encoder {
            target: target.name(),
            encoder: target.encoder(),
            events: 0,
            losses: Losses::default(),
            ruled: RuledLosses::default(),
            executed: None,
        }
    }

    /// Leaves out the tool calls the agent ran ([`ExecutedCalls`]).
    pub fn omit_executed_tool_calls(&mut self) {
        self.executed = Some(ExecutedCalls::default());
    }

    /// What one neutral event becomes, as the target's events.
    pub fn encode_events(&mut self, event: &Event) -> Vec<Event> {
        let mut out = Vec::new();
        self.events += 1;
        match &mut self.executed {
            Some(executed) => {
                let mut released = Vec::new();
                executed.push(self.events, event.clone(), &mut released);
                for (number, event) in released {
                    self.encode_one(number, &event, &mut out);
                }
            }
            None => self.encode_one(self.events, event, &mut out),
        }
        out
    }

    /// Encodes one neutral event, the `number`th.
    fn encode_one(&mut self, number: u64, event: &Event, out: &mut Vec<Event>) {
        let [lost, reason] = self.ruled.of(self.target, self.encoder.as_ref(), event);
        let lost = [
            lost.or_else(|| self.ruled.stray_delta(self.target, event)),
            reason,
        ];
        self.encoder.encode(event, out);
        self.losses.extend(number, lost.into_iter().flatten());
        let lost = self.encoder.take_losses();
        self.losses.extend(number, lost);
    }

    /// What the target could not carry so far, in order, by the neutral
    /// event that brought it.
    pub fn losses(&self) -> &[(u64, Loss)] {
        self.losses.as_slice()
    }

    fn note_losses(&mut self) {
        let event = self.events;
        let lost = self.encoder.take_losses();
        self.losses.extend(event, lost);
    }

    /// The SSE bytes of what one neutral event becomes.
    pub fn encode(&mut self, event: &Event) -> Vec<u8> {
        let events = self.encode_events(event);
        self.frame_all(&events)
    }

    /// The SSE bytes of what the encoder writes at the end.
    pub fn close(&mut self) -> Vec<u8> {
        let mut events = Vec::new();
        if let Some(executed) = &mut self.executed {
            let mut released = Vec::new();
            executed.finish(&mut released);
            for (number, event) in released {
                self.encode_one(number, &event, &mut events);
            }
        }
        self.encoder.finish(&mut events);
        self.note_losses();
        let mut bytes = self.frame_all(&events);
        self.encoder.trailer(&mut bytes);
        bytes
    }

    fn frame_all(&self, events: &[Event]) -> Vec<u8> {
        let mut bytes = Vec::new();
        for event in events {
            self.encoder.frame(event, &mut bytes);
        }
        bytes
    }
}

// --- the neutral view ----------------------------------------------------------------------

#[derive(Debug, Default)]
struct MessageView {
    fields: Map<String, Value>,
    blocks: Vec<Map<String, Value>>,
}

/// The neutral view of a stream: the run, its messages of blocks, the
/// state, and what passed through.
#[derive(Debug)]
pub struct View {
    run: Map<String, Value>,
    messages: IndexMap<String, MessageView>,
    /// Open blocks: (message, index) -> the block's position in its message.
    open: IndexMap<(String, i64), usize>,
    /// Finished blocks, likewise: a replacement may follow a block's end
    /// (an encrypted value that names its message may follow its end).
    finished: HashMap<(String, i64), usize>,
    state: Value,
    kept: Vec<Value>,
    /// The blocks all messages hold (for `max_blocks`).
    blocks: usize,
}

/// A block: its message's id and its index.
type BlockKey = (String, i64);

/// Block fields a replacement does not touch: the view's own bookkeeping.
const FIXED: [&str; 5] = ["type", "message_id", "index", "kind", "status"];

impl View {
    fn new(protocol: &str) -> Self {
        let mut run = Map::new();
        run.insert("protocol".to_owned(), protocol.into());
        for key in ["run_id", "thread_id", "model"] {
            run.insert(key.to_owned(), Value::Null);
        }
        run.insert("status".to_owned(), "in_progress".into());
        for key in ["error", "usage", "result", "stop_reason"] {
            run.insert(key.to_owned(), Value::Null);
        }
        View {
            run,
            messages: IndexMap::default(),
            open: IndexMap::default(),
            finished: HashMap::default(),
            state: Value::Null,
            kept: Vec::new(),
            blocks: 0,
        }
    }

    fn message(&mut self, message_id: &str, role: &str, kind: Value) -> &mut MessageView {
        self.messages
            .entry(message_id.to_owned())
            .or_insert_with(|| {
                let mut fields = Map::new();
                fields.insert("id".to_owned(), message_id.into());
                fields.insert("role".to_owned(), role.into());
                fields.insert("kind".to_owned(), kind);
                fields.insert("namespace".to_owned(), Value::Null);
                fields.insert("node".to_owned(), Value::Null);
                fields.insert("status".to_owned(), "in_progress".into());
                fields.insert("usage".to_owned(), Value::Null);
                fields.insert("stop_reason".to_owned(), Value::Null);
                MessageView {
                    fields,
                    blocks: Vec::new(),
                }
            })
    }

    fn block(&mut self, event: &Event) -> Option<(&mut Map<String, Value>, BlockKey)> {
        let key = (
            event.get("message_id")?.as_str()?.to_owned(),
            event.get("index")?.as_i64()?,
        );
        let position = *self.open.get(&key)?;
        let block = &mut self.messages.get_mut(&key.0)?.blocks[position];
        Some((block, key))
    }

    /// The block a replacement is for: an open one, or one finished.
    fn replaced_block(&mut self, event: &Event) -> Option<&mut Map<String, Value>> {
        let message_id = event.get("message_id")?.as_str()?;
        let index = event.get("index")?.as_i64()?;
        let position = match self.open.get(&BlockRef(message_id, index)) {
            Some(position) => *position,
            None => *self.finished.get(&(message_id.to_owned(), index))?,
        };
        Some(&mut self.messages.get_mut(message_id)?.blocks[position])
    }

    /// The view as a JSON object.
    pub fn to_value(&self) -> Value {
        let mut view = self.run.clone();
        let messages = self
            .messages
            .values()
            .map(|message| {
                let mut fields = message.fields.clone();
                let blocks = message.blocks.iter().cloned().map(Value::Object).collect();
                fields.insert("blocks".to_owned(), Value::Array(blocks));
                Value::Object(fields)
            })
            .collect();
        view.insert("messages".to_owned(), Value::Array(messages));
        view.insert("state".to_owned(), self.state.clone());
        view.insert("events".to_owned(), Value::Array(self.kept.clone()));
        Value::Object(view)
    }
}

fn str_field<'e>(event: &'e Event, key: &str) -> &'e str {
    event.get(key).and_then(Value::as_str).unwrap_or("")
}

/// `event.get(key)`: the value, null when absent.
fn field(event: &Event, key: &str) -> Value {
    event.get(key).cloned().unwrap_or(Value::Null)
}

impl View {
    fn append(&mut self, message_id: &str, index: i64, delta: &str) {
        let Some(&position) = self.open.get(&BlockRef(message_id, index)) else {
            return;
        };
        let Some(block) = self
            .messages
            .get_mut(message_id)
            .map(|message| &mut message.blocks[position])
        else {
            return;
        };
        let kind = block.get("kind").and_then(Value::as_str).unwrap_or("");
        if let Some(appended) = appended_field(kind) {
            match block.get_mut(appended) {
                Some(Value::String(text)) => text.push_str(delta),
                None | Some(Value::Null) => {
                    block.insert(appended.to_owned(), delta.into());
                }
                Some(_) => {} // replaced by a value that is not text
            }
        }
    }
}

impl Sink for View {
    fn message_count(&self) -> usize {
        self.messages.len()
    }

    fn block_count(&self) -> usize {
        self.blocks
    }

    fn delta(
        &mut self,
        _log: &mut Log,
        message_id: &str,
        index: i64,
        delta: &str,
    ) -> Result<(), Error> {
        self.append(message_id, index, delta);
        Ok(())
    }

    fn neutral(&mut self, log: &mut Log, event: Event) -> Result<(), Error> {
        match str_field(&event, "type") {
            "run_started" => {
                for key in ["run_id", "thread_id", "model"] {
                    if let Some(value) = event.get(key).filter(|value| !value.is_null()) {
                        self.run.insert(key.to_owned(), value.clone());
                    }
                }
                self.run.insert("status".to_owned(), "in_progress".into());
                self.run.insert("error".to_owned(), Value::Null);
            }
            "run_finished" => {
                // A failed run does not complete after all.
                if self.run["status"] != "failed" {
                    let status =
                        crate::events::either(event.get("status"), Some(&"completed".into()));
                    self.run.insert("status".to_owned(), status);
                    self.run.insert("usage".to_owned(), field(&event, "usage"));
                    self.run
                        .insert("result".to_owned(), field(&event, "result"));
                    self.run
                        .insert("stop_reason".to_owned(), field(&event, "stop_reason"));
                }
            }
            "run_failed" => {
                let mut code = field(&event, "code");
                if code.is_null() && self.run["status"] == "failed" {
                    // A failure that repeats the failure without a code
                    // (a lifecycle's after a message's) keeps the code.
                    if let Some(Value::Object(earlier)) = self.run.get("error") {
                        code = earlier.get("code").cloned().unwrap_or(Value::Null);
                    }
                }
                self.run.insert("status".to_owned(), "failed".into());
                let mut error = Map::new();
                error.insert("code".to_owned(), code);
                error.insert("message".to_owned(), field(&event, "message"));
                self.run.insert("error".to_owned(), Value::Object(error));
                if let Some(usage) = event.get("usage").filter(|usage| !usage.is_null()) {
                    self.run.insert("usage".to_owned(), usage.clone());
                }
            }
            "message_started" => {
                let role = crate::events::either(event.get("role"), Some(&"assistant".into()));
                let role = role.as_str().unwrap_or("assistant").to_owned();
                let message = self.message(
                    str_field(&event, "message_id"),
                    &role,
                    field(&event, "kind"),
                );
                if let Some(namespace) = as_namespace(event.get("namespace")) {
                    // Its first start's: the namespace a message is written in stays.
                    let held = message.fields.get_mut("namespace");
                    if let Some(held @ Value::Null) = held {
                        *held = Value::Array(namespace.into_iter().map(Value::String).collect());
                    }
                }
                if let Some(node) = get_str(&event, "node") {
                    let held = message.fields.get_mut("node");
                    if let Some(held @ Value::Null) = held {
                        *held = node.into();
                    }
                }
                message
                    .fields
                    .insert("status".to_owned(), "in_progress".into());
            }
            "message_finished" => {
                let message =
                    self.message(str_field(&event, "message_id"), "assistant", Value::Null);
                message
                    .fields
                    .insert("status".to_owned(), "completed".into());
                message
                    .fields
                    .insert("usage".to_owned(), field(&event, "usage"));
                message
                    .fields
                    .insert("stop_reason".to_owned(), field(&event, "stop_reason"));
            }
            "block_started" => {
                let message_id = str_field(&event, "message_id").to_owned();
                let index = event.get("index").and_then(Value::as_i64).unwrap_or(0);
                let kind = str_field(&event, "kind");
                let mut block = Map::new();
                block.insert("index".to_owned(), index.into());
                block.insert("kind".to_owned(), kind.into());
                block.insert("status".to_owned(), "in_progress".into());
                for name in block_fields(kind) {
                    block.insert((*name).to_owned(), field(&event, name));
                }
                if let Some(appended) = appended_field(kind) {
                    block.insert(appended.to_owned(), "".into());
                }
                let message = self.message(&message_id, "assistant", Value::Null);
                message
                    .fields
                    .insert("status".to_owned(), "in_progress".into());
                message.blocks.push(block);
                let position = message.blocks.len() - 1;
                self.open.insert((message_id, index), position);
                self.blocks += 1;
            }
            "block_delta" => {
                let index = event.get("index").and_then(Value::as_i64);
                if let (Some(message_id), Some(index)) =
                    (event.get("message_id").and_then(Value::as_str), index)
                {
                    self.append(message_id, index, str_field(&event, "delta"));
                }
            }
            "block_replaced" => {
                if let Some(block) = self.replaced_block(&event) {
                    for (key, value) in &event {
                        if !FIXED.contains(&key.as_str()) {
                            block.insert(key.clone(), value.clone());
                        }
                    }
                    let kind = block.get("kind").and_then(Value::as_str).unwrap_or("");
                    if appended_field(kind).is_some_and(|appended| event.contains_key(appended)) {
                        // Corrected: what streamed was not all of it.
                        block.insert("replaced".to_owned(), true.into());
                    }
                }
            }
            "block_finished" => {
                if let Some((block, key)) = self.block(&event) {
                    block.insert("status".to_owned(), "completed".into());
                    settle_tool_call(block);
                    if let Some(position) = self.open.swap_remove(&key) {
                        self.finished.insert(key, position);
                    }
                }
            }
            "state_snapshot" => self.state = field(&event, "snapshot"),
            "state_patch" => {
                let was_null = self.state.is_null();
                let mut document = if was_null {
                    Value::Object(Map::new())
                } else {
                    std::mem::take(&mut self.state)
                };
                let result = apply_patch(&mut document, &field(&event, "patch"), &mut log.budget);
                if result.is_ok() || !was_null {
                    self.state = document; // rolled back when it did not apply
                }
                if let Err(err) = result {
                    return log.fail(format!("has a state patch that does not apply: {err}"));
                }
            }
            "passthrough" => self.kept.push(field(&event, "event")),
            _ => self.kept.push(Value::Object(event)),
        }
        Ok(())
    }

    fn finish(&mut self) {
        if self.run["status"] == "in_progress" {
            self.run.insert("status".to_owned(), "incomplete".into());
        }
        for message in self.messages.values_mut() {
            if message.fields["status"] == "in_progress" {
                message
                    .fields
                    .insert("status".to_owned(), "incomplete".into());
            }
        }
        for (key, position) in &self.open {
            if let Some(message) = self.messages.get_mut(&key.0) {
                message.blocks[*position].insert("status".to_owned(), "incomplete".into());
            }
        }
    }
}

/// A finished tool call's `input`: its arguments parsed (an `error` where
/// they are not JSON text).
fn settle_tool_call(block: &mut Map<String, Value>) {
    if block.get("kind").and_then(Value::as_str) != Some("tool_call") {
        return;
    }
    let (input, error) = match block.get("arguments") {
        Some(Value::String(text)) if text.is_empty() => (Some(Value::Object(Map::new())), None),
        Some(Value::String(text)) => match json::parse(text) {
            Ok(input) => (Some(input), None),
            Err(_) => (None, Some("arguments are not valid JSON")),
        },
        None | Some(Value::Null) => (Some(Value::Object(Map::new())), None),
        Some(_) => (None, Some("arguments are not text")),
    };
    block.insert("input".to_owned(), input.unwrap_or(Value::Null));
    if let Some(error) = error {
        block.insert("error".to_owned(), error.into());
    }
}

/// Assembles any protocol's stream into the neutral view.
pub struct Assembler {
    driver: Driver<Decoding<View>>,
}

assemble_over_driver!(Assembler, View);

impl Assembler {
    /// The neutral view of `protocol`'s streams.
    pub fn new(protocol: &'static Descriptor, limits: Limits, on_error: OnError) -> Self {
        let mut driver = driver(protocol, View::new(protocol.name), limits, on_error);
        driver.name = "events.Assembler";
        Assembler { driver }
    }

    pub fn view(&self) -> Value {
        self.driver.protocol.sink.to_value()
    }
}
