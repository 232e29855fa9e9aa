//! Attachments in the store (migration 0012): stored once by content hash, read back whole,
//! read in one query for many hashes, kept across a restart.

use lango_core::attachments::{prepare, AttachmentKind, ImageFormat, PreparedAttachment};
use lango_core::store::Store;
use lango_core::tokens::TiktokenCounter;

use crate::raw_db::raw_pool;
use crate::temp_store;

fn text_file(name: &str, text: &str) -> PreparedAttachment {
    prepare(name, text.as_bytes(), &TiktokenCounter).expect("prepares")
}

fn png_file(name: &str, width: u32, height: u32) -> PreparedAttachment {
    let img = image::DynamicImage::ImageRgb8(image::RgbImage::from_fn(width, height, |x, y| {
        image::Rgb([x as u8, y as u8, 128])
    }));
    let mut png = Vec::new();
    img.write_with_encoder(image::codecs::png::PngEncoder::new(&mut png))
        .expect("encodes");
    prepare(name, &png, &TiktokenCounter).expect("prepares")
}

async fn row_count(store: &Store) -> i64 {
    let pool = raw_pool(store.path()).await;
    sqlx::query_scalar("SELECT count(*) FROM attachments")
        .fetch_one(&pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn the_same_file_attached_twice_is_stored_once() {
    let (_d, store) = temp_store().await;
    let first = store
        .put_attachment(&text_file("notes.md", "# Plan\nShip it."))
        .await
        .unwrap();
    assert!(first.newly_stored);
    let again = store
        .put_attachment(&text_file("copy of notes.md", "# Plan\nShip it."))
        .await
        .unwrap();
    assert!(!again.newly_stored);
    assert_eq!(again.hash, first.hash);
    assert_eq!(again.name, "copy of notes.md");
    assert_eq!(row_count(&store).await, 1);
    // The row keeps the name it was first stored under.
    let stored = store.attachment(&first.hash).await.unwrap().unwrap();
    assert_eq!(stored.attachment.name, "notes.md");
}

#[tokio::test]
async fn the_same_file_attached_at_once_from_many_places_is_stored_once() {
    let (_d, store) = temp_store().await;
    let file = text_file("same.txt", "the same bytes");
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let (store, file) = (store.clone(), file.clone());
        tasks.push(tokio::spawn(
            async move { store.put_attachment(&file).await },
        ));
    }
    let mut newly = 0;
    for t in tasks {
        newly += usize::from(t.await.unwrap().unwrap().newly_stored);
    }
    assert_eq!(newly, 1);
    assert_eq!(row_count(&store).await, 1);
}

#[tokio::test]
async fn an_image_reads_back_byte_for_byte_with_its_sizes() {
    let (_d, store) = temp_store().await;
    let photo = png_file("chart.png", 2000, 1000);
    let r = store.put_attachment(&photo).await.unwrap();
    assert_eq!(r.kind, "image");
    assert_eq!(r.mime, "image/png");
    assert_eq!(r.token_count as usize, photo.token_count);
    let stored = store.attachment(&r.hash).await.unwrap().unwrap();
    assert_eq!(stored.attachment, photo);
    assert_eq!(
        stored.attachment.kind,
        AttachmentKind::Image(ImageFormat::Png)
    );
    let image = stored.attachment.image.unwrap();
    assert_eq!((image.original_width, image.original_height), (2000, 1000));
    assert_eq!((image.width, image.height), (1568, 784));
    assert!(stored.created_at > 0);
}

#[tokio::test]
async fn a_missing_hash_is_none_not_an_error() {
    let (_d, store) = temp_store().await;
    assert!(store.attachment(&"0".repeat(64)).await.unwrap().is_none());
    assert!(store.attachments(&[]).await.unwrap().is_empty());
}

#[tokio::test]
async fn many_attachments_come_back_in_the_order_asked_missing_ones_left_out() {
    let (_d, store) = temp_store().await;
    let a = store
        .put_attachment(&text_file("a.txt", "alpha"))
        .await
        .unwrap();
    let b = store
        .put_attachment(&png_file("b.png", 40, 30))
        .await
        .unwrap();
    let c = store
        .put_attachment(&text_file("c.rs", "fn c() {}"))
        .await
        .unwrap();
    let asked = vec![
        c.hash.clone(),
        "f".repeat(64),
        a.hash.clone(),
        b.hash.clone(),
        c.hash.clone(),
    ];
    let got = store.attachments(&asked).await.unwrap();
    let names: Vec<&str> = got.iter().map(|s| s.attachment.name.as_str()).collect();
    assert_eq!(names, ["c.rs", "a.txt", "b.png", "c.rs"]);
    assert_eq!(got[1].attachment.text.as_deref(), Some("alpha"));
}

#[tokio::test]
async fn attachments_survive_closing_and_reopening_the_store() {
    let (dir, store) = temp_store().await;
    let r = store
        .put_attachment(&text_file("todo.txt", "buy milk"))
        .await
        .unwrap();
    store.close().await;
    let store = Store::open(&dir.path().join("lango.db")).await.unwrap();
    let stored = store.attachment(&r.hash).await.unwrap().unwrap();
    assert_eq!(stored.attachment.text.as_deref(), Some("buy milk"));
    assert_eq!(stored.attachment.kind, AttachmentKind::Text);
}

#[tokio::test]
async fn the_schema_refuses_an_image_without_pixels_or_a_malformed_hash() {
    let (_d, store) = temp_store().await;
    let mut no_pixels = png_file("x.png", 10, 10);
    no_pixels.image = None;
    assert!(store.put_attachment(&no_pixels).await.is_err());
    let mut bad_hash = text_file("y.txt", "y");
    bad_hash.hash = "not-a-sha256".into();
    assert!(store.put_attachment(&bad_hash).await.is_err());
    assert_eq!(row_count(&store).await, 0);
}
