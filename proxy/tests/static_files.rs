//! The static files under `--www` and `--pkg`: only what is plainly inside those folders, no redirects,
//! `nosniff` on every answer, and caching that revalidates.

mod common;

use std::path::{Path, PathBuf};

use common::{client, Proxy};

/// A `www/` and a `pkg/` with the kinds of entry a served folder can hold, and a secret beside them.
struct Folders {
    root: PathBuf,
}

impl Folders {
    fn new(name: &str) -> Folders {
        let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("static-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let write = |path: &str, text: &str| {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write("www/index.html", "<!doctype html><title>demo</title>");
        write("www/app.js", "export const app = 1;");
        write("www/sub/index.html", "<title>sub</title>");
        write("www/.env", "OPENAI_API_KEY=sk-secret");
        write("www/.git/config", "[core]");
        write("pkg/chatstream_bg.wasm", "\0asm\x01\0\0\0");
        write("pkg/index.js", "export default 1;");
        write("pkg/snippets/a/inline0.js", "export {};");
        write("secret.txt", "outside");
        std::os::unix::fs::symlink(root.join("secret.txt"), root.join("www/escape.txt")).unwrap();
        std::os::unix::fs::symlink(root.join("www/app.js"), root.join("www/alias.js")).unwrap();
        Folders { root }
    }

    fn proxy(&self) -> Proxy {
        let (www, pkg) = (self.root.join("www"), self.root.join("pkg"));
        Proxy::start(&["--www", www.to_str().unwrap(), "--pkg", pkg.to_str().unwrap()], &[])
    }
}

impl Drop for Folders {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

async fn get(proxy: &Proxy, path: &str) -> reqwest::Response {
    client().get(proxy.endpoint(path)).send().await.unwrap()
}

#[tokio::test]
async fn only_what_is_plainly_inside_the_folders_is_served() {
    let folders = Folders::new("inside");
    let proxy = folders.proxy();
    for path in ["/", "/app.js", "/alias.js", "/sub/", "/pkg/index.js", "/pkg/snippets/a/inline0.js"] {
        assert_eq!(get(&proxy, path).await.status(), 200, "{path}");
    }
    for path in
        ["/.env", "/.git/config", "/%2eenv", "/sub/%2e%2e/.env", "/pkg/../www/.env", "/escape.txt", "/secret.txt"]
    {
        let response = get(&proxy, path).await;
        assert_eq!(response.status(), 404, "{path}");
        assert!(!response.text().await.unwrap().contains("secret"), "{path}");
    }
}

#[tokio::test]
async fn folders_are_never_redirected() {
    let folders = Folders::new("redirects");
    let proxy = folders.proxy();
    for path in ["/sub", "/pkg/snippets", "/pkg/snippets/a", "//sub", "//evil.example", "/pkg"] {
        let response = get(&proxy, path).await;
        assert!(
            response.headers().get("location").is_none(),
            "{path} redirects to {:?}",
            response.headers()["location"]
        );
        assert_eq!(response.status(), 404, "{path}");
    }
}

#[tokio::test]
async fn every_answer_is_nosniff_and_files_revalidate() {
    let folders = Folders::new("headers");
    let proxy = folders.proxy();
    for path in ["/", "/missing.js", "/.env", "/api/providers", "/api/nothing"] {
        assert_eq!(get(&proxy, path).await.headers()["x-content-type-options"], "nosniff", "{path}");
    }
    for (path, content_type) in [("/pkg/chatstream_bg.wasm", "application/wasm"), ("/pkg/index.js", "text/javascript")]
    {
        let response = get(&proxy, path).await;
        assert_eq!(response.headers()["content-type"], content_type, "{path}");
        assert_eq!(response.headers()["cache-control"], "no-cache", "{path}");
        let modified = response.headers()["last-modified"].clone();
        let again = client().get(proxy.endpoint(path)).header("if-modified-since", modified).send().await.unwrap();
        assert_eq!(again.status(), 304, "{path}");
    }
}
