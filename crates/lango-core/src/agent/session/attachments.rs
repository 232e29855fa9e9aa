//! Attached files in a request: what the model gets for each attachment reference of the
//! history — a text file's or PDF's text framed with its name, an image as inline data (or,
//! for a model known not to take images, a line describing it), and a plain note for a file
//! no longer stored. Filled in before each model call, never stored as message text.

use base64::Engine as _;

use crate::agent::types::{Content, InlineData, Part};
use crate::attachments::{describe, human_size, AttachmentKind, PreparedAttachment};
use crate::store::{AttachmentRef, StoredAttachment};

/// The hashes of the attachment parts in `contents` not filled in yet.
pub(crate) fn unresolved(contents: &[Content]) -> Vec<String> {
    let mut hashes: Vec<String> = Vec::new();
    for part in contents.iter().flat_map(|c| &c.parts) {
        if let Some(a) = part.attachment.as_ref().filter(|_| !is_filled(part)) {
            if !hashes.contains(&a.hash) {
                hashes.push(a.hash.clone());
            }
        }
    }
    hashes
}

fn is_filled(part: &Part) -> bool {
    part.text.is_some() || part.inline_data.is_some()
}

/// Fills every attachment part of `contents` from `stored` (the rows of `unresolved`).
pub(crate) fn fill(contents: &mut [Content], stored: &[StoredAttachment], images: bool) {
    for part in contents.iter_mut().flat_map(|c| c.parts.iter_mut()) {
        let Some(reference) = part.attachment.clone() else {
            continue;
        };
        if is_filled(part) {
            continue;
        }
        let found = stored
            .iter()
            .find(|s| s.attachment.hash == reference.hash)
            .map(|s| &s.attachment);
        match found {
            Some(a) => fill_one(part, &reference, a, images),
            None => {
                part.text = Some(format!(
                    "[Attached file {} ({}) is no longer stored.]",
                    reference.name,
                    human_size(reference.size)
                ));
            }
        }
    }
}

fn fill_one(part: &mut Part, reference: &AttachmentRef, a: &PreparedAttachment, images: bool) {
    match (&a.kind, &a.image) {
        (AttachmentKind::Image(_), Some(image)) if images => {
            part.inline_data = Some(InlineData {
                mime_type: image.mime.clone(),
                data: base64::engine::general_purpose::STANDARD.encode(&image.data),
            });
        }
        (AttachmentKind::Image(_), _) => {
            part.text = Some(format!(
                "{} (the image is not sent: this model does not take images)",
                describe(&named(a, reference))
            ));
        }
        (AttachmentKind::Pdf | AttachmentKind::Text, _) => {
            let text = a.text.as_deref().unwrap_or_default();
            let fence = fence(text);
            let cut = if a.text_truncated {
                "\n[The file's text was cut here: it is longer than Lango sends.]"
            } else {
                ""
            };
            part.text = Some(format!(
                "\n[Attached file: {} ({}, {})]\n{fence}\n{text}\n{fence}{cut}",
                reference.name,
                a.mime,
                human_size(a.size)
            ));
        }
    }
}

/// The stored attachment under the name this message gave it.
fn named(a: &PreparedAttachment, reference: &AttachmentRef) -> PreparedAttachment {
    PreparedAttachment {
        name: reference.name.clone(),
        ..a.clone()
    }
}

/// A fence longer than any backtick run in `text`, so a file cannot close it early.
fn fence(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::types::roles;
    use crate::attachments::{ImageFormat, PreparedImage};

    fn reference(hash: &str, name: &str) -> AttachmentRef {
        AttachmentRef {
            hash: hash.into(),
            name: name.into(),
            kind: "text".into(),
            mime: "text/plain".into(),
            size: 10,
            token_count: 3,
            description: String::new(),
            newly_stored: false,
        }
    }

    fn stored(hash: &str, kind: AttachmentKind, text: Option<&str>) -> StoredAttachment {
        StoredAttachment {
            attachment: PreparedAttachment {
                hash: hash.into(),
                name: "first-name.txt".into(),
                kind,
                mime: "text/plain".into(),
                size: 10,
                text: text.map(str::to_owned),
                text_truncated: false,
                pages: None,
                image: matches!(kind, AttachmentKind::Image(_)).then(|| PreparedImage {
                    mime: "image/png".into(),
                    data: vec![1, 2, 3],
                    original_width: 4000,
                    original_height: 3000,
                    width: 1568,
                    height: 1176,
                }),
                token_count: 3,
            },
            created_at: 0,
        }
    }

    fn message(refs: &[AttachmentRef]) -> Vec<Content> {
        let mut parts = vec![Part::text("look")];
        parts.extend(refs.iter().cloned().map(Part::attachment));
        vec![Content::new(roles::USER, parts)]
    }

    #[test]
    fn a_text_file_reaches_the_model_framed_with_its_name_and_a_fence_it_cannot_close() {
        let mut contents = message(&[reference("a", "notes.md")]);
        assert_eq!(unresolved(&contents), ["a"]);
        let text = "has ``` inside";
        fill(
            &mut contents,
            &[stored("a", AttachmentKind::Text, Some(text))],
            true,
        );
        let sent = contents[0].parts[1].text.clone().unwrap();
        assert!(
            sent.contains("[Attached file: notes.md (text/plain, 10 bytes)]"),
            "{sent}"
        );
        assert!(sent.contains("````\nhas ``` inside\n````"), "{sent}");
        assert!(unresolved(&contents).is_empty());
        // What the user typed stays the message's text; the file is not part of it.
        assert_eq!(contents[0].text(), "look");
    }

    #[test]
    fn an_image_goes_as_inline_data_or_as_words_to_a_model_without_vision() {
        let image = AttachmentKind::Image(ImageFormat::Png);
        let mut with = message(&[reference("i", "photo.png")]);
        fill(&mut with, &[stored("i", image, None)], true);
        let data = with[0].parts[1].inline_data.clone().unwrap();
        assert_eq!(
            (data.mime_type.as_str(), data.data.as_str()),
            ("image/png", "AQID")
        );

        let mut without = message(&[reference("i", "photo.png")]);
        fill(&mut without, &[stored("i", image, None)], false);
        let words = without[0].parts[1].text.clone().unwrap();
        assert!(words.starts_with("[image: photo.png, PNG"), "{words}");
        assert!(words.contains("does not take images"));
        assert!(without[0].parts[1].inline_data.is_none());
    }

    #[test]
    fn a_file_no_longer_stored_is_a_plain_note_not_a_failure() {
        let mut contents = message(&[reference("gone", "old.txt")]);
        fill(&mut contents, &[], true);
        assert_eq!(
            contents[0].parts[1].text.as_deref(),
            Some("[Attached file old.txt (10 bytes) is no longer stored.]")
        );
    }
}
