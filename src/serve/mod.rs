//! The static wrapper. (Owned by the serve work.)
