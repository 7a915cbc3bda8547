// Card signing with the @a2a-js/sdk's own signer and verifier (issue 26 interop): the other
// side of tests/interop/test_card_signing.py. Reads a card (JSON) on stdin.
//
//   node card_sign.mjs sign PRIVATE.pem ALG KID   prints the card signed by the SDK's signer
//   node card_sign.mjs verify PUBLIC.pem ALG      exit 0 when the SDK's verifier accepts it,
//                                                 1 (with the SDK's error) when it refuses
//   node card_sign.mjs canonical                  prints the SDK's canonical form
import { readFileSync } from 'node:fs';
import * as jose from 'jose';
import {
  canonicalizeAgentCard,
  generateAgentCardSignature,
  verifyAgentCardSignature,
} from '@a2a-js/sdk';

const [command, keyFile, alg, kid] = process.argv.slice(2);
const card = JSON.parse(readFileSync(0, 'utf8'));

if (command === 'sign') {
  const key = await jose.importPKCS8(readFileSync(keyFile, 'utf8'), alg);
  const signer = generateAgentCardSignature(key, { alg, kid, typ: 'JOSE' });
  process.stdout.write(JSON.stringify(await signer(card)));
} else if (command === 'verify') {
  const key = await jose.importSPKI(readFileSync(keyFile, 'utf8'), alg);
  const seen = [];
  const verifier = verifyAgentCardSignature(async (k, jku) => {
    seen.push([k, jku ?? null]);
    return key;
  });
  try {
    await verifier(card);
    process.stdout.write(JSON.stringify({ verified: true, keys_asked: seen }));
  } catch (e) {
    process.stderr.write(`refused: ${e.message}\n`);
    process.exit(1);
  }
} else if (command === 'canonical') {
  process.stdout.write(canonicalizeAgentCard(card));
} else {
  process.stderr.write('usage: card_sign.mjs sign KEY ALG KID | verify PUB ALG | canonical\n');
  process.exit(2);
}
