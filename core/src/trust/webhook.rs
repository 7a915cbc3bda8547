//! The sending end of push notifications: is a client's webhook URL one an agent may POST to
//! (A2A 1.0 §13.2, server-side request forgery)? The same address classes as the card rules
//! ([`crate::card::AddressClass`]): loopback, private, link-local (cloud metadata),
//! unique-local, shared, unspecified, multicast and `localhost` names are refused unless the
//! operator allows internal targets, and the check is repeated on every address the host
//! name resolves to ([`check_resolved`]), since a public name can point anywhere.

use std::net::IpAddr;

use crate::card::{AddressClass, Host, Url, classify_ip};

/// What a sender accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WebhookPolicy {
    /// Plain `http://` allowed (local development).
    pub allow_http: bool,
    /// Loopback, private and link-local targets allowed (an agent inside one network).
    pub allow_internal: bool,
}

/// Why a webhook URL is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WebhookError {
    /// The URL does not parse.
    #[error("webhook URL {url:?}: {error}")]
    Invalid {
        /// The URL as given.
        url: String,
        /// What is wrong.
        error: crate::card::UrlError,
    },
    /// Not https (or http when allowed).
    #[error("webhook URL {0:?} is not https")]
    Scheme(String),
    /// `user@` before the host.
    #[error("webhook URL {0:?} carries userinfo")]
    Userinfo(String),
    /// The host, or an address it resolves to, is internal.
    #[error("webhook target {target} is a {class} address: refused (server-side request forgery)")]
    Internal {
        /// The host or address.
        target: String,
        /// What kind of address it is.
        class: AddressClass,
    },
}

impl WebhookError {
    /// A stable snake_case name for the error kind.
    pub fn kind(&self) -> &'static str {
        match self {
            WebhookError::Invalid { .. } => "invalid",
            WebhookError::Scheme(_) => "scheme",
            WebhookError::Userinfo(_) => "userinfo",
            WebhookError::Internal { .. } => "internal",
        }
    }
}

/// Checks a webhook URL before it is stored or used; the host's resolved addresses still go
/// through [`check_resolved`] when the notification is sent.
///
/// # Errors
/// [`WebhookError`].
pub fn check_url(url: &str, policy: WebhookPolicy) -> Result<Url, WebhookError> {
    let u = Url::parse(url).map_err(|error| WebhookError::Invalid {
        url: url.to_owned(),
        error,
    })?;
    match u.scheme() {
        "https" => {}
        "http" if policy.allow_http => {}
        _ => return Err(WebhookError::Scheme(url.to_owned())),
    }
    if u.userinfo().is_some() {
        return Err(WebhookError::Userinfo(url.to_owned()));
    }
    let class = u.host().class();
    if class.is_internal() && !policy.allow_internal {
        let target = match u.host() {
            Host::Domain(d) => d.clone(),
            other => other.to_string(),
        };
        return Err(WebhookError::Internal { target, class });
    }
    Ok(u)
}

/// Checks the addresses the webhook's host resolved to (call it with what the resolver
/// returned, right before connecting, and connect only to the addresses that passed).
///
/// # Errors
/// [`WebhookError::Internal`] for the first internal address.
pub fn check_resolved(addrs: &[IpAddr], policy: WebhookPolicy) -> Result<(), WebhookError> {
    if policy.allow_internal {
        return Ok(());
    }
    for ip in addrs {
        let class = classify_ip(*ip);
        if class.is_internal() {
            return Err(WebhookError::Internal {
                target: ip.to_string(),
                class,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_targets_are_refused_unless_allowed() {
        let strict = WebhookPolicy::default();
        assert!(check_url("https://hooks.example.com/a2a", strict).is_ok());
        for (url, class) in [
            ("https://127.0.0.1/x", "loopback"),
            ("https://localhost:8080/x", "localhost"),
            ("https://169.254.169.254/latest/meta-data", "link-local"),
            ("https://10.1.2.3/x", "private"),
            ("https://[::1]/x", "loopback"),
            ("https://[fd00::1]/x", "unique-local"),
            ("https://0x7f.1/x", "loopback"),
            ("https://[::ffff:192.168.0.1]/x", "private"),
        ] {
            match check_url(url, strict) {
                Err(WebhookError::Internal { class: c, .. }) => {
                    assert_eq!(c.as_str(), class, "{url}")
                }
                other => panic!("{url}: {other:?}"),
            }
        }
        let internal = WebhookPolicy {
            allow_internal: true,
            ..strict
        };
        assert!(check_url("https://10.1.2.3/x", internal).is_ok());
        assert_eq!(
            check_url("http://hooks.example.com/", strict)
                .unwrap_err()
                .kind(),
            "scheme"
        );
        assert!(
            check_url(
                "http://hooks.example.com/",
                WebhookPolicy {
                    allow_http: true,
                    ..strict
                }
            )
            .is_ok()
        );
        assert_eq!(
            check_url("ftp://hooks.example.com/", strict)
                .unwrap_err()
                .kind(),
            "scheme"
        );
        assert_eq!(
            check_url("https://u:p@hooks.example.com/", strict)
                .unwrap_err()
                .kind(),
            "userinfo"
        );
        assert_eq!(
            check_url("not a url", strict).unwrap_err().kind(),
            "invalid"
        );
    }

    #[test]
    fn resolved_addresses_are_checked_too() {
        let strict = WebhookPolicy::default();
        let public: IpAddr = "93.184.216.34".parse().unwrap();
        let metadata: IpAddr = "169.254.169.254".parse().unwrap();
        assert!(check_resolved(&[public], strict).is_ok());
        assert_eq!(
            check_resolved(&[public, metadata], strict)
                .unwrap_err()
                .to_string(),
            "webhook target 169.254.169.254 is a link-local address: refused (server-side request forgery)"
        );
        assert!(
            check_resolved(
                &[metadata],
                WebhookPolicy {
                    allow_internal: true,
                    ..strict
                }
            )
            .is_ok()
        );
    }
}
