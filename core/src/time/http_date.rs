//! HTTP-date parsing (RFC 9110 §5.6.7) without a clock: a date string becomes seconds since
//! the Unix epoch, and the caller compares it with its own wall clock.
//!
//! All three forms a recipient must accept are read: IMF-fixdate
//! (`Sun, 06 Nov 1994 08:49:37 GMT`, the only one senders may generate), the obsolete RFC 850
//! form (`Sunday, 06-Nov-94 08:49:37 GMT`) and ANSI C's asctime form
//! (`Sun Nov  6 08:49:37 1994`). The weekday must be a real day name but is not checked
//! against the date (RFC 9110 makes it redundant). An RFC 850 two-digit year is read by the
//! rule of §5.6.7: a year that would lie more than 50 years after the caller's current year
//! is the most recent past year with those two digits; without a clock, `70`–`99` are
//! 1970–1999 and `00`–`69` are 2000–2069 (the POSIX `%y` rule).

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

const LONG_DAYS: [&[u8]; 7] = [
    b"Monday",
    b"Tuesday",
    b"Wednesday",
    b"Thursday",
    b"Friday",
    b"Saturday",
    b"Sunday",
];

fn month(name: &[u8]) -> Option<u32> {
    MONTHS
        .iter()
        .position(|m| &m[..] == name)
        .map(|i| i as u32 + 1)
}

/// `HH:MM:SS` at `v[..8]`.
fn clock_time(v: &[u8]) -> Option<(u32, u32, u32)> {
    if v.len() != 8 || v[2] != b':' || v[5] != b':' {
        return None;
    }
    Some((digits(&v[0..2])?, digits(&v[3..5])?, digits(&v[6..8])?))
}

/// Seconds since the epoch of a checked date and time; `None` before 1970 or when impossible.
fn unix(year: u32, month: u32, day: u32, (h, mi, s): (u32, u32, u32)) -> Option<u64> {
    if day == 0 || day > days_in_month(year, month) || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    let days = days_from_civil(i64::from(year), month, day);
    u64::try_from(days * 86_400 + i64::from(h * 3600 + mi * 60 + s)).ok()
}

/// The Gregorian year of a Unix time.
fn year_of(unix_seconds: u64) -> u32 {
    // H. Hinnant's civil_from_days, year only.
    let z = (unix_seconds / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let y = yoe + era * 400 + i64::from(mp >= 10);
    u32::try_from(y).unwrap_or(u32::MAX)
}

/// The four-digit year of an RFC 850 two-digit year (RFC 9110 §5.6.7).
fn full_year(yy: u32, now_unix_seconds: Option<u64>) -> u32 {
    match now_unix_seconds {
        None => {
            if yy >= 70 {
                1900 + yy
            } else {
                2000 + yy
            }
        }
        Some(now) => {
            let current = year_of(now);
            // Read in the current century; more than 50 years ahead means the century before.
            let year = current - current % 100 + yy;
            if year > current + 50 {
                year - 100
            } else {
                year
            }
        }
    }
}

/// `Sun, 06 Nov 1994 08:49:37 GMT`.
fn imf_fixdate(v: &[u8]) -> Option<u64> {
    if v.len() != 29 {
        return None;
    }
    let day_name: &[u8; 3] = v[0..3].try_into().ok()?;
    if !DAYS.contains(&day_name)
        || &v[3..5] != b", "
        || v[7] != b' '
        || v[11] != b' '
        || v[16] != b' '
        || &v[25..29] != b" GMT"
    {
        return None;
    }
    let t = clock_time(&v[17..25])?;
    unix(digits(&v[12..16])?, month(&v[8..11])?, digits(&v[5..7])?, t)
}

/// `Sunday, 06-Nov-94 08:49:37 GMT`.
fn rfc850(v: &[u8], now_unix_seconds: Option<u64>) -> Option<u64> {
    let comma = memchr::memchr(b',', v)?;
    if !LONG_DAYS.contains(&&v[..comma]) {
        return None;
    }
    let r = &v[comma..];
    // ", 06-Nov-94 08:49:37 GMT" is exactly 24 bytes.
    if r.len() != 24 || &r[..2] != b", " || r[4] != b'-' || r[8] != b'-' || r[11] != b' ' {
        return None;
    }
    if &r[20..] != b" GMT" {
        return None;
    }
    let year = full_year(digits(&r[9..11])?, now_unix_seconds);
    unix(
        year,
        month(&r[5..8])?,
        digits(&r[2..4])?,
        clock_time(&r[12..20])?,
    )
}

/// `Sun Nov  6 08:49:37 1994` (the day of month space-padded).
fn asctime(v: &[u8]) -> Option<u64> {
    if v.len() != 24 {
        return None;
    }
    let day_name: &[u8; 3] = v[0..3].try_into().ok()?;
    if !DAYS.contains(&day_name) || v[3] != b' ' || v[7] != b' ' || v[10] != b' ' || v[19] != b' ' {
        return None;
    }
    let day = match v[8] {
        b' ' => digits(&v[9..10])?,
        _ => digits(&v[8..10])?,
    };
    unix(
        digits(&v[20..24])?,
        month(&v[4..7])?,
        day,
        clock_time(&v[11..19])?,
    )
}

/// Parses an HTTP-date in any of its three forms into seconds since the Unix epoch; `None`
/// for anything else, including dates before 1970. `now_unix_seconds` (the caller's wall
/// clock, when known) only decides the century of an RFC 850 two-digit year.
pub(crate) fn parse_http_date(v: &[u8], now_unix_seconds: Option<u64>) -> Option<u64> {
    imf_fixdate(v)
        .or_else(|| rfc850(v, now_unix_seconds))
        .or_else(|| asctime(v))
}

#[cfg(test)]
mod tests {
    use super::{parse_http_date as parse, year_of};

    fn parse_http_date(v: &[u8]) -> Option<u64> {
        parse(v, None)
    }

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
    fn the_three_forms_of_rfc_9110_are_the_same_instant() {
        // RFC 9110 §5.6.7's own example, in each form.
        for form in [
            &b"Sun, 06 Nov 1994 08:49:37 GMT"[..],
            b"Sunday, 06-Nov-94 08:49:37 GMT",
            b"Sun Nov  6 08:49:37 1994",
        ] {
            assert_eq!(
                parse_http_date(form),
                Some(784_111_777),
                "{}",
                String::from_utf8_lossy(form)
            );
        }
        assert_eq!(
            parse_http_date(b"Tue Feb 29 12:00:00 2000"),
            Some(951_825_600)
        );
        assert_eq!(
            parse_http_date(b"Tuesday, 29-Feb-00 12:00:00 GMT"),
            Some(951_825_600)
        );
    }

    #[test]
    fn rfc850_years_follow_the_50_year_rule_of_the_callers_clock() {
        let y2026 = 1_767_225_600; // 2026-01-01T00:00:00Z
        assert_eq!(year_of(y2026), 2026);
        assert_eq!(year_of(0), 1970);
        assert_eq!(year_of(951_825_600), 2000);
        let year = |v: &[u8], now| parse(v, now).map(year_of);
        // 2076 is exactly 50 years ahead of 2026: still read as 2076; 2077 is more: 1977.
        assert_eq!(
            year(b"Friday, 01-Jan-76 00:00:00 GMT", Some(y2026)),
            Some(2076)
        );
        assert_eq!(
            year(b"Friday, 01-Jan-77 00:00:00 GMT", Some(y2026)),
            Some(1977)
        );
        assert_eq!(
            year(b"Friday, 01-Jan-26 00:00:00 GMT", Some(y2026)),
            Some(2026)
        );
        // Without a clock: the POSIX %y rule.
        assert_eq!(year(b"Friday, 01-Jan-76 00:00:00 GMT", None), Some(1976));
        assert_eq!(year(b"Friday, 01-Jan-26 00:00:00 GMT", None), Some(2026));
        // In 2090, "30" is 2130, more than 50 years ahead: 2030.
        let y2090 = 3_786_912_000;
        assert_eq!(year_of(y2090), 2090);
        assert_eq!(
            year(b"Friday, 01-Jan-30 00:00:00 GMT", Some(y2090)),
            Some(2030)
        );
        assert_eq!(
            year(b"Friday, 01-Jan-95 00:00:00 GMT", Some(y2090)),
            Some(2095)
        );
    }

    #[test]
    fn refuses_other_forms_and_impossible_dates() {
        for bad in [
            &b"Sunday, 06-Nov-1994 08:49:37 GMT"[..],
            b"Sun, 06-Nov-94 08:49:37 GMT",
            b"Sunday, 06-Nov-94 08:49:37 UTC",
            b"Sunday, 31-Apr-94 08:49:37 GMT",
            b"Sun Nov 6 08:49:37 1994",
            b"Sun Nov  6 08:49:37 1994 GMT",
            b"Sun Nov 31 08:49:37 1994",
            b"Sun Xyz  6 08:49:37 1994",
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
