"""OAuth2 client credentials and a verified card against the demo agent:
`a2a demo --serve --bearer-token T --sign-card core/src/trust/testdata/p256.pem`, then
`python examples/oauth2.py URL T core/src/trust/testdata`. httpx's log shows every request."""

import asyncio
import logging
import sys
from pathlib import Path

from a2a_core import AsyncClient, CardSignatureError, ClientCredentials, OAuth2Error, fetch_card


async def main(url: str, secret: str, keys: Path) -> None:
    logging.basicConfig(format='  %(name)s: %(message)s')
    logging.getLogger('httpx').setLevel(logging.INFO)
    card = fetch_card(url, allow_http=True, verify=(keys / 'p256.pub.pem').read_bytes())
    print('card verified:', card.signature)
    try:
        fetch_card(url, allow_http=True, verify=(keys / 'ed25519.pub.pem').read_bytes())
    except CardSignatureError as e:
        print('other key:', e.reason, [s.rejected for s in e.signatures])

    creds = ClientCredentials('demo', secret, allow_http_loopback=True)  # token URL: the card's
    print(creds)
    async with AsyncClient(url, allow_http=True, oauth2=creds) as client:
        for text in ('echo one', 'echo two'):
            o = await client.send(text)
            print('send:', o.state, o.result.text)

    wrong = ClientCredentials('demo', 'not-the-secret', allow_http_loopback=True)
    try:
        async with AsyncClient(url, allow_http=True, oauth2=wrong) as client:
            await client.send('echo three')
    except OAuth2Error as e:
        print('refused:', e.reason, e.error, '-', e)
    async with AsyncClient(url, allow_http=True) as client:
        o = await client.send('echo four')
        print('no token:', o.channel, o.http_status, o.error)


asyncio.run(main(sys.argv[1], sys.argv[2], Path(sys.argv[3])))
