package a2a

/*
#include "a2a_core.h"
*/
import "C"

import "sync"

// WithMinProtocol never goes below version (A2A §3.6.3: no silent downgrade): a card
// offering only older interfaces is an *OutcomeError from NewHTTPClient (a transport
// NameCardResolution outcome naming what the card offers), nothing sent to the agent;
// WithInterface with an older version is CodeInvalidArgument.
func WithMinProtocol(version ProtocolVersion) HTTPOption {
	return func(o *httpOptions) { o.minProtocol = version }
}

// WithCardCache turns the agent card cache on (the default) or off. On, every HTTPClient of
// the process shares one cache following HTTP caching (RFC 9111), as the reference driver
// does: a card still fresh (Cache-Control max-age) is not fetched again, a stale one is
// revalidated with If-None-Match and a 304 reuses it, a no-store card is never kept. Off,
// the card is fetched every time.
func WithCardCache(on bool) HTTPOption { return func(o *httpOptions) { o.noCardCache = !on } }

// cardCacheEntries is the most cards the process's shared cache keeps (the library's bound).
const cardCacheEntries = 64

var sharedCards struct {
	once sync.Once
	cfg  *C.a2a_machine_config // owns the shared cache; lives as long as the process
}

// sharedCardCache is the config whose card cache every HTTPClient made with the cache on
// shares (nil if the library could not make it: then there is no cache).
func sharedCardCache() *C.a2a_machine_config {
	sharedCards.once.Do(func() {
		b := C.a2a_client_config_builder_new()
		if b == nil {
			return
		}
		defer C.a2a_client_config_builder_free(b)
		if C.a2a_client_config_builder_set_card_cache(b, cardCacheEntries, nil) != C.A2A_OK {
			return
		}
		var cfg *C.a2a_machine_config
		if C.a2a_client_config_builder_build(b, &cfg) == C.A2A_OK {
			sharedCards.cfg = cfg
		}
	})
	return sharedCards.cfg
}

// setOption sets one integer or flag option (an a2a_client_option) of the builder.
func setOption(b *C.a2a_client_config_builder, option C.uint32_t, value uint64) C.a2a_result {
	return C.a2a_client_config_builder_set(b, option, C.uint64_t(value))
}

// flag is a bool as the builder's flag options take it: 0 or 1.
func flag(v bool) uint64 {
	if v {
		return 1
	}
	return 0
}

// applyCardOptions sets the minimum protocol and the card cache of o on the builder.
func applyCardOptions(b *C.a2a_client_config_builder, o *httpOptions) C.a2a_result {
	if r := setOption(b, C.A2A_CLIENT_OPTION_MIN_PROTOCOL, uint64(o.minProtocol)); r != C.A2A_OK {
		return r
	}
	if shared := sharedCardCache(); !o.noCardCache && shared != nil {
		return C.a2a_client_config_builder_set_card_cache(b, 1, shared)
	}
	return C.A2A_OK
}
