//! Remote text made safe to print: what an agent sends (status texts, error messages, names,
//! file names, the answer's text) must not move the cursor, clear the screen, set the
//! window title, start a new line of its own (a forged `REMOTE_…` line under the real one)
//! or reorder what follows it.
//!
//! The escaped characters are the controls (C0, DEL and C1, among them ESC, CR, LF, NEL
//! U+0085 and CSI U+009B), the line and paragraph separators U+2028 and U+2029, and the
//! bidirectional formatting characters (U+061C, U+200E, U+200F, U+202A–U+202E,
//! U+2066–U+2069). Each becomes Rust's escape of it (`char::escape_debug`): `\n`, `\r`, `\t`
//! for the usual three, `\u{1b}` style for the others, so the line stays readable and says
//! which character was there.
//!
//! Two forms:
//! - [`line()`] for every remote string inside one of the CLI's own lines (state, errors,
//!   warnings, `[file]` lines, the card): everything above is escaped, and a backslash
//!   becomes `\\`, so a remote `\n` (two characters) reads `\\n` and never looks like an
//!   escaped newline: the form is unambiguous.
//! - [`text`] for the answer's own text and data on a terminal: newlines, tabs and CRLF line
//!   ends pass (a multi-line answer stays multi-line), the rest is escaped, backslashes stay
//!   as sent (a human reads it; the exact bytes are on a pipe and in `--json`).
//!
//! Whether the answer's text is escaped at all follows the tools users know: git escapes the
//! control characters of a remote's messages before they reach the user's terminal, and curl
//! writes a body to a pipe or file byte for byte (it only refuses to dump binary onto a
//! terminal). So the answer is written exactly when standard output is not a terminal, and
//! through [`text`] when it is; the CLI's own lines (standard error, `[file]`, the card)
//! always go through [`line()`], as they are read line by line by programs too (the model
//! line among them).

use std::borrow::Cow;

/// Whether `c` is one of the characters the module docs list.
pub fn must_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}'
                | '\u{2029}'
                | '\u{061C}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
        )
}

/// Escapes the characters `escape` selects; borrows `s` when there are none.
fn escaped(s: &str, escape: impl Fn(char, Option<char>) -> bool) -> Cow<'_, str> {
    let mut chars = s.chars().peekable();
    let mut out: Option<String> = None;
    let mut at = 0;
    while let Some(c) = chars.next() {
        let next = chars.peek().copied();
        if escape(c, next) {
            let o = out.get_or_insert_with(|| {
                let mut o = String::with_capacity(s.len() + 16);
                o.push_str(&s[..at]);
                o
            });
            o.extend(c.escape_debug());
        } else if let Some(o) = out.as_mut() {
            o.push(c);
        }
        at += c.len_utf8();
    }
    out.map_or(Cow::Borrowed(s), Cow::Owned)
}

/// `s` for one line of the CLI's own output: every listed character escaped, and `\` as
/// `\\` (see the module docs).
pub fn line(s: &str) -> Cow<'_, str> {
    escaped(s, |c, _| c == '\\' || must_escape(c))
}

/// `s` as answer text on a terminal: newlines, tabs and CRLF kept, every other listed
/// character escaped (see the module docs).
pub fn text(s: &str) -> Cow<'_, str> {
    escaped(s, |c, next| {
        let keep = matches!(c, '\n' | '\t') || (c == '\r' && next == Some('\n'));
        !keep && must_escape(c)
    })
}

/// [`text`] when `terminal`, else `s` exactly.
pub fn answer(s: &str, terminal: bool) -> Cow<'_, str> {
    if terminal { text(s) } else { Cow::Borrowed(s) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_form_escapes_controls_separators_bidi_and_backslash() {
        assert!(matches!(line("plain text, é 😀"), Cow::Borrowed(_)));
        assert_eq!(
            line("a\nREMOTE_COMPLETED x\r\u{1b}[2J\u{7}"),
            "a\\nREMOTE_COMPLETED x\\r\\u{1b}[2J\\u{7}"
        );
        assert_eq!(
            line("p\u{2028}q\u{2029}r\u{85}s\u{9b}t\u{7f}"),
            "p\\u{2028}q\\u{2029}r\\u{85}s\\u{9b}t\\u{7f}"
        );
        assert_eq!(line("x\u{202e}y\u{2066}z"), "x\\u{202e}y\\u{2066}z");
        assert_eq!(line("back\\slash\t"), "back\\\\slash\\t");
        assert_eq!(line("nul\0"), "nul\\0");
        for s in ["\u{1b}", "a\nb", "\u{2028}", "\r"] {
            assert!(!line(s).chars().any(must_escape), "{s:?}");
        }
    }

    #[test]
    fn text_form_keeps_lines_and_tabs_only() {
        assert!(matches!(text("two\nlines\tand\r\nCRLF"), Cow::Borrowed(_)));
        assert_eq!(text("a\rb\u{1b}[2J\\"), "a\\rb\\u{1b}[2J\\");
        assert_eq!(text("end\r"), "end\\r");
        assert_eq!(text("p\u{2028}q\u{85}"), "p\\u{2028}q\\u{85}");
        assert_eq!(answer("a\u{1b}", false), "a\u{1b}");
        assert_eq!(answer("a\u{1b}", true), "a\\u{1b}");
    }
}
