//! What the call machines share: building one attempt's request, the total deadline and
//! the outcome of a call it cut. Both `UnaryCall` and `StreamCall` build every request here,
//! so the header rules, the hooks and the credential check are one piece of code.

use super::request::{
    Before, HttpRequest, RequestContext, admit_headers, invalid, missing_credential, set_header,
};
use super::{Call, ClientConfig, ClientState};
use crate::card::Capabilities;
use crate::envelope::{self, Interface, Method, RpcId};
use crate::outcome::{ErrorName, Outcome, RequestSent};
use crate::time::Millis;
use crate::version::{Binding, ProtocolVersion};

/// What one attempt's request is made of.
#[derive(Debug)]
pub(crate) struct Outgoing<'a> {
    /// The call to send.
    pub call: &'a Call<'a>,
    /// Its `traceparent` (the same on every request of a call).
    pub traceparent: &'a str,
    /// The `traceparent` was drawn by the core (valid by construction: not parsed again).
    pub traceparent_drawn: bool,
    /// The `Idempotency-Key` to send, if any.
    pub idempotency_key: Option<&'a str>,
    /// The caller's own headers.
    pub headers: &'a [(String, String)],
    /// The JSON-RPC id to use (a fresh one when `None`).
    pub rpc_id: Option<RpcId>,
    /// Which request of the call this is (1 for the first), for the header hooks.
    pub attempt: u32,
}

/// One built request, with what the classifier must know about it.
#[derive(Debug)]
pub(crate) struct Built {
    /// The request to hand out.
    pub request: HttpRequest,
    /// The method as the wire names it (`message/stream`, `POST /message:stream`); a
    /// JSON-RPC method's name is static (no copy per request).
    pub wire_method: std::borrow::Cow<'static, str>,
    /// The JSON-RPC id sent (JSON-RPC only).
    pub rpc_id: Option<String>,
}

/// Builds a request: the card's capabilities checked (unless turned off); `traceparent`,
/// `Idempotency-Key`, the caller's headers, then each header hook's; every one through the
/// reserved-header rule; the envelope; the URL joined; the hooks' edits of the built request
/// (a reserved header may be removed, never added or changed); the card's credentials
/// checked.
///
/// # Errors
/// The attempt's outcome when the request cannot be sent (`transport`, `request_sent = no`).
#[allow(clippy::result_large_err)] // the refusal is the call's outcome, built once
#[allow(
    clippy::too_many_lines,
    reason = "the one request builder every call goes through: capability check, envelope, headers, hooks, in the order they apply"
)]
pub(crate) fn build_request(state: &mut ClientState, out: Outgoing<'_>) -> Result<Built, Outcome> {
    if !state.config.ignore_capabilities
        && let Some(caps) = &state.target.capabilities
        && let Some(o) = undeclared_capability(out.call.method(), caps, state.target.version)
    {
        return Err(o);
    }
    if !out.traceparent_drawn
        && let Err(e) = crate::traceparent::TraceParent::parse(out.traceparent)
    {
        return Err(invalid(format!(
            "request not sent: invalid traceparent {:?}: {e}",
            out.traceparent
        )));
    }
    let method: Method = out.call.method();
    let rpc_id = out
        .rpc_id
        .unwrap_or_else(|| RpcId::String(state.random.uuid()));
    let mut headers = vec![("traceparent".to_owned(), out.traceparent.to_owned())];
    if let Some(k) = out.idempotency_key {
        headers.push(("Idempotency-Key".to_owned(), k.to_owned()));
    }
    headers.extend(out.headers.iter().cloned());
    let ctx = RequestContext {
        method: method.name(),
        target: &state.target,
        attempt: out.attempt,
    };
    let mut added = Vec::new();
    for hook in &mut state.hooks {
        hook.headers(&ctx, &mut added);
    }
    for (n, v) in added {
        set_header(&mut headers, n, v);
    }
    admit_headers(&headers)?;
    let target = &state.target;
    let iface = Interface {
        version: target.version,
        binding: target.binding,
        tenant: target.tenant.clone(),
    };
    // The headers were checked just above (`check_header`, the envelope's own rule), so the
    // envelope builds with none and they follow its own, moved rather than copied: the
    // same headers in the same order as `envelope::build` given them would write, without
    // a borrowed list, a second copy of each and a second check.
    let mut built = envelope::build_with_id(
        &iface,
        out.call,
        &envelope::CallOptions {
            id: None,
            extensions: &[],
            headers: &[],
        },
        Some(rpc_id),
        headers.len(),
    )
    .map_err(|e| invalid(format!("request not built: {e}")))?;
    built.headers.append(&mut headers);
    let wire_method = match target.binding {
        Binding::JsonRpc => {
            std::borrow::Cow::Borrowed(method.jsonrpc_name(target.version).unwrap_or(method.name()))
        }
        _ => std::borrow::Cow::Owned(format!("{} {}", built.method.as_str(), built.path)),
    };
    let mut request = HttpRequest {
        method: built.method,
        url: join_url(&target.url, &built.path),
        headers: built.headers,
        body: built.body,
    };
    if state.hooks.iter().any(|h| h.edits()) {
        let before = Before::of(&request.headers);
        for hook in &mut state.hooks {
            hook.edit(&ctx, &mut request);
        }
        before.check(&request.headers)?;
    }
    let target = &state.target;
    if let Some(plan) = &target.credentials
        && let Some(o) = missing_credential(plan, &request.headers, state.config.client_certificate)
    {
        return Err(o);
    }
    Ok(Built {
        request,
        wire_method,
        // A string id's text is moved, not formatted into a copy.
        rpc_id: built.rpc_id.map(|i| match i {
            RpcId::String(s) => s,
            n @ RpcId::Number(_) => n.to_string(),
        }),
    })
}

/// The capability `method` needs, as the card of `version` spells it, and whether `caps`
/// declares it; `None` for a method every agent serves.
fn needed_capability(
    method: Method,
    version: ProtocolVersion,
    caps: &Capabilities,
) -> Option<(&'static str, bool)> {
    Some(match method {
        Method::SendStreamingMessage | Method::SubscribeToTask => {
            ("capabilities.streaming", caps.streaming)
        }
        Method::CreatePushConfig
        | Method::GetPushConfig
        | Method::ListPushConfigs
        | Method::DeletePushConfig => ("capabilities.pushNotifications", caps.push_notifications),
        Method::GetExtendedAgentCard => match version {
            ProtocolVersion::V0_3 => ("supportsAuthenticatedExtendedCard", caps.extended_card),
            ProtocolVersion::V1_0 => ("capabilities.extendedAgentCard", caps.extended_card),
        },
        Method::SendMessage | Method::GetTask | Method::ListTasks | Method::CancelTask => {
            return None;
        }
    })
}

/// When the card does not declare what `method` needs: the outcome to hand back instead
/// of sending (`transport`/`CapabilityNotDeclared`, `request_sent = no`, retry `never`),
/// naming the method (as 1.0 and as the wire names it) and the capability.
pub(crate) fn undeclared_capability(
    method: Method,
    caps: &Capabilities,
    version: ProtocolVersion,
) -> Option<Outcome> {
    let (name, declared) = needed_capability(method, version, caps)?;
    if declared {
        return None;
    }
    let wire = method.jsonrpc_name(version).unwrap_or(method.name());
    let called = if wire == method.name() {
        method.name().to_owned()
    } else {
        format!("{} ({wire})", method.name())
    };
    Some(
        Outcome::transport(
            ErrorName::CapabilityNotDeclared,
            RequestSent::No,
            format!("not sent: {called} needs {name}, which the agent card does not declare"),
        )
        .with_hint(
            "the agent says it does not serve this method; use a call it declares (send and poll with get-task instead of streaming), or, if the card under-declares, turn the check off (ClientConfig::ignore_capabilities, --ignore-capabilities)"
                .to_owned(),
        ),
    )
}

/// Joins the interface URL and an envelope path (empty for JSON-RPC).
pub(crate) fn join_url(url: &str, path: &str) -> String {
    if path.is_empty() {
        url.to_owned()
    } else {
        format!("{}{}", url.trim_end_matches('/'), path)
    }
}

/// The total deadline of a call started at `now`: the earlier of `now + config.max_time`
/// and the caller's absolute `deadline`.
pub(crate) fn total_deadline(
    config: &ClientConfig,
    deadline: Option<Millis>,
    now: Millis,
) -> Option<Millis> {
    match (config.max_time.map(|m| now.saturating_add(m)), deadline) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The outcome of a call cut by its total deadline: `transport`/`Timeout`, and
/// `request_sent = unknown` (an attempt may have been received); nothing is resent. The
/// driver's words, so that hosts on the machine report `--max-time` the same way.
pub(crate) fn total_deadline_outcome() -> Outcome {
    Outcome::transport(
        ErrorName::Timeout,
        RequestSent::Unknown,
        "total deadline expired (max_time, --max-time): the call was cut and nothing was resent",
    )
    .with_hint(
        "the whole call (card, retries, resubscribes, stream) has a total deadline: raise --max-time (ClientConfig::max_time) or check the task with get-task before sending again"
            .to_owned(),
    )
}
