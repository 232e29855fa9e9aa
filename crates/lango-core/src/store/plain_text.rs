//! Markdown as the words a person reads, on one line: what a search snippet shows.
//!
//! Messages are Markdown; a snippet cut from the raw text would show `**`, backticks, `#`
//! and link syntax, and its `[` `]` would read as match markers to the UI
//! (`ui/src/lib/snippet.ts` treats `[text]` as a match). So: emphasis and code marks go,
//! heading, quote and list markers go, `[text](url)` and `![alt](url)` become `text` / `alt`,
//! `<https://…>` becomes the address, line breaks become spaces, and any bracket left in the
//! text becomes a parenthesis, leaving `[` `]` to the snippet's match markers alone.
//!
//! Owns only text; it must not touch the database.

/// The plain words of `markdown`, whitespace collapsed to single spaces.
pub(crate) fn plain_text(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len());
    for line in markdown.lines() {
        let line = line.trim();
        if line.starts_with("```") || line.starts_with("~~~") {
            continue; // a code fence: its code stays, the fence goes
        }
        let line = strip_block_marker(line);
        if line.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        inline(line, &mut out);
    }
    collapse_spaces(&out)
}

/// Drops a heading, quote or list marker at the start of a line.
fn strip_block_marker(line: &str) -> &str {
    let mut line = line;
    loop {
        let trimmed = line.trim_start();
        let rest = if let Some(rest) = trimmed.strip_prefix('>') {
            rest
        } else if trimmed.starts_with('#') {
            let after = trimmed.trim_start_matches('#');
            if after.is_empty() || after.starts_with(' ') {
                after
            } else {
                return trimmed; // "#hashtag" is a word
            }
        } else if let Some(rest) = ["- ", "* ", "+ "]
            .iter()
            .find_map(|m| trimmed.strip_prefix(m))
        {
            rest
        } else if let Some(rest) = ordered_marker(trimmed) {
            rest
        } else {
            return trimmed;
        };
        line = rest;
    }
}

/// `1. item` / `2) item` → `item`.
fn ordered_marker(line: &str) -> Option<&str> {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 9 {
        return None;
    }
    let rest = &line[digits..];
    rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") "))
}

/// Inline Markdown of one line into `out`.
fn inline(line: &str, out: &mut String) {
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '!' if chars.get(i + 1) == Some(&'[') => {
                if let Some(next) = link(&chars, i + 1, out) {
                    i = next;
                    continue;
                }
                out.push('!');
            }
            '[' => {
                if let Some(next) = link(&chars, i, out) {
                    i = next;
                    continue;
                }
                out.push('(');
            }
            ']' => out.push(')'),
            '<' => {
                // An autolink: <https://example.com> → the address.
                let close = chars[i + 1..].iter().position(|&c| c == '>');
                match close {
                    Some(len) if is_autolink(&chars[i + 1..i + 1 + len]) => {
                        out.extend(&chars[i + 1..i + 1 + len]);
                        i += len + 2;
                        continue;
                    }
                    _ => out.push('<'),
                }
            }
            '`' => {} // code marks go, the code stays
            '*' | '_' | '~' if is_emphasis(&chars, i) => {}
            _ => out.push(c),
        }
        i += 1;
    }
}

/// A `[text](url)` starting at `open` (the `[`): writes `text` (its own inline Markdown
/// plain too) and returns the index after the `)`. None when it is not a link.
fn link(chars: &[char], open: usize, out: &mut String) -> Option<usize> {
    let close = open + 1 + chars[open + 1..].iter().position(|&c| c == ']')?;
    if chars.get(close + 1) != Some(&'(') {
        return None;
    }
    let end = close + 2 + chars[close + 2..].iter().position(|&c| c == ')')?;
    let text: String = chars[open + 1..close].iter().collect();
    let mut inner = String::new();
    inline(&text, &mut inner);
    out.push_str(&inner);
    Some(end + 1)
}

fn is_autolink(inner: &[char]) -> bool {
    let s: String = inner.iter().collect();
    (s.starts_with("http://") || s.starts_with("https://") || s.starts_with("mailto:"))
        && !s.contains(char::is_whitespace)
}

/// A `*`, `_` or `~` that opens or closes emphasis: next to a word on one side and not on
/// the other (`**bold**`, `_it_`, `~~gone~~`), or part of a run of them. A lone `*` between
/// spaces (`2 * 3`) or inside a word (`snake_case`) is text.
fn is_emphasis(chars: &[char], i: usize) -> bool {
    let c = chars[i];
    let word = |j: Option<usize>| {
        j.and_then(|j| chars.get(j))
            .is_some_and(|c| c.is_alphanumeric())
    };
    // The marker run this char belongs to.
    let mut start = i;
    while start > 0 && chars[start - 1] == c {
        start -= 1;
    }
    let mut end = i + 1;
    while end < chars.len() && chars[end] == c {
        end += 1;
    }
    let before = word(start.checked_sub(1));
    let after = word(Some(end));
    if c == '~' && end - start < 2 {
        return false; // a single tilde is text ("~5 ms")
    }
    before != after || (end - start >= 2 && (before || after))
}

fn collapse_spaces(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::plain_text;

    #[test]
    fn emphasis_code_and_headings_become_plain_words() {
        assert_eq!(
            plain_text("## Plan\n\nUse **bold** and _light_ `code`, ~~never~~."),
            "Plan Use bold and light code, never."
        );
        assert_eq!(plain_text("```rust\nfn main() {}\n```"), "fn main() {}");
        assert_eq!(
            plain_text("> quoted\n- item one\n2. item two"),
            "quoted item one item two"
        );
    }

    #[test]
    fn links_keep_their_text_and_brackets_never_look_like_match_markers() {
        assert_eq!(
            plain_text("see [the docs](https://example.com) or ![a cat](cat.png) <https://x.org>"),
            "see the docs or a cat https://x.org"
        );
        assert_eq!(plain_text("- [x] done, a[0] = 1"), "(x) done, a(0) = 1");
    }

    #[test]
    fn text_that_only_looks_like_markdown_is_kept() {
        assert_eq!(
            plain_text("2 * 3 = 6, snake_case, ~5 ms, #hashtag"),
            "2 * 3 = 6, snake_case, ~5 ms, #hashtag"
        );
    }
}
