//! Affinity cookies: what a stream's response asked to be sent back (`Set-Cookie`), kept
//! for the stream's resubscribes. Load balancers pin a client to a replica with such a
//! cookie; a resubscribe without it may land on a replica that does not hold the task's
//! event queue. Only the `name=value` pair is kept (attributes are not needed to send it
//! back to the very interface that set it); a `Secure` cookie is never sent over plain
//! http. Bounded: [`MAX_COOKIES`] cookies of at most [`MAX_COOKIE_BYTES`] each.

/// The most cookies kept per stream (a later one with a new name is ignored).
pub const MAX_COOKIES: usize = 8;
/// The longest `name=value` kept (a longer one is ignored).
pub const MAX_COOKIE_BYTES: usize = 4096;

/// The cookies one stream's responses set, in the order first seen.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Cookies {
    /// `(name, value, secure)`.
    kept: Vec<(String, String, bool)>,
}

impl Cookies {
    /// Whether nothing was kept.
    pub(crate) fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }

    /// Keeps the cookies of a response head's `Set-Cookie` headers (a later value replaces
    /// an earlier one of the same name; `Max-Age=0` or an empty value forgets it).
    pub(crate) fn note(&mut self, headers: &[(String, String)]) {
        for (name, value) in headers {
            if !name.eq_ignore_ascii_case("set-cookie") {
                continue;
            }
            let mut attrs = value.split(';');
            let Some((n, v)) = attrs.next().and_then(|pair| pair.split_once('=')) else {
                continue;
            };
            let (n, v) = (n.trim(), v.trim());
            if !is_token(n)
                || !v.bytes().all(is_cookie_octet)
                || n.len() + v.len() + 1 > MAX_COOKIE_BYTES
            {
                continue;
            }
            let mut secure = false;
            let mut expired = v.is_empty();
            for a in attrs {
                let a = a.trim();
                if a.eq_ignore_ascii_case("secure") {
                    secure = true;
                }
                if let Some((k, age)) = a.split_once('=')
                    && k.trim().eq_ignore_ascii_case("max-age")
                    && age.trim().parse::<i64>().is_ok_and(|s| s <= 0)
                {
                    expired = true;
                }
            }
            self.kept.retain(|(k, _, _)| k != n);
            if !expired && self.kept.len() < MAX_COOKIES {
                self.kept.push((n.to_owned(), v.to_owned(), secure));
            }
        }
    }

    /// `headers` with the kept cookies added to its `Cookie` header (the caller's own
    /// cookies come first and win on a shared name), for a request to `url`.
    pub(crate) fn add_to(&self, headers: &[(String, String)], url: &str) -> Vec<(String, String)> {
        let https = url
            .get(..8)
            .is_some_and(|p| p.eq_ignore_ascii_case("https://"));
        let mut out = headers.to_vec();
        let own = out
            .iter()
            .position(|(n, _)| n.eq_ignore_ascii_case("cookie"));
        let mut value = own.map(|i| out[i].1.clone()).unwrap_or_default();
        let has = |value: &str, name: &str| {
            value
                .split(';')
                .any(|p| p.trim().split('=').next() == Some(name))
        };
        for (n, v, secure) in &self.kept {
            if (*secure && !https) || has(&value, n) {
                continue;
            }
            if !value.is_empty() {
                value.push_str("; ");
            }
            value.push_str(n);
            value.push('=');
            value.push_str(v);
        }
        match own {
            Some(i) => out[i].1 = value,
            None if !value.is_empty() => out.push(("Cookie".to_owned(), value)),
            None => {}
        }
        out
    }
}

/// RFC 9110 token characters (a cookie name).
fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// RFC 6265 cookie-octet (and the quotes of a quoted value).
fn is_cookie_octet(b: u8) -> bool {
    matches!(b, 0x21 | 0x22 | 0x23..=0x2B | 0x2D..=0x3A | 0x3C..=0x5B | 0x5D..=0x7E)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn keeps_name_value_pairs_and_replays_them_after_the_callers_own() {
        let mut c = Cookies::default();
        c.note(&h(&[
            (
                "Set-Cookie",
                "AWSALB=abc123; Path=/; Expires=Tue, 01 Jan 2030 00:00:00 GMT",
            ),
            ("set-cookie", "route=r7; HttpOnly"),
            ("Set-Cookie", "bad name=x"),
            ("Set-Cookie", "inj=a\r\nX-Evil: 1"),
            ("X-Other", "route=no"),
        ]));
        let out = c.add_to(&h(&[("Authorization", "Bearer t")]), "http://a.test/a2a");
        assert_eq!(
            out,
            h(&[
                ("Authorization", "Bearer t"),
                ("Cookie", "AWSALB=abc123; route=r7")
            ])
        );
        // The caller's Cookie header comes first and wins on a shared name.
        let out = c.add_to(&h(&[("cookie", "route=mine; s=1")]), "http://a.test/a2a");
        assert_eq!(out, h(&[("cookie", "route=mine; s=1; AWSALB=abc123")]));
    }

    #[test]
    fn replaces_forgets_and_bounds() {
        let mut c = Cookies::default();
        c.note(&h(&[("Set-Cookie", "a=1"), ("Set-Cookie", "a=2")]));
        c.note(&h(&[
            ("Set-Cookie", "b=1"),
            ("Set-Cookie", "b=; Max-Age=0"),
        ]));
        assert_eq!(c.add_to(&[], "http://x/"), h(&[("Cookie", "a=2")]));
        c.note(&h(&[("Set-Cookie", "a=gone; Max-Age=0")]));
        assert!(c.is_empty());
        assert!(c.add_to(&[], "http://x/").is_empty());
        let many: Vec<(String, String)> = (0..20)
            .map(|i| ("Set-Cookie".to_owned(), format!("c{i}=v")))
            .collect();
        c.note(&many);
        assert_eq!(c.kept.len(), MAX_COOKIES);
        let long = format!("big={}", "x".repeat(MAX_COOKIE_BYTES));
        c.note(&h(&[("Set-Cookie", &long)]));
        assert!(!c.kept.iter().any(|(n, _, _)| n == "big"));
    }

    #[test]
    fn a_secure_cookie_is_never_sent_over_plain_http() {
        let mut c = Cookies::default();
        c.note(&h(&[("Set-Cookie", "s=1; Secure"), ("Set-Cookie", "p=2")]));
        assert_eq!(c.add_to(&[], "http://x/"), h(&[("Cookie", "p=2")]));
        assert_eq!(c.add_to(&[], "HTTPS://x/"), h(&[("Cookie", "s=1; p=2")]));
    }
}
