package dev.a2acore.a2ajava;

import java.net.URI;
import java.util.Map;

/**
 * Called before every request leaves, to add or replace headers (credentials from a vault,
 * {@code traceparent} of the current span, ...). The map is the request's header map, already
 * holding what a2a-java set; changes apply to this request only. Values are never logged.
 */
@FunctionalInterface
public interface HeaderHook {
    /** Adds or replaces headers for a request of {@code method} to {@code uri}. */
    void apply(String method, URI uri, Map<String, String> headers);
}
