//! `hopsig rtr dump HOST:PORT` and `hopsig rtr serve --source FILE… --listen ADDR`:
//! an RPKI-to-Router diagnostic client and a small RTR cache
//! (`hopsig_bgp::rpki::rtr`; docs/spec/rpki.md, "RTR client" and "RTR cache").

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use hopsig_bgp::rpki::payload::{Limits, PayloadSet};
use hopsig_bgp::rpki::rtr::{self, Dump, ServeConfig, Timing};
use hopsig_bgp::rpki::source;
use hopsig_bgp::rpki::view;

use crate::io::{print_text, say_json, Failure, Outcome};

/// Exit codes of `hopsig rtr`, for `--help`.
const EXIT_CODES: &str = "Exit codes: 0 success; 2 bad usage, an unreadable source, or a \
connection or protocol error (the message names the PDU and the RFC 8210 §12 error code).";

/// RPKI-to-Router (RFC 6810, RFC 8210, draft-ietf-sidrops-8210bis): ask a cache what it
/// serves, or serve files as a cache.
#[derive(clap::Args)]
#[command(after_help = EXIT_CODES)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Connect to the cache at HOST:PORT, send one Reset Query and print what it serves
    /// up to End of Data: counts, every router key (ASN, SKI, key algorithm), VRPs and
    /// ASPAs. Protocol errors name the PDU and the error code.
    #[command(after_help = EXIT_CODES)]
    Dump {
        /// The cache, HOST:PORT ([IPv6]:PORT).
        cache: String,
        /// Query with this version (0, 1 or 2) and do not downgrade on an Unsupported
        /// Protocol Version report; by default start at 2 and downgrade as the cache
        /// asks (RFC 8210 §7). The first line shows the version the cache answered with.
        #[arg(long, value_parser = clap::value_parser!(u8).range(0..=2))]
        version: Option<u8>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Print only the first two lines (session, timers, time to End of Data;
        /// counts).
        #[arg(long, conflicts_with = "json")]
        summary: bool,
        /// Give up after this many seconds.
        #[arg(long, default_value_t = 30.0)]
        timeout: f64,
    },
    /// Serve RPKI files as an RTR cache (versions 0-2): rpki-client JSON (roas,
    /// bgpsec_keys, aspas), Routinator jsonext (routerKeys), hopsig key folders, SLURM
    /// (RFC 8416, applied to the others). The sources are re-read when one changes:
    /// each change is a new serial, announced to the routers with a Serial Notify.
    #[command(after_help = EXIT_CODES)]
    Serve {
        /// A source file or key folder (several may be given).
        #[arg(long, required = true, num_args = 1..)]
        source: Vec<PathBuf>,
        /// Address to listen on, e.g. 127.0.0.1:3323.
        #[arg(long)]
        listen: SocketAddr,
        /// Refresh Interval sent in End of Data, seconds (RFC 8210 §6: 1-86400).
        #[arg(long, default_value_t = 3600, value_parser = clap::value_parser!(u32).range(1..=86400))]
        refresh: u32,
        /// Retry Interval sent in End of Data, seconds (1-7200).
        #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u32).range(1..=7200))]
        retry: u32,
        /// Expire Interval sent in End of Data, seconds (600-172800).
        #[arg(long, default_value_t = 7200, value_parser = clap::value_parser!(u32).range(600..=172800))]
        expire: u32,
        /// The highest version served (0, 1 or 2); routers asking a higher one get
        /// Unsupported Protocol Version and downgrade (RFC 8210 §7).
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(0..=2))]
        max_version: u8,
        /// How often to look whether a source changed, seconds.
        #[arg(long, default_value_t = 1.0)]
        poll: f64,
    },
}

impl Args {
    /// Whether the subcommand runs until stopped (`serve`).
    pub fn long_running(&self) -> bool {
        matches!(self.command, Command::Serve { .. })
    }
}

/// Runs the subcommand.
pub fn run(args: Args) -> Outcome {
    match args.command {
        Command::Dump {
            cache,
            version,
            json,
            summary,
            timeout,
        } => {
            let (host, port) = host_port(&cache).map_err(Failure::Input)?;
            let timeout = seconds(timeout, "--timeout")?;
            let dump = runtime()?
                .block_on(rtr::dump(&host, port, version, Limits::default(), timeout))
                .map_err(|e| Failure::Input(format!("{cache}: {e}")))?;
            if json {
                say_json(&dump_json(&dump))
            } else {
                print_text(&dump_text(&cache, &dump, summary))
            }
        }
        Command::Serve {
            source,
            listen,
            refresh,
            retry,
            expire,
            max_version,
            poll,
        } => {
            let poll = seconds(poll, "--poll")?;
            let config = ServeConfig {
                timing: Timing {
                    refresh,
                    retry,
                    expire,
                },
                max_version,
                ..ServeConfig::default()
            };
            runtime()?.block_on(serve(source, listen, config, poll))
        }
    }
}

/// A positive, finite number of seconds.
fn seconds(s: f64, flag: &str) -> Result<Duration, Failure> {
    if s.is_finite() && s > 0.0 && s < 1e9 {
        Ok(Duration::from_secs_f64(s))
    } else {
        Err(Failure::Input(format!(
            "{flag} {s}: must be positive seconds"
        )))
    }
}

/// A runtime for the RTR client and cache (`validate-mrt --rtr` uses it too).
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Failure::Input(format!("cannot start the runtime: {e}")))
}

/// HOST:PORT or [IPv6]:PORT (`rtr dump`, `validate-mrt --rtr`, `replay --rtr`).
pub(crate) fn host_port(s: &str) -> Result<(String, u16), String> {
    hopsig_bgp::rpki::load::host_port(s).map_err(|e| e.to_string())
}

/// The key algorithm of a router key's SubjectPublicKeyInfo (RFC 8608 §3.1: ECDSA
/// P-256 is algorithm suite 1, the only one defined).
fn key_algorithm(spki: &[u8]) -> &'static str {
    const EC_PUBLIC_KEY: &[u8] = &[0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
    const P256: &[u8] = &[0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
    let has = |oid: &[u8]| spki.windows(oid.len()).any(|w| w == oid);
    match (has(EC_PUBLIC_KEY), has(P256)) {
        (true, true) => "ecdsa-p256",
        (true, false) => "ecdsa-other-curve",
        _ => "unknown",
    }
}

/// The payload, sorted: VRPs (prefix-maxlen, AS), router keys (AS, SKI hex, SPKI
/// hex), ASPAs (customer, providers).
struct Sorted(
    Vec<(String, u32)>,
    Vec<(u32, String, String)>,
    Vec<(u32, Vec<u32>)>,
);

/// The payload as sorted lines.
fn sorted(p: &PayloadSet) -> Sorted {
    let mut vrps: Vec<_> = p
        .origins()
        .map(|o| (o.prefix.to_string(), o.asn.into_u32()))
        .collect();
    vrps.sort();
    let mut keys: Vec<_> = p
        .router_keys()
        .map(|k| {
            (
                k.asn.into_u32(),
                hex::encode_upper(k.key_identifier.as_slice()),
                hex::encode(k.key_info.as_slice()),
            )
        })
        .collect();
    keys.sort();
    let mut aspas: Vec<_> = p
        .aspas()
        .map(|a| {
            (
                a.customer.into_u32(),
                a.providers.iter().map(|p| p.into_u32()).collect::<Vec<_>>(),
            )
        })
        .collect();
    aspas.sort();
    Sorted(vrps, keys, aspas)
}

fn dump_text(cache: &str, d: &Dump, summary: bool) -> String {
    let mut out = String::new();
    let timing = match d.timing {
        Some(t) => format!(
            " refresh {} retry {} expire {}",
            t.refresh, t.retry, t.expire
        ),
        None => String::new(),
    };
    let _ = writeln!(
        out,
        "cache {cache} version {} session {} serial {}{timing} ({:.3} s)",
        d.version,
        d.session_id,
        d.serial,
        d.elapsed.as_secs_f64()
    );
    let (v, k, a) = d.payload.counts();
    let _ = writeln!(out, "{v} VRPs, {k} router keys, {a} ASPAs");
    if summary {
        return out;
    }
    let Sorted(vrps, keys, aspas) = sorted(&d.payload);
    for (asn, ski, spki) in &keys {
        let der = hex::decode(spki).unwrap_or_default();
        let _ = writeln!(
            out,
            "router-key AS{asn} SKI {ski} {} ({} bytes)",
            key_algorithm(&der),
            der.len()
        );
    }
    for (prefix, asn) in &vrps {
        let _ = writeln!(out, "vrp {prefix} AS{asn}");
    }
    for (customer, providers) in &aspas {
        let list: Vec<String> = providers.iter().map(|p| format!("AS{p}")).collect();
        let _ = writeln!(out, "aspa AS{customer} providers {}", list.join(","));
    }
    out
}

fn dump_json(d: &Dump) -> serde_json::Value {
    let Sorted(vrps, keys, aspas) = sorted(&d.payload);
    serde_json::json!({
        "version": d.version,
        "session_id": d.session_id,
        "serial": d.serial,
        "timing": d.timing.map(|t| serde_json::json!({
            "refresh": t.refresh, "retry": t.retry, "expire": t.expire
        })),
        "seconds": d.elapsed.as_secs_f64(),
        "counts": {"vrps": vrps.len(), "router_keys": keys.len(), "aspas": aspas.len()},
        "router_keys": keys.iter().map(|(asn, ski, spki)| {
            let der = hex::decode(spki).unwrap_or_default();
            serde_json::json!({"asn": asn, "ski": ski, "algorithm": key_algorithm(&der), "spki": spki})
        }).collect::<Vec<_>>(),
        "vrps": vrps.iter().map(|(prefix, asn)| serde_json::json!({"prefix": prefix, "asn": asn})).collect::<Vec<_>>(),
        "aspas": aspas.iter().map(|(c, p)| serde_json::json!({"customer": c, "providers": p})).collect::<Vec<_>>(),
    })
}

/// The sources merged, SLURM applied (`hopsig_bgp::rpki::source::load_all` and
/// `view::merge`; docs/spec/rpki.md, "Sources" and "Merge rules").
fn load(paths: &[PathBuf]) -> Result<PayloadSet, Failure> {
    let limits = Limits::default();
    let files = source::load_all(paths, hopsig_bgp::router_key::unix_now(), &limits)
        .map_err(|e| Failure::Input(e.to_string()))?;
    for line in &files.report {
        tracing::info!("hopsig rtr serve: {line}");
    }
    view::merge(&files.payload, &PayloadSet::new(), &files.slurm, &limits)
        .map_err(|e| Failure::Input(format!("the sources together: {e}")))
}

fn mtimes(paths: &[PathBuf]) -> Vec<Option<SystemTime>> {
    paths
        .iter()
        .map(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
        .collect()
}

async fn serve(
    paths: Vec<PathBuf>,
    listen: SocketAddr,
    config: ServeConfig,
    poll: Duration,
) -> Outcome {
    let mut seen = mtimes(&paths);
    let first = load(&paths)?;
    let (v, k, a) = first.counts();
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|e| Failure::Input(format!("cannot listen on {listen}: {e}")))?;
    tracing::info!("hopsig rtr serve: listening on {listen}: {v} VRPs, {k} router keys, {a} ASPAs");
    let (tx, rx) = tokio::sync::watch::channel(Arc::new(first));
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(poll).await;
            let now = mtimes(&paths);
            if now == seen {
                continue;
            }
            seen = now;
            match load(&paths) {
                Ok(set) => {
                    tx.send_replace(Arc::new(set));
                }
                Err(Failure::Input(e) | Failure::Invalid(e)) => {
                    tracing::warn!("hopsig rtr serve: keeping the previous data: {e}")
                }
            }
        }
    });
    rtr::serve(listener, rx, config)
        .await
        .map_err(|e| Failure::Input(format!("RTR cache on {listen}: {e}")))
}
