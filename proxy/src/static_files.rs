//! The static files: the demo page (`--www`, at `/`) and the wasm package (`--pkg`, at `/pkg/`), none
//! unless given. Only what is plainly inside those folders is served:
//! - no dotfiles and no dot-folders (`/.env`, `/.git/config`): 404;
//! - no file reached through a symlink that leads out of the folder: 404;
//! - no redirects: a folder is served as its `index.html` when asked with a trailing slash, and is 404
//!   without one (a redirect would have to rebuild the path, and `//host` would make it off-site);
//! - every file with `Cache-Control: no-cache` and `Last-Modified`: browsers keep it and revalidate it on
//!   each use (`If-Modified-Since` gets a 304), so a rebuilt package is never stale; types by extension
//!   (`.wasm` as `application/wasm`, which `WebAssembly.instantiateStreaming` requires).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use percent_encoding::percent_decode_str;
use tower::ServiceExt;
use tower_http::services::ServeFile;

#[derive(Clone)]
pub struct Roots {
    www: Option<Arc<Path>>,
    pkg: Option<Arc<Path>>,
}

impl Roots {
    pub fn new(www: Option<PathBuf>, pkg: Option<PathBuf>) -> Roots {
        Roots { www: www.map(Arc::from), pkg: pkg.map(Arc::from) }
    }

    /// The file `path` names, if it is one to serve.
    async fn resolve(&self, path: &str) -> Option<PathBuf> {
        let path = percent_decode_str(path).decode_utf8().ok()?;
        let (root, rest) = match path.strip_prefix("/pkg") {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => (self.pkg.as_deref()?, rest),
            _ => (self.www.as_deref()?, &*path),
        };
        let mut file = root.to_path_buf();
        for segment in rest.split('/').filter(|s| !s.is_empty()) {
            // `.` and `..` start with a dot too; a backslash or NUL has no business in a web path.
            if segment.starts_with('.') || segment.contains(['\\', '\0']) {
                return None;
            }
            file.push(segment);
        }
        if rest.is_empty() || rest.ends_with('/') {
            file.push("index.html");
        }
        inside(root, &file).await
    }
}

/// `file` with every symlink resolved, if it is a regular file inside `root`.
async fn inside(root: &Path, file: &Path) -> Option<PathBuf> {
    let root = tokio::fs::canonicalize(root).await.ok()?;
    let file = tokio::fs::canonicalize(file).await.ok()?;
    let is_file = tokio::fs::metadata(&file).await.ok()?.is_file();
    (is_file && file.starts_with(&root)).then_some(file)
}

/// The fallback route: a static file, or 404.
pub async fn serve(State(roots): State<Roots>, request: Request) -> Response {
    let Some(file) = roots.resolve(request.uri().path()).await else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let mut response = match ServeFile::new(file).oneshot(request).await {
        Ok(response) => response.into_response(),
        Err(never) => match never {},
    };
    if response.status().is_success() || response.status() == StatusCode::NOT_MODIFIED {
        response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    }
    response
}
