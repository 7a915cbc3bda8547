//! The A2A object model and its three wire forms.
//!
//! One Rust model ([`Message`], [`Part`], [`Task`], [`TaskStatus`], [`Artifact`], the two
//! update events, push configs, request params in [`params`]) is written and read in each of
//! the three JSON forms deployed today ([`WireForm`]):
//!
//! | form | used by | shape |
//! |---|---|---|
//! | [`WireForm::JsonRpcV0_3`] | 0.3 JSON-RPC | `kind` discriminators, `completed`/`input-required`, `user`/`agent` |
//! | [`WireForm::RestV0_3`] | 0.3 HTTP+JSON | ProtoJSON of the 0.3 proto: `TASK_STATE_CANCELLED`, message parts under `content`, `{"data":{"data":..}}` |
//! | [`WireForm::V1_0`] | 1.0, both bindings | ProtoJSON: one-key wrappers, `TASK_STATE_CANCELED`, parts by key (`text`/`raw`/`url`/`data`) |
//!
//! # Writing
//! [`to_vec`] / [`write()`] emit exactly the form asked for. Fields a form cannot carry are
//! left out (0.3 has no part-level `mediaType`/`filename` on text and data parts, the 0.3
//! REST message has no `referenceTaskIds`, 1.0 has no `final`); values a form cannot carry at
//! all are an error (a non-object data part in 0.3, an unspecified role in 0.3 JSON-RPC, more
//! than one push authentication scheme in 1.0).
//!
//! # Reading
//! Readers are tolerant, because deployed peers are: they accept every form's spelling of
//! enums (kebab, `TASK_STATE_*` with one or two L, numbers), camelCase and snake_case keys,
//! a Message without `kind`, a message with `parts` or `content` (or both: `parts` wins
//! unless empty), wrappers or `kind`, and ignore unknown fields. The form passed to
//! [`from_slice`] only settles what is truly ambiguous: in [`WireForm::RestV0_3`] a data part's
//! `{"data":{"data":X}}` means `X`.
//!
//! # Zero-copy
//! Readers borrow every string without escapes and every free-form JSON value (as raw
//! text) from the input; parse from a `&[u8]` or `&str` that outlives the model. Reading from
//! an `io::Read` or a `serde_json::Value` is not supported (raw values cannot borrow there).

mod de;
pub(crate) use de::direct::FromTape;
#[cfg(test)]
pub(crate) use de::direct::tests::generated_object;
mod owned;
pub mod params;
mod params_de;
mod ser;
mod types;

pub use ser::{InForm, ToWire, state_name};

/// Serialization helpers shared with the envelope and server builders.
pub(crate) mod ser_support {
    pub(crate) use super::ser::{opt, push_fields, state_name};
}
pub use params_de::{ParsedParams, parse_params};
pub use types::*;

use crate::version::{Binding, ProtocolVersion};

/// One of the three JSON wire forms (versions named `V<major>_<minor>`, as in
/// [`ProtocolVersion`] and every binding).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WireForm {
    /// 0.3 JSON-RPC (`kind`, kebab-case states, `user`/`agent`).
    JsonRpcV0_3,
    /// 0.3 HTTP+JSON (ProtoJSON of the 0.3 proto).
    RestV0_3,
    /// 1.0, both bindings (ProtoJSON of the 1.0 proto).
    V1_0,
}

/// The name before [`WireForm`].
#[deprecated(note = "renamed WireForm")]
pub type Form = WireForm;

#[allow(non_upper_case_globals)]
impl WireForm {
    /// The name before the naming scheme.
    #[deprecated(note = "use WireForm::JsonRpcV0_3")]
    pub const JsonRpc03: WireForm = WireForm::JsonRpcV0_3;
    /// The name before the naming scheme.
    #[deprecated(note = "use WireForm::RestV0_3")]
    pub const Rest03: WireForm = WireForm::RestV0_3;
    /// The name before the naming scheme.
    #[deprecated(note = "use WireForm::V1_0")]
    pub const V10: WireForm = WireForm::V1_0;
}

impl WireForm {
    /// The form a version and binding speak.
    pub fn new(version: ProtocolVersion, binding: Binding) -> WireForm {
        match (version, binding) {
            (ProtocolVersion::V0_3, Binding::JsonRpc) => WireForm::JsonRpcV0_3,
            (ProtocolVersion::V0_3, Binding::HttpJson) => WireForm::RestV0_3,
            (ProtocolVersion::V1_0, _) => WireForm::V1_0,
        }
    }

    /// The protocol version of this form.
    pub fn version(self) -> ProtocolVersion {
        match self {
            WireForm::JsonRpcV0_3 | WireForm::RestV0_3 => ProtocolVersion::V0_3,
            WireForm::V1_0 => ProtocolVersion::V1_0,
        }
    }

    /// Every form.
    pub const ALL: [WireForm; 3] = [WireForm::JsonRpcV0_3, WireForm::RestV0_3, WireForm::V1_0];
}

/// Why a JSON document could not be read as a model value.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ModelError(#[from] pub serde_json::Error);

impl ModelError {
    /// Whether the input was not JSON at all (a JSON-RPC -32700), as opposed to JSON of
    /// the wrong shape (invalid params).
    pub fn is_syntax(&self) -> bool {
        matches!(
            self.0.classify(),
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof
        )
    }
}

/// A model value that can be read from the wire.
pub trait FromWire<'a>: Sized + serde::Deserialize<'a> {
    /// Adjusts a tolerant read for what `form` settles (0.3 REST data wrappers).
    fn settle(&mut self, form: WireForm);
}

/// Reads one model value from `json` in `form`, borrowing from `json`.
pub fn from_slice<'a, T: FromWire<'a>>(json: &'a [u8], form: WireForm) -> Result<T, ModelError> {
    let mut value: T = serde_json::from_slice(json)?;
    value.settle(form);
    Ok(value)
}

/// Reads one model value from a raw JSON value in `form`, borrowing from it.
pub fn from_raw<'a, T: FromWire<'a>>(
    json: &'a serde_json::value::RawValue,
    form: WireForm,
) -> Result<T, ModelError> {
    from_slice(json.get().as_bytes(), form)
}

/// Writes `value` in `form` as compact JSON.
pub fn to_vec<T: ToWire + ?Sized>(value: &T, form: WireForm) -> Result<Vec<u8>, ModelError> {
    let mut out = Vec::new();
    write(&mut out, value, form)?;
    Ok(out)
}

/// Appends `value` in `form` as compact JSON to `out` (on error `out` may hold a prefix).
pub fn write<T: ToWire + ?Sized>(
    out: &mut Vec<u8>,
    value: &T,
    form: WireForm,
) -> Result<(), ModelError> {
    serde_json::to_writer(out, &InForm(value, form))?;
    Ok(())
}
