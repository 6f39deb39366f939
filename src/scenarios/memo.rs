//! A value worked out once per key and shared by the threads that load a
//! suite root: the folders its responses are in, the regexes of its
//! assertions.

use std::borrow::Borrow;
use std::hash::Hash;
use std::sync::{Mutex, PoisonError};

use rustc_hash::FxHashMap;

/// Each key's value, made the first time it is asked for.
#[derive(Debug)]
pub(super) struct Memo<K, V>(Mutex<FxHashMap<K, V>>);

impl<K, V> Default for Memo<K, V> {
    fn default() -> Self {
        Memo(Mutex::new(FxHashMap::default()))
    }
}

impl<K: Hash + Eq, V: Clone> Memo<K, V> {
    /// The value of `key`: the one made before, else `make()`, kept. It is
    /// made without the lock held: two threads may both make a value the
    /// first time, which must then be the same.
    pub(super) fn get_or_make<Q>(&self, key: &Q, make: impl FnOnce() -> V) -> V
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToOwned<Owned = K> + ?Sized,
    {
        let known = self.0.lock().unwrap_or_else(PoisonError::into_inner).get(key).cloned();
        if let Some(value) = known {
            return value;
        }
        let value = make();
        self.0.lock().unwrap_or_else(PoisonError::into_inner).insert(key.to_owned(), value.clone());
        value
    }

    /// How many keys have a value.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).len()
    }
}
