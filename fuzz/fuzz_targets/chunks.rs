//! Cutting fuzz input into chunks: the first byte says how long each chunk
//! is (1 to 16 bytes, cycling through the bytes after it), so that libFuzzer
//! explores chunk boundaries as it explores content.

/// `(chunk lengths seed, data)`.
pub fn split(input: &[u8]) -> (&[u8], &[u8]) {
    match input.split_first() {
        Some((&count, rest)) => {
            let count = usize::from(count % 8).min(rest.len());
            rest.split_at(count)
        }
        None => (&[], &[]),
    }
}

/// `data` in the chunks the seed says.
pub fn chunks<'a>(seed: &[u8], data: &'a [u8]) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut rest = data;
    let mut i = 0;
    while !rest.is_empty() {
        let size = seed
            .get(i % seed.len().max(1))
            .map_or(rest.len(), |&b| usize::from(b % 16) + 1);
        let (chunk, after) = rest.split_at(size.min(rest.len()));
        out.push(chunk);
        rest = after;
        i += 1;
    }
    out
}
