package dev.a2acore;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A built A2A request (copied out of the library): send {@link #httpMethod()} to the
 * interface URL joined with {@link #path()}, with the headers and the body.
 *
 * @param httpMethod {@code POST}, {@code GET} or {@code DELETE}
 * @param path relative to the interface URL: empty for JSON-RPC, {@code /...} for HTTP+JSON
 * @param headers in order
 * @param body the body bytes (empty for GET and DELETE)
 * @param method the A2A method
 * @param rpcId the JSON-RPC id the response must echo, as text (empty for HTTP+JSON)
 */
public record Request(String httpMethod, String path, List<Map.Entry<String, String>> headers, byte[] body,
                      A2aMethod method, Optional<String> rpcId) {

    /** The body as UTF-8 text. */
    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /** The first header of that name (case-insensitive). */
    public Optional<String> header(String name) {
        return headers.stream().filter(h -> h.getKey().equalsIgnoreCase(name)).map(Map.Entry::getValue).findFirst();
    }

    /** What to pass to {@link Outcomes#classify} for this request's response. */
    public Asked asked(ProtocolVersion version, Binding binding) {
        return new Asked(Optional.of(version), Optional.of(binding),
            method.jsonRpcName(version), rpcId);
    }
}
