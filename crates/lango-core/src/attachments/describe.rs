//! The compact one-line description of an attachment that the observational memory, the
//! exports and the CLI show in place of its contents — name, type, size, and a gist of its
//! text; never its bytes or base64.

use super::kind::AttachmentKind;
use super::prepare::PreparedAttachment;

/// How many characters of a text's beginning the gist quotes.
const GIST_CHARS: usize = 80;

/// `[image: photo.jpg, JPEG, 2.1 MB, 4032×3024]`,
/// `[file: notes.md, 12 KB, 3,100 tokens — "first words of the text…"]`,
/// `[pdf: report.pdf, 1.2 MB, 12 pages, 9,800 tokens — "Quarterly report…"]`.
pub fn describe(a: &PreparedAttachment) -> String {
    let size = human_size(a.size);
    match a.kind {
        AttachmentKind::Image(format) => match &a.image {
            Some(i) => format!(
                "[image: {}, {}, {size}, {}×{}]",
                a.name,
                format.label(),
                i.original_width,
                i.original_height
            ),
            None => format!("[image: {}, {}, {size}]", a.name, format.label()),
        },
        AttachmentKind::Pdf | AttachmentKind::Text => {
            let mut parts = vec![a.name.clone(), size];
            if let Some(pages) = a.pages {
                parts.push(format!(
                    "{} page{}",
                    thousands(pages as u64),
                    if pages == 1 { "" } else { "s" }
                ));
            }
            let cut = if a.text_truncated { ", cut" } else { "" };
            parts.push(format!("{} tokens{cut}", thousands(a.token_count as u64)));
            let label = if a.kind == AttachmentKind::Pdf {
                "pdf"
            } else {
                "file"
            };
            let gist = a.text.as_deref().map(gist).filter(|g| !g.is_empty());
            match gist {
                Some(g) => format!("[{label}: {} — \"{g}\"]", parts.join(", ")),
                None => format!("[{label}: {}]", parts.join(", ")),
            }
        }
    }
}

/// The text's first words, whitespace collapsed, cut at a word near [`GIST_CHARS`] with "…".
fn gist(text: &str) -> String {
    let mut out = String::new();
    let mut cut = false;
    for word in text.split_whitespace() {
        let word: String = word.chars().filter(|c| !c.is_control()).collect();
        let len = out.chars().count() + word.chars().count() + 1;
        if len > GIST_CHARS {
            if out.is_empty() {
                out = word.chars().take(GIST_CHARS).collect();
            }
            cut = true;
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&word);
    }
    if cut {
        out.push('…');
    }
    out
}

/// A size as people read it, in 1024-byte units: `512 bytes`, `12 KB`, `2.1 MB`, `20 MB`.
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes < 1024 {
        return format!("{bytes} byte{}", if bytes == 1 { "" } else { "s" });
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    let number = if value < 10.0 {
        let one = format!("{value:.1}");
        one.strip_suffix(".0").map(str::to_owned).unwrap_or(one)
    } else {
        format!("{value:.0}")
    };
    format!("{number} {}", UNITS[unit])
}

/// `3100` → `3,100`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attachments::{ImageFormat, PreparedImage};

    fn attachment(kind: AttachmentKind, name: &str, size: u64) -> PreparedAttachment {
        PreparedAttachment {
            hash: "h".into(),
            name: name.into(),
            kind,
            mime: String::new(),
            size,
            text: None,
            text_truncated: false,
            pages: None,
            image: None,
            token_count: 0,
        }
    }

    #[test]
    fn an_image_is_described_by_name_format_size_and_pixels_never_its_bytes() {
        let mut a = attachment(
            AttachmentKind::Image(ImageFormat::Jpeg),
            "photo.jpg",
            2_200_000,
        );
        a.image = Some(PreparedImage {
            mime: "image/jpeg".into(),
            data: vec![0xFF; 5000],
            original_width: 4032,
            original_height: 3024,
            width: 1568,
            height: 1176,
        });
        let d = describe(&a);
        assert_eq!(d, "[image: photo.jpg, JPEG, 2.1 MB, 4032×3024]");
        assert!(d.len() < 100);
    }

    #[test]
    fn a_text_file_shows_its_cost_and_first_words() {
        let mut a = attachment(AttachmentKind::Text, "notes.md", 12 * 1024);
        a.token_count = 3100;
        a.text = Some("# Trip plans\n\nDay one: the   train to Lyon, then a long walk along the river to the old town and back".into());
        assert_eq!(
            describe(&a),
            "[file: notes.md, 12 KB, 3,100 tokens — \"# Trip plans Day one: the train to Lyon, then a long walk along the river to the…\"]"
        );
    }

    #[test]
    fn a_pdf_shows_its_pages_and_whether_its_text_was_cut() {
        let mut a = attachment(AttachmentKind::Pdf, "manual.pdf", 48 * 1024 * 1024);
        a.pages = Some(1200);
        a.token_count = 1_048_000;
        a.text_truncated = true;
        a.text = Some("Manual".into());
        assert_eq!(
            describe(&a),
            "[pdf: manual.pdf, 48 MB, 1,200 pages, 1,048,000 tokens, cut — \"Manual\"]"
        );
    }

    #[test]
    fn sizes_read_like_a_file_manager() {
        assert_eq!(human_size(1), "1 byte");
        assert_eq!(human_size(512), "512 bytes");
        assert_eq!(human_size(1536), "1.5 KB");
        assert_eq!(human_size(20 * 1024 * 1024), "20 MB");
        assert_eq!(human_size(2 * 1024 * 1024 * 1024), "2 GB");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
    }
}
