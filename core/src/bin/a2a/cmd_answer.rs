//! The answer on the command line: the parts a user sends (`--data`, `--file`,
//! `--file-url`, in command-line order after TEXT), the agent's answer printed part by part,
//! and inline files written under `--output-dir`.

use std::borrow::Cow;
use std::io::Write;
use std::path::{Path, PathBuf};

use a2a_core::answer::{encode_bytes, file_bytes};
use a2a_core::model::{Json, Part, PartContent, SendResponse, StreamEvent};

use crate::args::Args;

/// What `send` and `stream` send: the parts in order and the message metadata.
pub struct Outgoing {
    /// The parts, TEXT first when given, then `--data`/`--file`/`--file-url` in order.
    pub parts: Vec<Part<'static>>,
    /// `--metadata JSON` (an object).
    pub metadata: Option<Json<'static>>,
}

/// Where `--output-dir` writes inline files.
pub struct OutputDir {
    dir: PathBuf,
    force: bool,
    written: Vec<String>,
}

/// Splits `VALUE[;type=TYPE]`.
fn with_type(v: &str) -> (&str, Option<&str>) {
    match v.rsplit_once(";type=") {
        Some((head, t)) if !t.is_empty() => (head, Some(t)),
        _ => (v, None),
    }
}

/// The media type of a file name's extension (a short table of the common types; unknown
/// extensions are `application/octet-stream`).
pub fn media_type_of(name: &str) -> &'static str {
    let ext = Path::new(name)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    match ext.as_str() {
        "txt" | "text" | "log" => "text/plain",
        "md" => "text/markdown",
        "csv" => "text/csv",
        "html" | "htm" => "text/html",
        "json" => "application/json",
        "xml" => "application/xml",
        "yaml" | "yml" => "application/yaml",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        "gz" => "application/gzip",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "mp4" => "video/mp4",
        _ => "application/octet-stream",
    }
}

/// The extension for a part saved without a name.
fn extension_of(media_type: Option<&str>) -> &'static str {
    match media_type.map(|m| m.split(';').next().unwrap_or(m).trim()) {
        Some("text/plain") => "txt",
        Some("text/markdown") => "md",
        Some("text/csv") => "csv",
        Some("text/html") => "html",
        Some("application/json") => "json",
        Some("application/pdf") => "pdf",
        Some("image/png") => "png",
        Some("image/jpeg") => "jpg",
        Some("image/gif") => "gif",
        Some("application/zip") => "zip",
        _ => "bin",
    }
}

/// Reads every `--data`, `--file` and `--file-url` in the order given, and `--metadata`
/// (before the positional arguments are read, so that no value is taken for one).
pub fn outgoing_flags(args: &mut Args) -> Result<Outgoing, String> {
    let mut parts = Vec::new();
    for (flag, v) in args.values_in_order(&["--data", "--file", "--file-url"])? {
        let part = match flag {
            "--data" => {
                let json = Json::parse(&v).map_err(|e| format!("--data {v:?}: not JSON: {e}"))?;
                Part::from_content(PartContent::Data(json))
            }
            "--file" => {
                let (path, t) = with_type(&v);
                let bytes = std::fs::read(path).map_err(|e| format!("--file {path}: {e}"))?;
                let name = Path::new(path)
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or("file")
                    .to_owned();
                Part {
                    media_type: Some(Cow::Owned(
                        t.map_or_else(|| media_type_of(&name).to_owned(), str::to_owned),
                    )),
                    filename: Some(Cow::Owned(name)),
                    ..Part::from_content(PartContent::Bytes(Cow::Owned(encode_bytes(&bytes))))
                }
            }
            _ => {
                let (url, t) = with_type(&v);
                if !url.contains("://") {
                    return Err(format!("--file-url {url:?}: not an absolute URL"));
                }
                Part {
                    media_type: t.map(|t| Cow::Owned(t.to_owned())),
                    ..Part::from_content(PartContent::Url(Cow::Owned(url.to_owned())))
                }
            }
        };
        parts.push(part);
    }
    let metadata = match args.value("--metadata")? {
        None => None,
        Some(m) => {
            let j = Json::parse(&m).map_err(|e| format!("--metadata: not JSON: {e}"))?;
            if !j.is_object() {
                return Err("--metadata: must be a JSON object".to_owned());
            }
            Some(j)
        }
    };
    Ok(Outgoing { parts, metadata })
}

impl Outgoing {
    /// Puts TEXT first when given; no part at all is a usage error.
    pub fn with_text(mut self, text: Option<String>) -> Result<Outgoing, String> {
        if let Some(t) = text {
            self.parts.insert(0, Part::text(t));
        }
        if self.parts.is_empty() {
            return Err("nothing to send: give TEXT, --data, --file or --file-url".to_owned());
        }
        Ok(self)
    }
}

/// Reads `--output-dir DIR` and `--force`.
pub fn output_dir(args: &mut Args) -> Result<Option<OutputDir>, String> {
    let force = args.flag("--force");
    let Some(dir) = args.value("--output-dir")? else {
        if force {
            return Err("--force goes with --output-dir".to_owned());
        }
        return Ok(None);
    };
    let dir = PathBuf::from(dir);
    if !dir.is_dir() {
        return Err(format!("--output-dir {}: not a directory", dir.display()));
    }
    Ok(Some(OutputDir {
        dir,
        force,
        written: Vec::new(),
    }))
}

/// A file name the agent chose, reduced to its last component with no path separators or
/// leading dots, so that it can never leave the output directory.
fn safe_name(name: &str) -> Option<String> {
    let last = name.rsplit(['/', '\\']).next().unwrap_or("");
    let clean: String = last
        .chars()
        .filter(|c| !c.is_control() && *c != ':')
        .collect();
    let clean = clean.trim_start_matches('.').trim();
    (!clean.is_empty()).then(|| clean.to_owned())
}

impl OutputDir {
    /// Writes one inline file part; returns the path written, or why not.
    fn save(&mut self, part: &Part<'_>, n: usize) -> Result<PathBuf, String> {
        let bytes = match file_bytes(part) {
            Some(Ok(b)) => b,
            Some(Err(e)) => return Err(e.to_string()),
            None => return Err("not an inline file".to_owned()),
        };
        let base = part
            .filename
            .as_deref()
            .and_then(safe_name)
            .unwrap_or_else(|| format!("part-{n}.{}", extension_of(part.media_type.as_deref())));
        let (stem, ext) = match base.rsplit_once('.') {
            Some((s, e)) if !s.is_empty() => (s.to_owned(), format!(".{e}")),
            _ => (base.clone(), String::new()),
        };
        // Names already written by this answer get -1, -2, ...; an existing file is kept
        // unless --force.
        let mut name = base.clone();
        let mut k = 0;
        while self.written.contains(&name) {
            k += 1;
            name = format!("{stem}-{k}{ext}");
        }
        let path = self.dir.join(&name);
        let mut open = std::fs::OpenOptions::new();
        open.write(true);
        if self.force {
            open.create(true).truncate(true);
        } else {
            open.create_new(true);
        }
        let mut f = open.open(&path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                format!("{} exists (use --force to overwrite)", path.display())
            } else {
                format!("{}: {e}", path.display())
            }
        })?;
        f.write_all(&bytes)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        self.written.push(name);
        Ok(path)
    }
}

/// Prints parts for a human: text as text, data as indented JSON, files as one line with
/// name, media type and size (and where `--output-dir` saved them).
pub fn print_parts(
    out: &mut impl Write,
    parts: &[Part<'_>],
    dir: &mut Option<OutputDir>,
    counter: &mut usize,
) -> Result<(), String> {
    for p in parts {
        *counter += 1;
        match &p.content {
            PartContent::Text(t) => {
                writeln!(out, "{t}").unwrap_or_else(|e| crate::args::stdout_failed(&e));
            }
            PartContent::Data(d) => {
                let pretty = serde_json::to_string_pretty(&d.to_value())
                    .unwrap_or_else(|_| d.get().to_owned());
                writeln!(out, "{pretty}").unwrap_or_else(|e| crate::args::stdout_failed(&e));
            }
            PartContent::Bytes(_) | PartContent::Url(_) => {
                let name = p.filename.as_deref().unwrap_or("(unnamed)");
                let media = p.media_type.as_deref().unwrap_or("unknown type");
                let line = match (&p.content, file_bytes(p)) {
                    (PartContent::Url(u), _) => format!("[file] {name} ({media}) at {u}"),
                    (_, Some(Ok(b))) => {
                        let mut line = format!("[file] {name} ({media}, {} bytes)", b.len());
                        if let Some(d) = dir.as_mut() {
                            let saved = d.save(p, *counter)?;
                            line.push_str(&format!(" saved to {}", saved.display()));
                        }
                        line
                    }
                    (_, _) => format!("[file] {name} ({media}, unreadable bytes)"),
                };
                writeln!(out, "{line}").unwrap_or_else(|e| crate::args::stdout_failed(&e));
            }
        }
    }
    Ok(())
}

/// Prints a whole answer: the task's artifacts (else its status message when it is the
/// only content), or the message's parts.
pub fn print_answer(
    out: &mut impl Write,
    r: &SendResponse<'_>,
    dir: &mut Option<OutputDir>,
) -> Result<(), String> {
    let mut counter = 0;
    match r {
        SendResponse::Message(m) => print_parts(out, &m.parts, dir, &mut counter),
        SendResponse::Task(t) => {
            for a in &t.artifacts {
                print_parts(out, &a.parts, dir, &mut counter)?;
            }
            Ok(())
        }
    }
}

/// The parts an event carries that a human reads as they arrive (artifact updates and
/// messages).
pub fn event_parts<'e>(ev: &'e StreamEvent<'static>) -> &'e [Part<'static>] {
    match ev {
        StreamEvent::ArtifactUpdate(a) => &a.artifact.parts,
        StreamEvent::Message(m) => &m.parts,
        _ => &[],
    }
}
