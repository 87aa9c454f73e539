//! Prefix filters (docs/spec/speaker.md, "Policy"): a neighbour's `import` and
//! `export` lists, each an ordered list of rules `permit|deny PREFIX [ge N] [le M]`,
//! as router prefix lists have them. The first rule that matches a route's prefix
//! decides; a list with rules that none matches denies (an implicit deny at the
//! end); an empty list permits everything.
//!
//! A rule matches a prefix of the same family whose first `length` bits are the
//! rule prefix's and whose length is in the rule's range: exactly the rule's length
//! without `ge` and `le`; `ge N` alone: N up to the address size; `le M` alone: the
//! rule's length up to M; both: N to M.

use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;

use serde::Deserialize;

use crate::packet::Prefix;

/// What a matching rule does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The route passes.
    Permit,
    /// The route is filtered out.
    Deny,
}

/// One rule of a prefix list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// Permit or deny.
    pub verdict: Verdict,
    /// The prefix (no host bits set).
    pub prefix: Prefix,
    /// Shortest length matched.
    pub min: u8,
    /// Longest length matched.
    pub max: u8,
}

impl Rule {
    /// Whether `p` is of the rule's family, inside its prefix, with a length in its
    /// range.
    pub fn matches(&self, p: &Prefix) -> bool {
        let len = p.length();
        if len < self.min || len > self.max {
            return false;
        }
        let bits = u32::from(self.prefix.length());
        match (self.prefix.addr(), p.addr()) {
            (IpAddr::V4(r), IpAddr::V4(a)) => {
                let mask = u32::MAX.checked_shl(32 - bits).unwrap_or(0);
                u32::from(r) & mask == u32::from(a) & mask
            }
            (IpAddr::V6(r), IpAddr::V6(a)) => {
                let mask = u128::MAX.checked_shl(128 - bits).unwrap_or(0);
                u128::from(r) & mask == u128::from(a) & mask
            }
            _ => false,
        }
    }
}

impl FromStr for Rule {
    type Err = String;

    /// `permit|deny PREFIX [ge N] [le M]`, e.g. `permit 10.0.0.0/8 le 24`.
    fn from_str(s: &str) -> Result<Rule, String> {
        let bad = |why: &str| format!("prefix rule '{s}': {why}");
        let mut words = s.split_whitespace();
        let verdict = match words.next() {
            Some("permit") => Verdict::Permit,
            Some("deny") => Verdict::Deny,
            _ => return Err(bad("must start with permit or deny")),
        };
        let prefix = words
            .next()
            .ok_or_else(|| bad("a prefix address/length is missing"))?;
        let prefix = crate::speaker::config::parse_prefix(prefix)
            .map_err(|e| bad(e.trim_start_matches("originate: ")))?;
        let size: u8 = if prefix.addr().is_ipv4() { 32 } else { 128 };
        let (mut ge, mut le) = (None, None);
        while let Some(word) = words.next() {
            let slot = match word {
                "ge" if ge.is_none() && le.is_none() => &mut ge,
                "le" if le.is_none() => &mut le,
                _ => return Err(bad("expected at most 'ge N' then 'le M'")),
            };
            let n: u8 = words
                .next()
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| bad(&format!("'{word}' needs a length")))?;
            *slot = Some(n);
        }
        let len = prefix.length();
        let (min, max) = match (ge, le) {
            (None, None) => (len, len),
            (Some(g), None) => (g, size),
            (None, Some(l)) => (len, l),
            (Some(g), Some(l)) => (g, l),
        };
        if min < len || max < min || max > size {
            return Err(bad(&format!(
                "lengths must satisfy {len} <= ge <= le <= {size} (the prefix length, the address size)"
            )));
        }
        Ok(Rule {
            verdict,
            prefix,
            min,
            max,
        })
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = match self.verdict {
            Verdict::Permit => "permit",
            Verdict::Deny => "deny",
        };
        write!(
            f,
            "{verdict} {} ge {} le {}",
            self.prefix, self.min, self.max
        )
    }
}

/// An ordered prefix list; empty: everything passes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PrefixList(pub Vec<Rule>);

impl PrefixList {
    /// The empty list, which permits everything.
    pub const EMPTY: PrefixList = PrefixList(Vec::new());

    /// Whether `p` passes: the first matching rule's verdict; with no match, only if
    /// the list is empty.
    pub fn permits(&self, p: &Prefix) -> bool {
        match self.0.iter().find(|r| r.matches(p)) {
            Some(r) => r.verdict == Verdict::Permit,
            None => self.0.is_empty(),
        }
    }

    /// Whether the list has no rule (everything passes).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A TOML array of rule strings; a bad rule is a TOML error with its line.
impl<'de> Deserialize<'de> for PrefixList {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<PrefixList, D::Error> {
        let rules = Vec::<String>::deserialize(d)?;
        rules
            .iter()
            .map(|r| r.parse())
            .collect::<Result<Vec<Rule>, String>>()
            .map(PrefixList)
            .map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn p(s: &str) -> Prefix {
        crate::speaker::config::parse_prefix(s).unwrap()
    }

    fn list(rules: &[&str]) -> PrefixList {
        PrefixList(rules.iter().map(|r| r.parse().unwrap()).collect())
    }

    #[test]
    fn exact_ge_and_le_ranges_and_their_edges() {
        let exact: Rule = "permit 10.0.0.0/8".parse().unwrap();
        assert!(exact.matches(&p("10.0.0.0/8")));
        assert!(!exact.matches(&p("10.0.0.0/9")));
        assert!(!exact.matches(&p("11.0.0.0/8")));
        let le: Rule = "permit 10.0.0.0/8 le 24".parse().unwrap();
        assert!(le.matches(&p("10.0.0.0/8")));
        assert!(le.matches(&p("10.255.255.0/24")));
        assert!(!le.matches(&p("10.1.1.0/25")), "one past le");
        assert!(!le.matches(&p("0.0.0.0/0")), "shorter than the rule");
        assert!(!le.matches(&p("11.1.0.0/16")), "outside");
        let ge: Rule = "deny 10.0.0.0/8 ge 25".parse().unwrap();
        assert!(!ge.matches(&p("10.1.1.0/24")), "one before ge");
        assert!(ge.matches(&p("10.1.1.0/25")));
        assert!(
            ge.matches(&p("10.1.1.1/32")),
            "ge alone goes to the address size"
        );
        let both: Rule = "permit 10.0.0.0/8 ge 16 le 16".parse().unwrap();
        assert!(both.matches(&p("10.7.0.0/16")));
        assert!(!both.matches(&p("10.7.0.0/17")) && !both.matches(&p("10.0.0.0/15")));
        let any: Rule = "permit 0.0.0.0/0 le 32".parse().unwrap();
        assert!(any.matches(&p("192.0.2.1/32")) && any.matches(&p("0.0.0.0/0")));
        assert!(!any.matches(&p("2001:db8::/32")), "another family");
        let v6: Rule = "permit 2001:db8::/32 le 48".parse().unwrap();
        assert!(v6.matches(&p("2001:db8:1::/48")));
        assert!(!v6.matches(&p("2001:db8:1:1::/64")));
        assert!(!v6.matches(&p("2001:db9::/48")));
        assert!(!v6.matches(&p("10.0.0.0/8")));
        let host: Rule = "permit ::/0 ge 128".parse().unwrap();
        assert!(host.matches(&p("2001:db8::1/128")) && !host.matches(&p("2001:db8::/127")));
    }

    #[test]
    fn first_match_decides_and_no_match_denies() {
        let l = list(&["deny 10.1.0.0/16 le 32", "permit 10.0.0.0/8 le 24"]);
        assert!(!l.permits(&p("10.1.2.0/24")), "the earlier deny");
        assert!(l.permits(&p("10.2.0.0/16")));
        assert!(
            !l.permits(&p("10.2.0.0/25")),
            "no rule matches: implicit deny"
        );
        assert!(!l.permits(&p("192.0.2.0/24")));
        // The order matters.
        let l = list(&["permit 10.0.0.0/8 le 24", "deny 10.1.0.0/16 le 32"]);
        assert!(l.permits(&p("10.1.2.0/24")));
        // Empty: everything.
        assert!(PrefixList::EMPTY.permits(&p("192.0.2.0/24")));
        assert!(PrefixList::EMPTY.permits(&p("2001:db8::/32")));
    }

    #[test]
    fn bad_rules_are_refused_saying_why() {
        for (rule, why) in [
            ("allow 10.0.0.0/8", "permit or deny"),
            ("permit", "missing"),
            ("permit 10.0.0.0", "address/length"),
            ("permit 10.0.0.1/8", "bits set"),
            ("permit 10.0.0.0/33", "10.0.0.0/33"),
            ("permit 10.0.0.0/8 le 33", "<= 32"),
            ("permit 10.0.0.0/16 le 8", "<= le"),
            ("permit 10.0.0.0/16 ge 8", "16 <= ge"),
            ("permit 10.0.0.0/8 ge 24 le 16", "ge <= le"),
            ("permit 10.0.0.0/8 le 24 ge 16", "at most"),
            ("permit 10.0.0.0/8 le", "needs a length"),
            ("permit 10.0.0.0/8 le x", "needs a length"),
            ("permit 10.0.0.0/8 eq 8", "at most"),
            ("permit 2001:db8::/32 le 129", "<= 128"),
        ] {
            let e = rule.parse::<Rule>().unwrap_err();
            assert!(e.contains(why) && e.contains(rule), "{rule}: {e}");
        }
    }
}
