package dev.a2acore;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.a2acore.internal.A2aCoreLibrary;
import dev.a2acore.internal.Layout;
import dev.a2acore.internal.SizeT;
import java.lang.ref.Cleaner;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A parsed agent card (0.3, 1.0 or hybrid shape) and the choice of the interface to call:
 * client preferences, then validation of the chosen URL against the URL the card came from
 * (never a silent fallback). {@link #close()} frees it; a {@link Cleaner} is the safety net.
 * Every method is synchronized.
 */
public final class AgentCard implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();

    /** Which card shape was read. */
    public enum Shape {
        /** 1.0 ({@code supportedInterfaces}). */
        V1_0,
        /** 0.3 ({@code url} + {@code preferredTransport}). */
        V0_3,
        /** Both. */
        HYBRID;

        /**
         * The name before the naming scheme.
         *
         * @deprecated use {@link #V1_0}
         */
        @Deprecated
        public static final Shape V10 = V1_0;

        /**
         * The name before the naming scheme.
         *
         * @deprecated use {@link #V0_3}
         */
        @Deprecated
        public static final Shape V03 = V0_3;
    }

    /** Whether the client's or the card's order decides. */
    public enum Order {
        /** The client's preference lists first. */
        CLIENT_FIRST,
        /** The card's own order first. */
        CARD_FIRST
    }

    /** A summary of the card. */
    public record Info(String name, String description, String version, boolean streaming, boolean pushNotifications,
                       boolean extendedCard, Shape shape, int interfaceCount) {}

    /**
     * One interface as declared.
     *
     * @param origin where it was declared ({@code supportedInterfaces[0]}, {@code url/preferredTransport},
     *     {@code additionalInterfaces[1]})
     */
    public record Interface(String url, String binding, Optional<String> protocolVersion, Optional<String> tenant,
                            String origin, Optional<Binding> knownBinding, Optional<ProtocolVersion> wireVersion) {}

    /** The client's preferences (most preferred first; empty lists mean the library's defaults). */
    public record Preferences(List<ProtocolVersion> versions, List<Binding> bindings, Order order) {
        /** 1.0 then 0.3; JSON-RPC then HTTP+JSON; client order first. */
        public static Preferences defaults() {
            return new Preferences(List.of(), List.of(), Order.CLIENT_FIRST);
        }
    }

    /** What the caller allows beyond https and the card's own origin. */
    public record Policy(boolean allowHttp, List<String> allowedOrigins) {
        /** https only, same origin only. */
        public static Policy strict() {
            return new Policy(false, List.of());
        }
    }

    /** The chosen interface. */
    public record Choice(String url, ProtocolVersion version, Optional<String> declaredVersion, Binding binding,
                         Optional<String> tenant, int index, String origin, int skipped) {}

    /** A chosen interface whose URL was validated. */
    public record Resolved(Choice choice, boolean sameOrigin, String scheme, String host, int port, String path) {}

    /** The card URL(s) to fetch: {@code primary}, then {@code fallback} when the first answers 404. */
    public record Location(String primary, Optional<String> fallback) {}

    /** What the caller must present for one security scheme ({@code a2a_card_credential_kind}). */
    public enum CredentialKind {
        /** {@code Authorization: Bearer <token>} (HTTP Bearer, OAuth 2.0 or OpenID Connect: see {@link CredentialNeed#bearerSource()}). */
        BEARER("bearer"),
        /** An API key in a header, query parameter or cookie. */
        API_KEY("api_key"),
        /** {@code Authorization: Basic <base64(user:password)>}. */
        BASIC("basic"),
        /** Another HTTP auth scheme, {@code Authorization: <scheme> ...}. */
        OTHER_HTTP("other_http"),
        /** A client certificate (mutual TLS); no header. */
        CLIENT_CERTIFICATE("client_certificate"),
        /** The requirement names a scheme the card does not declare, or one of a type the library does not know. */
        UNKNOWN("unknown");

        private final String wireName;

        CredentialKind(String wireName) {
            this.wireName = wireName;
        }

        /** The word of {@code bindings/fixtures/cards.json} ({@code bearer}, {@code api_key}, ...). */
        public String wireName() {
            return wireName;
        }
    }

    /** How a bearer token is obtained ({@code a2a_card_bearer_source}). */
    public enum BearerSource {
        /** An HTTP {@code Bearer} scheme: a token the caller already has. */
        HTTP,
        /** An OAuth 2.0 flow. */
        OAUTH2,
        /** OpenID Connect. */
        OPENID_CONNECT
    }

    /** Where an API key travels ({@code a2a_card_api_key_location}). */
    public enum ApiKeyLocation {
        /** A request header ({@link CredentialNeed#apiKeyName()} is its name). */
        HEADER,
        /** The query string. */
        QUERY,
        /** A cookie. */
        COOKIE;

        /** {@code header}, {@code query} or {@code cookie}. */
        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * One credential a card asks for.
     *
     * @param scheme the scheme name in the card
     * @param bearerSource bearer tokens: how the token is obtained
     * @param bearerFormat bearer tokens: {@code bearerFormat} (e.g. {@code JWT}) when declared
     * @param apiKeyLocation API keys: header, query or cookie
     * @param apiKeyName API keys: the header, query parameter or cookie name
     * @param httpScheme other HTTP schemes: the scheme as declared
     * @param headerName the header the credential travels in ({@code Authorization} or the API
     *     key's header); empty when it travels in none (query, cookie, client certificate, unknown)
     * @param scopes OAuth scopes requested
     */
    public record CredentialNeed(String scheme, CredentialKind kind, Optional<BearerSource> bearerSource,
                                 Optional<String> bearerFormat, Optional<ApiKeyLocation> apiKeyLocation,
                                 Optional<String> apiKeyName, Optional<String> httpScheme, Optional<String> headerName,
                                 List<String> scopes) {
        /**
         * The word of {@code bindings/fixtures/cards.json}: {@code bearer}, {@code basic},
         * {@code client_certificate}, {@code api_key:<in>:<name>}, {@code other_http:<scheme>}
         * or {@code unknown}.
         */
        public String word() {
            return switch (kind) {
                case API_KEY -> "api_key:" + apiKeyLocation.map(ApiKeyLocation::wireName).orElse("")
                    + ":" + apiKeyName.orElse("");
                case OTHER_HTTP -> "other_http:" + httpScheme.orElse("");
                default -> kind.wireName();
            };
        }
    }

    /**
     * What a card asks the client to present: alternatives (satisfy any one), each a list of
     * needs that must all be met. No alternatives: no credential is needed; an empty
     * alternative: anonymous access is one option.
     *
     * @param stated false when the card declares schemes but states no requirement, so each
     *     declared scheme is offered as an alternative on its own (a guess; many deployed cards do this)
     */
    public record CredentialPlan(List<List<CredentialNeed>> alternatives, boolean stated) {}

    private static final class State implements Runnable {
        Pointer handle;

        @Override
        public void run() {
            if (handle != null) {
                A2aCore.lib().a2a_card_free(handle);
                handle = null;
            }
        }
    }

    private final A2aCoreLibrary lib;
    private final State state = new State();
    private final Cleaner.Cleanable cleanable;

    private AgentCard() {
        lib = A2aCore.lib();
        Memory out = new Memory(Native.POINTER_SIZE);
        A2aCoreException.check("a2a_card_new", lib.a2a_card_new(out));
        state.handle = out.getPointer(0);
        cleanable = CLEANER.register(this, state);
    }

    /**
     * Parses a card body (JSON bytes).
     *
     * @throws CardException {@code json}, {@code not_an_object}, {@code invalid_field}, {@code invalid_interface}
     */
    public static AgentCard parse(byte[] json) {
        AgentCard c = new AgentCard();
        try {
            c.check("a2a_card_parse", c.lib.a2a_card_parse(c.h(), json, new SizeT(json.length)));
            return c;
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /** The card URL(s) to fetch for a base URL or a full card URL. */
    public static Location location(String input) {
        try (AgentCard c = new AgentCard()) {
            byte[] b = input.getBytes(StandardCharsets.UTF_8);
            int view = Native.POINTER_SIZE + Native.SIZE_T_SIZE;
            Memory out = new Memory(2L * view);
            c.check("a2a_card_location", c.lib.a2a_card_location(c.h(), b, new SizeT(b.length), out, out.share(view)));
            return new Location(viewAt(out, 0).orElse(""), viewAt(out, view));
        }
    }

    /** Validates an interface URL against the card's URL; true when same origin, false when the allow-list admitted it. */
    public static boolean validateInterfaceUrl(String interfaceUrl, String cardUrl, Policy policy) {
        try (AgentCard c = new AgentCard()) {
            byte[] i = interfaceUrl.getBytes(StandardCharsets.UTF_8);
            byte[] u = cardUrl.getBytes(StandardCharsets.UTF_8);
            List<Memory> keep = new ArrayList<>();
            Memory same = new Memory(1);
            int rc = c.lib.a2a_card_validate_interface_url(c.h(), i, new SizeT(i.length), u, new SizeT(u.length),
                policy(policy, keep), same);
            keep.clear();
            c.check("a2a_card_validate_interface_url", rc);
            return same.getByte(0) != 0;
        }
    }

    /** A summary of the card. */
    public synchronized Info info() {
        A2aCoreLibrary.CardInfo i = new A2aCoreLibrary.CardInfo();
        check("a2a_card_get_info", lib.a2a_card_get_info(h(), i));
        i.read();
        return new Info(str(i.name).orElse(""), str(i.description).orElse(""), str(i.version).orElse(""),
            i.streaming != 0, i.push_notifications != 0, i.extended_card != 0, Shape.values()[i.shape - 1],
            Math.toIntExact(i.interface_count.longValue()));
    }

    /** Every interface, as declared. */
    public synchronized List<Interface> interfaces() {
        int n = info().interfaceCount();
        List<Interface> out = new ArrayList<>(n);
        for (int k = 0; k < n; k++) {
            A2aCoreLibrary.CardInterface ci = new A2aCoreLibrary.CardInterface();
            check("a2a_card_get_interface", lib.a2a_card_get_interface(h(), new SizeT(k), ci));
            ci.read();
            out.add(new Interface(str(ci.url).orElse(""), str(ci.binding).orElse(""), str(ci.protocol_version),
                str(ci.tenant), origin(ci.origin_list, ci.origin_index.longValue()), Binding.fromCode(ci.known_binding),
                ProtocolVersion.fromCode(ci.wire_version)));
        }
        return out;
    }

    /** Chooses the interface for the preferences (no URL validation). */
    public synchronized Choice select(Preferences prefs) {
        List<Memory> keep = new ArrayList<>();
        A2aCoreLibrary.CardChoice c = new A2aCoreLibrary.CardChoice();
        int rc = lib.a2a_card_select(h(), prefs(prefs, keep), c);
        keep.clear();
        check("a2a_card_select", rc);
        c.read();
        return choice(c);
    }

    /**
     * Chooses the interface and validates its URL against {@code cardUrl} (where the card was
     * fetched from, after redirects) under {@code policy}.
     *
     * @throws CardException e.g. {@code no_usable_interface}, {@code plain_http}, {@code card_url_drift}, {@code host_mismatch}
     */
    public synchronized Resolved resolve(String cardUrl, Preferences prefs, Policy policy) {
        List<Memory> keep = new ArrayList<>();
        byte[] u = cardUrl.getBytes(StandardCharsets.UTF_8);
        A2aCoreLibrary.CardResolved r = new A2aCoreLibrary.CardResolved();
        int rc = lib.a2a_card_resolve(h(), u, new SizeT(u.length), prefs(prefs, keep), policy(policy, keep), r);
        keep.clear();
        check("a2a_card_resolve", rc);
        r.read();
        return new Resolved(choice(r.choice), r.same_origin != 0, str(r.scheme).orElse(""), str(r.host).orElse(""),
            Short.toUnsignedInt(r.port), str(r.path).orElse("/"));
    }

    /**
     * Which credentials the card asks for, from {@code securitySchemes} with {@code security}
     * (0.3) or {@code securityRequirements} (1.0).
     */
    public synchronized CredentialPlan credentials() {
        Pointer h = h();
        A2aCoreLibrary.CardCredentialPlan plan = new A2aCoreLibrary.CardCredentialPlan();
        check("a2a_card_credentials", lib.a2a_card_credentials(h, plan));
        plan.read();
        long alternatives = plan.alternative_count.longValue();
        List<List<CredentialNeed>> alts = new ArrayList<>(Math.toIntExact(alternatives));
        Memory count = new Memory(Native.SIZE_T_SIZE);
        Memory view = new Memory(Native.POINTER_SIZE + Native.SIZE_T_SIZE);
        for (long a = 0; a < alternatives; a++) {
            check("a2a_card_credential_alternative", lib.a2a_card_credential_alternative(h, new SizeT(a), count));
            long needs = Layout.sizeT(count, 0);
            List<CredentialNeed> alt = new ArrayList<>(Math.toIntExact(needs));
            for (long i = 0; i < needs; i++) {
                A2aCoreLibrary.CardCredential c = new A2aCoreLibrary.CardCredential();
                check("a2a_card_credential_need", lib.a2a_card_credential_need(h, new SizeT(a), new SizeT(i), c));
                c.read();
                long scopeCount = c.scope_count.longValue();
                List<String> scopes = new ArrayList<>(Math.toIntExact(scopeCount));
                for (long k = 0; k < scopeCount; k++) {
                    check("a2a_card_credential_scope",
                        lib.a2a_card_credential_scope(h, new SizeT(a), new SizeT(i), new SizeT(k), view));
                    scopes.add(viewAt(view, 0).orElse(""));
                }
                alt.add(new CredentialNeed(str(c.scheme).orElse(""), credentialKind(c.kind),
                    enumOf(BearerSource.values(), c.bearer_source, "bearer source"), str(c.bearer_format),
                    enumOf(ApiKeyLocation.values(), c.api_key_location, "API key location"), str(c.api_key_name),
                    str(c.http_scheme), str(c.header_name), List.copyOf(scopes)));
            }
            alts.add(List.copyOf(alt));
        }
        return new CredentialPlan(List.copyOf(alts), plan.stated != 0);
    }

    private static CredentialKind credentialKind(int code) {
        if (code < 1 || code > CredentialKind.values().length) {
            throw new IllegalStateException("a2a_card_credential_need returned an unknown kind " + code);
        }
        return CredentialKind.values()[code - 1];
    }

    /** The C numbering of these enums starts at 1 in declaration order; 0 means "not this kind". */
    private static <E> Optional<E> enumOf(E[] values, int code, String what) {
        if (code == 0) {
            return Optional.empty();
        }
        if (code < 0 || code > values.length) {
            throw new IllegalStateException("a2a_card_credential_need returned an unknown " + what + " " + code);
        }
        return Optional.of(values[code - 1]);
    }

    /** A one-line explanation of the last successful selection, for logs. */
    public synchronized Optional<String> explain() {
        return Optional.ofNullable(lib.a2a_card_choice_explain(h()).string());
    }

    /** Frees the card; idempotent. */
    @Override
    public synchronized void close() {
        cleanable.clean();
    }

    /** The native card, for a call made while this card is alive (e.g. {@code a2a_oauth2_new}). */
    synchronized Pointer nativeHandle() {
        return h();
    }

    private Pointer h() {
        if (state.handle == null) {
            throw new IllegalStateException("AgentCard is closed");
        }
        return state.handle;
    }

    private void check(String function, int rc) {
        if (rc == 0) {
            return;
        }
        if (rc == A2aCoreException.NONE) {
            throw new IllegalStateException(function + ": no card parsed");
        }
        String detail = lib.a2a_card_last_error(h()).string();
        if (CardException.isCardCode(rc)) {
            throw new CardException(function, rc, detail);
        }
        throw new A2aCoreException(function, rc, detail);
    }

    private Choice choice(A2aCoreLibrary.CardChoice c) {
        return new Choice(str(c.url).orElse(""), ProtocolVersion.fromCode(c.version).orElseThrow(),
            str(c.declared_version), Binding.fromCode(c.binding).orElseThrow(), str(c.tenant),
            Math.toIntExact(c.index.longValue()), origin(c.origin_list, c.origin_index.longValue()),
            Math.toIntExact(c.skipped_count.longValue()));
    }

    private static String origin(int list, long index) {
        switch (list) {
            case 1: return "supportedInterfaces[" + index + "]";
            case 2: return "url/preferredTransport";
            case 3: return "additionalInterfaces[" + index + "]";
            default: return "unknown";
        }
    }

    private static A2aCoreLibrary.CardPreferences prefs(Preferences p, List<Memory> keep) {
        A2aCoreLibrary.CardPreferences c = new A2aCoreLibrary.CardPreferences();
        c.versions = ints(p.versions().stream().mapToInt(ProtocolVersion::code).toArray(), keep);
        c.versions_len = new SizeT(p.versions().size());
        c.bindings = ints(p.bindings().stream().mapToInt(Binding::code).toArray(), keep);
        c.bindings_len = new SizeT(p.bindings().size());
        c.order = p.order() == Order.CLIENT_FIRST ? 1 : 2;
        return c;
    }

    private static A2aCoreLibrary.CardPolicy policy(Policy p, List<Memory> keep) {
        A2aCoreLibrary.CardPolicy c = new A2aCoreLibrary.CardPolicy();
        c.allow_http = (byte) (p.allowHttp() ? 1 : 0);
        int n = p.allowedOrigins().size();
        c.allowed_origins_len = new SizeT(n);
        if (n > 0) {
            int view = Native.POINTER_SIZE + Native.SIZE_T_SIZE;
            Memory views = new Memory((long) n * view);
            keep.add(views);
            for (int i = 0; i < n; i++) {
                byte[] b = p.allowedOrigins().get(i).getBytes(StandardCharsets.UTF_8);
                Memory m = new Memory(Math.max(1, b.length));
                m.write(0, b, 0, b.length);
                keep.add(m);
                views.setPointer((long) i * view, m);
                if (Native.SIZE_T_SIZE == 8) {
                    views.setLong((long) i * view + Native.POINTER_SIZE, b.length);
                } else {
                    views.setInt((long) i * view + Native.POINTER_SIZE, b.length);
                }
            }
            c.allowed_origins = views;
        }
        return c;
    }

    private static Pointer ints(int[] values, List<Memory> keep) {
        if (values.length == 0) {
            return null;
        }
        Memory m = new Memory(4L * values.length);
        m.write(0, values, 0, values.length);
        keep.add(m);
        return m;
    }

    private static Optional<String> str(Layout.BytesView v) {
        if (v == null || v.ptr == null) {
            return Optional.empty();
        }
        long n = v.len.longValue();
        return Optional.of(n == 0 ? "" : new String(v.ptr.getByteArray(0, Math.toIntExact(n)), StandardCharsets.UTF_8));
    }

    private static Optional<String> viewAt(Memory m, int at) {
        Pointer p = m.getPointer(at);
        if (p == null) {
            return Optional.empty();
        }
        long n = Native.SIZE_T_SIZE == 8 ? m.getLong(at + Native.POINTER_SIZE)
            : Integer.toUnsignedLong(m.getInt(at + Native.POINTER_SIZE));
        return Optional.of(n == 0 ? "" : new String(p.getByteArray(0, Math.toIntExact(n)), StandardCharsets.UTF_8));
    }
}
