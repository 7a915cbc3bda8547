package dev.a2acore;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.Direct;
import dev.a2acore.internal.Layout;
import dev.a2acore.internal.Scratch;
import dev.a2acore.internal.SizeT;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
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
    /**
     * Read from the library at once for a borrowed outcome, on first use for an owned one
     * (its handle stays valid while this object is reachable); null until read.
     */
    private volatile Optional<String> modelPrefix;
    /** As {@link #modelPrefix}. */
    private volatile Boolean countsTowardBreaker;
    private final int exitCode;
    /** The answer's canonical JSON (null: none), parsed by the first {@link #result()}. */
    private final String resultJson;
    /** The parsed answer; written once (racing first reads parse the same JSON to equal answers). */
    private volatile Optional<Answer> result;
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
                if (Direct.ON) {
                    Direct.a2a_outcome_free(handle);
                } else {
                    A2aCore.lib().a2a_outcome_free(handle);
                }
                handle = null;
            }
        }
    }

    /** Offsets of {@code a2a_outcome_info} (from its JNA mirror, which LayoutTest checks). */
    private static final class Info {
        private static final A2aCoreLibrary.OutcomeInfo M = new A2aCoreLibrary.OutcomeInfo();
        static final int SIZE = M.size();
        static final int CHANNEL = M.offsetOf("channel");
        static final int RETRY = M.offsetOf("retry");
        static final int IS_SUCCESS = M.offsetOf("is_success");
        static final int TERMINAL = M.offsetOf("terminal");
        static final int LEAKED_DETAIL = M.offsetOf("leaked_detail");
        static final int HAS_HTTP_STATUS = M.offsetOf("has_http_status");
        static final int HTTP_STATUS = M.offsetOf("http_status");
        static final int HAS_CODE = M.offsetOf("has_code");
        static final int CODE = M.offsetOf("code");
        static final int HAS_ERROR_NAME = M.offsetOf("has_error_name");
        static final int ERROR_NAME = M.offsetOf("error_name");
        static final int HAS_STATE = M.offsetOf("has_state");
        static final int STATE = M.offsetOf("state");
        static final int HAS_RETRY_AFTER_SECS = M.offsetOf("has_retry_after_secs");
        static final int RETRY_AFTER_SECS = M.offsetOf("retry_after_secs");
        static final int HAS_REMOTE_HINT_RETRYABLE = M.offsetOf("has_remote_hint_retryable");
        static final int REMOTE_HINT_RETRYABLE = M.offsetOf("remote_hint_retryable");
        static final int REMOTE_HINT_COUNT = M.offsetOf("remote_hint_count");
        static final int HAS_REQUEST_SENT = M.offsetOf("has_request_sent");
        static final int REQUEST_SENT = M.offsetOf("request_sent");
        static final int HAS_VERSION = M.offsetOf("has_version");
        static final int VERSION = M.offsetOf("version");
        static final int HAS_BINDING = M.offsetOf("has_binding");
        static final int BINDING = M.offsetOf("binding");
        static final int EXIT_CODE = M.offsetOf("exit_code");
        static final int REASON = M.offsetOf("reason");
        static final int MESSAGE = M.offsetOf("message");
        static final int DATA = M.offsetOf("data");
        static final int TASK_ID = M.offsetOf("task_id");
        static final int CONTEXT_ID = M.offsetOf("context_id");
        static final int TEXT = M.offsetOf("text");
        static final int ERROR_ID = M.offsetOf("error_id");
        static final int HINT = M.offsetOf("hint");
        static final int BODY_EXCERPT = M.offsetOf("body_excerpt");
        static final int CANCEL_ORIGIN = M.offsetOf("cancel_origin");
        static final int RESULT_JSON = M.offsetOf("result_json");
        static final ThreadLocal<Scratch> SCRATCH = Scratch.perThread(SIZE);
    }

    private Outcome(A2aCoreLibrary lib, Pointer h, boolean owned) {
        this(lib, h, owned, null);
    }

    /** {@code release}: when set, frees what keeps {@code h} alive instead of freeing {@code h}. */
    private Outcome(A2aCoreLibrary lib, Pointer h, boolean owned, Runnable release) {
        // One call for every field (a2a_outcome_get_info) into per-thread native memory,
        // read back with one bulk copy (no JNA Structure per outcome).
        Scratch s = Info.SCRATCH.get();
        A2aCoreException.check("a2a_outcome_get_info", Direct.ON ? Direct.a2a_outcome_get_info(h, s.pointer())
            : lib.a2a_outcome_get_info(h, s.pointer()));
        ByteBuffer i = s.read();
        int ch = i.getInt(Info.CHANNEL);
        channel = Channel.fromCode(ch)
            .orElseThrow(() -> new IllegalStateException("outcome with an invalid channel"));
        success = i.get(Info.IS_SUCCESS) != 0;
        httpStatus = i.get(Info.HAS_HTTP_STATUS) != 0
            ? OptionalInt.of(Short.toUnsignedInt(i.getShort(Info.HTTP_STATUS))) : OptionalInt.empty();
        code = i.get(Info.HAS_CODE) != 0 ? OptionalLong.of(i.getLong(Info.CODE)) : OptionalLong.empty();
        errorName = i.get(Info.HAS_ERROR_NAME) != 0 ? ErrorName.fromCode(i.getInt(Info.ERROR_NAME)) : Optional.empty();
        reason = Optional.ofNullable(Scratch.string(i, Info.REASON));
        message = Optional.ofNullable(Scratch.string(i, Info.MESSAGE));
        data = Optional.ofNullable(Scratch.string(i, Info.DATA));
        state = i.get(Info.HAS_STATE) != 0 ? TaskState.fromCode(i.getInt(Info.STATE)) : Optional.empty();
        terminal = i.get(Info.TERMINAL) != 0;
        taskId = Optional.ofNullable(Scratch.string(i, Info.TASK_ID));
        contextId = Optional.ofNullable(Scratch.string(i, Info.CONTEXT_ID));
        text = Optional.ofNullable(Scratch.string(i, Info.TEXT));
        errorId = Optional.ofNullable(Scratch.string(i, Info.ERROR_ID));
        retry = RetryAdvice.fromCode(i.getInt(Info.RETRY))
            .orElseThrow(() -> new IllegalStateException("outcome with an invalid retry advice"));
        retryAfterSecs = i.get(Info.HAS_RETRY_AFTER_SECS) != 0
            ? OptionalLong.of(i.getLong(Info.RETRY_AFTER_SECS)) : OptionalLong.empty();
        hint = Optional.ofNullable(Scratch.string(i, Info.HINT));
        remoteHintRetryable = i.get(Info.HAS_REMOTE_HINT_RETRYABLE) != 0
            ? Optional.of(i.get(Info.REMOTE_HINT_RETRYABLE) != 0) : Optional.empty();
        long n = Layout.sizeT(i, Info.REMOTE_HINT_COUNT);
        requestSent = i.get(Info.HAS_REQUEST_SENT) != 0 ? RequestSent.fromCode(i.getInt(Info.REQUEST_SENT))
            : Optional.empty();
        version = i.get(Info.HAS_VERSION) != 0 ? ProtocolVersion.fromCode(i.getInt(Info.VERSION)) : Optional.empty();
        binding = i.get(Info.HAS_BINDING) != 0 ? Binding.fromCode(i.getInt(Info.BINDING)) : Optional.empty();
        bodyExcerpt = Optional.ofNullable(Scratch.string(i, Info.BODY_EXCERPT));
        leakedDetail = i.get(Info.LEAKED_DETAIL) != 0;
        cancelOrigin = Optional.ofNullable(Scratch.string(i, Info.CANCEL_ORIGIN));
        exitCode = i.getInt(Info.EXIT_CODE);
        // Kept as text; parsed into an Answer on the first result() (most callers of a stream's
        // items never ask for it).
        resultJson = Scratch.string(i, Info.RESULT_JSON);
        // The scratch buffer is free again from here (the calls below may build other outcomes).
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
        remoteHint = pairs.isEmpty() ? Map.of() : Collections.unmodifiableMap(pairs);
        if (!owned) {
            modelPrefix = readModelPrefix(lib, h);
            countsTowardBreaker = readCountsTowardBreaker(lib, h);
        }
        handle = owned ? h : null;
        if (owned) {
            CLEANER.register(this, release != null ? release : new Free(h));
        }
    }

    private static String viewString(Memory m, int at) {
        Pointer p = m.getPointer(at);
        long len = Native.SIZE_T_SIZE == 8 ? m.getLong(at + Native.POINTER_SIZE)
            : Integer.toUnsignedLong(m.getInt(at + Native.POINTER_SIZE));
        return p == null || len == 0 ? "" : new String(p.getByteArray(0, Math.toIntExact(len)), StandardCharsets.UTF_8);
    }

    /**
     * The channel code of a native outcome, read with the one outcome call
     * ({@code a2a_outcome_get_info}, into per-thread native memory) without copying any
     * other field out: for a reader that only routes an event on.
     */
    static int channelCode(A2aCoreLibrary lib, Pointer handle) {
        Scratch s = Info.SCRATCH.get();
        Pointer h = Objects.requireNonNull(handle, "outcome handle");
        A2aCoreException.check("a2a_outcome_get_info", Direct.ON ? Direct.a2a_outcome_get_info(h, s.pointer())
            : lib.a2a_outcome_get_info(h, s.pointer()));
        return s.pointer().getInt(Info.CHANNEL);
    }

    /** Copies a borrowed native outcome out (the handle stays with its owner). */
    static Outcome copy(A2aCoreLibrary lib, Pointer handle) {
        return new Outcome(lib, Objects.requireNonNull(handle, "outcome handle"), false);
    }

    /**
     * Keeps a finished machine call's outcome: every field is copied out now, and the handle
     * (borrowed from the call, which is never touched again) stays readable by
     * {@link #modelText} until this object becomes unreachable; then {@code release} frees
     * the call.
     */
    static Outcome keepingOwner(A2aCoreLibrary lib, Pointer handle, Runnable release) {
        Objects.requireNonNull(handle, "outcome handle");
        try {
            return new Outcome(lib, handle, true, release);
        } catch (RuntimeException | Error e) {
            release.run();
            throw e;
        }
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
     * @throws IllegalStateException for the per-event outcomes of {@link StreamItem}
     *     (borrowed from the stream; use the outcome of the stream's end)
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
        Optional<String> p = modelPrefix;
        if (p == null) {
            synchronized (this) {
                p = readModelPrefix(A2aCore.lib(), handle);
            }
            java.lang.ref.Reference.reachabilityFence(this);
            modelPrefix = p;
        }
        return p;
    }

    private static Optional<String> readModelPrefix(A2aCoreLibrary lib, Pointer h) {
        return Optional.ofNullable(lib.a2a_model_prefix(h).string());
    }

    private static boolean readCountsTowardBreaker(A2aCoreLibrary lib, Pointer h) {
        return (Direct.ON ? Direct.a2a_counts_toward_breaker(h) : lib.a2a_counts_toward_breaker(h)) != 0;
    }

    /** Whether this outcome counts as a failure toward opening a circuit breaker. */
    public boolean countsTowardBreaker() {
        Boolean c = countsTowardBreaker;
        if (c == null) {
            synchronized (this) {
                c = readCountsTowardBreaker(A2aCore.lib(), handle);
            }
            java.lang.ref.Reference.reachabilityFence(this);
            countsTowardBreaker = c;
        }
        return c;
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
        Optional<Answer> r = result;
        if (r == null) {
            r = resultJson == null ? Optional.empty() : Optional.of(Answer.fromJson(resultJson));
            result = r;
        }
        return r;
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
