package dev.a2acore.a2ajava;

import dev.a2acore.Asked;
import dev.a2acore.ErrorName;
import dev.a2acore.Outcomes;
import dev.a2acore.Outcome;
import dev.a2acore.RequestSent;
import dev.a2acore.RetryAdvice;
import java.io.IOException;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A call through {@link A2aCoreHttpClient} failed, classified by a2a-core: a timeout, a
 * refused or reset connection, a redirect (never followed), a non-2xx status, a JSON-RPC
 * error, a stream cut or truncated, a response over the size limit. It is an
 * {@link IOException}; a2a-java wraps it (in {@code A2AClientException}, or it is the cause
 * of the {@code JSONRPCError} or of the stock client's authentication {@code IOException}):
 * {@link #find} walks the cause chain to it.
 */
public final class A2aCallException extends IOException {
    private static final long serialVersionUID = 1L;

    /** Which deadline expired, for {@link ErrorName#TIMEOUT}. */
    public enum Deadline {
        /** The TCP connection was not established in time. */
        CONNECT,
        /** The whole exchange (or, for a stream, the response headers) did not finish in time. */
        CALL,
        /** A stream received no bytes (not even a keep-alive comment) for the idle timeout. */
        STREAM_IDLE
    }

    private final ErrorName errorName;
    private final transient Outcome outcome;
    private final Integer httpStatus;
    private final String location;
    private final Deadline deadline;
    private final RetryAdvice retry;
    private final RequestSent requestSent;
    private final String bodyExcerpt;

    private A2aCallException(String message, Throwable cause, ErrorName errorName, Outcome outcome,
                             Integer httpStatus, String location, Deadline deadline, RetryAdvice retry,
                             RequestSent requestSent, String bodyExcerpt) {
        super(message, cause);
        this.errorName = errorName;
        this.outcome = outcome;
        this.httpStatus = httpStatus;
        this.location = location;
        this.deadline = deadline;
        this.retry = retry;
        this.requestSent = requestSent;
        this.bodyExcerpt = bodyExcerpt;
    }

    /** A transport failure: no (complete) HTTP response, described by a2a-core's transport outcome. */
    static A2aCallException transport(Outcome outcome, Deadline deadline, Throwable cause) {
        return transport(outcome, deadline, cause,
            outcome.message().orElse(outcome.errorName().map(ErrorName::wireName).orElse("")));
    }

    /** The same with an explicit message. */
    static A2aCallException transport(Outcome outcome, Deadline deadline, Throwable cause, String message) {
        return new A2aCallException(message, cause, outcome.errorName().orElse(ErrorName.RESET), outcome, null, null,
            deadline, outcome.retry(), outcome.requestSent().orElse(null), null);
    }

    /**
     * A redirect the client refused to follow, classified by a2a-core (channel http, error
     * {@code Redirect}, advice {@code never}: the configured agent URL is wrong, or something
     * is redirecting calls elsewhere; fix it, do not follow it automatically).
     */
    static A2aCallException redirect(String method, String url, int status, String location) {
        Outcome o = Outcomes.classify(status, null, null, new byte[0], Asked.unknown());
        return new A2aCallException(method + " " + url + ": HTTP " + status + " redirect to "
            + (location == null ? "(no Location header)" : location) + " not followed", null,
            o.errorName().orElse(ErrorName.REDIRECT), o, status, location, null, o.retry(), null, null);
    }

    /**
     * The same for a redirect the client machine received: its result carries no response
     * headers, so the {@code Location} is not known ({@link #location()} is empty).
     */
    static A2aCallException redirect(String method, String url, int status, Outcome o) {
        return new A2aCallException(method + " " + url + ": HTTP " + status
            + " redirect not followed (the client machine does not report its Location)", null,
            o.errorName().orElse(ErrorName.REDIRECT), o, status, null, null, o.retry(), null, null);
    }

    /**
     * A non-2xx status, classified by a2a-core from status, headers and body. {@code words}
     * opens the message with what a2a-java itself would have said (the transport's
     * {@code "Request failed 502"} for a plain call, {@code JdkA2AHttpClient}'s
     * {@code "Request failed with status 502"} for a stream), so code that matches on
     * those words keeps working; the request and a body excerpt follow.
     */
    static A2aCallException httpStatus(String words, String method, String url, int status, String contentType,
                                       String retryAfter, byte[] body, String excerpt, Asked asked) {
        Outcome o = Outcomes.classify(status, contentType, retryAfter, body == null ? new byte[0] : body, asked);
        return new A2aCallException(words + ": " + method + " " + url
            + (excerpt == null || excerpt.isEmpty() ? "" : ": " + excerpt), null,
            o.errorName().orElse(ErrorName.HTTP), o, status, null, null, o.retry(), null, excerpt);
    }

    /** The same, classified by the client machine that received the response ({@code o}). */
    static A2aCallException httpStatus(String words, String method, String url, int status, Outcome o, String excerpt) {
        return new A2aCallException(words + ": " + method + " " + url
            + (excerpt == null || excerpt.isEmpty() ? "" : ": " + excerpt), null,
            o.errorName().orElse(ErrorName.HTTP), o, status, null, null, o.retry(), null, excerpt);
    }

    /**
     * A JSON-RPC error answer (HTTP 2xx with an {@code error} member, or an error event in
     * a stream), classified by a2a-core: channel protocol, the code's name, retry advice.
     */
    static A2aCallException protocol(String method, String url, int status, Outcome o, String excerpt) {
        String what = o.code().isPresent() ? "JSON-RPC error " + o.code().getAsLong() : "JSON-RPC error";
        return new A2aCallException(method + " " + url + ": " + what
            + o.message().map(m -> " " + m).orElse(""), null, o.errorName().orElse(ErrorName.OTHER), o, status,
            null, null, o.retry(), null, excerpt);
    }

    /** The typed error name ({@code Timeout}, {@code Redirect}, {@code ConnectFailed}, ...). */
    public ErrorName errorName() {
        return errorName;
    }

    /** a2a-core's outcome of the failure (channel, error name, request_sent, retry advice). */
    public Outcome outcome() {
        return outcome;
    }

    /** The HTTP status, when a response arrived. */
    public OptionalInt httpStatus() {
        return httpStatus == null ? OptionalInt.empty() : OptionalInt.of(httpStatus);
    }

    /** For a redirect: the {@code Location} header, when the response had one. */
    public Optional<String> location() {
        return Optional.ofNullable(location);
    }

    /** For a timeout: which deadline expired. */
    public Optional<Deadline> deadline() {
        return Optional.ofNullable(deadline);
    }

    /** What the caller should do about it. */
    public RetryAdvice retry() {
        return retry;
    }

    /** For transport failures: whether the request may have reached the server. */
    public Optional<RequestSent> requestSent() {
        return Optional.ofNullable(requestSent);
    }

    /** A bounded excerpt of the response body, for a non-2xx stream response. */
    public Optional<String> bodyExcerpt() {
        return Optional.ofNullable(bodyExcerpt);
    }

    /** The first {@code A2aCallException} in a throwable's cause chain (a2a-java wraps it). */
    public static Optional<A2aCallException> find(Throwable t) {
        for (int i = 0; t != null && i < 16; i++, t = t.getCause()) {
            if (t instanceof A2aCallException e) {
                return Optional.of(e);
            }
        }
        return Optional.empty();
    }
}
