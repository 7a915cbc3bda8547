package a2a

import (
	"net"
	"net/http"
)

// RequestHeaders are r's header fields for ParseJSONRPC and ParseREST, with the Host that
// net/http keeps apart in r.Host (for HTTP/2, the :authority), so that the Host check of
// ServerOptions.BoundAddr can read it.
func RequestHeaders(r *http.Request) []Header {
	headers := make([]Header, 0, len(r.Header)+1)
	if r.Host != "" {
		headers = append(headers, Header{"Host", r.Host})
	}
	for k, vs := range r.Header {
		for _, v := range vs {
			headers = append(headers, Header{k, v})
		}
	}
	return headers
}

// ListenerAddr is the local address of the listener that accepted r (net/http's
// http.LocalAddrContextKey), "" when net/http recorded none: pass it as
// ServerOptions.BoundAddr so that a server listening on loopback answers only for its own
// address.
func ListenerAddr(r *http.Request) string {
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && a != nil {
		return a.String()
	}
	return ""
}
