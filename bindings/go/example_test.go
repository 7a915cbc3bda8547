package a2a_test

import (
	"fmt"

	"a2a.local/a2a"
)

// A FAILED task read from a captured 0.3 stream event: decoded, classified, and turned
// into the line the orchestrating model reads. The README shows this example.
func Example() {
	dec, _ := a2a.NewDecoder(nil)
	defer dec.Close()
	events, _ := dec.Feed([]byte(`data: {"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t1","contextId":"c1","status":{"state":"failed","message":{"kind":"message","role":"agent","messageId":"m1","parts":[{"kind":"text","text":"Agent execution failed. (error_id: 3f9c0a7b12de)"}]}}}}` + "\r\n\r\n"))
	o, _ := a2a.Classify(a2a.Response{Status: 200, ContentType: "application/json", Body: events[0].Data,
		Asked: a2a.Asked{Version: a2a.V0_3, Binding: a2a.JSON_RPC, Method: "message/send", RequestID: "1"}})
	defer o.Close()
	line, _, _ := a2a.ModelText("booking", o)
	fmt.Println(o.Channel, *o.State, o.Retry, *o.ErrorID)
	fmt.Println(line)
	// Output:
	// task failed new_task 3f9c0a7b12de
	// REMOTE_FAILED booking: Agent execution failed. (error_id: 3f9c0a7b12de)
}

// The reference driver: resolve the agent's card, add credentials to every call, send,
// and hand the orchestrating model one line when the call did not simply succeed.
// (Compiled by go test; run against a live agent.)
func ExampleClient() {
	c, err := a2a.NewClient("https://agent.example.com", nil)
	if err != nil {
		fmt.Println(err) // *a2a.CardResolutionError: the card could not be resolved
		return
	}
	defer c.Close()
	c.AddHeaderHook(func(method string, h *a2a.HeaderSetter) { h.Set("Authorization", "Bearer "+token()) })
	o, _ := c.SendText("book a table for two", &a2a.ClientCallOptions{IdempotencyKey: "a2a-ik1-0fdda6d44efd6b946c79c5d7ece05eec"})
	defer o.Close()
	if line, failed, _ := a2a.ModelText("booking", o); failed {
		fmt.Println(line) // e.g. REMOTE_UNKNOWN booking: the request may or may not have been received ...
	}
}

func token() string { return "secret-from-your-vault" }
