//! Which credential a card asks for, from `securitySchemes` and `security` (0.3, OpenAPI
//! style: `{"type":"http","scheme":"Bearer"}`, `[{"name":[scopes]}]`) or
//! `securityRequirements` (1.0, ProtoJSON one-key wrappers:
//! `{"httpAuthSecurityScheme":{"scheme":"Bearer"}}`, `[{"schemes":{"name":{"list":[]}}}]`).

use serde_json::{Map, Value};

use super::CardError;
use super::fields::{field, str_field};

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

fn flows(obj: &Map<String, Value>) -> Vec<String> {
    field(obj, "flows", "flows")
        .and_then(Value::as_object)
        .map(|f| f.keys().cloned().collect())
        .unwrap_or_default()
}

/// The `tokenUrl` of the `clientCredentials` flow (`client_credentials` / `token_url` in
/// snake_case), if declared as a non-empty string.
fn client_credentials_token_url(obj: &Map<String, Value>) -> Option<String> {
    let flows = field(obj, "flows", "flows").and_then(Value::as_object)?;
    let flow =
        field(flows, "clientCredentials", "client_credentials").and_then(Value::as_object)?;
    str_field(flow, "tokenUrl", "token_url")
        .filter(|u| !u.is_empty())
        .map(str::to_owned)
}

fn owned(s: Option<&str>) -> Option<String> {
    s.map(str::to_owned)
}

fn parse_scheme(v: &Value) -> SecurityScheme {
    let Some(obj) = v.as_object() else {
        return SecurityScheme::Unknown {
            kind: "not an object".into(),
        };
    };
    // 1.0 one-key wrappers (camelCase or snake_case).
    let wrapped = |camel: &str, snake: &str| field(obj, camel, snake).and_then(Value::as_object);
    if let Some(o) = wrapped("apiKeySecurityScheme", "api_key_security_scheme") {
        return SecurityScheme::ApiKey {
            location: api_key_location(str_field(o, "location", "location")),
            name: str_field(o, "name", "name").unwrap_or("").to_owned(),
        };
    }
    if let Some(o) = wrapped("httpAuthSecurityScheme", "http_auth_security_scheme") {
        return SecurityScheme::Http {
            scheme: str_field(o, "scheme", "scheme").unwrap_or("").to_owned(),
            bearer_format: owned(str_field(o, "bearerFormat", "bearer_format")),
        };
    }
    if let Some(o) = wrapped("oauth2SecurityScheme", "oauth2_security_scheme") {
        return SecurityScheme::OAuth2 {
            flows: flows(o),
            metadata_url: owned(str_field(o, "oauth2MetadataUrl", "oauth2_metadata_url")),
            client_credentials_token_url: client_credentials_token_url(o),
        };
    }
    if let Some(o) = wrapped(
        "openIdConnectSecurityScheme",
        "open_id_connect_security_scheme",
    ) {
        return SecurityScheme::OpenIdConnect {
            discovery_url: str_field(o, "openIdConnectUrl", "open_id_connect_url")
                .unwrap_or("")
                .to_owned(),
        };
    }
    if wrapped("mtlsSecurityScheme", "mtls_security_scheme").is_some() {
        return SecurityScheme::MutualTls;
    }
    // 0.3 OpenAPI style, discriminated by "type".
    let kind = str_field(obj, "type", "type").unwrap_or("");
    match kind.to_ascii_lowercase().as_str() {
        "apikey" => SecurityScheme::ApiKey {
            location: api_key_location(str_field(obj, "in", "in")),
            name: str_field(obj, "name", "name").unwrap_or("").to_owned(),
        },
        "http" => SecurityScheme::Http {
            scheme: str_field(obj, "scheme", "scheme").unwrap_or("").to_owned(),
            bearer_format: owned(str_field(obj, "bearerFormat", "bearer_format")),
        },
        "oauth2" => SecurityScheme::OAuth2 {
            flows: flows(obj),
            metadata_url: owned(str_field(obj, "oauth2MetadataUrl", "oauth2_metadata_url")),
            client_credentials_token_url: client_credentials_token_url(obj),
        },
        "openidconnect" => SecurityScheme::OpenIdConnect {
            discovery_url: str_field(obj, "openIdConnectUrl", "open_id_connect_url")
                .unwrap_or("")
                .to_owned(),
        },
        "mutualtls" | "mtls" => SecurityScheme::MutualTls,
        _ => SecurityScheme::Unknown {
            kind: if kind.is_empty() {
                obj.keys().next().cloned().unwrap_or_default()
            } else {
                kind.to_owned()
            },
        },
    }
}

pub(crate) fn parse_schemes(v: Option<&Value>) -> Result<Vec<(String, SecurityScheme)>, CardError> {
    match v {
        None => Ok(Vec::new()),
        Some(Value::Object(map)) => Ok(map
            .iter()
            .map(|(name, s)| (name.clone(), parse_scheme(s)))
            .collect()),
        Some(_) => Err(CardError::InvalidField {
            field: "securitySchemes",
            expected: "an object of named schemes",
        }),
    }
}

fn scopes(v: &Value) -> Vec<String> {
    let list = match v {
        Value::Object(o) => field(o, "list", "list"),
        other => Some(other),
    };
    list.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

pub(crate) fn parse_requirements(
    v: Option<&Value>,
) -> Result<Option<Vec<SecurityRequirement>>, CardError> {
    let invalid = CardError::InvalidField {
        field: "securityRequirements",
        expected: "an array of requirement objects",
    };
    let Some(v) = v else { return Ok(None) };
    let list = v.as_array().ok_or(invalid.clone())?;
    let mut out = Vec::with_capacity(list.len());
    for entry in list {
        let obj = entry.as_object().ok_or(invalid.clone())?;
        // 1.0 (and 0.3 ProtoJSON): {"schemes": {name: {"list": [..]}}}.
        let map = match obj.get("schemes") {
            Some(Value::Object(inner)) if obj.len() == 1 => inner,
            _ => obj,
        };
        out.push(SecurityRequirement {
            schemes: map.iter().map(|(k, v)| (k.clone(), scopes(v))).collect(),
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
