//! The decision process (RFC 4271 §9.1, reduced): a prefix this router originates
//! wins; otherwise the eligible route with the shortest AS path, the lower session
//! number on a tie. Eligible: valid or unsigned, and in lazy mode also pending —
//! never not valid (the route is kept in Adj-RIB-In to be shown, not used) — and
//! what the neighbour's policy ([`super::policy`]) lets through. Each change goes to
//! every Established session's Adj-RIB-Out ([`super::adj_out`]).

use super::adj_in::Source;
use super::adj_out::{Advert, SignJob};
use super::Rib;
use crate::packet::{AsPath, AsPathSegmentType, Prefix};

/// Path length for the decision: an AS_SET counts 1 (RFC 4271 §9.1.2.2 a).
fn path_length(path: &AsPath) -> usize {
    path.segments
        .iter()
        .map(|s| match s.kind {
            AsPathSegmentType::AsSequence => s.asns.len(),
            AsPathSegmentType::AsSet => 1,
            _ => 0,
        })
        .sum()
}

/// Whether `asn` is on `path` (a loop, RFC 4271 §9.1.2).
pub(super) fn contains(path: &AsPath, asn: u32) -> bool {
    path.segments.iter().any(|s| s.asns.contains(&asn))
}

impl Rib {
    /// The installed route of `p` (Loc-RIB).
    pub fn best(&self, p: &Prefix) -> Option<Source> {
        if self.local.contains(p) {
            return Some(Source::Local);
        }
        self.sessions
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                let r = s
                    .adj_in
                    .get(p)
                    .filter(|r| self.policy(i).eligible(self.mode, r))?;
                Some((path_length(&r.as_path), i, r.seq))
            })
            .min()
            .map(|(_, i, seq)| Source::Neighbor(i, seq))
    }

    /// Runs the decision for `p` and sends what changed to each Established session.
    pub(super) fn decide(&mut self, p: Prefix) {
        let best = self.best(&p);
        for m in 0..self.sessions.len() {
            let Some(up) = self.sessions[m].up.as_ref() else {
                continue;
            };
            // RFC 4760 §8: only the families the session negotiated.
            if !up.afis.carries(p.afi()) {
                continue;
            }
            let remote_as = up.remote_as;
            let desired = best.filter(|src| match *src {
                Source::Local => true,
                Source::Neighbor(i, _) => {
                    i != m
                        && self.sessions[i]
                            .adj_in
                            .get(&p)
                            .is_some_and(|r| !contains(&r.as_path, remote_as) && !r.no_export)
                }
            });
            let current = self.sessions[m].adj_out.get(&p).map(|a| a.source);
            if desired == current {
                continue;
            }
            let Some(src) = desired else {
                self.take_back(m, p);
                continue;
            };
            let announce = match self.announcement(m, p, src) {
                Ok(a) => a,
                Err(why) => {
                    self.deliver(m, p, src, AsPath::default(), Err(why));
                    continue;
                }
            };
            if announce.sign && self.backlog {
                self.sign_jobs += 1;
                let number = self.sign_jobs;
                let on_wire = self.sessions[m].adj_out.get(&p).is_some_and(|a| a.on_wire);
                let advert = Advert {
                    source: src,
                    as_path: announce.out_path.clone(),
                    bgpsec: true,
                    signing: Some(number),
                    on_wire,
                };
                self.sessions[m].adj_out.insert(p, advert);
                self.signing += 1;
                self.pool.sign(SignJob {
                    session: m,
                    number,
                    announce,
                });
            } else {
                let as_path = announce.out_path.clone();
                self.deliver(m, p, src, as_path, announce.build());
            }
        }
    }
}
