package a2a

/*
#include "a2a_core.h"
*/
import "C"

// WithBreaker turns on the client's circuit breaker, kept by the client machine: one per
// HTTPClient (per agent), shared by its goroutines. While it is open a call is not sent:
// its outcome is transport NameCircuitOpen with RequestSentNo (an *OutcomeError). Start
// from DefaultBreakerConfig. It replaces the standalone Breaker of earlier versions, as
// ClientConfig.Breaker does for the driver's Client. A configuration the library cannot
// run (no opening rule, no trial call) is an error from NewHTTPClient.
func WithBreaker(cfg BreakerConfig) HTTPOption {
	return func(o *httpOptions) { o.breaker = &cfg }
}

// applyBreaker sets the breaker of o, if any, on the builder.
func applyBreaker(b *C.a2a_client_config_builder, o *httpOptions) C.a2a_result {
	if o.breaker == nil {
		return C.A2A_OK
	}
	c := o.breaker.c()
	return C.a2a_client_config_builder_set_breaker(b, &c)
}
