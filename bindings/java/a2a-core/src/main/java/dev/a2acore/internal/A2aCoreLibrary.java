package dev.a2acore.internal;

import com.sun.jna.Library;
import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import java.nio.charset.StandardCharsets;

/**
 * The raw JNA mapping of {@code include/a2a_core.h}: one method per C function, C types as
 * JNA types ({@code size_t} as {@link SizeT}, {@code bool} results as {@code byte} because
 * a C {@code bool} is one byte, enums as {@code int}, out-parameters as {@link Pointer}s to
 * memory the binding owns). Internal: use the {@code dev.a2acore} API instead.
 *
 * <p>Memory rule: no function here is ever given a pointer into the Java heap that the
 * library could keep. Inputs are native {@link com.sun.jna.Memory} owned by the binding or
 * arrays JNA copies for the duration of the call, and every view is copied out before the
 * next call on the same handle.
 */
public interface A2aCoreLibrary extends Library {

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

    // --- library, results -----------------------------------------------------------

    /** {@code a2a_version}. */
    View a2a_version();

    /** {@code a2a_result_describe}. */
    View a2a_result_describe(int code);

    // --- vocabulary -------------------------------------------------------------------

    /** {@code a2a_channel_to_str}. */
    View a2a_channel_to_str(int channel);

    /** {@code a2a_task_state_to_str}. */
    View a2a_task_state_to_str(int state);

    /** {@code a2a_task_state_parse}. */
    int a2a_task_state_parse(byte[] text, SizeT len, Pointer out);

    /** {@code a2a_task_state_is_terminal}. */
    byte a2a_task_state_is_terminal(int state);

    /** {@code a2a_task_state_is_interrupted}. */
    byte a2a_task_state_is_interrupted(int state);

    /** {@code a2a_retry_to_str}. */
    View a2a_retry_to_str(int retry);

    /** {@code a2a_request_sent_to_str}. */
    View a2a_request_sent_to_str(int sent);

    /** {@code a2a_error_name_to_str}. */
    View a2a_error_name_to_str(int name);

    /** {@code a2a_error_name_parse}. */
    int a2a_error_name_parse(byte[] text, SizeT len, Pointer out);

    /** {@code a2a_protocol_version_parse}. */
    int a2a_protocol_version_parse(byte[] text, SizeT len, Pointer out);

    /** {@code a2a_protocol_version_from_header}. */
    int a2a_protocol_version_from_header(byte[] value, SizeT len, Pointer out);

    /** {@code a2a_protocol_version_to_str}. */
    View a2a_protocol_version_to_str(int version);

    /** {@code a2a_protocol_version_header_value}. */
    View a2a_protocol_version_header_value(int version);

    /** {@code a2a_binding_parse}. */
    int a2a_binding_parse(byte[] text, SizeT len, Pointer out);

    /** {@code a2a_binding_to_str}. */
    View a2a_binding_to_str(int binding);

    // --- outcome --------------------------------------------------------------------

    /** {@code a2a_outcome_transport}. */
    int a2a_outcome_transport(int error, int requestSent, byte[] message, SizeT len, Pointer out);

    /** {@code a2a_outcome_free}. */
    void a2a_outcome_free(Pointer outcome);

    /**
     * {@code a2a_outcome_get_info}: every field in one call (views valid as long as the
     * outcome): the one way to read an outcome.
     */
    int a2a_outcome_get_info(Pointer outcome, OutcomeInfo out);

    /**
     * {@code a2a_outcome_get_info} into native memory of at least {@link OutcomeInfo}'s size
     * (read at its offsets, {@link Scratch}): no Structure allocated or read reflectively.
     */
    int a2a_outcome_get_info(Pointer outcome, Pointer out);

    /** {@code a2a_outcome_remote_hint_pair} (key, value: a2a_str out). */
    int a2a_outcome_remote_hint_pair(Pointer outcome, SizeT index, Pointer key, Pointer value);

    // --- SSE decoder ----------------------------------------------------------------

    /** {@code a2a_sse_decoder_new_with}. */
    int a2a_sse_decoder_new_with(SizeT maxLine, SizeT maxEvent, int atEof, Pointer out);

    /** {@code a2a_sse_decoder_free}. */
    void a2a_sse_decoder_free(Pointer decoder);

    /** {@code a2a_sse_decoder_feed_packed} (out: an {@code a2a_sse_packed}, see {@link Layout}). */
    int a2a_sse_decoder_feed_packed(Pointer decoder, Pointer chunk, SizeT len, Pointer out);

    /** {@code a2a_sse_decoder_finish}. */
    int a2a_sse_decoder_finish(Pointer decoder, SseFinish out);

    /** {@code a2a_sse_decoder_last_event_id}. */
    View a2a_sse_decoder_last_event_id(Pointer decoder);

    /** {@code a2a_sse_decoder_set_last_event_id}. */
    int a2a_sse_decoder_set_last_event_id(Pointer decoder, byte[] id, SizeT len);

    /** {@code a2a_sse_decoder_retry} (out: uint64). */
    byte a2a_sse_decoder_retry(Pointer decoder, Pointer out);

    /** {@code a2a_sse_decoder_reset_for_reconnect}. */
    int a2a_sse_decoder_reset_for_reconnect(Pointer decoder);

    /** {@code a2a_sse_decoder_last_error}. */
    View a2a_sse_decoder_last_error(Pointer decoder);

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

    /** {@code a2a_classify}. */
    int a2a_classify(Response response, Pointer out);

    /** {@code a2a_classify} of an {@code a2a_response} in native memory ({@link NativeArgs#response}). */
    int a2a_classify(Pointer response, Pointer out);

    /** {@code a2a_extract_error_id} (out: a2a_str view into {@code text}). */
    int a2a_extract_error_id(Pointer text, SizeT len, Pointer out);

    /** {@code a2a_leaked_exception} (class, message: a2a_str views into {@code text}). */
    int a2a_leaked_exception(Pointer text, SizeT len, Pointer cls, Pointer message);

    /** {@code a2a_is_event_stream}. */
    byte a2a_is_event_stream(byte[] contentType, SizeT len);

    /** {@code a2a_error_name_of_code}. */
    int a2a_error_name_of_code(long code);

    // --- stream tracker ---------------------------------------------------------------

    /** {@code a2a_stream_tracker_new}. */
    int a2a_stream_tracker_new(Asked asked, long idleTimeoutMs, long nowMs, Pointer out);

    /** {@code a2a_stream_tracker_free}. */
    void a2a_stream_tracker_free(Pointer tracker);

    /** {@code a2a_stream_tracker_on_bytes}. */
    int a2a_stream_tracker_on_bytes(Pointer tracker, long nowMs);

    /** {@code a2a_stream_tracker_on_comment}. */
    int a2a_stream_tracker_on_comment(Pointer tracker, long nowMs);

    /** {@code a2a_stream_tracker_on_event}. */
    int a2a_stream_tracker_on_event(Pointer tracker, long nowMs, byte[] type, SizeT typeLen, byte[] data,
                                    SizeT dataLen, StreamItem out);

    /** {@code a2a_stream_tracker_on_event} into native memory of at least {@link StreamItem}'s size. */
    int a2a_stream_tracker_on_event(Pointer tracker, long nowMs, byte[] type, SizeT typeLen, byte[] data,
                                    SizeT dataLen, Pointer out);

    /** {@code a2a_stream_tracker_next_deadline} (out: uint64). */
    byte a2a_stream_tracker_next_deadline(Pointer tracker, Pointer out);

    /** {@code a2a_stream_tracker_on_timeout}. */
    int a2a_stream_tracker_on_timeout(Pointer tracker, long nowMs, Pointer out);

    /** {@code a2a_stream_tracker_on_non_sse_body}. */
    int a2a_stream_tracker_on_non_sse_body(Pointer tracker, Response response, Pointer out);

    /** {@code a2a_stream_tracker_finish} (kind: uint32 out, outcome out). */
    int a2a_stream_tracker_finish(Pointer tracker, Pointer kind, Pointer out);

    /** {@code a2a_stream_tracker_is_over}. */
    byte a2a_stream_tracker_is_over(Pointer tracker);

    /** {@code a2a_stream_tracker_task_id}. */
    View a2a_stream_tracker_task_id(Pointer tracker);

    /** {@code a2a_stream_tracker_last_state} (out: uint32). */
    byte a2a_stream_tracker_last_state(Pointer tracker, Pointer out);

    /** {@code a2a_stream_tracker_events}. */
    long a2a_stream_tracker_events(Pointer tracker);

    // --- resilience: breaker column, idempotency keys, model text -----------------------

    /** {@code a2a_counts_toward_breaker}. */
    byte a2a_counts_toward_breaker(Pointer outcome);

    /** {@code a2a_derive_idempotency_key} (parts: array of a2a_bytes; buf: caller buffer). */
    int a2a_derive_idempotency_key(Pointer parts, SizeT partsLen, Pointer buf, SizeT bufLen, Pointer written);

    /** {@code a2a_derive_message_id}. */
    int a2a_derive_message_id(Pointer parts, SizeT partsLen, Pointer buf, SizeT bufLen, Pointer written);

    /** {@code a2a_model_text}. */
    int a2a_model_text(byte[] agent, SizeT agentLen, Pointer outcome, Pointer buf, SizeT bufLen, Pointer written);

    /** {@code a2a_model_prefix}. */
    View a2a_model_prefix(Pointer outcome);

    /** {@code a2a_model_instruction}. */
    View a2a_model_instruction();

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

    /** {@code a2a_card_new}. */
    int a2a_card_new(Pointer out);

    /** {@code a2a_card_free}. */
    void a2a_card_free(Pointer card);

    /** {@code a2a_card_parse}. */
    int a2a_card_parse(Pointer card, byte[] bytes, SizeT len);

    /** {@code a2a_card_get_info}. */
    int a2a_card_get_info(Pointer card, CardInfo out);

    /** {@code a2a_card_get_interface}. */
    int a2a_card_get_interface(Pointer card, SizeT index, CardInterface out);

    /** {@code a2a_card_select}. */
    int a2a_card_select(Pointer card, CardPreferences prefs, CardChoice out);

    /** {@code a2a_card_resolve}. */
    int a2a_card_resolve(Pointer card, byte[] cardUrl, SizeT len, CardPreferences prefs, CardPolicy policy,
                         CardResolved out);

    /** {@code a2a_card_choice_explain}. */
    View a2a_card_choice_explain(Pointer card);

    /** {@code a2a_card_credentials}. */
    int a2a_card_credentials(Pointer card, CardCredentialPlan out);

    /** {@code a2a_card_credential_alternative} (need_count: size_t out). */
    int a2a_card_credential_alternative(Pointer card, SizeT alternative, Pointer needCount);

    /** {@code a2a_card_credential_need}. */
    int a2a_card_credential_need(Pointer card, SizeT alternative, SizeT index, CardCredential out);

    /** {@code a2a_card_credential_scope} (out: a2a_str). */
    int a2a_card_credential_scope(Pointer card, SizeT alternative, SizeT index, SizeT scope, Pointer out);

    /** {@code a2a_card_validate_interface_url} (same_origin: bool out). */
    int a2a_card_validate_interface_url(Pointer card, byte[] url, SizeT urlLen, byte[] cardUrl, SizeT cardUrlLen,
                                        CardPolicy policy, Pointer sameOrigin);

    /** {@code a2a_card_location} (primary, fallback: a2a_str out). */
    int a2a_card_location(Pointer card, byte[] input, SizeT len, Pointer primary, Pointer fallback);

    /** {@code a2a_card_last_error}. */
    View a2a_card_last_error(Pointer card);

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

    /** {@code a2a_retry_config_default}. */
    int a2a_retry_config_default(RetryConfig out);

    /** {@code a2a_retry_policy_new}. */
    int a2a_retry_policy_new(RetryConfig config, long nowMs, Pointer out);

    /** {@code a2a_retry_policy_free}. */
    void a2a_retry_policy_free(Pointer policy);

    /** {@code a2a_retry_policy_begin_attempt}. */
    int a2a_retry_policy_begin_attempt(Pointer policy, long nowMs);

    /** {@code a2a_retry_policy_set_task_id}. */
    int a2a_retry_policy_set_task_id(Pointer policy, byte[] taskId, SizeT len);

    /** {@code a2a_retry_policy_task_id}. */
    View a2a_retry_policy_task_id(Pointer policy);

    /** {@code a2a_retry_policy_attempts}. */
    int a2a_retry_policy_attempts(Pointer policy);

    /** {@code a2a_retry_policy_follow_ups}. */
    int a2a_retry_policy_follow_ups(Pointer policy);

    /** {@code a2a_retry_policy_new_tasks}. */
    int a2a_retry_policy_new_tasks(Pointer policy);

    /** {@code a2a_retry_policy_estimate}. */
    long a2a_retry_policy_estimate(Pointer policy);

    /** {@code a2a_retry_policy_remaining} (out: uint64). */
    byte a2a_retry_policy_remaining(Pointer policy, long nowMs, Pointer out);

    /** {@code a2a_retry_policy_is_finished}. */
    byte a2a_retry_policy_is_finished(Pointer policy);

    /** {@code a2a_retry_policy_next}. */
    int a2a_retry_policy_next(Pointer policy, Pointer outcome, long nowMs, long random, RetryAction out);

    /** {@code a2a_breaker_config_default}. */
    int a2a_breaker_config_default(BreakerConfig out);

    /** {@code a2a_breaker_new}. */
    int a2a_breaker_new(byte[] agent, SizeT len, BreakerConfig config, Pointer out);

    /** {@code a2a_breaker_free}. */
    void a2a_breaker_free(Pointer breaker);

    /** {@code a2a_breaker_allow}. */
    byte a2a_breaker_allow(Pointer breaker, long nowMs);

    /** {@code a2a_breaker_refusal}. */
    int a2a_breaker_refusal(Pointer breaker, long nowMs, Pointer out);

    /** {@code a2a_breaker_record}. */
    int a2a_breaker_record(Pointer breaker, Pointer outcome, long nowMs);

    /** {@code a2a_breaker_release}. */
    int a2a_breaker_release(Pointer breaker, long nowMs);

    /** {@code a2a_breaker_snapshot_at}. */
    int a2a_breaker_snapshot_at(Pointer breaker, long nowMs, BreakerSnapshot out);

    /** {@code a2a_breaker_reset}. */
    int a2a_breaker_reset(Pointer breaker);

    /** {@code a2a_give_up_reason_to_str}. */
    View a2a_give_up_reason_to_str(int reason);

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

    /** {@code a2a_client_config_default}. */
    int a2a_client_config_default(ClientConfig out);

    /** {@code a2a_client_new} (out: client, error: outcome). */
    int a2a_client_new(byte[] url, SizeT len, ClientConfig config, Pointer out, Pointer error);

    /** {@code a2a_client_new_with_target}. */
    int a2a_client_new_with_target(byte[] url, SizeT len, int version, int binding, ClientConfig config, Pointer out);

    /** {@code a2a_client_free}. */
    void a2a_client_free(Pointer client);

    /** {@code a2a_client_add_header_hook}. */
    int a2a_client_add_header_hook(Pointer client, HeaderHookCallback hook, Pointer userdata);

    /** {@code a2a_header_setter_set}. */
    int a2a_header_setter_set(Pointer setter, byte[] name, SizeT nameLen, byte[] value, SizeT valueLen);

    /** {@code a2a_client_send_text}. */
    int a2a_client_send_text(Pointer client, byte[] text, SizeT len, ClientCallOptions opts, Pointer out);

    /** {@code a2a_client_get_task}. */
    int a2a_client_get_task(Pointer client, byte[] taskId, SizeT len, ClientCallOptions opts, Pointer out);

    /** {@code a2a_client_cancel_task}. */
    int a2a_client_cancel_task(Pointer client, byte[] taskId, SizeT len, ClientCallOptions opts, Pointer out);

    /** {@code a2a_client_stream_text}. */
    int a2a_client_stream_text(Pointer client, byte[] text, SizeT len, ClientCallOptions opts, Pointer out);

    /** {@code a2a_client_resubscribe}. */
    int a2a_client_resubscribe(Pointer client, byte[] taskId, SizeT len, ClientCallOptions opts, Pointer out);

    /** {@code a2a_client_send_message} (UTF-8 JSON message). */
    int a2a_client_send_message(Pointer client, byte[] message, SizeT len, ClientCallOptions opts, Pointer out);

    /** {@code a2a_client_stream_message} (UTF-8 JSON message). */
    int a2a_client_stream_message(Pointer client, byte[] message, SizeT len, ClientCallOptions opts, Pointer out);

    /** {@code a2a_answer_read}. */
    int a2a_answer_read(byte[] body, SizeT len, int version, int binding, boolean isStream, Pointer buffer);

    /** {@code a2a_client_stream_next}. */
    int a2a_client_stream_next(Pointer stream, ClientStreamEvent out);

    /** {@code a2a_client_stream_next} into native memory of at least {@link ClientStreamEvent}'s size. */
    int a2a_client_stream_next(Pointer stream, Pointer out);

    /** {@code a2a_client_stream_free}. */
    void a2a_client_stream_free(Pointer stream);

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

    /** {@code a2a_request_new}. */
    int a2a_request_new(Pointer out);

    /** {@code a2a_request_free}. */
    void a2a_request_free(Pointer request);

    /** {@code a2a_request_build}. */
    int a2a_request_build(Pointer request, Interface iface, int method, byte[] params, SizeT len, CallOptions opts);

    /** {@code a2a_request_build_text}. */
    int a2a_request_build_text(Pointer request, Interface iface, byte[] messageId, SizeT idLen, byte[] text,
                               SizeT textLen, CallOptions opts);

    /** {@code a2a_request_http_method}. */
    View a2a_request_http_method(Pointer request);

    /** {@code a2a_request_path}. */
    View a2a_request_path(Pointer request);

    /** {@code a2a_request_header_count}. */
    SizeT a2a_request_header_count(Pointer request);

    /** {@code a2a_request_header} (name, value: a2a_str out). */
    int a2a_request_header(Pointer request, SizeT index, Pointer name, Pointer value);

    /** {@code a2a_request_body}. */
    View a2a_request_body(Pointer request);

    /** {@code a2a_request_a2a_method} (out: uint32). */
    byte a2a_request_a2a_method(Pointer request, Pointer out);

    /** {@code a2a_request_rpc_id}. */
    View a2a_request_rpc_id(Pointer request);

    /** {@code a2a_http1_join_target}. */
    int a2a_http1_join_target(Pointer buffer, byte[] basePath, SizeT basePathLen, byte[] relative, SizeT relativeLen);

    /** {@code a2a_http1_write_request} (headers: an {@code a2a_header} array, written: size_t out). */
    int a2a_http1_write_request(Pointer buffer, byte[] method, SizeT methodLen, byte[] target, SizeT targetLen,
                                byte[] host, SizeT hostLen, Pointer headers, SizeT headersLen, byte[] body,
                                SizeT bodyLen, Pointer written);

    /** {@code a2a_request_last_error}. */
    View a2a_request_last_error(Pointer request);

    /** {@code a2a_method_jsonrpc_name}. */
    View a2a_method_jsonrpc_name(int method, int version);

    /** {@code a2a_method_from_jsonrpc_name} (method, version: uint32 out). */
    int a2a_method_from_jsonrpc_name(byte[] name, SizeT len, Pointer method, Pointer version);

    /** {@code a2a_buffer_new}. */
    int a2a_buffer_new(Pointer out);

    /** {@code a2a_buffer_free}. */
    void a2a_buffer_free(Pointer buffer);

    /** {@code a2a_buffer_bytes}. */
    View a2a_buffer_bytes(Pointer buffer);

    /** {@code a2a_buffer_last_error}. */
    View a2a_buffer_last_error(Pointer buffer);

    // --- SSE encoder ------------------------------------------------------------------

    /** {@code a2a_sse_encoder_new}. */
    int a2a_sse_encoder_new(Pointer out);

    /** {@code a2a_sse_encoder_free}. */
    void a2a_sse_encoder_free(Pointer encoder);

    /** {@code a2a_sse_encoder_event}. */
    int a2a_sse_encoder_event(Pointer encoder, byte[] data, SizeT dataLen, byte[] type, SizeT typeLen, byte hasId,
                              byte[] id, SizeT idLen, byte hasRetry, long retryMs);

    /** {@code a2a_sse_encoder_comment}. */
    int a2a_sse_encoder_comment(Pointer encoder, byte[] text, SizeT len);

    /** {@code a2a_sse_encoder_keep_alive}. */
    int a2a_sse_encoder_keep_alive(Pointer encoder);

    /** {@code a2a_sse_encoder_output}. */
    View a2a_sse_encoder_output(Pointer encoder);

    /** {@code a2a_sse_encoder_clear}. */
    int a2a_sse_encoder_clear(Pointer encoder);

    /** {@code a2a_sse_encoder_last_error}. */
    View a2a_sse_encoder_last_error(Pointer encoder);

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

    /** {@code a2a_tally_new}. */
    int a2a_tally_new(Pointer out);

    /** {@code a2a_tally_free}. */
    void a2a_tally_free(Pointer tally);

    /** {@code a2a_tally_record}. */
    int a2a_tally_record(Pointer tally, byte[] agent, SizeT agentLen, byte[] method, SizeT methodLen, Pointer outcome);

    /** {@code a2a_tally_add}. */
    int a2a_tally_add(Pointer tally, byte[] agent, SizeT agentLen, byte[] method, SizeT methodLen, int channel,
                      byte[] code, SizeT codeLen, long n);

    /** {@code a2a_tally_count} (out: uint64). */
    int a2a_tally_count(Pointer tally, byte[] agent, SizeT agentLen, byte[] method, SizeT methodLen, int channel,
                        byte[] code, SizeT codeLen, Pointer out);

    /** {@code a2a_tally_total}. */
    long a2a_tally_total(Pointer tally);

    /** {@code a2a_tally_entry_count}. */
    SizeT a2a_tally_entry_count(Pointer tally);

    /** {@code a2a_tally_get_entry}. */
    int a2a_tally_get_entry(Pointer tally, SizeT index, TallyEntry out);

    /** {@code a2a_tally_render_prometheus} (out: a2a_str). */
    int a2a_tally_render_prometheus(Pointer tally, Pointer out);

    // --- the driver's raw layer (ffi/src/driver_raw.rs) ---------------------------------

    /** {@code a2a_client_new_raw} (out: client). */
    int a2a_client_new_raw(ClientConfig config, Pointer out);

    /** {@code a2a_abort_new} (out: abort). */
    int a2a_abort_new(Pointer out);

    /** {@code a2a_abort_trigger}: may be called from any thread. */
    void a2a_abort_trigger(Pointer abort);

    /** {@code a2a_abort_is_triggered} (C bool). */
    byte a2a_abort_is_triggered(Pointer abort);

    /** {@code a2a_abort_free}. */
    void a2a_abort_free(Pointer abort);

    /** {@code a2a_client_exchange} (out: response, error: outcome). */
    int a2a_client_exchange(Pointer client, byte[] method, SizeT methodLen, byte[] url, SizeT urlLen, Pointer headers,
                            SizeT headersLen, Pointer body, SizeT bodyLen, long timeoutMs, Pointer abort, Pointer out,
                            Pointer error);

    /** {@code a2a_client_open_stream} (out: stream, error: outcome). */
    int a2a_client_open_stream(Pointer client, byte[] method, SizeT methodLen, byte[] url, SizeT urlLen,
                               Pointer headers, SizeT headersLen, Pointer body, SizeT bodyLen, long timeoutMs,
                               Pointer abort, Pointer out, Pointer error);

    /** {@code a2a_raw_response_status}. */
    short a2a_raw_response_status(Pointer response);

    /** {@code a2a_raw_response_header_count}. */
    SizeT a2a_raw_response_header_count(Pointer response);

    /** {@code a2a_raw_response_header} (name, value: a2a_str out-parameters). */
    int a2a_raw_response_header(Pointer response, SizeT index, Pointer name, Pointer value);

    /** {@code a2a_raw_response_body}. */
    View a2a_raw_response_body(Pointer response);

    /** {@code a2a_raw_response_free}. */
    void a2a_raw_response_free(Pointer response);

    /** {@code a2a_raw_stream_head} (borrowed response). */
    Pointer a2a_raw_stream_head(Pointer stream);

    /** {@code a2a_raw_stream_read} (chunk: a2a_bytes out-parameter, error: outcome). */
    int a2a_raw_stream_read(Pointer stream, long idleTimeoutMs, Pointer chunk, Pointer error);

    /** {@code a2a_raw_stream_abort}: may be called from another thread during a read. */
    void a2a_raw_stream_abort(Pointer stream);

    /** {@code a2a_raw_stream_free}. */
    void a2a_raw_stream_free(Pointer stream);

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

    /** {@code a2a_server_request_new}. */
    int a2a_server_request_new(Pointer out);

    /** {@code a2a_server_request_free}. */
    void a2a_server_request_free(Pointer request);

    /** {@code a2a_server_parse_jsonrpc}. */
    int a2a_server_parse_jsonrpc(Pointer request, Pointer headers, SizeT headersLen, Pointer body, SizeT bodyLen,
        ServerOptions opts);

    /** {@code a2a_server_parse_rest}. */
    int a2a_server_parse_rest(Pointer request, Pointer verb, SizeT verbLen, Pointer target, SizeT targetLen,
        Pointer headers, SizeT headersLen, Pointer body, SizeT bodyLen, ServerOptions opts);

    /** {@code a2a_server_request_get_info}. */
    int a2a_server_request_get_info(Pointer request, ServerRequestInfo out);

    /** {@code a2a_server_request_params}. */
    View a2a_server_request_params(Pointer request);

    /** {@code a2a_server_request_extension}. */
    int a2a_server_request_extension(Pointer request, SizeT index, Layout.BytesView out);

    /** {@code a2a_server_request_traceparent}. */
    View a2a_server_request_traceparent(Pointer request);

    /** {@code a2a_server_request_idempotency_key}. */
    View a2a_server_request_idempotency_key(Pointer request);

    /** {@code a2a_server_request_last_error}. */
    View a2a_server_request_last_error(Pointer request);

    /** {@code a2a_server_response_new}. */
    int a2a_server_response_new(Pointer out);

    /** {@code a2a_server_response_free}. */
    void a2a_server_response_free(Pointer response);

    /** {@code a2a_server_response_status}. */
    short a2a_server_response_status(Pointer response);

    /** {@code a2a_server_response_header_count}. */
    SizeT a2a_server_response_header_count(Pointer response);

    /** {@code a2a_server_response_header}. */
    int a2a_server_response_header(Pointer response, SizeT index, Layout.BytesView name, Layout.BytesView value);

    /** {@code a2a_server_response_body}. */
    View a2a_server_response_body(Pointer response);

    /** {@code a2a_server_response_served}. */
    int a2a_server_response_served(Pointer response, Served out);

    /** {@code a2a_server_refusal_response}. */
    int a2a_server_refusal_response(Pointer request, Pointer response);

    /** {@code a2a_server_result_response}. */
    int a2a_server_result_response(Pointer request, Pointer reply, SizeT replyLen, Pointer response);

    /** {@code a2a_server_error_response}. */
    int a2a_server_error_response(Pointer request, int errorName, Pointer message, SizeT messageLen,
        Pointer response);

    /** {@code a2a_server_event_frame}. */
    int a2a_server_event_frame(Pointer request, Pointer event, SizeT eventLen, Pointer out);

    /** {@code a2a_server_error_frame}. */
    int a2a_server_error_frame(Pointer request, int errorName, Pointer message, SizeT messageLen, Pointer out);

    /** {@code a2a_server_failed_frame}. */
    int a2a_server_failed_frame(Pointer request, Pointer taskId, SizeT taskIdLen, Pointer contextId,
        SizeT contextIdLen, Pointer messageId, SizeT messageIdLen, Pointer errorId, SizeT errorIdLen,
        Pointer debugDetail, SizeT debugDetailLen, Pointer out);

    /** {@code a2a_server_failure_text}. */
    int a2a_server_failure_text(Pointer errorId, SizeT errorIdLen, Pointer debugDetail, SizeT debugDetailLen,
        Pointer out);

    /** {@code a2a_server_error_id_from_random}. */
    int a2a_server_error_id_from_random(Pointer random, Pointer out);

    /** {@code a2a_server_stream_header}. */
    int a2a_server_stream_header(SizeT index, Layout.BytesView name, Layout.BytesView value);

    /** {@code a2a_server_keepalive_due}. */
    byte a2a_server_keepalive_due(long intervalMs, long nowMs, long lastWriteMs, Pointer waitMs);

    /** {@code a2a_server_keepalive_comment}. */
    View a2a_server_keepalive_comment();

    /** {@code a2a_server_hint_text}. */
    int a2a_server_hint_text(Pointer retryable, Pointer pairs, SizeT pairsLen, Pointer out);

    /** {@code a2a_server_admission_status}. */
    int a2a_server_admission_status(Pointer taskId, SizeT taskIdLen, Pointer contextId, SizeT contextIdLen,
        Pointer messageId, SizeT messageIdLen, Pointer reason, SizeT reasonLen, Pointer out);

    /** {@code a2a_card_builder_new}. */
    int a2a_card_builder_new(Pointer name, SizeT nameLen, Pointer description, SizeT descriptionLen,
        Pointer version, SizeT versionLen, Pointer out);

    /** {@code a2a_card_builder_free}. */
    void a2a_card_builder_free(Pointer builder);

    /** {@code a2a_card_builder_add_interface}. */
    int a2a_card_builder_add_interface(Pointer builder, Pointer url, SizeT urlLen, int version, int binding);

    /** {@code a2a_card_builder_set_capabilities}. */
    int a2a_card_builder_set_capabilities(Pointer builder, byte streaming, byte pushNotifications);

    /** {@code a2a_card_builder_set_modes}. */
    int a2a_card_builder_set_modes(Pointer builder, Pointer input, SizeT inputLen, Pointer output,
        SizeT outputLen);

    /** {@code a2a_card_builder_add_skill}. */
    int a2a_card_builder_add_skill(Pointer builder, CardSkill skill);

    /** {@code a2a_card_builder_build}. */
    int a2a_card_builder_build(Pointer builder, Pointer out);

    // --- the client machine (machine.rs, machine_config.rs) ------------------------------

    /** {@code a2a_client_config_builder_new} (NULL only after a panic). */
    Pointer a2a_client_config_builder_new();

    /** {@code a2a_client_config_builder_free}. */
    void a2a_client_config_builder_free(Pointer builder);

    /** {@code a2a_client_config_builder_set_call_timeout_ms}. */
    int a2a_client_config_builder_set_call_timeout_ms(Pointer builder, long ms);

    /** {@code a2a_client_config_builder_set_connect_timeout_ms}. */
    int a2a_client_config_builder_set_connect_timeout_ms(Pointer builder, long ms);

    /** {@code a2a_client_config_builder_set_ignore_capabilities}. */
    int a2a_client_config_builder_set_ignore_capabilities(Pointer builder, boolean ignore);

    /** {@code a2a_client_config_builder_set_max_time_ms}. */
    int a2a_client_config_builder_set_max_time_ms(Pointer builder, long ms);

    /** {@code a2a_client_config_builder_set_send_retries}. */
    int a2a_client_config_builder_set_send_retries(Pointer builder, int retries);

    /** {@code a2a_client_config_builder_set_max_response_bytes}. */
    int a2a_client_config_builder_set_max_response_bytes(Pointer builder, long bytes);

    /** {@code a2a_client_config_builder_set_breaker} (NULL: off). */
    int a2a_client_config_builder_set_breaker(Pointer builder, BreakerConfig breaker);

    /** {@code a2a_client_config_builder_set_client_certificate}. */
    int a2a_client_config_builder_set_client_certificate(Pointer builder, boolean present);

    /** {@code a2a_client_config_builder_set_stream_idle_timeout_ms}. */
    int a2a_client_config_builder_set_stream_idle_timeout_ms(Pointer builder, long ms);

    /** {@code a2a_client_config_builder_set_stream_resubscribes}. */
    int a2a_client_config_builder_set_stream_resubscribes(Pointer builder, int attempts);

    /** {@code a2a_client_config_builder_set_allow_http}. */
    int a2a_client_config_builder_set_allow_http(Pointer builder, boolean allow);

    /** {@code a2a_client_config_builder_set_prefer_card_order}. */
    int a2a_client_config_builder_set_prefer_card_order(Pointer builder, boolean cardFirst);

    /** {@code a2a_client_config_builder_set_interface}: version and binding codes, 0 for any. */
    int a2a_client_config_builder_set_interface(Pointer builder, int version, int binding);

    /** {@code a2a_client_config_builder_set_min_protocol}: a version code, 0 for none. */
    int a2a_client_config_builder_set_min_protocol(Pointer builder, int version);

    /**
     * {@code a2a_client_config_builder_set_card_cache}: 0 entries for none; {@code share} NULL
     * for a new cache, else the config whose cache to share.
     */
    int a2a_client_config_builder_set_card_cache(Pointer builder, int maxEntries, Pointer share);

    /** {@code a2a_client_config_builder_build} (out: config). */
    int a2a_client_config_builder_build(Pointer builder, Pointer out);

    /** {@code a2a_machine_config_free}. */
    void a2a_machine_config_free(Pointer config);

    /** {@code a2a_call_settings_new} (NULL only after a panic). */
    Pointer a2a_call_settings_new();

    /** {@code a2a_call_settings_free}. */
    void a2a_call_settings_free(Pointer settings);

    /** {@code a2a_call_settings_set_budget_ms}. */
    int a2a_call_settings_set_budget_ms(Pointer settings, long ms);

    /** {@code a2a_call_settings_set_idempotency_key}. */
    int a2a_call_settings_set_idempotency_key(Pointer settings, byte[] key, SizeT len);

    /** {@code a2a_call_settings_set_traceparent}. */
    int a2a_call_settings_set_traceparent(Pointer settings, byte[] traceparent, SizeT len);

    /** {@code a2a_call_settings_add_header}. */
    int a2a_call_settings_add_header(Pointer settings, byte[] name, SizeT nameLen, byte[] value, SizeT valueLen);

    /** {@code a2a_call_settings_set_stream_idle_timeout_ms} (0: the state's). */
    int a2a_call_settings_set_stream_idle_timeout_ms(Pointer settings, long ms);

    /** {@code a2a_client_state_add_header_hook} (before the state's first call). */
    int a2a_client_state_add_header_hook(Pointer state, HeaderHookCallback hook, Pointer userdata);

    /** {@code a2a_call_settings_set_message_id}. */
    int a2a_call_settings_set_message_id(Pointer settings, byte[] id, SizeT len);

    /** {@code a2a_client_state_new} (out: state). */
    int a2a_client_state_new(Pointer config, byte[] url, SizeT len, int version, int binding, long seed, Pointer out);

    /** {@code a2a_client_state_from_card} (out: state). */
    int a2a_client_state_from_card(Pointer config, Pointer card, long seed, Pointer out);

    /** {@code a2a_client_state_free}. */
    void a2a_client_state_free(Pointer state);

    /** {@code a2a_client_state_adopt_extended_card} (both handles read only). */
    int a2a_client_state_adopt_extended_card(Pointer state, Pointer call);

    /** {@code a2a_call_new_card_fetch} (out: call). */
    int a2a_call_new_card_fetch(Pointer config, byte[] source, SizeT len, Pointer out);

    /** {@code a2a_call_new} (params: UTF-8 JSON or NULL; out: call). */
    int a2a_call_new(Pointer state, int method, byte[] params, SizeT len, Pointer settings, long nowMs, Pointer out);

    /** {@code a2a_call_new_text} (out: call). */
    int a2a_call_new_text(Pointer state, boolean streaming, byte[] text, SizeT len, Pointer settings, long nowMs,
                          Pointer out);

    /** {@code a2a_call_poll_transmit}. */
    int a2a_call_poll_transmit(Pointer call, long nowMs, Machine.Transmit out);

    /** {@code a2a_call_handle_head} (headers: {@code a2a_header} array in binding-owned memory). */
    int a2a_call_handle_head(Pointer call, int requestId, short status, Pointer headers, SizeT len, long nowMs);

    /** {@code a2a_call_handle_body} (chunk: binding-owned native memory). */
    int a2a_call_handle_body(Pointer call, int requestId, Pointer chunk, SizeT len, long nowMs);

    /** {@code a2a_call_handle_end}. */
    int a2a_call_handle_end(Pointer call, int requestId, long nowMs);

    /** {@code a2a_call_handle_failure}. */
    int a2a_call_handle_failure(Pointer call, int requestId, int error, boolean written, byte[] message, SizeT len,
                                long nowMs);

    /** {@code a2a_call_handle_timeout}. */
    int a2a_call_handle_timeout(Pointer call, long nowMs);

    /** {@code a2a_call_cancel}. */
    int a2a_call_cancel(Pointer call, long nowMs);

    /** {@code a2a_call_poll_timeout} (C bool; out: uint64). */
    byte a2a_call_poll_timeout(Pointer call, Pointer out);

    /** {@code a2a_call_poll_event}. */
    int a2a_call_poll_event(Pointer call, Machine.Event out);

    /** {@code a2a_call_free}. */
    void a2a_call_free(Pointer call);

    /** {@code a2a_call_settings_set_return_immediately}. */
    int a2a_call_settings_set_return_immediately(Pointer settings, boolean returnImmediately);

    /** {@code a2a_task_wait_new} (historyLength: negative for none; intervals 0: defaults; out: wait). */
    int a2a_task_wait_new(byte[] taskId, SizeT len, int historyLength, long firstIntervalMs, long maxIntervalMs,
                          long maxTimeMs, long nowMs, Pointer out);

    /** {@code a2a_task_wait_poll} (settings may be NULL; out: call). */
    int a2a_task_wait_poll(Pointer wait, Pointer state, Pointer settings, long nowMs, Pointer out);

    /** {@code a2a_task_wait_read} (outcome: the poll's FINISHED outcome, read only). */
    int a2a_task_wait_read(Pointer wait, Pointer outcome, long nowMs, Machine.WaitStep out);

    /** {@code a2a_task_wait_free}. */
    void a2a_task_wait_free(Pointer wait);

    // --- trust (issue 26: signed cards, push verification, webhook URLs, OAuth2) ------

    /** {@code a2a_trust_canonical} (out: caller buffer, emptied first). */
    int a2a_trust_canonical(byte[] json, SizeT len, boolean cardForm, Pointer out);

    /** {@code a2a_card_signature_verify} (report: caller buffer, JSON). */
    int a2a_card_signature_verify(byte[] card, SizeT cardLen, byte[] keys, SizeT keysLen, Pointer report);

    /** {@code a2a_card_signature_key_url} (extraHosts: comma-separated; urlOut: caller buffer). */
    int a2a_card_signature_key_url(byte[] card, SizeT cardLen, byte[] cardUrl, SizeT cardUrlLen, byte[] extraHosts,
                                   SizeT extraHostsLen, Pointer urlOut);

    /** {@code a2a_card_sign} (jku may be NULL/0; signedOut: caller buffer). */
    int a2a_card_sign(byte[] card, SizeT cardLen, Pointer pem, SizeT pemLen, byte[] kid, SizeT kidLen, byte[] jku,
                      SizeT jkuLen, Pointer signedOut);

    /** {@code a2a_push_verifier_new} (policy and keys may be NULL/0; out: verifier). */
    int a2a_push_verifier_new(byte[] policy, SizeT policyLen, byte[] keys, SizeT keysLen, SizeT replayCapacity,
                              Pointer out);

    /** {@code a2a_push_verifier_check} (headers: an {@code a2a_header} array; verdictOut: caller buffer). */
    int a2a_push_verifier_check(Pointer verifier, Pointer headers, SizeT headerCount, byte[] body, SizeT bodyLen,
                                long nowUnixSecs, Pointer verdictOut);

    /** {@code a2a_push_verifier_free}. */
    void a2a_push_verifier_free(Pointer verifier);

    /** {@code a2a_webhook_url_check} (resolved: comma-separated addresses or NULL/0; reasonOut: caller buffer). */
    int a2a_webhook_url_check(byte[] url, SizeT urlLen, boolean allowHttp, byte[] resolved, SizeT resolvedLen,
                              Pointer reasonOut);

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

    /** {@code a2a_oauth2_new} (out: handle). */
    int a2a_oauth2_new(OAuth2Config config, Pointer out);

    /** {@code a2a_oauth2_token} (tokenOut: caller buffer). */
    int a2a_oauth2_token(Pointer oauth2, long nowMs, Pointer tokenOut);

    /** {@code a2a_oauth2_request} (three caller buffers). */
    int a2a_oauth2_request(Pointer oauth2, Pointer urlOut, Pointer formOut, Pointer authorizationOut);

    /** {@code a2a_oauth2_handle_response} (status 0: transport failure; errorOut: caller buffer). */
    int a2a_oauth2_handle_response(Pointer oauth2, short status, byte[] body, SizeT bodyLen, long nowMs,
                                   Pointer errorOut);

    /** {@code a2a_oauth2_invalidate}. */
    void a2a_oauth2_invalidate(Pointer oauth2);

    /** {@code a2a_oauth2_free}. */
    void a2a_oauth2_free(Pointer oauth2);
}
