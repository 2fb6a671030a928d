//! `embed_fixtures!("tests/fixtures")`: the fixtures under a folder of the calling crate, as
//! `&[(name, input bytes, expectation text)]` built from `include_bytes!`/`include_str!`.
//!
//! The browser test suite runs in a page that cannot read files, so its fixtures are compiled in.
//! This lives in a test-only crate so that building the library never touches test data. The list
//! is made when the test crate compiles: a fixture added later is picked up on the next rebuild of
//! the browser suite (a clean build always has them all).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use proc_macro::TokenStream;

#[proc_macro]
pub fn embed_fixtures(folder: TokenStream) -> TokenStream {
    let folder = folder.to_string();
    let folder = folder.trim().trim_matches('"');
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR")).join(folder);
    let mut cases = Vec::new();
    collect(&root, &root, &mut cases);
    assert!(!cases.is_empty(), "embed_fixtures!: no fixtures under {}", root.display());
    cases.sort();
    let mut list = String::from("&[");
    for (name, input, spec) in &cases {
        write!(list, "({name:?}, include_bytes!({input:?}), include_str!({spec:?})),").unwrap();
    }
    list.push(']');
    list.parse().unwrap()
}

/// (name, input path, expectation path) for each `<case>.json` with an input of the same stem.
fn collect(root: &Path, dir: &Path, out: &mut Vec<(String, String, String)>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("embed_fixtures!: {}: {e}", dir.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(root, &path, out);
            continue;
        }
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let base = path.with_extension("");
        let Some(input) = ["sse", "ndjson", "txt"].iter().map(|ext| base.with_extension(ext)).find(|p| p.is_file())
        else {
            continue;
        };
        let name = path.strip_prefix(root).unwrap().with_extension("").to_string_lossy().replace('\\', "/");
        out.push((name, input.display().to_string(), path.display().to_string()));
    }
}
