package dev.a2acore;

import java.util.Optional;

/** One event of an {@link A2aClient} stream: items, resubscribe notices, and exactly one {@link End} last. */
public sealed interface ClientStreamEvent {
    /**
     * One typed item of the stream. Its outcome is a copy; {@code modelText} is not
     * available on it (use the {@link End} outcome).
     *
     * @param item the classified event
     */
    record Item(StreamItem item) implements ClientStreamEvent {
        /**
         * The event as the normalized answer item: {@link Answer#statusUpdate()},
         * {@link Answer#artifactUpdate()} (the parts this event carried), {@link Answer#task()}
         * or {@link Answer#message()}; empty for an item that could not be read.
         */
        public java.util.Optional<Answer> answer() {
            return item.outcome().result();
        }
    }

    /**
     * The stream was cut with the task still running; the driver is resubscribing (never a resend).
     *
     * @param taskId the task
     * @param attempt 1 for the first resubscribe
     */
    record Resubscribing(String taskId, int attempt) implements ClientStreamEvent {}

    /**
     * The last event.
     *
     * @param endKind how the last stream ended (empty when no stream was opened, e.g. connect refused)
     * @param outcome the call's outcome
     * @param resubscribes resubscribes made
     * @param droppedEvents events dropped over the size limit
     * @param unreadableEvents events that could not be read (nonzero, like droppedEvents:
     *     the answer is incomplete even when the outcome says completed)
     */
    record End(Optional<StreamEndKind> endKind, Outcome outcome, int resubscribes,
               int droppedEvents, int unreadableEvents) implements ClientStreamEvent {
        /** The answer put together from the stream, when there is one. */
        public Optional<Answer> answer() {
            return outcome.result();
        }

        /** Whether an event was dropped or could not be read. */
        public boolean lostContent() {
            return droppedEvents > 0 || unreadableEvents > 0;
        }
    }
}
