//! How a prepared image is encoded: PNG for PNG and GIF sources (screenshots and diagrams
//! keep sharp text) and for anything with transparency, JPEG (quality 85) for photos; a PNG
//! that would be over [`MAX_ENCODED_IMAGE_BYTES`] without transparency becomes a JPEG too.
//! Always 8 bits a channel, grey kept grey, and no metadata.

use ::image::codecs::jpeg::JpegEncoder;
use ::image::codecs::png::PngEncoder;
use ::image::{DynamicImage, ImageError};

use super::limits::MAX_ENCODED_IMAGE_BYTES;

/// JPEG quality for photos: visually lossless at the sizes sent, a quarter of quality 100.
const JPEG_QUALITY: u8 = 85;

/// The image encoded as it is sent, with its mime type. `keep_png`: the source was a PNG or
/// a GIF (lossless art, screenshots).
pub(super) fn encode(
    image: &DynamicImage,
    keep_png: bool,
) -> Result<(&'static str, Vec<u8>), ImageError> {
    let transparent = has_transparency(image);
    let image = eight_bit(image, transparent);
    if !(keep_png || transparent) {
        return Ok(("image/jpeg", encode_jpeg(&image)?));
    }
    let png = encode_png(&image)?;
    if png.len() > MAX_ENCODED_IMAGE_BYTES && !transparent {
        return Ok(("image/jpeg", encode_jpeg(&image)?));
    }
    Ok(("image/png", png))
}

/// True when some pixel is not fully opaque (an alpha channel that is all 255 does not
/// count: many screenshots carry one).
fn has_transparency(image: &DynamicImage) -> bool {
    if !image.color().has_alpha() {
        return false;
    }
    match image {
        DynamicImage::ImageLumaA8(i) => i.pixels().any(|p| p.0[1] < u8::MAX),
        DynamicImage::ImageRgba8(i) => i.pixels().any(|p| p.0[3] < u8::MAX),
        other => other.to_rgba8().pixels().any(|p| p.0[3] < u8::MAX),
    }
}

/// 8 bits a channel, grey kept grey, alpha only where it is used: what both encoders take
/// and the smallest of each.
fn eight_bit(image: &DynamicImage, transparent: bool) -> DynamicImage {
    let grey = matches!(
        image,
        DynamicImage::ImageLuma8(_)
            | DynamicImage::ImageLuma16(_)
            | DynamicImage::ImageLumaA8(_)
            | DynamicImage::ImageLumaA16(_)
    );
    match (transparent, grey) {
        (true, true) => DynamicImage::ImageLumaA8(image.to_luma_alpha8()),
        (true, false) => DynamicImage::ImageRgba8(image.to_rgba8()),
        (false, true) => DynamicImage::ImageLuma8(image.to_luma8()),
        (false, false) => DynamicImage::ImageRgb8(image.to_rgb8()),
    }
}

fn encode_png(image: &DynamicImage) -> Result<Vec<u8>, ImageError> {
    let mut out = Vec::new();
    image.write_with_encoder(PngEncoder::new(&mut out))?;
    Ok(out)
}

fn encode_jpeg(image: &DynamicImage) -> Result<Vec<u8>, ImageError> {
    let mut out = Vec::new();
    let rgb;
    // JPEG has no alpha: a transparent image only gets here when its PNG was too large.
    let image = if image.color().has_alpha() {
        rgb = DynamicImage::ImageRgb8(image.to_rgb8());
        &rgb
    } else {
        image
    };
    image.write_with_encoder(JpegEncoder::new_with_quality(&mut out, JPEG_QUALITY))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ::image::{GrayImage, RgbaImage};

    #[test]
    fn an_opaque_alpha_channel_does_not_keep_a_photo_out_of_jpeg() {
        let opaque =
            DynamicImage::ImageRgba8(RgbaImage::from_pixel(40, 30, ::image::Rgba([9, 8, 7, 255])));
        let (mime, data) = encode(&opaque, false).unwrap();
        assert_eq!(mime, "image/jpeg");
        assert!(data.starts_with(&[0xFF, 0xD8, 0xFF]));
        let mut see_through = opaque.to_rgba8();
        see_through.put_pixel(0, 0, ::image::Rgba([0, 0, 0, 10]));
        let (mime, _) = encode(&DynamicImage::ImageRgba8(see_through), false).unwrap();
        assert_eq!(mime, "image/png");
    }

    #[test]
    fn grey_stays_grey_and_png_sources_stay_png() {
        let grey = DynamicImage::ImageLuma8(GrayImage::from_pixel(20, 20, ::image::Luma([128])));
        let (mime, data) = encode(&grey, true).unwrap();
        assert_eq!(mime, "image/png");
        let back = ::image::load_from_memory(&data).unwrap();
        assert_eq!(back.color(), ::image::ColorType::L8);
    }
}
