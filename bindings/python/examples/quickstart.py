from a2a_core import SseDecoder, StreamTracker, classify, model_text

body = (b'data: {"jsonrpc":"2.0","id":1,"result":{"kind":"status-update","taskId":"t1","contextId":"c1",'
        b'"final":true,"status":{"state":"failed","message":{"kind":"message","role":"agent","messageId":"m1",'
        b'"parts":[{"kind":"text","text":"Agent execution failed. (error_id: 7dac02a750a9)"}]}}}}\r\n\r\n')
decoder, tracker = SseDecoder(), StreamTracker('0.3', 'jsonrpc', 'message/stream', request_id=1)
for chunk in (body[:50], body[50:]):  # chunks split anywhere
    for item in tracker.on_chunk(decoder, chunk):
        print(item.kind, item.outcome.state, 'final' if item.final else '')
end = tracker.finish()
print(end.kind, end.outcome.channel, end.outcome.retry, end.outcome.error_id)
print(model_text('booking', end.outcome))
print(classify(404, b'<html>Not Found</html>', 'text/html').to_json())
