use std::path::PathBuf;

/// Why a plot could not be drawn or written.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// The embedded font could not be parsed or registered with plotters.
    #[error("registering the embedded DejaVu Sans font with plotters failed")]
    Font,
    /// plotters reported an error while drawing.
    #[error("drawing the {plot} plot: {message}")]
    Render {
        /// Which plot (`latency`, `throughput` or `histogram`).
        plot: &'static str,
        /// plotters' description of the failure.
        message: String,
    },
    /// Encoding the PNG failed.
    #[error("encoding PNG: {0}")]
    Encode(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// Creating the output directory or writing a file failed.
    #[error("writing {path}: {source}")]
    Io {
        /// The directory or file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The file stem given to [`write_plots`](crate::write_plots) is empty
    /// or contains a path separator.
    #[error("invalid plot file stem {0:?}: must be non-empty, without path separators")]
    InvalidStem(String),
}
