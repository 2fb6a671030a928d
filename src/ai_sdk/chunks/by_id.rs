//! Values by an id the stream gives: [`ById`].

use std::collections::HashMap;

/// Values by an id the stream gives (a toolCallId). The ids are hashed with the standard library's
/// keyed hasher, so that a hostile stream cannot make lookups linear; every map of the reducer is
/// a `HashMap<String, usize>` (here: the value's place in `values`), so that the map's code is in
/// the module once rather than once per value type (about 1 KB gzip of the AI SDK entry's module).
#[derive(Debug, Clone)]
pub(super) struct ById<T> {
    places: HashMap<String, usize>,
    values: Vec<T>,
}

impl<T> Default for ById<T> {
    fn default() -> ById<T> {
        ById { places: HashMap::new(), values: Vec::new() }
    }
}

impl<T> ById<T> {
    pub(super) fn get(&self, id: &str) -> Option<&T> {
        self.places.get(id).map(|&at| &self.values[at])
    }

    pub(super) fn get_mut(&mut self, id: &str) -> Option<&mut T> {
        self.places.get(id).map(|&at| &mut self.values[at])
    }

    /// The value of `id`, made with `make` when there is none.
    pub(super) fn get_or_insert_with(&mut self, id: &str, make: impl FnOnce() -> T) -> &mut T {
        let at = match self.places.get(id) {
            Some(&at) => at,
            None => {
                self.places.insert(id.to_owned(), self.values.len());
                self.values.push(make());
                self.values.len() - 1
            }
        };
        &mut self.values[at]
    }

    /// Sets the value of `id`, in place of any it had.
    pub(super) fn insert(&mut self, id: &str, value: T) {
        match self.places.get(id) {
            Some(&at) => self.values[at] = value,
            None => {
                self.places.insert(id.to_owned(), self.values.len());
                self.values.push(value);
            }
        }
    }

    pub(super) fn clear(&mut self) {
        self.places.clear();
        self.values.clear();
    }
}
