//! TLS trust and client certificates, and what a TLS failure means.
//!
//! Trust is ureq's `platform-verifier` (the `rustls-platform-verifier` crate): on Linux it
//! reads the system store through `rustls-native-certs`, which honours `SSL_CERT_FILE` and
//! `SSL_CERT_DIR` as OpenSSL does; on macOS and Windows it asks the OS. A CA file given by
//! the caller replaces it (curl's `--cacert`). A client certificate is presented when the
//! server asks for one. Failures are one `transport`/`Tls` outcome whose `reason` names the
//! cause (`unknown_issuer`, `expired`, `not_yet_valid`, `name_mismatch`, `handshake`,
//! `client_cert_refused`) and whose hint says what to do.

use std::path::Path;

use rustls::{AlertDescription, CertificateError};
use ureq::tls::{Certificate, ClientCert, PemItem, PrivateKey, RootCerts, TlsConfig};

use super::config::ClientConfig;
use crate::outcome::{ErrorName, Outcome, RequestSent, RetryAdvice};

/// The TLS settings for `cfg`, or why its files cannot be used.
pub(crate) fn tls_config(cfg: &ClientConfig) -> Result<TlsConfig, String> {
    let roots = match &cfg.ca_file {
        None => RootCerts::PlatformVerifier,
        Some(path) => {
            let (certs, _) = read_pem(path, "CA file")?;
            if certs.is_empty() {
                return Err(format!(
                    "CA file {}: no PEM certificate in it",
                    path.display()
                ));
            }
            RootCerts::new_with_certs(&certs)
        }
    };
    let client_cert = match (&cfg.client_cert_file, &cfg.client_key_file) {
        (None, None) => None,
        (Some(_), None) => {
            return Err("a client certificate needs its private key (--key FILE)".to_owned());
        }
        (None, Some(_)) => {
            return Err("a client key needs its certificate (--cert FILE)".to_owned());
        }
        (Some(cert), Some(key)) => {
            let (chain, _) = read_pem(cert, "client certificate")?;
            if chain.is_empty() {
                return Err(format!(
                    "client certificate {}: no PEM certificate in it",
                    cert.display()
                ));
            }
            let (_, keys) = read_pem(key, "client key")?;
            let Some(key_der) = keys.into_iter().next() else {
                return Err(format!(
                    "client key {}: no PEM private key in it",
                    key.display()
                ));
            };
            check_client_cert(&chain, key).map_err(|e| {
                format!(
                    "client certificate {} with key {}: {e}",
                    cert.display(),
                    key.display()
                )
            })?;
            Some(ClientCert::new_with_certs(&chain, key_der))
        }
    };
    Ok(TlsConfig::builder()
        .root_certs(roots)
        .client_cert(client_cert)
        .build())
}

/// Whether rustls accepts `chain` and `key` as a client certificate, checked the way ureq
/// loads them (ureq treats a refusal there as a bug and panics; here it is the caller's
/// configuration error, reported before anything is sent).
fn check_client_cert(chain: &[Certificate<'static>], key_file: &Path) -> Result<(), String> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let certs: Vec<CertificateDer<'static>> = chain
        .iter()
        .map(|c| CertificateDer::from(c.der().to_vec()))
        .collect();
    let key = PrivateKeyDer::from_pem_file(key_file).map_err(|e| e.to_string())?;
    rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| e.to_string())?
    .with_root_certificates(rustls::RootCertStore::empty())
    .with_client_auth_cert(certs, key)
    .map(|_| ())
    .map_err(|e| format!("the TLS library cannot use them: {e}"))
}

type Pem = (Vec<Certificate<'static>>, Vec<PrivateKey<'static>>);

/// The certificates and keys in a PEM file (ureq's PEM reader, from rustls-pki-types).
fn read_pem(path: &Path, what: &str) -> Result<Pem, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{what} {}: {e}", path.display()))?;
    let mut certs = Vec::new();
    let mut keys = Vec::new();
    for item in ureq::tls::parse_pem(&bytes) {
        match item.map_err(|e| format!("{what} {}: not valid PEM: {e}", path.display()))? {
            PemItem::Certificate(c) => certs.push(c),
            PemItem::PrivateKey(k) => keys.push(k),
            _ => {}
        }
    }
    Ok((certs, keys))
}

/// The rustls error behind a ureq error, when there is one (ureq hands the handshake's
/// failure back either directly or inside the I/O error of the handshake).
pub(crate) fn rustls_error(e: &ureq::Error) -> Option<&rustls::Error> {
    match e {
        ureq::Error::Rustls(r) => Some(r),
        ureq::Error::Io(io) => io
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<rustls::Error>()),
        _ => None,
    }
}

/// The `reason` word for a TLS failure.
pub(crate) fn reason(e: &rustls::Error) -> &'static str {
    match e {
        rustls::Error::InvalidCertificate(c) => match c {
            CertificateError::UnknownIssuer => "unknown_issuer",
            CertificateError::Expired | CertificateError::ExpiredContext { .. } => "expired",
            CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
                "not_yet_valid"
            }
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
                "name_mismatch"
            }
            // A bad signature, a revoked or unusable certificate: not one of the
            // actionable causes above; the message carries rustls's words.
            _ => "handshake",
        },
        // The system store holds no CA at all (rustls-platform-verifier's words): nothing
        // can be trusted, which is what unknown_issuer's hint addresses.
        rustls::Error::General(m) if m.contains("No CA certificates") => "unknown_issuer",
        // Alerts the server sends about certificates concern ours: it asked for a client
        // certificate and got none, or refused the one it got.
        rustls::Error::AlertReceived(
            AlertDescription::CertificateRequired
            | AlertDescription::BadCertificate
            | AlertDescription::UnknownCA
            | AlertDescription::CertificateUnknown
            | AlertDescription::CertificateExpired
            | AlertDescription::CertificateRevoked
            | AlertDescription::UnsupportedCertificate
            | AlertDescription::AccessDenied,
        ) => "client_cert_refused",
        _ => "handshake",
    }
}

/// What to do about a TLS failure with `reason`.
fn hint(reason: &str) -> &'static str {
    match reason {
        "unknown_issuer" => {
            "the agent's certificate is not signed by a CA this client trusts: install the CA in the system trust store, point SSL_CERT_FILE at it, or pass it with --cacert FILE (ClientConfig::ca_file); never turn verification off"
        }
        "expired" => {
            "the agent's certificate has expired (or this machine's clock is wrong): the agent's operator must renew it"
        }
        "not_yet_valid" => {
            "the agent's certificate is not valid yet: check this machine's clock, or the operator issued it with a future start date"
        }
        "name_mismatch" => {
            "the agent's certificate does not name the host in the URL: use the host name the certificate was issued for"
        }
        "client_cert_refused" => {
            "the agent requires a client certificate or refused the one sent: pass --cert FILE --key FILE (ClientConfig::client_cert_file and client_key_file) issued by a CA the agent trusts"
        }
        _ => {
            "the TLS handshake failed: check that the URL's scheme and port are the agent's TLS endpoint and that both sides share a TLS version"
        }
    }
}

/// The outcome of a failed TLS handshake: nothing the agent accepted was sent (a request
/// written before a TLS 1.3 server refused the client certificate is discarded with the
/// handshake), so `request_sent = no`.
pub(crate) fn outcome(e: &rustls::Error) -> Outcome {
    let reason = reason(e);
    let o = Outcome::transport(ErrorName::Tls, RequestSent::No, format!("TLS: {e}"))
        .with_reason(reason.to_owned())
        .with_hint(hint(reason).to_owned());
    if reason != "handshake" {
        // Trust, names, validity and client certificates are configuration: the same call
        // fails the same way until someone changes something.
        return o.with_retry(RetryAdvice::Never);
    }
    o
}
