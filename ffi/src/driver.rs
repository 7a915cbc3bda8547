//! The reference driver's transport (built with the `driver` feature, the default): the
//! `a2a_transport` handle (connection pool, TLS roots, client certificate, proxy, DNS rules)
//! that `a2a_call_run` (`driver_raw.rs`) performs the client machine's requests on, made
//! from the same `a2a_machine_config` as the machine (one configuration for both; the
//! builder's text options that only the transport reads are `TransportSettings` there).
//!
//! Every call is a client machine (`machine.rs`); this module only makes and frees the
//! transport. The typed client that used to live here (send, get, cancel, streams, its
//! by-value `a2a_client_config`) left the C ABI: its calls are machine calls run with
//! `a2a_call_run` (see the CHANGELOG's migration tables).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use a2a::driver::{Client, ClientConfig};

use crate::handle::{self, Handle, try_out, try_ref};
use crate::machine_config::{MachineConfig, a2a_machine_config};
use crate::panic::ffi_panic_boundary;
use crate::result::a2a_result;

/// The reference driver's configuration for a transport made from `config`: the machine's
/// connect timeout, response limit, stream idle timeout and `http://` policy, plus the
/// transport's own options.
fn driver_config(config: &MachineConfig) -> ClientConfig {
    let t = &config.transport;
    let defaults = ClientConfig::default();
    ClientConfig {
        connect_timeout: Duration::from_millis(config.client.connect_timeout.0),
        call_timeout: Duration::from_millis(config.client.call_timeout.0),
        stream_idle_timeout: Duration::from_millis(config.stream.idle_timeout.0),
        max_response_bytes: config.client.max_response_bytes,
        max_event_bytes: config.stream.max_event_bytes,
        allow_http: config.card.policy.allow_http,
        allow_hosts: config.allow_hosts.clone(),
        pool_idle_timeout: t
            .pool_idle_timeout_ms
            .map_or(defaults.pool_idle_timeout, Duration::from_millis),
        ca_file: t.ca_file.clone().map(PathBuf::from),
        client_cert_file: t.client_cert_file.clone().map(PathBuf::from),
        client_key_file: t.client_key_file.clone().map(PathBuf::from),
        proxy: if t.proxy_disabled {
            Some(String::new())
        } else {
            t.proxy.clone()
        },
        no_proxy: t.no_proxy.clone(),
        resolve: t.resolve.clone(),
        ..defaults
    }
}

/// The reference driver's transport: a connection pool with its TLS roots, client
/// certificate, proxy and DNS rules, on which `a2a_call_run` performs client machine
/// calls.
///
/// Methods: `a2a_transport_new`, `a2a_transport_free`; used by `a2a_call_run`.
///
/// Threading: thread-safe for its runs (any number of `a2a_call_run` on different calls
/// may share it at once: it pools connections). Each run is counted in the transport while
/// it runs: `a2a_transport_free` waits for the runs in flight (a run entering meanwhile
/// returns `A2A_CLOSED`). No run may start once `a2a_transport_free` returned.
pub struct a2a_transport {
    pub(crate) inner: Arc<Client>,
}

impl Handle for a2a_transport {}

/// A transport configured by `config` (the same `a2a_machine_config` the client states and
/// card fetches run on): its connect timeout, response body limit, stream idle timeout and
/// `A2A_CLIENT_OPTION_ALLOW_HTTP`, the transport options (`a2a_client_config_builder_set_text`
/// and `A2A_CLIENT_OPTION_PROXY_DISABLED` / `_POOL_IDLE_TIMEOUT_MS`). `config` is read
/// during the call only. Does no I/O: a CA file or client certificate that cannot be read
/// fails each call on the transport (before anything is sent) with a `transport` outcome
/// saying why. `out`: a new transport the caller owns (free with `a2a_transport_free`),
/// written on success only.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_transport_new(
    config: *const a2a_machine_config,
    out: *mut *mut a2a_transport,
) -> a2a_result {
    ffi_panic_boundary! {
        let config = try_ref!(config);
        let out = try_out!(out);
        let client = Client::raw(driver_config(&config.inner));
        out.set(handle::into_raw(a2a_transport { inner: Arc::new(client) }));
        a2a_result::A2A_OK
    }
}

/// Frees a transport. NULL is a no-op; must not be called twice. A stream a call read on
/// it keeps its connection until that call is freed.
///
/// Runs in flight on other threads are waited for: this marks the transport closing (a
/// run that enters from now on returns `A2A_CLOSED` and does nothing), BLOCKS until every
/// run inside has returned (bounded by those runs' deadlines; trigger their abort
/// switches to end them at once), then frees. Still the caller's duty: no run may start
/// after this returned (a use-after-free), and never call it from a header hook of a call
/// running on this transport (it would wait for the hook's own run forever).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_transport_free(transport: *mut a2a_transport) {
    ffi_panic_boundary! {
        // SAFETY: the header requires a pointer from this library, not yet freed.
        unsafe { handle::free(transport) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine_config::*;
    use std::ptr::null_mut;

    fn built(b: *mut a2a_client_config_builder) -> *mut a2a_machine_config {
        let mut cfg = null_mut();
        assert_eq!(
            a2a_client_config_builder_build(b, &mut cfg),
            a2a_result::A2A_OK
        );
        cfg
    }

    fn set_text(
        b: *mut a2a_client_config_builder,
        o: a2a_client_text_option,
        t: &str,
    ) -> a2a_result {
        a2a_client_config_builder_set_text(b, o as u32, t.as_ptr().cast(), t.len())
    }

    #[test]
    fn the_transport_reads_the_machine_config_and_its_own_options() {
        use a2a_client_text_option as O;
        let b = a2a_client_config_builder_new();
        assert_eq!(
            a2a_client_config_builder_set(b, a2a_client_option::ConnectTimeoutMs as u32, 1234),
            a2a_result::A2A_OK
        );
        assert_eq!(
            a2a_client_config_builder_set(b, a2a_client_option::AllowHttp as u32, 1),
            a2a_result::A2A_OK
        );
        assert_eq!(set_text(b, O::CaFile, "/etc/ca.pem"), a2a_result::A2A_OK);
        assert_eq!(set_text(b, O::ClientCertFile, "c.pem"), a2a_result::A2A_OK);
        assert_eq!(set_text(b, O::ClientKeyFile, "k.pem"), a2a_result::A2A_OK);
        assert_eq!(set_text(b, O::Proxy, "http://p:3128"), a2a_result::A2A_OK);
        assert_eq!(set_text(b, O::NoProxy, "internal"), a2a_result::A2A_OK);
        assert_eq!(
            set_text(b, O::AllowHost, "agent.internal"),
            a2a_result::A2A_OK
        );
        assert_eq!(
            set_text(b, O::Resolve, "a.test:443:127.0.0.1"),
            a2a_result::A2A_OK
        );
        assert_eq!(
            set_text(b, O::Resolve, "b.test:443:127.0.0.2"),
            a2a_result::A2A_OK
        );
        let cfg = built(b);
        // SAFETY: a live config from the builder.
        let inner = unsafe { &(*cfg).inner };
        assert!(
            inner.client.client_certificate,
            "a certificate satisfies mutualTLS"
        );
        let d = driver_config(inner);
        assert_eq!(d.connect_timeout, Duration::from_millis(1234));
        assert!(d.allow_http);
        assert_eq!(d.ca_file, Some(PathBuf::from("/etc/ca.pem")));
        assert_eq!(d.proxy.as_deref(), Some("http://p:3128"));
        assert_eq!(d.no_proxy.as_deref(), Some("internal"));
        assert_eq!(d.resolve, ["a.test:443:127.0.0.1", "b.test:443:127.0.0.2"]);
        assert_eq!(d.allow_hosts, ["agent.internal"]);
        assert_eq!(
            inner.card.policy.allowed_origins,
            ["https://agent.internal", "http://agent.internal"],
            "a bare host is allowed on https, and on http when http is"
        );
        let mut t = null_mut();
        assert_eq!(a2a_transport_new(cfg, &mut t), a2a_result::A2A_OK);
        assert!(!t.is_null());
        a2a_transport_free(t);
        a2a_machine_config_free(cfg);

        // Empty text clears; the proxy switch wins over a proxy.
        assert_eq!(set_text(b, O::Resolve, ""), a2a_result::A2A_OK);
        assert_eq!(set_text(b, O::ClientCertFile, ""), a2a_result::A2A_OK);
        assert_eq!(
            a2a_client_config_builder_set(b, a2a_client_option::ProxyDisabled as u32, 1),
            a2a_result::A2A_OK
        );
        let cfg = built(b);
        // SAFETY: a live config from the builder.
        let inner = unsafe { &(*cfg).inner };
        assert!(!inner.client.client_certificate);
        let d = driver_config(inner);
        assert!(d.resolve.is_empty());
        assert_eq!(d.proxy.as_deref(), Some(""), "no proxy at all");
        a2a_machine_config_free(cfg);
        a2a_client_config_builder_free(b);
    }

    #[test]
    fn unknown_text_options_and_bad_arguments_change_nothing() {
        let b = a2a_client_config_builder_new();
        assert_eq!(
            a2a_client_config_builder_set_text(b, 99, b"x".as_ptr().cast(), 1),
            a2a_result::A2A_INVALID_ARGUMENT
        );
        assert_eq!(
            a2a_client_config_builder_set_text(b, 1, b"\xff".as_ptr().cast(), 1),
            a2a_result::A2A_INVALID_UTF8
        );
        assert_eq!(
            a2a_client_config_builder_set_text(b, 1, std::ptr::null(), 3),
            a2a_result::A2A_NULL_PARAMETER
        );
        assert_eq!(
            a2a_client_config_builder_set_text(null_mut(), 1, b"x".as_ptr().cast(), 1),
            a2a_result::A2A_NULL_PARAMETER
        );
        let cfg = built(b);
        // SAFETY: a live config from the builder.
        assert!(unsafe { &(*cfg).inner }.transport.ca_file.is_none());
        let mut t = null_mut();
        assert_eq!(
            a2a_transport_new(std::ptr::null(), &mut t),
            a2a_result::A2A_NULL_PARAMETER
        );
        assert_eq!(
            a2a_transport_new(cfg, std::ptr::null_mut()),
            a2a_result::A2A_NULL_PARAMETER
        );
        a2a_transport_free(std::ptr::null_mut());
        a2a_machine_config_free(cfg);
        a2a_client_config_builder_free(b);
    }
}
