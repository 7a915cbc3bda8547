//! Shared by the SSE fuzz targets: decode with given chunk sizes into owned items.

use a2a_core::sse::{Config, Decoder, Item};

/// An item, owned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Got {
    Ev(Vec<u8>, Vec<u8>, Vec<u8>),
    Comment(Vec<u8>),
    Retry(u64),
    Err(&'static str),
}

/// Decodes `input` in chunks whose sizes cycle through `sizes` (each at least 1; whole when
/// empty), then finishes; returns the items and the finish report as owned values.
pub fn decode(input: &[u8], sizes: &[u8], config: Config) -> (Vec<Got>, String, Vec<u8>) {
    let mut dec = Decoder::with_config(config);
    let mut out = Vec::new();
    let mut rest = input;
    let mut i = 0;
    while !rest.is_empty() {
        let n = if sizes.is_empty() { rest.len() } else { usize::from(sizes[i % sizes.len()]).max(1) };
        i += 1;
        let (chunk, tail) = rest.split_at(n.min(rest.len()));
        rest = tail;
        let mut feed = dec.feed(chunk);
        loop {
            match feed.next_item() {
                Ok(None) => break,
                Ok(Some(Item::Event(e))) => out.push(Got::Ev(e.event_type.to_vec(), e.data.to_vec(), e.id.to_vec())),
                Ok(Some(Item::Comment(c))) => out.push(Got::Comment(c.to_vec())),
                Ok(Some(Item::Retry(ms))) => out.push(Got::Retry(ms)),
                Err(e) => out.push(Got::Err(e.limit_name())),
            }
        }
        assert_eq!(feed.consumed(), chunk.len());
    }
    let fin = format!("{:?}", dec.finish());
    (out, fin, dec.last_event_id().to_vec())
}
