//! The octets each BGPsec signer signs (RFC 8205 §4.2, Figure 8) and each validator
//! rebuilds (§5.2 step 3, Figure 9, "the same sequence"), for every hop of a path, in
//! one buffer.
//!
//! ```text
//! +------------------------------------+
//! | Target AS Number                   |  4 octets
//! +------------------------------------+----\
//! | Signature Segment   : N-1          |     \
//! +------------------------------------+     |
//! | Secure_Path Segment : N            |     |
//! +------------------------------------+     \
//!        ...                                  >  Data from N Segments
//! +------------------------------------+     /
//! | Signature Segment   : 1            |     |
//! +------------------------------------+     |
//! | Secure_Path Segment : 2            |     |
//! +------------------------------------+     /
//! | Secure_Path Segment : 1            |    /
//! +------------------------------------+---/
//! | Algorithm Suite Identifier         |  1 octet
//! +------------------------------------+
//! | AFI                                |  2 octets
//! +------------------------------------+
//! | SAFI                               |  1 octet
//! +------------------------------------+
//! | NLRI                               |  length octet, prefix octets (trailing bits 0)
//! +------------------------------------+
//! ```
//!
//! Segments are numbered as in §4.2: 1 is the origin's, N the signer's. The Target AS
//! of hop N is AS(N+1): the AS number in Secure_Path Segment N+1, or for the newest hop
//! the AS the UPDATE is sent to (the validator's own AS, §5.2 step 3).
//!
//! **One buffer, grown at the front.** Hop N+1's octets are
//! `AS(N+2) ‖ Sig(N) ‖ pCount(N+1) ‖ Flags(N+1) ‖ [AS(N+1) ‖ …hop N's octets after its
//! Target AS]`: hop N's Target AS, AS(N+1), is the last field of Secure_Path Segment
//! N+1. So every hop's octets are a suffix of the newest hop's, and adding a hop
//! writes only that hop's data in front of what is there — for a chain of signers
//! ([`SignatureInput::push`], origin first) and for a validator, which reads hop N's
//! octets as a suffix while it walks N = K … 1 ([`SignatureInput::hop`]). Nothing is
//! re-serialised per hop; [`SignatureInput::of_path`] sizes the buffer exactly, so a
//! received path costs one allocation.
//!
//! **What of a Signature Segment is signed** is the suite's ([`Coverage`]): RFC 8205
//! hashes the whole segment — SKI, Signature Length, Signature — which RFC 8608
//! Appendix A confirms (its digests come out only that way; docs/spec/bgpsec.md,
//! "Signing and validation").

use std::net::IpAddr;

use crate::packet::{
    Afi, BgpsecNlriFault, BgpsecPath, Prefix, Safi, SecurePathSegment, SignatureSegment, Update,
    SKI_LEN,
};

/// Octets of a Secure_Path Segment in the signed data (RFC 8205 Figure 5).
const SEGMENT_LEN: usize = 6;
/// Octets of the Target AS Number.
const TARGET_LEN: usize = 4;

/// The route a BGPsec UPDATE announces, as Figure 8 signs it: AFI, SAFI and the one
/// prefix of MP_REACH_NLRI (RFC 8205 §4.1: exactly one prefix, in MP_REACH_NLRI).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SignedNlri {
    /// The SAFI of MP_REACH_NLRI.
    pub safi: Safi,
    /// The prefix; its AFI is the attribute's.
    pub prefix: Prefix,
}

impl SignedNlri {
    /// A unicast prefix.
    pub fn unicast(prefix: Prefix) -> SignedNlri {
        SignedNlri {
            safi: Safi::Unicast,
            prefix,
        }
    }

    /// The address family.
    pub fn afi(&self) -> Afi {
        self.prefix.afi()
    }

    /// The route of a BGPsec UPDATE: the one prefix of its MP_REACH_NLRI.
    ///
    /// # Errors
    /// The [`BgpsecNlriFault`] that makes it no BGPsec UPDATE (RFC 8205 §4.1):
    /// prefixes in the NLRI field, no MP_REACH_NLRI, or not exactly one prefix in it.
    pub fn of_update(update: &Update<'_>) -> Result<SignedNlri, BgpsecNlriFault> {
        if !update.nlri.is_empty() {
            return Err(BgpsecNlriFault::NlriField);
        }
        let mp = update.mp_reach().ok_or(BgpsecNlriFault::NoMpReach)?;
        match mp.nlri() {
            [prefix] => Ok(SignedNlri {
                safi: mp.safi(),
                prefix: *prefix,
            }),
            other => Err(BgpsecNlriFault::PrefixCount(other.len())),
        }
    }

    /// Octets of AFI, SAFI and NLRI in the signed data.
    fn len(&self) -> usize {
        2 + 1 + 1 + self.prefix.octet_count()
    }

    /// Writes AFI, SAFI, and the prefix as RFC 4760 §5 encodes it with its trailing
    /// bits set to 0 (RFC 8205 §4.2: "all of the trailing bits MUST be set to 0 when
    /// constructing this sequence").
    fn write(&self, out: &mut [u8]) {
        let network = self.prefix.network();
        out[..2].copy_from_slice(&u16::from(self.afi()).to_be_bytes());
        out[2] = u8::from(self.safi);
        out[3] = network.length();
        let n = network.octet_count();
        match network.addr() {
            IpAddr::V4(a) => out[4..4 + n].copy_from_slice(&a.octets()[..n]),
            IpAddr::V6(a) => out[4..4 + n].copy_from_slice(&a.octets()[..n]),
        }
    }
}

/// Which octets of Signature Segment N−1 enter the data hop N signs: an algorithm
/// suite's choice ([`crate::suite::AlgorithmSuite::coverage`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Coverage {
    /// SKI, Signature Length and Signature, as on the wire: RFC 8205 §4.2 (Figure 8
    /// names the Signature Segment), what every suite with one independent signature
    /// per segment uses.
    WholeSegment,
    /// The SKI alone: for an aggregate suite whose aggregate already binds the earlier
    /// signatures, so a hop's message must not contain them (issue 12 §3).
    SkiOnly,
}

impl Coverage {
    fn len(self, s: &SignatureSegment<'_>) -> usize {
        match self {
            Coverage::WholeSegment => s.encoded_len(),
            Coverage::SkiOnly => SKI_LEN,
        }
    }

    /// Writes the covered octets of `s` into `out`, exactly `self.len(s)` long. A
    /// signature's length fits 16 bits: segments come from the codec or a suite,
    /// which both hold it to that.
    fn write(self, s: &SignatureSegment<'_>, out: &mut [u8]) {
        out[..SKI_LEN].copy_from_slice(&s.ski);
        if self == Coverage::WholeSegment {
            let len = u16::try_from(s.signature.len()).unwrap_or(u16::MAX);
            out[SKI_LEN..SKI_LEN + 2].copy_from_slice(&len.to_be_bytes());
            out[SKI_LEN + 2..].copy_from_slice(&s.signature);
        }
    }
}

/// The signed octets of every hop of one Signature_Block's path (RFC 8205 Figure 8),
/// in one buffer grown at the front (see the module documentation).
#[derive(Clone)]
pub struct SignatureInput {
    /// The octets live in `buf[start..]`; `buf[..start]` is room to grow into.
    buf: Vec<u8>,
    /// Where the newest hop's Target AS Number sits.
    start: usize,
    /// `hop_lens[n - 1]`: the length of hop n's octets, which end where the buffer
    /// ends.
    hop_lens: Vec<usize>,
    /// Whether the newest hop's Target AS has been written since the last push.
    targeted: bool,
    coverage: Coverage,
}

impl std::fmt::Debug for SignatureInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignatureInput")
            .field("hops", &self.hops())
            .field(
                "octets",
                &hopsig_primitives::codec::to_hex(&self.buf[self.start..]),
            )
            .field("targeted", &self.targeted)
            .field("coverage", &self.coverage)
            .finish()
    }
}

impl SignatureInput {
    /// Hop 1's data: the origin's Secure_Path Segment, the suite, AFI, SAFI and NLRI,
    /// with room in front for `front` more octets (a chain's later hops; more is
    /// allocated if they need it).
    pub fn origin(
        origin: SecurePathSegment,
        suite: u8,
        nlri: &SignedNlri,
        coverage: Coverage,
        front: usize,
    ) -> SignatureInput {
        let tail = TARGET_LEN + SEGMENT_LEN + 1 + nlri.len();
        let mut buf = vec![0u8; front + tail];
        let mut at = front + TARGET_LEN;
        write_segment(&origin, &mut buf[at..at + SEGMENT_LEN]);
        at += SEGMENT_LEN;
        buf[at] = suite;
        nlri.write(&mut buf[at + 1..]);
        SignatureInput {
            buf,
            start: front,
            hop_lens: vec![tail],
            targeted: false,
            coverage,
        }
    }

    /// The octets for every hop of `path`'s Signature_Block of suite `suite` (§5.2
    /// step 3), the newest hop's toward `target_as` (the validator's AS, or the AS a
    /// router sends to). The buffer is sized for these hops plus one more, so a router
    /// adding its own hop ([`SignatureInput::push`]) does not reallocate. `None` if
    /// `path` has no block of that suite.
    pub fn of_path(
        path: &BgpsecPath<'_>,
        suite: u8,
        nlri: &SignedNlri,
        coverage: Coverage,
        target_as: u32,
    ) -> Option<SignatureInput> {
        let block = path.block(suite)?;
        let segments = path.secure_path();
        // Wire order is newest first; hop n is index K − n. BgpsecPath holds one
        // Signature Segment per Secure_Path Segment (RFC 8205 §5.2 check 3).
        let pairs = || segments.iter().zip(&block.segments).rev();
        // Room for hops 2..=K and one more: each push writes the Signature Segment
        // before it and two octets of its Secure_Path Segment, and a new Target AS.
        let front: usize = pairs()
            .map(|(_, sig)| coverage.len(sig) + SEGMENT_LEN)
            .sum();
        let mut hops = pairs();
        let (origin, _) = hops.next()?;
        let mut input = SignatureInput::origin(*origin, suite, nlri, coverage, front);
        input.hop_lens.reserve_exact(segments.len());
        let mut previous = block.segments.last()?;
        for (segment, signature) in hops {
            input.push(previous, *segment);
            previous = signature;
        }
        input.set_target(target_as);
        Some(input)
    }

    /// Adds hop N+1: writes Signature Segment N (`previous`, the newest hop's) and the
    /// new hop's Secure_Path Segment in front (RFC 8205 §4.2: the segments are
    /// prepended). The new hop's Target AS is unset until
    /// [`SignatureInput::newest_toward`] or [`SignatureInput::set_target`].
    pub fn push(&mut self, previous: &SignatureSegment<'_>, segment: SecurePathSegment) {
        let covered = self.coverage.len(previous);
        self.reserve_front(covered + 2 + TARGET_LEN);
        // Hop N's Target AS, AS(N+1), is the AS Number field of the new segment.
        self.buf[self.start..self.start + TARGET_LEN].copy_from_slice(&segment.asn.to_be_bytes());
        self.start -= 2;
        self.buf[self.start] = segment.pcount;
        self.buf[self.start + 1] = segment.flags.0;
        self.start -= covered;
        self.coverage
            .write(previous, &mut self.buf[self.start..self.start + covered]);
        self.start -= TARGET_LEN;
        self.buf[self.start..self.start + TARGET_LEN].fill(0);
        self.hop_lens.push(self.buf.len() - self.start);
        self.targeted = false;
    }

    /// Sets the Target AS Number of the newest hop: the AS its signer sends to.
    pub fn set_target(&mut self, target_as: u32) {
        self.buf[self.start..self.start + TARGET_LEN].copy_from_slice(&target_as.to_be_bytes());
        self.targeted = true;
    }

    /// The newest hop's octets, toward `target_as`: what its signer signs.
    pub fn newest_toward(&mut self, target_as: u32) -> &[u8] {
        self.set_target(target_as);
        &self.buf[self.start..]
    }

    /// The number of hops, K.
    pub fn hops(&self) -> usize {
        self.hop_lens.len()
    }

    /// What the newest hop's signer signs over: the Signature Segments' [`Coverage`].
    pub fn coverage(&self) -> Coverage {
        self.coverage
    }

    /// Hop `n`'s octets (1 = the origin's, K = the newest's). `None` for `n` outside
    /// 1..=K, and for the newest hop while its Target AS is unset.
    pub fn hop(&self, n: usize) -> Option<&[u8]> {
        if n == self.hops() && !self.targeted {
            return None;
        }
        let len = *self.hop_lens.get(n.checked_sub(1)?)?;
        Some(&self.buf[self.buf.len() - len..])
    }

    /// Makes room for `n` more octets in front, doubling what is there when it grows so
    /// a chain of pushes costs amortised linear time.
    fn reserve_front(&mut self, n: usize) {
        if self.start >= n {
            return;
        }
        let len = self.buf.len() - self.start;
        let front = n.max(len);
        let mut grown = vec![0u8; front + len];
        grown[front..].copy_from_slice(&self.buf[self.start..]);
        self.buf = grown;
        self.start = front;
    }
}

/// Writes a Secure_Path Segment as Figure 5 lays it out: pCount, all 8 bits of Flags
/// ("the signature is computed over all 8 bits", §3.1), AS Number.
fn write_segment(s: &SecurePathSegment, out: &mut [u8]) {
    out[0] = s.pcount;
    out[1] = s.flags.0;
    out[2..SEGMENT_LEN].copy_from_slice(&s.asn.to_be_bytes());
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use std::borrow::Cow;

    use super::*;
    use crate::packet::{SecurePathFlags, SignatureBlock};

    fn seg(pcount: u8, flags: u8, asn: u32) -> SecurePathSegment {
        SecurePathSegment {
            pcount,
            flags: SecurePathFlags(flags),
            asn,
        }
    }

    fn sig(ski: u8, signature: &[u8]) -> SignatureSegment<'static> {
        SignatureSegment {
            ski: [ski; SKI_LEN],
            signature: Cow::Owned(signature.to_vec()),
        }
    }

    /// Figure 8 for hop n of a path written out field by field, the way the RFC draws
    /// it (independently of the buffer's suffix trick).
    fn figure_8(
        target: u32,
        segs_oldest_first: &[SecurePathSegment],
        sigs_oldest_first: &[SignatureSegment<'_>],
        n: usize,
        coverage: Coverage,
        tail: &[u8],
    ) -> Vec<u8> {
        let mut v = target.to_be_bytes().to_vec();
        for i in (2..=n).rev() {
            let s = &sigs_oldest_first[i - 2];
            v.extend_from_slice(&s.ski);
            if coverage == Coverage::WholeSegment {
                v.extend_from_slice(&(s.signature.len() as u16).to_be_bytes());
                v.extend_from_slice(&s.signature);
            }
            let p = &segs_oldest_first[i - 1];
            v.extend_from_slice(&[p.pcount, p.flags.0]);
            v.extend_from_slice(&p.asn.to_be_bytes());
        }
        let o = &segs_oldest_first[0];
        v.extend_from_slice(&[o.pcount, o.flags.0]);
        v.extend_from_slice(&o.asn.to_be_bytes());
        v.extend_from_slice(tail);
        v
    }

    #[test]
    fn hop_one_on_commented_bytes() {
        let nlri = SignedNlri::unicast(Prefix::new("192.0.2.0".parse().unwrap(), 24).unwrap());
        let mut input =
            SignatureInput::origin(seg(1, 0, 64_496), 1, &nlri, Coverage::WholeSegment, 0);
        assert_eq!(input.hop(1), None, "no Target AS yet");
        #[rustfmt::skip]
        let expected = [
            0x00, 0x01, 0x00, 0x00, // Target AS 65536
            0x01, 0x00,             // pCount 1, Flags 0
            0x00, 0x00, 0xfb, 0xf0, // AS 64496
            0x01,                   // Algorithm Suite 1
            0x00, 0x01,             // AFI IPv4
            0x01,                   // SAFI unicast
            0x18, 0xc0, 0x00, 0x02, // 192.0.2.0/24
        ];
        assert_eq!(input.newest_toward(65_536), expected);
        assert_eq!(input.hop(1).unwrap(), expected);
        assert_eq!(input.hop(0), None);
        assert_eq!(input.hop(2), None);
    }

    #[test]
    fn trailing_bits_are_zero_in_the_signed_nlri() {
        // 10.255.0.0/9 as received: seven trailing bits set in the second octet.
        let p = crate::packet::read_prefixes(&[0x09, 0x0a, 0xff], Afi::Ipv4).unwrap()[0];
        assert!(p.has_trailing_bits());
        let mut input = SignatureInput::origin(
            seg(1, 0, 1),
            1,
            &SignedNlri::unicast(p),
            Coverage::WholeSegment,
            0,
        );
        assert_eq!(input.newest_toward(2)[14..], [0x09, 0x0a, 0x80]);
    }

    #[test]
    fn a_chain_of_pushes_gives_figure_8_for_every_hop() {
        let v6: Prefix = Prefix::new("2001:db8:8000::".parse().unwrap(), 33).unwrap();
        let nlri = SignedNlri {
            safi: Safi::Multicast,
            prefix: v6,
        };
        let mut tail = vec![0xf7, 0x00, 0x02, 0x02, 33];
        tail.extend_from_slice(&[0x20, 0x01, 0x0d, 0xb8, 0x80]);
        let segs = [
            seg(3, 0, 64_496),           // the origin prepends twice
            seg(0, 0, 65_000),           // a route server
            seg(1, 0x80, 4_200_000_000), // a confederation member
            seg(1, 0x01, 65_536),        // an unassigned flag bit
            seg(2, 0, 64_500),
        ];
        let sigs: Vec<_> = (0..segs.len())
            .map(|i| sig(i as u8 + 1, &vec![0x30 + i as u8; 60 + 7 * i]))
            .collect();
        for coverage in [Coverage::WholeSegment, Coverage::SkiOnly] {
            // No room reserved: the pushes must grow the buffer themselves.
            let mut input = SignatureInput::origin(segs[0], 0xf7, &nlri, coverage, 0);
            let mut targets = vec![];
            for n in 1..=segs.len() {
                if n > 1 {
                    input.push(&sigs[n - 2], segs[n - 1]);
                    assert_eq!(input.hop(n), None);
                }
                let target = 70_000 + n as u32;
                targets.push(target);
                let got = input.newest_toward(target).to_vec();
                assert_eq!(
                    got,
                    figure_8(target, &segs, &sigs, n, coverage, &tail),
                    "hop {n}"
                );
                // Every earlier hop's octets are still there, toward the AS after it.
                for m in 1..n {
                    assert_eq!(
                        input.hop(m).unwrap(),
                        figure_8(segs[m].asn, &segs, &sigs, m, coverage, &tail),
                        "hop {m} of {n}"
                    );
                }
            }
            assert_eq!(input.hops(), segs.len());
            assert_eq!(input.coverage(), coverage);
        }
    }

    #[test]
    fn of_path_builds_every_hop_in_one_allocation() {
        let nlri = SignedNlri::unicast(Prefix::new("198.51.100.0".parse().unwrap(), 22).unwrap());
        let segs_oldest = [seg(1, 0, 64_496), seg(1, 0, 65_536), seg(2, 0, 64_500)];
        let sigs_oldest: Vec<_> = (0..3).map(|i| sig(0xa0 + i, &[i; 71])).collect();
        let path = BgpsecPath::new(
            segs_oldest.iter().rev().copied().collect(),
            vec![SignatureBlock {
                suite: 1,
                segments: sigs_oldest.iter().rev().cloned().collect(),
            }],
        )
        .unwrap();
        let input =
            SignatureInput::of_path(&path, 1, &nlri, Coverage::WholeSegment, 65_537).unwrap();
        let tail = [0x01, 0x00, 0x01, 0x01, 22, 198, 51, 100];
        let expect = |target, n| {
            figure_8(
                target,
                &segs_oldest,
                &sigs_oldest,
                n,
                Coverage::WholeSegment,
                &tail,
            )
        };
        assert_eq!(input.hop(3).unwrap(), expect(65_537, 3));
        assert_eq!(input.hop(2).unwrap(), expect(64_500, 2));
        assert_eq!(input.hop(1).unwrap(), expect(65_536, 1));
        // Exactly one more hop fits without growing: the router that forwards it.
        let before = input.buf.as_ptr();
        let mut forwarded = input.clone();
        let before_clone = forwarded.buf.as_ptr();
        forwarded.push(&sigs_oldest[2], seg(1, 0, 65_537));
        assert_eq!(forwarded.buf.as_ptr(), before_clone);
        assert_eq!(forwarded.start, 0);
        assert_ne!(before, before_clone);
        assert!(SignatureInput::of_path(&path, 2, &nlri, Coverage::WholeSegment, 1).is_none());
    }
}
