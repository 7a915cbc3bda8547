//! Validation that keeps credentials where they belong.
//!
//! A client attaches its credentials to every call to the chosen interface, so the card
//! decides where the credentials go. The card is only as trustworthy as the host that
//! served it: the interface URL must have the same origin (scheme, host, port) as the URL
//! the card was fetched from, or one the caller explicitly allows. Checked, in order:
//! 1. both URLs parse (strictly: see [`Url`]);
//! 2. the interface URL carries no userinfo (`https://good@evil` goes to `evil`);
//! 3. the scheme is `https`, or `http` when the policy allows plain HTTP (for the card URL
//!    too);
//! 4. same origin as the card URL, or an allowed origin: accepted;
//! 5. otherwise an interface on `localhost`, a loopback, private, link-local, unique-local
//!    or unspecified address while the card came from a public host is "card URL drift";
//! 6. anything else is a host mismatch.
//!
//! Host names are compared as written (normalized); whether a public name resolves to a
//! private address (DNS rebinding) is for the caller to check on the resolved address
//! with [`classify_ip`](super::classify_ip).

use super::CardError;
use crate::url::Url;

/// What the caller allows beyond the same-origin rule.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Policy {
    /// Allow `http://` (local development, test servers). Off by default.
    pub allow_http: bool,
    /// Extra origins the interface may point to (`https://api.example.com` or
    /// `https://api.example.com:8443`; default ports implied), compared as origins.
    pub allowed_origins: Vec<String>,
}

/// A validated interface URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidatedUrl {
    /// The parsed interface URL.
    pub url: Url,
    /// True when it matched the card's origin, false when it matched the allow-list.
    pub same_origin: bool,
}

fn parse(url: &str) -> Result<Url, CardError> {
    Url::parse(url).map_err(|error| CardError::InvalidUrl {
        url: url.to_owned(),
        error,
    })
}

fn check_scheme(url: &Url, text: &str, policy: &Policy) -> Result<(), CardError> {
    match url.scheme() {
        "https" => Ok(()),
        "http" if policy.allow_http => Ok(()),
        "http" => Err(CardError::PlainHttp {
            url: text.to_owned(),
        }),
        _ => Err(CardError::UnsupportedScheme {
            url: text.to_owned(),
        }),
    }
}

/// Checks that the credentials for `interface_url` may be sent there, given that the card
/// was fetched from `card_url`.
///
/// # Errors
/// [`CardError::InvalidUrl`], [`CardError::UserinfoInUrl`], [`CardError::PlainHttp`],
/// [`CardError::UnsupportedScheme`], [`CardError::CardUrlDrift`] or
/// [`CardError::HostMismatch`], in the order described in the module docs (an invalid
/// allow-list entry is reported as [`CardError::InvalidUrl`] when it is reached).
pub fn validate_interface_url(
    interface_url: &str,
    card_url: &str,
    policy: &Policy,
) -> Result<ValidatedUrl, CardError> {
    let card = parse(card_url)?;
    let iface = parse(interface_url)?;
    if card.userinfo().is_some() {
        return Err(CardError::UserinfoInUrl {
            url: card_url.to_owned(),
        });
    }
    if iface.userinfo().is_some() {
        return Err(CardError::UserinfoInUrl {
            url: interface_url.to_owned(),
        });
    }
    check_scheme(&card, card_url, policy)?;
    check_scheme(&iface, interface_url, policy)?;
    if iface.same_origin(&card) {
        return Ok(ValidatedUrl {
            url: iface,
            same_origin: true,
        });
    }
    for allowed in &policy.allowed_origins {
        // A malformed allow-list entry is the caller's configuration error: say so rather
        // than ignore it.
        let a = parse(allowed)?;
        if a.userinfo().is_some() {
            return Err(CardError::UserinfoInUrl {
                url: allowed.clone(),
            });
        }
        if a.same_origin(&iface) {
            return Ok(ValidatedUrl {
                url: iface,
                same_origin: false,
            });
        }
    }
    let class = iface.host().class();
    if class.is_internal() && !card.host().class().is_internal() {
        return Err(CardError::CardUrlDrift {
            interface: iface.origin(),
            class,
            card: card.origin(),
        });
    }
    Err(CardError::HostMismatch {
        interface: iface.origin(),
        card: card.origin(),
    })
}
