//! The cleaning stage, driven directly with `ProviderEvent`s.
//!
//! Text rules are table-driven, the tables in `tests/clean/rules/*.json`, and every case runs
//! under every split of its text into deltas (all one- and two-cut splits, one character per
//! delta). Property tests use a seeded RNG whose seed is printed (`CHATSTREAM_SEED=<n>` reproduces
//! a run).

#[path = "../common/mod.rs"]
mod common;

mod helpers;

mod baseline;
mod end_markers;
mod payloads;
mod properties;
mod text_rules;
