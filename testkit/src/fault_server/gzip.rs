//! A gzip writer using stored (uncompressed) deflate blocks: enough to send a body with
//! `Content-Encoding: gzip` that any decoder accepts, without a compression dependency.
//!
//! RFC 1952 (gzip member: header, deflate data, CRC-32, ISIZE) and RFC 1951 §3.2.4
//! (non-compressed blocks: `BFINAL`/`BTYPE=00`, then `LEN` and `NLEN` little-endian).

/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), bitwise: the bodies are small.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0xEDB8_8320 & mask);
        }
    }
    !crc
}

/// `data` as one gzip member made of stored deflate blocks.
pub fn gzip_stored(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + data.len() / 65535 * 5 + 32);
    // ID1 ID2 CM=8 FLG=0 MTIME=0 XFL=0 OS=255 (unknown).
    out.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);
    let mut chunks = data.chunks(65535).peekable();
    if chunks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    while let Some(chunk) = chunks.next() {
        let last = chunks.peek().is_none();
        out.push(u8::from(last));
        let len = chunk.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(chunk);
    }
    out.extend_from_slice(&crc32(data).to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_check_value() {
        // The standard check value for "123456789" (RFC 3720 appendix / zlib).
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn stored_layout() {
        let g = gzip_stored(b"abc");
        assert_eq!(&g[..3], &[0x1f, 0x8b, 8]);
        assert_eq!(g[10], 1); // final stored block
        assert_eq!(&g[11..15], &[3, 0, 0xfc, 0xff]);
        assert_eq!(&g[15..18], b"abc");
        assert_eq!(&g[g.len() - 4..], &[3, 0, 0, 0]);
    }
}
