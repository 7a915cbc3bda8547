import com.sun.net.httpserver.HttpServer;
import dev.a2acore.A2aServer;
import java.net.InetSocketAddress;
import java.util.Map;

/**
 * An A2A agent on the JDK's own HTTP server, over a2a-core's server side.
 *
 * <pre>java -cp ... ServeExample [port]</pre>
 *
 * prints {@code READY http://127.0.0.1:<port>}, then serves the card, JSON-RPC on
 * {@code POST /} and HTTP+JSON under {@code /rest}, A2A 1.0 and 0.3. The first word of a
 * message decides: {@code echo <text>} answers with a message; {@code count <n>} streams n
 * artifact chunks in a task; {@code fail} throws (a FAILED task with an error_id, the cause
 * in the log); {@code busy} is refused before it runs (an admission cancel); {@code slow <s>}
 * works s seconds (CancelTask ends it); {@code ask} stops at INPUT_REQUIRED and the next
 * message on that task completes it; {@code refuse} answers with a protocol error
 * (InvalidParams) instead of a task.
 */
public final class ServeExample {
    private ServeExample() {}

    /** The example agent (also used by the tests). */
    public static A2aServer agent() {
        return A2aServer.builder(ctx -> {
            String[] words = ctx.text().trim().split(" ", 2);
            String rest = words.length > 1 ? words[1] : "";
            if (ctx.continuesTask()) { // the answer to "ask"
                ctx.status("completed", "thanks for \"" + ctx.text() + "\"");
                return;
            }
            switch (words[0]) {
                case "echo" -> ctx.reply(rest);
                case "fail" -> throw new IllegalStateException("the agent broke (this stays in the server log)");
                case "count" -> {
                    ctx.status("working", null);
                    int n = rest.isEmpty() ? 3 : Integer.parseInt(rest);
                    for (int i = 0; i < n; i++) {
                        ctx.artifact("count", "chunk " + (i + 1) + " ", i > 0, i == n - 1);
                    }
                }
                case "slow" -> {
                    ctx.status("working", null);
                    Thread.sleep((long) (Double.parseDouble(rest.isEmpty() ? "1" : rest) * 1000));
                    ctx.artifact(null, "done", false, true);
                }
                case "ask" -> ctx.status("input-required", "what is your name?");
                case "refuse" -> throw new A2aServer.ProtocolError(dev.a2acore.ErrorName.INVALID_PARAMS, "refused: " + rest);
                default -> ctx.reply(ctx.text());
            }
        })
            .card("example-agent", "a2a-core Java example agent", "1.0.0")
            .skill("demo", "Demo", "echo, count, slow, ask, refuse, fail, busy", "demo")
            .beforeExecute(ctx -> {
                if (ctx.text().trim().equals("busy")) {
                    throw new A2aServer.Refused("the agent is at capacity");
                }
            })
            .afterExecute((ctx, error) -> error == null ? null : new A2aServer.Hint(false, Map.of("reason", "bug")))
            .build();
    }

    public static void main(String[] args) throws Exception {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 0;
        HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
        http.createContext("/", agent());
        http.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        http.start();
        System.out.println("READY http://127.0.0.1:" + http.getAddress().getPort());
    }
}
