package dev.a2acore;

import java.util.Optional;

/**
 * One classified stream event, as the core's client machine followed it.
 *
 * @param kind what it carried
 * @param outcome the event classified like a whole response (null only from
 *     {@code MachineTarget.Call.events(false)}, for an item that is no failure)
 * @param finalFlag the 0.3 {@code final} flag, when present
 * @param artifactId artifact updates: the artifact id
 * @param append artifact updates: {@code append}
 * @param lastChunk artifact updates: {@code lastChunk}
 * @param endsStream whether this item ends the interaction (the stream is over after it)
 */
public record StreamItem(StreamItemKind kind, Outcome outcome, Optional<Boolean> finalFlag,
                         Optional<String> artifactId, boolean append, boolean lastChunk, boolean endsStream) {}
