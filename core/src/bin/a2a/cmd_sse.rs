//! `a2a sse [--chunk N] [--dispatch-at-eof] [--max-line BYTES] [--max-event BYTES]`
//!
//! Reads an event stream from standard input, feeds it to the decoder in N-byte chunks
//! (default: as read), and writes one JSON object per dispatched event, one per line:
//! `{"type":"<event type>","data":"<data>","id":"<last event id in effect>"}`, values decoded
//! as UTF-8 with U+FFFD for invalid bytes. Each read's events are written and flushed before
//! the next read, so an event appears as soon as its blank line arrives. A limit error is
//! written to standard error and makes the exit status 1 at the end; decoding goes on.
use std::io::{self, Read, Write};

use a2a_core::sse::{AtEof, Config, Decoder, Event, Item};

use crate::args::{Args, EXIT_CLOSED_STDOUT, usage_error};

/// Runs `a2a sse`.
pub fn run(mut args: Args) -> i32 {
    let parsed = (|| -> Result<(Option<usize>, Config), String> {
        let mut config = Config::new();
        if args.flag("--dispatch-at-eof") {
            config = config.with_at_eof(AtEof::Dispatch);
        }
        if let Some(n) = args.parsed::<usize>("--max-line")? {
            config = config.with_max_line(n);
        }
        if let Some(n) = args.parsed::<usize>("--max-event")? {
            config = config.with_max_event(n);
        }
        let chunk = args.parsed::<usize>("--chunk")?;
        if chunk == Some(0) {
            return Err("--chunk must be at least 1".into());
        }
        args.finish()?;
        Ok((chunk, config))
    })();
    let (chunk, config) = match parsed {
        Ok(p) => p,
        Err(msg) => return usage_error("sse", &msg),
    };
    match decode(io::stdin().lock(), io::stdout().lock(), chunk, config) {
        Ok(limit_errors) => i32::from(limit_errors > 0),
        // The reader went away (`| head -1`): stop quietly.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => EXIT_CLOSED_STDOUT,
        Err(e) => {
            eprintln!("a2a sse: {e}");
            3
        }
    }
}

/// Decodes `input` to `out`; returns the number of limit errors.
fn decode(
    mut input: impl Read,
    out: impl Write,
    chunk: Option<usize>,
    config: Config,
) -> io::Result<usize> {
    let mut out = io::BufWriter::new(out);
    let mut decoder = Decoder::with_config(config);
    let mut buf = vec![0u8; 64 * 1024];
    let mut errors = 0;
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let step = chunk.unwrap_or(n);
        for piece in buf[..n].chunks(step) {
            let mut feed = decoder.feed(piece);
            loop {
                match feed.next_item() {
                    Ok(None) => break,
                    Ok(Some(Item::Event(event))) => write_event(&mut out, &event)?,
                    Ok(Some(_)) => {}
                    Err(e) => {
                        errors += 1;
                        out.flush()?;
                        eprintln!("a2a sse: {e}");
                    }
                }
            }
        }
        out.flush()?;
    }
    let finish = decoder.finish();
    if let Some(event) = finish.event {
        write_event(&mut out, &event)?;
    }
    if let Some(e) = finish.error {
        errors += 1;
        eprintln!("a2a sse: {e}");
    }
    if let Some(d) = finish.discarded {
        eprintln!(
            "a2a sse: end of input inside an event: discarded {} byte(s) of an unterminated line{}{} (--dispatch-at-eof dispatches it)",
            d.partial_line,
            if d.event {
                ", an undispatched event"
            } else {
                ""
            },
            if d.id { ", an uncommitted id" } else { "" },
        );
    }
    out.flush()?;
    Ok(errors)
}

/// Writes `{"type":..,"data":..,"id":..}` and a newline.
fn write_event(out: &mut impl Write, event: &Event<'_>) -> io::Result<()> {
    out.write_all(b"{\"type\":")?;
    serde_json::to_writer(&mut *out, &*event.event_type_lossy())?;
    out.write_all(b",\"data\":")?;
    serde_json::to_writer(&mut *out, &*event.data_lossy())?;
    out.write_all(b",\"id\":")?;
    serde_json::to_writer(&mut *out, &*event.id_lossy())?;
    out.write_all(b"}\n")
}
