//! Every fixture, our own and the recorded provider streams, through every split (see `common`).
//! One fixture: `FIXTURE=openai/openai-text cargo test --test fixtures`.

mod common;

#[test]
fn every_fixture_under_every_split() {
    let fixtures = common::load_fixtures(&common::fixtures_dir());
    assert!(!fixtures.is_empty(), "no fixture found (or none matches FIXTURE)");
    common::check_all(&fixtures);
}

/// Each recording listed in `recorded/SOURCES.md` is here, with its expectation beside it, and
/// each recording here is listed: the origin and licence of every file stay known.
#[test]
fn every_recording_is_listed_with_its_source() {
    let dir = common::fixtures_dir().join("recorded");
    let sources = std::fs::read_to_string(dir.join("SOURCES.md")).unwrap();
    let mut listed: Vec<String> = sources
        .lines()
        .filter_map(|line| line.strip_prefix("| "))
        .filter_map(|row| row.split(" |").next())
        .filter(|file| file.ends_with(".sse") || file.ends_with(".ndjson"))
        .map(str::to_owned)
        .collect();
    listed.sort();
    let mut present = Vec::new();
    // A recording is found by its expectation (`.json`): one without it is missing here.
    for path in common::recorded_streams() {
        present.push(path.strip_prefix(&dir).unwrap().to_string_lossy().replace('\\', "/"));
    }
    present.sort();
    assert!(listed.len() >= 27, "SOURCES.md lists {} recordings", listed.len());
    assert_eq!(listed, present, "SOURCES.md and the recordings differ");
}
