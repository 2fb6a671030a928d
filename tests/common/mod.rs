//! The fixture harness: every fixture through every split.
//!
//! A fixture is an input file (`<case>.sse`, `.ndjson` or `.txt`) beside `<case>.json`:
//!
//! ```json
//! { "dialect": "openai", "content_type": null, "headers": {}, "events": [ … ] }
//! ```
//!
//! `events` is the expected output in canonical form (runs of text, thinking and tool-input
//! deltas merged; see [`canonical`]). Each expected event is matched as a subset: every key it
//! names must be equal in the actual event, keys it leaves out are not checked; arrays must have
//! the same length. The run is repeated with the input in one piece, split at every point (inputs
//! up to `ALL_SPLITS_MAX` bytes), fed a byte at a time, and in random chunks from a seed that is
//! printed on failure (`CHATSTREAM_SEED=<n>` reproduces it); with the dialect given and detected.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use chatstream::dialect::Dialect;
use chatstream::event::{merge_adjacent_deltas, StreamEvent};
use chatstream::stream::{ChatStream, StreamOptions};
use serde_json::Value;

pub const ALL_SPLITS_MAX: usize = 4096;
const RANDOM_SPLIT_RUNS: usize = 64;

pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// A small, seedable generator (SplitMix64): reproducible splits without a dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

pub fn seed() -> u64 {
    match std::env::var("CHATSTREAM_SEED") {
        Ok(s) => s.parse().expect("CHATSTREAM_SEED must be a number"),
        Err(_) => std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64,
    }
}

/// The splits an input of `len` bytes is run under, each named for a failure message: in one
/// piece, a byte at a time, at every single point (with `every_cut`, for inputs up to
/// [`ALL_SPLITS_MAX`] bytes: the pass is quadratic in the length), and `random_runs` random splits
/// of at most `max_cuts` cuts from `seed` (`CHATSTREAM_SEED=<n>` replays them). Cuts may fall at
/// either end or twice at one point: a piece may be empty.
pub fn splits(
    len: usize,
    seed: u64,
    every_cut: bool,
    random_runs: usize,
    max_cuts: usize,
) -> Vec<(String, Vec<usize>)> {
    let mut all = vec![("one piece".to_owned(), Vec::new()), ("one byte at a time".to_owned(), (1..len).collect())];
    if every_cut && len <= ALL_SPLITS_MAX {
        all.extend((0..=len).map(|cut| (format!("split at byte {cut}"), vec![cut])));
    }
    let points: Vec<usize> = (0..=len).collect();
    let mut rng = Rng(seed);
    for run in 0..random_runs {
        all.push((format!("random split {run} (CHATSTREAM_SEED={seed})"), random_cuts(&mut rng, &points, max_cuts)));
    }
    all
}

/// One to `max` cuts drawn from `points`, sorted (none when there are no points).
pub fn random_cuts(rng: &mut Rng, points: &[usize], max: usize) -> Vec<usize> {
    if points.is_empty() {
        return Vec::new();
    }
    let count = 1 + rng.below(points.len().min(max));
    let mut cuts: Vec<usize> = (0..count).map(|_| points[rng.below(points.len())]).collect();
    cuts.sort_unstable();
    cuts
}

/// The recorded provider streams, `recorded/<provider>/<name>.sse` or `.ndjson`, sorted.
pub fn recorded_streams() -> Vec<PathBuf> {
    fixture_files(&fixtures_dir().join("recorded")).into_iter().map(|files| files.input).collect()
}

/// `input` cut at `cuts` (sorted offsets up to `len`, its length; a cut repeated or at either end
/// gives an empty piece).
pub fn cut<'a, T>(input: &'a T, len: usize, cuts: &[usize]) -> Vec<&'a T>
where
    T: ?Sized + std::ops::Index<std::ops::Range<usize>, Output = T>,
{
    let mut start = 0;
    cuts.iter()
        .chain([&len])
        .map(|&cut| {
            let piece = &input[start..cut];
            start = cut;
            piece
        })
        .collect()
}

/// The offsets inside `s` where a text may be cut: every char boundary but its two ends.
pub fn char_bounds(s: &str) -> Vec<usize> {
    s.char_indices().map(|(i, _)| i).skip(1).collect()
}

/// Runs `input` through a fresh stream, cut at `cuts` (sorted byte offsets).
pub fn run(options: &StreamOptions, input: &[u8], cuts: &[usize]) -> (Vec<StreamEvent>, Option<Dialect>) {
    let mut stream = ChatStream::new(options.clone());
    let mut events = Vec::new();
    for piece in cut(input, input.len(), cuts) {
        let first = events.len();
        stream.push(piece, &mut events);
        assert_runs_merged(&events[first..]);
    }
    let first = events.len();
    stream.finish(&mut events);
    assert_runs_merged(&events[first..]);
    (events, stream.dialect())
}

/// The output contract: the events of one push (or finish) have their runs merged already.
pub fn assert_runs_merged(pushed: &[StreamEvent]) {
    let mut merged = pushed.to_vec();
    merge_adjacent_deltas(&mut merged, 0);
    assert_eq!(merged, pushed, "a push returned a run of deltas in pieces");
}

/// The events as JSON with runs of text deltas, thinking deltas and tool-input deltas (for one
/// call) merged, so that output can be compared whatever the chunking was.
pub fn canonical(events: &[StreamEvent]) -> Vec<Value> {
    let mut events = events.to_vec();
    merge_adjacent_deltas(&mut events, 0);
    events
        .iter()
        .map(|event| {
            // What the JS side gets is written by chatstream::json: the same text as serde's.
            assert_eq!(chatstream::json::to_json(event), serde_json::to_string(event).unwrap());
            chatstream::json::to_value(event)
        })
        .collect()
}

/// `Err(path)` naming the first place where `actual` does not contain `expected`.
pub fn subset(expected: &Value, actual: &Value, path: &str) -> Result<(), String> {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, ev) in e {
                let av = a.get(k).unwrap_or(&Value::Null);
                subset(ev, av, &format!("{path}.{k}"))?;
            }
            Ok(())
        }
        (Value::Array(e), Value::Array(a)) => {
            if e.len() != a.len() {
                return Err(format!("{path}: expected {} items, got {}: {}", e.len(), a.len(), short(actual)));
            }
            for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                subset(ev, av, &format!("{path}[{i}]"))?;
            }
            Ok(())
        }
        (Value::Number(e), Value::Number(a)) if e.as_f64() == a.as_f64() => Ok(()),
        _ if expected == actual => Ok(()),
        _ => Err(format!("{path}: expected {}, got {}", short(expected), short(actual))),
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 300 {
        format!("{}…", &s[..s.char_indices().take_while(|(i, _)| *i < 300).last().map_or(0, |(i, c)| i + c.len_utf8())])
    } else {
        s
    }
}

pub struct Fixture {
    pub name: String,
    pub input: Vec<u8>,
    pub spec: Value,
}

impl Fixture {
    pub fn options(&self, explicit_dialect: bool) -> StreamOptions {
        let mut options = StreamOptions::default();
        if explicit_dialect {
            let name = self.spec["dialect"].as_str().expect("fixture names its dialect");
            options.dialect = Some(Dialect::from_name(name).unwrap_or_else(|| panic!("unknown dialect {name}")));
        }
        options.content_type = self.spec["content_type"].as_str().map(str::to_owned);
        if let Some(headers) = self.spec["headers"].as_object() {
            options.headers = headers.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_owned())).collect();
        }
        options
    }

    /// Checks one run's output; `how` says which split, for the failure message.
    fn check_run(&self, options: &StreamOptions, cuts: &[usize], how: &str) -> Result<(), String> {
        let (events, dialect) = run(options, &self.input, cuts);
        let expected_dialect = self.spec["dialect"].as_str();
        if dialect.map(Dialect::name) != expected_dialect {
            return Err(format!(
                "{}: {how}: dialect {:?}, expected {:?}",
                self.name,
                dialect.map(Dialect::name),
                expected_dialect
            ));
        }
        let actual = Value::Array(canonical(&events));
        subset(&self.spec["events"], &actual, "events")
            .map_err(|e| format!("{}: {how}: {e}\nactual: {}", self.name, short(&actual)))
    }

    /// Every split this harness makes; `Err` lists the first failure.
    pub fn check(&self, seed: u64) -> Result<(), String> {
        self.check_splits(seed, true)
    }

    /// As [`check`](Self::check); `every_cut` false leaves out the pass that splits at every byte
    /// (quadratic in the input's length), for the browser, whose main thread must stay responsive.
    pub fn check_splits(&self, seed: u64, every_cut: bool) -> Result<(), String> {
        for explicit in [true, false] {
            let options = self.options(explicit);
            let mode = if explicit { "dialect given" } else { "dialect detected" };
            for (how, cuts) in splits(self.input.len(), seed, every_cut, RANDOM_SPLIT_RUNS, 64) {
                self.check_run(&options, &cuts, &format!("{mode}, {how}"))?;
            }
        }
        Ok(())
    }
}

/// The fixtures under `dir` (see [`fixture_files`]). `FIXTURE=<text>` keeps those whose name
/// contains the text.
pub fn load_fixtures(dir: &Path) -> Vec<Fixture> {
    let filter = std::env::var("FIXTURE").unwrap_or_default();
    fixture_files(dir)
        .into_iter()
        .filter(|files| files.name.contains(&filter))
        .map(|files| {
            let spec: Value = serde_json::from_slice(&std::fs::read(&files.spec).unwrap())
                .unwrap_or_else(|e| panic!("fixture {}: {}: {e}", files.name, files.spec.display()));
            Fixture { name: files.name, input: std::fs::read(&files.input).unwrap(), spec }
        })
        .collect()
}

/// A fixture's two files, and its name (the path under the directory searched, without extension).
pub struct FixtureFiles {
    pub name: String,
    /// `<case>.json`: the dialect, headers and expected events.
    pub spec: PathBuf,
    /// The input of the same stem beside it: `<case>.sse`, `.ndjson` or `.txt`.
    pub input: PathBuf,
}

/// Every fixture under `dir`, sorted by name; a `.json` without an input beside it panics.
pub fn fixture_files(dir: &Path) -> Vec<FixtureFiles> {
    let mut found = Vec::new();
    collect(dir, dir, &mut found);
    found.sort_by(|a, b| a.name.cmp(&b.name));
    found
}

fn collect(root: &Path, dir: &Path, found: &mut Vec<FixtureFiles>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(root, &path, found);
            continue;
        }
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let name = path.strip_prefix(root).unwrap().with_extension("").to_string_lossy().replace('\\', "/");
        let base = path.with_extension("");
        let input = ["sse", "ndjson", "txt"].iter().map(|ext| base.with_extension(ext)).find(|p| p.is_file());
        let input = input.unwrap_or_else(|| panic!("fixture {name}: no input file beside {}", base.display()));
        found.push(FixtureFiles { name, spec: path, input });
    }
}

/// Checks every fixture, reporting all failures at once.
pub fn check_all(fixtures: &[Fixture]) {
    let seed = seed();
    let failures: Vec<String> = fixtures.iter().filter_map(|f| f.check(seed).err()).collect();
    eprintln!("{} fixtures checked, {} failed (seed {seed})", fixtures.len(), failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
