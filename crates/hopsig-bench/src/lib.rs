//! hopsig's engines (ARCHITECTURE.md, "engines"): what measures and simulates, below the
//! `hopsig` binary that parses arguments, prints and writes files.
//!
//! * [`suites`] — the benchmark suites (`hopsig bench SUITE`) as one table,
//!   [`suites::SUITES`]: each entry's name, help line and run function. Every
//!   measurement is taken in one run on one machine, beside the floor it is built on.
//! * [`timer`] — sampling an operation and its floor in turn, so ratios hold on a noisy
//!   machine.
//! * [`replay`] — KC-x Tables IV–VI and Fig. 5 (../shared/papers/001 §V-A-3, §V-B):
//!   one peer of a real MRT trace validated and signed for real per scheme, the
//!   measured times queued at the trace's arrival times.
//! * [`reproduce`] — every paper table beside the measured one: the text, the markdown
//!   report and its SVG plots, returned as strings for the application to print and
//!   write.
//! * [`table`] — the one renderer of the text tables.
//!
//! Nothing here prints: progress and notes are `tracing` events (`info`), failures an
//! [`Error`]. Data files are found under a folder the caller names
//! ([`suites::Options::data`], default [`DEFAULT_DATA`]), never through the source tree.

mod error;
pub mod replay;
pub mod reproduce;
pub mod suites;
pub mod table;
pub mod timer;

pub use error::Error;
pub use suites::{BenchSuite, Machine, Measured, Options, SUITES};

/// The data folder used when none is named: `../shared/data` relative to the working
/// directory (the project's data beside the repository, where CI and the README's
/// commands run from).
pub const DEFAULT_DATA: &str = "../shared/data";

/// The MRT folder's RIPE RIS update file whose paths are "today's" (KC-x Table III's
/// mean path length, validate-mrt's scaling, the replay's normal and busy workloads),
/// relative to the data folder.
pub const UPDATES_FILE: &str = "mrt/ris-updates.20160811.1600.gz";
/// The RIB dump of the replay's session reset and of Table VI, relative to the data
/// folder.
pub const RIB_FILE: &str = "mrt/ris-bview.20020722.2337.gz";

/// `rel` in the project's data folder, found from this crate's source (tests only:
/// shipped code takes the data folder as an argument).
#[cfg(test)]
pub(crate) fn test_data(rel: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(DEFAULT_DATA)
        .join(rel)
}
