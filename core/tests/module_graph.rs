//! The core's top-level modules form a directed acyclic graph: shared vocabulary at the
//! bottom, the data path reading top to bottom. This test reads every `crate::` path in
//! `core/src` (outside `bin/`, which is another crate): `use crate::x::...`, use trees
//! `use crate::{x, y::z}` (nested braces too), and inline paths `crate::x::f()`; comments
//! and string literals are skipped. It fails on any cycle between top-level modules, naming
//! it, and when the graph shown in the crate docs (`core/src/lib.rs`) is not the real one.
//!
//! Below the modules, the files: no file of `core/src` or `ffi/src` may reach itself through
//! the files it names (`crate::`, `super::` and `self::` paths, use trees expanded), so each
//! file can be read after the ones it uses. A path into a file's own parent module (its
//! `mod.rs` or `lib.rs`) does not count: the parent declares the file, and re-exports are
//! the module's face, not a dependency. Test modules (`#[cfg(test)] mod ...`) are skipped.

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

/// The index of the `}` that closes a brace opened just before `s` (nested braces
/// counted), if there is one.
fn closing_brace(s: &str) -> Option<usize> {
    let mut depth = 1;
    s.char_indices().find_map(|(i, c)| {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        (depth == 0).then_some(i)
    })
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
            let end = closing_brace(tree).expect("balanced use tree");
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

/// Where a path starts: the crate root, `n` modules up from the file's module, or the
/// file's module itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Anchor {
    Crate,
    Super(usize),
    Here,
}

/// The code of a file without its test modules (`#[cfg(test)]` followed by `mod x { ... }`).
fn without_test_modules(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "#[cfg(test)]".len()..];
        let t = after.trim_start();
        let t = ["pub(crate) ", "pub(super) ", "pub "]
            .iter()
            .find_map(|p| t.strip_prefix(p))
            .unwrap_or(t);
        match (t.starts_with("mod "), t.find(['{', ';'])) {
            (true, Some(open)) if t.as_bytes()[open] == b'{' => {
                let end = closing_brace(&t[open + 1..]).map_or(t.len(), |i| open + 1 + i + 1);
                rest = &t[end..];
            }
            _ => {
                out.push_str("#[cfg(test)]");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The full paths of a use tree's items (given without its outer braces), each after
/// `prefix`: `a, b::{c, self}, d as e` gives `a`, `b::c`, `b`, `d`.
fn expand_tree(tree: &str, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let mut depth = 0;
    let mut start = 0;
    let mut items = Vec::new();
    for (i, c) in tree.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&tree[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&tree[start..]);
    for item in items {
        expand_path(item.trim(), prefix.to_vec(), out);
    }
}

/// Reads `a::b::{...}` / `a::b::*` / `a::b` after `prefix` into full paths.
fn expand_path(mut s: &str, mut path: Vec<String>, out: &mut Vec<Vec<String>>) {
    loop {
        s = s.trim_start();
        if let Some(tree) = s.strip_prefix('{') {
            let end = closing_brace(tree).unwrap_or(tree.len());
            expand_tree(&tree[..end], &path, out);
            return;
        }
        let id = ident_at(s);
        if id.is_empty() || id == "self" {
            out.push(path);
            return;
        }
        path.push(id.to_owned());
        s = s.trim_start()[id.len()..].trim_start();
        match s.strip_prefix("::") {
            Some(more) => s = more,
            None => {
                out.push(path);
                return;
            }
        }
    }
}

/// Every `crate::`, `super::` (chains too) and `self::` path of `code`, use trees expanded.
fn anchored_paths(code: &str) -> Vec<(Anchor, Vec<String>)> {
    let mut found = Vec::new();
    let b = code.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let word = if b[i].is_ascii_whitespace() {
            ""
        } else {
            ident_at(&code[i..])
        };
        let starts_word = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if word.is_empty() || !starts_word {
            i += code[i..].chars().next().map_or(1, char::len_utf8);
            continue;
        }
        let after_colons = i >= 2 && &code[i - 2..i] == "::";
        let next = i + word.len();
        let followed = code[next..].starts_with("::");
        let anchor = match word {
            "crate" if followed => Some(Anchor::Crate),
            "super" if followed && !after_colons => Some(Anchor::Super(1)),
            "self" if followed && !after_colons => Some(Anchor::Here),
            _ => None,
        };
        let Some(mut anchor) = anchor else {
            i = next;
            continue;
        };
        let mut rest = &code[next + 2..];
        while let Some(more) = rest.trim_start().strip_prefix("super::") {
            if let Anchor::Super(n) = anchor {
                anchor = Anchor::Super(n + 1);
            }
            rest = more;
        }
        let mut paths = Vec::new();
        expand_path(rest, Vec::new(), &mut paths);
        found.extend(paths.into_iter().map(|p| (anchor, p)));
        i = next;
    }
    found
}

/// The files of one crate's `src` (without `bin/`), keyed by module path (`[]` is
/// `lib.rs`, `["card"]` is `card/mod.rs` or `card.rs`).
fn module_files(src: &Path) -> BTreeMap<Vec<String>, PathBuf> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files
        .into_iter()
        .map(|f| {
            let rel = f.strip_prefix(src).expect("under src").with_extension("");
            let mut module: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if matches!(module.last().map(String::as_str), Some("mod" | "lib")) {
                module.pop();
            }
            (module, f)
        })
        .collect()
}

/// file -> the files it names (by module path), paths into its own ancestors left out.
fn file_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let files = module_files(src);
    let name = |m: &[String]| {
        if m.is_empty() {
            "lib".to_owned()
        } else {
            m.join("/")
        }
    };
    let mut g = BTreeMap::new();
    for (module, file) in &files {
        let code = without_test_modules(&code_only(&std::fs::read_to_string(file).expect("read")));
        let mut deps = BTreeSet::new();
        for (anchor, path) in anchored_paths(&code) {
            let mut full: Vec<String> = match anchor {
                Anchor::Crate => Vec::new(),
                Anchor::Here => module.clone(),
                Anchor::Super(n) => module[..module.len().saturating_sub(n)].to_vec(),
            };
            full.extend(path);
            // The longest prefix that is a file of the crate.
            let Some(target) = (0..=full.len())
                .rev()
                .map(|n| &full[..n])
                .find(|m| files.contains_key(*m))
            else {
                continue;
            };
            let ancestor = module.len() >= target.len() && module[..target.len()] == *target;
            if !ancestor {
                deps.insert(name(target));
            }
        }
        g.insert(name(module), deps);
    }
    g
}

fn assert_no_file_cycles(src: &Path) {
    let g = file_graph(src);
    assert!(g.len() >= 10, "{} files under {}", g.len(), src.display());
    if let Some(cycle) = find_cycle(&g) {
        panic!(
            "file cycle in {}: {} (move what both need into a file of its own, or pass it in)",
            src.display(),
            cycle.join(" -> ")
        );
    }
}

#[test]
fn core_files_have_no_cycles() {
    assert_no_file_cycles(Path::new(SRC));
}

#[test]
fn ffi_files_have_no_cycles() {
    assert_no_file_cycles(&Path::new(SRC).join("../../ffi/src"));
}

#[test]
fn the_file_reader_follows_super_self_and_trees_and_skips_tests() {
    let code = code_only(
        "use super::{parse::{Card, field}, CardError};\n\
         use super::super::top::X;\n\
         use self::inner::*;\n\
         fn f() { crate::a::b::c(); $crate::m::n!(); x::super_thing(); }\n\
         #[cfg(test)]\nmod tests { use crate::hidden::Y; }\n\
         #[cfg(test)]\npub(crate) mod shared { use crate::hidden::W; }\n\
         use crate::after::Z;",
    );
    let paths = anchored_paths(&without_test_modules(&code));
    let s = |a: Anchor, p: &[&str]| (a, p.iter().map(|x| x.to_string()).collect::<Vec<_>>());
    assert_eq!(
        paths,
        vec![
            s(Anchor::Super(1), &["parse", "Card"]),
            s(Anchor::Super(1), &["parse", "field"]),
            s(Anchor::Super(1), &["CardError"]),
            s(Anchor::Super(2), &["top", "X"]),
            s(Anchor::Here, &["inner"]),
            s(Anchor::Crate, &["a", "b", "c"]),
            s(Anchor::Crate, &["m", "n"]),
            s(Anchor::Crate, &["after", "Z"]),
        ]
    );
}
