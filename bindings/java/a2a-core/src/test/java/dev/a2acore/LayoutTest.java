package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.AbiStructs;
import dev.a2acore.internal.CStruct;
import dev.a2acore.internal.SizeT;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every JNA mirror of a C struct against the C compiler's layout of {@code include/a2a_core.h}.
 *
 * <p>{@code scripts/c-layout.py} compiles a program against the header and prints sizeof, alignment and the offset and
 * size of every field of every struct. Every {@link Structure} of the binding names its C struct(s) with
 * {@link CStruct} and must have the same size, alignment and fields (same names, order, offsets and sizes). A field
 * appended to a header struct without a mirror therefore fails here, as does every struct a bound function reaches
 * (by argument, or through another struct's fields) that has no mirror.
 */
class LayoutTest {
    /** Header structs a bound function reaches that the binding never reads or writes, with the reason. */
    private static final Map<String, String> NOT_MIRRORED = Map.of();

    private static JsonNode table;

    @BeforeAll
    static void generate() throws IOException, InterruptedException {
        Path root = Fixtures.repoRoot();
        Path venv = root.resolve(".venv").resolve("bin").resolve("python");
        String python = System.getenv().getOrDefault("A2A_PYTHON",
            Files.isExecutable(venv) ? venv.toString() : "python3");
        Path out = Files.createTempFile("a2a-c-layout", ".json");
        try {
            Process p = new ProcessBuilder(python, root.resolve("scripts").resolve("c-layout.py").toString(),
                "--out", out.toString())
                .redirectErrorStream(true)
                .start();
            String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(300, TimeUnit.SECONDS), "scripts/c-layout.py did not finish in 300 s");
            assertEquals(0, p.exitValue(), "scripts/c-layout.py failed:\n" + log);
            table = new ObjectMapper().readTree(out.toFile());
        } finally {
            Files.deleteIfExists(out);
        }
        assertTrue(table.get("structs").size() >= 30, "the header lost its structs?");
    }

    /** Every Structure class compiled from the binding's main sources. */
    static List<Class<? extends Structure>> mirrors() throws IOException, URISyntaxException {
        Path classes = Path.of(A2aCoreLibrary.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<Class<? extends Structure>> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path f : (Iterable<Path>) files.filter(x -> x.toString().endsWith(".class"))::iterator) {
                String rel = classes.relativize(f).toString().replace(f.getFileSystem().getSeparator(), ".");
                String name = rel.substring(0, rel.length() - ".class".length());
                Class<?> c;
                try {
                    c = Class.forName(name, false, LayoutTest.class.getClassLoader());
                } catch (ClassNotFoundException e) {
                    throw new AssertionError(e);
                }
                if (Structure.class.isAssignableFrom(c) && !Modifier.isAbstract(c.getModifiers())) {
                    found.add(c.asSubclass(Structure.class));
                }
            }
        }
        return found;
    }

    /** One field as {name, offset, size}. */
    record CField(String name, long offset, long size) {}

    /** The JNA layout of {@code s}: size, alignment and fields in declaration order. */
    static Map.Entry<long[], List<CField>> jnaLayout(Structure s) throws ReflectiveOperationException {
        Method fieldOffset = Structure.class.getDeclaredMethod("fieldOffset", String.class);
        fieldOffset.setAccessible(true);
        Method alignment = Structure.class.getDeclaredMethod("getStructAlignment");
        alignment.setAccessible(true);
        List<CField> fields = new ArrayList<>();
        for (String name : fieldOrder(s.getClass())) {
            Field f = s.getClass().getField(name);
            long size = Native.getNativeSize(f.getType(), f.get(s));
            fields.add(new CField(name, (int) fieldOffset.invoke(s, name), size));
        }
        return Map.entry(new long[] {s.size(), (int) alignment.invoke(s)}, fields);
    }

    /**
     * The field names of a Structure class in JNA's order: the {@link Structure.FieldOrder} of its superclasses
     * first (the generated {@code AbiStructs} bases declare the fields, the mirrors extend them).
     */
    static List<String> fieldOrder(Class<?> c) {
        List<String> names = new ArrayList<>();
        for (Class<?> k = c; k != Structure.class; k = k.getSuperclass()) {
            Structure.FieldOrder order = k.getAnnotation(Structure.FieldOrder.class);
            if (order != null) {
                names.addAll(0, List.of(order.value()));
            }
        }
        return names;
    }

    /** How a JNA layout differs from the C layout {@code c} (empty when it matches). */
    static List<String> mismatches(Map.Entry<long[], List<CField>> mine, JsonNode c) {
        List<String> out = new ArrayList<>();
        if (mine.getKey()[0] != c.get("size").asLong()) {
            out.add("size " + mine.getKey()[0] + " != C " + c.get("size").asLong());
        }
        if (mine.getKey()[1] != c.get("align").asLong()) {
            out.add("alignment " + mine.getKey()[1] + " != C " + c.get("align").asLong());
        }
        List<CField> fields = mine.getValue();
        JsonNode cf = c.get("fields");
        for (int k = 0; k < Math.max(fields.size(), cf.size()); k++) {
            if (k >= fields.size()) {
                JsonNode f = cf.get(k);
                out.add("C field " + f.get("name").asText() + " (offset " + f.get("offset").asLong() + ", "
                    + f.get("size").asLong() + " bytes) has no mirror");
            } else if (k >= cf.size()) {
                out.add("field " + fields.get(k).name() + " does not exist in C");
            } else {
                CField want = new CField(cf.get(k).get("name").asText(), cf.get(k).get("offset").asLong(),
                    cf.get(k).get("size").asLong());
                if (!fields.get(k).equals(want)) {
                    out.add("field #" + k + ": " + fields.get(k) + " != C " + want);
                }
            }
        }
        return out;
    }

    @Test
    void everyMirrorNamesAHeaderStruct() throws Exception {
        List<Class<? extends Structure>> found = mirrors();
        assertTrue(found.size() >= 27, "only " + found.size() + " Structure classes found");
        List<String> bad = new ArrayList<>();
        for (Class<? extends Structure> c : found) {
            CStruct names = c.getAnnotation(CStruct.class);
            if (names == null || names.value().length == 0) {
                bad.add(c.getName() + " has no @CStruct");
                continue;
            }
            if (c.getSuperclass().getDeclaringClass() != AbiStructs.class) {
                bad.add(c.getName() + " does not extend its generated base in AbiStructs (scripts/gen-bindings.py)");
            }
            for (String n : names.value()) {
                if (!table.get("structs").has(n)) {
                    bad.add(c.getName() + " names " + n + ", which the header does not define");
                }
            }
        }
        assertTrue(bad.isEmpty(), String.join("\n", bad));
    }

    @Test
    void everyMirrorMatchesTheCLayout() throws Exception {
        Map<String, List<String>> bad = new TreeMap<>();
        for (Class<? extends Structure> c : mirrors()) {
            Map.Entry<long[], List<CField>> mine = jnaLayout(c.getDeclaredConstructor().newInstance());
            for (String n : c.getAnnotation(CStruct.class).value()) {
                List<String> diff = mismatches(mine, table.get("structs").get(n));
                if (!diff.isEmpty()) {
                    bad.put(c.getName() + " (" + n + ")", diff);
                }
            }
        }
        StringBuilder msg = new StringBuilder("JNA mirrors that disagree with include/a2a_core.h:");
        bad.forEach((k, v) -> msg.append("\n  ").append(k).append(": ").append(String.join("; ", v)));
        assertTrue(bad.isEmpty(), msg.toString());
    }

    /** The offset of field {@code field} of C struct {@code struct} as the C compiler lays it out. */
    private static long cOffset(String struct, String field) {
        for (JsonNode f : table.get("structs").get(struct).get("fields")) {
            if (f.get("name").asText().equals(field)) {
                return f.get("offset").asLong();
            }
        }
        throw new AssertionError(struct + " has no field " + field);
    }

    @Test
    void theRawReadOffsetsAreTheHeaders() {
        // MachineDirect's offsets (raw reads of a2a_event and a2a_transmit, no JNA Structure)
        // against the C compiler's layout of include/a2a_core.h.
        long item = cOffset("a2a_event", "item");
        long view = cOffset("a2a_bytes", "ptr");
        long len = cOffset("a2a_bytes", "len");
        assertEquals(view, MachineDirect.VIEW_PTR);
        assertEquals(len, MachineDirect.VIEW_LEN);
        assertEquals(cOffset("a2a_event", "kind"), MachineDirect.KIND);
        assertEquals(cOffset("a2a_event", "request_id"), MachineDirect.REQUEST_ID);
        assertEquals(item + cOffset("a2a_stream_item", "kind"), MachineDirect.ITEM_KIND);
        assertEquals(item + cOffset("a2a_stream_item", "outcome"), MachineDirect.ITEM_OUTCOME);
        assertEquals(item + cOffset("a2a_stream_item", "artifact_id") + view, MachineDirect.ITEM_ARTIFACT_PTR);
        assertEquals(item + cOffset("a2a_stream_item", "artifact_id") + len, MachineDirect.ITEM_ARTIFACT_LEN);
        assertEquals(cOffset("a2a_event", "outcome"), MachineDirect.EVENT_OUTCOME);
        assertEquals(cOffset("a2a_event", "has_response"), MachineDirect.EVENT_HAS_RESPONSE);
        assertEquals(cOffset("a2a_event", "response_status"), MachineDirect.EVENT_RESPONSE_STATUS);
        assertEquals(cOffset("a2a_event", "response_body"), MachineDirect.EVENT_RESPONSE_BODY);
        assertEquals(cOffset("a2a_event", "has_end_kind"), MachineDirect.EVENT_HAS_END_KIND);
        assertEquals(cOffset("a2a_event", "end_kind"), MachineDirect.EVENT_END_KIND);
        assertEquals(cOffset("a2a_transmit", "request_id"), MachineDirect.TRANSMIT_REQUEST_ID);
        assertEquals(cOffset("a2a_transmit", "method"), MachineDirect.TRANSMIT_METHOD);
        assertEquals(cOffset("a2a_transmit", "url"), MachineDirect.TRANSMIT_URL);
        assertEquals(cOffset("a2a_transmit", "headers"), MachineDirect.TRANSMIT_HEADERS);
        assertEquals(cOffset("a2a_transmit", "headers_len"), MachineDirect.TRANSMIT_HEADERS_LEN);
        assertEquals(cOffset("a2a_transmit", "body"), MachineDirect.TRANSMIT_BODY);
        assertEquals(cOffset("a2a_transmit", "connect_by_ms"), MachineDirect.TRANSMIT_CONNECT_BY);
        assertEquals(cOffset("a2a_transmit", "deadline_ms"), MachineDirect.TRANSMIT_DEADLINE);
    }

    @Test
    void everyStructABoundFunctionReachesIsMirrored() throws Exception {
        Set<String> bound = new TreeSet<>();
        for (Method m : A2aCoreLibrary.class.getMethods()) {
            if (m.getName().startsWith("a2a_")) {
                bound.add(m.getName());
            }
        }
        assertTrue(bound.size() > 80, "only " + bound.size() + " bound functions");
        JsonNode structs = table.get("structs");
        Map<String, String> reached = new LinkedHashMap<>();
        Deque<String[]> todo = new ArrayDeque<>();
        for (String fn : bound) {
            JsonNode uses = table.get("functions").get(fn);
            assertTrue(uses != null, fn + " is bound but not declared in the header");
            uses.forEach(s -> todo.push(new String[] {s.asText(), fn}));
        }
        while (!todo.isEmpty()) {
            String[] next = todo.pop();
            if (!structs.has(next[0]) || reached.containsKey(next[0])) {
                continue;
            }
            reached.put(next[0], next[1]);
            structs.get(next[0]).get("refs").forEach(r -> todo.push(new String[] {r.asText(), next[0]}));
        }
        Set<String> mirrored = new TreeSet<>();
        for (Class<? extends Structure> c : mirrors()) {
            mirrored.addAll(List.of(c.getAnnotation(CStruct.class).value()));
        }
        Map<String, String> missing = new TreeMap<>();
        reached.forEach((s, via) -> {
            if (!mirrored.contains(s) && !NOT_MIRRORED.containsKey(s)) {
                missing.put(s, via);
            }
        });
        assertTrue(missing.isEmpty(), "header structs used (via) without a JNA mirror: " + missing);
    }

    /** A view with a 32-bit length: the wrong type for {@code size_t} on a 64-bit ABI. */
    @Structure.FieldOrder({"ptr", "len"})
    public static class NarrowView extends Structure {
        /** Pointer. */
        public Pointer ptr;
        /** Too narrow. */
        public int len;
    }

    /** A view without its length. */
    @Structure.FieldOrder({"ptr"})
    public static class HalfView extends Structure {
        /** Pointer. */
        public Pointer ptr;
    }

    /** A view with a field C does not have. */
    @Structure.FieldOrder({"ptr", "len", "cap"})
    public static class WideView extends Structure {
        /** Pointer. */
        public Pointer ptr;
        /** Length. */
        public SizeT len;
        /** Not in C. */
        public SizeT cap;
    }

    @Test
    void theCheckCatchesAWrongTypeAMissingFieldAndAnExtraField() throws Exception {
        JsonNode str = table.get("structs").get("a2a_str");
        assertEquals(List.of(), mismatches(jnaLayout(new A2aCoreLibrary.View()), str));
        if (Native.SIZE_T_SIZE == 8) {
            // Same struct size (padding), but the field is 4 bytes where C has 8.
            assertTrue(mismatches(jnaLayout(new NarrowView()), str).stream().anyMatch(m -> m.startsWith("field #1")));
        }
        assertTrue(mismatches(jnaLayout(new HalfView()), str).stream()
            .anyMatch(m -> m.contains("len") && m.contains("no mirror")));
        assertTrue(mismatches(jnaLayout(new WideView()), str).stream()
            .anyMatch(m -> m.contains("cap") && m.contains("does not exist")));
        // A field appended to the C struct (what growing a2a_breaker_config does) without a mirror.
        com.fasterxml.jackson.databind.node.ObjectNode grown =
            table.get("structs").get("a2a_breaker_config").deepCopy();
        long size = grown.get("size").asLong();
        grown.withArray("fields").addObject().put("name", "new_knob").put("offset", size).put("size", 4);
        grown.put("size", size + 8);
        assertTrue(mismatches(jnaLayout(new A2aCoreLibrary.BreakerConfig()), grown).stream()
            .anyMatch(m -> m.contains("new_knob")));
    }
}
