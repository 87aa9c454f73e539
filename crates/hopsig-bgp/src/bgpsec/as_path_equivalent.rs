//! The AS_PATH equivalent of a Secure_Path (RFC 8205 §4.4): what a BGPsec speaker
//! sends to a peer that does not speak BGPsec, and what loop detection and path length
//! use (§5).

use crate::packet::{AsPath, AsPathSegment, AsPathSegmentType, SecurePathSegment};

/// Most AS numbers one AS_PATH segment holds (RFC 4271 §4.3, RFC 5065).
const MAX_SEGMENT_ASNS: usize = 255;

/// The AS_PATH reconstructed from `secure_path` (wire order, newest first) by the
/// steps of RFC 8205 §4.4: from the origin to the newest segment, a segment with
/// pCount 0 adds nothing; otherwise pCount copies of its AS are prepended to an
/// AS_CONFED_SEQUENCE (Confed_Segment flag 1) or an AS_SEQUENCE (flag 0) — the one in
/// front if it is of that type and has room for them, else a new one ("creating another
/// segment of the same type … and continue filling that" past 255 ASes).
pub fn as_path(secure_path: &[SecurePathSegment]) -> AsPath {
    // Built origin first, then reversed: prepending is pushing here.
    let mut segments: Vec<AsPathSegment> = Vec::new();
    for s in secure_path.iter().rev() {
        let kind = if s.flags.confed_segment() {
            AsPathSegmentType::AsConfedSequence
        } else {
            AsPathSegmentType::AsSequence
        };
        for _ in 0..s.pcount {
            match segments.last_mut() {
                Some(front) if front.kind == kind && front.asns.len() < MAX_SEGMENT_ASNS => {
                    front.asns.push(s.asn);
                }
                _ => segments.push(AsPathSegment {
                    kind,
                    asns: vec![s.asn],
                }),
            }
        }
    }
    for s in &mut segments {
        s.asns.reverse();
    }
    segments.reverse();
    AsPath { segments }
}

/// The AS path length of `secure_path` for route selection: the sum of the pCounts
/// (RFC 8205 §3.1).
pub fn path_length(secure_path: &[SecurePathSegment]) -> u32 {
    secure_path.iter().map(|s| u32::from(s.pcount)).sum()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::packet::SecurePathFlags;

    fn seg(pcount: u8, confed: bool, asn: u32) -> SecurePathSegment {
        SecurePathSegment {
            pcount,
            flags: SecurePathFlags(if confed { 0x80 } else { 0 }),
            asn,
        }
    }

    fn kinds(p: &AsPath) -> Vec<(AsPathSegmentType, Vec<u32>)> {
        p.segments
            .iter()
            .map(|s| (s.kind, s.asns.clone()))
            .collect()
    }

    #[test]
    fn prepends_route_servers_and_confederations() {
        use AsPathSegmentType::{AsConfedSequence as C, AsSequence as S};
        // Newest first: a confederation member (flag 1) twice, the confederation's
        // entry segment (pCount 0, flag 1), an external AS, a route server, the origin
        // prepending three times.
        let path = [
            seg(1, true, 65_002),
            seg(1, true, 65_001),
            seg(0, true, 64_999),
            seg(1, false, 64_500),
            seg(0, false, 65_000),
            seg(3, false, 64_496),
        ];
        assert_eq!(
            kinds(&as_path(&path)),
            [
                (C, vec![65_002, 65_001]),
                (S, vec![64_500, 64_496, 64_496, 64_496])
            ]
        );
        assert_eq!(path_length(&path), 6);
        assert_eq!(as_path(&[seg(0, false, 1)]), AsPath::default());
    }

    #[test]
    fn a_full_sequence_continues_in_a_new_segment() {
        let path = [seg(200, false, 2), seg(100, false, 1)];
        let p = as_path(&path);
        assert_eq!(p.segments.len(), 2);
        // The origin's 100 fill the first segment built, then AS 2's 200: 155 fit.
        assert_eq!(p.segments[1].asns, [vec![2; 155], vec![1; 100]].concat());
        assert_eq!(p.segments[0].asns, vec![2; 45]);
        assert_eq!(path_length(&path), 300);
    }
}
