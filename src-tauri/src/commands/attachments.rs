//! Attached files: a file picked or pasted arrives as the raw body of `prepare_attachment`
//! (never as JSON numbers: a 50 MB PDF would be ~200 MB of text), its name in a header; a
//! file dropped on the window arrives as its path (Tauri's drag and drop gives paths).

use lango_core::app::{AppError, AttachmentImage, AttachmentInfo};
use tauri::ipc::{InvokeBody, Request};
use tauri::State;

use crate::state::AppState;

/// The header carrying the file's name, percent-encoded (`encodeURIComponent`).
const FILE_NAME_HEADER: &str = "x-lango-file-name";

#[tauri::command]
pub async fn prepare_attachment(
    state: State<'_, AppState>,
    request: Request<'_>,
) -> Result<AttachmentInfo, AppError> {
    let InvokeBody::Raw(bytes) = request.body() else {
        return Err(AppError::new(
            "bad_request",
            "the file was not sent as bytes",
        ));
    };
    let name = request
        .headers()
        .get(FILE_NAME_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(percent_decode)
        .unwrap_or_default();
    let bytes = bytes.clone();
    state.app().await?.prepare_attachment(&name, bytes).await
}

/// A file dropped on the window, read from its path.
#[tauri::command]
pub async fn prepare_attachment_path(
    state: State<'_, AppState>,
    path: String,
) -> Result<AttachmentInfo, AppError> {
    state.app().await?.prepare_attachment_path(&path).await
}

#[tauri::command]
pub async fn attachment_image(
    state: State<'_, AppState>,
    hash: String,
) -> Result<AttachmentImage, AppError> {
    state.app().await?.attachment_image(&hash).await
}

/// `encodeURIComponent`'s output back to text; a malformed escape is kept as it is.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push(((hex(h).unwrap_or(0) << 4) | hex(l).unwrap_or(0)) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::percent_decode;

    #[test]
    fn a_percent_encoded_file_name_reads_back_as_typed() {
        assert_eq!(
            percent_decode("R%C3%A9sum%C3%A9%20(1).pdf"),
            "Résumé (1).pdf"
        );
        assert_eq!(percent_decode("100%.txt"), "100%.txt");
        assert_eq!(percent_decode("a%2"), "a%2");
    }
}
