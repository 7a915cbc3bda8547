"""`Method`: the A2A operations, named as in 1.0, and their JSON-RPC names in each
version. (The requests themselves are built by the library's client machine, which every
client of this package drives.)"""

from __future__ import annotations

from . import _lib
from .vocab import ProtocolVersion, _vocab_name, _vocab_parse, _Word, parse_protocol_version

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
        return _vocab_name(_METHOD_VOCAB[parse_protocol_version(version)], _METHOD_NUM[self])


#: C numbers of include/a2a_core.h (tests/test_abi.py checks them against the header).
_METHOD_NUM = dict(zip(Method, range(1, 12)))
_METHOD_BY_NUM = {n: m for m, n in _METHOD_NUM.items()}
#: The vocabulary of each version's JSON-RPC method names, in the order a name is looked up
#: (1.0 first, as the core does).
_METHOD_VOCAB = {ProtocolVersion.V1_0: _lib.A2A_VOCAB_METHOD_JSONRPC_V1_0,
                 ProtocolVersion.V0_3: _lib.A2A_VOCAB_METHOD_JSONRPC_V0_3}


def method_from_jsonrpc_name(name: str) -> tuple[Method, ProtocolVersion] | None:
    """Reads a JSON-RPC method name of either version (`message/send`, `SendMessage`)."""
    for version, vocab in _METHOD_VOCAB.items():
        n = _vocab_parse(vocab, name)
        if n is not None:
            return _METHOD_BY_NUM[n], version
    return None
