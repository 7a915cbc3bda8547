//! Agent cards: where to fetch them, parsing both protocol versions' shapes, interface
//! selection and URL validation (credentials stay on the card's origin).
//!
//! One `a2a_card` handle holds a parsed card plus the results of the calls made on it
//! (location, selection, resolution) and their last error message.

use std::ffi::c_char;

use a2a::card::{
    AddressClass, AgentCard, ApiKeyLocation, BearerSource, CardError, CardShape, Choice,
    Credential, CredentialNeed, CredentialPlan, InterfaceOrigin, Policy, Preferences,
    SelectionOrder, Url, card_location, validate_interface_url,
};
use a2a::version::{Binding, ProtocolVersion};

use crate::handle::{self, Handle, try_mut, try_out, try_ref};
use crate::panic::ffi_panic_boundary;
use crate::result::a2a_result;
use crate::view::{a2a_str, input_str, try_bytes, try_input, try_str};
use crate::vocab::{a2a_binding, a2a_protocol_version};

/// Which card shape was read.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_card_shape {
    /// Only `supportedInterfaces` (a 1.0 card). Old name `A2A_CARD_SHAPE_V10`: a deprecated
    /// alias.
    V1_0 = 1,
    /// Only the 0.3 `url` fields. Old name `A2A_CARD_SHAPE_V03`: a deprecated alias.
    V0_3 = 2,
    /// Both (what the Python and JS SDKs serve by default).
    Hybrid = 3,
}

/// Where in the card an interface was declared.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_interface_list {
    /// `supportedInterfaces[origin_index]` (1.0).
    SupportedInterfaces = 1,
    /// The top-level `url` with `preferredTransport` (0.3).
    PreferredUrl = 2,
    /// `additionalInterfaces[origin_index]` (0.3).
    AdditionalInterfaces = 3,
}

/// Whose order wins when several interfaces are usable.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_selection_order {
    /// The client's version preference, then binding preference, then card order.
    ClientFirst = 1,
    /// Card order; the client's lists only filter.
    CardFirst = 2,
}

/// What kind of address a host is.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_address_class {
    /// A public address or name.
    Public = 1,
    /// `localhost` or a name under it.
    LocalhostName = 2,
    /// Loopback.
    Loopback = 3,
    /// Private (RFC 1918).
    Private = 4,
    /// Shared address space (RFC 6598).
    SharedAddressSpace = 5,
    /// Link-local.
    LinkLocal = 6,
    /// IPv6 unique-local.
    UniqueLocal = 7,
    /// Unspecified (0.0.0.0, ::).
    Unspecified = 8,
    /// Multicast.
    Multicast = 9,
    /// A class newer than this header.
    Other = 99,
}

/// What the caller must present for one security scheme of a card.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_card_credential_kind {
    /// `Authorization: Bearer <token>` (HTTP `Bearer`, OAuth 2.0 or OpenID Connect;
    /// `bearer_source` says which).
    BearerToken = 1,
    /// An API key in a header, query parameter or cookie (`api_key_location`, `name`).
    ApiKey = 2,
    /// `Authorization: Basic <base64(user:password)>`.
    Basic = 3,
    /// Another HTTP auth scheme, `Authorization: <http_scheme> ...`.
    OtherHttp = 4,
    /// A client certificate (mutual TLS); no header.
    ClientCertificate = 5,
    /// The requirement names a scheme the card does not declare, or one of a type this
    /// library does not know.
    Unknown = 6,
}

/// How a bearer token is obtained.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_card_bearer_source {
    /// An HTTP `Bearer` scheme: a token the caller already has.
    Http = 1,
    /// An OAuth 2.0 flow.
    Oauth2 = 2,
    /// OpenID Connect.
    OpenIdConnect = 3,
}

/// Where an API key travels.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_card_api_key_location {
    /// In a request header (`name` is the header name).
    Header = 1,
    /// In the query string.
    Query = 2,
    /// In a cookie.
    Cookie = 3,
}

/// The shape of a card's credential plan (`a2a_card_credentials`): alternatives, any one
/// of which satisfies the card; each lists needs that must all be met.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_card_credential_plan {
    /// Number of alternatives (satisfy any one). 0: the card asks for no credential.
    /// An alternative with no needs means anonymous access is one option.
    pub alternative_count: usize,
    /// False when the card declares schemes but states no requirement, so each declared
    /// scheme is offered as an alternative on its own (a guess; many deployed cards do
    /// this).
    pub stated: bool,
}

/// One credential a card asks for (`a2a_card_credential_need`). Views point into the card
/// handle: valid until the next mutating call on it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_card_credential {
    /// The scheme name in the card.
    pub scheme: a2a_str,
    /// What to present.
    pub kind: a2a_card_credential_kind,
    /// Bearer token: an `a2a_card_bearer_source`; else 0.
    pub bearer_source: u32,
    /// Bearer token: `bearerFormat` (e.g. `JWT`); absent when not declared.
    pub bearer_format: a2a_str,
    /// API key: an `a2a_card_api_key_location`; else 0.
    pub api_key_location: u32,
    /// API key: the header, query parameter or cookie name; else absent.
    pub api_key_name: a2a_str,
    /// Other HTTP scheme: the scheme as declared; else absent.
    pub http_scheme: a2a_str,
    /// The header the credential travels in (`Authorization`, or the API key's header
    /// name); absent when it travels in no header (query, cookie, client certificate,
    /// unknown).
    pub header_name: a2a_str,
    /// Number of OAuth scopes requested (`a2a_card_credential_scope`).
    pub scope_count: usize,
}

/// A summary of a parsed card.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_card_info {
    /// `name`.
    pub name: a2a_str,
    /// `description` (empty when absent).
    pub description: a2a_str,
    /// `version` of the agent (empty when absent).
    pub version: a2a_str,
    /// `capabilities.streaming`.
    pub streaming: bool,
    /// `capabilities.pushNotifications`.
    pub push_notifications: bool,
    /// Whether an extended card is offered.
    pub extended_card: bool,
    /// Which shape was read.
    pub shape: a2a_card_shape,
    /// Number of interfaces (`a2a_card_get_interface`).
    pub interface_count: usize,
}

/// One interface a card offers, as declared.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_card_interface {
    /// The URL as written.
    pub url: a2a_str,
    /// The binding as written (`JSONRPC`, `HTTP+JSON`, `GRPC`, ...).
    pub binding: a2a_str,
    /// The declared protocol version; absent when not declared.
    pub protocol_version: a2a_str,
    /// The tenant; absent when none.
    pub tenant: a2a_str,
    /// Which list declared it.
    pub origin_list: a2a_interface_list,
    /// Position in that list (0 for the preferred URL).
    pub origin_index: usize,
    /// The binding as an `a2a_binding`, or 0 when this core does not speak it.
    pub known_binding: u32,
    /// The wire version as an `a2a_protocol_version`, or 0 when not one this core speaks.
    pub wire_version: u32,
}

/// The client's preferences for `a2a_card_select` / `a2a_card_resolve`; read during the
/// call only. Pass NULL for the defaults (1.0 then 0.3; JSON-RPC then HTTP+JSON; client
/// order first).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_card_preferences {
    /// `a2a_protocol_version` numbers, most preferred first; empty (`NULL, 0`) = default.
    pub versions: *const u32,
    /// Number of `versions`.
    pub versions_len: usize,
    /// `a2a_binding` numbers, most preferred first; empty = default.
    pub bindings: *const u32,
    /// Number of `bindings`.
    pub bindings_len: usize,
    /// An `a2a_selection_order`, or 0 for client first.
    pub order: u32,
}

/// What the caller allows beyond the same-origin rule; read during the call only. NULL
/// means https only, no extra origins.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_card_policy {
    /// Allow plain `http://` (local development, test servers).
    pub allow_http: bool,
    /// Extra origins the interface may point to (`https://api.example.com:8443`), as an
    /// array of UTF-8 views.
    pub allowed_origins: *const a2a_str,
    /// Number of `allowed_origins`.
    pub allowed_origins_len: usize,
}

/// The interface chosen by `a2a_card_select` or `a2a_card_resolve`. Views point into the
/// card handle: valid until the next mutating call on it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_card_choice {
    /// The interface URL as written in the card.
    pub url: a2a_str,
    /// The protocol version it is spoken in.
    pub version: a2a_protocol_version,
    /// The version string as declared; absent when not declared.
    pub declared_version: a2a_str,
    /// The binding.
    pub binding: a2a_binding,
    /// The tenant; absent when none.
    pub tenant: a2a_str,
    /// Index into the card's interfaces (`a2a_card_get_interface`).
    pub index: usize,
    /// Which list declared it.
    pub origin_list: a2a_interface_list,
    /// Position in that list.
    pub origin_index: usize,
    /// Rank of the version in the client's list (0 = most preferred).
    pub version_rank: usize,
    /// Rank of the binding in the client's list.
    pub binding_rank: usize,
    /// The order that decided.
    pub order: a2a_selection_order,
    /// Interfaces passed over (see `a2a_card_choice_explain`).
    pub skipped_count: usize,
}

/// A chosen interface whose URL was validated against the card's URL.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_card_resolved {
    /// The chosen interface.
    pub choice: a2a_card_choice,
    /// True when the URL has the card's origin, false when the allow-list admitted it.
    pub same_origin: bool,
    /// The validated URL's scheme (`https` or `http`).
    pub scheme: a2a_str,
    /// Its host in normal form (lowercase name, or IP address text).
    pub host: a2a_str,
    /// Its port (explicit or the scheme's default).
    pub port: u16,
    /// Its path (`/` when empty).
    pub path: a2a_str,
    /// What kind of address the host is.
    pub host_class: a2a_address_class,
}

pub(crate) fn card_code(e: &CardError) -> a2a_result {
    match e {
        CardError::Json(_) => a2a_result::A2A_CARD_JSON,
        CardError::NotAnObject => a2a_result::A2A_CARD_NOT_AN_OBJECT,
        CardError::InvalidField { .. } => a2a_result::A2A_CARD_INVALID_FIELD,
        CardError::InvalidInterface { .. } => a2a_result::A2A_CARD_INVALID_INTERFACE,
        CardError::NoUsableInterface { .. } => a2a_result::A2A_CARD_NO_USABLE_INTERFACE,
        CardError::InvalidUrl { .. } => a2a_result::A2A_CARD_INVALID_URL,
        CardError::UserinfoInUrl { .. } => a2a_result::A2A_CARD_USERINFO_IN_URL,
        CardError::PlainHttp { .. } => a2a_result::A2A_CARD_PLAIN_HTTP,
        CardError::UnsupportedScheme { .. } => a2a_result::A2A_CARD_UNSUPPORTED_SCHEME,
        CardError::CardUrlDrift { .. } => a2a_result::A2A_CARD_URL_DRIFT,
        CardError::HostMismatch { .. } => a2a_result::A2A_CARD_HOST_MISMATCH,
        _ => a2a_result::A2A_CARD_INVALID,
    }
}

fn origin_c(o: InterfaceOrigin) -> (a2a_interface_list, usize) {
    match o {
        InterfaceOrigin::SupportedInterfaces(i) => (a2a_interface_list::SupportedInterfaces, i),
        InterfaceOrigin::PreferredUrl => (a2a_interface_list::PreferredUrl, 0),
        InterfaceOrigin::AdditionalInterfaces(i) => (a2a_interface_list::AdditionalInterfaces, i),
    }
}

fn class_c(c: AddressClass) -> a2a_address_class {
    match c {
        AddressClass::Public => a2a_address_class::Public,
        AddressClass::LocalhostName => a2a_address_class::LocalhostName,
        AddressClass::Loopback => a2a_address_class::Loopback,
        AddressClass::Private => a2a_address_class::Private,
        AddressClass::SharedAddressSpace => a2a_address_class::SharedAddressSpace,
        AddressClass::LinkLocal => a2a_address_class::LinkLocal,
        AddressClass::UniqueLocal => a2a_address_class::UniqueLocal,
        AddressClass::Unspecified => a2a_address_class::Unspecified,
        AddressClass::Multicast => a2a_address_class::Multicast,
        _ => a2a_address_class::Other,
    }
}

/// Reads `n` u32 numbers.
///
/// # Safety
/// `p` must point to `n` readable `u32`s when `n > 0`.
unsafe fn numbers<'a>(p: *const u32, n: usize) -> Result<&'a [u32], a2a_result> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(a2a_result::A2A_NULL_PARAMETER);
    }
    if n > isize::MAX as usize / 4 {
        return Err(a2a_result::A2A_INVALID_ARGUMENT);
    }
    // SAFETY: non-NULL, size checked, readability guaranteed by the caller.
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}

/// # Safety
/// `p`, when non-NULL, must point to a readable `a2a_card_preferences` with valid arrays.
unsafe fn prefs_from(p: *const a2a_card_preferences) -> Result<Preferences, a2a_result> {
    let mut prefs = Preferences::default();
    if p.is_null() {
        return Ok(prefs);
    }
    // SAFETY: non-NULL; readable by contract.
    let p = unsafe { &*p };
    // SAFETY: forwarded contract.
    let versions = unsafe { numbers(p.versions, p.versions_len) }?;
    if !versions.is_empty() {
        prefs.versions = versions
            .iter()
            .map(|n| {
                a2a_protocol_version::core_from_u32(*n).ok_or(a2a_result::A2A_INVALID_ARGUMENT)
            })
            .collect::<Result<Vec<ProtocolVersion>, _>>()?;
    }
    // SAFETY: forwarded contract.
    let bindings = unsafe { numbers(p.bindings, p.bindings_len) }?;
    if !bindings.is_empty() {
        prefs.bindings = bindings
            .iter()
            .map(|n| a2a_binding::core_from_u32(*n).ok_or(a2a_result::A2A_INVALID_ARGUMENT))
            .collect::<Result<Vec<Binding>, _>>()?;
    }
    prefs.order = match p.order {
        0 | 1 => SelectionOrder::ClientFirst,
        2 => SelectionOrder::CardFirst,
        _ => return Err(a2a_result::A2A_INVALID_ARGUMENT),
    };
    Ok(prefs)
}

/// # Safety
/// `p`, when non-NULL, must point to a readable `a2a_card_policy` with valid views.
unsafe fn policy_from(p: *const a2a_card_policy) -> Result<Policy, a2a_result> {
    if p.is_null() {
        return Ok(Policy::default());
    }
    // SAFETY: non-NULL; readable by contract.
    let p = unsafe { &*p };
    let mut policy = Policy {
        allow_http: p.allow_http,
        allowed_origins: Vec::new(),
    };
    if p.allowed_origins_len > 0 {
        if p.allowed_origins.is_null() {
            return Err(a2a_result::A2A_NULL_PARAMETER);
        }
        if p.allowed_origins_len > isize::MAX as usize / std::mem::size_of::<a2a_str>() {
            return Err(a2a_result::A2A_INVALID_ARGUMENT);
        }
        // SAFETY: non-NULL, size checked, readable by contract.
        let views = unsafe { std::slice::from_raw_parts(p.allowed_origins, p.allowed_origins_len) };
        for v in views {
            // SAFETY: forwarded contract.
            policy
                .allowed_origins
                .push(unsafe { input_str(v.ptr, v.len) }?.to_owned());
        }
    }
    Ok(policy)
}

/// A parsed agent card plus the results of the calls made on it.
///
/// Methods: `a2a_card_new`, `a2a_card_free`, `a2a_card_parse`, `a2a_card_get_info`,
/// `a2a_card_get_interface`, `a2a_card_select`, `a2a_card_resolve`, `a2a_card_choice_explain`,
/// `a2a_card_validate_interface_url`, `a2a_card_location`, `a2a_card_last_error`,
/// `a2a_card_credentials`, `a2a_card_credential_alternative`, `a2a_card_credential_need`,
/// `a2a_card_credential_scope`.
///
/// Threading: `Send`, not thread-safe.
pub struct a2a_card {
    card: Option<AgentCard>,
    /// The credential plan of `card`, computed when it was parsed.
    plan: Option<CredentialPlan>,
    choice: Option<Choice>,
    explain: String,
    url: Option<Url>,
    url_host: String,
    location: (String, Option<String>),
    last_error: String,
}

impl Handle for a2a_card {}

impl a2a_card {
    /// The parsed card, if `a2a_card_parse` succeeded on this handle.
    #[cfg_attr(not(feature = "trust"), allow(dead_code))]
    pub(crate) fn agent_card(&self) -> Option<&AgentCard> {
        self.card.as_ref()
    }

    fn fail(&mut self, e: &CardError) -> a2a_result {
        self.last_error = e.to_string();
        card_code(e)
    }

    fn choice_c(&self) -> Option<a2a_card_choice> {
        let c = self.choice.as_ref()?;
        let (origin_list, origin_index) = origin_c(c.origin);
        Some(a2a_card_choice {
            url: a2a_str::from_str(&c.url),
            version: a2a_protocol_version::from_core(c.version),
            declared_version: a2a_str::from_opt(c.declared_version.as_deref()),
            binding: a2a_binding::from_core(c.binding),
            tenant: a2a_str::from_opt(c.tenant.as_deref()),
            index: c.index,
            origin_list,
            origin_index,
            version_rank: c.version_rank,
            binding_rank: c.binding_rank,
            order: match c.order {
                SelectionOrder::ClientFirst => a2a_selection_order::ClientFirst,
                SelectionOrder::CardFirst => a2a_selection_order::CardFirst,
            },
            skipped_count: c.skipped.len(),
        })
    }
}

/// A new, empty card handle (parse a card into it with `a2a_card_parse`, or use it for
/// `a2a_card_location` and `a2a_card_validate_interface_url` alone). `out`: a new handle
/// the caller owns (free with `a2a_card_free`); written on success only.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_card_new(out: *mut *mut a2a_card) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        out.set(handle::into_raw(a2a_card {
            card: None,
            plan: None,
            choice: None,
            explain: String::new(),
            url: None,
            url_host: String::new(),
            location: (String::new(), None),
            last_error: String::new(),
        }));
        a2a_result::A2A_OK
    }
}

/// Frees a card handle. NULL is a no-op; must not be called twice.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_card_free(card: *mut a2a_card) {
    ffi_panic_boundary! {
        // SAFETY: the header requires a pointer from this library, not yet freed.
        unsafe { handle::free(card) }
    }
}

/// Parses a card body (JSON bytes, read during the call only; both the 0.3 and the 1.0
/// shapes) into the handle, replacing any earlier card and selection.
///
/// Errors (the handle then holds no card; `a2a_card_last_error` says what is wrong, e.g.
/// the JSON line and column or the field): `A2A_NULL_PARAMETER`, `A2A_CARD_JSON`,
/// `A2A_CARD_NOT_AN_OBJECT`, `A2A_CARD_INVALID_FIELD`, `A2A_CARD_INVALID_INTERFACE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_card_parse(
    card: *mut a2a_card,
    bytes: *const u8,
    bytes_len: usize,
) -> a2a_result {
    ffi_panic_boundary! {
        let c = try_mut!(card);
        let bytes = try_bytes!(bytes, bytes_len);
        c.last_error.clear();
        c.card = None;
        c.plan = None;
        c.choice = None;
        c.url = None;
        match AgentCard::parse(bytes) {
            Ok(parsed) => {
                c.plan = Some(parsed.credentials());
                c.card = Some(parsed);
                a2a_result::A2A_OK
            }
            Err(e) => c.fail(&e),
        }
    }
}

/// A summary of the parsed card. Views point into the handle: valid until the next
/// mutating call. Returns `A2A_OK`, or `A2A_NONE` when no card is parsed.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_card_get_info(card: *const a2a_card, out: *mut a2a_card_info) -> a2a_result {
    ffi_panic_boundary! {
        let c = try_ref!(card);
        let out = try_out!(out);
        let Some(k) = c.card.as_ref() else {
            return a2a_result::A2A_NONE;
        };
        out.set(a2a_card_info {
            name: a2a_str::from_str(&k.name),
            description: a2a_str::from_str(&k.description),
            version: a2a_str::from_str(&k.version),
            streaming: k.streaming,
            push_notifications: k.push_notifications,
            extended_card: k.extended_card,
            shape: match k.shape {
                CardShape::V1_0 => a2a_card_shape::V1_0,
                CardShape::V0_3 => a2a_card_shape::V0_3,
                CardShape::Hybrid => a2a_card_shape::Hybrid,
            },
            interface_count: k.interfaces.len(),
        });
        a2a_result::A2A_OK
    }
}

/// The `index`-th interface of the parsed card, as declared. Views point into the handle:
/// valid until the next mutating call.
///
/// Returns `A2A_OK`, `A2A_NONE` (no card), or `A2A_INVALID_ARGUMENT` (`index` >= the
/// interface count). Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_card_get_interface(
    card: *const a2a_card,
    index: usize,
    out: *mut a2a_card_interface,
) -> a2a_result {
    ffi_panic_boundary! {
        let c = try_ref!(card);
        let out = try_out!(out);
        let Some(k) = c.card.as_ref() else {
            return a2a_result::A2A_NONE;
        };
        let Some(i) = k.interfaces.get(index) else {
            return a2a_result::A2A_INVALID_ARGUMENT;
        };
        let (origin_list, origin_index) = origin_c(i.origin);
        out.set(a2a_card_interface {
            url: a2a_str::from_str(&i.url),
            binding: a2a_str::from_str(&i.binding),
            protocol_version: a2a_str::from_opt(i.protocol_version.as_deref()),
            tenant: a2a_str::from_opt(i.tenant.as_deref()),
            origin_list,
            origin_index,
            known_binding: i.known_binding().map_or(0, |b| a2a_binding::from_core(b) as u32),
            wire_version: i.wire_version().map_or(0, |v| a2a_protocol_version::from_core(v) as u32),
        });
        a2a_result::A2A_OK
    }
}

/// Chooses the interface to use for `prefs` (NULL: defaults). `out`: views into the handle,
/// valid until the next mutating call; written on success only.
///
/// Returns `A2A_OK`, `A2A_NONE` (no card parsed). Errors: `A2A_NULL_PARAMETER`,
/// `A2A_INVALID_ARGUMENT` (a preference number), `A2A_CARD_NO_USABLE_INTERFACE` (the
/// message lists what the card offers).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_card_select(
    card: *mut a2a_card,
    prefs: *const a2a_card_preferences,
    out: *mut a2a_card_choice,
) -> a2a_result {
    ffi_panic_boundary! {
        let c = try_mut!(card);
        let out = try_out!(out);
        // SAFETY: the header requires `prefs` to be NULL or a readable preferences struct.
        let prefs = try_input!(unsafe { prefs_from(prefs) });
        c.last_error.clear();
        c.choice = None;
        c.url = None;
        let Some(k) = c.card.as_ref() else {
            return a2a_result::A2A_NONE;
        };
        match k.select(&prefs) {
            Ok(choice) => {
                c.explain = choice.explain();
                c.choice = Some(choice);
                out.set(c.choice_c().expect("choice was just set"));
                a2a_result::A2A_OK
            }
            Err(e) => c.fail(&e),
        }
    }
}

/// Selects an interface for `prefs` (NULL: defaults) and validates its URL against
/// `card_url` (the URL the card was fetched from, after redirects; UTF-8, read during the
/// call only) under `policy` (NULL: https only, same origin only). A chosen interface that
/// fails validation is an error, never a reason to fall back.
///
/// `out`: views into the handle, valid until the next mutating call; written on success.
///
/// Returns `A2A_OK`, `A2A_NONE` (no card parsed). Errors: `A2A_NULL_PARAMETER`,
/// `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT`, `A2A_CARD_NO_USABLE_INTERFACE`,
/// `A2A_CARD_INVALID_URL`, `A2A_CARD_USERINFO_IN_URL`, `A2A_CARD_PLAIN_HTTP`,
/// `A2A_CARD_UNSUPPORTED_SCHEME`, `A2A_CARD_URL_DRIFT`, `A2A_CARD_HOST_MISMATCH`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_card_resolve(
    card: *mut a2a_card,
    card_url: *const c_char,
    card_url_len: usize,
    prefs: *const a2a_card_preferences,
    policy: *const a2a_card_policy,
    out: *mut a2a_card_resolved,
) -> a2a_result {
    ffi_panic_boundary! {
        let c = try_mut!(card);
        let out = try_out!(out);
        let card_url = try_str!(card_url, card_url_len);
        // SAFETY: the header requires `prefs` to be NULL or a readable preferences struct.
        let prefs = try_input!(unsafe { prefs_from(prefs) });
        // SAFETY: the header requires `policy` to be NULL or a readable policy struct.
        let policy = try_input!(unsafe { policy_from(policy) });
        c.last_error.clear();
        c.choice = None;
        c.url = None;
        let Some(k) = c.card.as_ref() else {
            return a2a_result::A2A_NONE;
        };
        match k.resolve(card_url, &prefs, &policy) {
            Ok(r) => {
                c.explain = r.choice.explain();
                c.choice = Some(r.choice);
                c.url_host = r.url.host().to_string();
                let class = class_c(r.url.host().class());
                c.url = Some(r.url);
                let url = c.url.as_ref().expect("url was just set");
                out.set(a2a_card_resolved {
                    choice: c.choice_c().expect("choice was just set"),
                    same_origin: r.same_origin,
                    scheme: a2a_str::from_str(url.scheme()),
                    host: a2a_str::from_str(&c.url_host),
                    port: url.port_or_default().unwrap_or(0),
                    path: a2a_str::from_str(url.path()),
                    host_class: class,
                });
                a2a_result::A2A_OK
            }
            Err(e) => c.fail(&e),
        }
    }
}

/// A one-line explanation of the last successful selection (what was chosen, by which
/// rule, what was skipped and why), for logs. Absent `(NULL, 0)` when there is none. Valid
/// until the next mutating call.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_card_choice_explain(card: *const a2a_card) -> a2a_str {
    ffi_panic_boundary! {
        let c = try_ref!(card);
        if c.choice.is_some() { a2a_str::from_str(&c.explain) } else { a2a_str::NONE }
    }
}

/// Validates an interface URL against the URL its card came from under `policy` (NULL:
/// https only, same origin only), without a parsed card. URLs are UTF-8, read during the
/// call only. `same_origin`: true when it has the card's origin, false when the allow-list
/// admitted it; written on success only.
///
/// Errors (message in `a2a_card_last_error`): `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`,
/// `A2A_CARD_INVALID_URL`, `A2A_CARD_USERINFO_IN_URL`, `A2A_CARD_PLAIN_HTTP`,
/// `A2A_CARD_UNSUPPORTED_SCHEME`, `A2A_CARD_URL_DRIFT`, `A2A_CARD_HOST_MISMATCH`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_card_validate_interface_url(
    card: *mut a2a_card,
    interface_url: *const c_char,
    interface_url_len: usize,
    card_url: *const c_char,
    card_url_len: usize,
    policy: *const a2a_card_policy,
    same_origin: *mut bool,
) -> a2a_result {
    ffi_panic_boundary! {
        let c = try_mut!(card);
        let same_origin = try_out!(same_origin);
        let iface = try_str!(interface_url, interface_url_len);
        let card_url = try_str!(card_url, card_url_len);
        // SAFETY: the header requires `policy` to be NULL or a readable policy struct.
        let policy = try_input!(unsafe { policy_from(policy) });
        c.last_error.clear();
        match validate_interface_url(iface, card_url, &policy) {
            Ok(v) => {
                same_origin.set(v.same_origin);
                a2a_result::A2A_OK
            }
            Err(e) => c.fail(&e),
        }
    }
}

/// The card URL(s) to fetch for a base URL (`https://h/a2a`) or a full card URL (UTF-8,
/// read during the call only): `primary` first, then `fallback` (absent when none) when
/// the first answers 404. Both views point into the handle: valid until the next mutating
/// call; written on success only.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_CARD_INVALID_URL`,
/// `A2A_CARD_USERINFO_IN_URL`, `A2A_CARD_UNSUPPORTED_SCHEME`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_card_location(
    card: *mut a2a_card,
    input: *const c_char,
    input_len: usize,
    primary: *mut a2a_str,
    fallback: *mut a2a_str,
) -> a2a_result {
    ffi_panic_boundary! {
        let c = try_mut!(card);
        let primary = try_out!(primary);
        let fallback = try_out!(fallback);
        let input = try_str!(input, input_len);
        c.last_error.clear();
        match card_location(input) {
            Ok(loc) => {
                c.location = (loc.primary, loc.fallback);
                primary.set(a2a_str::from_str(&c.location.0));
                fallback.set(a2a_str::from_opt(c.location.1.as_deref()));
                a2a_result::A2A_OK
            }
            Err(e) => c.fail(&e),
        }
    }
}

/// Which credentials the parsed card asks for (from `securitySchemes` with `security`
/// (0.3) or `securityRequirements` (1.0)): the number of alternatives and whether the card
/// stated them. Read each alternative with `a2a_card_credential_alternative` and
/// `a2a_card_credential_need`. `out`: written on success only.
///
/// Returns `A2A_OK`, or `A2A_NONE` when no card is parsed. Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_card_credentials(
    card: *const a2a_card,
    out: *mut a2a_card_credential_plan,
) -> a2a_result {
    ffi_panic_boundary! {
        let c = try_ref!(card);
        let out = try_out!(out);
        let Some(plan) = c.plan.as_ref() else {
            return a2a_result::A2A_NONE;
        };
        out.set(a2a_card_credential_plan {
            alternative_count: plan.alternatives.len(),
            stated: plan.stated,
        });
        a2a_result::A2A_OK
    }
}

/// The number of credentials alternative `alternative` of the parsed card's plan needs (all
/// of them must be presented; 0: anonymous access). `need_count`: written on success only.
///
/// Returns `A2A_OK`, `A2A_NONE` (no card), or `A2A_INVALID_ARGUMENT` (`alternative` >= the
/// alternative count). Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_card_credential_alternative(
    card: *const a2a_card,
    alternative: usize,
    need_count: *mut usize,
) -> a2a_result {
    ffi_panic_boundary! {
        let c = try_ref!(card);
        let need_count = try_out!(need_count);
        let Some(plan) = c.plan.as_ref() else {
            return a2a_result::A2A_NONE;
        };
        let Some(alt) = plan.alternatives.get(alternative) else {
            return a2a_result::A2A_INVALID_ARGUMENT;
        };
        need_count.set(alt.len());
        a2a_result::A2A_OK
    }
}

fn need_of(c: &a2a_card, alternative: usize, index: usize) -> Result<&CredentialNeed, a2a_result> {
    let plan = c.plan.as_ref().ok_or(a2a_result::A2A_NONE)?;
    plan.alternatives
        .get(alternative)
        .and_then(|alt| alt.get(index))
        .ok_or(a2a_result::A2A_INVALID_ARGUMENT)
}

fn need_c(n: &CredentialNeed) -> a2a_card_credential {
    let mut out = a2a_card_credential {
        scheme: a2a_str::from_str(&n.scheme),
        kind: a2a_card_credential_kind::Unknown,
        bearer_source: 0,
        bearer_format: a2a_str::NONE,
        api_key_location: 0,
        api_key_name: a2a_str::NONE,
        http_scheme: a2a_str::NONE,
        header_name: a2a_str::from_opt(n.credential.header_name()),
        scope_count: n.scopes.len(),
    };
    match &n.credential {
        Credential::BearerToken { source, format } => {
            out.kind = a2a_card_credential_kind::BearerToken;
            out.bearer_source = match source {
                BearerSource::Http => a2a_card_bearer_source::Http,
                BearerSource::OAuth2 => a2a_card_bearer_source::Oauth2,
                BearerSource::OpenIdConnect => a2a_card_bearer_source::OpenIdConnect,
            } as u32;
            out.bearer_format = a2a_str::from_opt(format.as_deref());
        }
        Credential::ApiKey { location, name } => {
            out.kind = a2a_card_credential_kind::ApiKey;
            out.api_key_location = match location {
                ApiKeyLocation::Header => a2a_card_api_key_location::Header,
                ApiKeyLocation::Query => a2a_card_api_key_location::Query,
                ApiKeyLocation::Cookie => a2a_card_api_key_location::Cookie,
            } as u32;
            out.api_key_name = a2a_str::from_str(name);
        }
        Credential::Basic => out.kind = a2a_card_credential_kind::Basic,
        Credential::OtherHttp { scheme } => {
            out.kind = a2a_card_credential_kind::OtherHttp;
            out.http_scheme = a2a_str::from_str(scheme);
        }
        Credential::ClientCertificate => out.kind = a2a_card_credential_kind::ClientCertificate,
        // Unknown, and kinds newer than this ABI.
        _ => {}
    }
    out
}

/// Credential `index` of alternative `alternative` of the parsed card's plan. `out`: views
/// into the handle, valid until the next mutating call; written on success only.
///
/// Returns `A2A_OK`, `A2A_NONE` (no card), or `A2A_INVALID_ARGUMENT` (an index out of
/// range). Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_card_credential_need(
    card: *const a2a_card,
    alternative: usize,
    index: usize,
    out: *mut a2a_card_credential,
) -> a2a_result {
    ffi_panic_boundary! {
        let c = try_ref!(card);
        let out = try_out!(out);
        match need_of(c, alternative, index) {
            Ok(n) => {
                out.set(need_c(n));
                a2a_result::A2A_OK
            }
            Err(code) => code,
        }
    }
}

/// OAuth scope `scope` of credential `index` of alternative `alternative`. `out`: a view
/// into the handle, valid until the next mutating call; written on success only.
///
/// Returns `A2A_OK`, `A2A_NONE` (no card), or `A2A_INVALID_ARGUMENT` (an index out of
/// range). Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_card_credential_scope(
    card: *const a2a_card,
    alternative: usize,
    index: usize,
    scope: usize,
    out: *mut a2a_str,
) -> a2a_result {
    ffi_panic_boundary! {
        let c = try_ref!(card);
        let out = try_out!(out);
        match need_of(c, alternative, index) {
            Ok(n) => match n.scopes.get(scope) {
                Some(s) => {
                    out.set(a2a_str::from_str(s));
                    a2a_result::A2A_OK
                }
                None => a2a_result::A2A_INVALID_ARGUMENT,
            },
            Err(code) => code,
        }
    }
}

/// A human-readable message for the error of the most recent mutating call on the card
/// handle; absent `(NULL, 0)` when it had none or `card` is NULL. Valid until the next
/// mutating call.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_card_last_error(card: *const a2a_card) -> a2a_str {
    ffi_panic_boundary! {
        let c = try_ref!(card);
        if c.last_error.is_empty() { a2a_str::NONE } else { a2a_str::from_str(&c.last_error) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ptr::{null, null_mut};

    const CARD: &[u8] = br#"{"name":"Echo","supportedInterfaces":[
        {"url":"https://agent.example.com/a2a/v1","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}"#;

    #[test]
    fn parse_select_resolve() {
        let mut c = null_mut();
        assert_eq!(a2a_card_new(&mut c), a2a_result::A2A_OK);
        assert_eq!(
            a2a_card_parse(c, CARD.as_ptr(), CARD.len()),
            a2a_result::A2A_OK
        );
        let mut r = std::mem::MaybeUninit::<a2a_card_resolved>::uninit();
        let url = "https://agent.example.com/.well-known/agent-card.json";
        assert_eq!(
            a2a_card_resolve(
                c,
                url.as_ptr().cast(),
                url.len(),
                null(),
                null(),
                r.as_mut_ptr()
            ),
            a2a_result::A2A_OK
        );
        // SAFETY: written on A2A_OK.
        let mut r = unsafe { r.assume_init() };
        assert_eq!(r.choice.version, a2a_protocol_version::V1_0);
        assert_eq!(r.choice.binding, a2a_binding::JsonRpc);
        assert_eq!(unsafe { r.path.as_str() }, Some("/a2a/v1"));
        assert_eq!(r.port, 443);
        assert!(r.same_origin);
        assert_eq!(r.host_class, a2a_address_class::Public);
        let other = "https://elsewhere.example.org/card.json";
        assert_eq!(
            a2a_card_resolve(
                c,
                other.as_ptr().cast(),
                other.len(),
                null(),
                null(),
                &mut r
            ),
            a2a_result::A2A_CARD_HOST_MISMATCH
        );
        assert!(
            unsafe { a2a_card_last_error(c).as_str() }
                .unwrap()
                .contains("host mismatch")
        );
        assert_eq!(
            a2a_card_parse(c, b"[1]".as_ptr(), 3),
            a2a_result::A2A_CARD_NOT_AN_OBJECT
        );
        let mut info = std::mem::MaybeUninit::<a2a_card_info>::uninit();
        assert_eq!(
            a2a_card_get_info(c, info.as_mut_ptr()),
            a2a_result::A2A_NONE
        );
        a2a_card_free(c);
    }

    use crate::outcome::tests::view_text;

    /// The fixture's word for a need (`cards.json` note): bearer | basic |
    /// client_certificate | api_key:<in>:<name> | other_http:<scheme> | unknown.
    fn word(n: &a2a_card_credential) -> String {
        match n.kind {
            a2a_card_credential_kind::BearerToken => "bearer".into(),
            a2a_card_credential_kind::Basic => "basic".into(),
            a2a_card_credential_kind::ClientCertificate => "client_certificate".into(),
            a2a_card_credential_kind::ApiKey => {
                let loc = match n.api_key_location {
                    x if x == a2a_card_api_key_location::Header as u32 => "header",
                    x if x == a2a_card_api_key_location::Query as u32 => "query",
                    x if x == a2a_card_api_key_location::Cookie as u32 => "cookie",
                    x => panic!("location {x}"),
                };
                format!("api_key:{loc}:{}", view_text(n.api_key_name).unwrap())
            }
            a2a_card_credential_kind::OtherHttp => {
                format!("other_http:{}", view_text(n.http_scheme).unwrap())
            }
            a2a_card_credential_kind::Unknown => "unknown".into(),
        }
    }

    fn plan_words(c: *const a2a_card) -> Vec<Vec<String>> {
        let mut plan = a2a_card_credential_plan {
            alternative_count: usize::MAX,
            stated: false,
        };
        assert_eq!(a2a_card_credentials(c, &mut plan), a2a_result::A2A_OK);
        let mut out = Vec::new();
        for alt in 0..plan.alternative_count {
            let mut n = usize::MAX;
            assert_eq!(
                a2a_card_credential_alternative(c, alt, &mut n),
                a2a_result::A2A_OK
            );
            let mut words = Vec::new();
            for i in 0..n {
                let mut need = std::mem::MaybeUninit::<a2a_card_credential>::uninit();
                assert_eq!(
                    a2a_card_credential_need(c, alt, i, need.as_mut_ptr()),
                    a2a_result::A2A_OK
                );
                words.push(word(&unsafe { need.assume_init() }));
            }
            out.push(words);
        }
        let mut n = 0;
        assert_eq!(
            a2a_card_credential_alternative(c, plan.alternative_count, &mut n),
            a2a_result::A2A_INVALID_ARGUMENT
        );
        out
    }

    /// The `credentials` column of `bindings/fixtures/cards.json` (derived by hand from the
    /// cited rules) through the C accessors.
    #[test]
    fn credentials_column_of_the_card_fixtures() {
        let doc: serde_json::Value =
            serde_json::from_str(include_str!("../../bindings/fixtures/cards.json")).unwrap();
        let mut checked = 0;
        for case in doc["cases"].as_array().unwrap() {
            let Some(want) = case.get("credentials") else {
                continue;
            };
            let body = serde_json::to_vec(&case["card"]).unwrap();
            let mut c = null_mut();
            assert_eq!(a2a_card_new(&mut c), a2a_result::A2A_OK);
            assert_eq!(
                a2a_card_parse(c, body.as_ptr(), body.len()),
                a2a_result::A2A_OK
            );
            let want: Vec<Vec<String>> = serde_json::from_value(want.clone()).unwrap();
            assert_eq!(plan_words(c), want, "{}", case["name"]);
            a2a_card_free(c);
            checked += 1;
        }
        assert!(checked >= 4);
    }

    #[test]
    fn credential_need_details_scopes_and_edges() {
        let card = br#"{"url":"https://h/a2a","securitySchemes":{
            "key":{"type":"apiKey","in":"header","name":"X-API-Key"},
            "q":{"type":"apiKey","in":"query","name":"api_key"},
            "oauth":{"type":"oauth2","flows":{"clientCredentials":{"tokenUrl":"https://h/t","scopes":{}}}},
            "jwt":{"type":"http","scheme":"Bearer","bearerFormat":"JWT"},
            "dig":{"type":"http","scheme":"Digest"}},
            "security":[{"key":[]},{"oauth":["read","write"],"q":[]},{"jwt":[],"dig":[],"gone":[]},{}]}"#;
        let mut c = null_mut();
        assert_eq!(a2a_card_new(&mut c), a2a_result::A2A_OK);
        // No card yet.
        let mut plan = a2a_card_credential_plan {
            alternative_count: 7,
            stated: true,
        };
        assert_eq!(a2a_card_credentials(c, &mut plan), a2a_result::A2A_NONE);
        assert_eq!(plan.alternative_count, 7, "untouched");
        let mut n = 0;
        assert_eq!(
            a2a_card_credential_alternative(c, 0, &mut n),
            a2a_result::A2A_NONE
        );
        assert_eq!(
            a2a_card_parse(c, card.as_ptr(), card.len()),
            a2a_result::A2A_OK
        );
        assert_eq!(a2a_card_credentials(c, &mut plan), a2a_result::A2A_OK);
        assert_eq!(plan.alternative_count, 4);
        assert!(plan.stated);
        assert_eq!(
            plan_words(c),
            [
                vec!["api_key:header:X-API-Key"],
                vec!["bearer", "api_key:query:api_key"],
                // Scheme names of one requirement come in name order (a JSON object).
                vec!["other_http:Digest", "unknown", "bearer"],
                vec![],
            ]
        );
        let need = |alt, i| {
            let mut need = std::mem::MaybeUninit::<a2a_card_credential>::uninit();
            assert_eq!(
                a2a_card_credential_need(c, alt, i, need.as_mut_ptr()),
                a2a_result::A2A_OK
            );
            unsafe { need.assume_init() }
        };
        let key = need(0, 0);
        assert_eq!(view_text(key.scheme), Some("key"));
        assert_eq!(view_text(key.header_name), Some("X-API-Key"));
        assert_eq!(key.bearer_source, 0);
        assert!(key.bearer_format.ptr.is_null() && key.http_scheme.ptr.is_null());
        let oauth = need(1, 0);
        assert_eq!(oauth.bearer_source, a2a_card_bearer_source::Oauth2 as u32);
        assert_eq!(view_text(oauth.header_name), Some("Authorization"));
        assert_eq!(oauth.scope_count, 2);
        let mut scope = a2a_str::NONE;
        assert_eq!(
            a2a_card_credential_scope(c, 1, 0, 1, &mut scope),
            a2a_result::A2A_OK
        );
        assert_eq!(view_text(scope), Some("write"));
        assert_eq!(
            a2a_card_credential_scope(c, 1, 0, 2, &mut scope),
            a2a_result::A2A_INVALID_ARGUMENT
        );
        let query = need(1, 1);
        assert_eq!(
            query.api_key_location,
            a2a_card_api_key_location::Query as u32
        );
        assert!(
            query.header_name.ptr.is_null(),
            "a query key travels in no header"
        );
        let jwt = need(2, 2);
        assert_eq!(jwt.bearer_source, a2a_card_bearer_source::Http as u32);
        assert_eq!(view_text(jwt.bearer_format), Some("JWT"));
        assert_eq!(view_text(need(2, 1).scheme), Some("gone"));
        let mut out = std::mem::MaybeUninit::<a2a_card_credential>::uninit();
        assert_eq!(
            a2a_card_credential_need(c, 3, 0, out.as_mut_ptr()),
            a2a_result::A2A_INVALID_ARGUMENT
        );
        assert_eq!(
            a2a_card_credential_need(null(), 0, 0, out.as_mut_ptr()),
            a2a_result::A2A_NULL_PARAMETER
        );
        assert_eq!(
            a2a_card_credentials(c, null_mut()),
            a2a_result::A2A_NULL_PARAMETER
        );
        assert_eq!(
            a2a_card_credential_scope(c, 0, 0, 0, null_mut()),
            a2a_result::A2A_NULL_PARAMETER
        );
        // A failed parse forgets the plan.
        assert_eq!(
            a2a_card_parse(c, b"[".as_ptr(), 1),
            a2a_result::A2A_CARD_JSON
        );
        assert_eq!(a2a_card_credentials(c, &mut plan), a2a_result::A2A_NONE);
        a2a_card_free(c);
    }
}
