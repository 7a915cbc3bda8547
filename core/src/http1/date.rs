//! IMF-fixdate parsing (RFC 9110 §5.6.7) without a clock: a date string becomes seconds
//! since the Unix epoch, and the caller compares it with its own wall clock.
//!
//! Only the IMF-fixdate form (`Sun, 06 Nov 1994 08:49:37 GMT`) is read; it is the only form
//! senders may generate. The obsolete RFC 850 and asctime forms yield `None`.

const DAYS: [&[u8; 3]; 7] = [b"Mon", b"Tue", b"Wed", b"Thu", b"Fri", b"Sat", b"Sun"];
const MONTHS: [&[u8; 3]; 12] = [
    b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec",
];

fn digits(b: &[u8]) -> Option<u32> {
    if b.is_empty() || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(b.iter().fold(0u32, |a, &d| a * 10 + u32::from(d - b'0')))
}

/// Days from 1970-01-01 to the given proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn days_in_month(y: u32, m: u32) -> u32 {
    match m {
        4 | 6 | 9 | 11 => 30,
        2 if (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400) => 29,
        2 => 28,
        _ => 31,
    }
}

/// Parses an IMF-fixdate into seconds since the Unix epoch; `None` for anything else,
/// including dates before 1970.
pub(crate) fn parse_http_date(v: &[u8]) -> Option<u64> {
    // "Sun, 06 Nov 1994 08:49:37 GMT" is exactly 29 bytes.
    if v.len() != 29 {
        return None;
    }
    let day_name: &[u8; 3] = v[0..3].try_into().ok()?;
    if !DAYS.contains(&day_name)
        || &v[3..5] != b", "
        || v[7] != b' '
        || v[11] != b' '
        || v[16] != b' '
        || v[19] != b':'
        || v[22] != b':'
        || &v[25..29] != b" GMT"
    {
        return None;
    }
    let day = digits(&v[5..7])?;
    let month_name: &[u8; 3] = v[8..11].try_into().ok()?;
    let month = MONTHS.iter().position(|m| *m == month_name)? as u32 + 1;
    let year = digits(&v[12..16])?;
    let (h, mi, s) = (
        digits(&v[17..19])?,
        digits(&v[20..22])?,
        digits(&v[23..25])?,
    );
    if day == 0 || day > days_in_month(year, month) || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    let days = days_from_civil(i64::from(year), month, day);
    let secs = days * 86_400 + i64::from(h * 3600 + mi * 60 + s);
    u64::try_from(secs).ok()
}

#[cfg(test)]
mod tests {
    use super::parse_http_date;

    #[test]
    fn known_dates() {
        assert_eq!(parse_http_date(b"Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
        assert_eq!(
            parse_http_date(b"Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(784_111_777)
        );
        assert_eq!(
            parse_http_date(b"Tue, 29 Feb 2000 12:00:00 GMT"),
            Some(951_825_600)
        );
        assert_eq!(
            parse_http_date(b"Mon, 30 Nov 2026 01:23:16 GMT"),
            Some(1_796_001_796)
        );
    }

    #[test]
    fn refuses_other_forms_and_impossible_dates() {
        for bad in [
            &b"Sunday, 06-Nov-94 08:49:37 GMT"[..],
            b"Sun Nov  6 08:49:37 1994",
            b"Sun, 06 Nov 1994 08:49:37 UTC",
            b"Sun, 31 Apr 1994 08:49:37 GMT",
            b"Sun, 29 Feb 1900 08:49:37 GMT",
            b"Sun, 06 Nov 1994 24:49:37 GMT",
            b"Sun, 06 Xyz 1994 08:49:37 GMT",
            b"Sun, 06 Nov 1969 08:49:37 GMT",
            b"Sun, 0a Nov 1994 08:49:37 GMT",
            b"",
        ] {
            assert_eq!(
                parse_http_date(bad),
                None,
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
