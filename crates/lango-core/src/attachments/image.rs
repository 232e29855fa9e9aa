//! An attached image made ready to send: decoded within a bounded allocation, turned upright
//! (EXIF orientation), scaled down to fit [`MAX_IMAGE_SIDE`] and re-encoded.
//!
//! Re-encoding (`encode`) also drops the file's metadata (EXIF location, camera serial
//! numbers): what is sent and stored is the pixels only. A GIF sends its first frame.
//!
//! [`prepare_image`] is pure CPU work — up to seconds for a 100-megapixel image — so callers
//! run it on a blocking thread.

use std::io::Cursor;
use std::panic::{catch_unwind, AssertUnwindSafe};

use ::image::{DynamicImage, ImageDecoder, ImageError, ImageFormat as Codec, ImageReader, Limits};

use super::encode::encode;
use super::error::AttachmentError;
use super::kind::ImageFormat;
use super::limits::{MAX_DECODE_ALLOC, MAX_IMAGE_PIXELS, MAX_IMAGE_SIDE};

/// The image as it is sent and stored, with its size before and after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreparedImage {
    /// `image/png` or `image/jpeg`.
    pub mime: String,
    /// The encoded image (not base64).
    pub data: Vec<u8>,
    /// The original's size, upright.
    pub original_width: u32,
    pub original_height: u32,
    /// The prepared image's size (≤ [`MAX_IMAGE_SIDE`] on the long side).
    pub width: u32,
    pub height: u32,
}

/// Decodes, downscales and re-encodes an image whose bytes [`detect`](super::detect) found
/// to be `format`. Never allocates past [`MAX_DECODE_ALLOC`] for the pixels: an image with
/// more than [`MAX_IMAGE_PIXELS`] is refused from its header alone.
pub fn prepare_image(
    name: &str,
    bytes: &[u8],
    format: ImageFormat,
) -> Result<PreparedImage, AttachmentError> {
    // The decoders are not expected to panic, but the bytes are anyone's: a panic in one is
    // this file's error, never the app's crash.
    catch_unwind(AssertUnwindSafe(|| prepare_inner(name, bytes, format))).unwrap_or_else(|_| {
        tracing::warn!(name, "the image decoder panicked");
        Err(AttachmentError::BadImage {
            name: name.into(),
            reason: "the decoder failed on it".into(),
        })
    })
}

fn prepare_inner(
    name: &str,
    bytes: &[u8],
    format: ImageFormat,
) -> Result<PreparedImage, AttachmentError> {
    let bad = |e: ImageError| AttachmentError::BadImage {
        name: name.into(),
        reason: format!("it is damaged or cut short ({e})"),
    };
    let mut limits = Limits::default();
    limits.max_alloc = Some(MAX_DECODE_ALLOC);
    let mut reader = ImageReader::with_format(Cursor::new(bytes), codec(format));
    reader.limits(limits);
    let mut decoder = reader.into_decoder().map_err(bad)?;
    let (width, height) = decoder.dimensions();
    let too_large = || AttachmentError::ImageTooLarge {
        name: name.into(),
        width,
        height,
        max_pixels: MAX_IMAGE_PIXELS,
    };
    if u64::from(width) * u64::from(height) > MAX_IMAGE_PIXELS
        || decoder.total_bytes() > MAX_DECODE_ALLOC
    {
        return Err(too_large());
    }
    let orientation = decoder.orientation().ok();
    let mut image = DynamicImage::from_decoder(decoder).map_err(|e| match e {
        ImageError::Limits(_) => too_large(),
        e => bad(e),
    })?;
    if let Some(orientation) = orientation {
        image.apply_orientation(orientation);
    }
    let (original_width, original_height) = (image.width(), image.height());
    if original_width.max(original_height) > MAX_IMAGE_SIDE {
        // `thumbnail` averages whole source pixels into each target pixel (a box filter):
        // right for large reductions and, unlike `resize`, no float copy of the image.
        image = image.thumbnail(MAX_IMAGE_SIDE, MAX_IMAGE_SIDE);
    }
    let keep_png = matches!(format, ImageFormat::Png | ImageFormat::Gif);
    let (mime, data) = encode(&image, keep_png).map_err(|e| AttachmentError::Internal {
        name: name.into(),
        reason: format!("re-encoding the image failed ({e})"),
    })?;
    tracing::debug!(
        name,
        original_width,
        original_height,
        width = image.width(),
        height = image.height(),
        bytes = data.len(),
        mime,
        "image prepared"
    );
    Ok(PreparedImage {
        mime: mime.into(),
        data,
        original_width,
        original_height,
        width: image.width(),
        height: image.height(),
    })
}

fn codec(format: ImageFormat) -> Codec {
    match format {
        ImageFormat::Png => Codec::Png,
        ImageFormat::Jpeg => Codec::Jpeg,
        ImageFormat::Webp => Codec::WebP,
        ImageFormat::Gif => Codec::Gif,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ::image::codecs::jpeg::JpegEncoder;
    use ::image::codecs::png::{CompressionType, FilterType, PngEncoder};
    use ::image::{ImageEncoder, RgbImage, RgbaImage};

    fn png_of(image: &DynamicImage) -> Vec<u8> {
        let mut out = Vec::new();
        image.write_with_encoder(PngEncoder::new(&mut out)).unwrap();
        out
    }

    #[test]
    fn a_12000_pixel_square_scan_comes_back_within_1568_pixels() {
        // Low entropy (flat grey with a dark line every 1000 px) so the PNG is small on
        // disk (~0.4 MB, well under the file cap); decoded it is still 144 megapixels.
        let side = 12_000u32;
        let row: Vec<u8> = (0..side)
            .map(|x| if x % 1000 < 10 { 0 } else { 200 })
            .collect();
        let pixels = row.repeat(side as usize);
        let mut bytes = Vec::new();
        PngEncoder::new_with_quality(&mut bytes, CompressionType::Default, FilterType::NoFilter)
            .write_image(&pixels, side, side, ::image::ExtendedColorType::L8)
            .unwrap();
        drop(pixels);
        assert!((bytes.len() as u64) < crate::attachments::limits::MAX_IMAGE_BYTES);
        let prepared = prepare_image("scan.png", &bytes, ImageFormat::Png).unwrap();
        assert_eq!(
            (prepared.original_width, prepared.original_height),
            (side, side)
        );
        assert_eq!((prepared.width, prepared.height), (1568, 1568));
        let back = ::image::load_from_memory(&prepared.data).unwrap();
        assert_eq!((back.width(), back.height()), (1568, 1568));
        assert_eq!(prepared.mime, "image/png");
    }

    /// A PNG with a header claiming `width`×`height` at `depth` bits and `color` type, and
    /// no pixel data: enough for the decoder to report its size.
    fn png_header_only(width: u32, height: u32, depth: u8, color: u8) -> Vec<u8> {
        let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
        let mut ihdr = b"IHDR".to_vec();
        ihdr.extend(width.to_be_bytes());
        ihdr.extend(height.to_be_bytes());
        ihdr.extend([depth, color, 0, 0, 0]);
        // The decoder reads up to the first data chunk before it reports the size.
        for chunk in [&ihdr[..], b"IDAT\x78\x01", b"IEND"] {
            bytes.extend((chunk.len() as u32 - 4).to_be_bytes());
            bytes.extend(chunk);
            bytes.extend(crc32(chunk).to_be_bytes());
        }
        bytes
    }

    #[test]
    fn an_image_past_the_pixel_cap_is_refused_from_its_header() {
        let bytes = png_header_only(20_000, 20_000, 8, 0);
        let err = prepare_image("huge.png", &bytes, ImageFormat::Png).unwrap_err();
        assert!(
            matches!(err, AttachmentError::ImageTooLarge { width: 20_000, .. }),
            "{err:?}"
        );
        assert!(err.to_string().contains("20000×20000"), "{err}");
    }

    #[test]
    fn a_16_bit_image_whose_pixels_would_pass_the_allocation_cap_is_refused() {
        // 90 megapixels is under the pixel cap, but RGBA at 16 bits is 8 bytes a pixel
        // (720 MB): refused before anything is allocated.
        let bytes = png_header_only(10_000, 9_000, 16, 6);
        let err = prepare_image("deep.png", &bytes, ImageFormat::Png).unwrap_err();
        assert!(
            matches!(
                err,
                AttachmentError::ImageTooLarge {
                    width: 10_000,
                    height: 9_000,
                    ..
                }
            ),
            "{err:?}"
        );
    }

    #[test]
    fn a_cut_or_garbage_png_is_a_clear_error_naming_the_file() {
        let photo = DynamicImage::ImageRgb8(RgbImage::from_fn(300, 200, |x, y| {
            ::image::Rgb([x as u8, y as u8, 7])
        }));
        let whole = png_of(&photo);
        let cut = &whole[..whole.len() / 2];
        let err = prepare_image("cut.png", cut, ImageFormat::Png).unwrap_err();
        assert_eq!(err.code(), "bad_image", "{err:?}");
        assert!(
            err.to_string()
                .starts_with("\"cut.png\" could not be read as an image"),
            "{err}"
        );
        let mut garbage = b"\x89PNG\r\n\x1a\n".to_vec();
        garbage.extend((0..500u32).map(|i| (i * 7919 % 251) as u8));
        let err = prepare_image("noise.png", &garbage, ImageFormat::Png).unwrap_err();
        assert_eq!(err.code(), "bad_image", "{err:?}");
    }

    #[test]
    fn a_photo_becomes_a_jpeg_and_a_small_one_keeps_its_size() {
        let photo = DynamicImage::ImageRgb8(RgbImage::from_fn(640, 480, |x, y| {
            ::image::Rgb([x as u8, y as u8, 90])
        }));
        let mut jpeg = Vec::new();
        photo
            .write_with_encoder(JpegEncoder::new_with_quality(&mut jpeg, 95))
            .unwrap();
        let prepared = prepare_image("cat.jpg", &jpeg, ImageFormat::Jpeg).unwrap();
        assert_eq!(prepared.mime, "image/jpeg");
        assert_eq!((prepared.width, prepared.height), (640, 480));
        assert_eq!(
            (prepared.original_width, prepared.original_height),
            (640, 480)
        );
    }

    #[test]
    fn transparency_is_kept_as_png_and_a_wide_image_keeps_its_aspect() {
        let logo = DynamicImage::ImageRgba8(RgbaImage::from_fn(3136, 400, |x, _| {
            ::image::Rgba([0, 0, 255, (x % 256) as u8])
        }));
        let prepared = prepare_image("logo.png", &png_of(&logo), ImageFormat::Png).unwrap();
        assert_eq!(prepared.mime, "image/png");
        assert_eq!((prepared.width, prepared.height), (1568, 200));
        let back = ::image::load_from_memory(&prepared.data).unwrap();
        assert!(back.color().has_alpha());
    }

    fn encoded(image: &DynamicImage, codec: Codec) -> Vec<u8> {
        let mut out = Cursor::new(Vec::new());
        image.write_to(&mut out, codec).unwrap();
        out.into_inner()
    }

    #[test]
    fn a_gif_sends_its_first_frame_as_png_and_a_webp_photo_as_jpeg() {
        let art = DynamicImage::ImageRgba8(RgbaImage::from_fn(64, 48, |x, _| {
            ::image::Rgba([if x < 32 { 255 } else { 0 }, 0, 0, 255])
        }));
        let gif = prepare_image("anim.gif", &encoded(&art, Codec::Gif), ImageFormat::Gif).unwrap();
        assert_eq!(gif.mime, "image/png");
        assert_eq!((gif.width, gif.height), (64, 48));
        let photo = DynamicImage::ImageRgb8(RgbImage::from_fn(2400, 1600, |x, y| {
            ::image::Rgb([(x % 256) as u8, (y % 256) as u8, 60])
        }));
        let webp = prepare_image(
            "shot.webp",
            &encoded(&photo, Codec::WebP),
            ImageFormat::Webp,
        )
        .unwrap();
        assert_eq!(webp.mime, "image/jpeg");
        assert_eq!((webp.width, webp.height), (1568, 1045));
        assert_eq!((webp.original_width, webp.original_height), (2400, 1600));
    }

    /// The PNG chunk checksum (CRC-32, ISO 3309), for the hand-made header above.
    fn crc32(data: &[u8]) -> u32 {
        let mut crc = 0xFFFF_FFFFu32;
        for &b in data {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }
}
