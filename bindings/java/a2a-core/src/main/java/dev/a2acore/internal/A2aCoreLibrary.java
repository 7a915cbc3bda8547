package dev.a2acore.internal;

import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import java.nio.charset.StandardCharsets;

/**
 * The raw JNA mapping of {@code include/a2a_core.h}: one method per C function, inherited
 * from {@link AbiFunctions} (generated from the header by {@code scripts/gen-bindings.py}),
 * C types as JNA types ({@code size_t} as {@link SizeT}, {@code bool} results as
 * {@code byte} because a C {@code bool} is one byte, enums as {@code int}, out-parameters as
 * {@link Pointer}s to memory the binding owns). Hand-written here: the struct mirrors the
 * generated methods name, the callback interface, and overloads taking raw native memory.
 * Internal: use the {@code dev.a2acore} API instead.
 *
 * <p>Memory rule: no function here is ever given a pointer into the Java heap that the
 * library could keep. Inputs are native {@link com.sun.jna.Memory} owned by the binding or
 * arrays JNA copies for the duration of the call, and every view is copied out before the
 * next call on the same handle.
 */
public interface A2aCoreLibrary extends AbiFunctions {

    /** {@code a2a_str}/{@code a2a_bytes} returned by value. */
    @CStruct({"a2a_str", "a2a_bytes"})
    @Structure.FieldOrder({"ptr", "len"})
    class View extends Structure implements Structure.ByValue {
        /**
         * Per thread: the native memory a returned view lands in before JNA copies its two
         * fields into this object (right after the call, on the same thread). A view is only
         * ever a return value, never passed to the library, so nothing reads that memory
         * later; reusing it spares a native allocation and a cleaner registration per call.
         */
        private static final ThreadLocal<com.sun.jna.Memory> LANDING =
            ThreadLocal.withInitial(() -> new com.sun.jna.Memory(16));

        /** Uses the per-thread landing memory when the view fits (see {@link #LANDING}). */
        @Override
        protected com.sun.jna.Memory autoAllocate(int size) {
            com.sun.jna.Memory m = LANDING.get();
            return m.size() >= size ? m : super.autoAllocate(size);
        }

        /** First byte, or NULL when absent. */
        public Pointer ptr;
        /** Number of bytes. */
        public SizeT len;

        /** The view's bytes copied out, or null when absent. */
        public byte[] bytes() {
            if (ptr == null) {
                return null;
            }
            long n = len.longValue();
            return n == 0 ? new byte[0] : ptr.getByteArray(0, Math.toIntExact(n));
        }

        /** The view decoded as UTF-8, or null when absent. */
        public String string() {
            byte[] b = bytes();
            return b == null ? null : new String(b, StandardCharsets.UTF_8);
        }
    }

    /** {@code a2a_sse_finish}, filled by {@code a2a_sse_decoder_finish}. */
    @CStruct("a2a_sse_finish")
    @Structure.FieldOrder({"has_event", "event", "discarded", "discarded_partial_line",
        "discarded_event", "discarded_id", "error", "limit"})
    class SseFinish extends Structure {
        /** C bool. */
        public byte has_event;
        /** The dispatched event. */
        public Layout.SseItem event;
        /** C bool. */
        public byte discarded;
        /** Dropped partial line bytes. */
        public SizeT discarded_partial_line;
        /** C bool. */
        public byte discarded_event;
        /** C bool. */
        public byte discarded_id;
        /** Limit error of the last line, or 0. */
        public int error;
        /** The limit in force. */
        public SizeT limit;
    }

    // --- outcome --------------------------------------------------------------------

    /**
     * {@code a2a_outcome_get_info} into native memory of at least {@link OutcomeInfo}'s size
     * (read at its offsets, {@link Scratch}): no Structure allocated or read reflectively.
     */
    int a2a_outcome_get_info(Pointer outcome, Pointer out);

    // --- classify, error ids ----------------------------------------------------------

    /** {@code a2a_asked}, embedded in {@code a2a_response} and passed to the tracker. */
    @CStruct("a2a_asked")
    @Structure.FieldOrder({"version", "binding", "method", "method_len", "request_id", "request_id_len"})
    class Asked extends Structure {
        /** {@code a2a_protocol_version} or 0. */
        public int version;
        /** {@code a2a_binding} or 0. */
        public int binding;
        /** UTF-8 method (native memory owned by the binding) or NULL. */
        public Pointer method;
        /** Its length. */
        public SizeT method_len;
        /** UTF-8 request id or NULL. */
        public Pointer request_id;
        /** Its length. */
        public SizeT request_id_len;

        /** The C offset of {@code field} (the layout LayoutTest checks), for writes to raw memory. */
        public int offsetOf(String field) {
            return fieldOffset(field);
        }
    }

    /** {@code a2a_response}: every pointer is native memory owned by the binding for the call. */
    @CStruct("a2a_response")
    @Structure.FieldOrder({"status", "content_type", "content_type_len", "retry_after", "retry_after_len",
        "body", "body_len", "asked", "now_unix_seconds"})
    class Response extends Structure {
        /** HTTP status (uint16). */
        public short status;
        /** Content-Type value or NULL. */
        public Pointer content_type;
        /** Its length. */
        public SizeT content_type_len;
        /** Retry-After value or NULL. */
        public Pointer retry_after;
        /** Its length. */
        public SizeT retry_after_len;
        /** Body bytes or NULL. */
        public Pointer body;
        /** Its length. */
        public SizeT body_len;
        /** What was asked. */
        public Asked asked;
        /** The caller's wall clock in Unix seconds, 0 when unknown (uint64; for a Retry-After HTTP-date). */
        public long now_unix_seconds;

        /** The C offset of {@code field} (the layout LayoutTest checks), for writes to raw memory. */
        public int offsetOf(String field) {
            return fieldOffset(field);
        }
    }

    /** {@code a2a_stream_item}, filled by {@code a2a_stream_tracker_on_event}. */
    @CStruct("a2a_stream_item")
    @Structure.FieldOrder({"kind", "outcome", "has_final", "final_flag", "artifact_id", "append", "last_chunk",
        "ends_stream"})
    class StreamItem extends Structure {
        /** {@code a2a_stream_item_kind}. */
        public int kind;
        /** Borrowed outcome. */
        public Pointer outcome;
        /** C bool. */
        public byte has_final;
        /** C bool. */
        public byte final_flag;
        /** Artifact id view. */
        public Layout.BytesView artifact_id;
        /** C bool. */
        public byte append;
        /** C bool. */
        public byte last_chunk;
        /** C bool. */
        public byte ends_stream;

        /** The C offset of {@code field} (the layout LayoutTest checks), for reads from raw memory. */
        public int offsetOf(String field) {
            return fieldOffset(field);
        }
    }

    /** {@code a2a_classify} of an {@code a2a_response} in native memory ({@link NativeArgs#response}). */
    int a2a_classify(Pointer response, Pointer out);

    // --- stream tracker ---------------------------------------------------------------

    /** {@code a2a_stream_tracker_on_event} into native memory of at least {@link StreamItem}'s size. */
    int a2a_stream_tracker_on_event(Pointer tracker, long nowMs, byte[] type, SizeT typeLen, byte[] data,
                                    SizeT dataLen, Pointer out);

    // --- agent cards ------------------------------------------------------------------

    /** {@code a2a_outcome_info}: every field of an outcome, filled by one {@code a2a_outcome_get_info}. */
    @CStruct("a2a_outcome_info")
    @Structure.FieldOrder({"channel", "retry", "is_success", "terminal", "leaked_detail", "has_http_status",
        "http_status", "has_code", "code", "has_error_name", "error_name", "has_state", "state",
        "has_retry_after_secs", "retry_after_secs", "has_remote_hint_retryable", "remote_hint_retryable",
        "remote_hint_count", "has_request_sent", "request_sent", "has_version", "version", "has_binding", "binding",
        "exit_code", "reason", "message", "data", "task_id", "context_id", "text", "error_id", "hint",
        "body_excerpt", "cancel_origin", "result_json"})
    class OutcomeInfo extends Structure {
        /** {@code a2a_channel}. */
        public int channel;
        /** {@code a2a_retry}. */
        public int retry;
        /** C bool. */
        public byte is_success;
        /** C bool. */
        public byte terminal;
        /** C bool. */
        public byte leaked_detail;
        /** C bool: {@code http_status} present. */
        public byte has_http_status;
        /** uint16. */
        public short http_status;
        /** C bool: {@code code} present. */
        public byte has_code;
        /** int64. */
        public long code;
        /** C bool: {@code error_name} present. */
        public byte has_error_name;
        /** {@code a2a_error_name}. */
        public int error_name;
        /** C bool: {@code state} present. */
        public byte has_state;
        /** {@code a2a_task_state}. */
        public int state;
        /** C bool: {@code retry_after_secs} present. */
        public byte has_retry_after_secs;
        /** uint64. */
        public long retry_after_secs;
        /** C bool: {@code remote_hint_retryable} present. */
        public byte has_remote_hint_retryable;
        /** C bool. */
        public byte remote_hint_retryable;
        /** Count ({@code a2a_outcome_remote_hint_pair}). */
        public SizeT remote_hint_count;
        /** C bool: {@code request_sent} present. */
        public byte has_request_sent;
        /** {@code a2a_request_sent}. */
        public int request_sent;
        /** C bool: {@code version} present. */
        public byte has_version;
        /** {@code a2a_protocol_version}. */
        public int version;
        /** C bool: {@code binding} present. */
        public byte has_binding;
        /** {@code a2a_binding}. */
        public int binding;
        /** The CLI's exit status. */
        public int exit_code;
        /** View. */
        public Layout.BytesView reason;
        /** View. */
        public Layout.BytesView message;
        /** View. */
        public Layout.BytesView data;
        /** View. */
        public Layout.BytesView task_id;
        /** View. */
        public Layout.BytesView context_id;
        /** View. */
        public Layout.BytesView text;
        /** View. */
        public Layout.BytesView error_id;
        /** View. */
        public Layout.BytesView hint;
        /** View. */
        public Layout.BytesView body_excerpt;
        /** View. */
        public Layout.BytesView cancel_origin;
        /** View: the answer's canonical JSON, absent when none. */
        public Layout.BytesView result_json;

        /** The C offset of {@code field} (the layout LayoutTest checks), for reads from raw memory. */
        public int offsetOf(String field) {
            return fieldOffset(field);
        }
    }

    /** {@code a2a_card_info}. */
    @CStruct("a2a_card_info")
    @Structure.FieldOrder({"name", "description", "version", "streaming", "push_notifications", "extended_card",
        "shape", "interface_count"})
    class CardInfo extends Structure {
        /** View. */
        public Layout.BytesView name;
        /** View. */
        public Layout.BytesView description;
        /** View. */
        public Layout.BytesView version;
        /** C bool. */
        public byte streaming;
        /** C bool. */
        public byte push_notifications;
        /** C bool. */
        public byte extended_card;
        /** {@code a2a_card_shape}. */
        public int shape;
        /** Count. */
        public SizeT interface_count;
    }

    /** {@code a2a_card_interface}. */
    @CStruct("a2a_card_interface")
    @Structure.FieldOrder({"url", "binding", "protocol_version", "tenant", "origin_list", "origin_index",
        "known_binding", "wire_version"})
    class CardInterface extends Structure {
        /** View. */
        public Layout.BytesView url;
        /** View. */
        public Layout.BytesView binding;
        /** View (absent: not declared). */
        public Layout.BytesView protocol_version;
        /** View (absent: none). */
        public Layout.BytesView tenant;
        /** {@code a2a_interface_list}. */
        public int origin_list;
        /** Position. */
        public SizeT origin_index;
        /** {@code a2a_binding} or 0. */
        public int known_binding;
        /** {@code a2a_protocol_version} or 0. */
        public int wire_version;
    }

    /** {@code a2a_card_preferences}. */
    @CStruct("a2a_card_preferences")
    @Structure.FieldOrder({"versions", "versions_len", "bindings", "bindings_len", "order"})
    class CardPreferences extends Structure {
        /** uint32 array. */
        public Pointer versions;
        /** Length. */
        public SizeT versions_len;
        /** uint32 array. */
        public Pointer bindings;
        /** Length. */
        public SizeT bindings_len;
        /** {@code a2a_selection_order} or 0. */
        public int order;
    }

    /** {@code a2a_card_choice}. */
    @CStruct("a2a_card_choice")
    @Structure.FieldOrder({"url", "version", "declared_version", "binding", "tenant", "index", "origin_list",
        "origin_index", "version_rank", "binding_rank", "order", "skipped_count"})
    class CardChoice extends Structure {
        /** View. */
        public Layout.BytesView url;
        /** {@code a2a_protocol_version}. */
        public int version;
        /** View. */
        public Layout.BytesView declared_version;
        /** {@code a2a_binding}. */
        public int binding;
        /** View. */
        public Layout.BytesView tenant;
        /** Index. */
        public SizeT index;
        /** {@code a2a_interface_list}. */
        public int origin_list;
        /** Position. */
        public SizeT origin_index;
        /** Rank. */
        public SizeT version_rank;
        /** Rank. */
        public SizeT binding_rank;
        /** {@code a2a_selection_order}. */
        public int order;
        /** Count. */
        public SizeT skipped_count;
    }

    /** {@code a2a_card_policy}. */
    @CStruct("a2a_card_policy")
    @Structure.FieldOrder({"allow_http", "allowed_origins", "allowed_origins_len"})
    class CardPolicy extends Structure {
        /** C bool. */
        public byte allow_http;
        /** Array of a2a_str. */
        public Pointer allowed_origins;
        /** Length. */
        public SizeT allowed_origins_len;
    }

    /** {@code a2a_card_resolved}. */
    @CStruct("a2a_card_resolved")
    @Structure.FieldOrder({"choice", "same_origin", "scheme", "host", "port", "path", "host_class"})
    class CardResolved extends Structure {
        /** The choice. */
        public CardChoice choice;
        /** C bool. */
        public byte same_origin;
        /** View. */
        public Layout.BytesView scheme;
        /** View. */
        public Layout.BytesView host;
        /** uint16. */
        public short port;
        /** View. */
        public Layout.BytesView path;
        /** {@code a2a_address_class}. */
        public int host_class;
    }

    /** {@code a2a_card_credential_plan}. */
    @CStruct("a2a_card_credential_plan")
    @Structure.FieldOrder({"alternative_count", "stated"})
    class CardCredentialPlan extends Structure {
        /** Number of alternatives. */
        public SizeT alternative_count;
        /** C bool. */
        public byte stated;
    }

    /** {@code a2a_card_credential}. */
    @CStruct("a2a_card_credential")
    @Structure.FieldOrder({"scheme", "kind", "bearer_source", "bearer_format", "api_key_location", "api_key_name",
        "http_scheme", "header_name", "scope_count"})
    class CardCredential extends Structure {
        /** View. */
        public Layout.BytesView scheme;
        /** {@code a2a_card_credential_kind}. */
        public int kind;
        /** {@code a2a_card_bearer_source} or 0. */
        public int bearer_source;
        /** View (absent: not declared). */
        public Layout.BytesView bearer_format;
        /** {@code a2a_card_api_key_location} or 0. */
        public int api_key_location;
        /** View (absent: not an API key). */
        public Layout.BytesView api_key_name;
        /** View (absent: not another HTTP scheme). */
        public Layout.BytesView http_scheme;
        /** View (absent: no header). */
        public Layout.BytesView header_name;
        /** Number of OAuth scopes. */
        public SizeT scope_count;
    }

    // --- retry policy, circuit breaker ------------------------------------------------

    /** {@code a2a_retry_config}. */
    @CStruct("a2a_retry_config")
    @Structure.FieldOrder({"kind", "max_attempts", "max_follow_ups", "max_new_tasks", "base_delay_ms", "max_delay_ms",
        "honour_retry_after", "max_retry_after_ms", "has_deadline", "deadline_ms", "attempt_estimate_ms", "streaming"})
    class RetryConfig extends Structure {
        /** {@code a2a_call_kind}. */
        public int kind;
        /** uint32. */
        public int max_attempts;
        /** uint32. */
        public int max_follow_ups;
        /** uint32. */
        public int max_new_tasks;
        /** ms. */
        public long base_delay_ms;
        /** ms. */
        public long max_delay_ms;
        /** C bool. */
        public byte honour_retry_after;
        /** ms. */
        public long max_retry_after_ms;
        /** C bool. */
        public byte has_deadline;
        /** ms. */
        public long deadline_ms;
        /** ms. */
        public long attempt_estimate_ms;
        /** C bool. */
        public byte streaming;
    }

    /** {@code a2a_retry_action}. */
    @CStruct("a2a_retry_action")
    @Structure.FieldOrder({"kind", "has_delay", "delay_ms", "task_id", "generation", "give_up", "give_up_text",
        "message_id", "idempotency_key", "jsonrpc_id"})
    class RetryAction extends Structure {
        /** {@code a2a_retry_action_kind}. */
        public int kind;
        /** C bool. */
        public byte has_delay;
        /** ms. */
        public long delay_ms;
        /** View into the policy. */
        public Layout.BytesView task_id;
        /** uint32. */
        public int generation;
        /** {@code a2a_give_up_reason}. */
        public int give_up;
        /** Static text view. */
        public Layout.BytesView give_up_text;
        /** {@code a2a_id_rule}. */
        public int message_id;
        /** {@code a2a_id_rule}. */
        public int idempotency_key;
        /** {@code a2a_id_rule}. */
        public int jsonrpc_id;
    }

    /** {@code a2a_breaker_config}. */
    @CStruct("a2a_breaker_config")
    @Structure.FieldOrder({"failure_threshold", "failure_rate_percent", "min_calls", "window_ms", "buckets",
        "cool_down_ms", "half_open_trials"})
    class BreakerConfig extends Structure {
        /** uint32. */
        public int failure_threshold;
        /** uint8. */
        public byte failure_rate_percent;
        /** uint32. */
        public int min_calls;
        /** ms. */
        public long window_ms;
        /** uint16. */
        public short buckets;
        /** ms. */
        public long cool_down_ms;
        /** uint32. */
        public int half_open_trials;
    }

    /** {@code a2a_breaker_snapshot}. */
    @CStruct("a2a_breaker_snapshot")
    @Structure.FieldOrder({"state", "calls_in_window", "failures_in_window", "has_half_open_at", "half_open_at_ms",
        "trials_in_flight", "trial_successes", "times_opened", "refused"})
    class BreakerSnapshot extends Structure {
        /** {@code a2a_breaker_state}. */
        public int state;
        /** uint32. */
        public int calls_in_window;
        /** uint32. */
        public int failures_in_window;
        /** C bool. */
        public byte has_half_open_at;
        /** ms. */
        public long half_open_at_ms;
        /** uint32. */
        public int trials_in_flight;
        /** uint32. */
        public int trial_successes;
        /** uint64. */
        public long times_opened;
        /** uint64. */
        public long refused;
    }

    // --- driver client ----------------------------------------------------------------

    /** {@code a2a_client_config}. */
    @CStruct("a2a_client_config")
    @Structure.FieldOrder({"connect_timeout_ms", "call_timeout_ms", "stream_idle_timeout_ms", "max_response_bytes",
        "pool_idle_timeout_ms", "allow_http", "allow_hosts", "allow_hosts_len", "protocol", "binding",
        "defer_card_resolution", "stream_resubscribe_attempts", "send_retries", "prefer_client_order",
        "breaker_enabled", "breaker", "ca_file", "client_cert_file", "client_key_file", "proxy", "proxy_disabled", "no_proxy", "resolve", "resolve_len", "max_time_ms", "ignore_capabilities",
        "min_protocol"})
    class ClientConfig extends Structure {
        /** ms. */
        public long connect_timeout_ms;
        /** ms. */
        public long call_timeout_ms;
        /** ms. */
        public long stream_idle_timeout_ms;
        /** Bytes. */
        public long max_response_bytes;
        /** ms. */
        public long pool_idle_timeout_ms;
        /** C bool. */
        public byte allow_http;
        /** Array of a2a_str (native memory owned by the binding for the call). */
        public Pointer allow_hosts;
        /** Length. */
        public SizeT allow_hosts_len;
        /** {@code a2a_protocol_version} or 0. */
        public int protocol;
        /** {@code a2a_binding} or 0. */
        public int binding;
        /** C bool. */
        public byte defer_card_resolution;
        /** uint32. */
        public int stream_resubscribe_attempts;
        /** uint32. */
        public int send_retries;
        /** C bool. */
        public byte prefer_client_order;
        /** C bool. */
        public byte breaker_enabled;
        /** {@code a2a_breaker_config}, embedded by value. */
        public BreakerConfig breaker = new BreakerConfig();
        /** View: PEM CA file replacing the system trust store (empty: the system store). */
        public Layout.BytesView ca_file;
        /** View: PEM client certificate chain (empty: none). */
        public Layout.BytesView client_cert_file;
        /** View: its PEM private key. */
        public Layout.BytesView client_key_file;
        /** View: proxy URL for every request (empty: from the environment). */
        public Layout.BytesView proxy;
        /** C bool: never a proxy. */
        public byte proxy_disabled;
        /** View: no-proxy list (empty: from the environment). */
        public Layout.BytesView no_proxy;
        /** Array of a2a_str HOST:PORT:ADDR entries (native memory owned by the binding for the call). */
        public Pointer resolve;
        /** Length. */
        public SizeT resolve_len;
        /** ms, 0: no total deadline. */
        public long max_time_ms;
        /** Send calls the card does not declare. */
        public byte ignore_capabilities;
        /** {@code a2a_protocol_version}: the oldest accepted, or 0 for none. */
        public int min_protocol;
    }

    /** {@code a2a_client_call_options}: every pointer is native memory owned by the binding for the call. */
    @CStruct("a2a_client_call_options")
    @Structure.FieldOrder({"timeout_ms", "idle_timeout_ms", "traceparent", "idempotency_key", "message_id",
        "context_id", "task_id", "headers", "headers_len", "has_history_length", "history_length",
        "return_immediately"})
    class ClientCallOptions extends Structure {
        /** ms, 0: none. */
        public long timeout_ms;
        /** ms, 0: configured. */
        public long idle_timeout_ms;
        /** View. */
        public Layout.BytesView traceparent;
        /** View. */
        public Layout.BytesView idempotency_key;
        /** View. */
        public Layout.BytesView message_id;
        /** View. */
        public Layout.BytesView context_id;
        /** View. */
        public Layout.BytesView task_id;
        /** Array of a2a_header. */
        public Pointer headers;
        /** Length. */
        public SizeT headers_len;
        /** Whether {@code history_length} is set (C {@code bool}: one byte). */
        public byte has_history_length;
        /** uint32, when {@code has_history_length}. */
        public int history_length;
        /** C bool: a send answers at once with the task as it stands. */
        public byte return_immediately;
    }

    /** {@code a2a_client_stream_event}, filled by {@code a2a_client_stream_next}. */
    @CStruct("a2a_client_stream_event")
    @Structure.FieldOrder({"kind", "item", "task_id", "attempt", "has_end_kind", "end_kind", "outcome",
        "resubscribes", "dropped_events", "unreadable_events"})
    class ClientStreamEvent extends Structure {
        /** {@code a2a_client_stream_event_kind}. */
        public int kind;
        /** ITEM: the item. */
        public StreamItem item;
        /** RESUBSCRIBING: the task id. */
        public Layout.BytesView task_id;
        /** RESUBSCRIBING: attempt. */
        public int attempt;
        /** C bool. */
        public byte has_end_kind;
        /** {@code a2a_stream_end_kind}. */
        public int end_kind;
        /** END: borrowed outcome. */
        public Pointer outcome;
        /** END: resubscribes made. */
        public int resubscribes;
        /** END: events dropped over the size limit. */
        public int dropped_events;
        /** END: events that could not be read. */
        public int unreadable_events;

        /** The C offset of {@code field} (the layout LayoutTest checks), for reads from raw memory. */
        public int offsetOf(String field) {
            return fieldOffset(field);
        }
    }

    /** {@code a2a_header_hook}: must never throw into native code. */
    interface HeaderHookCallback extends com.sun.jna.Callback {
        /** Called on the thread making the call; {@code setter} is valid only during the call. */
        void invoke(Pointer userdata, Pointer method, SizeT methodLen, Pointer setter);
    }

    /** {@code a2a_client_stream_next} into native memory of at least {@link ClientStreamEvent}'s size. */
    int a2a_client_stream_next(Pointer stream, Pointer out);

    // --- request builders -------------------------------------------------------------

    /** {@code a2a_interface}. */
    @CStruct("a2a_interface")
    @Structure.FieldOrder({"version", "binding", "tenant", "tenant_len"})
    class Interface extends Structure {
        /** {@code a2a_protocol_version}. */
        public int version;
        /** {@code a2a_binding}. */
        public int binding;
        /** UTF-8 tenant or NULL. */
        public Pointer tenant;
        /** Length. */
        public SizeT tenant_len;
    }

    /** {@code a2a_call_options}: every pointer is native memory owned by the binding for the call. */
    @CStruct("a2a_call_options")
    @Structure.FieldOrder({"id_kind", "id_number", "id_string", "id_string_len", "extensions", "extensions_len",
        "headers", "headers_len"})
    class CallOptions extends Structure {
        /** {@code a2a_rpc_id_kind}. */
        public int id_kind;
        /** int64. */
        public long id_number;
        /** UTF-8. */
        public Pointer id_string;
        /** Length. */
        public SizeT id_string_len;
        /** Array of a2a_str. */
        public Pointer extensions;
        /** Length. */
        public SizeT extensions_len;
        /** Array of a2a_header. */
        public Pointer headers;
        /** Length. */
        public SizeT headers_len;
    }

    // --- tally ------------------------------------------------------------------------

    /** {@code a2a_tally_entry}. */
    @CStruct("a2a_tally_entry")
    @Structure.FieldOrder({"agent", "method", "channel", "code", "count"})
    class TallyEntry extends Structure {
        /** View. */
        public Layout.BytesView agent;
        /** View. */
        public Layout.BytesView method;
        /** {@code a2a_channel}. */
        public int channel;
        /** View. */
        public Layout.BytesView code;
        /** uint64. */
        public long count;
    }

    // --- server side (ffi/src/server.rs, server_hooks.rs) and the card builder -------------

    /** {@code a2a_server_options}. */
    @CStruct("a2a_server_options")
    @Structure.FieldOrder({"v0_3", "v1_0", "bound_addr", "bound_addr_len", "host_names", "host_names_len"})
    class ServerOptions extends Structure {
        /** C bool: serve 0.3. */
        public byte v0_3;
        /** C bool: serve 1.0. */
        public byte v1_0;
        /** UTF-8 bound address, or NULL. */
        public Pointer bound_addr;
        /** Length of {@code bound_addr}. */
        public SizeT bound_addr_len;
        /** Array of a2a_str host names. */
        public Pointer host_names;
        /** Number of host names. */
        public SizeT host_names_len;
    }

    /** {@code a2a_server_request_info}. */
    @CStruct("a2a_server_request_info")
    @Structure.FieldOrder({"version", "binding", "method", "streaming", "rpc_id", "tenant", "extension_count"})
    class ServerRequestInfo extends Structure {
        /** a2a_protocol_version. */
        public int version;
        /** a2a_binding. */
        public int binding;
        /** a2a_method. */
        public int method;
        /** C bool. */
        public byte streaming;
        /** JSON-RPC id as text. */
        public Layout.BytesView rpc_id;
        /** 1.0 tenant. */
        public Layout.BytesView tenant;
        /** Number of extensions. */
        public SizeT extension_count;
    }

    /** {@code a2a_served}. */
    @CStruct("a2a_served")
    @Structure.FieldOrder({"channel", "code", "method"})
    class Served extends Structure {
        /** a2a_channel. */
        public int channel;
        /** Tally code. */
        public Layout.BytesView code;
        /** Method label. */
        public Layout.BytesView method;
    }

    /** {@code a2a_card_skill}. */
    @CStruct("a2a_card_skill")
    @Structure.FieldOrder({"id", "name", "description", "tags", "tags_len", "examples", "examples_len"})
    class CardSkill extends Structure {
        /** Id. */
        public Layout.BytesView id;
        /** Name. */
        public Layout.BytesView name;
        /** Description. */
        public Layout.BytesView description;
        /** Array of a2a_str. */
        public Pointer tags;
        /** Number of tags. */
        public SizeT tags_len;
        /** Array of a2a_str. */
        public Pointer examples;
        /** Number of examples. */
        public SizeT examples_len;
    }

    // --- trust (issue 26: signed cards, push verification, webhook URLs, OAuth2) ------

    /** {@code a2a_oauth2_config}. */
    @CStruct("a2a_oauth2_config")
    @Structure.FieldOrder({"token_url", "card", "client_id", "client_secret", "scope", "basic_auth",
        "refresh_early_ms", "allow_http_loopback"})
    class OAuth2Config extends Structure {
        /** Token endpoint (empty: the card's clientCredentials flow). */
        public Layout.BytesView token_url;
        /** {@code const a2a_card *} or NULL. */
        public Pointer card;
        /** Client id. */
        public Layout.BytesView client_id;
        /** Client secret (copied by the library). */
        public Layout.BytesView client_secret;
        /** Scope (empty: none). */
        public Layout.BytesView scope;
        /** C bool: HTTP Basic client authentication. */
        public byte basic_auth;
        /** Refresh this long before expiry (0: 30000). */
        public long refresh_early_ms;
        /** C bool: plain-http token URL on loopback allowed. */
        public byte allow_http_loopback;
    }

}
