"""Request builders: the exact HTTP request (method, path, headers, body) for an A2A call
on an interface (protocol version, binding, tenant), for callers with their own HTTP
stack. Params are read tolerantly (any version's keys)."""

from __future__ import annotations

import ctypes
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import _lib
from ._guard import Owned
from .errors import check, error_for
from .vocab import (Binding, ProtocolVersion, _num, _vocab_name, _vocab_parse, _Word, parse_binding,
                    parse_protocol_version)

__all__ = ['Method', 'Request', 'build_request', 'build_text_request', 'method_from_jsonrpc_name']


class Method(_Word):
    """An A2A operation (named as in 1.0)."""

    SEND_MESSAGE = 'SendMessage'
    SEND_STREAMING_MESSAGE = 'SendStreamingMessage'
    GET_TASK = 'GetTask'
    LIST_TASKS = 'ListTasks'
    CANCEL_TASK = 'CancelTask'
    SUBSCRIBE_TO_TASK = 'SubscribeToTask'
    CREATE_PUSH_CONFIG = 'CreateTaskPushNotificationConfig'
    GET_PUSH_CONFIG = 'GetTaskPushNotificationConfig'
    LIST_PUSH_CONFIGS = 'ListTaskPushNotificationConfigs'
    DELETE_PUSH_CONFIG = 'DeleteTaskPushNotificationConfig'
    GET_EXTENDED_AGENT_CARD = 'GetExtendedAgentCard'

    def jsonrpc_name(self, version: str | ProtocolVersion) -> str | None:
        """The wire name in `version` (`message/send` in 0.3); None when the method does
        not exist there (ListTasks in 0.3)."""
        return _vocab_name(_METHOD_VOCAB[parse_protocol_version(version)], _METHOD_NUM[self])


#: C numbers of include/a2a_core.h (tests/test_abi.py checks them against the header).
_METHOD_NUM = dict(zip(Method, range(1, 12)))
_METHOD_BY_NUM = {n: m for m, n in _METHOD_NUM.items()}
#: The vocabulary of each version's JSON-RPC method names, in the order a name is looked up
#: (1.0 first, as the core does).
_METHOD_VOCAB = {ProtocolVersion.V1_0: _lib.A2A_VOCAB_METHOD_JSONRPC_V1_0,
                 ProtocolVersion.V0_3: _lib.A2A_VOCAB_METHOD_JSONRPC_V0_3}


def _method(m: str | Method) -> Method:
    if isinstance(m, Method):
        return m
    try:
        return Method(m)
    except ValueError:
        found = method_from_jsonrpc_name(m)
        if found is None:
            raise error_for(102, f'unknown A2A method {m!r}') from None
        return found[0]


def method_from_jsonrpc_name(name: str) -> tuple[Method, ProtocolVersion] | None:
    """Reads a JSON-RPC method name of either version (`message/send`, `SendMessage`)."""
    for version, vocab in _METHOD_VOCAB.items():
        n = _vocab_parse(vocab, name)
        if n is not None:
            return _METHOD_BY_NUM[n], version
    return None


@dataclass(frozen=True, slots=True)
class Request:
    """A built request: send `http_method` to the interface URL joined with `path`."""

    http_method: str
    #: Empty for JSON-RPC (post to the URL itself), `/...` for HTTP+JSON.
    path: str
    headers: tuple[tuple[str, str], ...]
    body: bytes
    method: Method
    #: The JSON-RPC id the response must echo (pass it to classify as request_id).
    rpc_id: str | None

    def json(self) -> Any:
        """The body as JSON (None when empty)."""
        return json.loads(self.body) if self.body else None


class _Built(Owned):
    """Owns an `a2a_request *` for one build."""

    _slot = 'h'
    _free = _lib.lib.a2a_request_free

    def __init__(self) -> None:
        h = ctypes.c_void_p()
        check(_lib.lib.a2a_request_new(ctypes.byref(h)))
        self.h = h.value or 0

    def check(self, rc: int) -> None:
        if rc:
            raise error_for(rc, _lib.view_str(_lib.lib.a2a_request_last_error(self.h)))

    def read(self) -> Request:
        L, h = _lib.lib, self.h
        headers = []
        k, v = _lib.Str(), _lib.Str()
        for i in range(L.a2a_request_header_count(h)):
            check(L.a2a_request_header(h, i, ctypes.byref(k), ctypes.byref(v)))
            headers.append((_lib.view_str(k) or '', _lib.view_str(v) or ''))
        m = ctypes.c_uint32()
        if not L.a2a_request_a2a_method(h, ctypes.byref(m)):
            raise error_for(102, 'the request handle holds no request')
        return Request(
            http_method=_lib.view_str(L.a2a_request_http_method(h)) or '',
            path=_lib.view_str(L.a2a_request_path(h)) or '',
            headers=tuple(headers),
            body=_lib.view_bytes(L.a2a_request_body(h)) or b'',
            method=_METHOD_BY_NUM[m.value],
            rpc_id=_lib.view_str(L.a2a_request_rpc_id(h)),
        )


class _Args:
    """Keeps the memory of an interface and call options alive during a build."""

    def __init__(
        self,
        version: str | ProtocolVersion,
        binding: str | Binding,
        tenant: str | None,
        id: int | str | None,
        extensions: Sequence[str],
        headers: Mapping[str, str] | Sequence[tuple[str, str]] | None,
    ) -> None:
        t = (tenant or '').encode('utf-8')
        self.keep: list[bytes] = [t]
        self.iface = _lib.Interface(_num(ProtocolVersion)[parse_protocol_version(version)],
                                    _num(Binding)[parse_binding(binding)], t or None, len(t))
        id_kind, id_num, id_s = 0, 0, b''
        if isinstance(id, bool):
            raise TypeError('a JSON-RPC id is an int or a str')
        if isinstance(id, int):
            id_kind, id_num = 1, id
        elif isinstance(id, str):
            id_kind, id_s = 2, id.encode('utf-8')
        exts = [e.encode('utf-8') for e in extensions]
        pairs = list(headers.items() if isinstance(headers, Mapping) else headers or ())
        self.keep += [id_s, *exts]
        earr = (_lib.Str * max(len(exts), 1))()
        for i, e in enumerate(exts):
            earr[i] = _lib.Str(ctypes.cast(ctypes.c_char_p(e), ctypes.c_void_p).value, len(e))
        harr = (_lib.Header * max(len(pairs), 1))()
        for i, (name, value) in enumerate(pairs):
            n, v = name.encode('utf-8'), value.encode('utf-8')
            self.keep += [n, v]
            harr[i] = _lib.Header(n, len(n), v, len(v))
        self.arrays = (earr, harr)
        self.opts = _lib.CallOptions(id_kind, id_num, id_s or None, len(id_s),
                                     earr if exts else None, len(exts),
                                     harr if pairs else None, len(pairs))


def build_request(
    method: str | Method,
    params: Mapping[str, Any] | str | bytes | None = None,
    *,
    version: str | ProtocolVersion,
    binding: str | Binding,
    tenant: str | None = None,
    id: int | str | None = None,
    extensions: Sequence[str] = (),
    headers: Mapping[str, str] | Sequence[tuple[str, str]] | None = None,
) -> Request:
    """Builds the request for `method` (1.0 name, `Method`, or a JSON-RPC name of either
    version) with `params` (a dict, or JSON text) on the interface (`version`, `binding`,
    `tenant`). JSON-RPC needs an `id`. Raises RequestError (with the library's reason)."""
    m = _method(method)
    if params is None:
        body = None
    elif isinstance(params, (str, bytes)):
        body = params.encode('utf-8') if isinstance(params, str) else params
    else:
        body = json.dumps(params).encode('utf-8')
    a = _Args(version, binding, tenant, id, extensions, headers)
    r = _Built()
    r.check(_lib.lib.a2a_request_build(r.h, ctypes.byref(a.iface), _METHOD_NUM[m], body,
                                       len(body) if body else 0, ctypes.byref(a.opts)))
    return r.read()


def build_text_request(
    message_id: str,
    text: str,
    *,
    version: str | ProtocolVersion,
    binding: str | Binding,
    tenant: str | None = None,
    id: int | str | None = None,
    extensions: Sequence[str] = (),
    headers: Mapping[str, str] | Sequence[tuple[str, str]] | None = None,
) -> Request:
    """A `SendMessage` request with one user text part (reuse `message_id` when retrying
    the same message)."""
    a = _Args(version, binding, tenant, id, extensions, headers)
    mi, mn = _lib.enc(message_id)
    t, tn = _lib.enc(text)
    r = _Built()
    r.check(_lib.lib.a2a_request_build_text(r.h, ctypes.byref(a.iface), mi, mn, t, tn,
                                            ctypes.byref(a.opts)))
    return r.read()
