package dev.a2acore;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.Direct;
import dev.a2acore.internal.NativeArgs;
import dev.a2acore.internal.SizeT;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;

/** Makes {@link Outcome}s through liba2a_core. */
public final class Outcomes {
    private Outcomes() {}

    /**
     * A transport-channel outcome, for a caller whose HTTP stack is its own: the call got no
     * HTTP response (connect refused, DNS, timeout, reset, TLS, response too large). The
     * retry advice follows {@code requestSent}: {@code backoff} when the request provably
     * never left, {@code unknown_outcome} otherwise.
     *
     * @throws IllegalArgumentException when {@code error} is not a transport name
     */
    public static Outcome transport(ErrorName error, RequestSent requestSent, String message) {
        if (error.channel() != Channel.TRANSPORT) {
            throw new IllegalArgumentException(error.wireName() + " is not a transport error name");
        }
        A2aCoreLibrary lib = A2aCore.lib();
        byte[] msg = message == null ? new byte[0] : message.getBytes(StandardCharsets.UTF_8);
        Memory out = new Memory(Native.POINTER_SIZE);
        int rc = lib.a2a_outcome_transport(error.code(), requestSent.code(), msg, new SizeT(msg.length), out);
        A2aCoreException.check("a2a_outcome_transport", rc);
        return Outcome.consume(lib, out.getPointer(0));
    }

    /**
     * Classifies one complete HTTP response into exactly one outcome.
     *
     * @param status the HTTP status
     * @param contentType the {@code Content-Type} value, or null when absent
     * @param retryAfter the {@code Retry-After} value, or null when absent
     * @param body the complete body (any bytes; invalid JSON is a classification, not an error)
     * @param asked what the call asked
     */
    public static Outcome classify(int status, String contentType, String retryAfter, byte[] body, Asked asked) {
        return classify(status, contentType, retryAfter, body, asked, OptionalLong.empty());
    }

    /**
     * Classifies one complete HTTP response into exactly one outcome, with the caller's wall clock.
     *
     * @param status the HTTP status
     * @param contentType the {@code Content-Type} value, or null when absent
     * @param retryAfter the {@code Retry-After} value, or null when absent
     * @param body the complete body (any bytes; invalid JSON is a classification, not an error)
     * @param asked what the call asked
     * @param nowUnixSeconds the wall clock in Unix seconds (e.g. {@code Instant.now().getEpochSecond()}),
     *     needed only to turn a {@code Retry-After} HTTP-date into {@link Outcome#retryAfterSecs()};
     *     empty (or 0) for no clock
     */
    public static Outcome classify(int status, String contentType, String retryAfter, byte[] body, Asked asked,
        OptionalLong nowUnixSeconds) {
        if (status < 0 || status > 0xFFFF) {
            throw new IllegalArgumentException("HTTP status out of range: " + status);
        }
        if (nowUnixSeconds.isPresent() && nowUnixSeconds.getAsLong() < 0) {
            throw new IllegalArgumentException("nowUnixSeconds before 1970: " + nowUnixSeconds.getAsLong());
        }
        A2aCoreLibrary lib = A2aCore.lib();
        NativeArgs args = new NativeArgs();
        int rc;
        Pointer outcome;
        try {
            Pointer r = args.response(status, contentType, retryAfter, body, nowUnixSeconds.orElse(0),
                asked.version().map(ProtocolVersion::code).orElse(0), asked.binding().map(Binding::code).orElse(0),
                asked.method().orElse(null), asked.requestId().orElse(null));
            Pointer out = args.outPointer();
            rc = Direct.ON ? Direct.a2a_classify(r, out) : lib.a2a_classify(r, out);
            outcome = out.getPointer(0);
        } finally {
            args.release();
        }
        A2aCoreException.check("a2a_classify", rc);
        return Outcome.consume(lib, outcome);
    }

    /** Classifies a response with a text body (UTF-8), nothing known about what was asked. */
    public static Outcome classify(int status, String contentType, String body) {
        return classify(status, contentType, null, body.getBytes(StandardCharsets.UTF_8), Asked.unknown());
    }

    /**
     * A {@code Retry-After} value as delta-seconds; empty for an HTTP-date (classify with a clock
     * to read one) or garbage.
     */
    public static OptionalLong parseRetryAfter(String value) {
        // The library reads Retry-After in one place, the classifier: an HTTP error with no
        // body and this header, classified without a clock, carries exactly its delta-seconds.
        return classify(503, null, value, new byte[0], Asked.unknown()).retryAfterSecs();
    }

    /** Whether a {@code Content-Type} value is {@code text/event-stream} (parameters and case ignored). */
    public static boolean isEventStream(String contentType) {
        if (contentType == null) {
            return false;
        }
        byte[] b = contentType.getBytes(StandardCharsets.UTF_8);
        return A2aCore.lib().a2a_is_event_stream(b, new SizeT(b.length)) != 0;
    }

    /** The error name of a JSON-RPC / A2A error code ({@code -32001} is TaskNotFound; unknown codes are Other). */
    public static ErrorName errorNameOfCode(long code) {
        int n = A2aCore.lib().a2a_error_name_of_code(code);
        return ErrorName.fromCode(n).orElseThrow(() -> new IllegalStateException("a2a_error_name_of_code gave " + n));
    }
}
