//! Ids and trace context drawn from the host's seed: the core reads no randomness, so a
//! [`super::ClientState`] carries a SplitMix64 generator the host seeds once.

/// A SplitMix64 generator. Its output is a bijection of its state, so one client never
/// repeats a value within 2^64 draws; the values are unique and spread, not secret.
#[derive(Debug, Clone)]
pub(crate) struct Random(u64);

impl Random {
    /// A generator seeded with the host's random bits.
    pub(crate) fn new(seed: u64) -> Random {
        Random(seed)
    }

    /// The next 64 bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A fresh id for JSON-RPC ids: 32 lowercase hex digits in UUID (version 4) layout (the
    /// 13th digit replaced by the version, `4`).
    ///
    /// Written into place: two `format!`s cost about 3,800 instructions, a quarter of
    /// building the whole request (bench-driver under callgrind; issue 28).
    pub(crate) fn uuid(&mut self) -> String {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        // Where each of the 32 digits goes in the 8-4-4-4-12 layout.
        const AT: [u8; 32] = [
            0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 14, 15, 16, 17, 19, 20, 21, 22, 24, 25, 26, 27,
            28, 29, 30, 31, 32, 33, 34, 35,
        ];
        let mut id = [b'-'; 36];
        for (half, word) in [self.next_u64(), self.next_u64()].into_iter().enumerate() {
            for i in 0..16 {
                let digit = HEX[((word >> (60 - 4 * i)) & 0xf) as usize];
                id[usize::from(AT[16 * half + i])] = digit;
            }
        }
        id[14] = b'4'; // the version digit (over the 13th drawn one)
        // ASCII by construction (a char-by-char push cost about 1,000 instructions, the
        // lossy conversion's chunk walk about 300): never the empty default.
        std::str::from_utf8(&id).unwrap_or_default().to_owned()
    }

    /// A fresh W3C `traceparent` (version 00, sampled), built by
    /// [`crate::traceparent::TraceParent`] from drawn bytes.
    pub(crate) fn traceparent(&mut self) -> String {
        loop {
            let mut random = [0u8; 24];
            for chunk in random.chunks_mut(8) {
                chunk.copy_from_slice(&self.next_u64().to_le_bytes());
            }
            // All-zero ids are refused by W3C; draw again (practically never).
            if let Some(t) = crate::traceparent::TraceParent::from_random(random, true) {
                return t.header_value();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_uuid_shaped_and_differ() {
        let mut r = Random::new(7);
        let a = r.uuid();
        let b = r.uuid();
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert_eq!(a.as_bytes()[14], b'4');
        for at in [8, 13, 18, 23] {
            assert_eq!(a.as_bytes()[at], b'-', "{a}");
        }
    }

    #[test]
    fn ids_are_the_drawn_bits_in_uuid_layout() {
        let mut r = Random::new(7);
        let mut copy = r.clone();
        let hex = format!("{:016x}{:016x}", copy.next_u64(), copy.next_u64());
        let want = format!(
            "{}-{}-4{}-{}-{}",
            &hex[0..8],
            &hex[8..12],
            &hex[13..16],
            &hex[16..20],
            &hex[20..32]
        );
        assert_eq!(r.uuid(), want);
    }

    #[test]
    fn traceparents_parse_and_the_seed_decides_them() {
        let t = Random::new(1).traceparent();
        assert!(crate::traceparent::TraceParent::parse(&t).is_ok(), "{t}");
        assert_eq!(t, Random::new(1).traceparent());
        assert_ne!(t, Random::new(2).traceparent());
    }
}
