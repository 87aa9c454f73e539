//! The PLA per-hop check, one packet per item (Brumley, ../shared/papers/003 §I): for an
//! implicit certificate, one fused extraction + verification; for a certificate, the
//! TTP's signature on the key and the packet signature
//! ([`crate::pla::header::verify_signature`]).

use std::marker::PhantomData;

use hopsig_koblitz::curve::{Affine, Curve};
use hopsig_koblitz::tau::TauTable;

use super::Kind;
use crate::pla::header::{verify_signature, PlaHeader};

/// The kind of PLA packets on curve `C`: items [`PlaPacket`], the reference
/// [`verify_signature`].
pub struct PlaPackets<C>(PhantomData<fn() -> C>);

/// One packet's signature check, with everything [`verify_signature`] takes.
pub struct PlaPacket<'a, C: Curve> {
    /// The decoded PLA header.
    pub header: PlaHeader,
    /// The header as received (its signed fields are all but the signature).
    pub encoded: &'a [u8],
    /// The signed payload, in parts (for IPv6: the addresses, the next header, the
    /// rest of the packet).
    pub payload: Vec<&'a [u8]>,
    /// The source identity an implicit certificate is bound to (empty for a
    /// certificate).
    pub identity: Vec<u8>,
    /// The TTP's public key.
    pub ttp_key: &'a Affine<C>,
    /// Its precomputed table.
    pub ttp_table: &'a TauTable<C>,
}

impl<C: Curve> Kind for PlaPackets<C> {
    type Item<'a> = PlaPacket<'a, C>;

    fn name() -> &'static str {
        C::NAME
    }

    fn verify_one(p: &PlaPacket<'_, C>) -> bool {
        verify_signature(
            &p.header,
            p.encoded,
            &p.payload,
            &p.identity,
            p.ttp_key,
            p.ttp_table,
        )
    }
}
