package dev.a2acore;

/**
 * A dispatched event: its type ({@code message} when none was given), its data (the
 * {@code data:} lines joined with LF, decoded as UTF-8 with U+FFFD for invalid bytes) and
 * the last event ID in effect (empty when none was ever set).
 */
public record SseEvent(String type, String data, String id) implements SseItem {}
