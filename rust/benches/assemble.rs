//! Assembly throughput of the Rust core alone (no Python): AgentScope and
//! LangChain text streams fed in 4 KiB chunks, so that the cost of the
//! probes and the stores can be profiled apart from the binding.
//!
//!     cargo bench --bench assemble [-- --quick] [NAME FILTER]

use std::hint::black_box;
use std::time::{Duration, Instant};

use agentcodec::stream::Assemble;

const TOKENS: [&str; 6] = [" the", " agent", " streams", " über", " 数据", " 🙂"];
const MSG_ID: &str = "msg_f5b60aab-4505-4b0c-99fa-f6985c800b4c";

fn agentscope_stream(deltas: usize) -> Vec<u8> {
    let mut out = String::new();
    let response = r#""object":"response","error":null,"id":"response_109cb4a3-0bb2-4e41-bdc5-e52e29172586","created_at":1795303267,"completed_at":null,"output":[],"usage":null,"session_id":"bench""#;
    out += &format!("data: {{\"sequence_number\":null,\"status\":\"created\",{response}}}\n\n");
    out += &format!(
        "data: {{\"sequence_number\":null,\"object\":\"message\",\"status\":\"in_progress\",\"error\":null,\
         \"id\":\"{MSG_ID}\",\"type\":\"message\",\"role\":\"assistant\",\"content\":null}}\n\n"
    );
    for i in 0..deltas {
        out += &format!(
            "data: {{\"sequence_number\":null,\"object\":\"content\",\"status\":\"in_progress\",\"error\":null,\
             \"type\":\"text\",\"index\":0,\"delta\":true,\"msg_id\":\"{MSG_ID}\",\"text\":\"{}\"}}\n\n",
            TOKENS[i % TOKENS.len()]
        );
    }
    out += &format!("data: {{\"sequence_number\":null,\"status\":\"completed\",{response}}}\n\n");
    out.into_bytes()
}

fn langchain_stream(deltas: usize) -> Vec<u8> {
    let mut out = String::new();
    let mut seq = 0;
    let mut envelope = |data: &str| {
        seq += 1;
        out += &format!(
            "event: messages\nid: {seq}\ndata: {{\"type\":\"event\",\"event_id\":\"{seq}\",\"seq\":{seq},\
             \"method\":\"messages\",\"params\":{{\"namespace\":[\"agent:1\"],\"timestamp\":{},\
             \"node\":\"model\",\"data\":{data}}}}}\n\n",
            1763700000000u64 + seq
        );
    };
    envelope(r#"{"event":"message-start","role":"ai","id":"run-1"}"#);
    envelope(r#"{"event":"content-block-start","index":0,"content":{"type":"text","text":""}}"#);
    for i in 0..deltas {
        envelope(&format!(
            "{{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{{\"type\":\"text-delta\",\"text\":\"{}\"}}}}",
            TOKENS[i % TOKENS.len()]
        ));
    }
    envelope(r#"{"event":"message-finish"}"#);
    out.into_bytes()
}

fn measure(name: &str, data: &[u8], min_time: Duration, mut assemble: impl FnMut(&[u8])) {
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with("--"))
        .collect();
    if !filters.is_empty() && !filters.iter().any(|f| name.contains(f.as_str())) {
        return;
    }
    let mut best = Duration::MAX;
    let mut spent = Duration::ZERO;
    let mut runs = 0;
    while runs < 3 || spent < min_time {
        let start = Instant::now();
        assemble(black_box(data));
        let elapsed = start.elapsed();
        best = best.min(elapsed);
        spent += elapsed;
        runs += 1;
    }
    println!(
        "{name:<40} {:>8.0} MB/s",
        data.len() as f64 / best.as_secs_f64() / 1e6
    );
}

fn main() {
    let quick = std::env::args().any(|arg| arg == "--quick");
    let min_time = Duration::from_millis(if quick { 10 } else { 2000 });
    let deltas = if quick { 1_000 } else { 200_000 };
    let chunk = 4096;

    let data = agentscope_stream(deltas);
    measure("AgentScope text, 4 KiB chunks", &data, min_time, |data| {
        let mut assembler = agentcodec::agentscope::Assembler::default();
        for piece in data.chunks(chunk) {
            assembler.feed(piece).unwrap();
        }
        assembler.close().unwrap();
        black_box(assembler.response());
    });

    let data = langchain_stream(deltas);
    measure("LangChain text, 4 KiB chunks", &data, min_time, |data| {
        let mut assembler = agentcodec::langchain::Assembler::default();
        for piece in data.chunks(chunk) {
            assembler.feed(piece).unwrap();
        }
        assembler.close().unwrap();
        black_box(assembler.messages());
    });
}
