//! A small command-line argument reader (the core takes no CLI dependency).

use std::collections::VecDeque;
use std::io::{self, Write};

/// Exit status for a usage error, stable and documented in the README.
pub const EXIT_USAGE: i32 = 2;

/// The arguments after the subcommand name, read front to back.
pub struct Args {
    rest: VecDeque<String>,
}

impl Args {
    /// Wraps the remaining arguments.
    pub fn new(rest: impl IntoIterator<Item = String>) -> Args {
        Args {
            rest: rest.into_iter().collect(),
        }
    }

    /// Takes `--name` if present anywhere; returns whether it was there.
    pub fn flag(&mut self, name: &str) -> bool {
        match self.rest.iter().position(|a| a == name) {
            Some(i) => {
                self.rest.remove(i);
                true
            }
            None => false,
        }
    }

    /// Takes every `--name VALUE` and `--name=VALUE`, in order.
    pub fn values(&mut self, name: &str) -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        let prefix = format!("{name}=");
        let mut i = 0;
        while i < self.rest.len() {
            if self.rest[i] == name {
                self.rest.remove(i);
                match self.rest.remove(i) {
                    Some(v) => out.push(v),
                    None => return Err(format!("{name} needs a value")),
                }
            } else if let Some(v) = self.rest[i].strip_prefix(&prefix) {
                out.push(v.to_owned());
                self.rest.remove(i);
            } else {
                i += 1;
            }
        }
        Ok(out)
    }

    /// Takes every `--name VALUE` and `--name=VALUE` of any of `names`, in command-line
    /// order, with the name it came with.
    pub fn values_in_order<'n>(
        &mut self,
        names: &[&'n str],
    ) -> Result<Vec<(&'n str, String)>, String> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < self.rest.len() {
            let arg = &self.rest[i];
            let hit = names.iter().find_map(|n| {
                if arg == n {
                    Some((*n, None))
                } else {
                    arg.strip_prefix(n)
                        .and_then(|r| r.strip_prefix('='))
                        .map(|v| (*n, Some(v.to_owned())))
                }
            });
            match hit {
                Some((n, Some(v))) => {
                    self.rest.remove(i);
                    out.push((n, v));
                }
                Some((n, None)) => {
                    self.rest.remove(i);
                    match self.rest.remove(i) {
                        Some(v) => out.push((n, v)),
                        None => return Err(format!("{n} needs a value")),
                    }
                }
                None => i += 1,
            }
        }
        Ok(out)
    }

    /// Takes the last `--name VALUE` if present.
    pub fn value(&mut self, name: &str) -> Result<Option<String>, String> {
        Ok(self.values(name)?.pop())
    }

    /// Takes `--name VALUE` and parses it.
    pub fn parsed<T: std::str::FromStr>(&mut self, name: &str) -> Result<Option<T>, String> {
        match self.value(name)? {
            None => Ok(None),
            Some(v) => v
                .parse()
                .map(Some)
                .map_err(|_| format!("{name}: cannot read {v:?}")),
        }
    }

    /// Takes the next positional argument.
    #[cfg_attr(not(feature = "driver"), allow(dead_code))]
    pub fn positional(&mut self, what: &str) -> Result<String, String> {
        match self.rest.iter().position(|a| !a.starts_with("--")) {
            Some(i) => Ok(self.rest.remove(i).expect("index from position")),
            None => Err(format!("missing {what}")),
        }
    }

    /// The next positional argument, left in place.
    pub fn peek_positional(&self) -> Option<&str> {
        self.rest
            .iter()
            .find(|a| !a.starts_with("--"))
            .map(String::as_str)
    }

    /// Whether `-h` or `--help` is among the arguments (help wins over everything else,
    /// as in git and curl).
    pub fn wants_help(&self) -> bool {
        self.rest.iter().any(|a| a == "-h" || a == "--help")
    }

    /// Fails on the first remaining `--option`: call it once every known option is taken,
    /// before the positionals, so a mistyped option is named instead of being read as a
    /// value or reported as a missing argument.
    pub fn no_unknown_options(&self) -> Result<(), String> {
        match self.rest.iter().find(|a| is_option(a)) {
            Some(a) => Err(unknown_option(a)),
            None => Ok(()),
        }
    }

    /// Fails when anything was not consumed.
    pub fn finish(self) -> Result<(), String> {
        match self.rest.front() {
            None => Ok(()),
            Some(a) if is_option(a) => Err(unknown_option(a)),
            Some(a) => Err(format!("unexpected argument {a:?}")),
        }
    }
}

/// `--name` or `--name=value` (a lone `-` or `--` is not an option).
fn is_option(a: &str) -> bool {
    a.len() > 2 && a.starts_with("--")
}

fn unknown_option(a: &str) -> String {
    let name = a.split_once('=').map_or(a, |(n, _)| n);
    format!("unknown option {name}")
}

/// Reports a usage error of `a2a <command>` the way every subcommand does (the message, then
/// where the help is) and returns [`EXIT_USAGE`].
pub fn usage_error(command: &str, msg: &str) -> i32 {
    eprintln!("a2a {command}: {msg}\nTry 'a2a {command} --help' for more information.");
    EXIT_USAGE
}

/// Exit status when standard output was closed under the command (`a2a stream … | head -1`):
/// 128 + SIGPIPE, what a shell reports for a program that the signal ended.
pub const EXIT_CLOSED_STDOUT: i32 = 141;

/// Ends the process after a failed write to standard output: silently with
/// [`EXIT_CLOSED_STDOUT`] when the reader went away (a broken pipe is the reader's choice,
/// not an error), else with the error on standard error and exit 3. Exiting at once is the
/// point: no further call goes out, no retry or resubscription starts.
pub fn stdout_failed(e: &io::Error) -> ! {
    if e.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(EXIT_CLOSED_STDOUT);
    }
    eprintln!("a2a: cannot write to standard output: {e}");
    std::process::exit(3);
}

/// Writes to standard output and flushes; any failure ends the process ([`stdout_failed`]).
pub fn out(args: std::fmt::Arguments<'_>) {
    let mut o = io::stdout().lock();
    if let Err(e) = o.write_fmt(args).and_then(|()| o.flush()) {
        stdout_failed(&e);
    }
}

/// `println!` for standard output that ends the process quietly when the reader is gone.
macro_rules! outln {
    ($($t:tt)*) => {
        $crate::args::out(format_args!("{}\n", format_args!($($t)*)))
    };
}
pub(crate) use outln;

/// A safety net for output written with `println!` (e.g. by `a2a demo`): std panics with
/// "failed printing to stdout" when the reader is gone; that panic becomes the same quiet
/// exit 141 as [`stdout_failed`]. Every other panic goes to the default hook.
pub fn quiet_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.starts_with("failed printing to stdout") && msg.contains("Broken pipe") {
            std::process::exit(EXIT_CLOSED_STDOUT);
        }
        default(info);
    }));
}
