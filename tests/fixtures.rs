//! Every fixture, our own and the recorded ones, through every split (see `common`).
//! One fixture: `FIXTURE=openai/text cargo test --test fixtures`.

mod common;

#[test]
fn own_fixtures() {
    let fixtures = common::load_fixtures(&common::fixtures_dir(), None);
    common::check_all(&fixtures);
}

#[test]
fn recorded_streams() {
    let Some(real) = common::shared_real_dir() else { return };
    let fixtures = common::load_fixtures(&common::fixtures_dir().join("real"), Some(&real));
    common::check_all(&fixtures);
}
