//! Request bodies and REST paths for every call.

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use super::encode::{is_dot_segment, push_encoded};
use super::{BuildError, HttpMethod, RpcId};
use crate::model::params::{Call, SendConfiguration, SendMessageParams};
use crate::model::ser_support::{opt, push_fields, state_name};
use crate::model::{InForm, ModelError, WireForm};
use crate::version::ProtocolVersion;

/// Refuses calls carrying fields the form cannot carry, before anything is written.
pub(super) fn check(call: &Call<'_>, form: WireForm) -> Result<(), BuildError> {
    use BuildError::NotRepresentable as No;
    let v10 = form == WireForm::V1_0;
    let rest = form == WireForm::RestV0_3;
    match call {
        Call::GetTask(p) if p.metadata.is_some() && v10 => {
            Err(No("1.0 GetTask carries no metadata"))
        }
        Call::SubscribeToTask(p) if p.metadata.is_some() && v10 => {
            Err(No("1.0 SubscribeToTask carries no metadata"))
        }
        Call::CancelTask(p) if p.metadata.is_some() && rest => {
            Err(No("0.3 HTTP+JSON cancel carries no metadata"))
        }
        Call::GetPushConfig(p) | Call::DeletePushConfig(p) if p.metadata.is_some() && v10 => {
            Err(No("1.0 push config requests carry no metadata"))
        }
        Call::GetPushConfig(p) if p.config_id.is_none() && v10 => {
            Err(No("1.0 GetTaskPushNotificationConfig needs a config id"))
        }
        Call::DeletePushConfig(p) if p.config_id.is_none() => {
            Err(No("deleting a push config needs a config id"))
        }
        Call::ListPushConfigs(p) if p.metadata.is_some() && v10 => {
            Err(No("1.0 push config requests carry no metadata"))
        }
        Call::ListPushConfigs(p) if (p.page_size.is_some() || p.page_token.is_some()) && !v10 => {
            Err(No("0.3 lists push configs without paging"))
        }
        _ => Ok(()),
    }
}

fn model_err(e: serde_json::Error) -> BuildError {
    BuildError::Model(ModelError(e))
}

/// `{"jsonrpc":"2.0","id":..,"method":..,"params":..}`.
pub(super) fn jsonrpc(
    call: &Call<'_>,
    form: WireForm,
    tenant: Option<&str>,
    id: &RpcId,
) -> Result<Vec<u8>, BuildError> {
    if let Some(body) = plain_send(call, form, tenant, id) {
        return Ok(body);
    }
    jsonrpc_serde(call, form, tenant, id)
}

/// [`jsonrpc`] written by serde (every call).
fn jsonrpc_serde(
    call: &Call<'_>,
    form: WireForm,
    tenant: Option<&str>,
    id: &RpcId,
) -> Result<Vec<u8>, BuildError> {
    struct Envelope<'c, 'a> {
        call: &'c Call<'a>,
        form: WireForm,
        tenant: Option<&'c str>,
        id: &'c RpcId,
    }
    impl Serialize for Envelope<'_, '_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let name = self
                .call
                .method()
                .jsonrpc_name(self.form.version())
                .expect("checked by build: the method exists in this version");
            let mut m = s.serialize_map(None)?;
            m.serialize_entry("jsonrpc", "2.0")?;
            m.serialize_entry("id", self.id)?;
            m.serialize_entry("method", name)?;
            let no_params =
                matches!(self.call, Call::GetExtendedAgentCard) && self.tenant.is_none();
            if !no_params {
                m.serialize_entry(
                    "params",
                    &Params {
                        call: self.call,
                        form: self.form,
                        tenant: self.tenant,
                    },
                )?;
            }
            m.end()
        }
    }
    serde_json::to_vec(&Envelope {
        call,
        form,
        tenant,
        id,
    })
    .map_err(model_err)
}

/// The JSON-RPC body of a plain send (a message of text parts, with or without its task and
/// context ids, no configuration, metadata, tenant, reference ids or extensions), written
/// directly: byte for byte what the serde path below writes (a string needing an escape is
/// written by serde_json itself), without serde's map state, its key escaping and its
/// one-byte writes (4.2k of the driver's 51.7k instructions per send went into this body,
/// half of them in serde_json's escaping of 19 keys and values). `None` for any other call,
/// which the serde path writes.
fn plain_send(
    call: &Call<'_>,
    form: WireForm,
    tenant: Option<&str>,
    id: &RpcId,
) -> Option<Vec<u8>> {
    let (Call::SendMessage(p) | Call::SendStreamingMessage(p)) = call else {
        return None;
    };
    let (v03, role) = plain_send_form(p, form, tenant)?;
    let m = &p.message;
    let name = call.method().jsonrpc_name(form.version())?;
    let text_len: usize = m
        .parts
        .iter()
        .map(|p| p.as_text().map_or(0, str::len))
        .sum();
    // The body's length when no string needs an escape: the keys and punctuation (0.3: 111
    // bytes and 25 more per part; 1.0, without the `kind`s: 94 and 11; a comma between
    // parts; 15 and 12 more with a context or task id) and the strings. Sized to fit, not
    // rounded up: the request is kept for the host while the call runs (an open stream's,
    // for its life; issue 28), and an estimate short of the body doubled it.
    let id_len = match id {
        RpcId::Number(_) => 20,
        RpcId::String(s) => s.len() + 2,
    };
    let (fixed, per_part) = if v03 { (111, 25) } else { (94, 11) };
    let mut out = Vec::with_capacity(
        fixed
            + id_len
            + name.len()
            + m.message_id.len()
            + role.len()
            + text_len
            + m.parts.len() * per_part
            + m.parts.len().saturating_sub(1)
            + m.context_id.as_deref().map_or(0, |c| c.len() + 15)
            + m.task_id.as_deref().map_or(0, |t| t.len() + 12),
    );
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    match id {
        RpcId::Number(n) => {
            use std::io::Write as _;
            write!(out, "{n}").expect("writing to a Vec does not fail");
        }
        RpcId::String(s) => json_str(&mut out, s),
    }
    out.extend_from_slice(br#","method":"#);
    json_str(&mut out, name);
    out.extend_from_slice(if v03 {
        br#","params":{"message":{"kind":"message","messageId":"#
    } else {
        br#","params":{"message":{"messageId":"#
    });
    json_str(&mut out, &m.message_id);
    out.extend_from_slice(br#","role":"#);
    json_str(&mut out, role);
    out.extend_from_slice(br#","parts":["#);
    for (i, part) in m.parts.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(if v03 {
            br#"{"kind":"text","text":"#
        } else {
            br#"{"text":"#
        });
        json_str(&mut out, part.as_text().unwrap_or_default());
        out.push(b'}');
    }
    out.push(b']');
    if let Some(c) = &m.context_id {
        out.extend_from_slice(br#","contextId":"#);
        json_str(&mut out, c);
    }
    if let Some(t) = &m.task_id {
        out.extend_from_slice(br#","taskId":"#);
        json_str(&mut out, t);
    }
    out.extend_from_slice(b"}}}");
    Some(out)
}

/// How [`plain_send`] writes `p` in `form`: whether on the 0.3 wire, and the role's wire
/// name; `None` when `p` is no plain send (the serde path writes it).
fn plain_send_form(
    p: &SendMessageParams<'_>,
    form: WireForm,
    tenant: Option<&str>,
) -> Option<(bool, &'static str)> {
    let m = &p.message;
    let v03 = match form {
        WireForm::JsonRpcV0_3 => true,
        WireForm::V1_0 if tenant.is_none() => false,
        _ => return None,
    };
    let plain_parts = m.parts.iter().all(|part| {
        matches!(part.content, crate::model::PartContent::Text(_))
            && part.metadata.is_none()
            && (v03 || (part.media_type.is_none() && part.filename.is_none()))
    });
    if p.configuration.is_some()
        || p.metadata.is_some()
        || m.metadata.is_some()
        || !m.reference_task_ids.is_empty()
        || !m.extensions.is_empty()
        || !plain_parts
    {
        return None;
    }
    let role = match (v03, m.role) {
        (true, crate::model::Role::User) => "user",
        (true, crate::model::Role::Agent) => "agent",
        (true, crate::model::Role::Unspecified) => return None,
        (false, crate::model::Role::User) => "ROLE_USER",
        (false, crate::model::Role::Agent) => "ROLE_AGENT",
        (false, crate::model::Role::Unspecified) => "ROLE_UNSPECIFIED",
    };
    Some((v03, role))
}

/// Appends `s` as a JSON string: copied between quotes when nothing in it needs an escape,
/// else written by serde_json (its escapes exactly).
fn json_str(out: &mut Vec<u8>, s: &str) {
    // The ids and texts of a send are mostly 4 to 40 bytes, looked for eight at a time.
    if crate::json::first_escape(s.as_bytes()) == s.len() {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    } else {
        serde_json::to_writer(&mut *out, s).expect("a string always serializes");
    }
}

/// JSON-RPC `params` of a call.
pub(crate) struct Params<'c, 'a> {
    pub(crate) call: &'c Call<'a>,
    pub(crate) form: WireForm,
    pub(crate) tenant: Option<&'c str>,
}

impl Serialize for Params<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let form = self.form;
        let v10 = form == WireForm::V1_0;
        let mut m = s.serialize_map(None)?;
        if v10 {
            opt(&mut m, "tenant", self.tenant)?;
        }
        match self.call {
            Call::SendMessage(p) | Call::SendStreamingMessage(p) => send_fields(&mut m, p, form)?,
            Call::GetTask(p) => {
                m.serialize_entry("id", &p.id)?;
                opt(&mut m, "historyLength", p.history_length.as_ref())?;
                opt(&mut m, "metadata", p.metadata.as_ref())?;
            }
            Call::ListTasks(p) => {
                opt(&mut m, "contextId", p.context_id.as_ref())?;
                if let Some(st) = p.status {
                    m.serialize_entry("status", state_name(st, form))?;
                }
                opt(&mut m, "pageSize", p.page_size.as_ref())?;
                opt(&mut m, "pageToken", p.page_token.as_ref())?;
                opt(&mut m, "historyLength", p.history_length.as_ref())?;
                opt(
                    &mut m,
                    "statusTimestampAfter",
                    p.status_timestamp_after.as_ref(),
                )?;
                opt(&mut m, "includeArtifacts", p.include_artifacts.as_ref())?;
            }
            Call::CancelTask(p) | Call::SubscribeToTask(p) => {
                m.serialize_entry("id", &p.id)?;
                opt(&mut m, "metadata", p.metadata.as_ref())?;
            }
            Call::CreatePushConfig(c) => {
                m.serialize_entry("taskId", &c.task_id)?;
                if v10 {
                    push_fields(&mut m, &c.config, form)?;
                } else {
                    m.serialize_entry("pushNotificationConfig", &InForm(&c.config, form))?;
                }
            }
            Call::GetPushConfig(p) | Call::DeletePushConfig(p) => {
                if v10 {
                    m.serialize_entry("taskId", &p.task_id)?;
                    opt(&mut m, "id", p.config_id.as_ref())?;
                } else {
                    m.serialize_entry("id", &p.task_id)?;
                    opt(&mut m, "pushNotificationConfigId", p.config_id.as_ref())?;
                    opt(&mut m, "metadata", p.metadata.as_ref())?;
                }
            }
            Call::ListPushConfigs(p) => {
                if v10 {
                    m.serialize_entry("taskId", &p.task_id)?;
                    opt(&mut m, "pageSize", p.page_size.as_ref())?;
                    opt(&mut m, "pageToken", p.page_token.as_ref())?;
                } else {
                    m.serialize_entry("id", &p.task_id)?;
                    opt(&mut m, "metadata", p.metadata.as_ref())?;
                }
            }
            Call::GetExtendedAgentCard => {}
        }
        m.end()
    }
}

fn send_fields<M: SerializeMap>(
    m: &mut M,
    p: &SendMessageParams<'_>,
    form: WireForm,
) -> Result<(), M::Error> {
    m.serialize_entry("message", &InForm(&p.message, form))?;
    if let Some(c) = &p.configuration {
        m.serialize_entry("configuration", &Config(c, form))?;
    }
    opt(m, "metadata", p.metadata.as_ref())
}

struct Config<'c, 'a>(&'c SendConfiguration<'a>, WireForm);

impl Serialize for Config<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (c, form) = (self.0, self.1);
        let mut m = s.serialize_map(None)?;
        if !c.accepted_output_modes.is_empty() {
            m.serialize_entry("acceptedOutputModes", &c.accepted_output_modes)?;
        }
        if let Some(push) = &c.push_notification_config {
            let key = match form {
                WireForm::JsonRpcV0_3 => "pushNotificationConfig",
                WireForm::RestV0_3 => "pushNotification",
                WireForm::V1_0 => "taskPushNotificationConfig",
            };
            m.serialize_entry(key, &InForm(push, form))?;
        }
        opt(&mut m, "historyLength", c.history_length.as_ref())?;
        if let Some(b) = c.blocking {
            if form == WireForm::V1_0 {
                m.serialize_entry("returnImmediately", &!b)?;
            } else {
                m.serialize_entry("blocking", &b)?;
            }
        }
        m.end()
    }
}

/// Builds a REST path: template with `{id}`/`{configId}` filled in percent-encoded, the
/// tenant prefix, and query pairs (values percent-encoded). A tenant, task id or config id
/// that is exactly `.` or `..` is refused: as a path segment it would name another resource.
fn path(
    template: &str,
    tenant: Option<&str>,
    id: &str,
    config_id: &str,
    query: &[(&str, String)],
) -> Result<String, BuildError> {
    if [tenant.unwrap_or(""), id, config_id]
        .iter()
        .any(|s| is_dot_segment(s))
    {
        return Err(BuildError::NotRepresentable(
            "a tenant, task id or config id of `.` or `..` would be a dot segment of the HTTP+JSON path (it names another resource, and %2E is the same); only JSON-RPC can carry it",
        ));
    }
    let mut out = String::with_capacity(template.len() + id.len() + 16);
    if let Some(t) = tenant {
        out.push('/');
        push_encoded(&mut out, t);
    }
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = open + rest[open..].find('}').expect("templates are well formed");
        match &rest[open + 1..close] {
            "id" => push_encoded(&mut out, id),
            "configId" => push_encoded(&mut out, config_id),
            other => unreachable!("unknown template variable {other}"),
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    for (i, (k, v)) in query.iter().enumerate() {
        out.push(if i == 0 { '?' } else { '&' });
        out.push_str(k);
        out.push('=');
        push_encoded(&mut out, v);
    }
    Ok(out)
}

/// The REST verb, path and body of a call.
#[allow(
    clippy::too_many_lines,
    reason = "one arm per method, each placing that method's fields in the path, query or body"
)]
pub(super) fn rest(
    call: &Call<'_>,
    version: ProtocolVersion,
    tenant: Option<&str>,
) -> Result<(HttpMethod, String, Vec<u8>), BuildError> {
    use BuildError::NotRepresentable as No;
    let form = WireForm::new(version, crate::version::Binding::HttpJson);
    let route = call
        .method()
        .rest_route(version)
        .expect("checked by build: the method exists in this version");
    let mut query: Vec<(&str, String)> = Vec::new();
    let (id, config_id): (&str, &str);
    let mut body = Vec::new();
    match call {
        Call::SendMessage(p) | Call::SendStreamingMessage(p) => {
            (id, config_id) = ("", "");
            struct Send<'c, 'a>(&'c SendMessageParams<'a>, WireForm);
            impl Serialize for Send<'_, '_> {
                fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                    let mut m = s.serialize_map(None)?;
                    send_fields(&mut m, self.0, self.1)?;
                    m.end()
                }
            }
            body = serde_json::to_vec(&Send(p, form)).map_err(model_err)?;
        }
        Call::GetTask(p) => {
            if p.metadata.is_some() {
                return Err(No("GetTask metadata cannot travel in an HTTP+JSON query"));
            }
            (id, config_id) = (&p.id, "");
            if let Some(h) = p.history_length {
                query.push(("historyLength", h.to_string()));
            }
        }
        Call::ListTasks(p) => {
            (id, config_id) = ("", "");
            if let Some(c) = &p.context_id {
                query.push(("contextId", c.to_string()));
            }
            if let Some(st) = p.status {
                query.push(("status", state_name(st, form).to_owned()));
            }
            if let Some(n) = p.page_size {
                query.push(("pageSize", n.to_string()));
            }
            if let Some(t) = &p.page_token {
                query.push(("pageToken", t.to_string()));
            }
            if let Some(n) = p.history_length {
                query.push(("historyLength", n.to_string()));
            }
            if let Some(t) = &p.status_timestamp_after {
                query.push(("statusTimestampAfter", t.to_string()));
            }
            if let Some(b) = p.include_artifacts {
                query.push(("includeArtifacts", b.to_string()));
            }
        }
        Call::CancelTask(p) => {
            (id, config_id) = (&p.id, "");
            body = match (version, &p.metadata) {
                (ProtocolVersion::V0_3, _) => {
                    serde_json::to_vec(&serde_json::json!({ "name": format!("tasks/{}", p.id) }))
                        .map_err(model_err)?
                }
                (ProtocolVersion::V1_0, None) => b"{}".to_vec(),
                (ProtocolVersion::V1_0, Some(meta)) => {
                    let mut b = b"{\"metadata\":".to_vec();
                    b.extend_from_slice(meta.get().as_bytes());
                    b.push(b'}');
                    b
                }
            };
        }
        Call::SubscribeToTask(p) => {
            if p.metadata.is_some() {
                return Err(No("subscribe over HTTP+JSON carries no metadata"));
            }
            (id, config_id) = (&p.id, "");
        }
        Call::CreatePushConfig(c) => {
            (id, config_id) = (&c.task_id, "");
            body = match version {
                ProtocolVersion::V0_3 => {
                    // The body the 0.3 proto's CreateTaskPushNotificationConfigRequest
                    // reads (what the Python SDK sends and its compat server parses).
                    struct Create03<'c, 'a>(&'c crate::model::TaskPushNotificationConfig<'a>);
                    impl Serialize for Create03<'_, '_> {
                        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                            let c = self.0;
                            let mut m = s.serialize_map(None)?;
                            m.serialize_entry("parent", &format!("tasks/{}", c.task_id))?;
                            opt(&mut m, "configId", c.config.id.as_ref())?;
                            m.serialize_entry("config", &InForm(c, WireForm::RestV0_3))?;
                            m.end()
                        }
                    }
                    serde_json::to_vec(&Create03(c)).map_err(model_err)?
                }
                ProtocolVersion::V1_0 => {
                    struct Create10<'c, 'a>(&'c crate::model::PushNotificationConfig<'a>);
                    impl Serialize for Create10<'_, '_> {
                        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                            let mut m = s.serialize_map(None)?;
                            push_fields(&mut m, self.0, WireForm::V1_0)?;
                            m.end()
                        }
                    }
                    serde_json::to_vec(&Create10(&c.config)).map_err(model_err)?
                }
            };
        }
        Call::GetPushConfig(p) | Call::DeletePushConfig(p) => {
            if p.metadata.is_some() {
                return Err(No("push config metadata cannot travel over HTTP+JSON"));
            }
            let cfg = p
                .config_id
                .as_deref()
                .ok_or(No("HTTP+JSON push config routes need a config id"))?;
            (id, config_id) = (&p.task_id, cfg);
        }
        Call::ListPushConfigs(p) => {
            if p.metadata.is_some() {
                return Err(No("push config metadata cannot travel over HTTP+JSON"));
            }
            (id, config_id) = (&p.task_id, "");
            if let Some(n) = p.page_size {
                query.push(("pageSize", n.to_string()));
            }
            if let Some(t) = &p.page_token {
                query.push(("pageToken", t.to_string()));
            }
        }
        Call::GetExtendedAgentCard => (id, config_id) = ("", ""),
    }
    Ok((
        route.verb,
        path(route.template, tenant, id, config_id, &query)?,
        body,
    ))
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use proptest::prelude::*;

    use super::*;
    use crate::model::{Message, Part, Role};

    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z0-9-]{0,40}",
            any::<String>(),
            "[\\x00-\\x7f]{0,20}",
            Just("a\"b\\c\u{1}\u{1f}\u{7f}é\n".to_owned()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

        /// The direct writer of a plain send writes what serde writes, byte for byte, and
        /// takes every plain send it is given.
        #[test]
        fn a_plain_send_is_written_as_serde_writes_it(
            message_id in text(),
            texts in prop::collection::vec(text(), 0..3),
            context_id in prop::option::of(text()),
            task_id in prop::option::of(text()),
            role in 0u8..3,
            v03 in any::<bool>(),
            stream in any::<bool>(),
            numeric in prop::option::of(any::<i64>()),
            sid in text(),
        ) {
            let role = [Role::User, Role::Agent, Role::Unspecified][usize::from(role)];
            let parts = texts.iter().map(|t| Part::text(t.as_str())).collect();
            let mut m = Message::new(Cow::Borrowed(message_id.as_str()), role, parts);
            m.context_id = context_id.as_deref().map(Cow::Borrowed);
            m.task_id = task_id.as_deref().map(Cow::Borrowed);
            let p = SendMessageParams::new(m);
            let call = if stream { Call::SendStreamingMessage(p) } else { Call::SendMessage(p) };
            let form = if v03 { WireForm::JsonRpcV0_3 } else { WireForm::V1_0 };
            let id = numeric.map_or_else(|| RpcId::String(sid.clone()), RpcId::Number);
            let fast = plain_send(&call, form, None, &id);
            let slow = jsonrpc_serde(&call, form, None, &id).ok();
            prop_assert_eq!(fast.is_some(), !(v03 && role == Role::Unspecified));
            // Sized to fit (issue 28: the request is kept while the call runs): exactly
            // when no string needs an escape and the id is a string.
            let plain = |t: &str| !t.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\');
            let unescaped = texts
                .iter()
                .chain([&message_id, &sid])
                .chain(&context_id)
                .chain(&task_id)
                .all(|t| plain(t));
            if let Some(b) = fast.as_ref().filter(|_| unescaped) {
                // A number's room is its longest form's (20 bytes).
                let room = if numeric.is_some() { 20 } else { 0 };
                prop_assert!(b.capacity() <= b.len() + room);
                prop_assert!(b.capacity() == b.len() || numeric.is_some());
            }
            if fast.is_some() {
                prop_assert_eq!(fast, slow);
            }
        }
    }

    /// Anything beyond a plain send is left to serde.
    #[test]
    fn other_sends_are_left_to_serde() {
        let id = RpcId::Number(1);
        let plain = || {
            SendMessageParams::new(Message::new(
                Cow::Borrowed("m"),
                Role::User,
                vec![Part::text("hi")],
            ))
        };
        let mut with_meta = plain();
        with_meta.message.metadata = Some(crate::model::Json::parse("{}").unwrap());
        let mut with_ref = plain();
        with_ref.message.reference_task_ids = vec![Cow::Borrowed("t")];
        let mut with_ext = plain();
        with_ext.message.extensions = vec![Cow::Borrowed("e")];
        let mut with_config = plain();
        with_config.configuration = Some(crate::model::params::SendConfiguration::default());
        let mut with_params_meta = plain();
        with_params_meta.metadata = Some(crate::model::Json::parse("{}").unwrap());
        let mut with_media = plain();
        with_media.message.parts[0].media_type = Some(Cow::Borrowed("text/plain"));
        let mut with_data = plain();
        with_data
            .message
            .parts
            .push(Part::from_content(crate::model::PartContent::Data(
                crate::model::Json::parse("{}").unwrap(),
            )));
        for (p, form) in [
            (with_meta, WireForm::JsonRpcV0_3),
            (with_ref, WireForm::JsonRpcV0_3),
            (with_ext, WireForm::V1_0),
            (with_config, WireForm::JsonRpcV0_3),
            (with_params_meta, WireForm::V1_0),
            (with_media, WireForm::V1_0),
            (with_data, WireForm::JsonRpcV0_3),
        ] {
            assert_eq!(plain_send(&Call::SendMessage(p), form, None, &id), None);
        }
        assert_eq!(
            plain_send(&Call::SendMessage(plain()), WireForm::V1_0, Some("t"), &id),
            None
        );
        let call = Call::SendMessage(plain());
        assert_eq!(
            plain_send(&call, WireForm::JsonRpcV0_3, None, &id),
            jsonrpc_serde(&call, WireForm::JsonRpcV0_3, None, &id).ok()
        );
    }
}
