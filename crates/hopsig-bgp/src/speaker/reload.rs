//! Configuration changes without a restart (issue 26 §4, docs/spec/speaker.md
//! "Reload"): the difference between the configuration in force and a new one, as a
//! [`Plan`] — a pure function, so that every class of field is tested without a
//! socket ([`plan`]). The running speaker applies it (`speaker::running`).
//!
//! Neighbours are matched by address and port, then by address alone (so that a
//! changed port is a change, not a removal and an addition), in order. Each field
//! belongs to one class:
//!
//! * [`RESET_FIELDS`]: what the OPEN or the transport carries — the session ends
//!   with a NOTIFICATION Cease / Other Configuration Change (RFC 4486 §4, subcode 6)
//!   and starts again with the new values;
//! * [`POLICY_FIELDS`]: the route policy — applied to the routes held, no reset
//!   (the RIB is evaluated again and what changes is advertised or withdrawn);
//! * [`RPKI_FIELDS`]: where RPKI data comes from — the file sources are read again,
//!   the RTR caches started again, the routes revalidated against the new view;
//! * [`ORIGINATE_FIELDS`]: the prefixes originated — announced or withdrawn;
//! * [`APPLIED_FIELDS`]: taken as they are (the status file's route cap);
//! * everything else ([`FIXED_FIELDS`], and any field not named here) cannot change
//!   while the speaker runs: the new configuration is refused, saying which.
//!
//! A neighbour removed gets a NOTIFICATION Cease / Peer De-configured (RFC 4486 §4,
//! subcode 3) and its routes are withdrawn; one added starts its session.

use std::fmt::Debug;
use std::path::Path;

use hopsig_primitives::input::read_limited;

use super::config::{Config, Neighbor, MAX_CONFIG_LEN};

/// Neighbour fields whose change resets the session (Cease / Other Configuration
/// Change): the transport, and what the OPEN announces or the session negotiates.
pub const RESET_FIELDS: &[&str] = &[
    "port",
    "local_address",
    "remote_as",
    "passive",
    "bgpsec",
    "suites",
    "families",
    "next_hop6",
    "extended_messages",
    "route_refresh",
    "enhanced_route_refresh",
    "graceful_restart",
];

/// Neighbour fields applied to the routes held, with no session reset.
pub const POLICY_FIELDS: &[&str] = &[
    "role",
    "reject_rov_invalid",
    "reject_aspa_invalid",
    "require_bgpsec_valid",
    "import",
    "export",
    "max_prefixes",
    "max_prefixes_warning",
    "max_prefixes_restart",
    "local_pref",
    "med",
    "add_communities",
];

/// Top-level fields of the RPKI sources: read again, caches restarted.
pub const RPKI_FIELDS: &[&str] = &["rpki_keys", "rpki"];

/// Top-level fields of the prefixes originated.
pub const ORIGINATE_FIELDS: &[&str] = &["originate", "originate_mrt"];

/// Top-level fields taken as they are.
pub const APPLIED_FIELDS: &[&str] = &["status_routes"];

/// Top-level fields that cannot change while the speaker runs (each would change
/// every session, the sockets or the worker pool). A field added to [`Config`]
/// later and not classified here is treated as one of these.
pub const FIXED_FIELDS: &[&str] = &[
    "local_as",
    "router_id",
    "next_hop",
    "listen",
    "mode",
    "hold_time",
    "send_hold_time",
    "connect_retry",
    "validation_threads",
    "state_file",
    "router_keys",
    "next_hop6",
    "signature_cache",
    "http",
    "status_max_bytes",
    "mrt_dump",
];

/// Why a new configuration was refused; the one in force stays.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    /// The file cannot be read, is not a configuration, or holds a bad value.
    #[error("{0}")]
    Invalid(String),
    /// Fields that cannot change while the speaker runs.
    #[error("{} cannot change while the speaker runs (restart it to change {})", .0.join(", "), if .0.len() == 1 { "it" } else { "them" })]
    Fixed(Vec<String>),
    /// The new configuration cannot be applied (a key that does not load, an RPKI
    /// file that cannot be read, the prefixes to originate).
    #[error("{0}")]
    Unusable(String),
}

/// A neighbour in both configurations whose fields differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changed {
    /// Its index in the old configuration's `neighbors`.
    pub old: usize,
    /// Its index in the new one's.
    pub new: usize,
    /// The [`RESET_FIELDS`] that differ: non-empty, the session is reset.
    pub reset: Vec<&'static str>,
    /// The [`POLICY_FIELDS`] that differ.
    pub policy: Vec<&'static str>,
}

/// What a reload changes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// Indexes in the new configuration of neighbours it adds.
    pub added: Vec<usize>,
    /// Indexes in the old configuration of neighbours it removes.
    pub removed: Vec<usize>,
    /// Neighbours in both that differ.
    pub changed: Vec<Changed>,
    /// Neighbours in both, the same: (old index, new index).
    pub kept: Vec<(usize, usize)>,
    /// The [`RPKI_FIELDS`] that differ.
    pub rpki: Vec<&'static str>,
    /// The [`ORIGINATE_FIELDS`] that differ.
    pub originate: Vec<&'static str>,
    /// The [`APPLIED_FIELDS`] that differ.
    pub applied: Vec<&'static str>,
}

impl Plan {
    /// Whether the reload changes nothing.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty()
            && self.removed.is_empty()
            && self.changed.is_empty()
            && self.rpki.is_empty()
            && self.originate.is_empty()
            && self.applied.is_empty()
    }

    /// The changed neighbours whose session is reset.
    pub fn resets(&self) -> impl Iterator<Item = &Changed> {
        self.changed.iter().filter(|c| !c.reset.is_empty())
    }
}

/// Two values the same: their `Debug` forms compared, every field in them, so that
/// the configuration types need no `PartialEq` of their own.
fn same<T: Debug>(a: &T, b: &T) -> bool {
    format!("{a:?}") == format!("{b:?}")
}

/// Names in `names` of the fields of `a` and `b` (same type) that differ.
macro_rules! differing {
    ($a:expr, $b:expr; $($field:ident),* $(,)?) => {{
        let mut v: Vec<&'static str> = Vec::new();
        $(if !same(&$a.$field, &$b.$field) {
            v.push(stringify!($field));
        })*
        v
    }};
}

/// The fields of neighbour `a` and `b` that differ: (reset fields, policy fields).
/// Every field of [`Neighbor`] is named here (the pattern has no `..`): one added
/// later does not compile until it is classified.
pub fn neighbor_diff(a: &Neighbor, b: &Neighbor) -> (Vec<&'static str>, Vec<&'static str>) {
    let Neighbor {
        address: _,
        port: _,
        local_address: _,
        remote_as: _,
        passive: _,
        bgpsec: _,
        suites: _,
        role: _,
        reject_rov_invalid: _,
        reject_aspa_invalid: _,
        require_bgpsec_valid: _,
        families: _,
        next_hop6: _,
        extended_messages: _,
        route_refresh: _,
        enhanced_route_refresh: _,
        graceful_restart: _,
        import: _,
        export: _,
        max_prefixes: _,
        max_prefixes_warning: _,
        max_prefixes_restart: _,
        local_pref: _,
        med: _,
        add_communities: _,
    } = a;
    let reset = differing!(a, b; port, local_address, remote_as, passive, bgpsec, suites,
        families, next_hop6, extended_messages, route_refresh, enhanced_route_refresh,
        graceful_restart);
    let policy = differing!(a, b; role, reject_rov_invalid, reject_aspa_invalid,
        require_bgpsec_valid, import, export, max_prefixes, max_prefixes_warning,
        max_prefixes_restart, local_pref, med, add_communities);
    (reset, policy)
}

/// Pairs the neighbours of `old` and `new`: first by address and port, then by
/// address alone, each in order; (old index, new index) pairs, and the unpaired of
/// each side.
fn pair(old: &[Neighbor], new: &[Neighbor]) -> (Vec<(usize, usize)>, Vec<usize>, Vec<usize>) {
    let mut old_taken = vec![false; old.len()];
    let mut new_of: Vec<Option<usize>> = vec![None; new.len()];
    let passes: [fn(&Neighbor, &Neighbor) -> bool; 2] = [
        |a, b| a.address == b.address && a.port == b.port,
        |a, b| a.address == b.address,
    ];
    for matches in passes {
        for (j, b) in new.iter().enumerate() {
            if new_of[j].is_some() {
                continue;
            }
            if let Some(i) = (0..old.len()).find(|&i| !old_taken[i] && matches(&old[i], b)) {
                old_taken[i] = true;
                new_of[j] = Some(i);
            }
        }
    }
    let pairs = new_of
        .iter()
        .enumerate()
        .filter_map(|(j, i)| i.map(|i| (i, j)))
        .collect();
    let removed = (0..old.len()).filter(|&i| !old_taken[i]).collect();
    let added = (0..new.len()).filter(|&j| new_of[j].is_none()).collect();
    (pairs, removed, added)
}

/// What changes from `old` (in force) to `new`.
///
/// # Errors
/// [`Refused::Fixed`]: fields that cannot change while the speaker runs, each named
/// ("a field added to the configuration" for one not classified yet).
pub fn plan(old: &Config, new: &Config) -> Result<Plan, Refused> {
    let mut fixed: Vec<String> = differing!(old, new; local_as, router_id, next_hop, listen,
        mode, hold_time, send_hold_time, connect_retry, validation_threads, state_file,
        router_keys, next_hop6, signature_cache, http, status_max_bytes, mrt_dump)
    .into_iter()
    .map(String::from)
    .collect();
    // Any other field: the new configuration with every classified field of the old
    // one must be the old one.
    let mut rest = new.clone();
    rest.neighbors.clone_from(&old.neighbors);
    rest.rpki_keys.clone_from(&old.rpki_keys);
    rest.rpki = old.rpki.clone();
    rest.originate.clone_from(&old.originate);
    rest.originate_mrt.clone_from(&old.originate_mrt);
    rest.status_routes = old.status_routes;
    if fixed.is_empty() && !same(&rest, old) {
        fixed.push("a field added to the configuration".into());
    }
    if !fixed.is_empty() {
        return Err(Refused::Fixed(fixed));
    }
    let (pairs, removed, added) = pair(&old.neighbors, &new.neighbors);
    let mut plan = Plan {
        added,
        removed,
        rpki: differing!(old, new; rpki_keys, rpki),
        originate: differing!(old, new; originate, originate_mrt),
        applied: differing!(old, new; status_routes),
        ..Plan::default()
    };
    for (i, j) in pairs {
        let (reset, policy) = neighbor_diff(&old.neighbors[i], &new.neighbors[j]);
        if reset.is_empty() && policy.is_empty() {
            plan.kept.push((i, j));
        } else {
            plan.changed.push(Changed {
                old: i,
                new: j,
                reset,
                policy,
            });
        }
    }
    Ok(plan)
}

/// Whether the RTR caches of `old` keep running under `new`: the same caches and
/// limits (their data then stays in the view while the files are read again).
pub fn caches_kept(old: &Config, new: &Config) -> bool {
    same(&old.rpki.cache, &new.rpki.cache) && same(&old.rpki.limits, &new.rpki.limits)
}

/// The configuration file at `path`, relative names in it taken from its folder
/// (as `hopsig speaker run` reads it).
///
/// # Errors
/// [`Refused::Invalid`]: the file cannot be read, or is not a valid configuration;
/// the message names the file.
pub fn load(path: &Path) -> Result<Config, Refused> {
    let at = |e: &dyn std::fmt::Display| Refused::Invalid(format!("{}: {e}", path.display()));
    let text = read_limited(path, MAX_CONFIG_LEN, "speaker configuration").map_err(|e| at(&e))?;
    let text = std::str::from_utf8(&text).map_err(|e| at(&e))?;
    let base = path.parent().unwrap_or(Path::new("."));
    Config::from_toml_str(text, base).map_err(|e| at(&e))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    //! Conformance of the diff: every field of each class, one row each, and the
    //! matching of neighbours.

    use super::*;

    /// A configuration: `top` (top-level keys, then tables), the four required
    /// keys where `top` leaves them out, then `neighbors`.
    fn cfg(top: &str, neighbors: &str) -> Config {
        let mut text = String::new();
        for (key, value) in [
            ("local_as", "65001"),
            ("router_id", "\"192.0.2.1\""),
            ("mode", "\"lazy\""),
            ("state_file", "\"s.json\""),
        ] {
            if !top.lines().any(|l| l.starts_with(&format!("{key} ="))) {
                text.push_str(&format!("{key} = {value}\n"));
            }
        }
        text.push_str(top);
        text.push('\n');
        text.push_str(neighbors);
        Config::from_toml_str(&text, Path::new("/etc/hopsig"))
            .unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    /// One neighbour 192.0.2.2 with `lines` (AS 65002 unless they say).
    fn nb(address: &str, lines: &str) -> String {
        let asn = if lines.contains("remote_as") {
            ""
        } else {
            "remote_as = 65002\n"
        };
        format!("[[neighbors]]\naddress = \"{address}\"\n{asn}{lines}\n")
    }

    /// Each neighbour field, the line it has before and after, and its class.
    const NEIGHBOR_ROWS: &[(&str, &str, &str)] = &[
        ("port", "", "port = 1179"),
        ("local_address", "", "local_address = \"192.0.2.1\""),
        ("remote_as", "remote_as = 65002", "remote_as = 65003"),
        ("passive", "", "passive = true"),
        ("bgpsec", "", "bgpsec = true"),
        ("suites", "", "suites = [\"1\"]"),
        (
            "families",
            "next_hop6 = \"2001:db8::1\"",
            "next_hop6 = \"2001:db8::1\"\nfamilies = [\"ipv4\", \"ipv6\"]",
        ),
        (
            "next_hop6",
            "families = [\"ipv4\", \"ipv6\"]\nnext_hop6 = \"2001:db8::1\"",
            "families = [\"ipv4\", \"ipv6\"]\nnext_hop6 = \"2001:db8::2\"",
        ),
        ("extended_messages", "", "extended_messages = false"),
        ("route_refresh", "", "route_refresh = false"),
        (
            "enhanced_route_refresh",
            "",
            "enhanced_route_refresh = false",
        ),
        ("graceful_restart", "", "graceful_restart = 120"),
        ("role", "", "role = \"customer\""),
        ("reject_rov_invalid", "", "reject_rov_invalid = true"),
        ("reject_aspa_invalid", "", "reject_aspa_invalid = true"),
        ("require_bgpsec_valid", "", "require_bgpsec_valid = true"),
        ("import", "", "import = [\"deny 10.0.0.0/8\"]"),
        ("export", "", "export = [\"permit 10.0.0.0/8 le 24\"]"),
        ("max_prefixes", "", "max_prefixes = 10"),
        (
            "max_prefixes_warning",
            "max_prefixes = 10",
            "max_prefixes = 10\nmax_prefixes_warning = 80",
        ),
        (
            "max_prefixes_restart",
            "max_prefixes = 10",
            "max_prefixes = 10\nmax_prefixes_restart = 60",
        ),
        ("local_pref", "", "local_pref = 200"),
        ("med", "", "med = 5"),
        ("add_communities", "", "add_communities = [\"65000:1\"]"),
    ];

    /// Every neighbour field, changed alone: a reset field resets that session (and
    /// is named), a policy field does not; either way the neighbour is neither
    /// added nor removed, and the other neighbour is kept.
    #[test]
    fn each_neighbour_field_resets_or_not_by_its_class() {
        let mut seen = vec![];
        for &(field, before, after) in NEIGHBOR_ROWS {
            let other = nb("192.0.2.7", "");
            let old = cfg("", &(nb("192.0.2.2", before) + &other));
            let new = cfg("", &(nb("192.0.2.2", after) + &other));
            let plan = plan(&old, &new).unwrap();
            assert!(plan.added.is_empty() && plan.removed.is_empty(), "{field}");
            assert_eq!(plan.kept, [(1, 1)], "{field}");
            let [c] = &plan.changed[..] else {
                panic!("{field}: {plan:?}")
            };
            assert_eq!((c.old, c.new), (0, 0), "{field}");
            if RESET_FIELDS.contains(&field) {
                assert_eq!(c.reset, [field], "{field}");
                assert!(c.policy.is_empty(), "{field}");
                assert_eq!(plan.resets().count(), 1, "{field}");
            } else {
                assert!(POLICY_FIELDS.contains(&field), "{field} is in no class");
                assert_eq!(c.policy, [field], "{field}");
                assert!(c.reset.is_empty(), "{field}");
                assert_eq!(plan.resets().count(), 0, "{field}");
            }
            seen.push(field);
        }
        // The table covers both classes whole.
        for f in RESET_FIELDS.iter().chain(POLICY_FIELDS) {
            assert!(seen.contains(f), "{f} has no row");
        }
    }

    /// Each top-level field that cannot change at run time refuses the reload,
    /// naming it; two name both.
    #[test]
    fn each_fixed_field_is_refused_by_name() {
        let rows: &[(&str, &str)] = &[
            ("local_as", "local_as = 65009"),
            ("router_id", "router_id = \"192.0.2.9\""),
            ("next_hop", "next_hop = \"192.0.2.8\""),
            ("listen", "listen = \"127.0.0.1:1179\""),
            ("mode", "mode = \"strict\""),
            ("hold_time", "hold_time = 30"),
            ("send_hold_time", "send_hold_time = 400"),
            ("connect_retry", "connect_retry = 1"),
            ("validation_threads", "validation_threads = 2"),
            ("state_file", "state_file = \"t.json\""),
            ("signature_cache", "signature_cache = 0"),
            ("next_hop6", "next_hop6 = \"2001:db8::1\""),
            (
                "router_keys",
                "[[router_keys]]\nsuite = \"1\"\nfile = \"k.pem\"",
            ),
            ("http", "[http]\nlisten = \"127.0.0.1:8080\""),
            ("status_max_bytes", "status_max_bytes = 4096"),
            (
                "mrt_dump",
                "[[mrt_dump]]\ndump_type = \"updates\"\nfile_name = \"u.mrt\"",
            ),
        ];
        let n = nb("192.0.2.2", "");
        let old = cfg("", &n);
        for &(field, line) in rows {
            let e = plan(&old, &cfg(line, &n)).unwrap_err();
            assert_eq!(e, Refused::Fixed(vec![field.into()]), "{field}");
            assert!(FIXED_FIELDS.contains(&field), "{field}");
            let text = e.to_string();
            assert!(
                text.starts_with(field) && text.contains("restart it"),
                "{text}"
            );
        }
        for f in FIXED_FIELDS {
            assert!(rows.iter().any(|r| r.0 == *f), "{f} has no row");
        }
        let e = plan(&old, &cfg("local_as = 65009\nlisten = \"127.0.0.1:1\"", &n)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "local_as, listen cannot change while the speaker runs (restart it to change them)"
        );
    }

    /// A top-level row: what, the line, the RPKI, originate and applied fields it
    /// changes, whether the caches are kept.
    type Row = (
        &'static str,
        &'static str,
        &'static [&'static str],
        &'static [&'static str],
        &'static [&'static str],
        bool,
    );

    /// RPKI sources, the prefixes originated and the status route cap are applied,
    /// each in its class; the caches keep running unless they or the limits change.
    #[test]
    fn rpki_originate_and_applied_fields() {
        let n = nb("192.0.2.2", "");
        let old = cfg("", &n);
        let rows: &[Row] = &[
            (
                "rpki_keys",
                "rpki_keys = \"keys.json\"",
                &["rpki_keys"],
                &[],
                &[],
                true,
            ),
            (
                "files",
                "[rpki]\nfiles = [\"roas.json\"]",
                &["rpki"],
                &[],
                &[],
                true,
            ),
            (
                "cache",
                "[[rpki.cache]]\naddress = \"127.0.0.1\"\nport = 3323",
                &["rpki"],
                &[],
                &[],
                false,
            ),
            (
                "limits",
                "[rpki.limits]\nvrps = 5",
                &["rpki"],
                &[],
                &[],
                false,
            ),
            (
                "originate",
                "originate = [\"10.0.0.0/8\"]",
                &[],
                &["originate"],
                &[],
                true,
            ),
            (
                "status_routes",
                "status_routes = 5",
                &[],
                &[],
                &["status_routes"],
                true,
            ),
        ];
        for &(what, line, rpki, originate, applied, kept) in rows {
            let new = cfg(line, &n);
            let plan = plan(&old, &new).unwrap();
            assert_eq!(plan.rpki, rpki, "{what}");
            assert_eq!(plan.originate, originate, "{what}");
            assert_eq!(plan.applied, applied, "{what}");
            assert_eq!(caches_kept(&old, &new), kept, "{what}");
            assert_eq!(plan.kept, [(0, 0)], "{what}");
            assert!(!plan.is_empty(), "{what}");
        }
        assert!(plan(&old, &old.clone()).unwrap().is_empty());
    }

    /// Neighbours are matched by address and port, then address, in order: added
    /// and removed ones by index, a port change is a change, several neighbours on
    /// one address (a lab on ::1) keep their pairs.
    #[test]
    fn neighbours_are_matched_by_address_and_port() {
        let a = nb("192.0.2.2", "");
        let b = nb("192.0.2.3", "");
        let c = nb("192.0.2.4", "");
        let plan1 = plan(&cfg("", &(a.clone() + &b)), &cfg("", &(c.clone() + &a))).unwrap();
        assert_eq!(plan1.added, [0]);
        assert_eq!(plan1.removed, [1]);
        assert_eq!(plan1.kept, [(0, 1)]);
        assert!(plan1.changed.is_empty());
        // Two on ::1, ports 2001 and 2002; the first's port moves to 2003, the
        // second's AS changes.
        let lab = |p1: u16, as2: u32| {
            cfg(
                "",
                &(nb("::1", &format!("port = {p1}"))
                    + &nb("::1", &format!("port = 2002\nremote_as = {as2}"))),
            )
        };
        let plan2 = plan(&lab(2001, 65002), &lab(2003, 65009)).unwrap();
        assert!(plan2.added.is_empty() && plan2.removed.is_empty());
        assert_eq!(plan2.changed.len(), 2);
        let by_old = |i: usize| plan2.changed.iter().find(|c| c.old == i).unwrap();
        assert_eq!((by_old(0).new, by_old(0).reset.clone()), (0, vec!["port"]));
        assert_eq!(
            (by_old(1).new, by_old(1).reset.clone()),
            (1, vec!["remote_as"])
        );
        // Everything removed, everything added.
        let plan3 = plan(&cfg("", &a), &cfg("", "")).unwrap();
        assert_eq!(
            (plan3.removed.clone(), plan3.added.clone()),
            (vec![0], vec![])
        );
        let plan4 = plan(&cfg("", ""), &cfg("", &(a + &b))).unwrap();
        assert_eq!(plan4.added, [0, 1]);
    }

    /// A file that is not a configuration is refused naming the file and the
    /// problem; a missing one too.
    #[test]
    fn bad_files_are_refused_with_the_reason() {
        let dir = std::env::temp_dir().join(format!("hopsig-reload-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bad = dir.join("bad.toml");
        std::fs::write(&bad, "local_as = \"x\"\n").unwrap();
        let e = load(&bad).unwrap_err();
        assert!(matches!(e, Refused::Invalid(_)));
        assert!(e.to_string().contains("bad.toml"), "{e}");
        let e = load(&dir.join("none.toml")).unwrap_err().to_string();
        assert!(e.contains("none.toml"), "{e}");
        let good = dir.join("good.toml");
        std::fs::write(
            &good,
            "local_as = 65001\nrouter_id = \"192.0.2.1\"\nmode = \"lazy\"\nstate_file = \"s.json\"\n",
        )
        .unwrap();
        assert_eq!(load(&good).unwrap().state_file, dir.join("s.json"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
