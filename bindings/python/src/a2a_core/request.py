"""`Method`: the A2A operations, named as in 1.0, and their JSON-RPC names in each
version. (The requests themselves are built by the library's client machine, which every
client of this package drives.)"""

from __future__ import annotations

import ctypes

from . import _lib
from .errors import check
from .vocab import ProtocolVersion, _num, _Word, _word, parse_protocol_version

__all__ = ['Method', 'method_from_jsonrpc_name']


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
        v = _num(ProtocolVersion)[parse_protocol_version(version)]
        return _lib.view_str(_lib.lib.a2a_method_jsonrpc_name(_METHOD_NUM[self], v))


#: C numbers of include/a2a_core.h (tests/test_abi.py checks them against the header).
_METHOD_NUM = dict(zip(Method, range(1, 12)))
_METHOD_BY_NUM = {n: m for m, n in _METHOD_NUM.items()}


def method_from_jsonrpc_name(name: str) -> tuple[Method, ProtocolVersion] | None:
    """Reads a JSON-RPC method name of either version (`message/send`, `SendMessage`)."""
    b, n = _lib.enc(name)
    m, v = ctypes.c_uint32(), ctypes.c_uint32()
    rc = _lib.lib.a2a_method_from_jsonrpc_name(b, n, ctypes.byref(m), ctypes.byref(v))
    if rc == 2:
        return None
    check(rc)
    return _METHOD_BY_NUM[m.value], _word(ProtocolVersion, v.value)
