//! A small command-line argument reader (the core takes no CLI dependency).

use std::collections::VecDeque;

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

    /// Fails when anything was not consumed.
    pub fn finish(self) -> Result<(), String> {
        match self.rest.front() {
            None => Ok(()),
            Some(a) => Err(format!("unexpected argument {a:?}")),
        }
    }
}
