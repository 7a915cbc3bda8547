import os
from a2a_core import Client, StreamItem, Traceparent, model_text

trace = Traceparent.new()
hooks = [lambda method: {'Authorization': f'Bearer {os.environ.get("AGENT_TOKEN", "dev")}'},
         lambda method: {'traceparent': str(trace.child())}]
with Client(os.environ['A2A_PEER_URL'], allow_http=True, header_hooks=hooks) as agent:
    print(agent.send('echo hello').to_json())
    for ev in agent.stream('stream 2'):
        print(ev.kind, ev.outcome.state if isinstance(ev, StreamItem) else ev.outcome.success)
    print(model_text('specialist', agent.send('fail')))
