//! One pass over a JSON body into a flat tape of tokens, read by serde as often as needed.
//!
//! A response body is tokenized once ([`Tape::parse_in`]): UTF-8 is checked for the whole body
//! (simdutf8), every token records its byte span, containers record where they end (so a
//! reader skips a subtree in one step), and the nesting depth and the few token shapes whose
//! meaning only serde_json decides exactly (numbers with a fraction, an exponent or more than
//! 18 digits; `\u` escapes) are noted. The tape then implements [`serde::Deserializer`]
//! ([`Tape::read`]), so the classifier's union object and the answer's model are read from
//! the same tokens, without touching the bytes' syntax again: strings without escapes and raw
//! values (`&RawValue`, serde_json's own token protocol) borrow from the body.
//!
//! The tape accepts a strict subset of what serde_json accepts (RFC 8259, depth below
//! [`MAX_DEPTH`], at most `u32::MAX` bytes), and every value it hands out is the one
//! serde_json would hand out (numbers and escaped strings beyond the plain forms are given to
//! serde_json itself). So a body the tape refuses, or a read that fails, is for the caller
//! to read again with serde_json for its exact error and position; that is the only case in
//! which a body is parsed twice.
//!
//! Why not a library: serde_json has no token stream with spans, and simd-json / sonic-rs
//! tapes do not hand serde borrowed `RawValue`s of the input; the tokenizer is small and
//! its equivalence to serde_json is property-tested (`client::read` tests, `answer` tests).

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// The deepest nesting the tape reads: serde_json's own recursion limit for a tree
/// (`Value`) is 128 levels, so every raw value inside a body the tape accepts also parses
/// as a tree.
pub(crate) const MAX_DEPTH: usize = 127;

/// serde_json's private token for `RawValue` (stable since serde_json 1.0.29): a raw value
/// is asked for as a newtype struct of this name and read as a one-entry map whose value is
/// the raw text.
const RAW_TOKEN: &str = "$serde_json::private::RawValue";

/// What a token is (the direct model reader, `model::direct`, looks at it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Null,
    True,
    False,
    /// A number in its plain integer form (`0`, `-12`, at most 18 digits, not `-0`).
    Int,
    /// Any other number: serde_json reads it.
    Num,
    /// A string without escapes; the span includes the quotes.
    Str,
    /// A string with escapes: serde_json unescapes it.
    StrEsc,
    /// An object: its members (key and value tokens) follow it.
    Obj,
    /// An array: its elements follow it.
    Arr,
}

#[derive(Debug, Clone, Copy)]
struct Tok {
    kind: Kind,
    /// Byte span of the value's text (strings with their quotes, containers with brackets).
    start: u32,
    end: u32,
    /// The index of the token after this value (after a container's last token).
    next: u32,
}

/// A tokenized JSON body (see the module docs).
#[derive(Debug)]
pub(crate) struct Tape<'a> {
    src: &'a str,
    toks: Vec<Tok>,
    /// Whether the body holds a token that could fail serde_json's tree although its syntax
    /// is valid (a number with an exponent or more than 18 integer digits, out of f64's range
    /// perhaps; a `\u` escape, perhaps a lone surrogate): raw values are then checked the
    /// slow way.
    exotic: bool,
}

#[cfg(test)]
thread_local! {
    /// Tokenizations of a body by [`Tape::parse_in`] (tests count them).
    pub(crate) static TAPE_PASSES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// Parses by serde_json of a body or of a raw value in it (`classify::scan`, the answer's
    /// model reader, the tree check of raw values).
    pub(crate) static SERDE_PASSES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts one serde_json parse of body bytes (tests only).
#[cfg(test)]
pub(crate) fn note_serde_pass() {
    SERDE_PASSES.with(|p| p.set(p.get() + 1));
}

/// The passes counted on this thread so far: (tape, serde_json).
#[cfg(test)]
pub(crate) fn passes() -> (usize, usize) {
    (
        TAPE_PASSES.with(std::cell::Cell::get),
        SERDE_PASSES.with(std::cell::Cell::get),
    )
}

impl<'a> Tape<'a> {
    /// Tokenizes `body`; `None` when it is not a JSON document the tape reads (see the
    /// module docs): the caller then reads it with serde_json.
    #[cfg(test)]
    pub(crate) fn parse(body: &'a [u8]) -> Option<Tape<'a>> {
        Tape::parse_in(body, &mut TapeBuf::default())
    }

    /// Tokenizes `body` (see the module docs) into the tokens' storage of `buf` (taken from
    /// it, empty or not); [`Tape::recycle`] gives it back, so a stream's events are tokenized
    /// without an allocation each. `None` when the body is not a JSON document the tape reads:
    /// the caller then reads it with serde_json.
    pub(crate) fn parse_in(body: &'a [u8], buf: &mut TapeBuf) -> Option<Tape<'a>> {
        #[cfg(test)]
        TAPE_PASSES.with(|p| p.set(p.get() + 1));
        if body.len() >= u32::MAX as usize {
            return None;
        }
        let src = simdutf8::basic::from_utf8(body).ok()?;
        let mut toks = std::mem::take(&mut buf.0);
        toks.clear();
        toks.reserve(body.len() / 12 + 4);
        let mut p = Parser {
            b: body,
            i: 0,
            toks,
            exotic: false,
        };
        p.ws();
        p.value(0)?;
        p.ws();
        if p.i != body.len() {
            return None;
        }
        Some(Tape {
            src,
            toks: p.toks,
            exotic: p.exotic,
        })
    }

    /// [`Tape::parse_in`] into this thread's spare tokens' storage ([`Tape::keep_as_spare`]
    /// gives it back): a one-shot read (`answer::classify_and_read`) then does not allocate
    /// and free its tokens each time, a 2.8 KB block for a 2 KB body, past malloc's per-thread
    /// cache (about 300 instructions for the allocation alone). At most [`TapeBuf::KEPT`]
    /// tokens (16 KiB) stay held per thread.
    pub(crate) fn parse_spare(body: &'a [u8]) -> Option<Tape<'a>> {
        let mut buf = SPARE.take();
        Tape::parse_in(body, &mut buf)
    }

    /// Keeps the tokens' storage as this thread's spare (see [`Tape::recycle`]).
    pub(crate) fn keep_as_spare(self) {
        let mut buf = TapeBuf::default();
        self.recycle(&mut buf);
        SPARE.set(buf);
    }

    /// Gives the tokens' storage back to `buf` for the next [`Tape::parse_in`], unless it
    /// grew past [`TapeBuf::KEPT`] tokens (one large event does not pin its memory).
    pub(crate) fn recycle(self, buf: &mut TapeBuf) {
        if self.toks.capacity() <= TapeBuf::KEPT {
            buf.0 = self.toks;
        }
    }

    /// Whether the top-level value is an object.
    pub(crate) fn is_object(&self) -> bool {
        self.toks.first().is_some_and(|t| t.kind == Kind::Obj)
    }

    /// Whether a raw value inside this body could fail to parse as a serde_json tree: only
    /// when the body holds a number or escape whose reading serde_json alone decides (the
    /// depth is below serde_json's limit by construction).
    pub(crate) fn raw_values_need_check(&self) -> bool {
        self.exotic
    }

    /// Reads the whole document as `T`.
    #[cfg_attr(feature = "model", allow(dead_code))] // the tests' and the no-model tracker's
    pub(crate) fn read<T: serde::Deserialize<'a>>(&self) -> Result<T, serde_json::Error> {
        // Which container was left unread, and whether serde_json would still read the rest,
        // is left to serde_json: every caller reads the body again on an error.
        self.read_at(0)
    }

    /// The value of the top-level object's member `key` read as `T`: what reading the whole
    /// document as a struct with the one field `key: Option<T>` gives (other members
    /// ignored), without that struct's visitor and the moves of `T` through its field, its
    /// `Option` and its `Result`. `None` when that read would give no value (not an object, no
    /// such member or a `null` one, `T` fails) and also when the top-level object has a key
    /// with escapes or `key` twice, which the caller's serde_json path then decides.
    #[cfg(test)]
    pub(crate) fn read_member<T: serde::Deserialize<'a>>(&self, key: &str) -> Option<T> {
        self.read_at(self.member(key)?).ok()
    }

    /// The token of the top-level object's member `key`: `None` when there is none to read
    /// (not an object, no such member or a `null` one) and also when the object has a key
    /// with escapes or `key` twice, which the caller's serde_json path then decides.
    pub(crate) fn member(&self, key: &str) -> Option<usize> {
        let top = self.toks.first()?;
        if top.kind != Kind::Obj {
            return None;
        }
        let end = top.next as usize;
        let (mut pos, mut found) = (1, None);
        while pos < end {
            let k = self.toks[pos];
            if k.kind != Kind::Str {
                return None;
            }
            if &self.src[k.start as usize + 1..k.end as usize - 1] == key {
                if found.is_some() {
                    return None;
                }
                found = Some(pos + 1);
            }
            pos = self.toks[pos + 1].next as usize;
        }
        let at = found?;
        (self.toks[at].kind != Kind::Null).then_some(at)
    }

    /// The value at token `pos` read as `T` by serde, exactly as a serde read of the whole
    /// document reads it there (a container left unread fails, as in [`Tape::read`]).
    pub(crate) fn read_at<T: serde::Deserialize<'a>>(
        &self,
        pos: usize,
    ) -> Result<T, serde_json::Error> {
        let mut de = TapeDe {
            tape: self,
            pos,
            unread: false,
        };
        let v = T::deserialize(&mut de)?;
        if de.unread {
            return Err(err("a container not read to its end"));
        }
        Ok(v)
    }

    /// The kind of token `pos` (a valid token index: one the tape handed out).
    #[inline]
    pub(crate) fn kind(&self, pos: usize) -> Kind {
        self.toks[pos].kind
    }

    /// The token after the value at `pos` (after a container's last token).
    #[inline]
    pub(crate) fn after(&self, pos: usize) -> usize {
        self.toks[pos].next as usize
    }

    /// The text of the string token `pos` without its quotes (its value when the token is
    /// a [`Kind::Str`], a string without escapes).
    #[inline]
    pub(crate) fn str_text(&self, pos: usize) -> &'a str {
        let t = self.toks[pos];
        &self.src[t.start as usize + 1..t.end as usize - 1]
    }

    /// The members of the object at `pos` as (key, value) token pairs, for the direct
    /// readers; `None` (the caller hands the object to serde) when it is not an object or a
    /// key has escapes.
    #[cfg(feature = "model")]
    pub(crate) fn members<'t>(
        &'t self,
        pos: usize,
    ) -> Option<impl Iterator<Item = (&'a str, usize)> + 't> {
        if self.kind(pos) != Kind::Obj {
            return None;
        }
        let end = self.after(pos);
        let mut at = pos + 1;
        // Escaped keys are rare enough to look for first, in one pass over the keys.
        while at < end {
            if self.kind(at) != Kind::Str {
                return None;
            }
            at = self.after(at + 1);
        }
        let mut k = pos + 1;
        Some(std::iter::from_fn(move || {
            if k >= end {
                return None;
            }
            let key = self.str_text(k);
            let value = k + 1;
            k = self.after(value);
            Some((key, value))
        }))
    }
}

/// Notes field `bit` of a direct reader's `seen` mask as seen; `false` when it already was
/// (serde refuses a field given twice, so the reader hands the object to serde).
#[cfg(feature = "model")]
#[inline]
pub(crate) fn first_seen(seen: &mut u32, bit: u32) -> bool {
    let fresh = *seen & (1 << bit) == 0;
    *seen |= 1 << bit;
    fresh
}

/// Storage for a tape's tokens, kept between [`Tape::parse_in`]s.
#[derive(Debug, Default)]
pub(crate) struct TapeBuf(Vec<Tok>);

thread_local! {
    /// The tokens' storage of this thread's last one-shot read ([`Tape::parse_spare`]).
    static SPARE: std::cell::Cell<TapeBuf> = const { std::cell::Cell::new(TapeBuf(Vec::new())) };
}

impl TapeBuf {
    /// The most tokens whose storage is kept (16 KiB: events up to about 12 KB).
    const KEPT: usize = 1024;
}

struct Parser<'b> {
    b: &'b [u8],
    i: usize,
    toks: Vec<Tok>,
    exotic: bool,
}

impl Parser<'_> {
    #[inline]
    fn ws(&mut self) {
        // Every whitespace byte is at most a space: one comparison ends the common case
        // (a minified body) before the four-way test.
        while let Some(&c) = self.b.get(self.i) {
            if c <= b' ' && matches!(c, b' ' | b'\n' | b'\r' | b'\t') {
                self.i += 1;
            } else {
                break;
            }
        }
    }

    #[inline]
    fn push(&mut self, kind: Kind, start: usize) {
        let next = self.toks.len() as u32 + 1;
        self.toks.push(Tok {
            kind,
            start: start as u32,
            end: self.i as u32,
            next,
        });
    }

    fn lit(&mut self, word: &[u8], kind: Kind) -> Option<()> {
        let start = self.i;
        if self.b.get(start..start + word.len())? != word {
            return None;
        }
        self.i += word.len();
        self.push(kind, start);
        Some(())
    }

    fn value(&mut self, depth: usize) -> Option<()> {
        match *self.b.get(self.i)? {
            b'{' => self.container(depth, true),
            b'[' => self.container(depth, false),
            b'"' => {
                let start = self.i;
                let esc = self.string()?;
                self.push(if esc { Kind::StrEsc } else { Kind::Str }, start);
                Some(())
            }
            b'n' => self.lit(b"null", Kind::Null),
            b't' => self.lit(b"true", Kind::True),
            b'f' => self.lit(b"false", Kind::False),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn container(&mut self, depth: usize, object: bool) -> Option<()> {
        if depth >= MAX_DEPTH {
            return None;
        }
        let start = self.i;
        let at = self.toks.len();
        self.toks.push(Tok {
            kind: if object { Kind::Obj } else { Kind::Arr },
            start: start as u32,
            end: 0,
            next: 0,
        });
        self.i += 1;
        let close = if object { b'}' } else { b']' };
        self.ws();
        if self.b.get(self.i) == Some(&close) {
            self.i += 1;
        } else {
            loop {
                if object {
                    if self.b.get(self.i) != Some(&b'"') {
                        return None;
                    }
                    let ks = self.i;
                    let esc = self.string()?;
                    self.push(if esc { Kind::StrEsc } else { Kind::Str }, ks);
                    if self.b.get(self.i) != Some(&b':') {
                        self.ws();
                        if self.b.get(self.i) != Some(&b':') {
                            return None;
                        }
                    }
                    self.i += 1;
                    self.ws();
                }
                // A string value (most values of an A2A body) is read here rather than
                // through `value`'s call and dispatch.
                if self.b.get(self.i) == Some(&b'"') {
                    let vs = self.i;
                    let esc = self.string()?;
                    self.push(if esc { Kind::StrEsc } else { Kind::Str }, vs);
                } else if self.b.get(self.i) == Some(&b'{') {
                    // So is an object (the elements of `history`, `artifacts`, `parts`).
                    self.container(depth + 1, true)?;
                } else {
                    self.value(depth + 1)?;
                }
                // Whitespace is scanned for only when the next byte could be some (every
                // JSON whitespace byte is at most a space): bodies are mostly minified.
                let mut c = *self.b.get(self.i)?;
                if c <= b' ' {
                    self.ws();
                    c = *self.b.get(self.i)?;
                }
                match c {
                    b',' => {
                        self.i += 1;
                        if self.b.get(self.i).is_some_and(|&c| c <= b' ') {
                            self.ws();
                        }
                    }
                    c if c == close => {
                        self.i += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        let next = self.toks.len() as u32;
        let t = &mut self.toks[at];
        t.end = self.i as u32;
        t.next = next;
        Some(())
    }

    /// Reads a string from its opening quote; `Some(true)` when it has escapes. Inlined into
    /// its callers: the call's frame was a tenth of the tokenizer's instructions
    /// (48.1k against 50.2k per classify_and_read of the 2 KB task, callgrind).
    #[inline(always)]
    fn string(&mut self) -> Option<bool> {
        self.i += 1;
        let mut esc = false;
        loop {
            let (at, c) = stop(&self.b[self.i..])?;
            self.i += at;
            if c == b'"' {
                self.i += 1;
                return Some(esc);
            }
            esc = true;
            match *self.b.get(self.i + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.i += 2,
                b'u' => {
                    let hex = self.b.get(self.i + 2..self.i + 6)?;
                    if !hex.iter().all(u8::is_ascii_hexdigit) {
                        return None;
                    }
                    self.exotic = true;
                    self.i += 6;
                }
                _ => return None,
            }
        }
    }

    fn digits(&mut self) -> usize {
        let s = self.i;
        while self.b.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
        self.i - s
    }

    fn number(&mut self) -> Option<()> {
        let start = self.i;
        let neg = self.b[self.i] == b'-';
        if neg {
            self.i += 1;
        }
        let first = *self.b.get(self.i)?;
        let int_digits = match first {
            b'0' => {
                self.i += 1;
                1
            }
            b'1'..=b'9' => self.digits(),
            _ => return None,
        };
        let mut plain = int_digits <= 18 && !(neg && first == b'0');
        // Only an exponent or a long integer part can take a number out of f64's range,
        // which fails serde_json's tree; a short fraction (`21.5`) never does.
        if int_digits > 18 {
            self.exotic = true;
        }
        if self.b.get(self.i) == Some(&b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return None;
            }
            plain = false;
        }
        if matches!(self.b.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.b.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return None;
            }
            plain = false;
            self.exotic = true;
        }
        self.push(if plain { Kind::Int } else { Kind::Num }, start);
        Some(())
    }
}

/// The serde reader over a tape; `pos` is the token to read next.
struct TapeDe<'t, 'a> {
    tape: &'t Tape<'a>,
    pos: usize,
    /// Whether a visitor returned before reading all of an object's members or an array's
    /// elements (serde_json fails such a read: "trailing characters").
    unread: bool,
}

/// Where the string text `rest` (after its opening quote, or after an escape) stops: the
/// offset of the next `"` or `\\`; `None` when a raw control character (not allowed inside a
/// JSON string) or the end of the body comes first.
#[cfg(test)]
fn special(rest: &[u8]) -> Option<usize> {
    stop(rest).map(|(k, _)| k)
}

/// The offset `special` gives, with the byte found there (`"` or `\\`), taken from the word already
/// in a register: the caller's test of which one it is then needs no second load and
/// bounds check of the body.
///
/// Eight bytes at a time (SWAR over a `u64`): most strings of an A2A body (keys, ids, states,
/// timestamps) are 4 to 40 bytes long, too short for memchr's SIMD set-up to pay off, and a
/// byte loop spent about a third of tokenizing a 2 KB task (`benches/once.rs` under
/// callgrind; issue 28). The tail shorter than a word is read byte by byte.
#[inline]
fn stop(rest: &[u8]) -> Option<(usize, u8)> {
    let mut words = rest.chunks_exact(8);
    let mut at = 0;
    for w in words.by_ref() {
        let x = u64::from_le_bytes(w.try_into().expect("eight bytes"));
        let hit = crate::json::escape_bytes(x);
        if hit != 0 {
            let bit = hit.trailing_zeros();
            let c = (x >> (bit & !7)) as u8;
            return (c >= 0x20).then_some((at + (bit / 8) as usize, c));
        }
        at += 8;
    }
    for (k, &c) in words.remainder().iter().enumerate() {
        if c == b'"' || c == b'\\' {
            return Some((at + k, c));
        }
        if c < 0x20 {
            return None;
        }
    }
    None
}

fn err(msg: &str) -> serde_json::Error {
    de::Error::custom(msg)
}

impl<'t, 'a> TapeDe<'t, 'a> {
    fn tok(&self) -> Result<Tok, serde_json::Error> {
        self.tape
            .toks
            .get(self.pos)
            .copied()
            .ok_or_else(|| err("read past the end of the tape"))
    }

    fn text(&self, t: Tok) -> &'a str {
        &self.tape.src[t.start as usize..t.end as usize]
    }

    /// The members or elements from token `pos` up to `end` (an object's or an array's),
    /// read by `read` (the visitor's `visit_map` or `visit_seq`). The visitor's result is
    /// handed back as it came and a container it left unfinished is noted in `unread`
    /// (failing the whole read, [`Tape::read`]) rather than turned into an error here:
    /// testing the result before returning it kept the compiler from building a model
    /// struct (hundreds of bytes) where the caller wants it, a `memcpy` per struct read (19
    /// of 94 per `classify_and_read` of the 2 KB task).
    #[inline]
    fn container_at<T>(
        &mut self,
        pos: usize,
        end: usize,
        read: impl FnOnce(&mut Access<'_, 't, 'a>) -> Result<T, serde_json::Error>,
    ) -> Result<T, serde_json::Error> {
        let mut access = Access { de: self, pos, end };
        let r = read(&mut access);
        self.unread |= access.pos != end;
        self.pos = end;
        r
    }
}

impl<'de, 't> Deserializer<'de> for &mut TapeDe<'t, 'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        let at = self.pos;
        let t = self.tok()?;
        self.pos = t.next as usize;
        match t.kind {
            Kind::Null => visitor.visit_unit(),
            Kind::True => visitor.visit_bool(true),
            Kind::False => visitor.visit_bool(false),
            Kind::Int => {
                let s = self.text(t);
                // At most 18 digits: fits an i64 either way; serde_json gives non-negative
                // integers as u64 and negative ones as i64.
                match s.strip_prefix('-') {
                    Some(d) => visitor.visit_i64(-(d.parse::<i64>().map_err(de::Error::custom)?)),
                    None => visitor.visit_u64(s.parse::<u64>().map_err(de::Error::custom)?),
                }
            }
            Kind::Num | Kind::StrEsc => {
                serde_json::Deserializer::from_str(self.text(t)).deserialize_any(visitor)
            }
            Kind::Str => {
                visitor.visit_borrowed_str(&self.tape.src[t.start as usize + 1..t.end as usize - 1])
            }
            // A container's token is followed directly by its contents.
            Kind::Obj => self.container_at(at + 1, t.next as usize, |a| visitor.visit_map(a)),
            Kind::Arr => self.container_at(at + 1, t.next as usize, |a| visitor.visit_seq(a)),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        let t = self.tok()?;
        if t.kind == Kind::Null {
            self.pos = t.next as usize;
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        if name == RAW_TOKEN {
            let t = self.tok()?;
            self.pos = t.next as usize;
            let raw = self.text(t);
            return visitor.visit_map(RawAccess { raw: Some(raw) });
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        let t = self.tok()?;
        self.pos = t.next as usize;
        visitor.visit_unit()
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Self::Error> {
        // No reader on this path takes a derived enum; serde_json reads one (the caller's
        // fallback) with its exact rules.
        Err(err("enums are read by serde_json"))
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Self::Error> {
        Err(err("bytes are read by serde_json"))
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Self::Error> {
        Err(err("bytes are read by serde_json"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        unit unit_struct seq tuple tuple_struct map struct identifier
    }
}

/// Map and sequence access over a container's tokens.
struct Access<'d, 't, 'a> {
    de: &'d mut TapeDe<'t, 'a>,
    pos: usize,
    end: usize,
}

impl<'de> MapAccess<'de> for &mut Access<'_, '_, 'de> {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        if self.pos >= self.end {
            return Ok(None);
        }
        self.de.pos = self.pos;
        let k = seed.deserialize(&mut *self.de)?;
        self.pos = self.de.pos;
        Ok(Some(k))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        self.de.pos = self.pos;
        let v = seed.deserialize(&mut *self.de)?;
        self.pos = self.de.pos;
        Ok(v)
    }
}

impl<'de> SeqAccess<'de> for &mut Access<'_, '_, 'de> {
    type Error = serde_json::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Self::Error> {
        if self.pos >= self.end {
            return Ok(None);
        }
        self.de.pos = self.pos;
        let v = seed.deserialize(&mut *self.de)?;
        self.pos = self.de.pos;
        Ok(Some(v))
    }

    /// The exact number of elements left (each element's token says where the next one
    /// starts), so that a `Vec` is allocated once at its final size instead of growing.
    fn size_hint(&self) -> Option<usize> {
        let toks = &self.de.tape.toks;
        let (mut at, mut n) = (self.pos, 0);
        while at < self.end {
            at = toks[at].next as usize;
            n += 1;
        }
        Some(n)
    }
}

/// The one-entry map serde_json's `RawValue` reader expects: its token, then the raw text.
struct RawAccess<'a> {
    raw: Option<&'a str>,
}

impl<'de> MapAccess<'de> for RawAccess<'de> {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        if self.raw.is_none() {
            return Ok(None);
        }
        seed.deserialize(de::value::BorrowedStrDeserializer::new(RAW_TOKEN))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        let raw = self.raw.take().ok_or_else(|| err("raw value read twice"))?;
        seed.deserialize(de::value::BorrowedStrDeserializer::new(raw))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word scan agrees with a byte-by-byte reading for every stop byte at every offset,
    /// among fillers next to the stop values (0x20, 0x21, 0x5b, 0x5d, 0x23) and non-ASCII
    /// bytes, and with a second stop byte after the first.
    #[test]
    fn the_word_scan_agrees_with_a_byte_loop() {
        fn by_bytes(rest: &[u8]) -> Option<usize> {
            let k = rest
                .iter()
                .position(|&c| c == b'"' || c == b'\\' || c < 0x20)?;
            (rest[k] >= 0x20).then_some(k)
        }
        let fillers = [b'a', 0x20, 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80, 0xc3, 0xff];
        for len in 0..40 {
            for f in 0..fillers.len() {
                for stop in [b'"', b'\\', 0x00, 0x1f, 0x0a] {
                    for second in [b'"', 0x01, 0x20] {
                        let mut s: Vec<u8> = (0..len)
                            .map(|i| fillers[(f + i * 7) % fillers.len()])
                            .collect();
                        s.push(stop);
                        s.push(second);
                        assert_eq!(special(&s), by_bytes(&s), "{s:?}");
                        assert_eq!(special(&s[..len]), by_bytes(&s[..len]), "{s:?} cut");
                    }
                }
            }
        }
    }

    /// Every byte value, alone among ordinary text at every position of two words: the word
    /// scan stops at it exactly when it is a quote, a backslash or a control byte.
    #[test]
    fn every_byte_value_stops_the_word_scan_as_a_byte_loop_does() {
        for b in 0..=255u8 {
            for at in 0..16 {
                let mut s = vec![b'a'; 16];
                s[at] = b;
                s.push(b'"');
                let want = if b < 0x20 {
                    None
                } else if b == b'"' || b == b'\\' {
                    Some(at)
                } else {
                    Some(16)
                };
                assert_eq!(special(&s), want, "{b:#04x} at {at}");
                if let Some((k, c)) = stop(&s) {
                    assert_eq!(c, s[k], "{b:#04x} at {at}");
                }
            }
        }
    }

    /// The end of a string's text, in a word and in the tail after the last whole word.
    #[test]
    fn a_strings_end_is_found_in_every_position_of_a_word() {
        for len in [0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 100] {
            let text = "a".repeat(len);
            for (stop, want) in [("\"", Some(len)), ("\\n\"", Some(len))] {
                let s = format!("{text}{stop}");
                assert_eq!(special(s.as_bytes()), want, "{len} {stop}");
            }
            let mut ctl = text.clone().into_bytes();
            ctl.extend_from_slice(b"\x1f\"");
            assert_eq!(special(&ctl), None, "control character after {len}");
            assert_eq!(special(text.as_bytes()), None, "no end after {len}");
        }
        let doc = format!("{{\"k\":\"{}\\u00e9\",\"n\":[1,2]}}", "x".repeat(40));
        let tape = Tape::parse(doc.as_bytes()).expect("tokenizes");
        let v: serde_json::Value = tape.read().expect("reads");
        assert_eq!(v, serde_json::from_str::<serde_json::Value>(&doc).unwrap());
    }

    /// A member's value is what a one-field struct of an `Option` reads, or `None` where that
    /// read gives none; escaped keys and a repeated key are left to the caller.
    #[test]
    fn a_member_is_read_as_a_one_field_struct_reads_it() {
        #[derive(serde::Deserialize)]
        struct Envelope {
            result: Option<serde_json::Value>,
        }
        for doc in [
            r#"{"id":1,"result":{"a":[1,{"b":null}]},"jsonrpc":"2.0"}"#,
            r#"{"result":"x"}"#,
            r#"{"result":null,"id":2}"#,
            r#"{"id":{"result":1}}"#,
            r#"{}"#,
            r#"[{"a":1}]"#,
            r#""result""#,
            r#"{"resul":1,"results":2}"#,
        ] {
            let tape = Tape::parse(doc.as_bytes()).expect("tokenizes");
            let whole = serde_json::from_str::<Envelope>(doc)
                .ok()
                .and_then(|e| e.result);
            let whole = whole.filter(|_| tape.is_object());
            assert_eq!(
                tape.read_member::<serde_json::Value>("result"),
                whole,
                "{doc}"
            );
        }
        for doc in [
            r#"{"result":1,"result":2}"#,
            r#"{"res\u0075lt":1}"#,
            r#"{"a\n":1,"result":2}"#,
        ] {
            let tape = Tape::parse(doc.as_bytes()).expect("tokenizes");
            assert_eq!(
                tape.read_member::<serde_json::Value>("result"),
                None,
                "{doc}"
            );
        }
    }
}
