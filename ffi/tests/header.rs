//! The committed header `include/a2a_core.h` is exactly what cbindgen (pinned by Cargo.lock)
//! generates from this crate, its version macros equal Cargo's version, and the shared
//! library exports nothing but `a2a_` symbols.
//!
//! Regenerate the header with `scripts/gen-header.sh` (which runs this test with
//! `A2A_BLESS_HEADER=1`).

use std::path::{Path, PathBuf};
use std::process::Command;

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn header_path() -> PathBuf {
    crate_dir().join("..").join("include").join("a2a_core.h")
}

/// Generates the header from the sources alone (`with_src` follows the `mod` files), so the
/// test never runs `cargo metadata` (no registry access needed).
fn generate() -> Vec<u8> {
    let config = cbindgen::Config::from_file(crate_dir().join("cbindgen.toml"))
        .expect("ffi/cbindgen.toml parses");
    let bindings = cbindgen::Builder::new()
        .with_src(crate_dir().join("src").join("lib.rs"))
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header");
    let mut out = Vec::new();
    bindings.write(&mut out);
    out
}

#[test]
fn committed_header_matches_generated() {
    let generated = generate();
    let path = header_path();
    if std::env::var_os("A2A_BLESS_HEADER").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &generated).unwrap();
        eprintln!("wrote {}", path.display());
        return;
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    if committed != generated {
        let tmp = std::env::temp_dir().join(format!("a2a_core.h.{}", std::process::id()));
        std::fs::write(&tmp, &generated).unwrap();
        panic!(
            "include/a2a_core.h is out of date with ffi/src.\n\
             Generated header written to {}\n\
             Compare: diff -u include/a2a_core.h {}\n\
             Regenerate: scripts/gen-header.sh   (or: A2A_BLESS_HEADER=1 cargo test -p a2a-core-ffi --test header)",
            tmp.display(),
            tmp.display()
        );
    }
}

fn define(header: &str, name: &str) -> u64 {
    let prefix = format!("#define {name} ");
    let line = header
        .lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("{name} not defined in the header"));
    line[prefix.len()..].trim().parse().expect("numeric define")
}

#[test]
fn version_macros_equal_cargo_version() {
    let header = std::fs::read_to_string(header_path()).expect("header exists");
    let want: [u64; 3] = [
        env!("CARGO_PKG_VERSION_MAJOR").parse().unwrap(),
        env!("CARGO_PKG_VERSION_MINOR").parse().unwrap(),
        env!("CARGO_PKG_VERSION_PATCH").parse().unwrap(),
    ];
    let got = [
        define(&header, "A2A_VERSION_MAJOR"),
        define(&header, "A2A_VERSION_MINOR"),
        define(&header, "A2A_VERSION_PATCH"),
    ];
    assert_eq!(
        got, want,
        "A2A_VERSION_* in ffi/cbindgen.toml (after_includes) must equal the Cargo version"
    );
}

/// Names of the functions the header declares: the identifier before the `(` of every
/// top-level declaration line.
fn declared_functions(header: &str) -> Vec<String> {
    let mut names: Vec<String> = header
        .lines()
        .filter(|l| {
            l.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) && !l.starts_with("typedef")
        })
        .filter_map(|l| {
            let before = &l[..l.find('(')?];
            let name = before
                .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .next()?;
            (!name.is_empty()).then(|| name.to_owned())
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn every_declared_name_is_prefixed() {
    let header = std::fs::read_to_string(header_path()).expect("header exists");
    for line in header.lines() {
        let l = line.trim_start();
        if let Some(rest) = l
            .strip_prefix("typedef struct ")
            .or_else(|| l.strip_prefix("typedef enum "))
            .or_else(|| l.strip_prefix("enum "))
            .or_else(|| l.strip_prefix("struct "))
        {
            let name = rest.split_whitespace().next().unwrap();
            assert!(
                name.starts_with("a2a_"),
                "type {name} lacks the a2a_ prefix"
            );
        }
        if let Some(rest) = l.strip_prefix("#define ") {
            let name = rest.split_whitespace().next().unwrap();
            assert!(
                name.starts_with("A2A_"),
                "macro {name} lacks the A2A_ prefix"
            );
        }
        // Enum members: `NAME = value,` with NAME in upper case.
        if let Some((name, _)) = l.split_once(" = ")
            && !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
        {
            assert!(
                name.starts_with("A2A_"),
                "constant {name} lacks the A2A_ prefix"
            );
        }
    }
    let fns = declared_functions(&header);
    assert!(fns.len() > 10, "parsed too few functions: {fns:?}");
    for f in fns {
        assert!(f.starts_with("a2a_"), "function {f} lacks the a2a_ prefix");
    }
}

/// The directory holding the libraries cargo built for this test run
/// (`target/<profile>`, the parent of `deps/` where this test binary lives).
fn artifact_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().and_then(Path::parent).unwrap().to_path_buf()
}

#[test]
fn shared_library_exports_only_a2a_symbols() {
    let lib = artifact_dir().join(if cfg!(target_os = "macos") {
        "liba2a_core.dylib"
    } else {
        "liba2a_core.so"
    });
    assert!(
        lib.exists(),
        "{} not built: run `cargo build -p a2a-core-ffi` first (scripts/ci/10-rust.sh does)",
        lib.display()
    );
    let out = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(&lib)
        .output()
        .expect("nm (binutils) is installed");
    assert!(out.status.success(), "nm failed: {:?}", out);
    let text = String::from_utf8(out.stdout).unwrap();
    let mut ours = 0;
    let mut foreign = Vec::new();
    for line in text.lines() {
        // "<addr> <type> <name>[@version]"
        let mut f = line.split_whitespace();
        let (Some(_), Some(kind), Some(name)) = (f.next(), f.next(), f.next()) else {
            continue;
        };
        // Only code and data symbols; absolute version nodes ("A") are linker bookkeeping.
        if !matches!(
            kind,
            "T" | "t" | "D" | "d" | "B" | "b" | "R" | "r" | "W" | "V"
        ) {
            continue;
        }
        if name.starts_with("a2a_") {
            ours += 1;
        } else {
            foreign.push(name.to_owned());
        }
    }
    assert!(ours > 0, "no a2a_ symbols exported:\n{text}");
    assert!(
        foreign.is_empty(),
        "symbols without the a2a_ prefix exported: {foreign:?}"
    );
}

/// The header's function list equals the set of `a2a_` symbols the library exports, so
/// nothing is exported undeclared and nothing declared is missing.
#[test]
fn header_functions_equal_exported_symbols() {
    let header = std::fs::read_to_string(header_path()).expect("header exists");
    let mut declared = declared_functions(&header);
    if !cfg!(feature = "driver") {
        // The header always declares the driver (the default build); a build without the
        // feature exports everything else.
        declared.retain(|f| !f.starts_with("a2a_client_") && !f.starts_with("a2a_header_setter_"));
    }
    let lib = artifact_dir().join("liba2a_core.so");
    if !cfg!(target_os = "linux") {
        return;
    }
    let out = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(&lib)
        .output()
        .expect("nm runs");
    let mut exported: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .filter(|n| n.starts_with("a2a_"))
        .map(str::to_owned)
        .collect();
    exported.sort();
    assert_eq!(declared, exported);
}

/// No function has the name of a type (C cannot declare both; cbindgen does not notice).
#[test]
fn no_function_is_named_like_a_type() {
    let header = std::fs::read_to_string(header_path()).expect("header exists");
    let types: std::collections::HashSet<&str> = header
        .lines()
        .filter_map(|l| {
            l.strip_prefix("typedef struct ")
                .or_else(|| l.strip_prefix("typedef enum "))
                .or_else(|| l.strip_prefix("enum "))
                .or_else(|| l.strip_prefix("} "))
                .and_then(|r| r.split([' ', ';', '{']).next())
        })
        .filter(|n| n.starts_with("a2a_"))
        .collect();
    assert!(types.contains("a2a_str"), "parsed types: {types:?}");
    for f in declared_functions(&header) {
        assert!(
            !types.contains(f.as_str()),
            "function {f} has the name of a type"
        );
    }
}

/// The tier (`A2A_FEATURE_*` guard) each function of the header is declared under, from
/// the innermost `#if defined(A2A_FEATURE_...)` around its declaration.
fn declared_tiers(header: &str) -> Vec<(String, Option<String>)> {
    let mut stack: Vec<Option<String>> = Vec::new();
    let mut out = Vec::new();
    for line in header.lines() {
        let l = line.trim_start();
        if let Some(cond) = l.strip_prefix("#if") {
            let tier = cond
                .trim()
                .strip_prefix("defined(A2A_FEATURE_")
                .and_then(|r| r.strip_suffix(')'))
                .map(str::to_owned);
            stack.push(tier);
        } else if l.starts_with("#endif") {
            stack.pop();
        } else if let [name] = declared_functions(line).as_slice() {
            let tier = stack.iter().rev().find_map(Clone::clone);
            out.push((name.clone(), tier));
        }
    }
    out
}

/// The tier a source module's functions belong to (its feature in `ffi/src/lib.rs`).
fn module_tier(file: &str) -> Option<&'static str> {
    match file {
        "driver.rs" | "driver_raw.rs" => Some("DRIVER"),
        "machine.rs" | "machine_config.rs" | "hook.rs" | "task_wait.rs" => Some("CLIENT"),
        "server.rs" | "card_builder.rs" | "server_hooks.rs" => Some("SERVER"),
        "trust.rs" => Some("TRUST"),
        _ => None,
    }
}

#[test]
fn each_function_is_declared_in_the_tier_of_its_feature() {
    let header = std::fs::read_to_string(header_path()).expect("header exists");
    assert!(
        header.contains("#if !defined(A2A_FEATURES_EXPLICIT)"),
        "the header defines the default build's tiers"
    );
    let mut want = std::collections::BTreeMap::new();
    for entry in std::fs::read_dir(crate_dir().join("src")).unwrap() {
        let path = entry.unwrap().path();
        let file = path.file_name().unwrap().to_str().unwrap().to_owned();
        let src = std::fs::read_to_string(&path).unwrap();
        for l in src.lines() {
            if let Some(rest) = l.trim_start().strip_prefix("pub extern \"C\" fn ") {
                let name = rest.split('(').next().unwrap().to_owned();
                want.insert(name, module_tier(&file).map(str::to_owned));
            }
        }
    }
    let got = declared_tiers(&header);
    assert_eq!(
        got.len(),
        want.len(),
        "header and sources declare the same functions"
    );
    let mut tiered = 0;
    for (name, tier) in got {
        assert_eq!(Some(&tier), want.get(&name), "{name}");
        tiered += usize::from(tier.is_some());
    }
    assert!(tiered > 50, "only {tiered} functions are in a tier");
}
