//! Shared pieces of the client-overhead harness (`scripts/bench/clients.py`): the process
//! CPU clock, the resident set size, the run parameters every client reads from the
//! environment, and the one JSON line every client prints.
//!
//! The contract every client program follows (Rust, Go, Python, JavaScript, Java alike):
//! - parameters from the environment: `BENCH_URL` (the bench server's base URL),
//!   `BENCH_SENDS` (measured sends, default 2000), `BENCH_WARMUP` (warm-up sends, default
//!   200), `BENCH_EVENTS` (events of the measured stream, default 10000),
//!   `BENCH_WARMUP_EVENTS` (events of the warm-up stream, default 1000), `BENCH_IDLE`
//!   (idle streams held open for the memory figure, default 100; 0 skips it);
//! - warm-up sends and one warm-up stream, then `BENCH_SENDS` sequential sends of the text
//!   `ping` (each answer asserted: a COMPLETED task whose artifact text is `ping`), then one
//!   stream of `stream <BENCH_EVENTS>` (every event counted, the last one COMPLETED, the
//!   last artifact's text asserted), then `BENCH_IDLE` streams of `hold` opened at once and
//!   their first event read, with the resident set size before and after;
//! - one JSON line on standard output ([`Report`]); anything else goes to standard error.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use std::time::Instant;

use rustix::time::{ClockId, clock_gettime};

/// CPU time of the whole process (every thread, exited ones included), in nanoseconds.
pub fn process_cpu_ns() -> u64 {
    ns(clock_gettime(ClockId::ProcessCPUTime))
}

/// CPU time of the calling thread, in nanoseconds.
pub fn thread_cpu_ns() -> u64 {
    ns(clock_gettime(ClockId::ThreadCPUTime))
}

fn ns(t: rustix::time::Timespec) -> u64 {
    u64::try_from(t.tv_sec).unwrap_or(0) * 1_000_000_000 + u64::try_from(t.tv_nsec).unwrap_or(0)
}

/// The resident set size of this process in KiB (`VmRSS` of `/proc/self/status`).
pub fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn env_num(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a number")),
        Err(_) => default,
    }
}

/// The run parameters (see the crate documentation for the variables).
#[derive(Debug, Clone)]
pub struct Params {
    /// The bench server's base URL (`BENCH_URL`).
    pub url: String,
    /// Measured sends.
    pub sends: u64,
    /// Warm-up sends.
    pub warmup: u64,
    /// Events of the measured stream.
    pub events: u64,
    /// Events of the warm-up stream.
    pub warmup_events: u64,
    /// Idle streams held open for the memory figure.
    pub idle: u64,
}

impl Params {
    /// Reads the parameters from the environment (`BENCH_URL` is required).
    pub fn from_env() -> Params {
        Params {
            url: std::env::var("BENCH_URL").expect("BENCH_URL must name the bench server"),
            sends: env_num("BENCH_SENDS", 2000),
            warmup: env_num("BENCH_WARMUP", 200),
            events: env_num("BENCH_EVENTS", 10_000),
            warmup_events: env_num("BENCH_WARMUP_EVENTS", 1000),
            idle: env_num("BENCH_IDLE", 100),
        }
    }
}

/// Wall-clock and process CPU time of one measured section.
#[derive(Debug, Clone, Copy)]
pub struct Section {
    wall: Instant,
    cpu: u64,
}

impl Section {
    /// Starts measuring now.
    pub fn start() -> Section {
        Section {
            wall: Instant::now(),
            cpu: process_cpu_ns(),
        }
    }

    /// `(wall seconds, CPU nanoseconds)` since [`Section::start`].
    pub fn stop(&self) -> (f64, u64) {
        let cpu = process_cpu_ns().saturating_sub(self.cpu);
        (self.wall.elapsed().as_secs_f64(), cpu)
    }
}

/// What a client measured: printed as one JSON line by [`Report::print`].
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// The client's name (`raw`, `driver`, ...).
    pub client: String,
    /// Measured sends.
    pub sends: u64,
    /// Their wall-clock time in seconds.
    pub send_wall_s: f64,
    /// Their process CPU time in nanoseconds.
    pub send_cpu_ns: u64,
    /// Events of the measured stream.
    pub events: u64,
    /// Its wall-clock time in seconds (from the request to the last event).
    pub stream_wall_s: f64,
    /// Its process CPU time in nanoseconds.
    pub stream_cpu_ns: u64,
    /// Idle streams held open.
    pub idle: u64,
    /// Resident set size before opening them, KiB.
    pub rss_before_kib: u64,
    /// Resident set size with all of them open, KiB.
    pub rss_after_kib: u64,
}

impl Report {
    /// The JSON line (the same keys every client prints).
    pub fn to_json(&self) -> serde_json::Value {
        let per = |ns: u64, n: u64| {
            if n == 0 {
                0.0
            } else {
                ns as f64 / 1000.0 / n as f64
            }
        };
        let rate = |n: u64, s: f64| if s > 0.0 { n as f64 / s } else { 0.0 };
        let rss_per = if self.idle == 0 {
            0.0
        } else {
            (self.rss_after_kib as f64 - self.rss_before_kib as f64) / self.idle as f64
        };
        serde_json::json!({
            "client": self.client,
            "sends": self.sends,
            "sends_per_s": rate(self.sends, self.send_wall_s),
            "cpu_us_per_send": per(self.send_cpu_ns, self.sends),
            "events": self.events,
            "events_per_s": rate(self.events, self.stream_wall_s),
            "cpu_us_per_event": per(self.stream_cpu_ns, self.events),
            "idle_streams": self.idle,
            "rss_before_kib": self.rss_before_kib,
            "rss_after_kib": self.rss_after_kib,
            "rss_kib_per_stream": rss_per,
        })
    }

    /// Prints the JSON line on standard output.
    pub fn print(&self) {
        println!("{}", self.to_json());
    }
}

/// Panics with `what` unless `ok`: every client asserts the answers it measures.
#[track_caller]
pub fn check(ok: bool, what: impl FnOnce() -> String) {
    if !ok {
        panic!("wrong answer: {}", what());
    }
}
