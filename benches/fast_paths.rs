//! The decoders' fast paths on the recorded streams, natively. Per recording (every file under
//! tests/fixtures/recorded/, each folder a dialect): the share of its frames that a learned shape
//! replayed, that the forward scanner read, and the rest (the general path, or a frame no fast
//! path reads: `[DONE]`, a ping, an error); and the time to decode its frames three ways: as
//! built, with the forward scanner alone reading every frame (no shape learned: what the learned
//! shapes, `Shape` in src/dialect/scan.rs, earn on their own) and with no fast path at all.
//! Writes target/bench/fast-paths.json, which bench-js/report.js puts in BENCHMARKS.md.
//!
//! The switch between the three ways and the counts exist only in test builds and builds with
//! `--cfg fuzzing`, never in the package, so this benchmark is built so, in a target folder of
//! its own (`./build.sh bench` does this):
//! `RUSTFLAGS="--cfg fuzzing" CARGO_TARGET_DIR=target/fuzzing cargo bench --bench fast_paths`.

#[cfg(not(fuzzing))]
fn main() {
    eprintln!(
        "fast_paths: build with RUSTFLAGS=\"--cfg fuzzing\" (see the top of benches/fast_paths.rs); nothing measured"
    );
}

#[cfg(fuzzing)]
fn main() {
    use std::path::Path;
    use std::time::Instant;

    use chatstream::dialect::fuzzing::{set_shape_mode, take_paths, ShapeMode};
    use chatstream::dialect::{Decoder, Dialect, ProviderEvents};
    use chatstream::framing::{Frame, FrameDecoder, DEFAULT_MAX_FRAME_BYTES};

    /// Decodes `frames` in `mode` until about 20 ms have passed; nanoseconds per frame.
    fn time(dialect: Dialect, frames: &[Frame], mode: ShapeMode) -> f64 {
        let before = set_shape_mode(mode);
        let (start, mut passes) = (Instant::now(), 0u32);
        while passes == 0 || start.elapsed().as_millis() < 20 {
            let mut decoder = Decoder::new(dialect);
            let mut events = ProviderEvents::default();
            for frame in frames {
                decoder.decode(frame.as_ref(), &mut events);
            }
            decoder.finish(&mut events);
            std::hint::black_box(events);
            passes += 1;
        }
        set_shape_mode(before);
        start.elapsed().as_nanos() as f64 / f64::from(passes) / frames.len() as f64
    }

    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut rows = Vec::new();
    let mut dirs: Vec<_> =
        std::fs::read_dir(root.join("tests/fixtures/recorded")).unwrap().flatten().map(|e| e.path()).collect();
    dirs.sort();
    for dir in dirs {
        let Some(dialect) = dir.file_name().and_then(|n| n.to_str()).and_then(Dialect::from_name) else { continue };
        let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
        files.sort();
        for file in files.iter().filter(|f| matches!(f.extension().and_then(|e| e.to_str()), Some("sse" | "ndjson"))) {
            let mut decoder = FrameDecoder::new(dialect.framing(), DEFAULT_MAX_FRAME_BYTES);
            let mut frames = Vec::new();
            decoder.push(&std::fs::read(file).unwrap(), &mut frames).unwrap();
            decoder.finish(&mut frames);
            if frames.is_empty() {
                continue;
            }
            // One pass as built, counted.
            set_shape_mode(ShapeMode::Warm);
            take_paths();
            let mut counted = Decoder::new(dialect);
            let mut events = ProviderEvents::default();
            frames.iter().for_each(|frame| counted.decode(frame.as_ref(), &mut events));
            let [replayed, scanned] = take_paths();
            let ns = |mode| {
                let mut runs: Vec<f64> = (0..5).map(|_| time(dialect, &frames, mode)).collect();
                runs.sort_by(f64::total_cmp);
                runs[2]
            };
            let (warm, plain, off) = (ns(ShapeMode::Warm), ns(ShapeMode::Plain), ns(ShapeMode::Off));
            let name = format!("{}/{}", dialect.name(), file.file_name().unwrap().to_string_lossy());
            let row = serde_json::json!({
                "recording": name,
                "frames": frames.len(),
                "replayed": replayed,
                "scanned": scanned,
                "nsWarm": warm, "nsPlain": plain, "nsOff": off,
            });
            println!("{row}");
            rows.push(row);
        }
    }
    let out = root.join("target/bench");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("fast-paths.json"), serde_json::to_string_pretty(&rows).unwrap()).unwrap();
}
