package dev.a2acore.internal;

import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import java.nio.charset.StandardCharsets;

/**
 * The raw JNA mapping of {@code include/a2a_core.h}: one method per C function, inherited
 * from {@link AbiFunctions} (generated from the header by {@code scripts/gen-bindings.py}),
 * C types as JNA types ({@code size_t} as {@link SizeT}, {@code bool} results as
 * {@code byte} because a C {@code bool} is one byte, enums as {@code int}, out-parameters as
 * {@link Pointer}s to memory the binding owns). Hand-written here: the struct mirrors the
 * generated methods name (each extends its generated field declarations in {@link AbiStructs}
 * and adds its {@link CStruct} and behaviour), the callback interface, and overloads taking
 * raw native memory.
 * Internal: use the {@code dev.a2acore} API instead.
 *
 * <p>Memory rule: no function here is ever given a pointer into the Java heap that the
 * library could keep. Inputs are native {@link com.sun.jna.Memory} owned by the binding or
 * arrays JNA copies for the duration of the call, and every view is copied out before the
 * next call on the same handle.
 */
public interface A2aCoreLibrary extends AbiFunctions {

    /** {@code a2a_str}/{@code a2a_bytes} returned by value. */
    @CStruct({"a2a_str", "a2a_bytes"})
    class View extends AbiStructs.Str implements Structure.ByValue {
        /**
         * Per thread: the native memory a returned view lands in before JNA copies its two
         * fields into this object (right after the call, on the same thread). A view is only
         * ever a return value, never passed to the library, so nothing reads that memory
         * later; reusing it spares a native allocation and a cleaner registration per call.
         */
        private static final ThreadLocal<com.sun.jna.Memory> LANDING =
            ThreadLocal.withInitial(() -> new com.sun.jna.Memory(16));

        /** Uses the per-thread landing memory when the view fits (see {@link #LANDING}). */
        @Override
        protected com.sun.jna.Memory autoAllocate(int size) {
            com.sun.jna.Memory m = LANDING.get();
            return m.size() >= size ? m : super.autoAllocate(size);
        }

        /** The view's bytes copied out, or null when absent. */
        public byte[] bytes() {
            if (ptr == null) {
                return null;
            }
            long n = len.longValue();
            return n == 0 ? new byte[0] : ptr.getByteArray(0, Math.toIntExact(n));
        }

        /** The view decoded as UTF-8, or null when absent. */
        public String string() {
            byte[] b = bytes();
            return b == null ? null : new String(b, StandardCharsets.UTF_8);
        }
    }

    /** {@code a2a_sse_finish}, filled by {@code a2a_sse_decoder_finish}. */
    @CStruct("a2a_sse_finish")
    class SseFinish extends AbiStructs.SseFinish {}

    // --- outcome --------------------------------------------------------------------

    /**
     * {@code a2a_outcome_get_info} into native memory of at least {@link OutcomeInfo}'s size
     * (read at its offsets, {@link Scratch}): no Structure allocated or read reflectively.
     */
    int a2a_outcome_get_info(Pointer outcome, Pointer out);

    // --- classify, error ids ----------------------------------------------------------

    /** {@code a2a_asked}, embedded in {@code a2a_response} and passed to the tracker. */
    @CStruct("a2a_asked")
    class Asked extends AbiStructs.Asked {
        /** The C offset of {@code field} (the layout LayoutTest checks), for writes to raw memory. */
        public int offsetOf(String field) {
            return fieldOffset(field);
        }
    }

    /** {@code a2a_response}: every pointer is native memory owned by the binding for the call. */
    @CStruct("a2a_response")
    class Response extends AbiStructs.Response {
        /** The C offset of {@code field} (the layout LayoutTest checks), for writes to raw memory. */
        public int offsetOf(String field) {
            return fieldOffset(field);
        }
    }

    /** {@code a2a_stream_item}, in the client machine's and the driver stream's events. */
    @CStruct("a2a_stream_item")
    class StreamItem extends AbiStructs.StreamItem {
        /** The C offset of {@code field} (the layout LayoutTest checks), for reads from raw memory. */
        public int offsetOf(String field) {
            return fieldOffset(field);
        }
    }

    /** {@code a2a_classify} of an {@code a2a_response} in native memory ({@link NativeArgs#response}). */
    int a2a_classify(Pointer response, Pointer out);

    // --- agent cards ------------------------------------------------------------------

    /** {@code a2a_outcome_info}: every field of an outcome, filled by one {@code a2a_outcome_get_info}. */
    @CStruct("a2a_outcome_info")
    class OutcomeInfo extends AbiStructs.OutcomeInfo {
        /** The C offset of {@code field} (the layout LayoutTest checks), for reads from raw memory. */
        public int offsetOf(String field) {
            return fieldOffset(field);
        }
    }

    /** {@code a2a_card_info}. */
    @CStruct("a2a_card_info")
    class CardInfo extends AbiStructs.CardInfo {}

    /** {@code a2a_card_interface}. */
    @CStruct("a2a_card_interface")
    class CardInterface extends AbiStructs.CardInterface {}

    /** {@code a2a_card_preferences}. */
    @CStruct("a2a_card_preferences")
    class CardPreferences extends AbiStructs.CardPreferences {}

    /** {@code a2a_card_choice}. */
    @CStruct("a2a_card_choice")
    class CardChoice extends AbiStructs.CardChoice {}

    /** {@code a2a_card_policy}. */
    @CStruct("a2a_card_policy")
    class CardPolicy extends AbiStructs.CardPolicy {}

    /** {@code a2a_card_resolved}. */
    @CStruct("a2a_card_resolved")
    class CardResolved extends AbiStructs.CardResolved {}

    /** {@code a2a_card_credential_plan}. */
    @CStruct("a2a_card_credential_plan")
    class CardCredentialPlan extends AbiStructs.CardCredentialPlan {}

    /** {@code a2a_card_credential}. */
    @CStruct("a2a_card_credential")
    class CardCredential extends AbiStructs.CardCredential {}

    // --- circuit breaker configuration (the machine keeps the breaker) ------------------

    /** {@code a2a_breaker_config}. */
    @CStruct("a2a_breaker_config")
    class BreakerConfig extends AbiStructs.BreakerConfig {}

    /** {@code a2a_header_hook}: must never throw into native code. */
    interface HeaderHookCallback extends com.sun.jna.Callback {
        /** Called on the thread making the call; {@code setter} is valid only during the call. */
        void invoke(Pointer userdata, Pointer method, SizeT methodLen, Pointer setter);
    }

    // --- tally ------------------------------------------------------------------------

    /** {@code a2a_tally_entry}. */
    @CStruct("a2a_tally_entry")
    class TallyEntry extends AbiStructs.TallyEntry {}

    // --- server side (ffi/src/server.rs, server_hooks.rs) and the card builder -------------

    /** {@code a2a_server_options}. */
    @CStruct("a2a_server_options")
    class ServerOptions extends AbiStructs.ServerOptions {}

    /** {@code a2a_server_request_info}. */
    @CStruct("a2a_server_request_info")
    class ServerRequestInfo extends AbiStructs.ServerRequestInfo {}

    /** {@code a2a_served}. */
    @CStruct("a2a_served")
    class Served extends AbiStructs.Served {}

    /** {@code a2a_server_response_info}. */
    @CStruct("a2a_server_response_info")
    class ServerResponseInfo extends AbiStructs.ServerResponseInfo {}

    /** {@code a2a_card_skill}. */
    @CStruct("a2a_card_skill")
    class CardSkill extends AbiStructs.CardSkill {}

    // --- trust (issue 26: signed cards, push verification, webhook URLs, OAuth2) ------

    /** {@code a2a_oauth2_config}. */
    @CStruct("a2a_oauth2_config")
    class OAuth2Config extends AbiStructs.OAuth2Config {}

}
