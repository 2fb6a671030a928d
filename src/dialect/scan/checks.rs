//! The checks of [`Shape`] against the forward scanner, for the tests and the differential fuzz
//! target (test builds and builds with `--cfg fuzzing` only): a switch that turns the learned
//! shapes off on this thread, and replays held to `scan`.

use super::{Reader, Shape, Taken};

/// The fast-path tests compare a decoder that took the fast path with one that did not: the same
/// state but for what each learned, which is a cache (the tests hold replays to `scan`).
#[cfg(test)]
impl<T, const N: usize> PartialEq for Shape<T, N> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// How [`Shape::read`] answers on this thread. Test and fuzz builds only (cargo fuzz builds
/// with `--cfg fuzzing`): a stream read with its shapes can then be compared with the same
/// stream read without them. Other builds have neither the switch nor its check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShapeMode {
    /// As built: a frame of the learned shape is replayed.
    Warm,
    /// Every frame is scanned afresh, as if it were the first.
    Cold,
    /// No shape at all: the forward scanner alone reads every frame, learning nothing (what the
    /// learned shapes are measured against, benches/fast_paths.rs).
    Plain,
    /// No fast path: every frame goes to its decoder's general path.
    Off,
}

thread_local! {
    pub(super) static MODE: std::cell::Cell<ShapeMode> = const { std::cell::Cell::new(ShapeMode::Warm) };
}

/// Sets how shapes answer on this thread; the mode it replaces.
pub fn set_shape_mode(mode: ShapeMode) -> ShapeMode {
    MODE.replace(mode)
}

/// How a fast path read a frame (the benchmark of the fast paths counts them).
#[derive(Debug, Clone, Copy)]
pub(in crate::dialect) enum Path {
    /// A learned shape replayed it.
    Replayed,
    /// The forward scanner read it (a shape learned it, when the fast path has one).
    Scanned,
}

thread_local! {
    /// The frames each [`Path`] took on this thread, since [`take_paths`].
    static PATHS: std::cell::Cell<[usize; 2]> = const { std::cell::Cell::new([0; 2]) };
}

pub(in crate::dialect) fn took(path: Path) {
    let mut paths = PATHS.get();
    paths[path as usize] += 1;
    PATHS.set(paths);
}

/// How many frames a learned shape replayed and how many the forward scanner read on this
/// thread since the last call.
pub fn take_paths() -> [usize; 2] {
    PATHS.take()
}

/// Learns a shape from `learned` with `scan`, then replays `other`: whether the shape read
/// `other` (false when `scan` refused `learned` or the shape declined `other`). Panics where
/// replay and `scan` disagree on `other`.
pub(in crate::dialect) fn shape_agrees<T: Copy + PartialEq + std::fmt::Debug, const N: usize>(
    learned: &str,
    other: &str,
    scan: for<'a> fn(&mut Reader<'a>) -> Option<(T, Taken<'a, N>)>,
) -> bool {
    let mut shape = Shape::default();
    shape.read(learned, scan).is_some() && shape.replay_agrees(learned, other, scan)
}

impl<T: Copy + PartialEq + std::fmt::Debug, const N: usize> Shape<T, N> {
    /// Replays `other` with the shape learned from `learned`: whether it read `other`. Panics
    /// where replay and `scan` disagree on it.
    fn replay_agrees(
        &self,
        learned: &str,
        other: &str,
        scan: for<'a> fn(&mut Reader<'a>) -> Option<(T, Taken<'a, N>)>,
    ) -> bool {
        let Some(found) = self.replay(other) else { return false };
        assert_eq!(Some(found), super::scan(other, scan), "learned {learned:?}, read {other:?}");
        true
    }
}

/// Checks [`Shape`] against `scan` on `frames`: learned from each frame, the shape reads every
/// frame and every one-byte edit of the frame as `scan` does, or leaves it to `scan`. Returns
/// how many of them the shape read (enough shows it does its job).
#[cfg(test)]
pub(in crate::dialect) fn shapes_agree<T: Copy + PartialEq + std::fmt::Debug, const N: usize>(
    frames: &[&str],
    scan: for<'a> fn(&mut Reader<'a>) -> Option<(T, Taken<'a, N>)>,
) -> usize {
    let mut replayed = 0;
    for learned in frames {
        let mut shape = Shape::default();
        if shape.read(learned, scan).is_none() {
            continue;
        }
        let edits = crate::dialect::test_support::one_byte_edits(learned);
        for other in frames.iter().map(|f| f.to_string()).chain(edits) {
            replayed += usize::from(shape.replay_agrees(learned, &other, scan));
        }
    }
    replayed
}
