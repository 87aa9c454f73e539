//! `hopsig speaker` policy against real peers on loopback (issue 25 §4;
//! docs/spec/speaker.md, "Policy"): import and export prefix filters, the prefix
//! limit's NOTIFICATION (RFC 4486) as gobgpd receives it, LOCAL_PREF choosing
//! between gobgpd and BIRD, MULTI_EXIT_DISC received and set, communities added and
//! passed on (RFC 1997). Each test uses free ports and its own 127.0.x addresses,
//! waits at most [`WAIT`] for what it checks and kills what it started; it skips
//! when gobgpd or BIRD is missing and fails under CI=true.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::{Duration, Instant};

use common::speaker::*;
use common::Scratch;
use serde_json::Value;

/// BIRD 2 as a passive neighbour of hopsig: AS BIRD_AS at BIRD_ADDRESS, static
/// ROUTES, EXPORT the body of its export filter.
const BIRD: &str = "router id 192.0.2.4;
log \"LOG_PATH\" all;
protocol device { }
protocol static {
  ipv4;
  ROUTES
}
protocol bgp peer1 {
  local BIRD_ADDRESS port PORT as BIRD_AS;
  neighbor HOPSIG_ADDRESS as HOPSIG_AS;
  passive on;
  multihop;
  ipv4 { import all; export filter { EXPORT accept; }; };
}
";

fn have(test: &str, bird: bool) -> bool {
    common::have_with("gobgpd", "--version", test)
        && common::have_with("gobgp", "--version", test)
        && (!bird || common::have_with("bird", "--version", test))
}

/// BIRD as AS `asn` at `address`, port `port`, announcing `routes` (static
/// prefixes) through the export filter statements `export`, for hopsig AS65002 at
/// `hopsig`.
fn bird(
    s: &Scratch,
    address: &str,
    asn: u32,
    port: u16,
    hopsig: &str,
    routes: &[&str],
    export: &str,
) -> (Running, String) {
    let routes: String = routes
        .iter()
        .map(|p| format!("route {p} blackhole;\n  "))
        .collect();
    let template = BIRD
        .replace("ROUTES", &routes)
        .replace("EXPORT", export)
        .replace("BIRD_ADDRESS", address)
        .replace("BIRD_AS", &asn.to_string());
    start_bird(s, &template, port, hopsig, 65002)
}

/// hopsig AS65002 at `address` (status file hopsig.json), originating 10.2.0.0/16,
/// with active neighbours (address, port, AS, extra TOML lines).
fn hopsig(s: &Scratch, address: &str, neighbors: &[(&str, u16, u32, &str)]) -> Running {
    let mut t = "local_as = 65002\nrouter_id = \"192.0.2.2\"\nmode = \"lazy\"\n\
                 state_file = \"hopsig.json\"\nconnect_retry = 1\nhold_time = 9\n\
                 originate = [\"10.2.0.0/16\"]\n"
        .to_string();
    for (n, port, asn, extra) in neighbors {
        t += &format!(
            "[[neighbors]]\naddress = \"{n}\"\nport = {port}\nlocal_address = \"{address}\"\n\
             remote_as = {asn}\n{extra}\n"
        );
    }
    start(s, "hopsig", t)
}

/// The route of `prefix` from `neighbor` in hopsig's status.
fn route_from(s: &Scratch, neighbor: &str, prefix: &str) -> Option<Value> {
    let v = status(s, "hopsig")?;
    v["adj_rib_in"]
        .as_array()?
        .iter()
        .find(|r| r["prefix"] == prefix && r["neighbor"] == neighbor)
        .cloned()
}

/// The attribute of type `t` of gobgpd's first path in `paths`.
fn attr(paths: &Value, t: u64) -> Option<Value> {
    paths[0]["attrs"]
        .as_array()?
        .iter()
        .find(|a| a["type"] == t)
        .cloned()
}

/// Import filter: gobgpd's 192.0.2.0/24 and 10.80.1.128/25 are denied (kept,
/// `filtered`, not used, not forwarded to BIRD), 10.80.0.0/16 and 10.82.0.0/16 are
/// permitted. Export filter toward BIRD: 10.82.0.0/16 and hopsig's own
/// 10.2.0.0/16 denied, the rest sent.
#[test]
fn import_and_export_prefix_filters_with_gobgpd_and_bird() {
    if !have(
        "import_and_export_prefix_filters_with_gobgpd_and_bird",
        true,
    ) {
        return;
    }
    let s = Scratch::new();
    let (gp, api, bp) = (free_port(), free_port(), free_port());
    let _gobgpd = start_gobgpd(&s, "127.0.41.1", 65001, gp, api, &[("127.0.41.2", 65002)]);
    for p in [
        "10.80.0.0/16",
        "10.80.1.128/25",
        "10.82.0.0/16",
        "192.0.2.0/24",
    ] {
        let added = gobgp(api, &["global", "rib", "add", p, "origin", "igp"]);
        assert!(added.status.success(), "{}", common::text(&added));
    }
    let (_bird, ctl) = bird(&s, "127.0.41.4", 65004, bp, "127.0.41.2", &[], "");
    let _hopsig = hopsig(
        &s,
        "127.0.41.2",
        &[
            (
                "127.0.41.1",
                gp,
                65001,
                "import = [\"permit 10.80.0.0/16 le 24\", \"permit 10.82.0.0/16\"]",
            ),
            (
                "127.0.41.4",
                bp,
                65004,
                "export = [\"deny 10.82.0.0/16\", \"deny 10.2.0.0/16\", \"permit 0.0.0.0/0 le 32\"]",
            ),
        ],
    );
    let gobgpd = "127.0.41.1";
    for (p, filtered) in [
        ("10.80.0.0/16", false),
        ("10.82.0.0/16", false),
        ("10.80.1.128/25", true),
        ("192.0.2.0/24", true),
    ] {
        wait_for(&s, &format!("{p} from gobgpd, filtered {filtered}"), || {
            route_from(&s, gobgpd, p)
                .is_some_and(|r| r["filtered"] == filtered && r["installed"] == !filtered)
        });
    }
    let v = status(&s, "hopsig").unwrap();
    let session = session_of(&v, gobgpd);
    assert_eq!(session["accepted_prefixes"], 2, "{session}");
    assert_eq!(session["max_prefixes"], Value::Null);
    let mut out = String::new();
    wait_for(&s, "10.80.0.0/16 in BIRD", || {
        out = bird_routes(&ctl);
        bird_route(&out, "10.80.0.0/16").is_some()
    });
    // BIRD has had every UPDATE for gobgpd's routes (one each, before 10.80's).
    std::thread::sleep(Duration::from_secs(1));
    let out = bird_routes(&ctl);
    for p in [
        "10.80.1.128/25",
        "192.0.2.0/24",
        "10.82.0.0/16",
        "10.2.0.0/16",
    ] {
        assert!(bird_route(&out, p).is_none(), "{p} sent to BIRD:\n{out}");
    }
    // gobgpd, without an export filter, gets hopsig's own prefix.
    wait_for(&s, "10.2.0.0/16 in gobgpd", || {
        !gobgpd_adj_in(api, "127.0.41.2")["10.2.0.0/16"].is_null()
    });
}

/// RFC 4486: gobgpd announces 5 prefixes to a neighbour with `max_prefixes = 3`;
/// hopsig sends NOTIFICATION Cease / Maximum Number of Prefixes Reached (6/1, data
/// AFI 1, SAFI 1, limit 3), which gobgpd logs, drops gobgpd's routes, and without
/// `max_prefixes_restart` does not connect again.
#[test]
fn max_prefixes_cease_reaches_gobgpd_and_the_session_stays_down() {
    if !have(
        "max_prefixes_cease_reaches_gobgpd_and_the_session_stays_down",
        false,
    ) {
        return;
    }
    let s = Scratch::new();
    let (gp, api) = (free_port(), free_port());
    let _gobgpd = start_gobgpd(&s, "127.0.42.1", 65001, gp, api, &[("127.0.42.2", 65002)]);
    for i in 0..5 {
        let p = format!("10.90.{i}.0/24");
        let added = gobgp(api, &["global", "rib", "add", &p, "origin", "igp"]);
        assert!(added.status.success(), "{}", common::text(&added));
    }
    let _hopsig = hopsig(
        &s,
        "127.0.42.2",
        &[(
            "127.0.42.1",
            gp,
            65001,
            "max_prefixes = 3\nmax_prefixes_warning = 60",
        )],
    );
    let log = s.path("gobgpd-127.0.42.1.log");
    wait_for(&s, "gobgpd's log of the NOTIFICATION", || {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        text.contains("received notification")
    });
    let text = std::fs::read_to_string(&log).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains("received notification"))
        .unwrap();
    assert!(
        line.contains("Code=6") && line.contains("Subcode=1"),
        "not Cease / Maximum Number of Prefixes Reached: {line}"
    );
    wait_for(&s, "the session's end in hopsig's status", || {
        status(&s, "hopsig").is_some_and(|v| {
            let session = session_of(&v, "127.0.42.1");
            session["max_prefixes"] == 3
                && session["last_error"]
                    .as_str()
                    .is_some_and(|e| e.contains("Maximum Number of Prefixes Reached"))
        })
    });
    let hopsig_log = std::fs::read_to_string(s.path("hopsig.log")).unwrap();
    assert!(hopsig_log.contains("60% of max_prefixes 3"), "{hopsig_log}");
    // Stays down: with connect_retry 1, hopsig would connect again every second
    // (gobgpd closes connections for about 5 s after a reset, then takes them: a
    // second NOTIFICATION), so for 7 s neither happens.
    let gobgpd_log = || std::fs::read_to_string(&log).unwrap_or_default();
    let until = Instant::now() + Duration::from_secs(7);
    while Instant::now() < until {
        let v = status(&s, "hopsig").unwrap();
        let session = session_of(&v, "127.0.42.1");
        assert_ne!(session["state"], "Established", "{session}");
        assert_eq!(session["accepted_prefixes"], 0, "{session}");
        assert_eq!(v["adj_rib_in_count"], 0, "gobgpd's routes kept: {v}");
        std::thread::sleep(Duration::from_millis(250));
    }
    let text = gobgpd_log();
    assert_eq!(text.matches("received notification").count(), 1, "{text}");
    assert!(
        !text.contains("accepted connection"),
        "hopsig connected again:\n{text}"
    );
    let hopsig_log = std::fs::read_to_string(s.path("hopsig.log")).unwrap();
    assert_eq!(
        hopsig_log.matches("session closed").count(),
        1,
        "{hopsig_log}"
    );
    let o = gobgp(api, &["-j", "neighbor", "127.0.42.2"]);
    let n: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_ne!(
        n["state"]["session_state"], 6,
        "gobgpd still Established: {n}"
    );
}

/// With `max_prefixes_restart = 8` the session comes back after the hold-down (not
/// after ConnectRetry, 1 s, nor after gobgpd's own wait of about 5 s), and is ended
/// again by the same prefixes: gobgpd receives a second NOTIFICATION, about 8 s
/// after the first, and no connection from hopsig in between.
#[test]
fn max_prefixes_restart_brings_the_session_back() {
    if !have("max_prefixes_restart_brings_the_session_back", false) {
        return;
    }
    let s = Scratch::new();
    let (gp, api) = (free_port(), free_port());
    let _gobgpd = start_gobgpd(&s, "127.0.43.1", 65001, gp, api, &[("127.0.43.2", 65002)]);
    for i in 0..3 {
        let p = format!("10.91.{i}.0/24");
        assert!(gobgp(api, &["global", "rib", "add", &p]).status.success());
    }
    let _hopsig = hopsig(
        &s,
        "127.0.43.2",
        &[(
            "127.0.43.1",
            gp,
            65001,
            "max_prefixes = 2\nmax_prefixes_restart = 8",
        )],
    );
    let log = s.path("gobgpd-127.0.43.1.log");
    let notifications = || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .matches("received notification")
            .count()
    };
    wait_for(&s, "the first NOTIFICATION", || notifications() >= 1);
    let first = Instant::now();
    wait_for(&s, "a second NOTIFICATION", || notifications() >= 2);
    let gap = first.elapsed();
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        gap >= Duration::from_secs(7),
        "back after {gap:?}, before max_prefixes_restart:\n{text}"
    );
    assert!(
        !text.contains("accepted connection"),
        "hopsig connected during its hold-down:\n{text}"
    );
}

/// RFC 4271 §9.1.1: gobgpd (AS65001, neighbour 0) and BIRD (AS65004, neighbour 1)
/// announce 10.50.0.0/16 with paths of one AS; BIRD's `local_pref = 200` makes its
/// route the installed one, which gobgpd is sent (65002 65004). 10.51.0.0/16, from
/// both too, with a longer path from BIRD: LOCAL_PREF still comes first.
#[test]
fn local_pref_chooses_bird_over_gobgpd() {
    if !have("local_pref_chooses_bird_over_gobgpd", true) {
        return;
    }
    let s = Scratch::new();
    let (gp, api, bp) = (free_port(), free_port(), free_port());
    let _gobgpd = start_gobgpd(&s, "127.0.44.1", 65001, gp, api, &[("127.0.44.2", 65002)]);
    for p in ["10.50.0.0/16", "10.51.0.0/16"] {
        assert!(gobgp(api, &["global", "rib", "add", p]).status.success());
    }
    let (_bird, _ctl) = bird(
        &s,
        "127.0.44.4",
        65004,
        bp,
        "127.0.44.2",
        &["10.50.0.0/16", "10.51.0.0/16"],
        "if net = 10.51.0.0/16 then bgp_path.prepend(65004);",
    );
    let _hopsig = hopsig(
        &s,
        "127.0.44.2",
        &[
            ("127.0.44.1", gp, 65001, ""),
            ("127.0.44.4", bp, 65004, "local_pref = 200"),
        ],
    );
    for p in ["10.50.0.0/16", "10.51.0.0/16"] {
        wait_for(&s, &format!("{p}: BIRD's route installed"), || {
            route_from(&s, "127.0.44.4", p)
                .is_some_and(|r| r["installed"] == true && r["local_pref"] == 200)
                && route_from(&s, "127.0.44.1", p)
                    .is_some_and(|r| r["installed"] == false && r["local_pref"] == 100)
        });
    }
    let mut last = Value::Null;
    wait_for(&s, "BIRD's routes in gobgpd", || {
        last = gobgpd_adj_in(api, "127.0.44.2");
        let path = |p: &str| attr(&last[p], 2).map(|a| a["as_paths"][0]["asns"].clone());
        path("10.50.0.0/16") == Some(serde_json::json!([65002, 65004]))
            && path("10.51.0.0/16") == Some(serde_json::json!([65002, 65004, 65004]))
    });
}

/// RFC 4271 §9.1.2.2 c: gobgpd and BIRD, both AS65001 (two links to one AS), send
/// 10.60.0.0/16 with MED 50 (gobgpd) and 10 (BIRD): BIRD's wins; 10.61.0.0/16 with
/// MED 5 and 10: gobgpd's. hopsig's `med = 77` toward BIRD is what BIRD receives
/// (RFC 4271 §5.1.4), and gobgpd, with no `med`, gets none.
#[test]
fn med_decides_between_links_to_one_as_and_is_set_on_export() {
    if !have(
        "med_decides_between_links_to_one_as_and_is_set_on_export",
        true,
    ) {
        return;
    }
    let s = Scratch::new();
    let (gp, api, bp) = (free_port(), free_port(), free_port());
    let _gobgpd = start_gobgpd(&s, "127.0.45.1", 65001, gp, api, &[("127.0.45.2", 65002)]);
    for (p, med) in [("10.60.0.0/16", "50"), ("10.61.0.0/16", "5")] {
        let added = gobgp(api, &["global", "rib", "add", p, "med", med]);
        assert!(added.status.success(), "{}", common::text(&added));
    }
    let (_bird, ctl) = bird(
        &s,
        "127.0.45.4",
        65001,
        bp,
        "127.0.45.2",
        &["10.60.0.0/16", "10.61.0.0/16"],
        "bgp_med = 10;",
    );
    let _hopsig = hopsig(
        &s,
        "127.0.45.2",
        &[
            ("127.0.45.1", gp, 65001, ""),
            ("127.0.45.4", bp, 65001, "med = 77"),
        ],
    );
    let installed = |neighbor: &str, p: &str, med: u64| {
        route_from(&s, neighbor, p).is_some_and(|r| r["installed"] == true && r["med"] == med)
    };
    wait_for(&s, "10.60.0.0/16 from BIRD (MED 10 < 50)", || {
        installed("127.0.45.4", "10.60.0.0/16", 10)
            && route_from(&s, "127.0.45.1", "10.60.0.0/16").is_some_and(|r| r["med"] == 50)
    });
    wait_for(&s, "10.61.0.0/16 from gobgpd (MED 5 < 10)", || {
        installed("127.0.45.1", "10.61.0.0/16", 5)
            && route_from(&s, "127.0.45.4", "10.61.0.0/16").is_some_and(|r| r["med"] == 10)
    });
    let mut out = String::new();
    wait_for(&s, "hopsig's route in BIRD with MED 77", || {
        out = bird_routes(&ctl);
        bird_route(&out, "10.2.0.0/16").is_some_and(|b| b.contains("BGP.med: 77"))
    });
    let mut last = Value::Null;
    wait_for(&s, "hopsig's route in gobgpd without MED", || {
        last = gobgpd_adj_in(api, "127.0.45.2");
        !last["10.2.0.0/16"].is_null()
    });
    assert!(attr(&last["10.2.0.0/16"], 4).is_none(), "{last}");
}

/// RFC 1997 through hopsig: gobgpd's 10.70.0.0/16 with community 65001:70 reaches
/// BIRD with it and the 65002:1 hopsig adds on import from gobgpd; 10.71.0.0/16
/// with NO_EXPORT is used by hopsig but not sent to BIRD; BIRD's 10.72.0.0/16, to
/// which hopsig adds no-export on import, is not sent to gobgpd.
#[test]
fn communities_travel_from_gobgpd_through_hopsig_to_bird() {
    if !have(
        "communities_travel_from_gobgpd_through_hopsig_to_bird",
        true,
    ) {
        return;
    }
    let s = Scratch::new();
    let (gp, api, bp) = (free_port(), free_port(), free_port());
    let _gobgpd = start_gobgpd(&s, "127.0.46.1", 65001, gp, api, &[("127.0.46.2", 65002)]);
    for (p, c) in [("10.70.0.0/16", "65001:70"), ("10.71.0.0/16", "no-export")] {
        let added = gobgp(api, &["global", "rib", "add", p, "community", c]);
        assert!(added.status.success(), "{}", common::text(&added));
    }
    let (_bird, ctl) = bird(
        &s,
        "127.0.46.4",
        65004,
        bp,
        "127.0.46.2",
        &["10.72.0.0/16", "10.73.0.0/16"],
        "",
    );
    let _hopsig = hopsig(
        &s,
        "127.0.46.2",
        &[
            ("127.0.46.1", gp, 65001, "add_communities = [\"65002:1\"]"),
            (
                "127.0.46.4",
                bp,
                65004,
                "add_communities = [\"no-export\"]\nimport = [\"permit 10.72.0.0/16\"]",
            ),
        ],
    );
    let mut out = String::new();
    wait_for(&s, "10.70.0.0/16 in BIRD with both communities", || {
        out = bird_routes(&ctl);
        bird_route(&out, "10.70.0.0/16")
            .is_some_and(|b| b.contains("BGP.community: (65001,70) (65002,1)"))
    });
    wait_for(&s, "10.71.0.0/16 and 10.72.0.0/16 used by hopsig", || {
        route_from(&s, "127.0.46.1", "10.71.0.0/16").is_some_and(|r| r["installed"] == true)
            && route_from(&s, "127.0.46.4", "10.72.0.0/16").is_some_and(|r| r["installed"] == true)
            && route_from(&s, "127.0.46.4", "10.73.0.0/16").is_some_and(|r| r["filtered"] == true)
    });
    let mut last = Value::Null;
    wait_for(&s, "hopsig's own route in gobgpd", || {
        last = gobgpd_adj_in(api, "127.0.46.2");
        !last["10.2.0.0/16"].is_null()
    });
    std::thread::sleep(Duration::from_secs(1));
    let out = bird_routes(&ctl);
    assert!(
        bird_route(&out, "10.71.0.0/16").is_none(),
        "NO_EXPORT route sent to BIRD:\n{out}"
    );
    let last = gobgpd_adj_in(api, "127.0.46.2");
    assert!(
        last["10.72.0.0/16"].is_null() && last["10.73.0.0/16"].is_null(),
        "{last}"
    );
}

/// Bad policy values stop `hopsig speaker run` with exit status 2, naming the file
/// and what is wrong.
#[test]
fn bad_policy_configurations_are_exit_2_naming_the_file() {
    let s = Scratch::new();
    let base = "local_as = 1\nrouter_id = \"192.0.2.1\"\nmode = \"lazy\"\nstate_file = \"x\"\n\
                [[neighbors]]\naddress = \"127.0.0.9\"\nremote_as = 2\n";
    for (name, extra, needle) in [
        (
            "import.toml",
            "import = [\"permit 10.0.0.0/8 le 40\"]",
            "prefix rule",
        ),
        (
            "export.toml",
            "export = [\"allow 10.0.0.0/8\"]",
            "permit or deny",
        ),
        (
            "community.toml",
            "add_communities = [\"1:2:3\"]",
            "community '1:2:3'",
        ),
        (
            "max.toml",
            "max_prefixes = 0",
            "max_prefixes must be at least 1",
        ),
        (
            "warning.toml",
            "max_prefixes = 9\nmax_prefixes_warning = 0",
            "1 to 100",
        ),
    ] {
        let path = s.write(name, format!("{base}{extra}\n"));
        let o = s.run(&["speaker", "run", &path]);
        assert_eq!(common::code(&o), 2, "{name}: {}", common::text(&o));
        let err = common::stderr(&o);
        assert!(err.contains(needle) && err.contains(name), "{name}: {err}");
    }
}
