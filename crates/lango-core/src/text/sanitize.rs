//! Removes terminal control sequences from text that came from outside Lango (a model, a
//! tool, a provider's error body, stored conversation text) before it reaches a terminal.
//!
//! A reply containing `ESC ] 52 ; …` would write the user's clipboard, `ESC [ 2 J` would
//! clear the screen, OSC 0 would retitle the window. What is kept: printable text, `\n` and
//! `\t`. What is dropped: every other C0 control (a lone `\r` could overwrite the line; `\r\n`
//! becomes `\n`), DEL, the C1 controls U+0080–U+009F, and whole escape sequences — CSI,
//! OSC/DCS/SOS/PM/APC strings up to their BEL or ST terminator, and `ESC` + one character —
//! in both their 7-bit (`ESC [`) and 8-bit (U+009B) forms.
//!
//! [`Sanitizer`] keeps its parser state between chunks, so a sequence split across two
//! streamed deltas is still removed whole; nothing needs holding back, because everything
//! inside a sequence is dropped anyway. The text stored in the database is never changed:
//! this is only about what is shown.

use std::borrow::Cow;

const ESC: char = '\u{1b}';
const BEL: char = '\u{07}';
/// CAN and SUB abort a sequence in progress (ECMA-48).
const CAN: char = '\u{18}';
const SUB: char = '\u{1a}';
/// 8-bit forms of the introducers and of the string terminator.
const C1_DCS: char = '\u{90}';
const C1_SOS: char = '\u{98}';
const C1_CSI: char = '\u{9b}';
const C1_ST: char = '\u{9c}';
const C1_OSC: char = '\u{9d}';
const C1_PM: char = '\u{9e}';
const C1_APC: char = '\u{9f}';

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum State {
    /// Plain text.
    #[default]
    Ground,
    /// After ESC.
    Escape,
    /// After ESC and intermediate bytes (0x20–0x2F), waiting for the final byte.
    EscapeIntermediate,
    /// Inside a control sequence, waiting for its final byte (0x40–0x7E).
    Csi,
    /// Inside an OSC/DCS/SOS/PM/APC string, waiting for BEL or ST; `after_esc` when the
    /// previous character was ESC (ST is ESC `\`).
    String { after_esc: bool },
}

/// A streaming control-sequence filter: feed it chunks in order, print what it returns.
#[derive(Debug, Default)]
pub struct Sanitizer {
    state: State,
}

impl Sanitizer {
    pub fn new() -> Self {
        Self::default()
    }

    /// The printable part of `chunk`, given everything fed before it.
    pub fn push<'a>(&mut self, chunk: &'a str) -> Cow<'a, str> {
        if self.state == State::Ground && !chunk.chars().any(needs_care) {
            return Cow::Borrowed(chunk);
        }
        let mut shown = String::with_capacity(chunk.len());
        for c in chunk.chars() {
            if let Some(kept) = self.step(c) {
                shown.push(kept);
            }
        }
        Cow::Owned(shown)
    }

    /// Advances the parser by one character; Some when the character is shown.
    fn step(&mut self, c: char) -> Option<char> {
        match self.state {
            State::Ground => self.ground(c),
            State::Escape => match c {
                '[' => self.enter(State::Csi),
                ']' | 'P' | 'X' | '^' | '_' => self.enter(State::String { after_esc: false }),
                ESC => self.enter(State::Escape),
                CAN | SUB => self.enter(State::Ground),
                '\u{20}'..='\u{2f}' => self.enter(State::EscapeIntermediate),
                // ESC + one character (ESC c resets the terminal, ESC 7 saves the cursor…).
                '\u{30}'..='\u{7e}' => self.enter(State::Ground),
                // Not a sequence after all: the character counts as plain text.
                _ => self.reground(c),
            },
            State::EscapeIntermediate => match c {
                '\u{20}'..='\u{2f}' => None,
                '\u{30}'..='\u{7e}' => self.enter(State::Ground),
                ESC => self.enter(State::Escape),
                _ => self.reground(c),
            },
            State::Csi => match c {
                // Parameter and intermediate bytes.
                '\u{20}'..='\u{3f}' => None,
                '\u{40}'..='\u{7e}' => self.enter(State::Ground),
                ESC => self.enter(State::Escape),
                _ => self.reground(c),
            },
            State::String { after_esc } => match c {
                BEL | C1_ST | CAN | SUB => self.enter(State::Ground),
                '\\' if after_esc => self.enter(State::Ground),
                ESC => self.enter(State::String { after_esc: true }),
                // ESC followed by anything but `\` ends the string and starts a new sequence.
                _ if after_esc => {
                    self.state = State::Escape;
                    self.step(c)
                }
                _ => None,
            },
        }
    }

    fn ground(&mut self, c: char) -> Option<char> {
        match c {
            ESC => self.enter(State::Escape),
            C1_CSI => self.enter(State::Csi),
            C1_OSC | C1_DCS | C1_SOS | C1_PM | C1_APC => {
                self.enter(State::String { after_esc: false })
            }
            c if needs_care(c) => None,
            c => Some(c),
        }
    }

    fn enter(&mut self, state: State) -> Option<char> {
        self.state = state;
        None
    }

    fn reground(&mut self, c: char) -> Option<char> {
        self.state = State::Ground;
        self.ground(c)
    }
}

/// Text of one piece (an error, a title, a stored message): sanitised on its own.
pub fn clean(text: &str) -> Cow<'_, str> {
    Sanitizer::new().push(text)
}

/// Characters that are not shown as they are: controls other than `\n` and `\t`, DEL, C1.
fn needs_care(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(text: &str) -> String {
        clean(text).into_owned()
    }

    #[test]
    fn plain_text_newlines_tabs_and_other_scripts_pass_unchanged() {
        let text = "Paris\tis the capital.\nÉté, 東京, 🇫🇷 — ok\n";
        assert!(matches!(clean(text), Cow::Borrowed(_)));
        assert_eq!(shown(text), text);
    }

    #[test]
    fn an_osc_52_clipboard_write_is_removed_with_either_terminator() {
        assert_eq!(shown("a\x1b]52;c;ZXZpbA==\x07b"), "ab");
        assert_eq!(shown("a\x1b]52;c;ZXZpbA==\x1b\\b"), "ab");
        assert_eq!(shown("a\u{9d}52;c;ZXZpbA==\u{9c}b"), "ab");
    }

    #[test]
    fn a_window_title_change_is_removed() {
        assert_eq!(shown("\x1b]0;pwned\x07hello"), "hello");
    }

    #[test]
    fn screen_clearing_cursor_moves_and_colours_are_removed() {
        assert_eq!(shown("\x1b[2J\x1b[H\x1b[1;31mred\x1b[0m text"), "red text");
        assert_eq!(shown("\x1b[?1049h\x1b[38;5;196mx"), "x");
        assert_eq!(shown("\u{9b}2Jy"), "y");
    }

    #[test]
    fn device_control_and_application_strings_are_removed() {
        for intro in [
            "\x1bP", "\x1bX", "\x1b^", "\x1b_", "\u{90}", "\u{98}", "\u{9e}", "\u{9f}",
        ] {
            assert_eq!(shown(&format!("a{intro}+q544e\x1b\\b")), "ab", "{intro:?}");
        }
    }

    #[test]
    fn single_character_escapes_are_removed() {
        // ESC c resets the terminal; ESC 7 / ESC 8 save and restore the cursor; ESC ( B picks a charset.
        assert_eq!(shown("a\x1bcb\x1b7c\x1b8d\x1b(Be"), "abcde");
    }

    #[test]
    fn carriage_returns_and_other_controls_are_dropped_but_lines_are_kept() {
        assert_eq!(shown("safe\rEVIL\r\nnext\n"), "safeEVIL\nnext\n");
        assert_eq!(
            shown("bell\x07 back\x08space nul\0 del\x7f"),
            "bell backspace nul del"
        );
        assert_eq!(shown("c1\u{85}\u{8d}x"), "c1x");
    }

    #[test]
    fn an_escape_followed_by_plain_text_keeps_the_text() {
        // ESC then a newline is not a sequence: the newline stays.
        assert_eq!(shown("a\x1b\nb"), "a\nb");
        assert_eq!(shown("a\x1b[12\nb"), "a\nb");
        assert_eq!(shown("a\x1bé"), "aé");
    }

    #[test]
    fn a_sequence_split_across_chunks_is_removed_whatever_the_split() {
        let text = "one \x1b]52;c;ZXZpbA==\x1b\\two \x1b[2Jthree \x1b]0;t\x07four\r\n \u{9b}1mfive";
        let whole = shown(text);
        assert_eq!(whole, "one two three four\n five");
        let boundaries: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        for &i in &boundaries {
            for &j in boundaries.iter().filter(|&&j| j >= i) {
                let mut s = Sanitizer::new();
                let pieces = [&text[..i], &text[i..j], &text[j..]];
                let joined: String = pieces.iter().map(|p| s.push(p).into_owned()).collect();
                assert_eq!(joined, whole, "split at {i} and {j}");
            }
        }
    }

    #[test]
    fn an_unterminated_string_hides_only_itself_until_the_stream_ends() {
        let mut s = Sanitizer::new();
        assert_eq!(s.push("before \x1b]52;c;AAAA"), "before ");
        assert_eq!(s.push("BBBB"), "");
        assert_eq!(s.push("\x07after"), "after");
    }
}
