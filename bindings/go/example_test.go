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
		Asked: a2a.Asked{Version: a2a.V03, Binding: a2a.JSONRPC, Method: "message/send", RequestID: "1"}})
	defer o.Close()
	line, _, _ := a2a.ModelText("booking", o)
	fmt.Println(o.Channel, *o.State, o.Retry, *o.ErrorID)
	fmt.Println(line)
	// Output:
	// task failed new_task 3f9c0a7b12de
	// REMOTE_FAILED booking: Agent execution failed. (error_id: 3f9c0a7b12de)
}
