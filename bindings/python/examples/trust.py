"""Trust without a network: sign an agent card and verify it, refuse a tampered copy, check
push notifications at the receiving end (token, replay, wrong task), and refuse webhook URLs
that point inside the network. Keys: core/src/trust/testdata (test keys, never use them)."""

import json
import sys
from pathlib import Path

from a2a_core import (CardSignatureError, PushVerifier, WebhookRefused, canonical,
                      check_webhook_url, sign_card, verify_card)

keys = Path(sys.argv[1] if len(sys.argv) > 1
            else Path(__file__).resolve().parents[3] / 'core' / 'src' / 'trust' / 'testdata')
card = {'name': 'Echo', 'description': 'Says it back', 'version': '1.0.0',
        'supportedInterfaces': [{'url': 'https://agent.example/a2a',
                                 'protocolBinding': 'JSONRPC', 'protocolVersion': '1.0'}],
        'capabilities': {'streaming': True}, 'defaultInputModes': ['text/plain'],
        'defaultOutputModes': ['text/plain'], 'skills': []}

print(canonical(card, card_form=True).decode()[:72], '...')
signed = sign_card(card, (keys / 'p256.pem').read_bytes(), kid='k-1',
                   jku='https://agent.example/jwks.json')
print(verify_card(signed, (keys / 'p256.pub.pem').read_bytes()))
tampered = json.loads(signed) | {'description': 'Says something else'}
try:
    verify_card(tampered, (keys / 'p256.pub.pem').read_bytes())
except CardSignatureError as e:
    print('refused:', e.reason, [(s.kid, s.rejected) for s in e.signatures])

body = b'{"statusUpdate":{"taskId":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_WORKING"}}}'
with PushVerifier(token='s3cret', task_id='t-1') as receiver:
    print(receiver)
    headers = {'X-A2A-Notification-Token': 's3cret'}
    for h in (headers, headers, {'X-A2A-Notification-Token': 'guess'}):
        v = receiver.check(h, body)
        print('accepted' if v.accepted else f'rejected: {v.reason} ({v.detail})')

for url in ('https://hooks.example/a2a', 'https://169.254.169.254/latest/meta-data',
            'https://10.0.0.8/hook', 'http://hooks.example/a2a'):
    try:
        check_webhook_url(url)
        print('webhook ok:', url)
    except WebhookRefused as e:
        print('webhook refused:', e.reason, '-', e.detail)
