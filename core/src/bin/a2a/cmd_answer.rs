//! The answer on the command line: the parts a user sends (`--data`, `--file`,
//! `--file-url`, in command-line order after TEXT), the agent's answer printed part by part,
//! and inline files written under `--output-dir`.

use std::borrow::Cow;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use a2a_core::answer::{encode_bytes, file_bytes};
use a2a_core::model::{Json, Part, PartContent, SendResponse, StreamEvent};

use crate::args::Args;
use crate::escape;

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

/// How the answer is shown: where its files go, whether standard output is a terminal (its
/// text is then escaped, see [`escape`]), and how many file parts could not be saved.
pub struct AnswerOut {
    dir: Option<OutputDir>,
    terminal: bool,
    not_saved: usize,
}

impl AnswerOut {
    /// The answer's output: files to `dir` (if any), text escaped when `terminal`.
    pub fn new(dir: Option<OutputDir>, terminal: bool) -> AnswerOut {
        AnswerOut {
            dir,
            terminal,
            not_saved: 0,
        }
    }

    /// Whether standard output is a terminal.
    pub fn terminal(&self) -> bool {
        self.terminal
    }

    /// How many file parts `--output-dir` could not save (each one was reported on
    /// standard error); the command then exits 3 at the end.
    pub fn not_saved(&self) -> usize {
        self.not_saved
    }
}

/// The most bytes `--file` reads for one message, all its files together: three quarters of
/// the largest body the client itself reads (`ClientConfig::max_response_bytes`), since
/// base64 makes 4 bytes of 3 and the request must stay a body a peer like this client
/// accepts.
pub fn file_limit(max_body_bytes: u64) -> u64 {
    max_body_bytes / 4 * 3
}

/// Opens for reading without blocking on a FIFO (a regular file ignores `O_NONBLOCK`).
fn open_for_reading(path: &Path) -> std::io::Result<File> {
    let mut open = OpenOptions::new();
    open.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut open, libc::O_NONBLOCK);
    open.open(path)
}

/// Reads a regular file of at most `limit` bytes. A FIFO, a device (`/dev/zero`), a socket
/// or a directory is refused before it is read, and again after it is opened (it may have
/// been swapped in between); the read stops one byte past `limit`, so a file that grows
/// (or a `/proc` file that says size 0) cannot take more memory.
fn read_regular_file(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    const NOT_REGULAR: &str =
        "not a regular file (a FIFO, device, socket or directory is never read)";
    let too_large = || format!("larger than the {limit} bytes left for this message's files");
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err(NOT_REGULAR.to_owned());
    }
    if meta.len() > limit {
        return Err(too_large());
    }
    let f = open_for_reading(path).map_err(|e| e.to_string())?;
    let meta = f.metadata().map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err(NOT_REGULAR.to_owned());
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len().min(limit)).unwrap_or(0));
    f.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

/// [`read_regular_file`] on a helper thread, waited for until `deadline` at most: a file on
/// a hung network or FUSE file system cannot hold the command past its deadline (the
/// thread is left behind and ends with the process).
fn read_file_within(path: &str, limit: u64, deadline: Instant) -> Result<Vec<u8>, String> {
    let (tx, rx) = std::sync::mpsc::channel();
    let owned = PathBuf::from(path);
    std::thread::spawn(move || {
        let _ = tx.send(read_regular_file(&owned, limit));
    });
    rx.recv_timeout(deadline.saturating_duration_since(Instant::now()))
        .unwrap_or_else(|_| {
            Err("not read within the command's deadline (--max-time, else --timeout)".to_owned())
        })
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
/// (before the positional arguments are read, so that no value is taken for one). The
/// files together hold at most `file_limit` bytes and are read by `deadline`.
pub fn outgoing_flags(
    args: &mut Args,
    file_limit: u64,
    deadline: Instant,
) -> Result<Outgoing, String> {
    let mut parts = Vec::new();
    let mut file_bytes_left = file_limit;
    for (flag, v) in args.values_in_order(&["--data", "--file", "--file-url"])? {
        let part = match flag {
            "--data" => {
                let json = Json::parse(&v).map_err(|e| format!("--data {v:?}: not JSON: {e}"))?;
                Part::from_content(PartContent::Data(json))
            }
            "--file" => {
                let (path, t) = with_type(&v);
                let bytes = read_file_within(path, file_bytes_left, deadline)
                    .map_err(|e| format!("--file {path}: {e}"))?;
                file_bytes_left -= bytes.len() as u64;
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
/// leading dots, so that it can never leave the output directory, and without the
/// characters [`escape`] would escape (controls, line separators, bidi overrides).
fn safe_name(name: &str) -> Option<String> {
    let last = name.rsplit(['/', '\\']).next().unwrap_or("");
    let clean: String = last
        .chars()
        .filter(|c| !escape::must_escape(*c) && *c != ':')
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
        let mut f = create_in_dir(&path, self.force)?;
        f.write_all(&bytes)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        self.written.push(name);
        Ok(path)
    }
}

/// Opens `path` (a name directly inside the output directory) for writing, never outside
/// the directory: a symbolic link in the way is refused, not followed (`O_NOFOLLOW` closes
/// the gap between the look and the open), and so is anything but a regular file (a FIFO
/// would block the command; `O_NONBLOCK` keeps the open from waiting on one) and, with
/// `force`, a file with other hard links (writing it would change a file elsewhere). A
/// file that exists is kept unless `force`; with `force` it is emptied only once it proved
/// to be a plain regular file.
fn create_in_dir(path: &Path, force: bool) -> Result<File, String> {
    let say = |what: &str| format!("{} {what}", path.display());
    let io_error = |e: std::io::Error| format!("{}: {e}", path.display());
    let link = || say("is a symbolic link: not followed, nothing written");
    let not_regular = || say("is not a regular file: nothing written");
    let exists = || say("exists (use --force to overwrite)");
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => return Err(link()),
        Ok(m) if !m.is_file() => return Err(not_regular()),
        Ok(_) if !force => return Err(exists()),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_error(e)),
    }
    let mut open = OpenOptions::new();
    open.write(true);
    if force {
        open.create(true);
    } else {
        open.create_new(true);
    }
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut open, libc::O_NOFOLLOW | libc::O_NONBLOCK);
    let f = open.open(path).map_err(|e| {
        #[cfg(unix)]
        match e.raw_os_error() {
            Some(libc::ELOOP) => return link(),
            // A FIFO with no reader, swapped in after the look.
            Some(libc::ENXIO) => return not_regular(),
            _ => {}
        }
        if e.kind() == std::io::ErrorKind::AlreadyExists {
            exists()
        } else {
            io_error(e)
        }
    })?;
    let meta = f.metadata().map_err(io_error)?;
    if !meta.is_file() {
        return Err(not_regular());
    }
    #[cfg(unix)]
    if std::os::unix::fs::MetadataExt::nlink(&meta) > 1 {
        return Err(say("has other hard links: not overwritten"));
    }
    if force {
        f.set_len(0).map_err(io_error)?;
    }
    Ok(f)
}

/// Prints parts for a human: text as text, data as indented JSON, files as one line with
/// name, media type and size (and where `--output-dir` saved them). The agent's text and
/// data are escaped when standard output is a terminal, the `[file]` line always (see
/// [`escape`]). A file part that cannot be saved is said on its `[file]` line and, with
/// the reason, on standard error; the other parts are still printed and saved
/// ([`AnswerOut::not_saved`] counts it).
pub fn print_parts(
    out: &mut impl Write,
    parts: &[Part<'_>],
    shown: &mut AnswerOut,
    counter: &mut usize,
) {
    let written = |r: std::io::Result<()>| r.unwrap_or_else(|e| crate::args::stdout_failed(&e));
    for p in parts {
        *counter += 1;
        match &p.content {
            PartContent::Text(t) => {
                written(writeln!(out, "{}", escape::answer(t, shown.terminal)));
            }
            PartContent::Data(d) => {
                let pretty = serde_json::to_string_pretty(&d.to_value())
                    .unwrap_or_else(|_| d.get().to_owned());
                written(writeln!(out, "{}", escape::answer(&pretty, shown.terminal)));
            }
            PartContent::Bytes(_) | PartContent::Url(_) => {
                let name = escape::line(p.filename.as_deref().unwrap_or("(unnamed)"));
                let media = escape::line(p.media_type.as_deref().unwrap_or("unknown type"));
                let line = match (&p.content, file_bytes(p)) {
                    (PartContent::Url(u), _) => {
                        format!("[file] {name} ({media}) at {}", escape::line(u))
                    }
                    (_, Some(Ok(b))) => {
                        let mut line = format!("[file] {name} ({media}, {} bytes)", b.len());
                        if let Some(d) = shown.dir.as_mut() {
                            match d.save(p, *counter) {
                                Ok(saved) => line.push_str(&format!(
                                    " saved to {}",
                                    escape::line(&saved.display().to_string())
                                )),
                                Err(e) => {
                                    // Standard output first: a reader of both sees the
                                    // part, then why it was not saved.
                                    line.push_str(" not saved");
                                    written(writeln!(out, "{line}").and_then(|()| out.flush()));
                                    eprintln!(
                                        "a2a: part {} ({name}) not saved: {}",
                                        *counter,
                                        escape::line(&e)
                                    );
                                    shown.not_saved += 1;
                                    continue;
                                }
                            }
                        }
                        line
                    }
                    (_, _) => format!("[file] {name} ({media}, unreadable bytes)"),
                };
                written(writeln!(out, "{line}"));
            }
        }
    }
}

/// Prints a whole answer: the task's artifacts (else its status message when it is the
/// only content), or the message's parts.
pub fn print_answer(out: &mut impl Write, r: &SendResponse<'_>, shown: &mut AnswerOut) {
    let mut counter = 0;
    match r {
        SendResponse::Message(m) => print_parts(out, &m.parts, shown, &mut counter),
        SendResponse::Task(t) => {
            for a in &t.artifacts {
                print_parts(out, &a.parts, shown, &mut counter);
            }
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
