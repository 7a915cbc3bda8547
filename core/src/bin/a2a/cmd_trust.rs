//! `a2a card canonical` and `a2a card sign` (local, no network), and the key options of
//! `a2a card URL --verify`.

use std::io::Read;

use a2a_core::trust::SystemRandom;
use a2a_core::trust::canonical::Json;
use a2a_core::trust::card_form::card_payload;
use a2a_core::trust::card_sig::{KeyStore, sign_card};
use a2a_core::trust::jwks::{JwkSet, PublicKey};
use a2a_core::trust::jws::{Algorithm, SigningKey};

use crate::args::{Args, outln, usage_error};

/// Exit status for content that is refused (a card that is not I-JSON, a signature that does
/// not verify): the outcome table's 3.
pub const EXIT_REFUSED: i32 = 3;

/// The largest card read from standard input.
const MAX_CARD_BYTES: u64 = 4 * 1024 * 1024;

/// `a2a card canonical --help`.
pub const HELP_CANONICAL: &str = "usage: a2a card canonical [--plain] < card.json

Prints the bytes an agent card signature covers (A2A 1.0 §8.4.1): the card without
`signatures`, fields holding their proto default removed (REQUIRED and `optional` fields
kept as written), in RFC 8785 canonical form. No newline is added.

  --plain   RFC 8785 of the document as it is (no card rules)

exit status: 0 printed; 2 usage error; 3 the input is not I-JSON (duplicate member names
  and lone surrogates are refused)";

/// `a2a card sign --help`.
pub const HELP_SIGN: &str =
    "usage: a2a card sign --key PEM --kid ID [--jku URL] [--alg ALG] [--jwks-out FILE] < card.json

Adds a JWS signature (A2A 1.0 §8.4.2: protected header alg, typ JOSE, kid, jku) to the card
on standard input and prints the signed card (compact JSON, members in their order; existing
signatures are kept).

  --key PEM        the private key: PKCS#8 'PRIVATE KEY' (P-256, P-384, Ed25519, RSA) or
                   'RSA PRIVATE KEY'; the algorithm follows the key (ES256, ES384, EdDSA, RS256)
  --kid ID         the key id clients look the key up by
  --jku URL        where the key set is published (https, on the card's host)
  --alg ALG        another algorithm for an RSA key: RS384, RS512, PS256, PS384, PS512
  --jwks-out FILE  also write the public key as a JWK Set to FILE (to publish at --jku)

exit status: 0 signed; 2 usage error or unreadable key; 3 the card is not an I-JSON object";

fn read_stdin() -> Result<Vec<u8>, String> {
    let mut buf = Vec::new();
    std::io::stdin()
        .take(MAX_CARD_BYTES + 1)
        .read_to_end(&mut buf)
        .map_err(|e| format!("standard input: {e}"))?;
    if buf.len() as u64 > MAX_CARD_BYTES {
        return Err(format!("standard input: more than {MAX_CARD_BYTES} bytes"));
    }
    Ok(buf)
}

fn read_file(what: &str, path: &str) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{what} {path}: {e}"))?;
    if !meta.is_file() || meta.len() > MAX_CARD_BYTES {
        return Err(format!(
            "{what} {path}: not a regular file of at most {MAX_CARD_BYTES} bytes"
        ));
    }
    std::fs::read(path).map_err(|e| format!("{what} {path}: {e}"))
}

/// `a2a card canonical|sign ...` (`sub` is the word after `card`).
pub fn run_local(sub: &str, mut args: Args) -> i32 {
    let command = format!("card {sub}");
    match sub {
        "canonical" => {
            let plain = args.flag("--plain");
            if let Err(e) = args.finish() {
                return usage_error(&command, &e);
            }
            let input = match read_stdin() {
                Ok(b) => b,
                Err(e) => return usage_error(&command, &e),
            };
            match Json::parse(&input) {
                Ok(v) => {
                    let out = if plain {
                        v.canonical()
                    } else {
                        card_payload(&v)
                    };
                    crate::args::out(format_args!("{}", String::from_utf8_lossy(&out)));
                    0
                }
                Err(e) => {
                    eprintln!("a2a {command}: {e}");
                    EXIT_REFUSED
                }
            }
        }
        "sign" => sign(&command, args),
        _ => usage_error("card", &format!("unknown subcommand {sub:?}")),
    }
}

fn sign(command: &str, mut args: Args) -> i32 {
    let rng = SystemRandom::new();
    let parsed = (|| -> Result<_, String> {
        let key_path = args.value("--key")?.ok_or("--key PEM is required")?;
        let kid = args.value("--kid")?.ok_or("--kid ID is required")?;
        let jku = args.value("--jku")?;
        let alg = args.value("--alg")?;
        let jwks_out = args.value("--jwks-out")?;
        args.no_unknown_options()?;
        if let Some(j) = &jku {
            let u = a2a_core::card::Url::parse(j).map_err(|e| format!("--jku {j:?}: {e}"))?;
            if u.scheme() != "https" {
                return Err(format!(
                    "--jku {j:?}: clients fetch key sets over https only"
                ));
            }
        }
        let pem = read_file("--key", &key_path)?;
        let mut key =
            SigningKey::from_pem(&pem, &rng).map_err(|e| format!("--key {key_path}: {e}"))?;
        if let Some(a) = alg {
            let a = Algorithm::parse(&a).map_err(|e| format!("--alg: {e}"))?;
            key = key.with_algorithm(a).map_err(|e| format!("--alg: {e}"))?;
        }
        Ok((key, kid, jku, jwks_out))
    })();
    let (key, kid, jku, jwks_out) = match parsed.and_then(|p| args.finish().map(|()| p)) {
        Ok(p) => p,
        Err(e) => return usage_error(command, &e),
    };
    let input = match read_stdin() {
        Ok(b) => b,
        Err(e) => return usage_error(command, &e),
    };
    let signed = match sign_card(&input, &key, &kid, jku.as_deref(), &rng) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("a2a {command}: {e}");
            return EXIT_REFUSED;
        }
    };
    if let Some(path) = jwks_out {
        let set = serde_json::json!({"keys": [key.public_jwk(&kid)]});
        if let Err(e) = std::fs::write(&path, format!("{set}\n")) {
            eprintln!("a2a {command}: --jwks-out {path}: {e}");
            return crate::args::EXIT_USAGE;
        }
    }
    outln!("{signed}");
    0
}

/// What `a2a card URL --verify` checks the card with.
pub struct Verify {
    /// The keys given (`--jwks FILE`, `--trust-key PEM`); `None`: the card's `jku`s.
    pub keys: Option<KeyStore>,
    /// `--jku-host HOST`: hosts besides the card's a `jku` may name.
    pub jku_hosts: Vec<String>,
}

/// The keys `a2a card URL --verify` trusts: `--jwks FILE` and `--trust-key PEM` (each
/// repeatable), or, without them, the JWK Sets the signatures' `jku`s name (the card's
/// host, or a `--jku-host HOST`). `Ok(None)` without `--verify`.
#[cfg_attr(not(feature = "driver"), allow(dead_code))] // `a2a card URL` is a network command
pub fn verify_options(args: &mut Args) -> Result<Option<Verify>, String> {
    let verify = args.flag("--verify");
    let jwks = args.values("--jwks")?;
    let trusted = args.values("--trust-key")?;
    let jku_hosts = args.values("--jku-host")?;
    if !verify {
        if !jwks.is_empty() || !trusted.is_empty() || !jku_hosts.is_empty() {
            return Err("--jwks, --trust-key and --jku-host go with --verify".to_owned());
        }
        return Ok(None);
    }
    if jwks.is_empty() && trusted.is_empty() {
        return Ok(Some(Verify {
            keys: None,
            jku_hosts,
        }));
    }
    if !jku_hosts.is_empty() {
        return Err(
            "--jku-host is for the card's jku, which is not fetched when --jwks or --trust-key \
             gives the keys"
                .to_owned(),
        );
    }
    let mut store = KeyStore::new();
    for path in &jwks {
        let set = JwkSet::parse(&read_file("--jwks", path)?)
            .map_err(|e| format!("--jwks {path}: {e}"))?;
        for (i, why) in &set.skipped {
            eprintln!("a2a card: --jwks {path}: keys[{i}] not used: {why}");
        }
        store.add_set(&set);
    }
    for path in &trusted {
        let key = PublicKey::from_pem(&read_file("--trust-key", path)?)
            .map_err(|e| format!("--trust-key {path}: {e}"))?;
        store.add_public_key(key, None);
    }
    if store.is_empty() {
        return Err("--verify: the key sets given hold no usable key".to_owned());
    }
    Ok(Some(Verify {
        keys: Some(store),
        jku_hosts: Vec::new(),
    }))
}

/// `a2a push verify --help`.
pub const HELP_PUSH: &str = "usage: a2a push verify [options] < body

Checks one received push notification (A2A 1.0 §4.3.3) the way a webhook should, and prints
the verdict as one JSON object: {\"verdict\":\"accepted\",\"taskId\":..,\"event\":..,\"proofs\":[..]}
or {\"verdict\":\"rejected\",\"reason\":..,\"message\":..}.

  --jwks FILE        trust the keys of this JWK Set for the Authorization: Bearer JWT (repeatable)
  --trust-key PEM    trust this public key for the JWT (repeatable)
  --audience URL     the JWT's aud must contain this (the webhook URL); required with keys
  --issuer ISS       the JWT's iss must be this
  --token T          the config's token: X-A2A-Notification-Token must equal it (also
                     from A2A_PUSH_TOKEN)
  --task-id ID       the task the config was registered for
  --header 'Name: value'   a request header as received (repeatable)
  --skew S           clock difference allowed, seconds (default 60)
  --max-age S        the oldest iat accepted, seconds (default 300)
  --now UNIX         judge times at this Unix time instead of the system clock

At least one of --token and a key is required. One process sees one notification, so the
replay window only matters to a caller of the library that keeps it between requests.

exit status: 0 accepted; 2 usage error; 3 rejected";

/// `a2a push verify ...`.
#[allow(
    clippy::too_many_lines,
    reason = "reads the push-verify flags then prints the verdict; one short block per flag"
)]
pub fn run_push(mut args: Args) -> i32 {
    use a2a_core::trust::push::{PushPolicy, ReplayWindow, Verdict, verify_notification};
    let command = "push verify";
    let parsed = (|| -> Result<_, String> {
        match args.positional("SUBCOMMAND")?.as_str() {
            "verify" => {}
            other => return Err(format!("unknown subcommand {other:?} (expected verify)")),
        }
        let jwks = args.values("--jwks")?;
        let trusted = args.values("--trust-key")?;
        let mut policy = PushPolicy {
            audience: args.value("--audience")?,
            issuer: args.value("--issuer")?,
            token: args.value("--token")?.or_else(|| {
                std::env::var("A2A_PUSH_TOKEN")
                    .ok()
                    .filter(|t| !t.is_empty())
            }),
            task_id: args.value("--task-id")?,
            ..PushPolicy::default()
        };
        if let Some(s) = args.parsed::<i64>("--skew")? {
            policy.skew_secs = s.max(0);
        }
        if let Some(s) = args.parsed::<i64>("--max-age")? {
            policy.max_age_secs = s.max(0);
        }
        let now = args.parsed::<i64>("--now")?;
        let mut headers = Vec::new();
        for h in args.values("--header")? {
            let (n, v) = h
                .split_once(':')
                .ok_or_else(|| format!("--header {h:?}: expected 'Name: value'"))?;
            headers.push((n.trim().to_owned(), v.trim().to_owned()));
        }
        args.no_unknown_options()?;
        let mut keys = KeyStore::new();
        for path in &jwks {
            let set = JwkSet::parse(&read_file("--jwks", path)?)
                .map_err(|e| format!("--jwks {path}: {e}"))?;
            keys.add_set(&set);
        }
        for path in &trusted {
            let key = PublicKey::from_pem(&read_file("--trust-key", path)?)
                .map_err(|e| format!("--trust-key {path}: {e}"))?;
            keys.add_public_key(key, None);
        }
        if keys.is_empty() && policy.token.is_none() {
            return Err(
                "nothing to check with: give --jwks/--trust-key and --audience, or --token".into(),
            );
        }
        if !keys.is_empty() && policy.audience.is_none() {
            return Err(
                "--audience URL is required with keys (the webhook URL the JWT is for)".into(),
            );
        }
        Ok((policy, keys, headers, now))
    })();
    let (policy, keys, headers, now) = match parsed.and_then(|p| args.finish().map(|()| p)) {
        Ok(p) => p,
        Err(e) => return usage_error(command, &e),
    };
    let body = match read_stdin() {
        Ok(b) => b,
        Err(e) => return usage_error(command, &e),
    };
    let now = now.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
    });
    let header_refs: Vec<(&str, &str)> = headers
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    let verdict = verify_notification(
        &header_refs,
        &body,
        &policy,
        &keys,
        now,
        &mut ReplayWindow::new(1),
    );
    outln!("{}", verdict.to_json());
    match verdict {
        Verdict::Accepted(_) => 0,
        Verdict::Rejected(_) => EXIT_REFUSED,
    }
}
