"""Loading liba2a_core and declaring the C functions this package calls (ctypes).

Nothing here is public API. Every function gets explicit `argtypes`/`restype`, so a wrong
argument type fails in Python instead of corrupting memory, and structs mirror
include/a2a_core.h field for field (tests/test_abi.py checks the header against them).
"""

from __future__ import annotations

import ctypes
import os
import sys
from ctypes import (  # noqa: F401
    POINTER,
    Structure,
    c_bool,
    c_char_p,
    c_int32,
    c_int64,
    c_size_t,
    c_uint16,
    c_uint32,
    c_uint64,
    c_void_p,
)
from collections.abc import Mapping
from pathlib import Path

ENV_VAR = 'A2A_CORE_LIB'

if sys.platform == 'darwin':
    LIB_FILE = 'liba2a_core.dylib'
elif sys.platform == 'win32':
    LIB_FILE = 'a2a_core.dll'
else:
    LIB_FILE = 'liba2a_core.so'


class LibraryNotFoundError(ImportError):
    """liba2a_core could not be found or loaded; the message says where it looked."""


# --- structs (field order and types exactly as in include/a2a_core.h) ---------------------


class Str(Structure):
    """`a2a_str`: UTF-8 view, `ptr == NULL` means absent."""

    _fields_ = [('ptr', c_void_p), ('len', c_size_t)]


class Bytes(Structure):
    """`a2a_bytes`: byte view, `ptr == NULL` means absent."""

    _fields_ = [('ptr', c_void_p), ('len', c_size_t)]


class Asked(Structure):
    """`a2a_asked`."""

    _fields_ = [
        ('version', c_uint32),
        ('binding', c_uint32),
        ('method', c_char_p),
        ('method_len', c_size_t),
        ('request_id', c_char_p),
        ('request_id_len', c_size_t),
    ]


class Response(Structure):
    """`a2a_response`."""

    _fields_ = [
        ('status', c_uint16),
        ('content_type', c_char_p),
        ('content_type_len', c_size_t),
        ('retry_after', c_char_p),
        ('retry_after_len', c_size_t),
        ('body', c_char_p),
        ('body_len', c_size_t),
        ('asked', Asked),
        ('now_unix_seconds', c_uint64),
    ]


class SseItem(Structure):
    """`a2a_sse_item`."""

    _fields_ = [
        ('kind', c_uint32),
        ('event_type', Bytes),
        ('data', Bytes),
        ('id', Bytes),
        ('retry_ms', c_uint64),
        ('error', c_uint32),
        ('limit', c_size_t),
    ]


class SsePacked(Structure):
    """`a2a_sse_packed`."""

    _fields_ = [
        ('bytes', Bytes),
        ('offsets', c_void_p),
        ('event_count', c_size_t),
        ('comment_count', c_size_t),
        ('limit_error_count', c_size_t),
        ('items', c_void_p),
        ('item_count', c_size_t),
    ]


class SseFinish(Structure):
    """`a2a_sse_finish`."""

    _fields_ = [
        ('has_event', c_bool),
        ('event', SseItem),
        ('discarded', c_bool),
        ('discarded_partial_line', c_size_t),
        ('discarded_event', c_bool),
        ('discarded_id', c_bool),
        ('error', c_uint32),
        ('limit', c_size_t),
    ]


class StreamItem(Structure):
    """`a2a_stream_item`."""

    _fields_ = [
        ('kind', c_uint32),
        ('outcome', c_void_p),
        ('has_final', c_bool),
        ('final_flag', c_bool),
        ('artifact_id', Str),
        ('append', c_bool),
        ('last_chunk', c_bool),
        ('ends_stream', c_bool),
    ]


class RetryConfig(Structure):
    """`a2a_retry_config`."""

    _fields_ = [
        ('kind', c_uint32),
        ('max_attempts', c_uint32),
        ('max_follow_ups', c_uint32),
        ('max_new_tasks', c_uint32),
        ('base_delay_ms', c_uint64),
        ('max_delay_ms', c_uint64),
        ('honour_retry_after', c_bool),
        ('max_retry_after_ms', c_uint64),
        ('has_deadline', c_bool),
        ('deadline_ms', c_uint64),
        ('attempt_estimate_ms', c_uint64),
        ('streaming', c_bool),
    ]


class RetryAction(Structure):
    """`a2a_retry_action`."""

    _fields_ = [
        ('kind', c_uint32),
        ('has_delay', c_bool),
        ('delay_ms', c_uint64),
        ('task_id', Str),
        ('generation', c_uint32),
        ('give_up', c_uint32),
        ('give_up_text', Str),
        ('message_id', c_uint32),
        ('idempotency_key', c_uint32),
        ('jsonrpc_id', c_uint32),
    ]


class BreakerConfig(Structure):
    """`a2a_breaker_config`."""

    _fields_ = [
        ('failure_threshold', c_uint32),
        ('failure_rate_percent', ctypes.c_uint8),
        ('min_calls', c_uint32),
        ('window_ms', c_uint64),
        ('buckets', c_uint16),
        ('cool_down_ms', c_uint64),
        ('half_open_trials', c_uint32),
    ]


class BreakerSnapshot(Structure):
    """`a2a_breaker_snapshot`."""

    _fields_ = [
        ('state', c_uint32),
        ('calls_in_window', c_uint32),
        ('failures_in_window', c_uint32),
        ('has_half_open_at', c_bool),
        ('half_open_at_ms', c_uint64),
        ('trials_in_flight', c_uint32),
        ('trial_successes', c_uint32),
        ('times_opened', c_uint64),
        ('refused', c_uint64),
    ]


class CardInfo(Structure):
    """`a2a_card_info`."""

    _fields_ = [
        ('name', Str),
        ('description', Str),
        ('version', Str),
        ('streaming', c_bool),
        ('push_notifications', c_bool),
        ('extended_card', c_bool),
        ('shape', c_uint32),
        ('interface_count', c_size_t),
    ]


class CardCredentialPlan(Structure):
    """`a2a_card_credential_plan`."""

    _fields_ = [('alternative_count', c_size_t), ('stated', c_bool)]


class CardCredential(Structure):
    """`a2a_card_credential`."""

    _fields_ = [
        ('scheme', Str),
        ('kind', c_uint32),
        ('bearer_source', c_uint32),
        ('bearer_format', Str),
        ('api_key_location', c_uint32),
        ('api_key_name', Str),
        ('http_scheme', Str),
        ('header_name', Str),
        ('scope_count', c_size_t),
    ]


class CardInterface(Structure):
    """`a2a_card_interface`."""

    _fields_ = [
        ('url', Str),
        ('binding', Str),
        ('protocol_version', Str),
        ('tenant', Str),
        ('origin_list', c_uint32),
        ('origin_index', c_size_t),
        ('known_binding', c_uint32),
        ('wire_version', c_uint32),
    ]


class CardPreferences(Structure):
    """`a2a_card_preferences`."""

    _fields_ = [
        ('versions', POINTER(c_uint32)),
        ('versions_len', c_size_t),
        ('bindings', POINTER(c_uint32)),
        ('bindings_len', c_size_t),
        ('order', c_uint32),
    ]


class CardChoice(Structure):
    """`a2a_card_choice`."""

    _fields_ = [
        ('url', Str),
        ('version', c_uint32),
        ('declared_version', Str),
        ('binding', c_uint32),
        ('tenant', Str),
        ('index', c_size_t),
        ('origin_list', c_uint32),
        ('origin_index', c_size_t),
        ('version_rank', c_size_t),
        ('binding_rank', c_size_t),
        ('order', c_uint32),
        ('skipped_count', c_size_t),
    ]


class CardPolicy(Structure):
    """`a2a_card_policy`."""

    _fields_ = [
        ('allow_http', c_bool),
        ('allowed_origins', POINTER(Str)),
        ('allowed_origins_len', c_size_t),
    ]


class CardResolved(Structure):
    """`a2a_card_resolved`."""

    _fields_ = [
        ('choice', CardChoice),
        ('same_origin', c_bool),
        ('scheme', Str),
        ('host', Str),
        ('port', c_uint16),
        ('path', Str),
        ('host_class', c_uint32),
    ]


class Header(Structure):
    """`a2a_header`."""

    _fields_ = [
        ('name', c_char_p),
        ('name_len', c_size_t),
        ('value', c_char_p),
        ('value_len', c_size_t),
    ]


class OAuth2Config(Structure):
    """`a2a_oauth2_config` (feature `trust`)."""

    _fields_ = [
        ('token_url', Str),
        ('card', c_void_p),
        ('client_id', Str),
        ('client_secret', Str),
        ('scope', Str),
        ('basic_auth', c_bool),
        ('refresh_early_ms', c_uint64),
        ('allow_http_loopback', c_bool),
    ]


class ClientConfig(Structure):
    """`a2a_client_config`."""

    _fields_ = [
        ('connect_timeout_ms', c_uint64),
        ('call_timeout_ms', c_uint64),
        ('stream_idle_timeout_ms', c_uint64),
        ('max_response_bytes', c_uint64),
        ('pool_idle_timeout_ms', c_uint64),
        ('allow_http', c_bool),
        ('allow_hosts', POINTER(Str)),
        ('allow_hosts_len', c_size_t),
        ('protocol', c_uint32),
        ('binding', c_uint32),
        ('defer_card_resolution', c_bool),
        ('stream_resubscribe_attempts', c_uint32),
        ('send_retries', c_uint32),
        ('prefer_client_order', c_bool),
        ('breaker_enabled', c_bool),
        ('breaker', BreakerConfig),
        ('ca_file', Str),
        ('client_cert_file', Str),
        ('client_key_file', Str),
        ('proxy', Str),
        ('proxy_disabled', c_bool),
        ('no_proxy', Str),
        ('resolve', POINTER(Str)),
        ('resolve_len', c_size_t),
        ('max_time_ms', c_uint64),
        ('ignore_capabilities', c_bool),
        ('min_protocol', c_uint32),
    ]


class ClientCallOptions(Structure):
    """`a2a_client_call_options`."""

    _fields_ = [
        ('timeout_ms', c_uint64),
        ('idle_timeout_ms', c_uint64),
        ('traceparent', Str),
        ('idempotency_key', Str),
        ('message_id', Str),
        ('context_id', Str),
        ('task_id', Str),
        ('headers', POINTER(Header)),
        ('headers_len', c_size_t),
        ('has_history_length', c_bool),
        ('history_length', c_uint32),
        ('return_immediately', c_bool),
    ]


class ClientStreamEvent(Structure):
    """`a2a_client_stream_event`."""

    _fields_ = [
        ('kind', c_uint32),
        ('item', StreamItem),
        ('task_id', Str),
        ('attempt', c_uint32),
        ('has_end_kind', c_bool),
        ('end_kind', c_uint32),
        ('outcome', c_void_p),
        ('resubscribes', c_uint32),
        ('dropped_events', c_uint32),
        ('unreadable_events', c_uint32),
    ]


class OutcomeInfo(Structure):
    """`a2a_outcome_info`: every field of an outcome in one call."""

    _fields_ = [
        ('channel', c_uint32),
        ('retry', c_uint32),
        ('is_success', c_bool),
        ('terminal', c_bool),
        ('leaked_detail', c_bool),
        ('has_http_status', c_bool),
        ('http_status', c_uint16),
        ('has_code', c_bool),
        ('code', c_int64),
        ('has_error_name', c_bool),
        ('error_name', c_uint32),
        ('has_state', c_bool),
        ('state', c_uint32),
        ('has_retry_after_secs', c_bool),
        ('retry_after_secs', c_uint64),
        ('has_remote_hint_retryable', c_bool),
        ('remote_hint_retryable', c_bool),
        ('remote_hint_count', c_size_t),
        ('has_request_sent', c_bool),
        ('request_sent', c_uint32),
        ('has_version', c_bool),
        ('version', c_uint32),
        ('has_binding', c_bool),
        ('binding', c_uint32),
        ('exit_code', c_int32),
        ('reason', Str),
        ('message', Str),
        ('data', Str),
        ('task_id', Str),
        ('context_id', Str),
        ('text', Str),
        ('error_id', Str),
        ('hint', Str),
        ('body_excerpt', Str),
        ('cancel_origin', Str),
        ('result_json', Str),
    ]


class Interface(Structure):
    """`a2a_interface`."""

    _fields_ = [
        ('version', c_uint32),
        ('binding', c_uint32),
        ('tenant', c_char_p),
        ('tenant_len', c_size_t),
    ]


class CallOptions(Structure):
    """`a2a_call_options` (request builders)."""

    _fields_ = [
        ('id_kind', c_uint32),
        ('id_number', c_int64),
        ('id_string', c_char_p),
        ('id_string_len', c_size_t),
        ('extensions', POINTER(Str)),
        ('extensions_len', c_size_t),
        ('headers', POINTER(Header)),
        ('headers_len', c_size_t),
    ]


class Traceparent(Structure):
    """`a2a_traceparent`."""

    _fields_ = [
        ('trace_id', ctypes.c_uint8 * 16),
        ('parent_id', ctypes.c_uint8 * 8),
        ('flags', ctypes.c_uint8),
    ]


class TallyEntry(Structure):
    """`a2a_tally_entry`."""

    _fields_ = [
        ('agent', Str),
        ('method', Str),
        ('channel', c_uint32),
        ('code', Str),
        ('count', c_uint64),
    ]


class ServerOptions(Structure):
    """`a2a_server_options`."""

    _fields_ = [
        ('v0_3', c_bool),
        ('v1_0', c_bool),
        ('bound_addr', c_char_p),
        ('bound_addr_len', c_size_t),
        ('host_names', POINTER(Str)),
        ('host_names_len', c_size_t),
    ]


class ServerRequestInfo(Structure):
    """`a2a_server_request_info`."""

    _fields_ = [
        ('version', c_uint32),
        ('binding', c_uint32),
        ('method', c_uint32),
        ('streaming', c_bool),
        ('rpc_id', Str),
        ('tenant', Str),
        ('extension_count', c_size_t),
    ]


class Served(Structure):
    """`a2a_served`."""

    _fields_ = [('channel', c_uint32), ('code', Str), ('method', Str)]


class CardSkill(Structure):
    """`a2a_card_skill`."""

    _fields_ = [
        ('id', Str),
        ('name', Str),
        ('description', Str),
        ('tags', POINTER(Str)),
        ('tags_len', c_size_t),
        ('examples', POINTER(Str)),
        ('examples_len', c_size_t),
    ]


#: `a2a_header_hook`: (userdata, method, method_len, setter).
HeaderHook = ctypes.CFUNCTYPE(None, c_void_p, c_void_p, c_size_t, c_void_p)


# --- locating the library ------------------------------------------------------------------


def _candidate_roots() -> list[Path]:
    """Directories that may be the repository root: cwd and this file's location, upwards."""
    roots: list[Path] = []
    for start in (Path.cwd(), Path(__file__).resolve().parent):
        for d in (start, *start.parents):
            if (d / 'Cargo.toml').is_file() and (d / 'ffi').is_dir() and d not in roots:
                roots.append(d)
    return roots


def _release_build(root: Path) -> Path:
    target = os.environ.get('CARGO_TARGET_DIR')
    tdir = (root / target) if target else (root / 'target')
    return tdir / 'release' / LIB_FILE


#: The library inside the installed package (put there by the wheel build, setup.py).
BUNDLED = Path(__file__).resolve().parent / LIB_FILE

BUILD_HINT = (
    'install the package with its library (`pip install ./bindings/python` from an a2a-core '
    'checkout builds and bundles it), build it with `cargo build -p a2a-core-ffi --release`, '
    f'or set ${ENV_VAR} to the library file'
)


def find_library() -> Path:
    """The path of the shared library this package loads (see README: Finding the library).

    The rule every binding of a2a-core follows:
    1. `$A2A_CORE_LIB`: the library file itself, or a directory holding it (the only way to
       load a debug build: CI names its build this way).
    2. The library bundled in this package (`a2a_core/liba2a_core.so`, from the wheel).
    3. For development in a checkout: the repository's release build, found from the working
       directory or this package's location (walking up to the directory with `Cargo.toml`
       and `ffi/`), in `$CARGO_TARGET_DIR` or `target/`. Never the debug build.
    """
    explicit = os.environ.get(ENV_VAR)
    if explicit:
        p = Path(explicit)
        if p.is_dir():
            p = p / LIB_FILE
        if p.is_file():
            return p
        raise LibraryNotFoundError(f'${ENV_VAR}={explicit!r}: no such file ({p})')
    if BUNDLED.is_file():
        return BUNDLED
    looked = [str(BUNDLED)]
    for root in _candidate_roots():
        p = _release_build(root)
        if p.is_file():
            return p
        looked.append(str(p))
    raise LibraryNotFoundError(
        f'{LIB_FILE} not found: {BUILD_HINT}. Looked at: {", ".join(looked)}'
    )


def _load() -> tuple[ctypes.CDLL, Path]:
    path = find_library()
    try:
        return ctypes.CDLL(str(path)), path
    except OSError as e:
        raise LibraryNotFoundError(f'cannot load {path}: {e}') from e


lib, LIB_PATH = _load()

_P = POINTER
u8p = c_char_p  # const uint8_t * / const char *: bytes passed without a copy
vp = c_void_p


def _decl(name: str, restype: object, *argtypes: object) -> None:
    try:
        f = getattr(lib, name)
    except AttributeError:
        raise LibraryNotFoundError(
            f'{LIB_PATH} has no symbol {name}: it was built from older sources than this '
            f'package; rebuild it (cargo build -p a2a-core-ffi --release, or reinstall the package)'
        ) from None
    f.restype = restype
    f.argtypes = list(argtypes)


# version / vocabulary
_decl('a2a_version', Str)
_decl('a2a_result_describe', Str, c_uint32)
_decl('a2a_protocol_version_parse', c_uint32, u8p, c_size_t, _P(c_uint32))
_decl('a2a_version_number_parse', c_uint32, u8p, c_size_t, _P(c_uint32), _P(c_uint32))
_decl('a2a_protocol_version_from_header', c_uint32, u8p, c_size_t, _P(c_uint32))
_decl('a2a_protocol_version_to_str', Str, c_uint32)
_decl('a2a_protocol_version_header_value', Str, c_uint32)
_decl('a2a_binding_parse', c_uint32, u8p, c_size_t, _P(c_uint32))
_decl('a2a_binding_to_str', Str, c_uint32)
_decl('a2a_channel_to_str', Str, c_uint32)
_decl('a2a_task_state_to_str', Str, c_uint32)
_decl('a2a_task_state_parse', c_uint32, u8p, c_size_t, _P(c_uint32))
_decl('a2a_task_state_is_terminal', c_bool, c_uint32)
_decl('a2a_task_state_is_interrupted', c_bool, c_uint32)
_decl('a2a_retry_to_str', Str, c_uint32)
_decl('a2a_request_sent_to_str', Str, c_uint32)
_decl('a2a_error_name_to_str', Str, c_uint32)
_decl('a2a_error_name_parse', c_uint32, u8p, c_size_t, _P(c_uint32))
_decl('a2a_error_name_of_code', c_uint32, c_int64)

# outcome
_decl('a2a_outcome_transport', c_uint32, c_uint32, c_uint32, u8p, c_size_t, _P(vp))
_decl('a2a_outcome_free', None, vp)
# the one way to read an outcome: every field (the answer's JSON included) in one struct
_decl('a2a_outcome_get_info', c_uint32, vp, _P(OutcomeInfo))
_decl('a2a_outcome_remote_hint_pair', c_uint32, vp, c_size_t, _P(Str), _P(Str))

# classify and helpers
_decl('a2a_classify', c_uint32, _P(Response), _P(vp))
_decl('a2a_extract_error_id', c_uint32, u8p, c_size_t, _P(Str))
_decl('a2a_leaked_exception', c_uint32, u8p, c_size_t, _P(Str), _P(Str))
_decl('a2a_is_event_stream', c_bool, u8p, c_size_t)

# stream tracker
_decl('a2a_stream_tracker_new', c_uint32, _P(Asked), c_uint64, c_uint64, _P(vp))
_decl('a2a_stream_tracker_free', None, vp)
_decl('a2a_stream_tracker_on_bytes', c_uint32, vp, c_uint64)
_decl('a2a_stream_tracker_on_comment', c_uint32, vp, c_uint64)
_decl('a2a_stream_tracker_on_event', c_uint32, vp, c_uint64, u8p, c_size_t, u8p, c_size_t,
      _P(StreamItem))
_decl('a2a_stream_tracker_next_deadline', c_bool, vp, _P(c_uint64))
_decl('a2a_stream_tracker_on_timeout', c_uint32, vp, c_uint64, _P(vp))
_decl('a2a_stream_tracker_on_non_sse_body', c_uint32, vp, _P(Response), _P(vp))
_decl('a2a_stream_tracker_finish', c_uint32, vp, _P(c_uint32), _P(vp))
_decl('a2a_stream_tracker_is_over', c_bool, vp)
_decl('a2a_stream_tracker_task_id', Str, vp)
_decl('a2a_stream_tracker_last_state', c_bool, vp, _P(c_uint32))
_decl('a2a_stream_tracker_events', c_uint64, vp)

# tally
_decl('a2a_tally_new', c_uint32, _P(vp))
_decl('a2a_tally_free', None, vp)
_decl('a2a_tally_record', c_uint32, vp, u8p, c_size_t, u8p, c_size_t, vp)
_decl('a2a_tally_add', c_uint32, vp, u8p, c_size_t, u8p, c_size_t, c_uint32, u8p, c_size_t,
      c_uint64)
_decl('a2a_tally_count', c_uint32, vp, u8p, c_size_t, u8p, c_size_t, c_uint32, u8p, c_size_t,
      _P(c_uint64))
_decl('a2a_tally_total', c_uint64, vp)
_decl('a2a_tally_render_prometheus', c_uint32, vp, _P(Str))

# SSE decoder / encoder
_decl('a2a_sse_decoder_new_with', c_uint32, c_size_t, c_size_t, c_uint32, _P(vp))
_decl('a2a_sse_decoder_free', None, vp)
_decl('a2a_sse_decoder_feed_packed', c_uint32, vp, u8p, c_size_t, _P(SsePacked))
_decl('a2a_sse_decoder_finish', c_uint32, vp, _P(SseFinish))
_decl('a2a_sse_decoder_last_event_id', Bytes, vp)
_decl('a2a_sse_decoder_set_last_event_id', c_uint32, vp, u8p, c_size_t)
_decl('a2a_sse_decoder_retry', c_bool, vp, _P(c_uint64))
_decl('a2a_sse_decoder_reset_for_reconnect', c_uint32, vp)
_decl('a2a_sse_decoder_last_error', Str, vp)
_decl('a2a_sse_encoder_new', c_uint32, _P(vp))
_decl('a2a_sse_encoder_free', None, vp)
_decl('a2a_sse_encoder_event', c_uint32, vp, u8p, c_size_t, u8p, c_size_t, c_bool, u8p,
      c_size_t, c_bool, c_uint64)
_decl('a2a_sse_encoder_comment', c_uint32, vp, u8p, c_size_t)
_decl('a2a_sse_encoder_keep_alive', c_uint32, vp)
_decl('a2a_sse_encoder_output', Bytes, vp)
_decl('a2a_sse_encoder_clear', c_uint32, vp)
_decl('a2a_sse_encoder_last_error', Str, vp)

# resilience: retry policy, circuit breaker, keys, model text
_decl('a2a_retry_config_default', c_uint32, _P(RetryConfig))
_decl('a2a_retry_policy_new', c_uint32, _P(RetryConfig), c_uint64, _P(vp))
_decl('a2a_retry_policy_free', None, vp)
_decl('a2a_retry_policy_begin_attempt', c_uint32, vp, c_uint64)
_decl('a2a_retry_policy_set_task_id', c_uint32, vp, u8p, c_size_t)
_decl('a2a_retry_policy_task_id', Str, vp)
_decl('a2a_retry_policy_attempts', c_uint32, vp)
_decl('a2a_retry_policy_follow_ups', c_uint32, vp)
_decl('a2a_retry_policy_new_tasks', c_uint32, vp)
_decl('a2a_retry_policy_estimate', c_uint64, vp)
_decl('a2a_retry_policy_remaining', c_bool, vp, c_uint64, _P(c_uint64))
_decl('a2a_retry_policy_is_finished', c_bool, vp)
_decl('a2a_retry_policy_next', c_uint32, vp, vp, c_uint64, c_uint64, _P(RetryAction))
_decl('a2a_breaker_config_default', c_uint32, _P(BreakerConfig))
_decl('a2a_breaker_new', c_uint32, u8p, c_size_t, _P(BreakerConfig), _P(vp))
_decl('a2a_breaker_free', None, vp)
_decl('a2a_breaker_agent', Str, vp)
_decl('a2a_breaker_allow', c_bool, vp, c_uint64)
_decl('a2a_breaker_refusal', c_uint32, vp, c_uint64, _P(vp))
_decl('a2a_breaker_record', c_uint32, vp, vp, c_uint64)
_decl('a2a_breaker_release', c_uint32, vp, c_uint64)
_decl('a2a_breaker_snapshot_at', c_uint32, vp, c_uint64, _P(BreakerSnapshot))
_decl('a2a_breaker_reset', c_uint32, vp)
_decl('a2a_counts_toward_breaker', c_bool, vp)
_decl('a2a_derive_idempotency_key', c_uint32, _P(Bytes), c_size_t, vp, c_size_t,
      _P(c_size_t))
_decl('a2a_derive_message_id', c_uint32, _P(Bytes), c_size_t, vp, c_size_t, _P(c_size_t))
_decl('a2a_model_text', c_uint32, u8p, c_size_t, vp, vp, c_size_t, _P(c_size_t))
_decl('a2a_model_prefix', Str, vp)
_decl('a2a_model_instruction', Str)
_decl('a2a_give_up_reason_to_str', Str, c_uint32)

# agent cards
_decl('a2a_card_new', c_uint32, _P(vp))
_decl('a2a_card_free', None, vp)
_decl('a2a_card_parse', c_uint32, vp, u8p, c_size_t)
_decl('a2a_card_get_info', c_uint32, vp, _P(CardInfo))
_decl('a2a_card_get_interface', c_uint32, vp, c_size_t, _P(CardInterface))
_decl('a2a_card_select', c_uint32, vp, _P(CardPreferences), _P(CardChoice))
_decl('a2a_card_resolve', c_uint32, vp, u8p, c_size_t, _P(CardPreferences), _P(CardPolicy),
      _P(CardResolved))
_decl('a2a_card_choice_explain', Str, vp)
_decl('a2a_card_validate_interface_url', c_uint32, vp, u8p, c_size_t, u8p, c_size_t,
      _P(CardPolicy), _P(c_bool))
_decl('a2a_card_location', c_uint32, vp, u8p, c_size_t, _P(Str), _P(Str))
_decl('a2a_card_last_error', Str, vp)
_decl('a2a_card_credentials', c_uint32, vp, _P(CardCredentialPlan))
_decl('a2a_card_credential_alternative', c_uint32, vp, c_size_t, _P(c_size_t))
_decl('a2a_card_credential_need', c_uint32, vp, c_size_t, c_size_t, _P(CardCredential))
_decl('a2a_card_credential_scope', c_uint32, vp, c_size_t, c_size_t, c_size_t, _P(Str))

# the reference driver (blocking client)
_decl('a2a_client_config_default', c_uint32, _P(ClientConfig))
_decl('a2a_client_new', c_uint32, u8p, c_size_t, _P(ClientConfig), _P(vp), _P(vp))
_decl('a2a_client_new_with_target', c_uint32, u8p, c_size_t, c_uint32, c_uint32,
      _P(ClientConfig), _P(vp))
_decl('a2a_client_free', None, vp)
_decl('a2a_client_add_header_hook', c_uint32, vp, HeaderHook, vp)
_decl('a2a_header_setter_set', c_uint32, vp, u8p, c_size_t, u8p, c_size_t)
for _f in ('send_text', 'send_message', 'get_task', 'cancel_task'):
    _decl(f'a2a_client_{_f}', c_uint32, vp, u8p, c_size_t, _P(ClientCallOptions), _P(vp))
for _f in ('stream_text', 'stream_message', 'resubscribe'):
    _decl(f'a2a_client_{_f}', c_uint32, vp, u8p, c_size_t, _P(ClientCallOptions), _P(vp))
_decl('a2a_client_stream_next', c_uint32, vp, _P(ClientStreamEvent))
# the answer (ffi/src/answer.rs): one canonical JSON rendering (an outcome's is
# OutcomeInfo.result_json)
_decl('a2a_answer_read', c_uint32, u8p, c_size_t, c_uint32, c_uint32, c_bool, vp)
_decl('a2a_buffer_new', c_uint32, _P(vp))
_decl('a2a_buffer_free', None, vp)
_decl('a2a_buffer_bytes', Bytes, vp)
_decl('a2a_buffer_last_error', Str, vp)
_decl('a2a_client_stream_free', None, vp)

# request builders
_decl('a2a_request_new', c_uint32, _P(vp))
_decl('a2a_request_free', None, vp)
_decl('a2a_request_build', c_uint32, vp, _P(Interface), c_uint32, u8p, c_size_t,
      _P(CallOptions))
_decl('a2a_request_build_text', c_uint32, vp, _P(Interface), u8p, c_size_t, u8p, c_size_t,
      _P(CallOptions))
_decl('a2a_request_http_method', Str, vp)
_decl('a2a_request_path', Str, vp)
_decl('a2a_request_header_count', c_size_t, vp)
_decl('a2a_request_header', c_uint32, vp, c_size_t, _P(Str), _P(Str))
_decl('a2a_request_body', Bytes, vp)
_decl('a2a_request_a2a_method', c_bool, vp, _P(c_uint32))
_decl('a2a_request_rpc_id', Str, vp)
_decl('a2a_request_last_error', Str, vp)
_decl('a2a_method_jsonrpc_name', Str, c_uint32, c_uint32)
_decl('a2a_method_from_jsonrpc_name', c_uint32, u8p, c_size_t, _P(c_uint32), _P(c_uint32))

# traceparent
_decl('a2a_traceparent_parse', c_uint32, u8p, c_size_t, _P(Traceparent))
_decl('a2a_traceparent_from_random', c_uint32, u8p, c_bool, _P(Traceparent))
_decl('a2a_traceparent_child', c_uint32, _P(Traceparent), u8p, _P(Traceparent))
_decl('a2a_traceparent_format', c_uint32, _P(Traceparent), vp)

# tally entries
_decl('a2a_tally_entry_count', c_size_t, vp)
_decl('a2a_tally_get_entry', c_uint32, vp, c_size_t, _P(TallyEntry))

# the server side (ffi/src/server.rs, server_hooks.rs) and the card builder (card_builder.rs):
# a2a_core.server
_decl('a2a_server_request_new', c_uint32, _P(vp))
_decl('a2a_server_request_free', None, vp)
_decl('a2a_server_parse_jsonrpc', c_uint32, vp, _P(Header), c_size_t, u8p, c_size_t,
      _P(ServerOptions))
_decl('a2a_server_parse_rest', c_uint32, vp, u8p, c_size_t, u8p, c_size_t, _P(Header), c_size_t,
      u8p, c_size_t, _P(ServerOptions))
_decl('a2a_server_request_get_info', c_uint32, vp, _P(ServerRequestInfo))
_decl('a2a_server_request_params', Bytes, vp)
_decl('a2a_server_request_extension', c_uint32, vp, c_size_t, _P(Str))
_decl('a2a_server_request_traceparent', Str, vp)
_decl('a2a_server_request_idempotency_key', Str, vp)
_decl('a2a_server_request_last_error', Str, vp)
_decl('a2a_server_response_new', c_uint32, _P(vp))
_decl('a2a_server_response_free', None, vp)
_decl('a2a_server_response_status', c_uint16, vp)
_decl('a2a_server_response_header_count', c_size_t, vp)
_decl('a2a_server_response_header', c_uint32, vp, c_size_t, _P(Str), _P(Str))
_decl('a2a_server_response_body', Bytes, vp)
_decl('a2a_server_response_served', c_uint32, vp, _P(Served))
_decl('a2a_server_refusal_response', c_uint32, vp, vp)
_decl('a2a_server_result_response', c_uint32, vp, u8p, c_size_t, vp)
_decl('a2a_server_error_response', c_uint32, vp, c_uint32, u8p, c_size_t, vp)
_decl('a2a_server_event_frame', c_uint32, vp, u8p, c_size_t, vp)
_decl('a2a_server_error_frame', c_uint32, vp, c_uint32, u8p, c_size_t, vp)
_decl('a2a_server_failed_frame', c_uint32, vp, u8p, c_size_t, u8p, c_size_t, u8p, c_size_t,
      u8p, c_size_t, u8p, c_size_t, vp)
_decl('a2a_server_failure_text', c_uint32, u8p, c_size_t, u8p, c_size_t, vp)
_decl('a2a_server_error_id_from_random', c_uint32, u8p, ctypes.c_char_p)
_decl('a2a_server_stream_header', c_uint32, c_size_t, _P(Str), _P(Str))
_decl('a2a_server_keepalive_due', c_bool, c_uint64, c_uint64, c_uint64, _P(c_uint64))
_decl('a2a_server_keepalive_comment', Bytes)
_decl('a2a_server_hint_text', c_uint32, _P(c_bool), _P(Header), c_size_t, vp)
_decl('a2a_server_admission_status', c_uint32, u8p, c_size_t, u8p, c_size_t, u8p, c_size_t,
      u8p, c_size_t, vp)
_decl('a2a_card_builder_new', c_uint32, u8p, c_size_t, u8p, c_size_t, u8p, c_size_t, _P(vp))
_decl('a2a_card_builder_free', None, vp)
_decl('a2a_card_builder_add_interface', c_uint32, vp, u8p, c_size_t, c_uint32, c_uint32)
_decl('a2a_card_builder_set_capabilities', c_uint32, vp, c_bool, c_bool)
_decl('a2a_card_builder_set_modes', c_uint32, vp, _P(Str), c_size_t, _P(Str), c_size_t)
_decl('a2a_card_builder_add_skill', c_uint32, vp, _P(CardSkill))
_decl('a2a_card_builder_build', c_uint32, vp, vp)

# trust (ffi/src/trust.rs, feature `trust`): signed cards, push verification, webhook checks,
# OAuth 2.0 client credentials. Raw declarations; every output goes into an a2a_buffer.
_decl('a2a_trust_canonical', c_uint32, u8p, c_size_t, c_bool, vp)
_decl('a2a_card_signature_verify', c_uint32, u8p, c_size_t, u8p, c_size_t, vp)
_decl('a2a_card_signature_key_url', c_uint32, u8p, c_size_t, u8p, c_size_t, u8p, c_size_t, vp)
_decl('a2a_card_sign', c_uint32, u8p, c_size_t, u8p, c_size_t, u8p, c_size_t, u8p, c_size_t, vp)
_decl('a2a_push_verifier_new', c_uint32, u8p, c_size_t, u8p, c_size_t, c_size_t, _P(vp))
_decl('a2a_push_verifier_check', c_uint32, vp, _P(Header), c_size_t, u8p, c_size_t, c_int64, vp)
_decl('a2a_push_verifier_free', None, vp)
_decl('a2a_webhook_url_check', c_uint32, u8p, c_size_t, c_bool, u8p, c_size_t, vp)
_decl('a2a_oauth2_new', c_uint32, _P(OAuth2Config), _P(vp))
_decl('a2a_oauth2_token', c_uint32, vp, c_uint64, vp)
_decl('a2a_oauth2_request', c_uint32, vp, vp, vp, vp)
_decl('a2a_oauth2_handle_response', c_uint32, vp, c_uint16, u8p, c_size_t, c_uint64, vp)
_decl('a2a_oauth2_invalidate', None, vp)
_decl('a2a_oauth2_free', None, vp)

#: Functions of the header this package deliberately does not bind, with the reason
#: (tests/test_abi.py fails on any other unbound function).
NOT_BOUND: dict[str, str] = {}
# The driver's raw HTTP layer (ffi/src/driver_raw.rs): made for bindings that plug the driver
# under another SDK's HTTP interface (a2a-java's A2AHttpClient); Python callers who want raw
# HTTP have their own stack (httpx), and `Client` covers the A2A calls.
NOT_BOUND.update(
    {
        name: 'driver raw HTTP layer: Python callers use Client or their own HTTP stack'
        for name in (
            'a2a_client_new_raw', 'a2a_client_exchange', 'a2a_client_open_stream',
            'a2a_abort_new', 'a2a_abort_trigger', 'a2a_abort_is_triggered', 'a2a_abort_free',
            'a2a_raw_response_status', 'a2a_raw_response_header_count',
            'a2a_raw_response_header', 'a2a_raw_response_body', 'a2a_raw_response_free',
            'a2a_raw_stream_head', 'a2a_raw_stream_read',
            'a2a_raw_stream_abort', 'a2a_raw_stream_free',
        )
    }
)
# HTTP/1.1 framing and its byte buffer: Python callers have an HTTP stack (httpx, urllib3);
# the binding exposes what sits above HTTP.
NOT_BOUND.update(
    {
        name: 'HTTP/1.1 framing: Python callers use their own HTTP stack'
        for name in (
            'a2a_http1_join_target', 'a2a_http1_limits_default',
            'a2a_http1_response_body_received', 'a2a_http1_response_feed',
            'a2a_http1_response_finish', 'a2a_http1_response_free', 'a2a_http1_response_head',
            'a2a_http1_response_header', 'a2a_http1_response_header_get',
            'a2a_http1_response_informational_skipped', 'a2a_http1_response_is_done',
            'a2a_http1_response_last_error', 'a2a_http1_response_new_with', 'a2a_http1_response_reset',
            'a2a_http1_response_reusable', 'a2a_http1_response_trailer',
            'a2a_http1_response_trailer_count', 'a2a_http1_write_request',
            'a2a_http1_write_request_head',
        )
    }
)

string_at = ctypes.string_at


def view_bytes(v: Str | Bytes) -> bytes | None:
    """Copies a view out (None when absent)."""
    if not v.ptr:
        return None
    return string_at(v.ptr, v.len) if v.len else b''


def view_str(v: Str | Bytes) -> str | None:
    """Copies a UTF-8 view out as str (None when absent)."""
    if not v.ptr:
        return None
    return string_at(v.ptr, v.len).decode('utf-8', 'replace') if v.len else ''


def enc(s: str | bytes | None) -> tuple[bytes | None, int]:
    """A (ptr, len) input pair from text: `(None, 0)` for None."""
    if s is None:
        return None, 0
    b = s.encode('utf-8') if isinstance(s, str) else bytes(s)
    return b, len(b)


# --- the compiled fast path ----------------------------------------------------------------

#: Set (to anything but '' or '0') to run the pure-ctypes code even where the compiled
#: extension is installed (CI runs the suite both ways).
PURE_ENV = 'A2A_CORE_PURE'

#: The compiled extension `a2a_core._speedups` once `enable_speedups` has registered the
#: package's classes with it; None while the ctypes code runs.
SPEEDUPS = None
#: The arguments `enable_speedups` gave the extension's setup (for the tests).
SPEEDUPS_SETUP: tuple[object, ...] = ()
#: Why the fast path is or is not in use (`a2a_core.speedups_status()`).
SPEEDUPS_STATUS = 'not set up yet'


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)
    except OSError:
        return False


def _import_speedups() -> tuple[object | None, str]:
    """The extension module, when it may be used with the library loaded above.

    The extension is linked to the bundled library (rpath `$ORIGIN`). Importing it when
    another library was loaded ($A2A_CORE_LIB naming a debug build, or a checkout's release
    build) would load the bundled copy beside it, and handles of one would reach the other:
    the extension is then not imported at all, and the ctypes code runs on the library the
    discovery rule chose. When it is imported, the address of `a2a_version` it sees must be
    the one ctypes sees: one library, loaded once."""
    flag = os.environ.get(PURE_ENV, '')
    if flag not in ('', '0'):
        return None, f'pure ctypes: ${PURE_ENV}={flag}'
    if not _same_file(LIB_PATH, BUNDLED):
        return None, (f'pure ctypes: the library loaded ({LIB_PATH}) is not the one bundled in '
                      f'the package, which the compiled extension is linked to')
    try:
        from . import _speedups  # type: ignore[attr-defined]
    except ImportError as e:
        return None, f'pure ctypes: the compiled extension is not available ({e})'
    mine = ctypes.cast(lib.a2a_version, c_void_p).value
    if _speedups.library_address() != mine:
        return None, 'pure ctypes: the compiled extension sees another copy of the library'
    return _speedups, f'compiled extension {_speedups.__file__}'


def enable_speedups(outcome: type, stream_item: type, event: type, read_answer: object,
                    tables: tuple[Mapping[int, object], ...],
                    answer: tuple[tuple[type, ...], object, object, object] | None = None,
                    ) -> None:
    """Registers the classes the extension builds (called once, by the package's
    __init__, after every module is loaded) and turns the fast path on when it can run.
    `answer` is (the answer's classes, the json scanner, answer_from_json, the outcome's
    "not read yet" sentinel): the extension then builds answers itself (on first access); those of its classes whose fields are not what it sets
    make it fall back to `read_answer` for every answer."""
    global SPEEDUPS, SPEEDUPS_STATUS
    import dataclasses

    mod, why = _import_speedups()
    if mod is not None:
        # Events may be allocated directly on the CPython versions whose tuple construction
        # for a subclass is exactly "allocate, set the items" (3.10-3.13; 3.14 caches the
        # hash in the tuple, which only tuple's own constructor initialises).
        global SPEEDUPS_SETUP
        direct = sys.implementation.name == 'cpython' and sys.version_info < (3, 14)
        SPEEDUPS_SETUP = (outcome, stream_item, event, read_answer, tables, direct)
        if answer is not None:
            SPEEDUPS_SETUP += answer
        fields, item_fields, answer_fields = mod.setup(*SPEEDUPS_SETUP)  # type: ignore[attr-defined]
        if answer is not None and any(
                names is not None and set(names) != {f.name for f in dataclasses.fields(cls)}
                for cls, names in zip(answer[0], answer_fields)):
            # built for other answer classes: answers are read by read_answer
            SPEEDUPS_SETUP = (outcome, stream_item, event, read_answer, tables, direct)
            mod.setup(*SPEEDUPS_SETUP)  # type: ignore[attr-defined]
        want = {f.name for f in dataclasses.fields(outcome)}
        want_item = {f.name for f in dataclasses.fields(stream_item)}
        if set(fields) != want or set(item_fields) != want_item:
            mod, why = None, ('pure ctypes: the compiled extension was built for other Outcome '
                              'or StreamItem fields')
    SPEEDUPS, SPEEDUPS_STATUS = mod, why
