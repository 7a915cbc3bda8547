package dev.a2acore;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.SizeT;
import java.nio.charset.StandardCharsets;

/** Makes {@link Outcome}s through liba2a_core. */
public final class Outcomes {
    private Outcomes() {}

    /**
     * A transport-channel outcome, for a caller whose HTTP stack is its own: the call got no
     * HTTP response (connect refused, DNS, timeout, reset, TLS, response too large). The
     * retry advice follows {@code requestSent}: {@code backoff} when the request provably
     * never left, {@code unknown_outcome} otherwise.
     *
     * @throws IllegalArgumentException when {@code error} is not a transport name
     */
    public static Outcome transport(ErrorName error, RequestSent requestSent, String message) {
        if (error.channel() != Channel.TRANSPORT) {
            throw new IllegalArgumentException(error.wireName() + " is not a transport error name");
        }
        A2aCoreLibrary lib = A2aCore.lib();
        byte[] msg = message == null ? new byte[0] : message.getBytes(StandardCharsets.UTF_8);
        Memory out = new Memory(Native.POINTER_SIZE);
        int rc = lib.a2a_outcome_transport(error.code(), requestSent.code(), msg, new SizeT(msg.length), out);
        A2aCoreException.check("a2a_outcome_transport", rc);
        return Outcome.consume(lib, out.getPointer(0));
    }
}
