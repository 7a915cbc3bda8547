from a2a_core import SseDecoder, classify, model_text

body = (b'data: {"jsonrpc":"2.0","id":1,"result":{"kind":"status-update","taskId":"t1","contextId":"c1",'
        b'"final":true,"status":{"state":"failed","message":{"kind":"message","role":"agent","messageId":"m1",'
        b'"parts":[{"kind":"text","text":"Agent execution failed. (error_id: 7dac02a750a9)"}]}}}}\r\n\r\n')
decoder = SseDecoder()
for chunk in (body[:50], body[50:]):  # chunks split anywhere
    for event in decoder.feed(chunk):
        print(event.type, len(event.data), 'bytes of data')
o = classify(200, body, 'text/event-stream', '0.3', 'jsonrpc', 'message/stream', 1)
print(o.channel, o.state, o.retry, o.error_id)
print(model_text('booking', o))
print(classify(404, b'<html>Not Found</html>', 'text/html').to_json())
