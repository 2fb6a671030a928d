//! Lists the test fixtures for the browser test suite (`tests/wasm.rs`), which cannot read files
//! at run time: each fixture is embedded with `include_bytes!` from the list written here.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let own = root.join("tests/fixtures");
    let real = root.join("../shared/fixtures/real");
    println!("cargo:rerun-if-changed=tests/fixtures");
    println!("cargo:rerun-if-changed=build.rs");
    let mut cases = Vec::new();
    collect(&own, &own, None, &mut cases);
    if real.is_dir() {
        println!("cargo:rerun-if-changed={}", real.display());
        collect(&own.join("real"), &own.join("real"), Some(&real), &mut cases);
    }
    cases.sort();
    let mut list = String::from("&[\n");
    for (name, input, spec) in &cases {
        writeln!(list, "    ({name:?}, include_bytes!({input:?}), include_str!({spec:?})),").unwrap();
    }
    list.push(']');
    std::fs::write(PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("fixture_list.rs"), list).unwrap();
}

/// (name, input path, expectation path) for each `<case>.json` with an input of the same stem.
fn collect(root: &Path, dir: &Path, input_root: Option<&Path>, out: &mut Vec<(String, String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if input_root.is_none() && dir == root && path.file_name().is_some_and(|n| n == "real") {
                continue;
            }
            println!("cargo:rerun-if-changed={}", path.display());
            collect(root, &path, input_root, out);
            continue;
        }
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let rel = path.strip_prefix(root).unwrap().with_extension("");
        let base = input_root.map_or_else(|| path.with_extension(""), |r| r.join(&rel));
        let Some(input) = ["sse", "ndjson", "txt"].iter().map(|ext| base.with_extension(ext)).find(|p| p.is_file())
        else {
            continue;
        };
        let prefix = if input_root.is_some() { "real/" } else { "" };
        let name = format!("{prefix}{}", rel.to_string_lossy().replace('\\', "/"));
        out.push((name, input.display().to_string(), path.display().to_string()));
    }
}
