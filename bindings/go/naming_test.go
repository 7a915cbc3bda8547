package a2a

import (
	"errors"
	"testing"
)

// The names before the one naming scheme (V<major>_<minor>, JSON_RPC / HTTP_JSON) still
// compile and mean the same values.
func TestDeprecatedNamesAreAliases(t *testing.T) {
	if V03 != V0_3 || V10 != V1_0 || V0_3.String() != "0.3" || V1_0.String() != "1.0" {
		t.Fatalf("versions: %v %v %v %v", V03, V0_3, V10, V1_0)
	}
	if JSONRPC != JSON_RPC || HTTPJSON != HTTP_JSON || JSON_RPC.String() != "JSONRPC" {
		t.Fatalf("bindings: %v %v %v %v", JSONRPC, JSON_RPC, HTTPJSON, HTTP_JSON)
	}
	if CardV10 != CardV1_0 || CardV03 != CardV0_3 || CardV1_0 == CardV0_3 {
		t.Fatal("card shapes")
	}
	// The deprecated ServerOptions fields still choose what is served: a 0.3 method on a
	// server that serves only 1.0 is refused.
	jsonCT := []Header{{"Content-Type", "application/json"}}
	req, err := ParseJSONRPC(jsonCT, []byte(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t"}}`), &ServerOptions{V10: true})
	if !errors.Is(err, CodeServerRefused) || req == nil {
		t.Fatalf("0.3 method on a 1.0-only server (old field names): %v", err)
	}
	req.Close()
	ok, err := ParseJSONRPC(jsonCT, []byte(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t"}}`), &ServerOptions{V03: true})
	if err != nil {
		t.Fatalf("0.3 method on a 0.3 server (old field names): %v", err)
	}
	ok.Close()
}
