package dev.a2acore;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.SizeT;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The agent's answer, the same whatever the protocol version and binding: a {@link Task}
 * (status, artifacts put together when streamed, history) or a {@link Message}; for a
 * stream item also a {@link StatusUpdate} or an {@link ArtifactUpdate} (its parts as sent in
 * that event; the stream's {@code End} answer puts the chunks together). Parts are text, data (any JSON
 * value as Java values: {@code Map}, {@code List}, {@code String}, {@code Number},
 * {@code Boolean}, {@code null}) or files (bytes decoded, or a URI the library never
 * fetches), each with metadata.
 *
 * <p>The library hands the answer over as one canonical JSON text (see ffi/README.md),
 * read here with Jackson. {@link #text()} is the answer's text: text parts joined with
 * {@code \n}, the artifacts' first, else the status message's or the message's.
 *
 * @param kind {@code task}, {@code message}, {@code status-update} or {@code artifact-update}
 * @param task the task, for kind {@code task}
 * @param message the message, for kind {@code message}
 * @param statusUpdate the status change, for kind {@code status-update} (stream items)
 * @param artifactUpdate the artifact or chunk, for kind {@code artifact-update} (stream items)
 * @param text the answer's text, when it has a text part
 * @param json the canonical JSON text
 */
public record Answer(String kind, Optional<Task> task, Optional<Message> message, Optional<StatusUpdate> statusUpdate,
                     Optional<ArtifactUpdate> artifactUpdate, Optional<String> text, String json) {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final int NONE = 2;

    /** What a part carries. */
    public enum PartKind {
        /** Text. */
        TEXT,
        /** Structured data (any JSON value). */
        DATA,
        /** A file: inline bytes or a URI. */
        FILE
    }

    /**
     * One part of a message or artifact.
     *
     * @param kind what it carries
     * @param text the text (TEXT)
     * @param data the JSON value as Java values (DATA)
     * @param bytes the decoded file bytes (FILE with inline bytes), else null
     * @param uri the file's URI (FILE by reference), else null
     * @param mediaType the media type, when given
     * @param name the file name, when given
     * @param metadata the part's metadata (empty when none)
     */
    public record Part(PartKind kind, String text, Object data, byte[] bytes, String uri,
                       Optional<String> mediaType, Optional<String> name, Map<String, Object> metadata) {
        /** A text part. */
        public static Part text(String text) {
            return new Part(PartKind.TEXT, Objects.requireNonNull(text), null, null, null,
                Optional.empty(), Optional.empty(), Map.of());
        }

        /** A data part: any JSON-serializable Java value (a 0.3 peer only carries objects). */
        public static Part data(Object data) {
            return new Part(PartKind.DATA, null, data, null, null, Optional.empty(), Optional.empty(), Map.of());
        }

        /** A file part with inline bytes. */
        public static Part file(String name, String mediaType, byte[] bytes) {
            return new Part(PartKind.FILE, null, null, bytes.clone(), null,
                Optional.ofNullable(mediaType), Optional.ofNullable(name), Map.of());
        }

        /** A file part by URI (passed on, never fetched). */
        public static Part fileUri(String uri, String mediaType) {
            return new Part(PartKind.FILE, null, null, null, Objects.requireNonNull(uri),
                Optional.ofNullable(mediaType), Optional.empty(), Map.of());
        }

        /** This part with metadata. */
        public Part withMetadata(Map<String, Object> metadata) {
            return new Part(kind, text, data, bytes, uri, mediaType, name, Map.copyOf(metadata));
        }

        ObjectNode toJson() {
            ObjectNode n = MAPPER.createObjectNode();
            n.put("kind", kind.name().toLowerCase(java.util.Locale.ROOT));
            switch (kind) {
                case TEXT -> n.put("text", text);
                case DATA -> n.set("data", MAPPER.valueToTree(data));
                case FILE -> {
                    if (uri != null) {
                        n.put("uri", uri);
                    } else {
                        n.put("bytes", Base64.getEncoder().encodeToString(bytes));
                    }
                }
            }
            mediaType.ifPresent(m -> n.put("media_type", m));
            name.ifPresent(m -> n.put("name", m));
            if (!metadata.isEmpty()) {
                n.set("metadata", MAPPER.valueToTree(metadata));
            }
            return n;
        }
    }

    /**
     * A message: the agent's direct answer, a status message, a history entry.
     *
     * @param messageId its id
     * @param role {@code user}, {@code agent} or {@code unspecified}
     * @param contextId its context, when given
     * @param taskId its task, when given
     * @param parts its parts
     * @param metadata its metadata (empty when none)
     */
    public record Message(String messageId, String role, Optional<String> contextId, Optional<String> taskId,
                          List<Part> parts, Map<String, Object> metadata) {
        /** The text parts joined with newlines, when there is one. */
        public Optional<String> text() {
            return joinText(parts);
        }
    }

    /**
     * A task's status.
     *
     * @param state the CLI's word: {@code completed}, {@code input-required}, ...
     * @param message the agent's status message
     * @param timestamp the timestamp as sent
     */
    public record TaskStatus(String state, Optional<Message> message, Optional<String> timestamp) {}

    /**
     * An output of a task.
     *
     * @param artifactId its id
     * @param name its name
     * @param description its description
     * @param parts its parts (chunks put together)
     * @param metadata its metadata (empty when none)
     */
    public record Artifact(String artifactId, Optional<String> name, Optional<String> description,
                           List<Part> parts, Map<String, Object> metadata) {}

    /**
     * A task.
     *
     * @param id its id
     * @param contextId its context
     * @param status its status
     * @param artifacts its artifacts
     * @param history its history (when asked for)
     * @param metadata its metadata (empty when none)
     */
    public record Task(String id, Optional<String> contextId, TaskStatus status, List<Artifact> artifacts,
                       List<Message> history, Map<String, Object> metadata) {
        /** Every artifact's parts, in order. */
        public List<Part> parts() {
            List<Part> out = new ArrayList<>();
            artifacts.forEach(a -> out.addAll(a.parts()));
            return Collections.unmodifiableList(out);
        }
    }

    /**
     * A stream item: the task's status changed.
     *
     * @param taskId the task
     * @param contextId its context
     * @param status the new status (its message, when the agent sent one)
     * @param isFinal whether the agent marked it the last event of the stream
     * @param metadata the event's metadata (empty when none)
     */
    public record StatusUpdate(String taskId, Optional<String> contextId, TaskStatus status, boolean isFinal,
                               Map<String, Object> metadata) {}

    /**
     * A stream item: a new artifact, or a chunk of one.
     *
     * @param taskId the task
     * @param contextId its context
     * @param artifact the artifact with the parts this event carried
     * @param append whether the parts extend an artifact sent before
     * @param lastChunk whether this is the artifact's last chunk
     * @param metadata the event's metadata (empty when none)
     */
    public record ArtifactUpdate(String taskId, Optional<String> contextId, Artifact artifact, boolean append,
                                 boolean lastChunk, Map<String, Object> metadata) {}

    private static Optional<String> joinText(List<Part> parts) {
        List<String> t = parts.stream().filter(p -> p.kind() == PartKind.TEXT).map(Part::text).toList();
        return t.isEmpty() ? Optional.empty() : Optional.of(String.join("\n", t));
    }

    // ------------------------------------------------------------------------- reading

    /** Reads the canonical JSON text the library rendered. */
    static Answer fromJson(String json) {
        try {
            JsonNode n = MAPPER.readTree(json);
            String kind = n.path("kind").asText();
            Optional<Task> task = kind.equals("task") ? Optional.of(task(n)) : Optional.empty();
            Optional<Message> message = kind.equals("message") ? Optional.of(message(n)) : Optional.empty();
            Optional<StatusUpdate> status = kind.equals("status-update")
                ? Optional.of(new StatusUpdate(n.path("task_id").asText(), optText(n, "context_id"),
                    status(n.path("status")), n.path("final").asBoolean(false), meta(n)))
                : Optional.empty();
            Optional<ArtifactUpdate> artifact = kind.equals("artifact-update")
                ? Optional.of(new ArtifactUpdate(n.path("task_id").asText(), optText(n, "context_id"),
                    artifact(n.path("artifact")), n.path("append").asBoolean(false),
                    n.path("last_chunk").asBoolean(false), meta(n)))
                : Optional.empty();
            return new Answer(kind, task, message, status, artifact, optText(n, "text"), json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the library's answer JSON does not read", e);
        }
    }

    private static Optional<String> optText(JsonNode n, String key) {
        JsonNode v = n.get(key);
        return v == null || v.isNull() ? Optional.empty() : Optional.of(v.asText());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> meta(JsonNode n) {
        JsonNode m = n.get("metadata");
        if (m == null || m.isNull()) {
            return Map.of();
        }
        return Collections.unmodifiableMap(MAPPER.convertValue(m, LinkedHashMap.class));
    }

    private static byte[] decode(String b64) {
        String s = b64.replace("=", "");
        try {
            return Base64.getDecoder().decode(s);
        } catch (IllegalArgumentException e) {
            return Base64.getUrlDecoder().decode(s);
        }
    }

    private static Part part(JsonNode n) {
        Optional<String> media = optText(n, "media_type");
        Optional<String> name = optText(n, "name");
        Map<String, Object> md = meta(n);
        return switch (n.path("kind").asText()) {
            case "text" -> new Part(PartKind.TEXT, n.path("text").asText(), null, null, null, media, name, md);
            case "data" -> new Part(PartKind.DATA, null, MAPPER.convertValue(n.get("data"), Object.class),
                null, null, media, name, md);
            default -> {
                Optional<String> b = optText(n, "bytes");
                yield new Part(PartKind.FILE, null, null, b.map(Answer::decode).orElse(null),
                    optText(n, "uri").orElse(null), media, name, md);
            }
        };
    }

    private static List<Part> parts(JsonNode arr) {
        List<Part> out = new ArrayList<>();
        arr.forEach(p -> out.add(part(p)));
        return Collections.unmodifiableList(out);
    }

    private static Message message(JsonNode n) {
        return new Message(n.path("message_id").asText(), n.path("role").asText(), optText(n, "context_id"),
            optText(n, "task_id"), parts(n.path("parts")), meta(n));
    }

    private static TaskStatus status(JsonNode st) {
        JsonNode sm = st.get("message");
        return new TaskStatus(st.path("state").asText(),
            sm == null || sm.isNull() ? Optional.empty() : Optional.of(message(sm)), optText(st, "timestamp"));
    }

    private static Artifact artifact(JsonNode a) {
        return new Artifact(a.path("artifact_id").asText(), optText(a, "name"), optText(a, "description"),
            parts(a.path("parts")), meta(a));
    }

    private static Task task(JsonNode n) {
        TaskStatus status = status(n.path("status"));
        List<Artifact> arts = new ArrayList<>();
        n.path("artifacts").forEach(a -> arts.add(artifact(a)));
        List<Message> hist = new ArrayList<>();
        n.path("history").forEach(m -> hist.add(message(m)));
        return new Task(n.path("id").asText(), optText(n, "context_id"), status,
            Collections.unmodifiableList(arts), Collections.unmodifiableList(hist), meta(n));
    }

    /** The canonical JSON of a message to send: the parts and the message metadata. */
    static String messageJson(List<Part> parts, Map<String, Object> metadata) {
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("nothing to send: give at least one part");
        }
        ObjectNode doc = MAPPER.createObjectNode();
        ArrayNode arr = doc.putArray("parts");
        parts.forEach(p -> arr.add(p.toJson()));
        if (metadata != null && !metadata.isEmpty()) {
            doc.set("metadata", MAPPER.valueToTree(metadata));
        }
        return doc.toString();
    }

    /** The content of a body could not be read; the message says what and where. */
    public static final class UnreadableException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UnreadableException(String message) {
            super(message);
        }
    }

    /**
     * Reads the answer in a body received by the caller's own HTTP stack: a send, get or
     * cancel response, or ({@code stream} true) a whole {@code text/event-stream} body whose
     * events are put together.
     *
     * @return the answer, or empty for a stream without events
     * @throws UnreadableException when the content cannot be read (saying what and where)
     */
    public static Optional<Answer> read(byte[] body, ProtocolVersion version, Binding binding, boolean stream) {
        A2aCoreLibrary lib = A2aCore.lib();
        Memory out = new Memory(Native.POINTER_SIZE);
        A2aCoreException.check("a2a_buffer_new", lib.a2a_buffer_new(out));
        Pointer buf = out.getPointer(0);
        try {
            int rc = lib.a2a_answer_read(body, new SizeT(body.length), version.code(), binding.code(), stream, buf);
            if (rc == NONE) {
                return Optional.empty();
            }
            if (rc == 1100) {
                throw new UnreadableException(lib.a2a_buffer_last_error(buf).string());
            }
            A2aCoreException.check("a2a_answer_read", rc);
            return Optional.of(fromJson(lib.a2a_buffer_bytes(buf).string()));
        } finally {
            lib.a2a_buffer_free(buf);
        }
    }
}
