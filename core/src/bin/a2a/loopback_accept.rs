//! The accept loop of the loopback servers (the `a2a demo` agent, `a2a-testkit fault-server`,
//! the benchmark server): one thread per connection, and resource exhaustion survived rather
//! than fatal.
//!
//! - At most [`AcceptOptions::max_connections`] connections are served at once. The next one
//!   is refused cleanly: `503 Service Unavailable` with `retry-after: 1` and
//!   `connection: close` (what uvicorn's `--limit-concurrency` answers), written on the accept
//!   thread without reading the request, so a flood costs no threads. A 503 rather than a
//!   bare close so that the client can tell "busy, nothing was done, retry" from a network
//!   failure. Connections already being served are not disturbed.
//! - A thread that cannot be started (the process's thread limit, memory) drops that one
//!   connection (the client sees it close), is logged once, and the loop keeps accepting.
//! - An accept error (out of file descriptors) waits a little, doubling up to a second, so a
//!   full descriptor table does not spin the accept thread, then the loop goes on.

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How the accept loop runs.
#[derive(Debug, Clone, Copy)]
pub struct AcceptOptions {
    /// The server's name, for its log lines (`a2a demo`, `a2a-testkit fault-server`).
    pub name: &'static str,
    /// Most connections served at once (default 256).
    pub max_connections: usize,
}

impl AcceptOptions {
    /// The defaults, under the server's `name`.
    pub fn named(name: &'static str) -> AcceptOptions {
        AcceptOptions {
            name,
            max_connections: 256,
        }
    }
}

/// The work of one connection, handed to a spawner.
pub type Job = Box<dyn FnOnce() + Send + 'static>;

/// Starts `job` on a thread of its own. `Err` when the thread cannot be created; `job` (and
/// the connection it owns) is then dropped.
pub fn spawn_thread(job: Job) -> io::Result<()> {
    std::thread::Builder::new()
        .name("connection".to_owned())
        .spawn(job)
        .map(drop)
}

/// Accepts connections on `listener` for as long as it is open, serving each with `serve`
/// on a thread of its own (see the module documentation for the limits).
pub fn serve_forever<F>(listener: TcpListener, options: AcceptOptions, serve: F)
where
    F: Fn(TcpStream) + Send + Sync + 'static,
{
    serve_forever_with(listener, options, spawn_thread, serve);
}

/// [`serve_forever`] with the thread spawner given (tests make it fail).
pub fn serve_forever_with<S, F>(
    listener: TcpListener,
    options: AcceptOptions,
    mut spawn: S,
    serve: F,
) where
    S: FnMut(Job) -> io::Result<()>,
    F: Fn(TcpStream) + Send + Sync + 'static,
{
    let serve = Arc::new(serve);
    let active = Arc::new(AtomicUsize::new(0));
    let (mut spawn_failure_logged, mut accept_failure_logged) = (false, false);
    let mut backoff = Duration::ZERO;
    for conn in listener.incoming() {
        let stream = match conn {
            Ok(s) => {
                backoff = Duration::ZERO;
                s
            }
            Err(e) => {
                if !accept_failure_logged {
                    eprintln!("{}: accept failed ({e}); retrying", options.name);
                    accept_failure_logged = true;
                }
                backoff = (backoff * 2).clamp(Duration::from_millis(5), Duration::from_secs(1));
                std::thread::sleep(backoff);
                continue;
            }
        };
        let Some(slot) = Slot::take(&active, options.max_connections) else {
            refuse_busy(stream);
            continue;
        };
        let serve = Arc::clone(&serve);
        let job: Job = Box::new(move || {
            let _slot = slot;
            serve(stream);
        });
        if let Err(e) = spawn(job)
            && !spawn_failure_logged
        {
            eprintln!(
                "{}: cannot start a thread for a connection ({e}); dropping such connections and accepting the next",
                options.name
            );
            spawn_failure_logged = true;
        }
    }
}

/// One of the `max_connections` places, given back when the connection's job ends (or is
/// dropped unstarted).
struct Slot(Arc<AtomicUsize>);

impl Slot {
    fn take(active: &Arc<AtomicUsize>, max: usize) -> Option<Slot> {
        active
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .ok()
            .map(|_| Slot(Arc::clone(active)))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// How long the accept thread lingers on a refused connection, reading what the client
/// already sent so that the close is a FIN and not a reset that could destroy the 503.
const REFUSAL_LINGER: Duration = Duration::from_millis(50);

/// Answers a connection over the cap with `503` and closes it, on the accept thread (bounded
/// by [`REFUSAL_LINGER`] and short write timeouts).
fn refuse_busy(mut stream: TcpStream) {
    const BODY: &[u8] = b"too many connections; retry shortly\n";
    let _ = stream.set_write_timeout(Some(REFUSAL_LINGER));
    let head = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n",
        BODY.len()
    );
    let mut out = head.into_bytes();
    out.extend_from_slice(BODY);
    if stream.write_all(&out).is_err() {
        return;
    }
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let end = Instant::now() + REFUSAL_LINGER;
    let mut sink = [0u8; 4096];
    for _ in 0..16 {
        let left = end.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            return;
        }
        match stream.read(&mut sink) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;
    use std::sync::mpsc;

    const WAIT: Duration = Duration::from_secs(10);

    /// Reads until end of file (bounded by `WAIT`); a reset counts as the end.
    fn read_all(s: &mut TcpStream) -> Vec<u8> {
        s.set_read_timeout(Some(WAIT)).unwrap();
        let mut out = Vec::new();
        let mut chunk = [0u8; 1024];
        loop {
            match s.read(&mut chunk) {
                Ok(0) | Err(_) => return out,
                Ok(n) => out.extend_from_slice(&chunk[..n]),
            }
        }
    }

    fn listener() -> (TcpListener, std::net::SocketAddr) {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        (l, addr)
    }

    /// A failed thread spawn drops that connection only; the next one is served. (The loop
    /// used `std::thread::spawn`, which panics on failure and ended the accept thread.)
    #[test]
    fn a_failed_spawn_drops_that_connection_and_the_loop_keeps_accepting() {
        let (l, addr) = listener();
        let calls = Arc::new(Mutex::new(0u32));
        let seen = Arc::clone(&calls);
        std::thread::spawn(move || {
            serve_forever_with(
                l,
                AcceptOptions::named("test"),
                move |job| {
                    let mut n = seen.lock().unwrap();
                    *n += 1;
                    if *n <= 2 {
                        drop(job);
                        return Err(io::Error::new(io::ErrorKind::WouldBlock, "no threads left"));
                    }
                    spawn_thread(job)
                },
                |mut s: TcpStream| {
                    let _ = s.write_all(b"served");
                },
            );
        });
        for _ in 0..2 {
            let mut dropped = TcpStream::connect(addr).unwrap();
            assert_eq!(
                read_all(&mut dropped),
                b"",
                "a dropped connection closes unanswered"
            );
        }
        let mut next = TcpStream::connect(addr).unwrap();
        assert_eq!(read_all(&mut next), b"served");
        assert_eq!(*calls.lock().unwrap(), 3);
    }

    /// Over the cap, a connection gets a 503 and is closed while the earlier ones are still
    /// served; once one of those ends, its place is free again.
    #[test]
    fn connections_over_the_cap_get_503_while_the_earlier_ones_are_served() {
        let (l, addr) = listener();
        // Each connection's job waits for a line, then answers it.
        let (started_tx, started_rx) = mpsc::channel::<()>();
        let started_tx = Mutex::new(started_tx);
        std::thread::spawn(move || {
            serve_forever(
                l,
                AcceptOptions {
                    name: "test",
                    max_connections: 2,
                },
                move |mut s: TcpStream| {
                    let _ = started_tx.lock().unwrap().send(());
                    s.set_read_timeout(Some(WAIT)).unwrap();
                    let mut b = [0u8; 1];
                    if matches!(s.read(&mut b), Ok(1)) {
                        let _ = s.write_all(&[b[0], b'!']);
                    }
                },
            );
        });
        let mut held: Vec<TcpStream> = (0..2).map(|_| TcpStream::connect(addr).unwrap()).collect();
        for _ in 0..2 {
            started_rx
                .recv_timeout(WAIT)
                .expect("both connections are being served");
        }
        let mut third = TcpStream::connect(addr).unwrap();
        third
            .write_all(b"GET / HTTP/1.1\r\nHost: h\r\n\r\n")
            .unwrap();
        let refused = String::from_utf8(read_all(&mut third)).unwrap();
        assert!(
            refused.starts_with("HTTP/1.1 503 Service Unavailable\r\n"),
            "{refused}"
        );
        assert!(refused.contains("\r\nconnection: close\r\n"), "{refused}");
        assert!(refused.contains("\r\nretry-after: 1\r\n"), "{refused}");
        // The earlier connections are still served.
        for (i, s) in held.iter_mut().enumerate() {
            let b = b'a' + i as u8;
            s.write_all(&[b]).unwrap();
            assert_eq!(read_all(s), [b, b'!']);
        }
        // Their places are free again (the jobs ended); bounded retry while they wind down.
        let deadline = Instant::now() + WAIT;
        loop {
            let mut s = TcpStream::connect(addr).unwrap();
            s.write_all(b"z").unwrap();
            let got = read_all(&mut s);
            if got == b"z!" {
                break;
            }
            assert!(got.starts_with(b"HTTP/1.1 503"), "{got:?}");
            assert!(
                Instant::now() < deadline,
                "the places were never given back"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}
