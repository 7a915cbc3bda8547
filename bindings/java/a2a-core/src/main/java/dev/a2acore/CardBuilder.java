package dev.a2acore;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.Layout;
import dev.a2acore.internal.NativeArgs;
import dev.a2acore.internal.SizeT;
import java.lang.ref.Cleaner;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A server's agent card, written by the core: the 1.0 {@code supportedInterfaces} in the
 * order added, and the 0.3 fields ({@code url}, {@code preferredTransport},
 * {@code additionalInterfaces}) from the first 0.3 interface, so clients of both versions
 * pick an interface. Not thread-safe.
 */
public final class CardBuilder implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();

    private static final class State implements Runnable {
        Pointer handle;

        @Override
        public void run() {
            if (handle != null) {
                A2aCore.lib().a2a_card_builder_free(handle);
                handle = null;
            }
        }
    }

    private final A2aCoreLibrary lib = A2aCore.lib();
    private final State state = new State();
    private final Cleaner.Cleanable cleanable;

    /** A card for the agent {@code name}, its description and its own version. */
    public CardBuilder(String name, String description, String version) {
        NativeArgs args = new NativeArgs();
        try {
            Pointer out = args.outPointer();
            A2aCoreException.check("a2a_card_builder_new", lib.a2a_card_builder_new(args.utf8(name),
                NativeArgs.len(name), args.utf8(description), NativeArgs.len(description), args.utf8(version),
                NativeArgs.len(version), out));
            state.handle = out.getPointer(0);
        } finally {
            args.release();
        }
        cleanable = CLEANER.register(this, state);
    }

    private Pointer h() {
        if (state.handle == null) {
            throw new IllegalStateException("the card builder is closed");
        }
        return state.handle;
    }

    /** Adds an interface (an absolute http(s) URL); the first added is the most preferred. */
    public CardBuilder addInterface(String url, ProtocolVersion version, Binding binding) {
        NativeArgs args = new NativeArgs();
        try {
            A2aCoreException.check("a2a_card_builder_add_interface", lib.a2a_card_builder_add_interface(h(),
                args.utf8(url), NativeArgs.len(url), version.code(), binding.code()));
        } finally {
            args.release();
        }
        return this;
    }

    /** Sets {@code capabilities.streaming} and {@code capabilities.pushNotifications}. */
    public CardBuilder capabilities(boolean streaming, boolean pushNotifications) {
        A2aCoreException.check("a2a_card_builder_set_capabilities", lib.a2a_card_builder_set_capabilities(h(),
            (byte) (streaming ? 1 : 0), (byte) (pushNotifications ? 1 : 0)));
        return this;
    }

    /** The media types accepted and returned (default {@code text/plain} both). */
    public CardBuilder modes(List<String> input, List<String> output) {
        NativeArgs args = new NativeArgs();
        try {
            A2aCoreException.check("a2a_card_builder_set_modes", lib.a2a_card_builder_set_modes(h(),
                args.strArray(input), new SizeT(input.size()), args.strArray(output), new SizeT(output.size())));
        } finally {
            args.release();
        }
        return this;
    }

    private static void view(NativeArgs args, Layout.BytesView v, String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        v.ptr = b.length == 0 ? null : args.bytes(b);
        v.len = new SizeT(b.length);
    }

    /** Adds a skill. */
    public CardBuilder addSkill(String id, String name, String description, List<String> tags,
        List<String> examples) {
        NativeArgs args = new NativeArgs();
        try {
            A2aCoreLibrary.CardSkill s = new A2aCoreLibrary.CardSkill();
            view(args, s.id, id);
            view(args, s.name, name);
            view(args, s.description, description);
            s.tags = args.strArray(tags);
            s.tags_len = new SizeT(tags.size());
            s.examples = args.strArray(examples);
            s.examples_len = new SizeT(examples.size());
            A2aCoreException.check("a2a_card_builder_add_skill", lib.a2a_card_builder_add_skill(h(), s));
        } finally {
            args.release();
        }
        return this;
    }

    /** The card as compact JSON (throws {@link A2aCoreException} with the reason when unusable). */
    public byte[] build() {
        Memory out = new Memory(Native.POINTER_SIZE);
        A2aCoreException.check("a2a_buffer_new", lib.a2a_buffer_new(out));
        Pointer b = out.getPointer(0);
        try {
            int rc = lib.a2a_card_builder_build(h(), b);
            if (rc != 0) {
                throw new A2aCoreException("a2a_card_builder_build", rc, lib.a2a_buffer_last_error(b).string());
            }
            return lib.a2a_buffer_bytes(b).bytes();
        } finally {
            lib.a2a_buffer_free(b);
        }
    }

    @Override
    public void close() {
        cleanable.clean();
    }
}
