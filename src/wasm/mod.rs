//! The JS bindings: a thin conversion layer over the core. (Being written.)
