//! Everything `lango` writes to stdout and stderr goes through here, sanitised (see
//! [`sanitize`]): replies, tool activity, errors, listings of stored text, exports.
//!
//! The crate's clippy.toml forbids `print!`/`println!`/`eprint!`/`eprintln!` elsewhere, so a
//! new print path cannot bypass the filter. The CLI's own format strings hold no control
//! characters but `\n`, so sanitising a whole formatted line only ever removes outside text.

pub mod mode;
pub use lango_core::text::sanitize;

use std::io::Write;

pub use sanitize::Sanitizer;

/// Writes `text` to stdout as it is shown safely, and flushes (streamed replies appear as
/// they arrive). A closed pipe (`lango … | head`) is not an error worth a panic.
pub fn out(text: &str) {
    write_to(&mut std::io::stdout().lock(), &sanitize::clean(text));
}

/// Writes `text` to stderr, sanitised.
pub fn err(text: &str) {
    write_to(&mut std::io::stderr().lock(), &sanitize::clean(text));
}

/// Writes already-sanitised text (a [`Sanitizer`]'s output) to stdout.
pub fn out_clean(text: &str) {
    write_to(&mut std::io::stdout().lock(), text);
}

/// A progress line redrawn in place on stderr: `\r`, the sanitised text, erase to the end of
/// the line. Only on a terminal; piped stderr gets nothing (no log full of redraws).
pub fn progress(text: &str) {
    use std::io::IsTerminal;
    if std::io::stderr().is_terminal() {
        let line = format!("\r{}\x1b[K", sanitize::clean(text));
        write_to(&mut std::io::stderr().lock(), &line);
    }
}

/// Clears the progress line (before the next ordinary output).
pub fn progress_done() {
    progress("");
}

fn write_to(w: &mut impl Write, text: &str) {
    let _ = w.write_all(text.as_bytes());
    let _ = w.flush();
}

/// The log writer (`LANGO_LOG`): log lines quote provider errors and tool output too. The
/// formatter writes each event in one call, so each call is sanitised on its own.
pub struct LogWriter;

impl Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        std::io::stderr()
            .lock()
            .write_all(sanitize::clean(&text).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

/// `println!` for stdout, sanitised.
macro_rules! outln {
    () => { $crate::terminal::out("\n") };
    ($($arg:tt)*) => { $crate::terminal::out(&format!("{}\n", format_args!($($arg)*))) };
}

/// `eprintln!` for stderr, sanitised.
macro_rules! errln {
    () => { $crate::terminal::err("\n") };
    ($($arg:tt)*) => { $crate::terminal::err(&format!("{}\n", format_args!($($arg)*))) };
}

pub(crate) use {errln, outln};

/// JSON text safe to print: serde_json already escapes C0 controls inside strings but writes
/// DEL and the C1 controls raw; they become `\u00XX` escapes, which decode to the same value.
/// Outside strings JSON is plain ASCII, so every such character is inside a string.
pub fn json_escaped(json: String) -> String {
    if !json.chars().any(|c| matches!(c, '\u{7f}'..='\u{9f}')) {
        return json;
    }
    let mut escaped = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if matches!(c, '\u{7f}'..='\u{9f}') {
            escaped.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            escaped.push(c);
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_with_c1_controls_stays_the_same_value_without_raw_controls() {
        let value = serde_json::json!({"text": "a\u{9b}2J\u{1b}]52;c;x\u{7}b\u{7f}"});
        let printed = json_escaped(serde_json::to_string(&value).unwrap());
        assert!(
            !printed.chars().any(|c| c.is_control()),
            "raw control in {printed:?}"
        );
        let back: serde_json::Value = serde_json::from_str(&printed).unwrap();
        assert_eq!(back, value);
    }
}
