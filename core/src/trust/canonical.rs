//! RFC 8785 JSON Canonicalization Scheme (JCS): one byte sequence for one JSON value.
//!
//! [`Json::parse`] reads I-JSON (RFC 7493) strictly: a duplicate member name, a lone
//! surrogate or a number outside the double range is an error, not something to resolve
//! silently, because two readers resolving it differently is how a signature over one
//! document comes to cover another. [`Json::canonical`] writes the RFC 8785 form: members
//! sorted by their names' UTF-16 code units, no whitespace, the shortest escapes, numbers
//! as ECMAScript's `Number.prototype.toString` writes them.

use std::collections::HashSet;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, MapAccess, SeqAccess, Visitor};

use crate::json::write_str;

/// A JSON value as I-JSON sees it: every number a double, members in document order.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number (always finite).
    Number(f64),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, members in document order, names unique.
    Object(Vec<(String, Json)>),
}

/// Why a document is not I-JSON.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CanonicalError {
    /// Not JSON, or a lone surrogate, or a number outside the double range (serde_json's
    /// message, with line and column).
    #[error("not I-JSON: {0}")]
    Json(String),
    /// An object names the same member twice.
    #[error("duplicate member name {0:?}")]
    DuplicateName(String),
}

impl CanonicalError {
    /// A stable snake_case name for the error kind.
    pub fn kind(&self) -> &'static str {
        match self {
            CanonicalError::Json(_) => "json",
            CanonicalError::DuplicateName(_) => "duplicate_name",
        }
    }
}

impl Json {
    /// Parses a whole document. serde_json's nesting limit (128) bounds the depth.
    ///
    /// # Errors
    /// [`CanonicalError`] for anything that is not I-JSON.
    pub fn parse(bytes: &[u8]) -> Result<Json, CanonicalError> {
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let v = Json::deserialize(&mut de).map_err(|e| classify(&e))?;
        de.end().map_err(|e| classify(&e))?;
        Ok(v)
    }

    /// The member `name` of an object.
    pub fn get(&self, name: &str) -> Option<&Json> {
        match self {
            Json::Object(m) => m.iter().find(|(k, _)| k == name).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    /// The RFC 8785 canonical form.
    pub fn canonical(&self) -> Vec<u8> {
        let mut out = String::new();
        self.write(&mut out, true);
        out.into_bytes()
    }

    /// Compact JSON text in document order (members as they came), with the same escapes
    /// and number form as the canonical form.
    pub fn to_compact(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, false);
        out
    }

    fn write(&self, out: &mut String, sorted: bool) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(true) => out.push_str("true"),
            Json::Bool(false) => out.push_str("false"),
            Json::Number(n) => write_number(out, *n),
            // RFC 8785 §3.2.2.2's escapes are serde_json's, which the crate's one escaper writes.
            Json::String(s) => write_str(out, s),
            Json::Array(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write(out, sorted);
                }
                out.push(']');
            }
            Json::Object(members) => {
                let mut order: Vec<&(String, Json)> = members.iter().collect();
                if sorted {
                    // RFC 8785 §3.2.3: by the names' UTF-16 code units, not by UTF-8 bytes
                    // (they differ above U+FFFF versus U+E000..U+FFFF).
                    order.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
                }
                out.push('{');
                for (i, (k, v)) in order.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_str(out, k);
                    out.push(':');
                    v.write(out, sorted);
                }
                out.push('}');
            }
        }
    }
}

/// Canonicalizes a whole document in one step.
///
/// # Errors
/// As [`Json::parse`].
pub fn canonicalize(bytes: &[u8]) -> Result<Vec<u8>, CanonicalError> {
    Json::parse(bytes).map(|v| v.canonical())
}

fn classify(e: &serde_json::Error) -> CanonicalError {
    let msg = e.to_string();
    // The duplicate-name error is raised from inside the visitor as a custom message.
    match msg.strip_prefix(DUPLICATE_PREFIX) {
        Some(rest) => {
            let name = rest.rsplit_once(" at line ").map_or(rest, |(n, _)| n);
            CanonicalError::DuplicateName(name.to_owned())
        }
        None => CanonicalError::Json(msg),
    }
}

const DUPLICATE_PREFIX: &str = "duplicate member name: ";

/// RFC 8785 §3.2.2.3: the ECMAScript number-to-string algorithm; -0 is written `0`.
fn write_number(out: &mut String, n: f64) {
    if n == 0.0 {
        out.push('0');
        return;
    }
    let mut buf = ryu_js::Buffer::new();
    out.push_str(buf.format_finite(n));
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }
    // I-JSON numbers are doubles: an integer beyond 2^53 becomes its nearest double, as it
    // does for every I-JSON reader (RFC 7493 §2.2).
    #[allow(clippy::cast_precision_loss)]
    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Number(v as f64))
    }
    #[allow(clippy::cast_precision_loss)]
    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Number(v as f64))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Json, E> {
        if v.is_finite() {
            Ok(Json::Number(v))
        } else {
            Err(E::custom("number outside the double range"))
        }
    }
    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::String(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element::<Json>()? {
            items.push(v);
        }
        Ok(Json::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut members: Vec<(String, Json)> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        while let Some(k) = map.next_key::<String>()? {
            if !seen.insert(k.clone()) {
                return Err(de::Error::custom(format_args!("{DUPLICATE_PREFIX}{k}")));
            }
            let v = map.next_value::<Json>()?;
            members.push((k, v));
        }
        Ok(Json::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(s: &str) -> String {
        String::from_utf8(canonicalize(s.as_bytes()).unwrap()).unwrap()
    }

    fn number(bits: u64) -> String {
        let mut out = String::new();
        write_number(&mut out, f64::from_bits(bits));
        out
    }

    /// RFC 8785 Appendix B: IEEE 754 bit patterns and their JCS form.
    #[test]
    fn rfc8785_number_vectors() {
        let vectors: &[(u64, &str)] = &[
            (0x0000_0000_0000_0000, "0"),
            (0x8000_0000_0000_0000, "0"),
            (0x0000_0000_0000_0001, "5e-324"),
            (0x8000_0000_0000_0001, "-5e-324"),
            (0x7fef_ffff_ffff_ffff, "1.7976931348623157e+308"),
            (0xffef_ffff_ffff_ffff, "-1.7976931348623157e+308"),
            (0x4340_0000_0000_0000, "9007199254740992"),
            (0xc340_0000_0000_0000, "-9007199254740992"),
            (0x4430_0000_0000_0000, "295147905179352830000"),
            (0x44b5_2d02_c7e1_4af5, "9.999999999999997e+22"),
            (0x44b5_2d02_c7e1_4af6, "1e+23"),
            (0x44b5_2d02_c7e1_4af7, "1.0000000000000001e+23"),
            (0x444b_1ae4_d6e2_ef4e, "999999999999999700000"),
            (0x444b_1ae4_d6e2_ef4f, "999999999999999900000"),
            (0x444b_1ae4_d6e2_ef50, "1e+21"),
            (0x3eb0_c6f7_a0b5_ed8c, "9.999999999999997e-7"),
            (0x3eb0_c6f7_a0b5_ed8d, "0.000001"),
            (0x41b3_de43_5555_5553, "333333333.3333332"),
            (0x41b3_de43_5555_5554, "333333333.33333325"),
            (0x41b3_de43_5555_5555, "333333333.3333333"),
            (0x41b3_de43_5555_5556, "333333333.3333334"),
            (0x41b3_de43_5555_5557, "333333333.33333343"),
            (0xbecb_f647_612f_3696, "-0.0000033333333333333333"),
            (0x4314_3ff3_c1cb_0959, "1424953923781206.2"),
        ];
        for (bits, want) in vectors {
            assert_eq!(number(*bits), *want, "bits {bits:#018x}");
        }
    }

    /// RFC 8785 §3.2.2: the specification's own input and output, byte for byte.
    #[test]
    fn rfc8785_primitive_example() {
        let input = r#"{
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}"#;
        let want = "{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],\"string\":\"\u{20ac}$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}";
        assert_eq!(canon(input), want);
    }

    /// RFC 8785 §3.2.3: member names sorted by UTF-16 code units (the emoji, a surrogate
    /// pair, sorts before U+FB33 although its UTF-8 form sorts after).
    #[test]
    fn rfc8785_sorting_example() {
        let input = r#"{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}"#;
        let want = "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u{80}\":\"Control\",\"\u{f6}\":\"Latin Small Letter O With Diaeresis\",\"\u{20ac}\":\"Euro Sign\",\"\u{1f600}\":\"Emoji: Grinning Face\",\"\u{fb33}\":\"Hebrew Letter Dalet With Dagesh\"}";
        assert_eq!(canon(input), want);
    }

    #[test]
    fn escapes_every_control_and_nothing_else() {
        assert_eq!(
            canon(r#""\u0000\u0001\b\t\n\u000b\f\r\u001f \u007f\u2028/""#),
            "\"\\u0000\\u0001\\b\\t\\n\\u000b\\f\\r\\u001f \u{7f}\u{2028}/\""
        );
    }

    #[test]
    fn nested_structures_sort_at_every_level_and_keep_array_order() {
        assert_eq!(
            canon(r#" { "b" : [ 3 , { "z" : 1 , "a" : 2 } ], "a" : { } } "#),
            r#"{"a":{},"b":[3,{"a":2,"z":1}]}"#
        );
    }

    #[test]
    fn big_integers_become_doubles() {
        assert_eq!(canon("18446744073709551615"), "18446744073709552000");
        assert_eq!(canon("-0"), "0");
        assert_eq!(canon("1.0"), "1");
        assert_eq!(canon("100"), "100");
    }

    #[test]
    fn refuses_what_is_not_i_json() {
        assert_eq!(
            Json::parse(br#"{"a":1,"a":2}"#),
            Err(CanonicalError::DuplicateName("a".into()))
        );
        assert_eq!(
            Json::parse(br#"{"x":{"a":1,"b":{"a":1},"a":2}}"#)
                .unwrap_err()
                .kind(),
            "duplicate_name"
        );
        for bad in [
            &br#""\ud800""#[..],
            b"1e400",
            b"{",
            b"[1,]",
            b"NaN",
            b"1 2",
            b"",
        ] {
            assert_eq!(Json::parse(bad).unwrap_err().kind(), "json", "{bad:?}");
        }
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert_eq!(Json::parse(deep.as_bytes()).unwrap_err().kind(), "json");
    }

    #[test]
    fn compact_keeps_document_order() {
        let v = Json::parse(br#"{"b":1, "a":[true,null,"x\n"]}"#).unwrap();
        assert_eq!(v.to_compact(), r#"{"b":1,"a":[true,null,"x\n"]}"#);
    }
}
