//! **Insecure under lazy verification — for demonstration only.**
//!
//! The two trapdoor-permutation sequential aggregates that BGR App. A breaks: LMRS
//! (eq. 2) and Neven's scheme (Fig. 3, simplified). Both are correct when every signer
//! verifies the aggregate so far before signing; a signer that signs an unverified
//! aggregate lets an adversary obtain a valid aggregate on a message the signer never
//! signed. The tests in `tests/appendix_a_attack.rs` mount that attack. These schemes have
//! no wire format and are not in the registry.

pub mod lmrs;
pub mod neven;
