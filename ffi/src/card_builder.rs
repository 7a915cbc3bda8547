//! `a2a_card_builder`: writes a server's agent card, one card that 1.0 and 0.3 clients both
//! read (the core's `server::CardBuilder`), so every binding serves the same card.
//!
//! One handle, a few setters, one `_build` to JSON bytes. Interfaces keep the order they were
//! added in (the first is the most preferred).

use std::ffi::c_char;

use a2a::server::{CardBuilder, CardSkill};

use crate::buffer::a2a_buffer;
use crate::handle::{self, Handle, try_mut, try_out, try_ref};
use crate::panic::ffi_panic_boundary;
use crate::result::a2a_result;
use crate::view::{a2a_str, input_str, try_input, try_str};
use crate::vocab::{a2a_binding, a2a_protocol_version};

/// One skill of the card, read during `a2a_card_builder_add_skill` only (everything is
/// copied). Views are UTF-8; `tags` and `examples` are arrays of views, `(NULL, 0)` for none.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_card_skill {
    /// Stable id (required).
    pub id: a2a_str,
    /// Human-readable name (required).
    pub name: a2a_str,
    /// What it does (required).
    pub description: a2a_str,
    /// Keywords.
    pub tags: *const a2a_str,
    /// Number of `tags`.
    pub tags_len: usize,
    /// Example prompts.
    pub examples: *const a2a_str,
    /// Number of `examples`.
    pub examples_len: usize,
}

/// An agent card being built: create it with `a2a_card_builder_new`, add interfaces (and
/// skills, capabilities, modes), then `a2a_card_builder_build`.
///
/// Methods: `a2a_card_builder_new`, `a2a_card_builder_free`,
/// `a2a_card_builder_add_interface`, `a2a_card_builder_set_capabilities`,
/// `a2a_card_builder_set_modes`, `a2a_card_builder_add_skill`, `a2a_card_builder_build`.
///
/// The handle copies everything it is given; nothing points into caller memory.
///
/// Threading: `Send`, not thread-safe.
pub struct a2a_card_builder {
    inner: CardBuilder,
}

impl Handle for a2a_card_builder {}

impl a2a_card_builder {
    /// Applies a by-value builder step to the stored builder.
    fn step(&mut self, f: impl FnOnce(CardBuilder) -> CardBuilder) {
        let taken = std::mem::replace(&mut self.inner, CardBuilder::new("", "", ""));
        self.inner = f(taken);
    }
}

/// Reads `n` UTF-8 views.
///
/// # Safety
/// `views` is NULL with `n == 0`, or points to `n` readable `a2a_str`s whose views describe
/// readable memory.
unsafe fn strs_from<'a>(views: *const a2a_str, n: usize) -> Result<Vec<&'a str>, a2a_result> {
    if n == 0 {
        return Ok(Vec::new());
    }
    if views.is_null() {
        return Err(a2a_result::A2A_NULL_PARAMETER);
    }
    if n > isize::MAX as usize / std::mem::size_of::<a2a_str>() {
        return Err(a2a_result::A2A_INVALID_ARGUMENT);
    }
    // SAFETY: non-NULL, size checked, readable by the caller's contract.
    let vs = unsafe { std::slice::from_raw_parts(views, n) };
    vs.iter()
        // SAFETY: forwarded contract: each view describes readable memory.
        .map(|v| unsafe { input_str(v.ptr, v.len) })
        .collect()
}

/// A new card builder for the agent `name`, its `description` and its own `version`
/// (UTF-8, read during the call only), with text/plain input and output modes, no
/// capabilities and no interface yet. `out`: a new handle the caller owns (free with
/// `a2a_card_builder_free`); written on success only. Empty texts are accepted here and
/// refused by `a2a_card_builder_build`.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_card_builder_new(
    name: *const c_char,
    name_len: usize,
    description: *const c_char,
    description_len: usize,
    version: *const c_char,
    version_len: usize,
    out: *mut *mut a2a_card_builder,
) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        let name = try_str!(name, name_len);
        let description = try_str!(description, description_len);
        let version = try_str!(version, version_len);
        out.set(handle::into_raw(a2a_card_builder {
            inner: CardBuilder::new(name, description, version),
        }));
        a2a_result::A2A_OK
    }
}

/// Frees a card builder. NULL is a no-op; must not be called twice.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_card_builder_free(builder: *mut a2a_card_builder) {
    ffi_panic_boundary! {
        // SAFETY: the header requires a pointer from this library, not yet freed.
        unsafe { handle::free(builder) }
    }
}

/// Adds an interface: an absolute http(s) `url` (UTF-8, copied), the protocol `version`
/// (`a2a_protocol_version`) and `binding` (`a2a_binding`) spoken there. The first added is
/// the most preferred. The URL is checked by `a2a_card_builder_build`.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT` (`version` or
/// `binding` not a member of its enum); the builder is unchanged on error.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_card_builder_add_interface(
    builder: *mut a2a_card_builder,
    url: *const c_char,
    url_len: usize,
    version: u32,
    binding: u32,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_mut!(builder);
        let url = try_str!(url, url_len);
        let Some(version) = a2a_protocol_version::core_from_u32(version) else {
            return a2a_result::A2A_INVALID_ARGUMENT;
        };
        let Some(binding) = a2a_binding::core_from_u32(binding) else {
            return a2a_result::A2A_INVALID_ARGUMENT;
        };
        b.step(|c| c.interface(url, version, binding));
        a2a_result::A2A_OK
    }
}

/// Sets `capabilities.streaming` and `capabilities.pushNotifications` (both false until set).
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_card_builder_set_capabilities(
    builder: *mut a2a_card_builder,
    streaming: bool,
    push_notifications: bool,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_mut!(builder);
        b.step(|c| c.streaming(streaming).push_notifications(push_notifications));
        a2a_result::A2A_OK
    }
}

/// Replaces the default input and output media types (`text/plain` both) with the given
/// arrays of UTF-8 views (copied; `(NULL, 0)` for an empty list).
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT` (a length too
/// large to be an array); the builder is unchanged on error.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_card_builder_set_modes(
    builder: *mut a2a_card_builder,
    input: *const a2a_str,
    input_len: usize,
    output: *const a2a_str,
    output_len: usize,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_mut!(builder);
        // SAFETY: the header requires each (array, length) to describe readable views.
        let input = try_input!(unsafe { strs_from(input, input_len) });
        // SAFETY: as above.
        let output = try_input!(unsafe { strs_from(output, output_len) });
        b.step(|c| c.modes(&input, &output));
        a2a_result::A2A_OK
    }
}

/// Adds a skill (`*skill` and everything it points to is read during the call only).
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT` (an empty id,
/// name or description; the reason in `a2a_result_describe` only); the builder is unchanged
/// on error.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_card_builder_add_skill(
    builder: *mut a2a_card_builder,
    skill: *const a2a_card_skill,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_mut!(builder);
        let s = try_ref!(skill);
        let id = try_str!(s.id.ptr, s.id.len);
        let name = try_str!(s.name.ptr, s.name.len);
        let description = try_str!(s.description.ptr, s.description.len);
        if [id, name, description].iter().any(|t| t.trim().is_empty()) {
            return a2a_result::A2A_INVALID_ARGUMENT;
        }
        // SAFETY: the header requires each (array, length) to describe readable views.
        let tags = try_input!(unsafe { strs_from(s.tags, s.tags_len) });
        // SAFETY: as above.
        let examples = try_input!(unsafe { strs_from(s.examples, s.examples_len) });
        let mut skill = CardSkill::new(id, name, description, &tags);
        skill.examples = examples.iter().map(|e| (*e).to_owned()).collect();
        b.step(|c| c.skill(skill));
        a2a_result::A2A_OK
    }
}

/// Appends the card as compact JSON to `out` (serve it at `/.well-known/agent-card.json`):
/// the 1.0 `supportedInterfaces` in the order added, and, when an interface speaks 0.3, the
/// 0.3 fields (`url`, `preferredTransport`, `protocolVersion`, `additionalInterfaces`) from
/// the first 0.3 interface. The builder is not changed and may be built again.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_ARGUMENT` (no interface, an empty name,
/// description or version, or an interface URL that is not an absolute http:// or https://
/// URL: the reason in `a2a_buffer_last_error(out)`, nothing appended).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_card_builder_build(
    builder: *const a2a_card_builder,
    out: *mut a2a_buffer,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_ref!(builder);
        let buf = try_mut!(out);
        match b.inner.to_json() {
            Ok(json) => {
                buf.set_error(None);
                buf.bytes.extend_from_slice(json.as_bytes());
                a2a_result::A2A_OK
            }
            Err(e) => {
                buf.set_error(Some(format!("agent card: {e}")));
                a2a_result::A2A_INVALID_ARGUMENT
            }
        }
    }
}
