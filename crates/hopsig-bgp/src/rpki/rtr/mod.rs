//! RPKI-to-Router (RFC 6810 v0, RFC 8210 v1, draft-ietf-sidrops-8210bis v2) on the
//! `rpki` crate's PDU codec: a client of several caches with preference, and a cache.
