package dev.a2acore;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.Layout;
import dev.a2acore.internal.SizeT;
import java.lang.ref.Cleaner;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * One outcome of an A2A call: exactly one {@link Channel}, the details that channel
 * carries, and what to do next ({@link #retry()}). Immutable: every field is copied out of
 * the native {@code a2a_outcome} when it is made, so there is nothing to close.
 */
public final class Outcome {
    private final Channel channel;
    private final boolean success;
    private final OptionalInt httpStatus;
    private final OptionalLong code;
    private final Optional<ErrorName> errorName;
    private final Optional<String> reason;
    private final Optional<String> message;
    private final Optional<String> data;
    private final Optional<TaskState> state;
    private final boolean terminal;
    private final Optional<String> taskId;
    private final Optional<String> contextId;
    private final Optional<String> text;
    private final Optional<String> errorId;
    private final RetryAdvice retry;
    private final OptionalLong retryAfterSecs;
    private final Optional<String> hint;
    private final Optional<Boolean> remoteHintRetryable;
    private final Map<String, String> remoteHint;
    private final Optional<RequestSent> requestSent;
    private final Optional<ProtocolVersion> version;
    private final Optional<Binding> binding;
    private final Optional<String> bodyExcerpt;
    private final boolean leakedDetail;
    private final Optional<String> cancelOrigin;
    private final Optional<String> modelPrefix;
    private final boolean countsTowardBreaker;
    private final int exitCode;
    private final Optional<Answer> result;
    /** The native outcome, kept for {@link #modelText}; null for borrowed outcomes. */
    private final Pointer handle;

    private static final Cleaner CLEANER = Cleaner.create();

    /** Frees an owned native outcome; never references the Outcome. */
    private static final class Free implements Runnable {
        private Pointer handle;

        Free(Pointer handle) {
            this.handle = handle;
        }

        @Override
        public void run() {
            if (handle != null) {
                A2aCore.lib().a2a_outcome_free(handle);
                handle = null;
            }
        }
    }

    private Outcome(A2aCoreLibrary lib, Pointer h, boolean owned) {
        // One call for every field (a2a_outcome_get_info), instead of one per field.
        A2aCoreLibrary.OutcomeInfo i = new A2aCoreLibrary.OutcomeInfo();
        A2aCoreException.check("a2a_outcome_get_info", lib.a2a_outcome_get_info(h, i));
        channel = Channel.fromCode(i.channel)
            .orElseThrow(() -> new IllegalStateException("outcome with an invalid channel"));
        success = i.is_success != 0;
        httpStatus = i.has_http_status != 0 ? OptionalInt.of(Short.toUnsignedInt(i.http_status)) : OptionalInt.empty();
        code = i.has_code != 0 ? OptionalLong.of(i.code) : OptionalLong.empty();
        errorName = i.has_error_name != 0 ? ErrorName.fromCode(i.error_name) : Optional.empty();
        reason = Optional.ofNullable(string(i.reason));
        message = Optional.ofNullable(string(i.message));
        data = Optional.ofNullable(string(i.data));
        state = i.has_state != 0 ? TaskState.fromCode(i.state) : Optional.empty();
        terminal = i.terminal != 0;
        taskId = Optional.ofNullable(string(i.task_id));
        contextId = Optional.ofNullable(string(i.context_id));
        text = Optional.ofNullable(string(i.text));
        errorId = Optional.ofNullable(string(i.error_id));
        retry = RetryAdvice.fromCode(i.retry)
            .orElseThrow(() -> new IllegalStateException("outcome with an invalid retry advice"));
        retryAfterSecs = i.has_retry_after_secs != 0 ? OptionalLong.of(i.retry_after_secs) : OptionalLong.empty();
        hint = Optional.ofNullable(string(i.hint));
        remoteHintRetryable = i.has_remote_hint_retryable != 0
            ? Optional.of(i.remote_hint_retryable != 0) : Optional.empty();
        long n = i.remote_hint_count.longValue();
        Map<String, String> pairs = new LinkedHashMap<>();
        if (n > 0) {
            int viewSize = Native.POINTER_SIZE + Native.SIZE_T_SIZE;
            Memory kv = new Memory(2L * viewSize);
            for (long k = 0; k < n; k++) {
                A2aCoreException.check("a2a_outcome_remote_hint_pair",
                    lib.a2a_outcome_remote_hint_pair(h, new SizeT(k), kv, kv.share(viewSize)));
                // The first of a repeated key, as the CLI's JSON writes it.
                pairs.putIfAbsent(viewString(kv, 0), viewString(kv, viewSize));
            }
        }
        remoteHint = Collections.unmodifiableMap(pairs);
        requestSent = i.has_request_sent != 0 ? RequestSent.fromCode(i.request_sent) : Optional.empty();
        version = i.has_version != 0 ? ProtocolVersion.fromCode(i.version) : Optional.empty();
        binding = i.has_binding != 0 ? Binding.fromCode(i.binding) : Optional.empty();
        bodyExcerpt = Optional.ofNullable(string(i.body_excerpt));
        leakedDetail = i.leaked_detail != 0;
        cancelOrigin = Optional.ofNullable(string(i.cancel_origin));
        modelPrefix = Optional.ofNullable(lib.a2a_model_prefix(h).string());
        countsTowardBreaker = lib.a2a_counts_toward_breaker(h) != 0;
        exitCode = i.exit_code;
        String json = string(i.result_json);
        result = json == null ? Optional.empty() : Optional.of(Answer.fromJson(json));
        handle = owned ? h : null;
        if (owned) {
            CLEANER.register(this, new Free(h));
        }
    }

    /** A view of the info struct as UTF-8 text, or null when absent. */
    private static String string(Layout.BytesView v) {
        if (v.ptr == null) {
            return null;
        }
        long len = v.len.longValue();
        return len == 0 ? "" : new String(v.ptr.getByteArray(0, Math.toIntExact(len)), StandardCharsets.UTF_8);
    }

    private static String viewString(Memory m, int at) {
        Pointer p = m.getPointer(at);
        long len = Native.SIZE_T_SIZE == 8 ? m.getLong(at + Native.POINTER_SIZE)
            : Integer.toUnsignedLong(m.getInt(at + Native.POINTER_SIZE));
        return p == null || len == 0 ? "" : new String(p.getByteArray(0, Math.toIntExact(len)), StandardCharsets.UTF_8);
    }

    /** Copies a borrowed native outcome out (the handle stays with its owner). */
    static Outcome copy(A2aCoreLibrary lib, Pointer handle) {
        return new Outcome(lib, Objects.requireNonNull(handle, "outcome handle"), false);
    }

    /**
     * Takes ownership of a native outcome: every field is copied out now; the handle is kept
     * (immutable, read only by {@link #modelText}) and freed by a {@link Cleaner} when this
     * object becomes unreachable (also if copying fails).
     */
    static Outcome consume(A2aCoreLibrary lib, Pointer handle) {
        Objects.requireNonNull(handle, "outcome handle");
        try {
            return new Outcome(lib, handle, true);
        } catch (RuntimeException | Error e) {
            lib.a2a_outcome_free(handle);
            throw e;
        }
    }

    /**
     * The one deterministic line the orchestrating model should read for this outcome of a
     * call to {@code agent} ({@code REMOTE_UNKNOWN booking: the request may or may not have
     * been received ...}); empty for a success.
     *
     * @throws IllegalStateException for the per-event outcomes of {@link StreamTracker.Item}
     *     (borrowed from the tracker; use the {@link StreamTracker.End} outcome)
     */
    public Optional<String> modelText(String agent) {
        if (handle == null) {
            throw new IllegalStateException("model text is not available for a stream item's outcome");
        }
        byte[] a = agent.getBytes(StandardCharsets.UTF_8);
        A2aCoreLibrary lib = A2aCore.lib();
        int size = 512;
        for (int attempt = 0; attempt < 2; attempt++) {
            Memory buf = new Memory(size);
            Memory written = new Memory(8);
            int rc;
            synchronized (this) {
                rc = lib.a2a_model_text(a, new SizeT(a.length), handle, buf, new SizeT(size), written);
            }
            java.lang.ref.Reference.reachabilityFence(this);
            long n = Native.SIZE_T_SIZE == 8 ? written.getLong(0) : Integer.toUnsignedLong(written.getInt(0));
            if (rc == A2aCoreException.NONE) {
                return Optional.empty();
            }
            if (rc == A2aCoreException.INSUFFICIENT_SIZE) {
                size = Math.toIntExact(n);
                continue;
            }
            A2aCoreException.check("a2a_model_text", rc);
            return Optional.of(new String(buf.getByteArray(0, (int) n), StandardCharsets.UTF_8));
        }
        throw new IllegalStateException("a2a_model_text asked for a larger buffer twice");
    }

    /** The owned native handle (null for a stream item's borrowed outcome); valid while this object is reachable. */
    Pointer nativeHandle() {
        return handle;
    }

    /** The recommended instruction sentence for the orchestrating model (how to read the lines). */
    public static String modelInstruction() {
        return A2aCore.lib().a2a_model_instruction().string();
    }

    /** The prefix word of the model text ({@code REMOTE_UNKNOWN}, ...); empty for a success. */
    public Optional<String> modelPrefix() {
        return modelPrefix;
    }

    /** Whether this outcome counts as a failure toward opening a circuit breaker. */
    public boolean countsTowardBreaker() {
        return countsTowardBreaker;
    }

    /**
     * The exit status the {@code a2a} command-line tool gives this outcome (the
     * {@code exit_code} column of {@code outcomes.json}), so that Java tools can report the
     * same: 0 success (a message or a COMPLETED task), 3 transport, HTTP or malformed
     * response, 4 protocol error, 5 FAILED task, 6 CANCELED, REJECTED, INPUT_REQUIRED or
     * AUTH_REQUIRED task, 7 a task not in a final state.
     */
    public int exitCode() {
        return exitCode;
    }

    /**
     * The agent's answer, typed: the task or message a client send, get or cancel
     * returned; a stream item's event; a stream end's answer put together from the stream.
     * Empty for other outcomes. {@code result().flatMap(Answer::text)} is the answer's text.
     */
    public Optional<Answer> result() {
        return result;
    }

    /** The outcome's channel. */
    public Channel channel() {
        return channel;
    }

    /** Whether the outcome is a success (a completed task or a direct message). */
    public boolean isSuccess() {
        return success;
    }

    /** The HTTP status, when there was a response. */
    public OptionalInt httpStatus() {
        return httpStatus;
    }

    /** The error code (JSON-RPC {@code error.code} or REST {@code error.code}). */
    public OptionalLong code() {
        return code;
    }

    /** The typed error name (error channels). */
    public Optional<ErrorName> errorName() {
        return errorName;
    }

    /** The {@code google.rpc.ErrorInfo} reason. */
    public Optional<String> reason() {
        return reason;
    }

    /** The error message (protocol or transport). */
    public Optional<String> message() {
        return message;
    }

    /** The JSON-RPC {@code error.data} or REST {@code details}, as raw JSON text. */
    public Optional<String> data() {
        return data;
    }

    /** The normalized task state (task channel). */
    public Optional<TaskState> state() {
        return state;
    }

    /** Whether the task state is terminal. */
    public boolean isTerminal() {
        return terminal;
    }

    /** The task id. */
    public Optional<String> taskId() {
        return taskId;
    }

    /** The context id. */
    public Optional<String> contextId() {
        return contextId;
    }

    /** The text of the task's status message, or of the direct message. */
    public Optional<String> text() {
        return text;
    }

    /** The remote's 12-hex {@code error_id}. */
    public Optional<String> errorId() {
        return errorId;
    }

    /** What to do next. */
    public RetryAdvice retry() {
        return retry;
    }

    /** {@code Retry-After} in seconds, when the response gave one. */
    public OptionalLong retryAfterSecs() {
        return retryAfterSecs;
    }

    /** A version-mismatch or other hint for the caller. */
    public Optional<String> hint() {
        return hint;
    }

    /** The {@code retryable} flag of the remote's own stable hint. */
    public Optional<Boolean> remoteHintRetryable() {
        return remoteHintRetryable;
    }

    /** The {@code key=value} pairs of the remote's stable hint, in order. */
    public Map<String, String> remoteHint() {
        return remoteHint;
    }

    /** For the transport channel: whether the request may have reached the server. */
    public Optional<RequestSent> requestSent() {
        return requestSent;
    }

    /** The protocol version the response was read as. */
    public Optional<ProtocolVersion> version() {
        return version;
    }

    /** The binding the response was read as. */
    public Optional<Binding> binding() {
        return binding;
    }

    /** A bounded excerpt of a non-JSON or unexpected body. */
    public Optional<String> bodyExcerpt() {
        return bodyExcerpt;
    }

    /**
     * Whether a FAILED status text carries exception detail beyond its error id (ADK's debug
     * errors); {@link #modelText} then carries only the error id.
     */
    public boolean leakedDetail() {
        return leakedDetail;
    }

    /**
     * For a CANCELED task, who canceled it: {@code "requested"} (this client sent CancelTask,
     * or the server marked it so), {@code "remote"} or {@code "admission"} (the server's marker).
     */
    public Optional<String> cancelOrigin() {
        return cancelOrigin;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Outcome{channel=").append(channel.wireName());
        httpStatus.ifPresent(s -> sb.append(", http_status=").append(s));
        code.ifPresent(c -> sb.append(", code=").append(c));
        errorName.ifPresent(e -> sb.append(", error=").append(e.wireName()));
        state.ifPresent(s -> sb.append(", state=").append(s.wireName()));
        requestSent.ifPresent(r -> sb.append(", request_sent=").append(r.wireName()));
        sb.append(", retry=").append(retry.wireName());
        retryAfterSecs.ifPresent(r -> sb.append(", retry_after_secs=").append(r));
        errorId.ifPresent(e -> sb.append(", error_id=").append(e));
        message.ifPresent(m -> sb.append(", message=").append(m));
        return sb.append('}').toString();
    }
}
