package dev.a2acore;

/**
 * Adds headers to every A2A request an {@link A2aClient} makes (credentials,
 * {@code traceparent}, routing keys). Runs on the thread making the call, for every
 * request including the driver's own resubscribes and resends; never for the card fetch.
 * It must not block for long (the call's timeout is running).
 */
@FunctionalInterface
public interface HeaderHook {
    /**
     * Called before a request goes out.
     *
     * @param method the operation as the driver names it: its 1.0 name ({@code SendMessage},
     *     {@code GetTask}, {@code SendStreamingMessage}, ...), also on a 0.3 interface
     * @param headers sets headers on this request; valid only during the call
     */
    void addHeaders(String method, Headers headers);

    /** Sets headers on the request being made. */
    interface Headers {
        /**
         * Sets {@code name} to {@code value}, replacing any header of that name.
         *
         * @throws IllegalArgumentException when the library refuses it (a name that is not a
         *     token, a value with CR, LF or NUL: header injection; a reserved header such as
         *     {@code Content-Length}, {@code Host} or {@code A2A-Version}, which the client
         *     writes itself: the call then fails unsent, its outcome naming the header)
         * @throws IllegalStateException when called after the hook returned
         */
        void set(String name, String value);
    }
}
