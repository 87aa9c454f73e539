//! `hopsig bench SUITE`: measurements in one run on one machine, each beside its floor.

mod bgpsec;
mod fig4;
pub mod ndn;
pub mod pla;
mod speaker;
mod table1;
mod table2;
mod table3;
mod table5;
pub mod timer;

/// Length of hopsig's aggregate header, stripped to hand a standard signature to blst.
pub const HEADER_LEN: usize = hopsig_schemes::wire::HEADER_LEN;

use std::path::Path;

use serde::Serialize;

pub use fig4::Fig4;
pub use table1::{notes as table1_notes, Row, Table1, SCHEMES as SCHEMES_FOR_PLOTS};
pub use table2::Table2;
pub use table3::{data_path, Table3};
pub use table5::Table5;

use crate::io::{note, outputs, print_text, Failure, Outcome, Outputs, Secrecy};

/// The machine a run was measured on.
#[derive(Debug, Clone, Serialize)]
pub struct Machine {
    /// CPU model from /proc/cpuinfo, or "unknown".
    pub cpu: String,
    /// Logical CPUs available.
    pub logical_cpus: usize,
    /// OS and architecture.
    pub os: String,
    /// Cryptographic backend.
    pub openssl: String,
    /// Unix time of the run.
    pub unix_time: u64,
}

impl Machine {
    /// Describes this machine.
    pub fn detect() -> Machine {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_else(|| "unknown".into());
        Machine {
            cpu,
            logical_cpus: std::thread::available_parallelism().map_or(1, usize::from),
            os: format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH),
            openssl: hopsig_schemes::backend_version().to_string(),
            unix_time: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        }
    }
}

/// A failure while preparing a benchmark (key generation, fixtures).
pub(crate) fn setup_failed(e: hopsig_schemes::Error) -> Failure {
    Failure::Input(format!("benchmark setup failed: {e}"))
}

/// `value` as pretty JSON.
pub fn to_json<T: Serialize>(value: &T) -> Result<Vec<u8>, Failure> {
    serde_json::to_vec_pretty(value).map_err(|e| Failure::Input(format!("JSON: {e}")))
}

/// `hopsig bench SUITE [--quick] [--json FILE [--force]]`. The JSON file is checked
/// (not in the way, its folder writable) before anything is measured.
pub fn run_suite(suite: &str, quick: bool, json: Option<&Path>, force: bool) -> Outcome {
    let files = outputs(force, []);
    if let Some(path) = json {
        files.check(path)?;
    }
    let to = json.map(|path| (path, files));
    match suite {
        "table1" => report(&Table1::measure(quick)?, Table1::render, to),
        "table2" => report(&Table2::measure(quick)?, Table2::render, to),
        "table3" => report(&Table3::measure(quick)?, Table3::render, to),
        "table5" => report(&Table5::measure(quick)?, Table5::render, to),
        "fig4" => report(&Fig4::measure(quick)?, Fig4::render, to),
        "bgpsec" => report(&bgpsec::Bgpsec::measure(quick)?, bgpsec::Bgpsec::render, to),
        "ndn" => report(&ndn::NdnBench::measure(quick)?, ndn::NdnBench::render, to),
        "pla" => report(&pla::PlaBench::measure(quick)?, pla::PlaBench::render, to),
        "speaker" => report(
            &speaker::SpeakerBench::measure(quick)?,
            speaker::SpeakerBench::render,
            to,
        ),
        other => Err(Failure::Input(format!(
            "unknown suite '{other}' (available: table1, table2, table3, table5, fig4, bgpsec, speaker, ndn, pla)"
        ))),
    }
}

/// Prints a measured suite and writes it as JSON when asked.
fn report<T: Serialize>(
    t: &T,
    render: fn(&T) -> String,
    json: Option<(&Path, Outputs)>,
) -> Outcome {
    print_text(&render(t))?;
    if let Some((path, mut files)) = json {
        files.add(path, &to_json(t)?, Secrecy::Public)?;
        files.commit()?;
        note(format_args!("wrote {}", path.display()));
    }
    Ok(())
}
