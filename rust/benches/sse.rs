//! SSE framing throughput of the Rust core alone (no Python), for the
//! `cargo bench` target in the benchmarks issue: large chunks, network-sized
//! chunks, and one big event fed in small pieces.
//!
//!     cargo bench --bench sse
//!
//! Plain `std::time` timing, best of several runs, so that it needs no
//! benchmarking crate.

use std::hint::black_box;
use std::time::{Duration, Instant};

use agentcodec::sse::{Decoder, Limits};

fn stream(events: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..events {
        let token = ["the", "agent", "streams", "über", "数据", "🙂"][i % 6];
        out.extend_from_slice(
            format!(
                "data: {{\"sequence_number\":{i},\"object\":\"content\",\"status\":\"in_progress\",\"error\":null,\
                 \"type\":\"text\",\"index\":0,\"delta\":true,\"msg_id\":\"msg_00000000-0000-0000-0000-000000000003\",\
                 \"text\":\" {token}\"}}\n\n"
            )
            .as_bytes(),
        );
    }
    out
}

fn measure(name: &str, data: &[u8], chunk: usize, min_time: Duration) {
    let mut best = Duration::MAX;
    let mut spent = Duration::ZERO;
    let mut runs = 0;
    let mut events = 0;
    while runs < 3 || spent < min_time {
        let start = Instant::now();
        let mut decoder = Decoder::new(Limits::default());
        events = 0;
        for piece in data.chunks(chunk) {
            decoder
                .feed(black_box(piece), |event| {
                    events += 1;
                    black_box(event.data.len());
                })
                .unwrap();
        }
        decoder.close(|_| events += 1).unwrap();
        let elapsed = start.elapsed();
        best = best.min(elapsed);
        spent += elapsed;
        runs += 1;
    }
    let seconds = best.as_secs_f64();
    println!(
        "{name:<40} {:>8.0} MB/s {:>12.0} events/s",
        data.len() as f64 / seconds / 1e6,
        events as f64 / seconds
    );
}

fn main() {
    let quick = std::env::args().any(|arg| arg == "--quick");
    let min_time = Duration::from_millis(if quick { 10 } else { 1000 });
    let data = stream(if quick { 1_000 } else { 200_000 });
    println!(
        "SSE framing in the Rust core, {:.1} MB of AgentScope deltas",
        data.len() as f64 / 1e6
    );
    measure("one buffer", &data, data.len(), min_time);
    measure("64 KiB chunks", &data, 64 * 1024, min_time);
    measure("4 KiB chunks", &data, 4 * 1024, min_time);
    measure("1 KiB chunks", &data, 1024, min_time);
    let mut big = b"data: ".to_vec();
    big.extend(std::iter::repeat_n(
        b'x',
        if quick { 1 << 16 } else { 8 << 20 },
    ));
    big.extend_from_slice(b"\n\n");
    measure("one 8 MiB event, 16 B chunks", &big, 16, min_time);
}
