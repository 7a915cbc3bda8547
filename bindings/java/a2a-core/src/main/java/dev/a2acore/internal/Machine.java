package dev.a2acore.internal;

import com.sun.jna.Pointer;
import com.sun.jna.Structure;

/**
 * JNA mirrors of the client machine's structs ({@code a2a_transmit}, {@code a2a_correlation},
 * {@code a2a_event}); LayoutTest checks each against the C compiler's layout. Filled by
 * {@code a2a_call_poll_transmit} / {@code a2a_call_poll_event} into memory JNA owns and read
 * back at once: every view in them points into the call and is copied out before the next
 * mutating call on it.
 */
public final class Machine {
    private Machine() {}

    /** {@code a2a_transmit}: one HTTP request to perform. */
    @CStruct("a2a_transmit")
    @Structure.FieldOrder({"request_id", "method", "url", "headers", "headers_len", "body", "connect_by_ms",
        "deadline_ms"})
    public static class Transmit extends Structure {
        /** Names the request in every input about it. */
        public int request_id;
        /** {@code GET}, {@code POST} or {@code DELETE}. */
        public Layout.BytesView method;
        /** The absolute URL. */
        public Layout.BytesView url;
        /** {@code a2a_header} array. */
        public Pointer headers;
        /** Number of headers. */
        public SizeT headers_len;
        /** The body (empty for GET and DELETE). */
        public Layout.BytesView body;
        /** Connect deadline, host clock ms. */
        public long connect_by_ms;
        /** Exchange deadline, host clock ms. */
        public long deadline_ms;
    }

    /** {@code a2a_wait_step}: what comes after a poll of a task wait. */
    @CStruct("a2a_wait_step")
    @Structure.FieldOrder({"kind", "poll_at_ms", "outcome"})
    public static class WaitStep extends Structure {
        /** {@code a2a_wait_step_kind}: 1 poll at, 2 done, 3 gave up. */
        public int kind;
        /** POLL_AT: when to poll next, host clock ms. */
        public long poll_at_ms;
        /** GAVE_UP: an outcome the caller owns (free it); else NULL. */
        public Pointer outcome;
    }

    /** {@code a2a_correlation}: the ids to log on both sides of a call. */
    @CStruct("a2a_correlation")
    @Structure.FieldOrder({"agent", "method", "jsonrpc_id", "message_id", "task_id", "context_id", "error_id",
        "traceparent", "idempotency_key", "elapsed_ms", "attempts"})
    public static class Correlation extends Structure {
        /** The agent's name. */
        public Layout.BytesView agent;
        /** The A2A method. */
        public Layout.BytesView method;
        /** The last JSON-RPC id. */
        public Layout.BytesView jsonrpc_id;
        /** The messageId sent. */
        public Layout.BytesView message_id;
        /** The task id. */
        public Layout.BytesView task_id;
        /** The context id. */
        public Layout.BytesView context_id;
        /** The agent's error id. */
        public Layout.BytesView error_id;
        /** The traceparent sent. */
        public Layout.BytesView traceparent;
        /** The Idempotency-Key sent. */
        public Layout.BytesView idempotency_key;
        /** Call start to end, ms. */
        public long elapsed_ms;
        /** Requests made. */
        public int attempts;
    }

    /** {@code a2a_event}: one event of a call. */
    @CStruct("a2a_event")
    @Structure.FieldOrder({"kind", "request_id", "attempt", "delay_ms", "task_id", "outcome", "item", "answer_json",
        "exit_code", "correlation", "has_response", "response_status", "response_body", "has_end_kind", "end_kind",
        "resubscribes", "dropped_events", "unreadable_events", "card_url", "card_json", "interface_url",
        "interface_version", "interface_binding", "answer_text"})
    public static class Event extends Structure {
        /** {@code a2a_event_kind}. */
        public int kind;
        /** ABORT: the request to drop. */
        public int request_id;
        /** RETRYING / RESUBSCRIBING: the attempt. */
        public int attempt;
        /** RETRYING: the delay, ms. */
        public long delay_ms;
        /** RESUBSCRIBING: the task. */
        public Layout.BytesView task_id;
        /** Borrowed outcome (may be NULL). */
        public Pointer outcome;
        /** ITEM: the item. */
        public A2aCoreLibrary.StreamItem item;
        /** ITEM / FINISHED: canonical answer JSON. */
        public Layout.BytesView answer_json;
        /** FINISHED: the CLI's exit status. */
        public int exit_code;
        /** FINISHED: correlation. */
        public Correlation correlation;
        /** C bool. */
        public byte has_response;
        /** uint16 status. */
        public short response_status;
        /** The last response's body. */
        public Layout.BytesView response_body;
        /** C bool. */
        public byte has_end_kind;
        /** {@code a2a_stream_end_kind}. */
        public int end_kind;
        /** FINISHED stream: resubscribes. */
        public int resubscribes;
        /** FINISHED stream: dropped events. */
        public int dropped_events;
        /** FINISHED stream: unreadable events. */
        public int unreadable_events;
        /** Card fetch: the card URL read. */
        public Layout.BytesView card_url;
        /** Card fetch: the card JSON. */
        public Layout.BytesView card_json;
        /** Card fetch: the chosen interface URL. */
        public Layout.BytesView interface_url;
        /** Card fetch: {@code a2a_protocol_version}. */
        public int interface_version;
        /** Card fetch: {@code a2a_binding}. */
        public int interface_binding;
        /** ITEM / FINISHED: the text. */
        public Layout.BytesView answer_text;
    }

    /** A view's bytes copied out (null when absent). */
    public static byte[] bytes(Layout.BytesView v) {
        if (v == null || v.ptr == null) {
            return null;
        }
        long n = v.len.longValue();
        return n == 0 ? new byte[0] : v.ptr.getByteArray(0, Math.toIntExact(n));
    }

    /** A view as UTF-8 text (null when absent). */
    public static String string(Layout.BytesView v) {
        byte[] b = bytes(v);
        return b == null ? null : new String(b, java.nio.charset.StandardCharsets.UTF_8);
    }
}
