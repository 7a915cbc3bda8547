import dev.a2acore.*;
import java.nio.charset.StandardCharsets;

public class Example {
    public static void main(String[] args) {
        try (SseDecoder decoder = new SseDecoder()) {          // one JSON object over two data: lines, CRLF, a keep-alive
            byte[] chunk = "data: {\"a\":\r\ndata: 1}\r\n\r\n: ping\r\n\r\n".getBytes(StandardCharsets.UTF_8);
            for (SseItem item : decoder.feedItems(chunk)) System.out.println(item);
        }
        System.out.println(ErrorIds.extract("Agent execution failed. (error_id: 7dac02a750a9)"));
        System.out.println(Outcomes.classify(503, "text/html", "5", new byte[0], Asked.jsonRpc(ProtocolVersion.V0_3, "message/send", "1")));
    }
}
