//! Which credential a card asks for, from `securitySchemes` and `security` (0.3, OpenAPI
//! style: `{"type":"http","scheme":"Bearer"}`, `[{"name":[scopes]}]`) or
//! `securityRequirements` (1.0, ProtoJSON one-key wrappers:
//! `{"httpAuthSecurityScheme":{"scheme":"Bearer"}}`, `[{"schemes":{"name":{"list":[]}}}]`).

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny};
use serde_json::Value;

use super::CardError;
use super::fields::{ArrayOr, Either, Entries, ObjectOr, Slot, Text, pick, text};

/// Where an API key travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiKeyLocation {
    /// In a request header.
    Header,
    /// In the query string.
    Query,
    /// In a cookie.
    Cookie,
}

/// A security scheme as the card declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SecurityScheme {
    /// An API key in a header, query parameter or cookie called `name`.
    ApiKey {
        /// Where the key goes.
        location: ApiKeyLocation,
        /// The header, parameter or cookie name.
        name: String,
    },
    /// HTTP authentication (`Authorization: <scheme> …`), e.g. `Bearer` or `Basic`.
    Http {
        /// The HTTP auth scheme as declared.
        scheme: String,
        /// `bearerFormat` (e.g. `JWT`).
        bearer_format: Option<String>,
    },
    /// OAuth 2.0: the client presents a bearer token obtained from one of the flows.
    OAuth2 {
        /// The flow names declared (`authorizationCode`, `clientCredentials`, …).
        flows: Vec<String>,
        /// `oauth2MetadataUrl`, if given.
        metadata_url: Option<String>,
        /// The `tokenUrl` of the `clientCredentials` flow, when the card declares one (the
        /// endpoint an OAuth 2.0 client-credentials client fetches its token from; whether
        /// it may be used, https and all, is the client's check).
        client_credentials_token_url: Option<String>,
    },
    /// OpenID Connect: the client presents a bearer token (an ID or access token).
    OpenIdConnect {
        /// `openIdConnectUrl`.
        discovery_url: String,
    },
    /// Mutual TLS: a client certificate, no header.
    MutualTls,
    /// A scheme this core does not recognise (its `type` or wrapper key).
    Unknown {
        /// The declared type.
        kind: String,
    },
}

/// One alternative of the card's requirements: every listed scheme must be satisfied.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SecurityRequirement {
    /// Scheme names with their scopes.
    pub schemes: Vec<(String, Vec<String>)>,
}

/// How a bearer token is obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BearerSource {
    /// An HTTP `Bearer` scheme: a token the caller already has.
    Http,
    /// An OAuth 2.0 flow.
    OAuth2,
    /// OpenID Connect.
    OpenIdConnect,
}

/// The credential the caller must supply for one scheme.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Credential {
    /// `Authorization: Bearer <token>`.
    BearerToken {
        /// How the token is obtained.
        source: BearerSource,
        /// `bearerFormat`, if declared.
        format: Option<String>,
    },
    /// An API key.
    ApiKey {
        /// Where it goes.
        location: ApiKeyLocation,
        /// Header, parameter or cookie name.
        name: String,
    },
    /// `Authorization: Basic <base64(user:password)>`.
    Basic,
    /// Another HTTP auth scheme (`Authorization: <scheme> …`).
    OtherHttp {
        /// The scheme as declared.
        scheme: String,
    },
    /// A client certificate (mTLS).
    ClientCertificate,
    /// The requirement names a scheme the card does not declare, or one of unknown type.
    Unknown,
}

impl Credential {
    /// The header the credential travels in, if it travels in one (`Authorization`, or the
    /// API key's header name).
    pub fn header_name(&self) -> Option<&str> {
        match self {
            Credential::BearerToken { .. } | Credential::Basic | Credential::OtherHttp { .. } => {
                Some("Authorization")
            }
            Credential::ApiKey {
                location: ApiKeyLocation::Header,
                name,
            } => Some(name),
            _ => None,
        }
    }
}

/// One credential needed: which scheme, what to present, with which scopes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CredentialNeed {
    /// The scheme name in the card.
    pub scheme: String,
    /// What to present.
    pub credential: Credential,
    /// OAuth scopes requested, if any.
    pub scopes: Vec<String>,
}

/// What the card asks the client to present.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CredentialPlan {
    /// Alternatives (satisfy any one); each lists credentials that must all be presented.
    /// Empty: no credential needed. An empty alternative: anonymous access is one option.
    pub alternatives: Vec<Vec<CredentialNeed>>,
    /// False when the card declares schemes but no requirement, so each declared scheme is
    /// offered as an alternative on its own (a guess; many deployed cards do this).
    pub stated: bool,
}

fn api_key_location(s: Option<&str>) -> ApiKeyLocation {
    match s.map(str::to_ascii_lowercase).as_deref() {
        Some("query") => ApiKeyLocation::Query,
        Some("cookie") => ApiKeyLocation::Cookie,
        _ => ApiKeyLocation::Header,
    }
}

/// A scheme of `securitySchemes`: the 1.0 one-key wrappers and the 0.3 OpenAPI members
/// (`type` and the members of each type), every spelling a field.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(crate) struct SchemeIn<'a> {
    #[serde(rename = "apiKeySecurityScheme", borrow)]
    api_key: Slot<ObjectOr<ApiKeyIn<'a>>>,
    #[serde(rename = "api_key_security_scheme", borrow)]
    api_key_snake: Slot<ObjectOr<ApiKeyIn<'a>>>,
    #[serde(rename = "httpAuthSecurityScheme", borrow)]
    http: Slot<ObjectOr<HttpIn<'a>>>,
    #[serde(rename = "http_auth_security_scheme", borrow)]
    http_snake: Slot<ObjectOr<HttpIn<'a>>>,
    #[serde(rename = "oauth2SecurityScheme", borrow)]
    oauth2: Slot<ObjectOr<OAuth2In<'a>>>,
    #[serde(rename = "oauth2_security_scheme", borrow)]
    oauth2_snake: Slot<ObjectOr<OAuth2In<'a>>>,
    #[serde(rename = "openIdConnectSecurityScheme", borrow)]
    oidc: Slot<ObjectOr<OidcIn<'a>>>,
    #[serde(rename = "open_id_connect_security_scheme", borrow)]
    oidc_snake: Slot<ObjectOr<OidcIn<'a>>>,
    #[serde(rename = "mtlsSecurityScheme")]
    mtls: Slot<ObjectOr<IgnoredAny>>,
    #[serde(rename = "mtls_security_scheme")]
    mtls_snake: Slot<ObjectOr<IgnoredAny>>,
    #[serde(rename = "type", borrow)]
    kind: Slot<Text<'a>>,
    #[serde(rename = "in", borrow)]
    location: Slot<Text<'a>>,
    #[serde(borrow)]
    name: Slot<Text<'a>>,
    #[serde(borrow)]
    scheme: Slot<Text<'a>>,
    #[serde(rename = "bearerFormat", borrow)]
    bearer_format: Slot<Text<'a>>,
    #[serde(rename = "bearer_format", borrow)]
    bearer_format_snake: Slot<Text<'a>>,
    #[serde(borrow)]
    flows: Slot<Entries<'a, ObjectOr<FlowIn<'a>>>>,
    #[serde(rename = "oauth2MetadataUrl", borrow)]
    metadata_url: Slot<Text<'a>>,
    #[serde(rename = "oauth2_metadata_url", borrow)]
    metadata_url_snake: Slot<Text<'a>>,
    #[serde(rename = "openIdConnectUrl", borrow)]
    oidc_url: Slot<Text<'a>>,
    #[serde(rename = "open_id_connect_url", borrow)]
    oidc_url_snake: Slot<Text<'a>>,
    /// The other members, for the name of a scheme of no known kind.
    #[serde(flatten)]
    other: BTreeMap<String, IgnoredAny>,
}

impl SchemeIn<'_> {
    /// The first member name in byte order (the scheme's kind when it has no `type`).
    fn first_name(&self) -> Option<String> {
        let known = [
            ("apiKeySecurityScheme", self.api_key.present()),
            ("api_key_security_scheme", self.api_key_snake.present()),
            ("httpAuthSecurityScheme", self.http.present()),
            ("http_auth_security_scheme", self.http_snake.present()),
            ("oauth2SecurityScheme", self.oauth2.present()),
            ("oauth2_security_scheme", self.oauth2_snake.present()),
            ("openIdConnectSecurityScheme", self.oidc.present()),
            ("open_id_connect_security_scheme", self.oidc_snake.present()),
            ("mtlsSecurityScheme", self.mtls.present()),
            ("mtls_security_scheme", self.mtls_snake.present()),
            ("type", self.kind.present()),
            ("in", self.location.present()),
            ("name", self.name.present()),
            ("scheme", self.scheme.present()),
            ("bearerFormat", self.bearer_format.present()),
            ("bearer_format", self.bearer_format_snake.present()),
            ("flows", self.flows.present()),
            ("oauth2MetadataUrl", self.metadata_url.present()),
            ("oauth2_metadata_url", self.metadata_url_snake.present()),
            ("openIdConnectUrl", self.oidc_url.present()),
            ("open_id_connect_url", self.oidc_url_snake.present()),
        ];
        known
            .into_iter()
            .filter_map(|(name, present)| present.then_some(name))
            .chain(self.other.keys().map(String::as_str))
            .min()
            .map(str::to_owned)
    }
}

/// `apiKeySecurityScheme`.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(crate) struct ApiKeyIn<'a> {
    #[serde(borrow)]
    location: Slot<Text<'a>>,
    #[serde(borrow)]
    name: Slot<Text<'a>>,
}

/// `httpAuthSecurityScheme`.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(crate) struct HttpIn<'a> {
    #[serde(borrow)]
    scheme: Slot<Text<'a>>,
    #[serde(rename = "bearerFormat", borrow)]
    bearer_format: Slot<Text<'a>>,
    #[serde(rename = "bearer_format", borrow)]
    bearer_format_snake: Slot<Text<'a>>,
}

/// `oauth2SecurityScheme`.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(crate) struct OAuth2In<'a> {
    #[serde(borrow)]
    flows: Slot<Entries<'a, ObjectOr<FlowIn<'a>>>>,
    #[serde(rename = "oauth2MetadataUrl", borrow)]
    metadata_url: Slot<Text<'a>>,
    #[serde(rename = "oauth2_metadata_url", borrow)]
    metadata_url_snake: Slot<Text<'a>>,
}

/// `openIdConnectSecurityScheme`.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(crate) struct OidcIn<'a> {
    #[serde(rename = "openIdConnectUrl", borrow)]
    url: Slot<Text<'a>>,
    #[serde(rename = "open_id_connect_url", borrow)]
    url_snake: Slot<Text<'a>>,
}

/// A flow of `flows`.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(crate) struct FlowIn<'a> {
    #[serde(rename = "tokenUrl", borrow)]
    token_url: Slot<Text<'a>>,
    #[serde(rename = "token_url", borrow)]
    token_url_snake: Slot<Text<'a>>,
}

fn owned(s: Option<Cow<'_, str>>) -> Option<String> {
    s.map(Cow::into_owned)
}

fn or_empty(s: Option<Cow<'_, str>>) -> String {
    s.map(Cow::into_owned).unwrap_or_default()
}

/// The flow names of `flows`, and the `tokenUrl` of its `clientCredentials` flow (as
/// written, `None` when absent or not a string).
fn flows(flows: Slot<Entries<'_, ObjectOr<FlowIn<'_>>>>) -> (Vec<String>, Option<String>) {
    let Some(Entries(Some(flows))) = pick(flows, Slot::Absent) else {
        return (Vec::new(), None);
    };
    let names = flows.iter().map(|(k, _)| k.clone().into_owned()).collect();
    let find = |name: &str| flows.iter().position(|(k, _)| k == name);
    // `clientCredentials` when present (`null` or not an object counting as none), then
    // `client_credentials`.
    let cc = find("clientCredentials").or_else(|| find("client_credentials"));
    let token_url = cc.and_then(|i| {
        let (_, ObjectOr(flow)) = flows.into_iter().nth(i)?;
        let flow = flow?;
        owned(text(flow.token_url, flow.token_url_snake))
    });
    (names, token_url)
}

fn oauth2(
    flows_in: Slot<Entries<'_, ObjectOr<FlowIn<'_>>>>,
    metadata_url: Option<Cow<'_, str>>,
) -> SecurityScheme {
    let (flows, token_url) = flows(flows_in);
    SecurityScheme::OAuth2 {
        flows,
        metadata_url: owned(metadata_url),
        client_credentials_token_url: token_url.filter(|u| !u.is_empty()),
    }
}

/// A wrapper member: the camelCase one when present, else the snake_case one; `None` when
/// absent, `null` or not an object.
fn wrapped<T>(camel: Slot<ObjectOr<T>>, snake: Slot<ObjectOr<T>>) -> Option<T> {
    pick(camel, snake).and_then(|o| o.0)
}

fn parse_scheme(scheme: Option<SchemeIn<'_>>) -> SecurityScheme {
    let Some(mut s) = scheme else {
        return SecurityScheme::Unknown {
            kind: "not an object".into(),
        };
    };
    let first_name = s.first_name();
    // 1.0 one-key wrappers (camelCase or snake_case).
    if let Some(o) = wrapped(
        std::mem::take(&mut s.api_key),
        std::mem::take(&mut s.api_key_snake),
    ) {
        return SecurityScheme::ApiKey {
            location: api_key_location(text(o.location, Slot::Absent).as_deref()),
            name: or_empty(text(o.name, Slot::Absent)),
        };
    }
    if let Some(o) = wrapped(
        std::mem::take(&mut s.http),
        std::mem::take(&mut s.http_snake),
    ) {
        return SecurityScheme::Http {
            scheme: or_empty(text(o.scheme, Slot::Absent)),
            bearer_format: owned(text(o.bearer_format, o.bearer_format_snake)),
        };
    }
    if let Some(o) = wrapped(
        std::mem::take(&mut s.oauth2),
        std::mem::take(&mut s.oauth2_snake),
    ) {
        return oauth2(o.flows, text(o.metadata_url, o.metadata_url_snake));
    }
    if let Some(o) = wrapped(
        std::mem::take(&mut s.oidc),
        std::mem::take(&mut s.oidc_snake),
    ) {
        return SecurityScheme::OpenIdConnect {
            discovery_url: or_empty(text(o.url, o.url_snake)),
        };
    }
    if wrapped(
        std::mem::take(&mut s.mtls),
        std::mem::take(&mut s.mtls_snake),
    )
    .is_some()
    {
        return SecurityScheme::MutualTls;
    }
    flat_scheme(s, first_name)
}

/// A 0.3 OpenAPI-style scheme, discriminated by `type`.
fn flat_scheme(s: SchemeIn<'_>, first_name: Option<String>) -> SecurityScheme {
    let kind = text(s.kind, Slot::Absent).unwrap_or_default();
    match kind.to_ascii_lowercase().as_str() {
        "apikey" => SecurityScheme::ApiKey {
            location: api_key_location(text(s.location, Slot::Absent).as_deref()),
            name: or_empty(text(s.name, Slot::Absent)),
        },
        "http" => SecurityScheme::Http {
            scheme: or_empty(text(s.scheme, Slot::Absent)),
            bearer_format: owned(text(s.bearer_format, s.bearer_format_snake)),
        },
        "oauth2" => oauth2(s.flows, text(s.metadata_url, s.metadata_url_snake)),
        "openidconnect" => SecurityScheme::OpenIdConnect {
            discovery_url: or_empty(text(s.oidc_url, s.oidc_url_snake)),
        },
        "mutualtls" | "mtls" => SecurityScheme::MutualTls,
        _ => SecurityScheme::Unknown {
            kind: if kind.is_empty() {
                first_name.unwrap_or_default()
            } else {
                kind.into_owned()
            },
        },
    }
}

/// The members of a card [`client_credentials_token_urls`] reads.
#[derive(Deserialize, Default)]
#[serde(default)]
struct SchemesIn<'a> {
    #[serde(rename = "securitySchemes", borrow)]
    schemes: Slot<Entries<'a, ObjectOr<SchemeIn<'a>>>>,
    #[serde(rename = "security_schemes", borrow)]
    schemes_snake: Slot<Entries<'a, ObjectOr<SchemeIn<'a>>>>,
}

/// The OAuth 2.0 client-credentials flows a card declares, as `(scheme name, tokenUrl)` in
/// the card's order (1.0's `oauth2SecurityScheme` wrapper and 0.3's `"type": "oauth2"`,
/// camelCase or snake_case). `card` is the card's JSON; the URLs are the card's text,
/// unchecked: a caller validates one before sending a client secret there.
pub fn client_credentials_token_urls(card: &[u8]) -> Vec<(String, String)> {
    let Ok(card @ Value::Object(_)) = serde_json::from_slice::<Value>(card) else {
        return Vec::new();
    };
    let Ok(card) = SchemesIn::deserialize(&card) else {
        return Vec::new();
    };
    let Some(Entries(Some(schemes))) = pick(card.schemes, card.schemes_snake) else {
        return Vec::new();
    };
    schemes
        .into_iter()
        .filter_map(|(name, ObjectOr(s))| {
            let s = s?;
            let flows_in = match pick(s.oauth2, s.oauth2_snake) {
                Some(ObjectOr(w)) => w?.flows,
                None if text(s.kind, Slot::Absent)
                    .is_some_and(|t| t.eq_ignore_ascii_case("oauth2")) =>
                {
                    s.flows
                }
                None => return None,
            };
            Some((name.into_owned(), flows(flows_in).1?))
        })
        .collect()
}

/// `securitySchemes`: empty when absent or `null`, an error when not an object.
pub(crate) fn parse_schemes(
    v: Option<Entries<'_, ObjectOr<SchemeIn<'_>>>>,
) -> Result<Vec<(String, SecurityScheme)>, CardError> {
    match v {
        None => Ok(Vec::new()),
        Some(Entries(Some(map))) => Ok(map
            .into_iter()
            .map(|(name, s)| (name.into_owned(), parse_scheme(s.0)))
            .collect()),
        Some(Entries(None)) => Err(CardError::InvalidField {
            field: "securitySchemes",
            expected: "an object of named schemes",
        }),
    }
}

/// A value inside a requirement: an object (a requirement's `schemes` wrapper or a
/// scheme's `{"list": [..]}`), an array of scopes (strings kept, other values dropped), or
/// anything else.
pub(crate) enum ScopeValue<'a> {
    Object(Vec<(Cow<'a, str>, ScopeValue<'a>)>),
    Array(Vec<Text<'a>>),
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for ScopeValue<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Either::<Entries<'a, ScopeValue<'a>>, ArrayOr<Text<'a>>>::deserialize(d)? {
            Either::Object(Entries(Some(m))) => Ok(ScopeValue::Object(m)),
            Either::Array(ArrayOr(Some(a))) => Ok(ScopeValue::Array(a)),
            _ => Ok(ScopeValue::Other),
        }
    }
}

/// An entry of `securityRequirements` or `security`; `None` when not an object.
pub(crate) type RequirementIn<'a> = Entries<'a, ScopeValue<'a>>;

/// The scopes of a requirement's scheme: `{"list": [..]}` (1.0) or `[..]` (0.3).
fn scopes(v: ScopeValue<'_>) -> Vec<String> {
    let list = match v {
        ScopeValue::Object(o) => o.into_iter().find(|(k, _)| k == "list").map(|(_, v)| v),
        other => Some(other),
    };
    match list {
        Some(ScopeValue::Array(a)) => a
            .into_iter()
            .filter_map(|t| t.0.map(Cow::into_owned))
            .collect(),
        _ => Vec::new(),
    }
}

/// `securityRequirements` (or `security`): `None` when absent or `null`, an error when not
/// an array of objects.
pub(crate) fn parse_requirements(
    v: Option<ArrayOr<RequirementIn<'_>>>,
) -> Result<Option<Vec<SecurityRequirement>>, CardError> {
    let invalid = CardError::InvalidField {
        field: "securityRequirements",
        expected: "an array of requirement objects",
    };
    let Some(v) = v else { return Ok(None) };
    let list = v.0.ok_or(invalid.clone())?;
    let mut out = Vec::with_capacity(list.len());
    for entry in list {
        let mut obj = entry.0.ok_or(invalid.clone())?;
        // 1.0 (and 0.3 ProtoJSON): {"schemes": {name: {"list": [..]}}}.
        if obj.len() == 1
            && obj[0].0 == "schemes"
            && let Some((_, ScopeValue::Object(inner))) =
                obj.pop_if(|(_, v)| matches!(v, ScopeValue::Object(_)))
        {
            obj = inner;
        }
        out.push(SecurityRequirement {
            schemes: obj
                .into_iter()
                .map(|(k, v)| (k.into_owned(), scopes(v)))
                .collect(),
        });
    }
    Ok(Some(out))
}

fn credential_for(scheme: Option<&SecurityScheme>) -> Credential {
    match scheme {
        Some(SecurityScheme::ApiKey { location, name }) => Credential::ApiKey {
            location: *location,
            name: name.clone(),
        },
        Some(SecurityScheme::Http {
            scheme,
            bearer_format,
        }) => {
            if scheme.eq_ignore_ascii_case("bearer") {
                Credential::BearerToken {
                    source: BearerSource::Http,
                    format: bearer_format.clone(),
                }
            } else if scheme.eq_ignore_ascii_case("basic") {
                Credential::Basic
            } else {
                Credential::OtherHttp {
                    scheme: scheme.clone(),
                }
            }
        }
        Some(SecurityScheme::OAuth2 { .. }) => Credential::BearerToken {
            source: BearerSource::OAuth2,
            format: None,
        },
        Some(SecurityScheme::OpenIdConnect { .. }) => Credential::BearerToken {
            source: BearerSource::OpenIdConnect,
            format: None,
        },
        Some(SecurityScheme::MutualTls) => Credential::ClientCertificate,
        Some(SecurityScheme::Unknown { .. }) | None => Credential::Unknown,
    }
}

/// Which credentials a card with these `securitySchemes` and `security` /
/// `securityRequirements` asks for (what [`super::AgentCard::credentials`] returns).
pub(crate) fn credential_plan(
    schemes: &[(String, SecurityScheme)],
    requirements: Option<&[SecurityRequirement]>,
) -> CredentialPlan {
    let lookup = |name: &str| schemes.iter().find(|(n, _)| n == name).map(|(_, s)| s);
    match requirements {
        Some(reqs) => CredentialPlan {
            alternatives: reqs
                .iter()
                .map(|r| {
                    r.schemes
                        .iter()
                        .map(|(name, scopes)| CredentialNeed {
                            scheme: name.clone(),
                            credential: credential_for(lookup(name)),
                            scopes: scopes.clone(),
                        })
                        .collect()
                })
                .collect(),
            stated: true,
        },
        None => CredentialPlan {
            alternatives: schemes
                .iter()
                .map(|(name, s)| {
                    vec![CredentialNeed {
                        scheme: name.clone(),
                        credential: credential_for(Some(s)),
                        scopes: Vec::new(),
                    }]
                })
                .collect(),
            stated: schemes.is_empty(),
        },
    }
}
