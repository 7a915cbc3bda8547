//! HTTP caching of agent cards (A2A 1.0 §8.6.2 and §13.3, RFC 9111 for a private cache):
//! a [`CardCache`] the host keeps across card fetches. A fresh card is used without a
//! request; a stale one is revalidated with `If-None-Match` / `If-Modified-Since`, and a
//! `304 Not Modified` reuses it. Freshness comes from `Cache-Control: max-age` less the
//! response's `Age`; `no-store` keeps nothing, `no-cache` (or no freshness information)
//! keeps the card for revalidation only. Times are the host's monotonic clock ([`Millis`]),
//! as everywhere in the machine. Bounded: [`MAX_CARDS`] cards, the least recently stored
//! one forgotten first.

use std::collections::VecDeque;

use crate::time::Millis;

/// The most cards one cache keeps.
pub const MAX_CARDS: usize = 64;

/// One cached card response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedCard {
    /// The URL it was fetched from (the cache key).
    pub url: String,
    /// The card body as received.
    pub body: Vec<u8>,
    /// `ETag`, sent back as `If-None-Match`.
    pub etag: Option<String>,
    /// `Last-Modified`, sent back as `If-Modified-Since`.
    pub last_modified: Option<String>,
    /// Until when it may be used without asking (`None`: revalidate every time).
    pub fresh_until: Option<Millis>,
}

impl CachedCard {
    /// Whether it may be used at `now` without a request.
    pub fn is_fresh(&self, now: Millis) -> bool {
        self.fresh_until.is_some_and(|t| now < t)
    }

    /// The conditional request headers that revalidate it.
    pub fn validators(&self) -> Vec<(String, String)> {
        let mut h = Vec::new();
        if let Some(e) = &self.etag {
            h.push(("If-None-Match".to_owned(), e.clone()));
        }
        if let Some(m) = &self.last_modified {
            h.push(("If-Modified-Since".to_owned(), m.clone()));
        }
        h
    }

    /// The entry a `200` response makes, or `None` when it may not be stored
    /// (`no-store`). `now` is when the response arrived.
    pub fn from_response(
        url: &str,
        headers: &[(String, String)],
        body: &[u8],
        now: Millis,
    ) -> Option<CachedCard> {
        let rules = CacheRules::of(headers);
        if rules.no_store {
            return None;
        }
        let mut c = CachedCard {
            url: url.to_owned(),
            body: body.to_vec(),
            etag: header(headers, "etag").map(str::to_owned),
            last_modified: header(headers, "last-modified").map(str::to_owned),
            fresh_until: None,
        };
        c.fresh_until = rules.fresh_until(now);
        Some(c)
    }

    /// Updates the entry from a `304` response's headers (new freshness and validators).
    /// `None` when the 304 says `no-store`.
    pub fn revalidated(mut self, headers: &[(String, String)], now: Millis) -> Option<CachedCard> {
        let rules = CacheRules::of(headers);
        if rules.no_store {
            return None;
        }
        if let Some(e) = header(headers, "etag") {
            self.etag = Some(e.to_owned());
        }
        if let Some(m) = header(headers, "last-modified") {
            self.last_modified = Some(m.to_owned());
        }
        self.fresh_until = rules.fresh_until(now);
        Some(self)
    }
}

/// What `Cache-Control` and `Age` say about one response.
struct CacheRules {
    no_store: bool,
    no_cache: bool,
    max_age: Option<u64>,
    age: u64,
}

impl CacheRules {
    fn of(headers: &[(String, String)]) -> CacheRules {
        let mut r = CacheRules {
            no_store: false,
            no_cache: false,
            max_age: None,
            age: 0,
        };
        for (name, value) in headers {
            if name.eq_ignore_ascii_case("cache-control") {
                for directive in value.split(',') {
                    let (key, arg) = match directive.split_once('=') {
                        Some((k, a)) => (k.trim(), Some(a.trim().trim_matches('"'))),
                        None => (directive.trim(), None),
                    };
                    if key.eq_ignore_ascii_case("no-store") {
                        r.no_store = true;
                    } else if key.eq_ignore_ascii_case("no-cache") {
                        r.no_cache = true;
                    } else if key.eq_ignore_ascii_case("max-age") {
                        // An invalid max-age makes the response stale (RFC 9111 §4.2.1).
                        let secs = arg.and_then(|a| a.parse::<u64>().ok()).unwrap_or(0);
                        r.max_age = Some(r.max_age.map_or(secs, |m| m.min(secs)));
                    }
                }
            } else if name.eq_ignore_ascii_case("age") {
                r.age = value.trim().parse().unwrap_or(0);
            }
        }
        r
    }

    /// The end of freshness for a response received at `now`.
    fn fresh_until(&self, now: Millis) -> Option<Millis> {
        if self.no_cache {
            return None;
        }
        let left = self.max_age?.saturating_sub(self.age);
        (left > 0).then(|| now.saturating_add(Millis(left.saturating_mul(1000))))
    }
}

fn header<'h>(headers: &'h [(String, String)], name: &str) -> Option<&'h str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// The cards a host keeps between fetches (see the module docs).
#[derive(Debug, Clone, Default)]
pub struct CardCache {
    cards: VecDeque<CachedCard>,
    /// The most cards kept (0: [`MAX_CARDS`]).
    capacity: usize,
}

impl CardCache {
    /// An empty cache that keeps at most `capacity` cards (clamped to 1..=[`MAX_CARDS`]).
    pub fn with_capacity(capacity: usize) -> CardCache {
        CardCache {
            cards: VecDeque::new(),
            capacity: capacity.clamp(1, MAX_CARDS),
        }
    }

    /// The most cards this cache keeps.
    pub fn capacity(&self) -> usize {
        if self.capacity == 0 {
            MAX_CARDS
        } else {
            self.capacity
        }
    }

    /// The entry for `url`, fresh or not.
    pub fn get(&self, url: &str) -> Option<&CachedCard> {
        self.cards.iter().find(|c| c.url == url)
    }

    /// Stores `card` (replacing the entry of its URL), forgetting the oldest past the
    /// capacity ([`MAX_CARDS`] unless made [`CardCache::with_capacity`]).
    pub fn put(&mut self, card: CachedCard) {
        self.remove(&card.url.clone());
        while self.cards.len() >= self.capacity() {
            self.cards.pop_front();
        }
        self.cards.push_back(card);
    }

    /// Forgets the entry for `url`.
    pub fn remove(&mut self, url: &str) {
        self.cards.retain(|c| c.url != url);
    }

    /// A copy whose times are moved from one clock to another: `from_now` and `to_now`
    /// are the same moment on each (for a host that keeps one cache for clients with
    /// clocks of their own).
    pub fn on_clock(&self, from_now: Millis, to_now: Millis) -> CardCache {
        let mut out = self.clone();
        for c in &mut out.cards {
            c.fresh_until = c.fresh_until.map(|t| {
                let left = t.0.saturating_sub(from_now.0);
                Millis(to_now.0.saturating_add(left))
            });
        }
        out
    }

    /// How many cards are kept.
    pub fn len(&self) -> usize {
        self.cards.len()
    }

    /// Whether nothing is kept.
    pub fn is_empty(&self) -> bool {
        self.cards.is_empty()
    }
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
    fn max_age_less_age_is_the_freshness_and_validators_are_kept() {
        let c = CachedCard::from_response(
            "https://a/card",
            &h(&[
                ("Cache-Control", "public, max-age=60"),
                ("Age", "20"),
                ("ETag", "\"v1\""),
                ("Last-Modified", "Tue, 01 Dec 2026 10:00:00 GMT"),
            ]),
            b"{}",
            Millis(1_000),
        )
        .unwrap();
        assert_eq!(c.fresh_until, Some(Millis(41_000)));
        assert!(c.is_fresh(Millis(40_999)) && !c.is_fresh(Millis(41_000)));
        assert_eq!(
            c.validators(),
            h(&[
                ("If-None-Match", "\"v1\""),
                ("If-Modified-Since", "Tue, 01 Dec 2026 10:00:00 GMT")
            ])
        );
    }

    #[test]
    fn no_store_keeps_nothing_and_no_cache_or_silence_means_revalidate() {
        let at = Millis(0);
        assert!(
            CachedCard::from_response("u", &h(&[("cache-control", "no-store")]), b"{}", at)
                .is_none()
        );
        let c = CachedCard::from_response(
            "u",
            &h(&[("Cache-Control", "max-age=600, no-cache"), ("ETag", "x")]),
            b"{}",
            at,
        )
        .unwrap();
        assert_eq!(c.fresh_until, None);
        let c = CachedCard::from_response("u", &h(&[]), b"{}", at).unwrap();
        assert!(!c.is_fresh(at));
        let c = CachedCard::from_response("u", &h(&[("Cache-Control", "max-age=abc")]), b"{}", at)
            .unwrap();
        assert!(!c.is_fresh(at), "an invalid max-age is stale");
    }

    #[test]
    fn a_304_refreshes_freshness_and_validators() {
        let c = CachedCard::from_response("u", &h(&[("ETag", "a")]), b"{}", Millis(0)).unwrap();
        let c = c
            .revalidated(
                &h(&[("ETag", "b"), ("Cache-Control", "max-age=5")]),
                Millis(100),
            )
            .unwrap();
        assert_eq!(c.etag.as_deref(), Some("b"));
        assert_eq!(c.fresh_until, Some(Millis(5_100)));
        assert_eq!(c.body, b"{}");
    }

    #[test]
    fn the_cache_is_bounded_and_replaces_by_url() {
        let mut cache = CardCache::default();
        for i in 0..(MAX_CARDS + 5) {
            cache.put(CachedCard::from_response(&format!("u{i}"), &[], b"{}", Millis(0)).unwrap());
        }
        assert_eq!(cache.len(), MAX_CARDS);
        assert!(cache.get("u0").is_none());
        assert!(cache.get(&format!("u{}", MAX_CARDS + 4)).is_some());
        cache
            .put(CachedCard::from_response("u10", &h(&[("ETag", "n")]), b"[]", Millis(0)).unwrap());
        assert_eq!(cache.len(), MAX_CARDS);
        assert_eq!(cache.get("u10").unwrap().etag.as_deref(), Some("n"));
        cache.put(
            CachedCard::from_response(
                "f",
                &h(&[("Cache-Control", "max-age=2")]),
                b"{}",
                Millis(500),
            )
            .unwrap(),
        );
        let moved = cache.on_clock(Millis(1_000), Millis(10_000));
        assert_eq!(moved.get("f").unwrap().fresh_until, Some(Millis(11_500)));
        let mut small = CardCache::with_capacity(2);
        for u in ["a", "b", "c"] {
            small.put(CachedCard::from_response(u, &[], b"{}", Millis(0)).unwrap());
        }
        assert_eq!(small.len(), 2);
        assert!(small.get("a").is_none() && small.get("c").is_some());
        assert_eq!(CardCache::with_capacity(1000).capacity(), MAX_CARDS);
        assert_eq!(
            cache
                .on_clock(Millis(3_000), Millis(0))
                .get("f")
                .unwrap()
                .fresh_until,
            Some(Millis(0))
        );
    }
}
