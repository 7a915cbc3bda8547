//! The core's top-level modules form a directed acyclic graph: shared vocabulary at the
//! bottom, the data path reading top to bottom. This test reads every `crate::` path in
//! `core/src` (outside `bin/`, which is another crate): `use crate::x::...`, use trees
//! `use crate::{x, y::z}` (nested braces too), and inline paths `crate::x::f()`; comments
//! and string literals are skipped. It fails on any cycle between top-level modules, naming
//! it, and when the graph shown in the crate docs (`core/src/lib.rs`) is not the real one.
//!
//! `super::` paths are not followed: they are used only inside a module's own files.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");

/// Removes comments (line, block, nested) and the contents of string and char literals,
/// so that only code is searched.
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if b[i] == b'r' && (b[i..].starts_with(b"r\"") || b[i..].starts_with(b"r#")) {
            // Raw string r"..." / r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while j < b.len() && b[j] == b'#' {
                hashes += 1;
                j += 1;
            }
            if j < b.len() && b[j] == b'"' {
                let close: Vec<u8> = std::iter::once(b'"')
                    .chain(std::iter::repeat_n(b'#', hashes))
                    .collect();
                j += 1;
                while j < b.len() && !b[j..].starts_with(&close) {
                    j += 1;
                }
                i = j + close.len();
                out.push_str("\"\"");
            } else {
                out.push('r');
                i += 1;
            }
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if b[i] == b'\'' && i + 2 < b.len() && (b[i + 2] == b'\'' || b[i + 1] == b'\\') {
            // A char literal ('x', '\n', '\u{..}'); lifetimes ('a) are left alone.
            i += 1;
            while i < b.len() && b[i] != b'\'' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("' '");
        } else {
            let c = src[i..].chars().next().expect("char boundary");
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

fn ident_at(s: &str) -> &str {
    let s = s.trim_start();
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The first path segment of every item of a use tree `{a, b::c, d::{e, f}}` (given
/// without its outer braces).
fn tree_heads(tree: &str) -> Vec<&str> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in tree.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                heads.push(ident_at(&tree[start..i]));
                start = i + 1;
            }
            _ => {}
        }
    }
    heads.push(ident_at(&tree[start..]));
    heads.into_iter().filter(|h| !h.is_empty()).collect()
}

/// The top-level modules named by the `crate::` paths of `code`.
fn crate_paths(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue; // e.g. `a2a_crate::`
        }
        let tail = rest.trim_start();
        if let Some(tree) = tail.strip_prefix('{') {
            let mut depth = 1;
            let end = tree
                .char_indices()
                .find(|&(_, c)| {
                    match c {
                        '{' => depth += 1,
                        '}' => depth -= 1,
                        _ => {}
                    }
                    depth == 0
                })
                .map(|(i, _)| i)
                .expect("balanced use tree");
            found.extend(tree_heads(&tree[..end]).into_iter().map(str::to_owned));
        } else {
            found.insert(ident_at(tail).to_owned());
        }
    }
    found
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "bin") {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level modules declared in lib.rs (`mod x;` / `pub mod x;`, any attributes).
fn top_modules(lib: &str) -> BTreeSet<String> {
    code_only(lib)
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let l = l.strip_prefix("pub ").unwrap_or(l);
            let name = l.strip_prefix("mod ")?.strip_suffix(';')?;
            Some(name.trim().to_owned())
        })
        .collect()
}

/// module -> the other top-level modules it names.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(SRC);
    let modules = top_modules(&std::fs::read_to_string(src.join("lib.rs")).expect("lib.rs"));
    assert!(modules.len() >= 10, "lib.rs declares {modules:?}");
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut g: BTreeMap<String, BTreeSet<String>> = modules
        .iter()
        .map(|m| (m.clone(), BTreeSet::new()))
        .collect();
    for file in files {
        let rel = file.strip_prefix(src).expect("under src");
        let first = rel.components().next().expect("a component");
        let top = first.as_os_str().to_string_lossy();
        let top = top.strip_suffix(".rs").unwrap_or(&top).to_owned();
        if top == "lib" {
            continue;
        }
        assert!(modules.contains(&top), "{} is in no module", rel.display());
        let code = code_only(&std::fs::read_to_string(&file).expect("read"));
        for dep in crate_paths(&code) {
            if dep != top && modules.contains(&dep) {
                g.get_mut(&top).expect("known").insert(dep);
            }
        }
    }
    g
}

/// A cycle of `g`, if there is one (depth-first search with colours).
fn find_cycle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_owned(), 1);
        stack.push(n.to_owned());
        for d in &g[n] {
            match state.get(d.as_str()).copied().unwrap_or(0) {
                1 => {
                    let from = stack.iter().position(|s| s == d).expect("on the stack");
                    let mut cycle = stack[from..].to_vec();
                    cycle.push(d.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(c) = visit(d, g, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n.to_owned(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in g.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0 {
            let mut stack = Vec::new();
            if let Some(c) = visit(n, g, &mut state, &mut stack) {
                return Some(c);
            }
        }
    }
    None
}

/// The graph in layers: each module after everything it depends on, one line per module.
fn render(g: &BTreeMap<String, BTreeSet<String>>) -> String {
    let mut level: BTreeMap<&str, usize> = BTreeMap::new();
    while level.len() < g.len() {
        for (m, deps) in g {
            if level.contains_key(m.as_str()) {
                continue;
            }
            if deps.iter().all(|d| level.contains_key(d.as_str())) {
                let l = deps
                    .iter()
                    .map(|d| level[d.as_str()] + 1)
                    .max()
                    .unwrap_or(0);
                level.insert(m, l);
            }
        }
    }
    let mut rows: Vec<(usize, &str)> = level.iter().map(|(m, l)| (*l, *m)).collect();
    rows.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    let width = rows.iter().map(|(_, m)| m.len()).max().unwrap_or(0);
    rows.iter()
        .map(|(_, m)| {
            let deps: Vec<&str> = g[*m].iter().map(String::as_str).collect();
            let deps = if deps.is_empty() {
                "(nothing)".to_owned()
            } else {
                deps.join(", ")
            };
            format!("//! {m:<width$} -> {deps}\n")
        })
        .collect()
}

#[test]
fn top_level_modules_have_no_cycles() {
    let g = graph();
    if let Some(cycle) = find_cycle(&g) {
        panic!("module cycle: {}", cycle.join(" -> "));
    }
}

#[test]
fn the_crate_docs_show_the_real_module_graph() {
    let g = graph();
    assert!(
        find_cycle(&g).is_none(),
        "see top_level_modules_have_no_cycles"
    );
    let expected = render(&g);
    let lib = std::fs::read_to_string(Path::new(SRC).join("lib.rs")).expect("lib.rs");
    assert!(
        lib.contains(&expected),
        "core/src/lib.rs must show the module graph as it is; put these lines in its \
         `# Module graph` block:\n{expected}"
    );
}

#[test]
fn the_reader_sees_use_trees_inline_paths_and_skips_comments_and_strings() {
    let code = code_only(
        "use crate::{a, b::{c, d}, e::f};\n\
         // use crate::commented;\n\
         /* crate::blocked /* nested */ crate::still */\n\
         let s = \"crate::quoted\"; let r = r#\"crate::raw\"#; let c = '\"';\n\
         fn g<'x>() { crate::inline::h(); my_crate::not_this(); }\n\
         pub use crate::top as _;",
    );
    let got: Vec<String> = crate_paths(&code).into_iter().collect();
    assert_eq!(got, ["a", "b", "e", "inline", "top"]);
    let mut g = BTreeMap::new();
    g.insert("x".to_owned(), BTreeSet::from(["y".to_owned()]));
    g.insert("y".to_owned(), BTreeSet::from(["z".to_owned()]));
    g.insert("z".to_owned(), BTreeSet::from(["x".to_owned()]));
    assert_eq!(
        find_cycle(&g).expect("a cycle"),
        ["x", "y", "z", "x"].map(String::from)
    );
    g.get_mut("z").unwrap().clear();
    assert!(find_cycle(&g).is_none());
    assert_eq!(render(&g), "//! x -> y\n//! y -> z\n//! z -> (nothing)\n");
}
