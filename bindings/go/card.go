package a2a

/*
#include "a2a_core.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
)

// CardShape says which card shape was read.
type CardShape uint32

// Card shapes (a2a_card_shape).
const (
	CardV1_0   CardShape = C.A2A_CARD_SHAPE_V1_0   // supportedInterfaces only
	CardV0_3   CardShape = C.A2A_CARD_SHAPE_V0_3   // the 0.3 url fields only
	CardHybrid CardShape = C.A2A_CARD_SHAPE_HYBRID // both (the SDKs' default)
)

// Card shape names before the V<major>_<minor> scheme.
const (
	// Deprecated: use CardV1_0.
	CardV10 = CardV1_0
	// Deprecated: use CardV0_3.
	CardV03 = CardV0_3
)

// InterfaceList says where in the card an interface was declared.
type InterfaceList uint32

// Interface lists (a2a_interface_list).
const (
	ListSupportedInterfaces  InterfaceList = C.A2A_INTERFACE_LIST_SUPPORTED_INTERFACES
	ListPreferredURL         InterfaceList = C.A2A_INTERFACE_LIST_PREFERRED_URL
	ListAdditionalInterfaces InterfaceList = C.A2A_INTERFACE_LIST_ADDITIONAL_INTERFACES
)

// Origin names a declaration as the cards fixtures do ("supportedInterfaces[2]",
// "url/preferredTransport", "additionalInterfaces[1]").
func Origin(list InterfaceList, index int) string {
	switch list {
	case ListSupportedInterfaces:
		return fmt.Sprintf("supportedInterfaces[%d]", index)
	case ListPreferredURL:
		return "url/preferredTransport"
	case ListAdditionalInterfaces:
		return fmt.Sprintf("additionalInterfaces[%d]", index)
	}
	return ""
}

// SelectionOrder says which order decides among usable interfaces.
type SelectionOrder uint32

// Selection orders (a2a_selection_order); the zero value is client-first.
const (
	ClientFirst SelectionOrder = C.A2A_SELECTION_ORDER_CLIENT_FIRST // versions, then bindings, then card order
	CardFirst   SelectionOrder = C.A2A_SELECTION_ORDER_CARD_FIRST   // card order; the lists only filter
)

// AddressClass says what kind of address an interface host is.
type AddressClass uint32

// Address classes (a2a_address_class).
const (
	AddressPublic             AddressClass = C.A2A_ADDRESS_CLASS_PUBLIC
	AddressLocalhostName      AddressClass = C.A2A_ADDRESS_CLASS_LOCALHOST_NAME
	AddressLoopback           AddressClass = C.A2A_ADDRESS_CLASS_LOOPBACK
	AddressPrivate            AddressClass = C.A2A_ADDRESS_CLASS_PRIVATE
	AddressSharedAddressSpace AddressClass = C.A2A_ADDRESS_CLASS_SHARED_ADDRESS_SPACE
	AddressLinkLocal          AddressClass = C.A2A_ADDRESS_CLASS_LINK_LOCAL
	AddressUniqueLocal        AddressClass = C.A2A_ADDRESS_CLASS_UNIQUE_LOCAL
	AddressUnspecified        AddressClass = C.A2A_ADDRESS_CLASS_UNSPECIFIED
	AddressMulticast          AddressClass = C.A2A_ADDRESS_CLASS_MULTICAST
	AddressOther              AddressClass = C.A2A_ADDRESS_CLASS_OTHER
)

// Card error codes (7xx).
const (
	CodeCardJSON              Code = C.A2A_CARD_JSON
	CodeCardNotAnObject       Code = C.A2A_CARD_NOT_AN_OBJECT
	CodeCardInvalidField      Code = C.A2A_CARD_INVALID_FIELD
	CodeCardInvalidInterface  Code = C.A2A_CARD_INVALID_INTERFACE
	CodeCardNoUsableInterface Code = C.A2A_CARD_NO_USABLE_INTERFACE
	CodeCardInvalidURL        Code = C.A2A_CARD_INVALID_URL
	CodeCardUserinfoInURL     Code = C.A2A_CARD_USERINFO_IN_URL
	CodeCardPlainHTTP         Code = C.A2A_CARD_PLAIN_HTTP
	CodeCardUnsupportedScheme Code = C.A2A_CARD_UNSUPPORTED_SCHEME
	CodeCardURLDrift          Code = C.A2A_CARD_URL_DRIFT
	CodeCardHostMismatch      Code = C.A2A_CARD_HOST_MISMATCH
	CodeCardInvalid           Code = C.A2A_CARD_INVALID
)

var cardKinds = map[Code]string{
	CodeCardJSON: "json", CodeCardNotAnObject: "not_an_object", CodeCardInvalidField: "invalid_field",
	CodeCardInvalidInterface: "invalid_interface", CodeCardNoUsableInterface: "no_usable_interface",
	CodeCardInvalidURL: "invalid_url", CodeCardUserinfoInURL: "userinfo_in_url",
	CodeCardPlainHTTP: "plain_http", CodeCardUnsupportedScheme: "unsupported_scheme",
	CodeCardURLDrift: "card_url_drift", CodeCardHostMismatch: "host_mismatch",
}

// CardErrorKind is the stable kind word of a card error ("host_mismatch",
// "card_url_drift", ...), as the core's CardError::kind and the fixtures spell it; ""
// when err is not a card error.
func CardErrorKind(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return cardKinds[e.Code]
	}
	return ""
}

// CardInterface is one interface a card offers, as declared.
type CardInterface struct {
	URL             string
	Binding         string  // as written (JSON_RPC, HTTP+JSON, GRPC, ...)
	ProtocolVersion *string // as declared
	Tenant          *string
	List            InterfaceList
	Index           int             // position in that list
	KnownBinding    Binding         // 0 when this core does not speak it
	WireVersion     ProtocolVersion // 0 when not one this core speaks
}

// CardInfo summarises a parsed card.
type CardInfo struct {
	Name, Description, Version string
	Streaming                  bool
	PushNotifications          bool
	ExtendedCard               bool
	Shape                      CardShape
	Interfaces                 []CardInterface
}

// CardPreferences are the client's preferences; nil fields take the defaults (1.0 then
// 0.3; JSON-RPC then HTTP+JSON; client order first).
type CardPreferences struct {
	Versions []ProtocolVersion
	Bindings []Binding
	Order    SelectionOrder
}

// CardPolicy is what the caller allows beyond the same-origin rule (nil: https only, no
// extra origins).
type CardPolicy struct {
	AllowHTTP      bool
	AllowedOrigins []string // e.g. "https://api.example.com:8443"
}

// CardChoice is the interface chosen by Select or Resolve.
type CardChoice struct {
	URL             string
	Version         ProtocolVersion
	DeclaredVersion *string
	Binding         Binding
	Tenant          *string
	Index           int // into CardInfo.Interfaces
	List            InterfaceList
	ListIndex       int
	VersionRank     int
	BindingRank     int
	Order           SelectionOrder
	Skipped         int
	Explain         string // one line: what was chosen, by which rule, what was skipped
}

// Origin names where the choice was declared ("supportedInterfaces[0]", ...).
func (c CardChoice) Origin() string { return Origin(c.List, c.ListIndex) }

// ResolvedInterface is a chosen interface whose URL was validated against the card URL.
type ResolvedInterface struct {
	CardChoice
	SameOrigin bool // false when the allow-list admitted it
	Scheme     string
	Host       string
	Port       int
	Path       string
	HostClass  AddressClass
}

// Card is a parsed agent card (both the 0.3 and the 1.0 shapes).
type Card struct {
	owned[*C.a2a_card]
}

func newCardHandle() (*Card, error) {
	var h *C.a2a_card
	if r := C.a2a_card_new(&h); r != C.A2A_OK {
		return nil, codeErr("NewCard", r)
	}
	c := &Card{}
	own(c, &c.owned, h, func(h *C.a2a_card) { C.a2a_card_free(h) })
	return c, nil
}

// ParseCard parses a card body (JSON). The error says what is wrong (JSON line and
// column, or the field).
func ParseCard(body []byte) (*Card, error) {
	c, err := newCardHandle()
	if err != nil {
		return nil, err
	}
	p, n := cBytes(body)
	r := C.a2a_card_parse(c.h, p, n)
	runtime.KeepAlive(body)
	if r != C.A2A_OK {
		err := mkErr("ParseCard", r, C.a2a_card_last_error(c.h))
		c.Close()
		return nil, err
	}
	return c, nil
}

// Info summarises the card, with every interface as declared.
func (c *Card) Info() (CardInfo, error) {
	if c.h == nil {
		return CardInfo{}, ErrClosed
	}
	var ci C.struct_a2a_card_info
	if r := C.a2a_card_get_info(c.h, &ci); r != C.A2A_OK {
		return CardInfo{}, codeErr("Card.Info", r)
	}
	info := CardInfo{
		Name: goStr(ci.name), Description: goStr(ci.description), Version: goStr(ci.version),
		Streaming: bool(ci.streaming), PushNotifications: bool(ci.push_notifications),
		ExtendedCard: bool(ci.extended_card), Shape: CardShape(ci.shape),
		Interfaces: make([]CardInterface, 0, int(ci.interface_count)),
	}
	for i := range int(ci.interface_count) {
		var it C.struct_a2a_card_interface
		if r := C.a2a_card_get_interface(c.h, C.size_t(i), &it); r != C.A2A_OK {
			return CardInfo{}, codeErr("Card.Info", r)
		}
		info.Interfaces = append(info.Interfaces, CardInterface{
			URL: goStr(it.url), Binding: goStr(it.binding), ProtocolVersion: goOptStr(it.protocol_version),
			Tenant: goOptStr(it.tenant), List: InterfaceList(it.origin_list), Index: int(it.origin_index),
			KnownBinding: Binding(it.known_binding), WireVersion: ProtocolVersion(it.wire_version),
		})
	}
	return info, nil
}

// cPrefs lays preferences out for C; the arrays are Go memory, pinned by pin.
func cPrefs(pin *runtime.Pinner, p *CardPreferences) *C.struct_a2a_card_preferences {
	if p == nil {
		return nil
	}
	out := &C.struct_a2a_card_preferences{order: C.uint32_t(p.Order)}
	if len(p.Versions) > 0 {
		vs := make([]C.uint32_t, len(p.Versions))
		for i, v := range p.Versions {
			vs[i] = C.uint32_t(v)
		}
		pin.Pin(&vs[0])
		out.versions, out.versions_len = &vs[0], C.size_t(len(vs))
	}
	if len(p.Bindings) > 0 {
		bs := make([]C.uint32_t, len(p.Bindings))
		for i, b := range p.Bindings {
			bs[i] = C.uint32_t(b)
		}
		pin.Pin(&bs[0])
		out.bindings, out.bindings_len = &bs[0], C.size_t(len(bs))
	}
	return out
}

func cPolicy(pin *runtime.Pinner, p *CardPolicy) *C.struct_a2a_card_policy {
	if p == nil {
		return nil
	}
	out := &C.struct_a2a_card_policy{allow_http: C.bool(p.AllowHTTP)}
	if len(p.AllowedOrigins) > 0 {
		views := make([]C.struct_a2a_str, len(p.AllowedOrigins))
		for i, o := range p.AllowedOrigins {
			views[i].ptr, views[i].len = pinText(pin, o)
		}
		pin.Pin(&views[0])
		out.allowed_origins, out.allowed_origins_len = &views[0], C.size_t(len(views))
	}
	return out
}

func (c *Card) readChoice(ch *C.struct_a2a_card_choice) CardChoice {
	return CardChoice{
		URL: goStr(ch.url), Version: ProtocolVersion(ch.version), DeclaredVersion: goOptStr(ch.declared_version),
		Binding: Binding(ch.binding), Tenant: goOptStr(ch.tenant), Index: int(ch.index),
		List: InterfaceList(ch.origin_list), ListIndex: int(ch.origin_index),
		VersionRank: int(ch.version_rank), BindingRank: int(ch.binding_rank),
		Order: SelectionOrder(ch.order), Skipped: int(ch.skipped_count),
		Explain: goStr(C.a2a_card_choice_explain(c.h)),
	}
}

// Select chooses the interface to use (prefs nil: defaults). The error for no usable
// interface lists what the card offers.
func (c *Card) Select(prefs *CardPreferences) (CardChoice, error) {
	if c.h == nil {
		return CardChoice{}, ErrClosed
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	var ch C.struct_a2a_card_choice
	if r := C.a2a_card_select(c.h, cPrefs(&pin, prefs), &ch); r != C.A2A_OK {
		return CardChoice{}, mkErr("Card.Select", r, C.a2a_card_last_error(c.h))
	}
	return c.readChoice(&ch), nil
}

// Resolve selects an interface and validates its URL against cardURL (the URL the card
// was fetched from, after redirects) under policy. A chosen interface that fails
// validation is an error, never a reason to fall back; CardErrorKind names it.
func (c *Card) Resolve(cardURL string, prefs *CardPreferences, policy *CardPolicy) (ResolvedInterface, error) {
	if c.h == nil {
		return ResolvedInterface{}, ErrClosed
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	up, un := cText(cardURL)
	var res C.struct_a2a_card_resolved
	r := C.a2a_card_resolve(c.h, up, un, cPrefs(&pin, prefs), cPolicy(&pin, policy), &res)
	runtime.KeepAlive(cardURL)
	if r != C.A2A_OK {
		return ResolvedInterface{}, mkErr("Card.Resolve", r, C.a2a_card_last_error(c.h))
	}
	return ResolvedInterface{
		CardChoice: c.readChoice(&res.choice), SameOrigin: bool(res.same_origin),
		Scheme: goStr(res.scheme), Host: goStr(res.host), Port: int(res.port), Path: goStr(res.path),
		HostClass: AddressClass(res.host_class),
	}, nil
}

// ValidateInterfaceURL validates an interface URL against the URL its card came from
// under policy (nil: https only, same origin only), without a parsed card.
func ValidateInterfaceURL(interfaceURL, cardURL string, policy *CardPolicy) (sameOrigin bool, err error) {
	c, err := newCardHandle()
	if err != nil {
		return false, err
	}
	defer c.Close()
	var pin runtime.Pinner
	defer pin.Unpin()
	ip, in := cText(interfaceURL)
	cp, cn := cText(cardURL)
	var same C.bool
	r := C.a2a_card_validate_interface_url(c.h, ip, in, cp, cn, cPolicy(&pin, policy), &same)
	runtime.KeepAlive(interfaceURL)
	runtime.KeepAlive(cardURL)
	if r != C.A2A_OK {
		return false, mkErr("ValidateInterfaceURL", r, C.a2a_card_last_error(c.h))
	}
	return bool(same), nil
}

// CardLocation gives the card URL to fetch for a base URL or a full card URL, and the
// fallback to try when the first answers 404 ("" when none).
func CardLocation(input string) (primary, fallback string, err error) {
	c, err := newCardHandle()
	if err != nil {
		return "", "", err
	}
	defer c.Close()
	p, n := cText(input)
	var pr, fb C.struct_a2a_str
	r := C.a2a_card_location(c.h, p, n, &pr, &fb)
	runtime.KeepAlive(input)
	if r != C.A2A_OK {
		return "", "", mkErr("CardLocation", r, C.a2a_card_last_error(c.h))
	}
	return goStr(pr), goStr(fb), nil
}

// CredentialKind says what the caller must present for one security scheme of a card.
type CredentialKind uint32

// Credential kinds (a2a_card_credential_kind).
const (
	CredentialBearer            CredentialKind = C.A2A_CARD_CREDENTIAL_KIND_BEARER_TOKEN       // Authorization: Bearer (BearerSource says how it is obtained)
	CredentialAPIKey            CredentialKind = C.A2A_CARD_CREDENTIAL_KIND_API_KEY            // an API key in a header, query parameter or cookie
	CredentialBasic             CredentialKind = C.A2A_CARD_CREDENTIAL_KIND_BASIC              // Authorization: Basic
	CredentialOtherHTTP         CredentialKind = C.A2A_CARD_CREDENTIAL_KIND_OTHER_HTTP         // Authorization: <HTTPScheme> ...
	CredentialClientCertificate CredentialKind = C.A2A_CARD_CREDENTIAL_KIND_CLIENT_CERTIFICATE // mutual TLS; no header
	CredentialUnknown           CredentialKind = C.A2A_CARD_CREDENTIAL_KIND_UNKNOWN            // an undeclared scheme, or one of unknown type
)

// String is the word of bindings/fixtures/cards.json ("bearer", "api_key", "basic",
// "other_http", "client_certificate", "unknown").
func (k CredentialKind) String() string {
	switch k {
	case CredentialBearer:
		return "bearer"
	case CredentialAPIKey:
		return "api_key"
	case CredentialBasic:
		return "basic"
	case CredentialOtherHTTP:
		return "other_http"
	case CredentialClientCertificate:
		return "client_certificate"
	case CredentialUnknown:
		return "unknown"
	}
	return fmt.Sprintf("CredentialKind(%d)", uint32(k))
}

// BearerSource says how a bearer token is obtained (0 for other kinds).
type BearerSource uint32

// Bearer sources (a2a_card_bearer_source).
const (
	BearerHTTP          BearerSource = C.A2A_CARD_BEARER_SOURCE_HTTP            // an HTTP Bearer scheme: a token the caller has
	BearerOAuth2        BearerSource = C.A2A_CARD_BEARER_SOURCE_OAUTH2          // an OAuth 2.0 flow
	BearerOpenIDConnect BearerSource = C.A2A_CARD_BEARER_SOURCE_OPEN_ID_CONNECT // OpenID Connect
)

// String is "http", "oauth2", "openid_connect", or "" for the zero value.
func (s BearerSource) String() string {
	switch s {
	case BearerHTTP:
		return "http"
	case BearerOAuth2:
		return "oauth2"
	case BearerOpenIDConnect:
		return "openid_connect"
	case 0:
		return ""
	}
	return fmt.Sprintf("BearerSource(%d)", uint32(s))
}

// APIKeyLocation says where an API key travels (0 for other kinds).
type APIKeyLocation uint32

// API key locations (a2a_card_api_key_location).
const (
	APIKeyHeader APIKeyLocation = C.A2A_CARD_API_KEY_LOCATION_HEADER // a request header (APIKeyName is its name)
	APIKeyQuery  APIKeyLocation = C.A2A_CARD_API_KEY_LOCATION_QUERY  // the query string
	APIKeyCookie APIKeyLocation = C.A2A_CARD_API_KEY_LOCATION_COOKIE // a cookie
)

// String is "header", "query", "cookie", or "" for the zero value.
func (l APIKeyLocation) String() string {
	switch l {
	case APIKeyHeader:
		return "header"
	case APIKeyQuery:
		return "query"
	case APIKeyCookie:
		return "cookie"
	case 0:
		return ""
	}
	return fmt.Sprintf("APIKeyLocation(%d)", uint32(l))
}

// CredentialNeed is one credential a card asks for. String fields are "" when the
// card does not declare them or they do not apply to the kind.
type CredentialNeed struct {
	Scheme         string         // the scheme name in the card
	Kind           CredentialKind // what to present
	BearerSource   BearerSource   // bearer: how the token is obtained
	BearerFormat   string         // bearer: bearerFormat (e.g. "JWT")
	APIKeyLocation APIKeyLocation // API key: header, query or cookie
	APIKeyName     string         // API key: the header, query parameter or cookie name
	HTTPScheme     string         // other HTTP scheme: the scheme as declared
	HeaderName     string         // the header it travels in ("Authorization" or the API key's header); "" for none
	Scopes         []string       // OAuth scopes requested
}

// Word is the word of bindings/fixtures/cards.json: "bearer", "basic",
// "client_certificate", "api_key:<in>:<name>", "other_http:<scheme>" or "unknown".
func (n CredentialNeed) Word() string {
	switch n.Kind {
	case CredentialAPIKey:
		return "api_key:" + n.APIKeyLocation.String() + ":" + n.APIKeyName
	case CredentialOtherHTTP:
		return "other_http:" + n.HTTPScheme
	}
	return n.Kind.String()
}

// CredentialPlan is what a card asks the client to present: alternatives (satisfy any
// one), each a list of needs that must all be met. No alternatives: no credential is
// needed; an empty alternative: anonymous access is one option.
type CredentialPlan struct {
	Alternatives [][]CredentialNeed
	// Stated is false when the card declares schemes but states no requirement, so each
	// declared scheme is offered as an alternative on its own (a guess; many deployed
	// cards do this).
	Stated bool
}

// Credentials reads the card's credential plan (from securitySchemes with security
// (0.3) or securityRequirements (1.0)), copied into Go memory.
func (c *Card) Credentials() (CredentialPlan, error) {
	if c.h == nil {
		return CredentialPlan{}, ErrClosed
	}
	var plan C.struct_a2a_card_credential_plan
	if r := C.a2a_card_credentials(c.h, &plan); r != C.A2A_OK {
		return CredentialPlan{}, codeErr("Card.Credentials", r)
	}
	out := CredentialPlan{Stated: bool(plan.stated)}
	if plan.alternative_count == 0 {
		return out, nil
	}
	out.Alternatives = make([][]CredentialNeed, int(plan.alternative_count))
	for a := range out.Alternatives {
		var count C.size_t
		if r := C.a2a_card_credential_alternative(c.h, C.size_t(a), &count); r != C.A2A_OK {
			return CredentialPlan{}, codeErr("Card.Credentials", r)
		}
		needs := make([]CredentialNeed, int(count))
		for i := range needs {
			var n C.struct_a2a_card_credential
			if r := C.a2a_card_credential_need(c.h, C.size_t(a), C.size_t(i), &n); r != C.A2A_OK {
				return CredentialPlan{}, codeErr("Card.Credentials", r)
			}
			needs[i] = CredentialNeed{
				Scheme: goStr(n.scheme), Kind: CredentialKind(n.kind),
				BearerSource: BearerSource(n.bearer_source), BearerFormat: goStr(n.bearer_format),
				APIKeyLocation: APIKeyLocation(n.api_key_location), APIKeyName: goStr(n.api_key_name),
				HTTPScheme: goStr(n.http_scheme), HeaderName: goStr(n.header_name),
			}
			if n.scope_count > 0 {
				needs[i].Scopes = make([]string, int(n.scope_count))
				for s := range needs[i].Scopes {
					var v C.struct_a2a_str
					if r := C.a2a_card_credential_scope(c.h, C.size_t(a), C.size_t(i), C.size_t(s), &v); r != C.A2A_OK {
						return CredentialPlan{}, codeErr("Card.Credentials", r)
					}
					needs[i].Scopes[s] = goStr(v)
				}
			}
		}
		out.Alternatives[a] = needs
	}
	return out, nil
}
