//! The decision process (RFC 4271 §9.1, reduced): a prefix this router originates
//! wins; otherwise, among the eligible routes, the highest LOCAL_PREF (the degree of
//! preference, §9.1.1), then the shortest AS path, then the lowest MULTI_EXIT_DISC
//! among routes from the same neighbouring AS (§9.1.2.2 c), the lower session number
//! on a tie ([`preferred`]). Eligible: valid or unsigned, and in lazy mode also
//! pending — never not valid (the route is kept in Adj-RIB-In to be shown, not used)
//! — and what the neighbour's policy ([`super::policy`]) and import filter let
//! through. Each change goes to every Established session's Adj-RIB-Out
//! ([`super::adj_out`]) whose export filter permits the prefix.

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
        let mut eligible = self.sessions.iter().enumerate().filter_map(|(i, s)| {
            let r = s
                .adj_in
                .get(p)
                .filter(|r| !r.filtered && self.policy(i).eligible(self.mode, r))?;
            Some((i, r))
        });
        // One route (the common case) needs no comparison and no allocation.
        let first = eligible.next()?;
        let Some(second) = eligible.next() else {
            return Some(Source::Neighbor(first.0, first.1.seq));
        };
        let routes: Vec<(usize, &super::Route)> =
            [first, second].into_iter().chain(eligible).collect();
        let candidates: Vec<Candidate> = routes.iter().map(|&(i, r)| Candidate::of(i, r)).collect();
        preferred(&candidates).map(|c| Source::Neighbor(routes[c].0, routes[c].1.seq))
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
            let exported = self.rules(m).export.permits(&p);
            let desired = best.filter(|_| exported).filter(|src| match *src {
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

/// What the decision compares of an eligible route (RFC 4271 §9.1.2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate {
    /// The session it came from.
    pub session: usize,
    /// Its degree of preference (LOCAL_PREF, §9.1.1).
    pub local_pref: u32,
    /// Its AS path length (§9.1.2.2 a: an AS_SET counts 1).
    pub path_length: usize,
    /// The neighbouring AS, the first of the AS_PATH (§9.1.2.2 c).
    pub neighbor_as: Option<u32>,
    /// MULTI_EXIT_DISC, `None` if it has none.
    pub med: Option<u32>,
}

impl Candidate {
    /// Route `r` of session `session`.
    pub fn of(session: usize, r: &super::Route) -> Candidate {
        let neighbor_as = r
            .as_path
            .segments
            .first()
            .filter(|s| s.kind == AsPathSegmentType::AsSequence)
            .and_then(|s| s.asns.first().copied());
        Candidate {
            session,
            local_pref: r.local_pref,
            path_length: path_length(&r.as_path),
            neighbor_as,
            med: r.med,
        }
    }
}

/// The index in `c` of the route RFC 4271 §9.1 prefers, by elimination as §9.1.2.2
/// says: the highest degree of preference (§9.1.1, LOCAL_PREF), then (a) the fewest
/// ASes in AS_PATH, then (c) "remove from consideration routes with less-preferred
/// MULTI_EXIT_DISC attributes. MULTI_EXIT_DISC is only comparable between routes
/// learned from the same neighboring AS … Routes that do not have the
/// MULTI_EXIT_DISC attribute are considered to have the lowest possible
/// MULTI_EXIT_DISC value", then the lowest session number (in place of (f) and (g),
/// the lowest BGP Identifier and peer address). (b) ORIGIN is not compared, (d) and
/// (e) do not apply: every neighbour is external, with no IGP cost.
pub fn preferred(c: &[Candidate]) -> Option<usize> {
    let top = c.iter().map(|c| c.local_pref).max()?;
    let mut left: Vec<usize> = (0..c.len()).filter(|&i| c[i].local_pref == top).collect();
    let shortest = left.iter().map(|&i| c[i].path_length).min()?;
    left.retain(|&i| c[i].path_length == shortest);
    let med = |i: usize| c[i].med.unwrap_or(0);
    let beaten: Vec<usize> = left
        .iter()
        .copied()
        .filter(|&m| {
            left.iter()
                .any(|&n| c[n].neighbor_as == c[m].neighbor_as && med(n) < med(m))
        })
        .collect();
    left.retain(|i| !beaten.contains(i));
    left.into_iter().min_by_key(|&i| c[i].session)
}
