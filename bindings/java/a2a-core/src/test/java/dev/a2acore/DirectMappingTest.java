package dev.a2acore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.Direct;
import dev.a2acore.internal.Layout;
import dev.a2acore.internal.LibraryLoader;
import dev.a2acore.internal.NativeArgs;
import dev.a2acore.internal.SizeT;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The direct-mapped functions ({@link Direct}) give what the interface-mapped ones
 * ({@link A2aCoreLibrary}) give for the same input: a wrong Java signature in the direct
 * mapping (an argument dropped or of the wrong width) shows here as a different result.
 * The network one ({@code a2a_call_run}) runs in the clients' tests.
 */
class DirectMappingTest {
    private final A2aCoreLibrary lib = LibraryLoader.lib();

    @Test
    void boundWhereSizeTIs64Bit() {
        assertEquals(Native.SIZE_T_SIZE == 8 && Native.POINTER_SIZE == 8, Direct.ON);
        // The platforms the binding bundles or CI runs are 64-bit: the rest of this class runs.
        assertTrue(Direct.ON, "the direct mapping is off on this platform");
    }

    /**
     * The fields of a struct filled at {@code at}, read through its JNA mirror, as text (the
     * padding between them is whatever the library left, so raw bytes may differ).
     */
    private static String fields(com.sun.jna.Structure mirror, Pointer at) {
        mirror.getPointer().write(0, at.getByteArray(0, mirror.size()), 0, mirror.size());
        mirror.read();
        return describe(mirror);
    }

    private static String describe(com.sun.jna.Structure s) {
        StringBuilder sb = new StringBuilder("{");
        for (String name : LayoutTest.fieldOrder(s.getClass())) {
            Object v;
            try {
                v = s.getClass().getField(name).get(s);
            } catch (ReflectiveOperationException e) {
                throw new AssertionError(e);
            }
            sb.append(name).append('=').append(v instanceof com.sun.jna.Structure n ? describe(n) : String.valueOf(v))
                .append(';');
        }
        return sb.append('}').toString();
    }

    private Pointer transport(String message) {
        byte[] m = message.getBytes(StandardCharsets.UTF_8);
        Memory out = new Memory(Native.POINTER_SIZE);
        assertEquals(0, lib.a2a_outcome_transport(ErrorName.TIMEOUT.code(), RequestSent.NO.code(), m,
            new SizeT(m.length), out));
        return out.getPointer(0);
    }

    @Test
    void outcomeCallsAgree() {
        Pointer h = transport("call deadline expired");
        int size = new A2aCoreLibrary.OutcomeInfo().size();
        Memory viaInterface = new Memory(size);
        Memory viaDirect = new Memory(size);
        viaInterface.clear();
        viaDirect.clear();
        assertEquals(0, lib.a2a_outcome_get_info(h, viaInterface));
        assertEquals(0, Direct.a2a_outcome_get_info(h, viaDirect));
        assertEquals(fields(new A2aCoreLibrary.OutcomeInfo(), viaInterface), fields(new A2aCoreLibrary.OutcomeInfo(), viaDirect));
        int channelAt = new A2aCoreLibrary.OutcomeInfo().offsetOf("channel");
        assertEquals(Channel.TRANSPORT.code(), viaDirect.getInt(channelAt));
        assertEquals(Channel.TRANSPORT.code(), Outcome.channelCode(lib, h));
        assertEquals(lib.a2a_counts_toward_breaker(h), Direct.a2a_counts_toward_breaker(h));
        assertEquals(1, Direct.a2a_counts_toward_breaker(h), "a timeout counts toward the breaker");
        Direct.a2a_outcome_free(h);
        // NULL is a no-op for the free and an invalid argument for the reads.
        Direct.a2a_outcome_free(null);
        assertEquals(lib.a2a_outcome_get_info(null, viaInterface), Direct.a2a_outcome_get_info(null, viaDirect));
    }

    @Test
    void sseFeedAgrees() {
        Memory o1 = new Memory(Native.POINTER_SIZE);
        Memory o2 = new Memory(Native.POINTER_SIZE);
        assertEquals(0, lib.a2a_sse_decoder_new_with(new SizeT(1 << 20), new SizeT(1 << 20), 1, o1));
        assertEquals(0, lib.a2a_sse_decoder_new_with(new SizeT(1 << 20), new SizeT(1 << 20), 1, o2));
        Pointer d1 = o1.getPointer(0);
        Pointer d2 = o2.getPointer(0);
        try {
            byte[] chunk = ": keep-alive\n\nevent: e\ndata: one\nid: 4\n\ndata: two\n\n".getBytes(StandardCharsets.UTF_8);
            Memory in = new Memory(chunk.length);
            in.write(0, chunk, 0, chunk.length);
            Memory p1 = new Memory(Layout.PACKED_SIZE);
            Memory p2 = new Memory(Layout.PACKED_SIZE);
            assertEquals(0, lib.a2a_sse_decoder_feed_packed(d1, in, new SizeT(chunk.length), p1));
            assertEquals(0, Direct.a2a_sse_decoder_feed_packed(d2, in, chunk.length, p2));
            for (int at : new int[] {Layout.PACKED_EVENT_COUNT, Layout.PACKED_COMMENT_COUNT,
                Layout.PACKED_ITEM_COUNT}) {
                assertEquals(Layout.sizeT(p1, at), Layout.sizeT(p2, at));
            }
            assertEquals(2, Layout.sizeT(p2, Layout.PACKED_EVENT_COUNT));
            assertArrayEquals(Layout.viewBytes(p1, Layout.PACKED_BYTES), Layout.viewBytes(p2, Layout.PACKED_BYTES));
        } finally {
            lib.a2a_sse_decoder_free(d1);
            lib.a2a_sse_decoder_free(d2);
        }
    }

    /** An outcome's fields as text (through get_info and the mirror), then frees it. */
    private String describeAndFree(Pointer outcome) {
        int size = new A2aCoreLibrary.OutcomeInfo().size();
        Memory info = new Memory(size);
        assertEquals(0, lib.a2a_outcome_get_info(outcome, info));
        // The views point into the outcome: compare their text, not their addresses.
        A2aCoreLibrary.OutcomeInfo m = new A2aCoreLibrary.OutcomeInfo();
        StringBuilder sb = new StringBuilder(fields(m, info).replaceAll("native@0x[0-9a-f]+", "p"));
        for (String view : new String[] {"reason", "message", "data", "task_id", "context_id", "text", "error_id",
            "hint", "body_excerpt", "cancel_origin", "result_json"}) {
            byte[] b = Layout.viewBytes(info, m.offsetOf(view));
            sb.append(view).append('=').append(b == null ? "null" : new String(b, StandardCharsets.UTF_8)).append(';');
        }
        lib.a2a_outcome_free(outcome);
        return sb.toString();
    }

    private Pointer classifyThroughStructure(int status, String contentType, String retryAfter, byte[] body,
                                             long now, String method, String id) {
        NativeArgs args = new NativeArgs();
        A2aCoreLibrary.Response r = new A2aCoreLibrary.Response();
        args.response(r, status, contentType, retryAfter, body);
        r.now_unix_seconds = now;
        args.asked(r.asked, ProtocolVersion.V0_3.code(), Binding.JSON_RPC.code(), method, id);
        Memory out = new Memory(Native.POINTER_SIZE);
        assertEquals(0, lib.a2a_classify(r, out));
        args.release();
        return out.getPointer(0);
    }

    private Pointer classifyThroughRawMemory(int status, String contentType, String retryAfter, byte[] body,
                                             long now, String method, String id) {
        NativeArgs args = new NativeArgs();
        Pointer r = args.response(status, contentType, retryAfter, body, now, ProtocolVersion.V0_3.code(),
            Binding.JSON_RPC.code(), method, id);
        Memory out = new Memory(Native.POINTER_SIZE);
        assertEquals(0, Direct.a2a_classify(r, out));
        args.release();
        return out.getPointer(0);
    }

    @Test
    void classifyOfARawResponseAgreesWithTheStructure() {
        byte[] task = ("{\"jsonrpc\":\"2.0\",\"id\":\"r-1\",\"result\":{\"kind\":\"task\",\"id\":\"t-1\","
            + "\"contextId\":\"c-1\",\"status\":{\"state\":\"completed\"}}}").getBytes(StandardCharsets.UTF_8);
        byte[] error = "{\"jsonrpc\":\"2.0\",\"id\":\"r-1\",\"error\":{\"code\":-32001,\"message\":\"no task\"}}"
            .getBytes(StandardCharsets.UTF_8);
        Object[][] cases = {
            {200, "application/json", null, task, 0L, "message/send", "r-1"},
            {200, "application/json", null, task, 0L, "message/send", "other-id"},
            {200, "application/json", null, error, 0L, "tasks/get", "r-1"},
            {503, "text/plain", "120", "busy".getBytes(StandardCharsets.UTF_8), 0L, null, null},
            {429, null, "Wed, 21 Oct 2026 07:28:00 GMT", new byte[0], 1_790_000_000L, "message/send", ""},
            {200, "", null, null, 0L, "", "r-1"},
        };
        for (Object[] c : cases) {
            String viaStructure = describeAndFree(classifyThroughStructure((int) c[0], (String) c[1], (String) c[2],
                (byte[]) c[3], (long) c[4], (String) c[5], (String) c[6]));
            String viaRaw = describeAndFree(classifyThroughRawMemory((int) c[0], (String) c[1], (String) c[2],
                (byte[]) c[3], (long) c[4], (String) c[5], (String) c[6]));
            assertEquals(viaStructure, viaRaw, java.util.Arrays.toString(c));
        }
        // The cases are told apart (a wrong field would make them equal or all malformed).
        String ok = describeAndFree(classifyThroughRawMemory(200, "application/json", null, task, 0, "message/send", "r-1"));
        String busy = describeAndFree(classifyThroughRawMemory(503, "text/plain", "120", new byte[] {'b'}, 0, null, null));
        assertTrue(ok.contains("channel=" + Channel.TASK.code() + ";"), ok);
        assertTrue(busy.contains("channel=" + Channel.HTTP.code() + ";") && busy.contains("retry_after_secs=120;"), busy);
    }
}
