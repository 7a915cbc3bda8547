//! `a2a card canonical`, `a2a card sign` and `a2a card URL --verify` (issue 26, part 1): the
//! spec's canonicalization example through the CLI, a card signed by the CLI verifying, and
//! a card served signed by `a2a demo --serve --sign-card` accepted or refused (exit 3).
#![cfg(all(feature = "trust", feature = "driver"))]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const KEYS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/trust/testdata");

fn key(name: &str) -> String {
    format!("{KEYS}/{name}")
}

fn a2a_with_stdin(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_a2a"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run a2a");
    // A command refused before it reads standard input closes the pipe: not an error here.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

fn a2a(args: &[&str]) -> Output {
    a2a_with_stdin(args, b"")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

const CARD: &str = r#"{"name":"Echo","description":"Says it back","version":"1.0.0",
  "supportedInterfaces":[{"url":"https://agent.example/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
  "capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
  "skills":[{"id":"echo","name":"Echo","description":"Echoes","tags":["demo"]}]}"#;

#[test]
fn canonical_prints_the_spec_example_byte_for_byte() {
    let out = a2a_with_stdin(
        &["card", "canonical"],
        br#"{
  "name": "Example Agent",
  "description": "",
  "capabilities": {
    "streaming": false,
    "pushNotifications": false,
    "extensions": []
  },
  "skills": []
}"#,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        r#"{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}"#
    );
    let plain = a2a_with_stdin(&["card", "canonical", "--plain"], br#"{"b":[],"a":""}"#);
    assert_eq!(text(&plain.stdout), r#"{"a":"","b":[]}"#);
    let dup = a2a_with_stdin(&["card", "canonical"], br#"{"a":1,"a":2}"#);
    assert_eq!(dup.status.code(), Some(3));
    assert!(text(&dup.stderr).contains("duplicate member name \"a\""));
}

#[test]
fn sign_then_verify_a_local_card_and_its_jwks() {
    let dir = std::env::temp_dir().join(format!("a2a-cli-trust-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (pem, alg) in [
        ("p256.pem", "ES256"),
        ("rsa2048.pem", "RS256"),
        ("ed25519.pem", "EdDSA"),
    ] {
        let jwks = dir.join(format!("{alg}.jwks.json"));
        let out = a2a_with_stdin(
            &[
                "card",
                "sign",
                "--key",
                &key(pem),
                "--kid",
                "k1",
                "--jku",
                "https://agent.example/jwks.json",
                "--jwks-out",
                jwks.to_str().unwrap(),
            ],
            CARD.as_bytes(),
        );
        assert_eq!(out.status.code(), Some(0), "{alg}: {}", text(&out.stderr));
        let signed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(signed["name"], "Echo");
        let set: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&jwks).unwrap()).unwrap();
        assert_eq!(set["keys"][0]["alg"], alg);
        // Verified by the library with the JWKS the CLI wrote.
        let keys = a2a_core::trust::jwks::JwkSet::parse(&std::fs::read(&jwks).unwrap()).unwrap();
        let mut store = a2a_core::trust::card_sig::KeyStore::new();
        store.add_set(&keys);
        let v = a2a_core::trust::card_sig::verify_card(&out.stdout, &store).unwrap();
        assert_eq!((v.alg.as_str(), v.kid.as_deref()), (alg, Some("k1")));
        assert_eq!(v.jku.as_deref(), Some("https://agent.example/jwks.json"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sign_refuses_what_it_cannot_do() {
    let cases: &[(&[&str], i32, &str)] = &[
        (&["card", "sign", "--kid", "k"], 2, "--key PEM is required"),
        (
            &["card", "sign", "--key", "/nonexistent.pem", "--kid", "k"],
            2,
            "/nonexistent.pem",
        ),
        (
            &["card", "sign", "--kid", "k", "--key", "P256_SEC1"],
            2,
            "openssl pkcs8 -topk8",
        ),
        (
            &["card", "sign", "--kid", "k", "--key", "P256_PUB"],
            2,
            "no '-----BEGIN PRIVATE KEY-----'",
        ),
        (
            &[
                "card", "sign", "--kid", "k", "--key", "P256", "--alg", "RS256",
            ],
            2,
            "does not fit",
        ),
        (
            &[
                "card", "sign", "--kid", "k", "--key", "P256", "--alg", "none",
            ],
            2,
            "\"alg\":\"none\" refused",
        ),
        (
            &[
                "card",
                "sign",
                "--kid",
                "k",
                "--key",
                "P256",
                "--jku",
                "http://a.example/k",
            ],
            2,
            "https only",
        ),
    ];
    for (args, code, needle) in cases {
        let args: Vec<String> = args
            .iter()
            .map(|a| match *a {
                "P256_SEC1" => key("p256-sec1.pem"),
                "P256_PUB" => key("p256.pub.pem"),
                "P256" => key("p256.pem"),
                other => other.to_owned(),
            })
            .collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = a2a_with_stdin(&args, CARD.as_bytes());
        assert_eq!(
            out.status.code(),
            Some(*code),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stderr).contains(needle),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(out.stdout.is_empty());
    }
    let p256 = key("p256.pem");
    let out = a2a_with_stdin(&["card", "sign", "--key", &p256, "--kid", "k"], b"[1]");
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
}

/// `a2a demo --serve`, its card signed with `pem` (if any); killed on drop.
struct Demo {
    child: Child,
    url: String,
}

impl Demo {
    fn start(extra: &[&str]) -> Demo {
        let mut child = Command::new(env!("CARGO_BIN_EXE_a2a"))
            .args(["demo", "--serve"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn a2a demo --serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .trim()
            .strip_prefix("READY ")
            .expect("READY <url>")
            .to_owned();
        Demo { child, url }
    }
}

impl Drop for Demo {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline && matches!(self.child.try_wait(), Ok(None)) {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

#[test]
fn a_served_card_is_verified_or_refused_with_exit_3() {
    let demo = Demo::start(&["--sign-card", &key("ed25519.pem"), "--card-kid", "demo-1"]);
    let url = demo.url.as_str();
    let ok = a2a(&[
        "card",
        url,
        "--allow-http",
        "--verify",
        "--trust-key",
        &key("ed25519.pub.pem"),
    ]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
    assert!(
        text(&ok.stdout).contains("signature: verified (EdDSA, kid demo-1, signatures[0])"),
        "{}",
        text(&ok.stdout)
    );
    let json = a2a(&[
        "card",
        url,
        "--allow-http",
        "--json",
        "--verify",
        "--trust-key",
        &key("ed25519.pub.pem"),
    ]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["signature"]["verified"], true);
    assert_eq!(v["signature"]["alg"], "EdDSA");

    // The wrong key: refused, with the reason, exit 3, and nothing printed as the card.
    let wrong = a2a(&[
        "card",
        url,
        "--allow-http",
        "--verify",
        "--trust-key",
        &key("p256.pub.pem"),
    ]);
    assert_eq!(wrong.status.code(), Some(3));
    assert!(wrong.stdout.is_empty(), "{}", text(&wrong.stdout));
    assert!(
        text(&wrong.stderr).contains("refused: the card's signature does not verify")
            && text(&wrong.stderr).contains("no trusted key fits it (kid \"demo-1\")"),
        "{}",
        text(&wrong.stderr)
    );
    // A JWK Set whose key has another kid.
    let dir = std::env::temp_dir().join(format!("a2a-cli-trust-jwks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let jwks = dir.join("jwks.json");
    let signed = a2a_with_stdin(
        &[
            "card",
            "sign",
            "--key",
            &key("ed25519.pem"),
            "--kid",
            "other",
            "--jwks-out",
            jwks.to_str().unwrap(),
        ],
        CARD.as_bytes(),
    );
    assert_eq!(signed.status.code(), Some(0));
    let unknown = a2a(&[
        "card",
        url,
        "--allow-http",
        "--verify",
        "--jwks",
        jwks.to_str().unwrap(),
    ]);
    assert_eq!(unknown.status.code(), Some(3), "{}", text(&unknown.stderr));
    // The same key under the card's kid verifies.
    let set = std::fs::read_to_string(&jwks)
        .unwrap()
        .replace("\"other\"", "\"demo-1\"");
    std::fs::write(&jwks, set).unwrap();
    let good = a2a(&[
        "card",
        url,
        "--allow-http",
        "--verify",
        "--jwks",
        jwks.to_str().unwrap(),
    ]);
    assert_eq!(good.status.code(), Some(0), "{}", text(&good.stderr));
    let _ = std::fs::remove_dir_all(&dir);

    // Without keys the signatures' jku is fetched; this card's signature names none.
    let bare = a2a(&["card", url, "--allow-http", "--verify"]);
    assert_eq!(bare.status.code(), Some(3));
    assert!(
        text(&bare.stderr).contains("no signature names a jku"),
        "{}",
        text(&bare.stderr)
    );
    // Flags that cannot work are usage errors (nothing fetched).
    let both = a2a(&[
        "card",
        url,
        "--allow-http",
        "--verify",
        "--trust-key",
        &key("ed25519.pub.pem"),
        "--jku-host",
        "keys.example",
    ]);
    assert_eq!(both.status.code(), Some(2));
    let orphan = a2a(&["card", url, "--allow-http", "--jwks", "x.json"]);
    assert_eq!(orphan.status.code(), Some(2));
}

#[test]
fn an_unsigned_card_is_refused_under_verify() {
    let demo = Demo::start(&[]);
    let out = a2a(&[
        "card",
        &demo.url,
        "--allow-http",
        "--verify",
        "--trust-key",
        &key("p256.pub.pem"),
    ]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        text(&out.stderr).contains("card is not signed"),
        "{}",
        text(&out.stderr)
    );
    // Without --verify the same card is shown as before.
    let plain = a2a(&["card", &demo.url, "--allow-http"]);
    assert_eq!(plain.status.code(), Some(0));
}

#[test]
fn push_verify_prints_the_verdict() {
    use a2a_core::trust::SystemRandom;
    use a2a_core::trust::jws::SigningKey;
    let pem = std::fs::read(key("p256.pem")).unwrap();
    let k = SigningKey::from_pem(&pem, &SystemRandom::new()).unwrap();
    let hook = "https://client.example/hooks/a2a";
    let now: i64 = 1_800_000_000;
    let claims = serde_json::json!({"iss": "https://agent.example", "aud": hook, "iat": now,
                                    "exp": now + 120, "jti": "n-7", "taskId": "t-1"});
    let serde_json::Value::Object(claims) = claims else {
        unreachable!()
    };
    let jwt = a2a_core::trust::jwt::sign(&claims, &k, "push", &SystemRandom::new()).unwrap();
    let auth = format!("Authorization: Bearer {jwt}");
    let body = br#"{"statusUpdate":{"taskId":"t-1","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}}"#;
    let pubkey = key("p256.pub.pem");
    let now_s = now.to_string();
    let base = [
        "push",
        "verify",
        "--trust-key",
        &pubkey,
        "--audience",
        hook,
        "--task-id",
        "t-1",
        "--header",
        &auth,
        "--now",
        &now_s,
    ];
    let ok = a2a_with_stdin(&base, body);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
    let v: serde_json::Value = serde_json::from_slice(&ok.stdout).unwrap();
    assert_eq!(v["verdict"], "accepted");
    assert_eq!(v["taskId"], "t-1");
    assert_eq!(v["proofs"][0]["jti"], "n-7");

    // Expired by the time it is judged; sent to another webhook; for another task.
    let later = (now + 500).to_string();
    let mut args = base.to_vec();
    let last = args.len() - 1;
    args[last] = &later;
    let out = a2a_with_stdin(&args, body);
    assert_eq!(out.status.code(), Some(3));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["verdict"].as_str(), v["reason"].as_str()),
        (Some("rejected"), Some("expired"))
    );
    let mut args = base.to_vec();
    args[5] = "https://other.example/hook";
    let out = a2a_with_stdin(&args, body);
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()["reason"],
        "wrong_audience"
    );
    let mut args = base.to_vec();
    args[7] = "t-2";
    let out = a2a_with_stdin(&args, body);
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()["reason"],
        "task_mismatch"
    );

    // The token path; the token never appears in the output.
    let tok = a2a_with_stdin(
        &[
            "push",
            "verify",
            "--token",
            "s3cret",
            "--header",
            "X-A2A-Notification-Token: s3cret",
        ],
        body,
    );
    assert_eq!(tok.status.code(), Some(0), "{}", text(&tok.stdout));
    let bad = a2a_with_stdin(
        &[
            "push",
            "verify",
            "--token",
            "s3cret",
            "--header",
            "X-A2A-Notification-Token: guess",
        ],
        body,
    );
    assert_eq!(bad.status.code(), Some(3));
    assert!(!text(&bad.stdout).contains("s3cret") && !text(&bad.stderr).contains("s3cret"));
    // Nothing to check with, or keys without an audience: usage errors.
    assert_eq!(
        a2a_with_stdin(&["push", "verify"], body).status.code(),
        Some(2)
    );
    assert_eq!(
        a2a_with_stdin(&["push", "verify", "--trust-key", &pubkey], body)
            .status
            .code(),
        Some(2)
    );
}

/// One loopback server: the card at `/.well-known/agent-card.json`, a token endpoint at
/// `/token` (client `agent`, secret `s3cret`, Basic authentication) and a JSON-RPC agent at
/// `/a2a` that records the `Authorization` header of each call.
struct OAuthWorld {
    base: String,
    calls: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    tokens_issued: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl OAuthWorld {
    fn start(expires_in: u64) -> OAuthWorld {
        use std::io::Read;
        use std::sync::atomic::Ordering;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let calls = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let tokens_issued = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let (c2, t2, b2) = (calls.clone(), tokens_issued.clone(), base.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().take(64) {
                let Ok(mut s) = stream else { continue };
                s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                // Head, then Content-Length bytes of body.
                let (head, body) = loop {
                    let n = match s.read(&mut chunk) {
                        Ok(0) | Err(_) => break (String::new(), Vec::new()),
                        Ok(n) => n,
                    };
                    buf.extend_from_slice(&chunk[..n]);
                    if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        let head = String::from_utf8_lossy(&buf[..i]).to_string();
                        let len = head
                            .lines()
                            .find_map(|l| {
                                l.to_ascii_lowercase()
                                    .strip_prefix("content-length:")
                                    .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                            })
                            .unwrap_or(0);
                        while buf.len() < i + 4 + len {
                            match s.read(&mut chunk) {
                                Ok(0) | Err(_) => break,
                                Ok(n) => buf.extend_from_slice(&chunk[..n]),
                            }
                        }
                        break (head, buf[i + 4..].to_vec());
                    }
                };
                let header = |name: &str| {
                    head.lines()
                        .find_map(|l| {
                            let (n, v) = l.split_once(':')?;
                            n.eq_ignore_ascii_case(name).then(|| v.trim().to_owned())
                        })
                        .unwrap_or_default()
                };
                let path = head.split(' ').nth(1).unwrap_or("").to_owned();
                let (status, reply) = if path.starts_with("/.well-known/") {
                    (
                        200,
                        serde_json::json!({"name": "oauth-agent", "description": "d", "version": "1",
                        "supportedInterfaces": [{"url": format!("{b2}/a2a"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
                        "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
                        "skills": []}),
                    )
                } else if path == "/token" {
                    // agent:s3cret
                    let ok = header("authorization") == "Basic YWdlbnQ6czNjcmV0"
                        && String::from_utf8_lossy(&body)
                            .starts_with("grant_type=client_credentials");
                    if ok {
                        let n = t2.fetch_add(1, Ordering::SeqCst) + 1;
                        (
                            200,
                            serde_json::json!({"access_token": format!("tok-{n}"), "token_type": "Bearer", "expires_in": expires_in}),
                        )
                    } else {
                        (
                            401,
                            serde_json::json!({"error": "invalid_client", "error_description": "who are you"}),
                        )
                    }
                } else {
                    c2.lock().unwrap().push(header("authorization"));
                    let req: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
                    (
                        200,
                        serde_json::json!({"jsonrpc": "2.0", "id": req["id"], "result": {"message": {
                        "messageId": "r1", "role": "ROLE_AGENT", "parts": [{"text": "hello"}]}}}),
                    )
                };
                let body = reply.to_string();
                let _ = write!(
                    s,
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        OAuthWorld {
            base,
            calls,
            tokens_issued,
        }
    }
}

#[test]
fn oauth2_client_credentials_token_is_fetched_and_sent_to_the_interface_only() {
    use std::sync::atomic::Ordering;
    let dir = std::env::temp_dir().join(format!("a2a-cli-oauth-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let secret = dir.join("secret");
    std::fs::write(&secret, "s3cret\n").unwrap();
    let world = OAuthWorld::start(3600);
    let token_url = format!("{}/token", world.base);
    let out = a2a(&[
        "send",
        &world.base,
        "hi",
        "--allow-http",
        "--oauth2-token-url",
        &token_url,
        "--client-id",
        "agent",
        "--client-secret-file",
        secret.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "hello");
    assert_eq!(*world.calls.lock().unwrap(), ["Bearer tok-1"]);
    assert_eq!(world.tokens_issued.load(Ordering::SeqCst), 1);
    assert!(!text(&out.stderr).contains("s3cret") && !text(&out.stderr).contains("tok-1"));

    // The wrong secret (from the environment): refused before anything reaches the agent.
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_a2a"));
    cmd.args([
        "send",
        &world.base,
        "hi",
        "--allow-http",
        "--oauth2-token-url",
        &token_url,
        "--client-id",
        "agent",
    ])
    .env("A2A_CLIENT_SECRET", "guess");
    let bad = cmd.output().unwrap();
    assert_eq!(bad.status.code(), Some(3));
    assert!(
        text(&bad.stderr).contains("invalid_client (who are you)"),
        "{}",
        text(&bad.stderr)
    );
    assert!(!text(&bad.stderr).contains("guess"));
    assert_eq!(world.calls.lock().unwrap().len(), 1);

    // Flags that cannot work: usage errors.
    let no_id = a2a(&[
        "send",
        &world.base,
        "hi",
        "--allow-http",
        "--oauth2-token-url",
        &token_url,
    ]);
    assert_eq!(no_id.status.code(), Some(2));
    let plain = a2a(&[
        "send",
        &world.base,
        "hi",
        "--oauth2-token-url",
        "http://auth.example/t",
        "--client-id",
        "a",
        "--client-secret-file",
        secret.to_str().unwrap(),
    ]);
    assert_eq!(plain.status.code(), Some(2), "{}", text(&plain.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The reference agent with `--bearer-token` also declares an OAuth2 client-credentials
/// scheme whose token endpoint is its own: the CLI's OAuth2 flow gets the token there and
/// the call goes through; a wrong secret is refused by the endpoint, nothing sent.
#[test]
fn the_reference_agents_oauth2_token_endpoint_serves_the_cli_flow() {
    let demo = Demo::start(&["--bearer-token", "s3cret"]);
    let url = demo.url.as_str();
    let token_url = format!("{url}/oauth2/token");
    let dir = std::env::temp_dir().join(format!("a2a-oauth2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good");
    let bad = dir.join("bad");
    std::fs::write(&good, "s3cret").unwrap();
    std::fs::write(&bad, "nope").unwrap();
    let card = a2a(&["card", url, "--allow-http", "--json"]);
    let card = text(&card.stdout);
    assert!(
        card.contains("clientCredentials") && card.contains(&token_url),
        "{card}"
    );
    let send = |secret: &std::path::Path| {
        a2a(&[
            "send",
            url,
            "echo via oauth2",
            "--allow-http",
            "--oauth2-token-url",
            &token_url,
            "--client-id",
            "demo",
            "--client-secret-file",
            secret.to_str().unwrap(),
        ])
    };
    let ok = send(&good);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
    assert_eq!(text(&ok.stdout).trim(), "via oauth2");
    let refused = send(&bad);
    assert_eq!(refused.status.code(), Some(3));
    assert!(
        text(&refused.stderr).contains("invalid_client"),
        "{}",
        text(&refused.stderr)
    );
    assert!(
        !text(&refused.stderr).contains("nope"),
        "the secret is never printed"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Without `--oauth2-token-url`, `--client-id` takes the token URL from the card's
/// clientCredentials flow (the reference agent's own /oauth2/token, on loopback: plain http
/// accepted with --allow-http); the extended card, served to the authenticated caller,
/// then replaces the public one (`a2a card --extended`: one more skill).
#[test]
fn the_token_url_comes_from_the_cards_client_credentials_flow() {
    let demo = Demo::start(&["--bearer-token", "s3cret"]);
    let url = demo.url.as_str();
    let dir = std::env::temp_dir().join(format!("a2a-oauth2-card-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good");
    std::fs::write(&good, "s3cret").unwrap();
    let secret = good.to_str().unwrap();
    let ok = a2a(&[
        "send",
        url,
        "echo from the card",
        "--allow-http",
        "--client-id",
        "demo",
        "--client-secret-file",
        secret,
    ]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
    assert_eq!(text(&ok.stdout).trim(), "from the card");

    let public = a2a(&["card", url, "--allow-http", "--json"]);
    let public: serde_json::Value = serde_json::from_slice(&public.stdout).unwrap();
    let ext = a2a(&[
        "card",
        url,
        "--extended",
        "--allow-http",
        "--json",
        "--client-id",
        "demo",
        "--client-secret-file",
        secret,
    ]);
    assert_eq!(ext.status.code(), Some(0), "{}", text(&ext.stderr));
    let ext: serde_json::Value = serde_json::from_slice(&ext.stdout).unwrap();
    assert_eq!(ext["extended"], true);
    let skills = |v: &serde_json::Value| v["card"]["skills"].as_array().map_or(0, Vec::len);
    assert_eq!(skills(&ext), skills(&public) + 1, "{ext}");
    // Without credentials the agent refuses the extended card: exit 3, nothing adopted.
    let refused = a2a(&["card", url, "--extended", "--allow-http"]);
    assert_eq!(refused.status.code(), Some(3), "{}", text(&refused.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A card whose clientCredentials tokenUrl is plain http to a host that is not loopback:
/// refused before the secret is sent (exit 3), even with --allow-http; a card without the
/// flow asks for --oauth2-token-url.
#[test]
fn a_cards_plain_http_token_url_off_loopback_is_refused() {
    use std::net::TcpListener;
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let card = serde_json::json!({
        "name": "o", "description": "d", "version": "1", "protocolVersion": "0.3.0",
        "url": format!("{base}/a2a"), "preferredTransport": "JSONRPC", "capabilities": {},
        "defaultInputModes": ["text"], "defaultOutputModes": ["text"], "skills": [],
        "securitySchemes": {"o": {"type": "oauth2", "flows": {"clientCredentials": {
            "tokenUrl": "http://auth.example/token", "scopes": {}}}}},
        "security": [{"o": []}]
    })
    .to_string();
    let bare = serde_json::json!({
        "name": "o", "description": "d", "version": "1", "protocolVersion": "0.3.0",
        "url": format!("{base}/a2a"), "preferredTransport": "JSONRPC", "capabilities": {},
        "defaultInputModes": ["text"], "defaultOutputModes": ["text"], "skills": []
    })
    .to_string();
    let posts = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = std::sync::Arc::clone(&posts);
    std::thread::spawn(move || {
        use std::io::Read;
        // Two card fetches, then stop (bounded: the test makes exactly two commands).
        for body in [card, bare] {
            let Ok((mut s, _)) = listener.accept() else {
                return;
            };
            let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
            let mut buf = [0u8; 4096];
            let n = s.read(&mut buf).unwrap_or(0);
            if buf[..n].starts_with(b"POST") {
                seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
            let _ = write!(
                s,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    let run = || {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_a2a"));
        cmd.args(["send", &base, "hi", "--allow-http", "--client-id", "c"])
            .env("A2A_CLIENT_SECRET", "s3cret");
        cmd.output().unwrap()
    };
    let out = run();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("auth.example") && err.contains("not https"),
        "{err}"
    );
    assert!(!err.contains("s3cret"));
    let out = run();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("--oauth2-token-url"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(posts.load(std::sync::atomic::Ordering::SeqCst), 0);
}
