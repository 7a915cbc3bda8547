//! The leaf types of the card's mirror structs (`parse.rs`, `security.rs`): private structs
//! with serde derive, as `model/de.rs` reads the protocol's messages, whose fields are all
//! lenient. A field's camelCase name (JSON) and its snake_case one (ProtoJSON's original
//! field names, which some servers send) are two fields of the mirror, joined by [`pick`]:
//! the camelCase one wins when present, `null` counting as absent. A value of another JSON
//! type than the one wanted reads as absent ([`Text`], [`Flag`], [`ObjectOr`]) or as a
//! marker the reader turns into a typed error ([`ArrayOr`], [`Entries`]).
//!
//! The mirrors are read from a `serde_json::Value` (see [`super::AgentCard::parse`]), never
//! from the bytes: the tree keeps the last of a repeated member name and checks every
//! skipped value (strings' UTF-8 and surrogates, numbers' range) as cards have always been
//! read, where serde derive would refuse the repeat and skip without checking.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// A field that may be absent, `null`, or a value.
#[derive(Debug, Default)]
pub(crate) enum Slot<T> {
    /// The member is not there.
    #[default]
    Absent,
    /// The member is `null`.
    Null,
    /// The member's value.
    Val(T),
}

impl<T> Slot<T> {
    /// Whether the member is there (`null` included).
    pub(crate) fn present(&self) -> bool {
        !matches!(self, Slot::Absent)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Slot<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Option::<T>::deserialize(d).map(|o| o.map_or(Slot::Null, Slot::Val))
    }
}

/// The field given by its camelCase member, or, when that is absent, by its snake_case one;
/// `None` when the chosen member is `null` or absent.
pub(crate) fn pick<T>(camel: Slot<T>, snake: Slot<T>) -> Option<T> {
    match camel {
        Slot::Absent => match snake {
            Slot::Val(t) => Some(t),
            _ => None,
        },
        Slot::Null => None,
        Slot::Val(t) => Some(t),
    }
}

/// A string member given by [`pick`], `None` when absent, `null` or not a string.
pub(crate) fn text<'a>(camel: Slot<Text<'a>>, snake: Slot<Text<'a>>) -> Option<Cow<'a, str>> {
    pick(camel, snake).and_then(|t| t.0)
}

/// The text of a member when it is a string; any other JSON value reads as `None`.
#[derive(Debug, Default)]
pub(crate) struct Text<'a>(pub(crate) Option<Cow<'a, str>>);

/// A boolean member; any other JSON value reads as `None`.
#[derive(Debug, Default)]
pub(crate) struct Flag(pub(crate) Option<bool>);

/// An object read as `T`; any other JSON value reads as `None`.
#[derive(Debug)]
pub(crate) struct ObjectOr<T>(pub(crate) Option<T>);

/// An array of `T`; `None` for any other JSON value.
#[derive(Debug)]
pub(crate) struct ArrayOr<T>(pub(crate) Option<Vec<T>>);

/// An object's members in order (name, value read as `T`); `None` for any other JSON value.
#[derive(Debug)]
pub(crate) struct Entries<'a, T>(pub(crate) Option<Vec<(Cow<'a, str>, T)>>);

/// Which of the JSON value kinds a lenient leaf takes; all others read as its `None`.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Str,
    Bool,
    Object,
    Array,
}

/// What a lenient visitor read: the kind it takes, or `Other` (the value was skipped).
enum Read<'a, T> {
    Str(Cow<'a, str>),
    Bool(bool),
    Object(T),
    Array(T),
    Other,
}

/// The visitor behind every lenient leaf: reads the kind it takes (objects and arrays
/// through `F`), skips any other value.
struct Lenient<'a, F>(Kind, F, PhantomData<&'a ()>);

/// Reads an object or array's contents for [`Lenient`].
trait Contents<'de> {
    type Out;
    fn map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Out, A::Error>;
    fn seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Out, A::Error>;
}

/// For leaves without contents (strings, booleans).
struct NoContents;

impl<'de> Contents<'de> for NoContents {
    type Out = ();
    fn map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(())
    }
    fn seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }
}

impl<'de: 'a, 'a, F: Contents<'de>> Visitor<'de> for Lenient<'a, F> {
    type Value = Read<'a, F::Out>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(if self.0 == Kind::Str {
            Read::Str(Cow::Borrowed(v))
        } else {
            Read::Other
        })
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(if self.0 == Kind::Str {
            Read::Str(Cow::Owned(v.to_owned()))
        } else {
            Read::Other
        })
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(if self.0 == Kind::Bool {
            Read::Bool(v)
        } else {
            Read::Other
        })
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Read::Other)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Read::Other)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Read::Other)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Read::Other)
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Read::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        if self.0 == Kind::Object {
            self.1.map(map).map(Read::Object)
        } else {
            NoContents.map(map).map(|()| Read::Other)
        }
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        if self.0 == Kind::Array {
            self.1.seq(seq).map(Read::Array)
        } else {
            NoContents.seq(seq).map(|()| Read::Other)
        }
    }
}

fn lenient<'de: 'a, 'a, D: Deserializer<'de>, F: Contents<'de>>(
    d: D,
    kind: Kind,
    contents: F,
) -> Result<Read<'a, F::Out>, D::Error> {
    d.deserialize_any(Lenient(kind, contents, PhantomData))
}

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Text(match lenient(d, Kind::Str, NoContents)? {
            Read::Str(s) => Some(s),
            _ => None,
        }))
    }
}

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Flag(match lenient(d, Kind::Bool, NoContents)? {
            Read::Bool(b) => Some(b),
            _ => None,
        }))
    }
}

/// Reads an object's contents as `T` (derived mirrors included).
struct AsObject<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Contents<'de> for AsObject<T> {
    type Out = T;
    fn map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        T::deserialize(de::value::MapAccessDeserializer::new(map))
    }
    fn seq<A: SeqAccess<'de>>(self, _: A) -> Result<T, A::Error> {
        Err(de::Error::custom("an object was expected"))
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ObjectOr<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(ObjectOr(
            match lenient(d, Kind::Object, AsObject(PhantomData))? {
                Read::Object(t) => Some(t),
                _ => None,
            },
        ))
    }
}

/// Reads an array's elements as `T`.
struct AsArray<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Contents<'de> for AsArray<T> {
    type Out = Vec<T>;
    fn map<A: MapAccess<'de>>(self, _: A) -> Result<Vec<T>, A::Error> {
        Err(de::Error::custom("an array was expected"))
    }
    fn seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(t) = seq.next_element()? {
            out.push(t);
        }
        Ok(out)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ArrayOr<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(ArrayOr(
            match lenient(d, Kind::Array, AsArray(PhantomData))? {
                Read::Array(v) => Some(v),
                _ => None,
            },
        ))
    }
}

/// Reads an object's members in order.
struct AsEntries<'a, T>(PhantomData<(&'a (), T)>);

/// A member name, borrowed when it can be.
struct Name<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Name<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match lenient(d, Kind::Str, NoContents)? {
            Read::Str(s) => Ok(Name(s)),
            _ => Err(de::Error::custom("a member name was expected")),
        }
    }
}

impl<'de: 'a, 'a, T: Deserialize<'de>> Contents<'de> for AsEntries<'a, T> {
    type Out = Vec<(Cow<'a, str>, T)>;
    fn map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Out, A::Error> {
        let mut out = Vec::with_capacity(map.size_hint().unwrap_or(0).min(64));
        while let Some((Name(k), v)) = map.next_entry::<Name<'a>, T>()? {
            out.push((k, v));
        }
        Ok(out)
    }
    fn seq<A: SeqAccess<'de>>(self, _: A) -> Result<Self::Out, A::Error> {
        Err(de::Error::custom("an object was expected"))
    }
}

impl<'de: 'a, 'a, T: Deserialize<'de>> Deserialize<'de> for Entries<'a, T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Entries(
            match lenient(d, Kind::Object, AsEntries(PhantomData))? {
                Read::Object(v) => Some(v),
                _ => None,
            },
        ))
    }
}

/// An object read as `M`, an array read as `S`, or any other value.
pub(crate) enum Either<M, S> {
    /// An object.
    Object(M),
    /// An array.
    Array(S),
    /// Any other JSON value (skipped).
    Other,
}

impl<'de, M: Deserialize<'de>, S: Deserialize<'de>> Deserialize<'de> for Either<M, S> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<M, S>(PhantomData<(M, S)>);
        impl<'de, M: Deserialize<'de>, S: Deserialize<'de>> Visitor<'de> for V<M, S> {
            type Value = Either<M, S>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                M::deserialize(de::value::MapAccessDeserializer::new(map)).map(Either::Object)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                S::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(Either::Array)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(Either::Other)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Either::Other)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Either::Other)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Either::Other)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Either::Other)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Either::Other)
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Either::Other)
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}
