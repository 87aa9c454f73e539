//! `hopsig bgpsec keys PATH`: the router keys a validator would use, read from
//! rpki-client's JSON or a folder of router certificates and public keys
//! (`hopsig_bgp::router_key`); and the loader `validate-mrt --keys` shares.

use std::path::{Path, PathBuf};

use hopsig_bgp::router_key::{self, LoadReport, RouterKey};
use hopsig_bgp::suite;

use crate::io::{print_text, say, Failure, Outcome};

/// List the router keys of an rpki-client JSON file or a keys folder.
///
/// PATH is rpki-client's JSON output (`bgpsec_keys`: asn, ski, pubkey, expires) or a
/// folder of RFC 8209 router certificates (`*.cer` DER, `*.pem` / `*.crt` PEM) and
/// public keys (`AS<asn>.pem`). Certificates and entries not valid at the time given
/// (now by default) are counted and left out. docs/spec/bgpsec.md, "Router keys".
#[derive(clap::Args)]
pub struct Args {
    /// rpki-client JSON file, or keys folder.
    #[arg(value_name = "PATH")]
    path: PathBuf,
    /// Keep what is valid at this time, in Unix seconds [default: now].
    #[arg(long, value_name = "UNIX")]
    at: Option<i64>,
    /// Print the keys as rpki-client's JSON instead (a folder becomes a JSON file).
    #[arg(long)]
    json: bool,
}

/// Loads and prints.
pub fn run(args: Args) -> Outcome {
    let loaded = load(&args.path, args.at)?;
    let mut keys: Vec<&RouterKey> = loaded.keys.iter().collect();
    keys.sort_unstable_by(|a, b| (a.asn(), a.ski()).cmp(&(b.asn(), b.ski())));
    if args.json {
        let owned: Vec<RouterKey> = keys.into_iter().cloned().collect();
        return print_text(&router_key::to_rpki_json(&owned));
    }
    for k in keys {
        let suites: Vec<String> = k
            .suites()
            .map(|id| match suite::by_id(id) {
                Some(s) => format!("{id} ({})", s.name()),
                None => id.to_string(),
            })
            .collect();
        say(format_args!(
            "AS{} ski {} suites {}",
            k.asn(),
            hex::encode_upper(k.ski()),
            if suites.is_empty() {
                "none (no suite hopsig has accepts this key)".to_string()
            } else {
                suites.join(", ")
            }
        ))?;
    }
    say(summary(&args.path, &loaded))
}

/// One line on what `path` gave ([`LoadReport::summary`]).
pub(crate) fn summary(path: &Path, loaded: &LoadReport) -> String {
    loaded.summary(path)
}

/// The router keys of `path` valid at `at` (default now): rpki-client's JSON if it is
/// a file, a keys folder if it is a folder ([`router_key::load`]).
pub(crate) fn load(path: &Path, at_time: Option<i64>) -> Result<LoadReport, Failure> {
    router_key::load(path, at_time).map_err(|e| Failure::Input(e.to_string()))
}
