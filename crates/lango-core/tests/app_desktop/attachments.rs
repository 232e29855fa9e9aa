//! Files attached to a message from the desktop: prepared and stored when attached (the chip's
//! token cost is real), sent in the provider's wire format (text framed with its name, images
//! as image parts), kept with the message (regenerate sends them again), counted in the
//! history budget, refused for a model known not to take images — before anything is sent.

use super::*;
use lango_core::conversation::ConversationSettings;

fn png(width: u32, height: u32) -> Vec<u8> {
    let img = image::DynamicImage::ImageRgb8(image::RgbImage::from_fn(width, height, |x, y| {
        image::Rgb([x as u8, y as u8, 90])
    }));
    let mut bytes = Vec::new();
    img.write_with_encoder(image::codecs::png::PngEncoder::new(&mut bytes))
        .expect("encodes");
    bytes
}

async fn send_with(app: &App, key: &str, text: &str, hashes: &[String]) -> TurnOutcome {
    let (_seen, sink) = recorder();
    app.send_with(key, text, hashes, sink)
        .await
        .expect("turn runs")
}

#[tokio::test]
async fn a_text_file_and_an_image_reach_the_model_and_stay_with_the_message() {
    let (_home, fake, app) = app_with(Script::new([Turn::text(["Seen."])])).await;
    let notes = app
        .prepare_attachment("notes.md", b"# Plan\nShip the parser on Friday.".to_vec())
        .await
        .unwrap();
    assert_eq!(
        (notes.kind.as_str(), notes.mime.as_str()),
        ("text", "text/markdown")
    );
    assert!(notes.token_count > 0);
    let photo = app
        .prepare_attachment("photo.png", png(40, 30))
        .await
        .unwrap();
    assert_eq!(photo.kind, "image");

    let outcome = send_with(
        &app,
        "c",
        "What do you make of these?",
        &[notes.hash.clone(), photo.hash.clone()],
    )
    .await;
    assert_eq!(outcome.status, TurnStatus::Complete);

    let body = fake.generate_requests()[0].json();
    let user = &body["messages"][1];
    let parts = user["content"]
        .as_array()
        .expect("a user message with an image is a list of parts");
    let text = parts[0]["text"].as_str().unwrap();
    assert!(text.starts_with("What do you make of these?"), "{text}");
    assert!(
        text.contains("[Attached file: notes.md (text/markdown,"),
        "{text}"
    );
    assert!(text.contains("Ship the parser on Friday."), "{text}");
    let url = parts[1]["image_url"]["url"].as_str().unwrap();
    assert!(url.starts_with("data:image/png;base64,"), "{url}");

    // The message keeps what the user typed and the files as references.
    let messages = app.page_messages("c", None, 10).await.unwrap();
    assert_eq!(messages[0].content, "What do you make of these?");
    let names: Vec<&str> = messages[0]
        .attachments
        .iter()
        .map(|a| a.name.as_str())
        .collect();
    assert_eq!(names, ["notes.md", "photo.png"]);
    // Its token count holds the files too (the history budget must).
    let files: u64 = messages[0].attachments.iter().map(|a| a.token_count).sum();
    assert!(messages[0].token_count as u64 > files);

    // Regenerate sends the files again.
    let (_seen, sink) = recorder();
    app.regenerate("c", None, sink).await.unwrap();
    let again = fake.generate_requests()[1].json();
    assert_eq!(again["messages"][1], body["messages"][1]);

    // The thumbnail is the image as sent.
    let image = app.attachment_image(&photo.hash).await.unwrap();
    assert_eq!(image.mime, "image/png");
}

#[tokio::test]
async fn files_alone_make_a_message_titled_after_the_first_file() {
    let (_home, _fake, app) = app_with(Script::new([Turn::text(["Got it."])])).await;
    let notes = app
        .prepare_attachment("agenda.txt", b"9:00 standup".to_vec())
        .await
        .unwrap();
    send_with(&app, "c", "", &[notes.hash]).await;
    let sessions = app.list_sessions(10).await.unwrap();
    assert_eq!(sessions[0].title, "agenda.txt");
}

#[tokio::test]
async fn an_image_for_a_model_known_not_to_take_images_is_refused_before_anything_is_sent() {
    let (_home, fake, app) = app_with(Script::new([Turn::text(["never"])])).await;
    let own = ConversationSettings {
        model: Some("gpt-3.5-turbo".into()),
        ..ConversationSettings::default()
    };
    app.set_conversation_settings("c", own).await.unwrap();
    let photo = app
        .prepare_attachment("photo.png", png(8, 8))
        .await
        .unwrap();
    let (_seen, sink) = recorder();
    let e = app
        .send_with("c", "look", &[photo.hash], sink)
        .await
        .unwrap_err();
    assert_eq!(e.code, "model_cannot_see_images");
    assert!(e.message.contains("gpt-3.5-turbo"), "{}", e.message);
    assert!(fake.generate_requests().is_empty());
    assert!(app.page_messages("c", None, 10).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_file_that_cannot_be_attached_says_why_in_plain_words() {
    let (_home, _fake, app) = app_with(Script::new([Turn::text(["never"])])).await;
    let e = app
        .prepare_attachment("program.exe", b"MZ\x90\x00\x03\x00\x00\x00binary".to_vec())
        .await
        .unwrap_err();
    assert_eq!(e.code, "attachment_unsupported");
    assert!(
        e.message.contains("\"program.exe\" cannot be attached"),
        "{}",
        e.message
    );
    let unknown = app
        .send_with("c", "hi", &["0".repeat(64)], recorder().1)
        .await
        .unwrap_err();
    assert_eq!(unknown.code, "attachment_missing");
}

#[tokio::test]
async fn the_context_meter_counts_the_attached_files() {
    let (_home, _fake, app) = app_with(Script::new([Turn::text(["ok"])])).await;
    send(&app, "plain", "look").await;
    let without = app.inspect("plain").await.unwrap().history_tokens;
    let photo = app
        .prepare_attachment("photo.png", png(600, 400))
        .await
        .unwrap();
    send_with(&app, "with", "look", &[photo.hash]).await;
    let with = app.inspect("with").await.unwrap().history_tokens;
    assert!(
        with >= without + photo.token_count as usize,
        "{with} vs {without} + {}",
        photo.token_count
    );
}

#[tokio::test]
async fn a_markdown_export_writes_the_attached_files_beside_it_and_links_them() {
    let (_home, _fake, app) = app_with(Script::new([Turn::text(["Seen."])])).await;
    let notes = app
        .prepare_attachment("notes [draft].md", b"- first\n- second".to_vec())
        .await
        .unwrap();
    let photo = app
        .prepare_attachment("photo.png", png(40, 30))
        .await
        .unwrap();
    send_with(&app, "c", "Files", &[notes.hash, photo.hash]).await;

    let exported = app
        .export_session("c", ExportFormat::Markdown)
        .await
        .unwrap();
    // Another test may point the export folder elsewhere meanwhile: go by the path returned.
    let md_path = std::path::PathBuf::from(&exported.path);
    let md = std::fs::read_to_string(&md_path).unwrap();
    let stem = md_path.file_stem().unwrap().to_string_lossy().into_owned();
    let folder = md_path.with_file_name(format!("{stem} files"));
    assert!(
        md.contains(&format!(
            "[notes draft.md](<{stem} files/01 notes [draft].md>)"
        )),
        "{md}"
    );
    assert!(
        md.contains(&format!("![photo.png](<{stem} files/02 photo.png>)")),
        "{md}"
    );
    assert!(md.contains("> Attached: [file: notes [draft].md"), "{md}");
    assert_eq!(
        std::fs::read_to_string(folder.join("01 notes [draft].md")).unwrap(),
        "- first\n- second"
    );
    let image = std::fs::read(folder.join("02 photo.png")).unwrap();
    assert!(image.starts_with(b"\x89PNG"));
}
