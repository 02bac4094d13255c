//! Validate stage: the rules of SPEC section 9, shared by every generator, `check` and `validate`.
//! (Owned by the validator work.)
