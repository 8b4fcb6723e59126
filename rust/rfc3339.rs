//! Times as the providers write them (RFC 3339, with up to nine digits of
//! a second as Go writes them, `2025-05-12T10:00:00.123456789Z`) and the neutral
//! vocabulary's (Unix seconds). The pure backend's `_pure/rfc3339.py`
//! mirrors it.

/// Days since 1970-01-01 of a date of the proleptic Gregorian calendar.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let of_era = year - era * 400;
    let shifted_month = (month + 9) % 12;
    let of_year = (153 * shifted_month + 2) / 5 + day - 1;
    let of_era_days = of_era * 365 + of_era / 4 - of_era / 100 + of_year;
    era * 146_097 + of_era_days - 719_468
}

/// The date of a day counted from 1970-01-01.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let of_era = days - era * 146_097;
    let year_of_era = (of_era - of_era / 1460 + of_era / 36524 - of_era / 146_096) / 365;
    let of_year = of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * of_year + 2) / 153;
    let day = of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn digits(text: &[u8]) -> Option<i64> {
    if text.is_empty() || !text.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(
        text.iter()
            .fold(0, |n, digit| n * 10 + i64::from(digit - b'0')),
    )
}

/// The Unix seconds of an RFC 3339 time (a fraction of a second dropped);
/// None for any other text.
pub fn unix_seconds(text: &str) -> Option<i64> {
    let bytes = text.as_bytes();
    if bytes.len() < 20
        || bytes[4] != b'-'
        || bytes[7] != b'-'
        || !matches!(bytes[10], b'T' | b't' | b' ')
        || bytes[13] != b':'
        || bytes[16] != b':'
    {
        return None;
    }
    let (year, month, day) = (
        digits(&bytes[0..4])?,
        digits(&bytes[5..7])?,
        digits(&bytes[8..10])?,
    );
    let (hour, minute, second) = (
        digits(&bytes[11..13])?,
        digits(&bytes[14..16])?,
        digits(&bytes[17..19])?,
    );
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let mut rest = &bytes[19..];
    if let Some(fraction) = rest.strip_prefix(b".") {
        let length = fraction
            .iter()
            .take_while(|byte| byte.is_ascii_digit())
            .count();
        if length == 0 {
            return None;
        }
        rest = &fraction[length..];
    }
    let offset = match rest {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), hours @ .., b':', m1, m2] if hours.len() == 2 => {
            let minutes = digits(hours)? * 60 + digits(&[*m1, *m2])?;
            if *sign == b'-' {
                -minutes
            } else {
                minutes
            }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    Some(days * 86_400 + hour * 3_600 + minute * 60 + second - offset * 60)
}

/// Unix seconds as RFC 3339 in UTC, as Go writes a whole second.
pub fn rfc3339(seconds: i64) -> String {
    let days = seconds.div_euclid(86_400);
    let of_day = seconds.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        of_day / 3_600,
        of_day % 3_600 / 60,
        of_day % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes_go_times() {
        assert_eq!(unix_seconds("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            unix_seconds("2025-05-12T10:00:00.123456789Z"),
            Some(1_747_044_000)
        );
        assert_eq!(
            unix_seconds("2025-05-12T12:00:00+02:00"),
            Some(1_747_044_000)
        );
        assert_eq!(
            unix_seconds("2024-02-29T23:59:59-00:30"),
            Some(1_709_252_999)
        );
        assert_eq!(unix_seconds("yesterday"), None);
        assert_eq!(unix_seconds("2025-13-12T10:00:00Z"), None);
        assert_eq!(rfc3339(1_747_044_000), "2025-05-12T10:00:00Z");
        assert_eq!(rfc3339(-1), "1969-12-31T23:59:59Z");
        for seconds in [0, 951_782_400, 1_709_251_199, 4_102_444_800] {
            assert_eq!(unix_seconds(&rfc3339(seconds)), Some(seconds));
        }
    }
}
