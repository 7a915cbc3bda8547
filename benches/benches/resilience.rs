//! The resilience layer's per-call costs: key and messageId derivation (SHA-256), the retry
//! policy's decision, the breaker's admission and record, and the model-facing line.

use a2a_core::outcome::{Channel, ErrorName, Outcome, RequestSent, RetryAdvice, TaskState};
use a2a_core::resilience::sha256;
use a2a_core::resilience::{
    BreakerConfig, CallKind, CircuitBreaker, RetryAction, RetryConfig, RetryPolicy,
    derive_idempotency_key, derive_message_id, model_text,
};
use a2a_core::time::Millis;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

fn derivation(c: &mut Criterion) {
    let args = r#"{"date":"2026-12-01","from":"AMS","passengers":[{"name":"A"}],"to":"LIS"}"#;
    let parts = ["conversation-7f3a9c", "book_flight", args];
    let key = derive_idempotency_key(&parts).unwrap();
    assert_eq!(key.len(), 40);
    c.bench_function("derive_idempotency_key (3 parts, ~100 bytes)", |b| {
        b.iter(|| {
            let k = derive_idempotency_key(black_box(&parts)).unwrap();
            assert_eq!(k, key);
            k
        })
    });
    let id = derive_message_id(&parts).unwrap();
    c.bench_function("derive_message_id (3 parts, ~100 bytes)", |b| {
        b.iter(|| {
            let m = derive_message_id(black_box(&parts)).unwrap();
            assert_eq!(m, id);
            m
        })
    });
    let data = vec![0x61u8; 64 * 1024];
    let mut g = c.benchmark_group("sha256");
    g.throughput(Throughput::Bytes(data.len() as u64));
    assert_eq!(sha256::digest(b"abc")[0], 0xba);
    let want = sha256::digest(&data);
    g.bench_function("64 KiB", |b| {
        b.iter(|| {
            let d = sha256::digest(black_box(&data));
            assert_eq!(d, want);
            d
        })
    });
    g.finish();
}

fn decisions(c: &mut Criterion) {
    let timeout = Outcome::transport(ErrorName::Timeout, RequestSent::Unknown, "read timeout");
    let config = RetryConfig {
        kind: CallKind::WithIdempotencyKey,
        deadline: Some(Millis(60_000)),
        attempt_estimate: Millis(1_000),
        ..RetryConfig::default()
    };
    c.bench_function("RetryPolicy::new + next (timeout)", |b| {
        b.iter(|| {
            let mut p = RetryPolicy::new(config, Millis(0)).unwrap();
            let a = p.next(black_box(&timeout), Millis(900), black_box(0x1234_5678));
            assert!(matches!(a, RetryAction::RetryAfter(_)));
            a
        })
    });
    let mut breaker = CircuitBreaker::new("agent", BreakerConfig::default()).unwrap();
    let ok = Outcome::empty(Channel::Message);
    let mut now = 0u64;
    c.bench_function("CircuitBreaker allow + record (closed)", |b| {
        b.iter(|| {
            now += 7;
            assert!(breaker.allow(Millis(now)));
            breaker.record(black_box(&ok), Millis(now));
        })
    });
    let failed = Outcome::task(TaskState::Failed)
        .with_text(
            "Booking failed: the seat is no longer available. error_id: 3f9c0a7b12de".to_owned(),
        )
        .with_error_id("3f9c0a7b12de".to_owned());
    assert_eq!(failed.retry, RetryAdvice::NewTask);
    c.bench_function("model_text (failed task)", |b| {
        b.iter(|| {
            let t = model_text(black_box("booking"), black_box(&failed)).unwrap();
            assert!(t.contains("3f9c0a7b12de"));
            t
        })
    });
}

criterion_group!(benches, derivation, decisions);
criterion_main!(benches);
