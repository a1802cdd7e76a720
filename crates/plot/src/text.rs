//! Text measuring and rasterising with the embedded DejaVu Sans.
//!
//! plotters' own ab_glyph text drawing places each glyph at the pen position
//! without its side bearing and rounds the pen to whole pixels, which leaves
//! visibly uneven letter spacing ("tim e"). [`TextBackend`] wraps a plotters
//! backend and takes over text: it measures every text with the embedded
//! font (so SVG and PNG get the same layout), and for the bitmap backend it
//! rasterises the text itself with sub-pixel glyph positions, kerning and
//! anti-aliasing. Everything else is passed through unchanged.

use std::sync::OnceLock;

use ab_glyph::{Font, FontRef, PxScale, ScaleFont, point};
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
    FontStyle,
};

/// The parsed embedded fonts.
#[derive(Debug)]
struct Faces {
    regular: FontRef<'static>,
    bold: FontRef<'static>,
}

/// The embedded DejaVu Sans faces, parsed once; `None` if they do not parse
/// (they always do: the bytes are compiled in).
fn faces() -> Option<&'static Faces> {
    static FACES: OnceLock<Option<Faces>> = OnceLock::new();
    FACES
        .get_or_init(|| {
            Some(Faces {
                regular: FontRef::try_from_slice(dejavu::sans::regular()).ok()?,
                bold: FontRef::try_from_slice(dejavu::sans::bold()).ok()?,
            })
        })
        .as_ref()
}

/// Whether the embedded fonts parse.
pub(crate) fn fonts_ok() -> bool {
    faces().is_some()
}

/// The error reported if the embedded fonts are missing.
#[derive(Debug, Clone, Copy)]
struct NoFont;

impl std::fmt::Display for NoFont {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the embedded DejaVu Sans font did not parse")
    }
}

impl std::error::Error for NoFont {}

/// A line of text laid out on a baseline starting at x = 0.
struct Line<'f> {
    font: &'f FontRef<'static>,
    scale: PxScale,
    /// The em size in pixels (SVG's `font-size`).
    em: f32,
    /// Total advance width in pixels.
    width: f32,
}

impl<'f> Line<'f> {
    /// Lays out `text` at plotters' text size `size` in `style`. plotters'
    /// SVG backend writes `font-size = size / 1.24`, so that is the em used
    /// here too.
    fn new(faces: &'f Faces, style: FontStyle, size: f64, text: &str) -> Self {
        let font = match style {
            FontStyle::Bold => &faces.bold,
            _ => &faces.regular,
        };
        let em = (size / 1.24).max(0.0) as f32;
        let units = font.units_per_em().unwrap_or(2048.0);
        let scale = PxScale::from(em * font.height_unscaled() / units);
        let scaled = font.as_scaled(scale);
        let mut width = 0.0;
        let mut prev = None;
        for c in text.chars() {
            let id = scaled.glyph_id(c);
            if let Some(prev) = prev {
                width += scaled.kern(prev, id);
            }
            width += scaled.h_advance(id);
            prev = Some(id);
        }
        Line {
            font,
            scale,
            em,
            width,
        }
    }

    /// Calls `pixel(x, y, coverage)` for every covered pixel of `text`, with
    /// coordinates relative to the start of the baseline.
    fn rasterise(&self, text: &str, origin: (f32, f32), mut pixel: impl FnMut(i32, i32, f32)) {
        let scaled = self.font.as_scaled(self.scale);
        let mut pen = origin.0;
        let mut prev = None;
        for c in text.chars() {
            let id = scaled.glyph_id(c);
            if let Some(prev) = prev {
                pen += scaled.kern(prev, id);
            }
            let glyph = id.with_scale_and_position(self.scale, point(pen, origin.1));
            if let Some(outline) = self.font.outline_glyph(glyph) {
                let b = outline.px_bounds();
                let (x0, y0) = (b.min.x as i32, b.min.y as i32);
                outline.draw(|x, y, cov| pixel(x0 + x as i32, y0 + y as i32, cov));
            }
            pen += scaled.h_advance(id);
            prev = Some(id);
        }
    }
}

/// A plotters backend whose text is measured (and, with `raster`, drawn)
/// with the embedded font.
#[derive(Debug)]
pub(crate) struct TextBackend<B> {
    inner: B,
    raster: bool,
}

impl<B> TextBackend<B> {
    /// Measures text with the embedded font but lets `inner` draw it (SVG).
    pub(crate) fn measuring(inner: B) -> Self {
        Self {
            inner,
            raster: false,
        }
    }

    /// Measures and rasterises text with the embedded font (bitmaps).
    pub(crate) fn rasterising(inner: B) -> Self {
        Self {
            inner,
            raster: true,
        }
    }
}

fn font_error<E: std::error::Error + Send + Sync>() -> DrawingErrorKind<E> {
    DrawingErrorKind::FontError(Box::new(NoFont))
}

impl<B: DrawingBackend> DrawingBackend for TextBackend<B> {
    type ErrorType = B::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.present()
    }

    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.fill_polygon(vert, style)
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.blit_bitmap(pos, size, src)
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        let faces = faces().ok_or_else(font_error)?;
        let line = Line::new(faces, style.style(), style.size(), text);
        Ok((line.width.ceil() as u32, line.em.ceil() as u32))
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        if !self.raster {
            return self.inner.draw_text(text, style, pos);
        }
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let faces = faces().ok_or_else(font_error)?;
        let line = Line::new(faces, style.style(), style.size(), text);
        let anchor = style.anchor();
        let x = match anchor.h_pos {
            HPos::Left => 0.0,
            HPos::Center => -line.width / 2.0,
            HPos::Right => -line.width,
        };
        // Baseline below the anchor: the same offsets as plotters' SVG
        // backend for the top (0.76 em), centred on the cap height for the
        // middle, and the descent for the bottom.
        let y = match anchor.v_pos {
            VPos::Top => 0.76 * line.em,
            VPos::Center => 0.36 * line.em,
            VPos::Bottom => -0.24 * line.em,
        };
        let transform = style.transform();
        let mut pixels = Vec::new();
        line.rasterise(text, (x, y), |px, py, cov| {
            if cov > 0.004 {
                pixels.push((transform.transform(px, py), cov.min(1.0)));
            }
        });
        for ((dx, dy), cov) in pixels {
            let c = BackendColor {
                alpha: color.alpha * f64::from(cov),
                rgb: color.rgb,
            };
            self.inner.draw_pixel((pos.0 + dx, pos.1 + dy), c)?;
        }
        Ok(())
    }
}
