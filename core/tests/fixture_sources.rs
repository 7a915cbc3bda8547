//! Every `source` of the shared fixtures (`bindings/fixtures/*.json`) resolves: it names at
//! least one file of this repository (and, with `#anchor`, a heading that exists in it) or a
//! public standard by URL, and no document that is not in the repository (the old
//! `a2a-wire.md`-style names, `OUTCOMES_SCHEMA.md`, "issue N" of a tracker). The same holds
//! for the descriptive texts of the fixture files and for the links between the pages of
//! `docs/`.

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Top-level directories a repository reference starts with.
const REPO_DIRS: [&str; 9] = [
    "docs/",
    "core/",
    "bindings/",
    "ffi/",
    "include/",
    "tests/",
    "scripts/",
    "benches/",
    "examples/",
];

/// Public standards (and the A2A specification's repository) a source may cite by URL.
const STANDARD_URLS: [&str; 7] = [
    "https://html.spec.whatwg.org/",
    "https://encoding.spec.whatwg.org/",
    "https://www.rfc-editor.org/rfc/",
    "https://www.jsonrpc.org/specification",
    "https://github.com/a2aproject/A2A/",
    "https://github.com/web-platform-tests/wpt/",
    "https://a2a-protocol.org/",
];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// GitHub's anchor for a heading: lowercase, letters, digits, `-` and `_` kept, spaces to
/// `-`, everything else dropped.
fn slug(heading: &str) -> String {
    let mut out = String::new();
    for c in heading.trim().to_lowercase().chars() {
        if c.is_alphanumeric() || c == '-' || c == '_' {
            out.push(c);
        } else if c == ' ' {
            out.push('-');
        }
    }
    out
}

/// The anchors of a Markdown file's headings (outside code fences).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut fenced = false;
    let mut out = BTreeSet::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.insert(slug(line.trim_start_matches('#')));
        }
    }
    out
}

/// Checks one repository reference (`path` or `path#anchor`, relative to `base`).
fn check_path(root: &Path, base: &Path, reference: &str) -> Result<(), String> {
    let (path, anchor) = match reference.split_once('#') {
        Some((p, a)) => (p, Some(a)),
        None => (reference, None),
    };
    let file = if path.is_empty() {
        base.to_path_buf()
    } else {
        base.parent().unwrap_or(root).join(path)
    };
    let file = if REPO_DIRS.iter().any(|d| path.starts_with(d)) {
        root.join(path)
    } else {
        file
    };
    if !file.exists() {
        return Err(format!("{reference}: {} does not exist", file.display()));
    }
    if let Some(anchor) = anchor {
        if !path.is_empty() && !path.ends_with(".md") {
            return Err(format!(
                "{reference}: only Markdown headings can be named with #"
            ));
        }
        let text = std::fs::read_to_string(&file).map_err(|e| format!("{reference}: {e}"))?;
        if !anchors(&text).contains(anchor) {
            return Err(format!(
                "{reference}: no heading with anchor #{anchor} in {}",
                file.display()
            ));
        }
    }
    Ok(())
}

/// Checks one `source` text: returns the problems found (empty when it resolves).
fn check_source(root: &Path, source: &str, must_cite: bool) -> Vec<String> {
    let mut problems = Vec::new();
    let mut cited = 0;
    let trim = |t: &str| {
        t.trim_start_matches(['(', '[', '\'', '"', '`'])
            .trim_end_matches(['.', ',', ';', ':', ')', ']', '\'', '"', '`'])
            .to_owned()
    };
    for raw in source.split_whitespace() {
        let token = trim(raw);
        if token.starts_with("http://") || token.starts_with("https://") {
            if STANDARD_URLS.iter().any(|u| token.starts_with(u)) {
                cited += 1;
            } else {
                problems.push(format!("{token}: not a public standard this project cites"));
            }
        } else if REPO_DIRS.iter().any(|d| token.starts_with(d)) {
            match check_path(root, &root.join("README.md"), &token) {
                Ok(()) => cited += 1,
                Err(e) => problems.push(e),
            }
        } else if token.contains(".md") {
            problems.push(format!("{token}: a document named outside the repository"));
        }
    }
    let lower = source.to_lowercase();
    for bad in [
        "outcomes_schema",
        "issue 3",
        "issue 4",
        "issue #",
        "reasoning:",
    ] {
        if lower.contains(bad) {
            problems.push(format!(
                "names `{bad}`, which is no document in the repository"
            ));
        }
    }
    if must_cite && cited == 0 {
        problems.push("cites neither a repository file nor a standard by URL".into());
    }
    problems
}

/// Every (`file`, key, text) of the fixtures whose key is `source` or a descriptive text.
fn texts(root: &Path) -> Vec<(String, String, String)> {
    fn walk(file: &str, v: &Value, out: &mut Vec<(String, String, String)>) {
        match v {
            Value::Object(m) => {
                for (k, v) in m {
                    match (k.as_str(), v) {
                        ("source" | "about" | "description" | "note", Value::String(s)) => {
                            out.push((file.to_owned(), k.clone(), s.clone()))
                        }
                        _ => walk(file, v, out),
                    }
                }
            }
            Value::Array(a) => a.iter().for_each(|v| walk(file, v, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(root.join("bindings/fixtures"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 8, "fixture files missing: {files:?}");
    for f in files {
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        walk(&f.file_name().unwrap().to_string_lossy(), &v, &mut out);
    }
    out
}

#[test]
fn every_fixture_source_resolves() {
    let root = repo();
    let all = texts(&root);
    let sources = all.iter().filter(|(_, k, _)| k == "source").count();
    assert!(sources >= 400, "only {sources} sources found");
    let mut failures = Vec::new();
    for (file, key, text) in &all {
        for p in check_source(&root, text, key == "source") {
            failures.push(format!("{file} {key} {text:?}: {p}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} unresolved:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn links_between_the_docs_resolve() {
    let root = repo();
    let mut failures = Vec::new();
    let mut pages = 0;
    for entry in std::fs::read_dir(root.join("docs")).unwrap() {
        let page = entry.unwrap().path();
        if page.extension().is_none_or(|e| e != "md") {
            continue;
        }
        pages += 1;
        let text = std::fs::read_to_string(&page).unwrap();
        // Markdown links `](target)` that are not URLs.
        for part in text.split("](").skip(1) {
            let target = part.split(')').next().unwrap();
            if target.starts_with("http") {
                continue;
            }
            if let Err(e) = check_path(&root, &page, target) {
                failures.push(format!("{}: {e}", page.display()));
            }
        }
    }
    assert!(pages >= 5, "docs/ has only {pages} pages");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_check_refuses_what_does_not_resolve() {
    let root = repo();
    let good = "docs/wire.md#16-error-codes-03 (code -32001); WHATWG HTML https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream:";
    assert_eq!(check_source(&root, good, true), Vec::<String>::new());
    for bad in [
        "a2a-wire.md §1.6 (code -32001)",
        "peer-behaviour.md §1.3 malformed JSON",
        "docs/wire.md#no-such-heading",
        "docs/no-such-page.md",
        "core/src/lib.rs#section",
        "the columns of OUTCOMES_SCHEMA.md",
        "issue 4: 3xx Redirect",
        "reasoning: empty text",
        "https://example.com/blog about it",
    ] {
        assert!(
            !check_source(&root, bad, true).is_empty(),
            "accepted: {bad}"
        );
    }
    assert_eq!(slug("1.6 Error codes (0.3)"), "16-error-codes-03");
    assert_eq!(
        slug("2.2 The error_id of a failed agent run"),
        "22-the-error_id-of-a-failed-agent-run"
    );
}
