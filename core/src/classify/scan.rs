//! The borrowed one-pass reader behind the classifier and the stream tracker.
//!
//! Every A2A body shape (JSON-RPC envelope, 0.3 bare results with `kind`, 1.0 wrappers,
//! REST error bodies, problem+json) is read into one union struct, [`BodyShape`]. Strings borrow
//! from the input when they carry no escapes; fields the outcome does not need (history,
//! artifacts' parts, metadata) are skipped by serde without building anything. Every field
//! is *lenient*: a value of an unexpected JSON type reads as absent instead of failing the
//! whole body, so a server that sends `"code":"-32001"` or `"final":"true"` is still
//! classified, and the shape checks are made by the classifier with a precise reason.
//!
//! The one exception to the crate's one JSON reading style (private mirror structs with
//! serde derive, as in `model/de.rs`; issue 29 item 4): the structs here are derived mirrors
//! too, but their leaf types (`LenientStr`, `LNum`, `LBool`, the `*Field` enums, `Parts`,
//! `ObjectOr`) are hand-written visitors. They are what makes a wrongly typed field read as
//! absent without building a tree, and that is measured: the classifier's alternative,
//! lenience by walking a `serde_json::Value`, costs the tree's parse alone 3.5x the whole
//! classification of a 2 KB task (`benches/README.md`, "Classifier": 1.68 µs against
//! 5.82 µs, issue 4's goal being 3x), and `core/tests/stream_alloc.rs` counts the
//! allocations per stream event they keep flat. Keep them; do not replace them by a `Value`.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

/// Drains a map or sequence the caller does not want, returning nothing.
fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

/// Implements the scalar visitor methods that make a lenient field read as `$none`.
macro_rules! lenient_rest {
    ($none:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($none)
        }
    };
}

macro_rules! lenient_containers {
    ($none:expr) => {
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            drain_map(map)?;
            Ok($none)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            drain_seq(seq)?;
            Ok($none)
        }
    };
}

macro_rules! lenient_strings {
    ($none:expr) => {
        fn visit_borrowed_str<E: de::Error>(self, _: &'de str) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok($none)
        }
    };
}

/// A string field; any other JSON type reads as absent.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct LenientStr<'a>(pub Option<Cow<'a, str>>);

impl<'a> LenientStr<'a> {
    pub(crate) fn get(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for LenientStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = LenientStr<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<LenientStr<'a>, E> {
                Ok(LenientStr(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<LenientStr<'a>, E> {
                Ok(LenientStr(Some(Cow::Owned(v.to_owned()))))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<LenientStr<'a>, E> {
                Ok(LenientStr(Some(Cow::Owned(v))))
            }
            lenient_rest!(LenientStr(None));
            lenient_containers!(LenientStr(None));
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// An integer field (JSON-RPC `code`): integers, integral floats and integer strings.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(crate) struct LNum(pub Option<i64>);

impl<'de> Deserialize<'de> for LNum {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LNum;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<LNum, E> {
                Ok(LNum(Some(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<LNum, E> {
                Ok(LNum(i64::try_from(v).ok()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<LNum, E> {
                let ok = v.fract() == 0.0 && v >= i64::MIN as f64 && v <= i64::MAX as f64;
                Ok(LNum(ok.then_some(v as i64)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<LNum, E> {
                Ok(LNum(v.trim().parse().ok()))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<LNum, E> {
                Ok(LNum(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<LNum, E> {
                Ok(LNum(None))
            }
            lenient_containers!(LNum(None));
        }
        d.deserialize_any(V)
    }
}

/// A boolean field; `true`/`false` only, anything else reads as absent.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(crate) struct LBool(pub Option<bool>);

impl<'de> Deserialize<'de> for LBool {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LBool;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<LBool, E> {
                Ok(LBool(Some(v)))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<LBool, E> {
                Ok(LBool(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<LBool, E> {
                Ok(LBool(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<LBool, E> {
                Ok(LBool(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<LBool, E> {
                Ok(LBool(None))
            }
            lenient_strings!(LBool(None));
            lenient_containers!(LBool(None));
        }
        d.deserialize_any(V)
    }
}

/// Records that a key was present, whatever its value.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(crate) struct Present(pub bool);

impl<'de> Deserialize<'de> for Present {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        IgnoredAny::deserialize(d)?;
        Ok(Present(true))
    }
}

/// A raw JSON value kept as text (`id`, `error.data`, `details`); `null` stays `"null"`.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Raw<'a>(pub Option<&'a RawValue>);

impl PartialEq for Raw<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0.map(RawValue::get) == other.0.map(RawValue::get)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Raw<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        <&'a RawValue>::deserialize(d).map(|r| Raw(Some(r)))
    }
}

/// The text of a `parts` (or 0.3 REST `content`) array: text parts joined with `\n`.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Parts<'a> {
    /// The joined text of the text parts, `None` when there are none.
    pub text: Option<Cow<'a, str>>,
    /// Whether any part carried a 0.3 `kind` discriminator.
    pub has_kind: bool,
    /// Whether the key was present with an array value.
    pub present: bool,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Part<'a> {
    #[serde(borrow)]
    text: LenientStr<'a>,
    kind: Present,
}

impl<'de: 'a, 'a> Deserialize<'de> for Parts<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Parts<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Parts<'a>, A::Error> {
                let mut out = Parts {
                    present: true,
                    ..Parts::default()
                };
                while let Some(part) = seq.next_element::<ObjectOr<Part<'a>>>()? {
                    let ObjectOr(Some(part)) = part else {
                        continue;
                    };
                    out.has_kind |= part.kind.0;
                    if let Some(t) = part.text.0 {
                        out.text = Some(match out.text.take() {
                            None => t,
                            Some(prev) => {
                                let mut s = prev.into_owned();
                                s.push('\n');
                                s.push_str(&t);
                                Cow::Owned(s)
                            }
                        });
                    }
                }
                Ok(out)
            }
            lenient_rest!(Parts::default());
            lenient_strings!(Parts::default());
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Parts<'a>, A::Error> {
                drain_map(map)?;
                Ok(Parts::default())
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// An array element read as `T` when it is an object, or `None` for any other JSON value
/// (skipped without error): deployed peers put strings and nulls where objects belong.
struct ObjectOr<T>(Option<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ObjectOr<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = ObjectOr<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ObjectOr<T>, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(|t| ObjectOr(Some(t)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<ObjectOr<T>, A::Error> {
                drain_seq(seq)?;
                Ok(ObjectOr(None))
            }
            lenient_rest!(ObjectOr(None));
            lenient_strings!(ObjectOr(None));
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A Message (both versions, both bindings).
#[derive(Deserialize, Default, Debug, Clone, PartialEq)]
#[serde(default)]
pub(crate) struct Msg<'a> {
    #[serde(borrow)]
    pub kind: LenientStr<'a>,
    #[serde(rename = "messageId", alias = "message_id", borrow)]
    pub message_id: LenientStr<'a>,
    #[serde(rename = "contextId", alias = "context_id", borrow)]
    pub context_id: LenientStr<'a>,
    #[serde(rename = "taskId", alias = "task_id", borrow)]
    pub task_id: LenientStr<'a>,
    #[serde(borrow)]
    pub role: LenientStr<'a>,
    #[serde(borrow)]
    pub parts: Parts<'a>,
    /// 0.3 HTTP+JSON (ProtoJSON of the 0.3 proto) names the parts `content`.
    #[serde(borrow)]
    pub content: Parts<'a>,
}

impl<'a> Msg<'a> {
    /// The message's text, from `parts` or (0.3 REST) `content`.
    pub(crate) fn text(&self) -> Option<&str> {
        self.parts.text.as_deref().or(self.content.text.as_deref())
    }
}

/// A `message` key: a Message object (success shapes) or a string (REST error bodies).
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) enum MsgField<'a> {
    /// Absent, null or another type.
    #[default]
    None,
    /// A string: the error text of a REST error body.
    Text(Cow<'a, str>),
    /// An object: a Message.
    BodyShape(Box<Msg<'a>>),
}

impl<'de: 'a, 'a> Deserialize<'de> for MsgField<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = MsgField<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<MsgField<'a>, E> {
                Ok(MsgField::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<MsgField<'a>, E> {
                Ok(MsgField::Text(Cow::Owned(v.to_owned())))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<MsgField<'a>, A::Error> {
                Msg::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(|m| MsgField::BodyShape(Box::new(m)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<MsgField<'a>, A::Error> {
                drain_seq(seq)?;
                Ok(MsgField::None)
            }
            lenient_rest!(MsgField::None);
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A task status: `{"state":..., "message":{...}}`.
#[derive(Deserialize, Default, Debug, Clone, PartialEq)]
#[serde(default)]
pub(crate) struct Status<'a> {
    #[serde(borrow)]
    pub state: LenientStr<'a>,
    #[serde(borrow)]
    pub message: MsgField<'a>,
}

/// A `status` key: a TaskStatus object (tasks), a string (google.rpc.Status name inside
/// REST errors), or a number (problem+json).
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) enum StatusField<'a> {
    /// Absent or another type.
    #[default]
    None,
    /// A task status object.
    BodyShape(Box<Status<'a>>),
    /// A string status name (`NOT_FOUND`).
    Name(Cow<'a, str>),
    /// A number (problem+json `status`).
    Number(i64),
}

impl<'de: 'a, 'a> Deserialize<'de> for StatusField<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = StatusField<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<StatusField<'a>, E> {
                Ok(StatusField::Name(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<StatusField<'a>, E> {
                Ok(StatusField::Name(Cow::Owned(v.to_owned())))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<StatusField<'a>, E> {
                Ok(StatusField::Number(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<StatusField<'a>, E> {
                Ok(i64::try_from(v).map_or(StatusField::None, StatusField::Number))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<StatusField<'a>, A::Error> {
                Status::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(|s| StatusField::BodyShape(Box::new(s)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<StatusField<'a>, A::Error> {
                drain_seq(seq)?;
                Ok(StatusField::None)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<StatusField<'a>, E> {
                Ok(StatusField::None)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<StatusField<'a>, E> {
                Ok(StatusField::None)
            }
            fn visit_unit<E: de::Error>(self) -> Result<StatusField<'a>, E> {
                Ok(StatusField::None)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// An error object: JSON-RPC `{code,message,data}` or google.rpc.Status
/// `{code,status,message,details}`.
#[derive(Deserialize, Default, Debug, Clone, PartialEq)]
#[serde(default)]
pub(crate) struct ErrObj<'a> {
    pub code: LNum,
    #[serde(borrow)]
    pub message: LenientStr<'a>,
    #[serde(borrow)]
    pub data: Raw<'a>,
    #[serde(borrow)]
    pub status: LenientStr<'a>,
    #[serde(borrow)]
    pub details: Raw<'a>,
}

/// An `error` key: an object, or a bare string some gateways send.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) enum ErrField<'a> {
    /// Absent or null.
    #[default]
    None,
    /// A string.
    Text(Cow<'a, str>),
    /// An error object.
    BodyShape(Box<ErrObj<'a>>),
    /// Present with another type (number, array, bool).
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for ErrField<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = ErrField<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<ErrField<'a>, E> {
                Ok(ErrField::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ErrField<'a>, E> {
                Ok(ErrField::Text(Cow::Owned(v.to_owned())))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ErrField<'a>, A::Error> {
                ErrObj::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(|e| ErrField::BodyShape(Box::new(e)))
            }
            fn visit_unit<E: de::Error>(self) -> Result<ErrField<'a>, E> {
                Ok(ErrField::None)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<ErrField<'a>, A::Error> {
                drain_seq(seq)?;
                Ok(ErrField::Other)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<ErrField<'a>, E> {
                Ok(ErrField::Other)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<ErrField<'a>, E> {
                Ok(ErrField::Other)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<ErrField<'a>, E> {
                Ok(ErrField::Other)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<ErrField<'a>, E> {
                Ok(ErrField::Other)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A nested object in a payload position (`result`, `task`, `statusUpdate`, ...).
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) enum Nested<'a> {
    /// Absent.
    #[default]
    Absent,
    /// `null`.
    Null,
    /// An object.
    BodyShape(Box<BodyShape<'a>>),
    /// An array (0.3 push-config list) or a scalar.
    Other,
}

impl<'a> Nested<'a> {
    pub(crate) fn obj(&self) -> Option<&BodyShape<'a>> {
        match self {
            Nested::BodyShape(o) => Some(o),
            _ => None,
        }
    }
    pub(crate) fn is_present(&self) -> bool {
        !matches!(self, Nested::Absent)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Nested<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Nested<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Nested<'a>, A::Error> {
                BodyShape::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(|o| Nested::BodyShape(Box::new(o)))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Nested<'a>, E> {
                Ok(Nested::Null)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Nested<'a>, A::Error> {
                drain_seq(seq)?;
                Ok(Nested::Other)
            }
            lenient_strings!(Nested::Other);
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Nested<'a>, E> {
                Ok(Nested::Other)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Nested<'a>, E> {
                Ok(Nested::Other)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Nested<'a>, E> {
                Ok(Nested::Other)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Nested<'a>, E> {
                Ok(Nested::Other)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// An artifact head: id and text (parts are read for their text only).
#[derive(Deserialize, Default, Debug, Clone, PartialEq)]
#[serde(default)]
pub(crate) struct Artifact<'a> {
    #[serde(rename = "artifactId", alias = "artifact_id", borrow)]
    pub artifact_id: LenientStr<'a>,
    #[serde(borrow)]
    pub name: LenientStr<'a>,
    #[serde(borrow)]
    pub parts: Parts<'a>,
}

/// The union of every A2A body shape, top-level or nested.
///
/// Every field has its own `default` rather than the struct one: serde's container default
/// builds a whole default `BodyShape` (544 bytes) at the start of every read and moves the
/// missing fields out of it, three times per 2 KB task (the body, `result`, `task`).
#[derive(Deserialize, Default, Debug, Clone, PartialEq)]
pub(crate) struct BodyShape<'a> {
    // --- JSON-RPC envelope ---
    #[serde(default, borrow)]
    pub jsonrpc: Raw<'a>,
    #[serde(default, borrow)]
    pub id: Raw<'a>,
    #[serde(default, borrow)]
    pub result: Nested<'a>,
    #[serde(default, borrow)]
    pub error: ErrField<'a>,
    // --- 1.0 / REST wrappers (oneof) ---
    #[serde(default, borrow)]
    pub task: Nested<'a>,
    /// A Message (success wrapper) or a string (REST error `{"message":..}`).
    #[serde(default, borrow)]
    pub message: MsgField<'a>,
    #[serde(default, rename = "statusUpdate", alias = "status_update", borrow)]
    pub status_update: Nested<'a>,
    #[serde(default, rename = "artifactUpdate", alias = "artifact_update", borrow)]
    pub artifact_update: Nested<'a>,
    // --- Task / Message / events (bare, 0.3 `kind`) ---
    #[serde(default, borrow)]
    pub kind: LenientStr<'a>,
    #[serde(default, rename = "contextId", alias = "context_id", borrow)]
    pub context_id: LenientStr<'a>,
    #[serde(default, rename = "taskId", alias = "task_id", borrow)]
    pub task_id: LenientStr<'a>,
    #[serde(default, rename = "messageId", alias = "message_id", borrow)]
    pub message_id: LenientStr<'a>,
    #[serde(default, borrow)]
    pub role: LenientStr<'a>,
    #[serde(default, borrow)]
    pub parts: Parts<'a>,
    #[serde(default, borrow)]
    pub content: Parts<'a>,
    /// A TaskStatus object, or a status name/number in error bodies.
    #[serde(default, borrow)]
    pub status: StatusField<'a>,
    #[serde(default, rename = "final")]
    pub final_: LBool,
    #[serde(default, borrow)]
    pub artifact: Option<Artifact<'a>>,
    #[serde(default)]
    pub append: LBool,
    #[serde(default, rename = "lastChunk", alias = "last_chunk")]
    pub last_chunk: LBool,
    // --- REST error bodies (bare `{code,message}`, problem+json) ---
    #[serde(default)]
    pub code: LNum,
    #[serde(default, borrow)]
    pub details: Raw<'a>,
    #[serde(default, rename = "type", borrow)]
    pub type_: LenientStr<'a>,
    #[serde(default, borrow)]
    pub title: LenientStr<'a>,
    #[serde(default, borrow)]
    pub detail: LenientStr<'a>,
    #[serde(default, rename = "supportedVersions")]
    pub supported_versions: Present,
    /// Present on Task objects, read only as a version hint (skipped otherwise).
    #[serde(default)]
    pub history: Present,
}

/// Why a body could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ScanError {
    /// Zero bytes (or whitespace only).
    Empty,
    /// Valid JSON, but not an object at the top level.
    NotObject,
    /// Not JSON; carries serde_json's description.
    Json(String),
}

/// Reads one body as the union object.
pub(crate) fn scan(body: &[u8]) -> Result<BodyShape<'_>, ScanError> {
    #[cfg(test)]
    crate::tape::note_serde_pass();
    let first = body.iter().position(|b| !b.is_ascii_whitespace());
    let Some(first) = first else {
        return Err(ScanError::Empty);
    };
    if body[first] != b'{' {
        // Valid JSON of another type, or not JSON: tell them apart for a precise reason.
        return match serde_json::from_slice::<IgnoredAny>(body) {
            Ok(_) => Err(ScanError::NotObject),
            Err(e) => Err(ScanError::Json(e.to_string())),
        };
    }
    serde_json::from_slice::<BodyShape<'_>>(body).map_err(|e| ScanError::Json(e.to_string()))
}

/// The ErrorInfo `reason` and domain found in `error.data` / `details`.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct ErrorInfo<'a> {
    pub reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Detail<'a> {
    #[serde(rename = "@type", borrow)]
    ty: LenientStr<'a>,
    #[serde(borrow)]
    reason: LenientStr<'a>,
}

/// Finds the first ErrorInfo `reason` in a `data`/`details` value: an array of `@type`
/// objects (1.0), or a single object with a `reason` (lenient). Anything else: none.
pub(crate) fn error_info<'a>(raw: &'a RawValue) -> ErrorInfo<'a> {
    struct V<'a>(std::marker::PhantomData<&'a ()>);
    impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
        type Value = ErrorInfo<'a>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ErrorInfo<'a>, A::Error> {
            let mut found = ErrorInfo::default();
            while let Some(item) = seq.next_element::<ObjectOr<Detail<'a>>>()? {
                if found.reason.is_some() {
                    continue;
                }
                if let ObjectOr(Some(d)) = item {
                    let is_info =
                        d.ty.get()
                            .is_none_or(|t| t.ends_with("google.rpc.ErrorInfo"));
                    if is_info {
                        found.reason = d.reason.0;
                    }
                }
            }
            Ok(found)
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ErrorInfo<'a>, A::Error> {
            let d = Detail::deserialize(de::value::MapAccessDeserializer::new(map))?;
            Ok(ErrorInfo { reason: d.reason.0 })
        }
        lenient_rest!(ErrorInfo::default());
        lenient_strings!(ErrorInfo::default());
    }
    let mut de = serde_json::Deserializer::from_str(raw.get());
    de.deserialize_any(V(std::marker::PhantomData))
        .unwrap_or_default()
}

/// The id of a JSON-RPC response as text: a string's contents or a number's digits.
/// `None` for `null`; `Some(Err)` for other types.
pub(crate) fn id_text(raw: &RawValue) -> Option<Result<Cow<'_, str>, ()>> {
    let t = raw.get();
    match t.as_bytes().first() {
        Some(b'n') => None,
        // A string without escapes is its text between the quotes (a raw value is valid
        // JSON); serde_json's `Cow` reader would copy it (about 400 instructions and an
        // allocation per response, `benches/once.rs` under callgrind).
        Some(b'"') if t.len() >= 2 && !t.contains('\\') => {
            Some(Ok(Cow::Borrowed(&t[1..t.len() - 1])))
        }
        Some(b'"') => Some(serde_json::from_str::<Cow<'_, str>>(t).map_err(|_| ())),
        Some(b'-' | b'0'..=b'9') => Some(Ok(Cow::Borrowed(t))),
        _ => Some(Err(())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lenient_fields_do_not_fail_the_body() {
        let o =
            scan(br#"{"code":"-32001","final":"yes","kind":3,"status":[1],"message":5}"#).unwrap();
        assert_eq!(o.code.0, Some(-32001));
        assert_eq!(o.final_.0, None);
        assert_eq!(o.kind.0, None);
        assert_eq!(o.status, StatusField::None);
        assert_eq!(o.message, MsgField::None);
    }

    #[test]
    fn strings_borrow_without_escapes() {
        let body = br#"{"contextId":"c-1","taskId":"t\"1"}"#;
        let o = scan(body).unwrap();
        assert!(matches!(o.context_id.0, Some(Cow::Borrowed("c-1"))));
        assert_eq!(o.task_id.get(), Some("t\"1"));
    }

    #[test]
    fn parts_join_text_and_note_kind() {
        let o =
            scan(br#"{"parts":[{"kind":"text","text":"a"},{"data":{}},7,{"text":"b"}]}"#).unwrap();
        assert_eq!(o.parts.text.as_deref(), Some("a\nb"));
        assert!(o.parts.has_kind);
    }

    #[test]
    fn error_info_reason_from_array_or_object() {
        let raw: &RawValue = serde_json::from_str(
            r#"[{"@type":"type.googleapis.com/google.rpc.BadRequest","reason":"NO"},{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND"}]"#,
        )
        .unwrap();
        assert_eq!(error_info(raw).reason.as_deref(), Some("TASK_NOT_FOUND"));
        let raw: &RawValue = serde_json::from_str(r#"{"reason":"X"}"#).unwrap();
        assert_eq!(error_info(raw).reason.as_deref(), Some("X"));
        let raw: &RawValue = serde_json::from_str(r#""text""#).unwrap();
        assert_eq!(error_info(raw).reason, None);
    }

    #[test]
    fn scan_errors_are_precise() {
        assert_eq!(scan(b"  \r\n"), Err(ScanError::Empty));
        assert_eq!(scan(b"[1,2]"), Err(ScanError::NotObject));
        assert!(matches!(scan(b"<html>"), Err(ScanError::Json(_))));
        assert!(matches!(scan(b"{\"a\":1} x"), Err(ScanError::Json(_))));
    }

    #[test]
    fn id_text_forms() {
        let r: &RawValue = serde_json::from_str("12").unwrap();
        assert_eq!(id_text(r), Some(Ok(Cow::Borrowed("12"))));
        let r: &RawValue = serde_json::from_str("\"a\\u0062\"").unwrap();
        assert_eq!(id_text(r), Some(Ok(Cow::Owned("ab".into()))));
        let r: &RawValue = serde_json::from_str("null").unwrap();
        assert_eq!(id_text(r), None);
        let r: &RawValue = serde_json::from_str("true").unwrap();
        assert_eq!(id_text(r), Some(Err(())));
        // The borrowed fast path gives what serde_json's reader gives.
        for s in [
            "\"\"",
            "\"abc\"",
            "\"\\u00e9t\\u00e9\"",
            "\"a\\\"b\"",
            "\"caf\u{e9}\"",
        ] {
            let r: &RawValue = serde_json::from_str(s).unwrap();
            let slow = serde_json::from_str::<Cow<'_, str>>(s).map_err(|_| ());
            assert_eq!(id_text(r), Some(slow), "{s}");
        }
    }
}

/// The union object read from a tape's tokens: what [`crate::tape::Tape::read`] of a
/// [`BodyShape`] gives, and fails where it fails, without serde's visitors for the objects
/// it walks (the body, `result` and the 1.0 wrappers, `status`); every other field's value
/// is read by serde at its token, and an object serde would refuse (a key with escapes, a
/// field given twice under any of its names) is read whole by serde at its token. About a
/// third of classifying a send's answer went into serde's walk of these objects (issue 28).
#[cfg(feature = "model")]
pub(crate) fn body_shape_from_tape<'a>(
    t: &crate::tape::Tape<'a>,
    pos: usize,
) -> Result<BodyShape<'a>, serde_json::Error> {
    match direct::body_shape(t, pos) {
        Some(r) => r,
        None => t.read_at(pos),
    }
}

#[cfg(feature = "model")]
mod direct {
    use std::borrow::Cow;

    use super::{BodyShape, LBool, LenientStr, Nested, Present, Status, StatusField};
    use crate::tape::{Kind, Tape, first_seen as first};

    type R<T> = Result<T, serde_json::Error>;

    fn lenient_str<'a>(t: &Tape<'a>, pos: usize) -> R<LenientStr<'a>> {
        match t.kind(pos) {
            Kind::Str => Ok(LenientStr(Some(Cow::Borrowed(t.str_text(pos))))),
            Kind::Null => Ok(LenientStr(None)),
            _ => t.read_at(pos),
        }
    }

    fn lbool(t: &Tape<'_>, pos: usize) -> R<LBool> {
        match t.kind(pos) {
            Kind::True => Ok(LBool(Some(true))),
            Kind::False => Ok(LBool(Some(false))),
            _ => t.read_at(pos),
        }
    }

    fn nested<'a>(t: &Tape<'a>, pos: usize) -> R<Nested<'a>> {
        match t.kind(pos) {
            Kind::Null => Ok(Nested::Null),
            Kind::Obj => match body_shape(t, pos) {
                Some(r) => r.map(|b| Nested::BodyShape(Box::new(b))),
                None => t.read_at(pos),
            },
            _ => t.read_at(pos),
        }
    }

    fn status_field<'a>(t: &Tape<'a>, pos: usize) -> R<StatusField<'a>> {
        match t.kind(pos) {
            Kind::Str => Ok(StatusField::Name(Cow::Borrowed(t.str_text(pos)))),
            Kind::Obj => match status(t, pos) {
                Some(r) => r.map(|s| StatusField::BodyShape(Box::new(s))),
                None => t.read_at(pos),
            },
            _ => t.read_at(pos),
        }
    }

    fn status<'a>(t: &Tape<'a>, pos: usize) -> Option<R<Status<'a>>> {
        let mut s = Status::default();
        let mut seen = 0u32;
        for (key, v) in t.members(pos)? {
            let r = match key {
                "state" if first(&mut seen, 0) => lenient_str(t, v).map(|x| s.state = x),
                "message" if first(&mut seen, 1) => t.read_at(v).map(|x| s.message = x),
                "state" | "message" => return None,
                _ => Ok(()),
            };
            if let Err(e) = r {
                return Some(Err(e));
            }
        }
        Some(Ok(s))
    }

    /// The union object at `pos` (see [`super::body_shape_from_tape`]); `None` when serde
    /// reads it whole.
    pub(super) fn body_shape<'a>(t: &Tape<'a>, pos: usize) -> Option<R<BodyShape<'a>>> {
        let mut b = BodyShape::default();
        let mut seen = 0u32;
        for (key, v) in t.members(pos)? {
            let r = match key {
                "jsonrpc" if first(&mut seen, 0) => t.read_at(v).map(|x| b.jsonrpc = x),
                "id" if first(&mut seen, 1) => t.read_at(v).map(|x| b.id = x),
                "result" if first(&mut seen, 2) => nested(t, v).map(|x| b.result = x),
                "error" if first(&mut seen, 3) => t.read_at(v).map(|x| b.error = x),
                "task" if first(&mut seen, 4) => nested(t, v).map(|x| b.task = x),
                "message" if first(&mut seen, 5) => t.read_at(v).map(|x| b.message = x),
                "statusUpdate" | "status_update" if first(&mut seen, 6) => {
                    nested(t, v).map(|x| b.status_update = x)
                }
                "artifactUpdate" | "artifact_update" if first(&mut seen, 7) => {
                    nested(t, v).map(|x| b.artifact_update = x)
                }
                "kind" if first(&mut seen, 8) => lenient_str(t, v).map(|x| b.kind = x),
                "contextId" | "context_id" if first(&mut seen, 9) => {
                    lenient_str(t, v).map(|x| b.context_id = x)
                }
                "taskId" | "task_id" if first(&mut seen, 10) => {
                    lenient_str(t, v).map(|x| b.task_id = x)
                }
                "messageId" | "message_id" if first(&mut seen, 11) => {
                    lenient_str(t, v).map(|x| b.message_id = x)
                }
                "role" if first(&mut seen, 12) => lenient_str(t, v).map(|x| b.role = x),
                "parts" if first(&mut seen, 13) => t.read_at(v).map(|x| b.parts = x),
                "content" if first(&mut seen, 14) => t.read_at(v).map(|x| b.content = x),
                "status" if first(&mut seen, 15) => status_field(t, v).map(|x| b.status = x),
                "final" if first(&mut seen, 16) => lbool(t, v).map(|x| b.final_ = x),
                "artifact" if first(&mut seen, 17) => t.read_at(v).map(|x| b.artifact = x),
                "append" if first(&mut seen, 18) => lbool(t, v).map(|x| b.append = x),
                "lastChunk" | "last_chunk" if first(&mut seen, 19) => {
                    lbool(t, v).map(|x| b.last_chunk = x)
                }
                "code" if first(&mut seen, 20) => t.read_at(v).map(|x| b.code = x),
                "details" if first(&mut seen, 21) => t.read_at(v).map(|x| b.details = x),
                "type" if first(&mut seen, 22) => lenient_str(t, v).map(|x| b.type_ = x),
                "title" if first(&mut seen, 23) => lenient_str(t, v).map(|x| b.title = x),
                "detail" if first(&mut seen, 24) => lenient_str(t, v).map(|x| b.detail = x),
                // Read as present whatever the value (serde skips it).
                "supportedVersions" if first(&mut seen, 25) => {
                    b.supported_versions = Present(true);
                    Ok(())
                }
                "history" if first(&mut seen, 26) => {
                    b.history = Present(true);
                    Ok(())
                }
                "jsonrpc" | "id" | "result" | "error" | "task" | "message" | "statusUpdate"
                | "status_update" | "artifactUpdate" | "artifact_update" | "kind" | "contextId"
                | "context_id" | "taskId" | "task_id" | "messageId" | "message_id" | "role"
                | "parts" | "content" | "status" | "final" | "artifact" | "append"
                | "lastChunk" | "last_chunk" | "code" | "details" | "type" | "title" | "detail"
                | "supportedVersions" | "history" => return None,
                _ => Ok(()),
            };
            if let Err(e) = r {
                return Some(Err(e));
            }
        }
        Some(Ok(b))
    }
}
