//! The benchmark suites (`hopsig bench SUITE`): measurements in one run on one machine,
//! each beside its floor. [`SUITES`] is the one list of them: the application takes its
//! suite names, their help and its "unknown suite" error from it.

// One file per suite, named for what it measures; the suite names (`table1`, ...) are
// the papers' table numbers, which `hopsig bench` keeps as its command-line names.
mod bgpsec; // bgpsec
pub mod bgpsec_batch; // bgpsec: suite 1's batch verification (issue 28)
mod kcmt_parameters; // fig4: KC-x Fig. 4
mod kcx_costs; // table3: KC-x Table III
mod koblitz_ecdsa; // table2: 003 Table II
pub mod ndn; // ndn: 004 Table 3
mod ndn_signing; // table5: 004 Table 5
pub mod pla; // pla
pub mod rpki; // rpki
pub mod rtr_sync; // rtr-sync
mod sequential_aggregates; // table1: BGR Table 1
pub mod speaker; // speaker

use std::path::{Path, PathBuf};

use serde::Serialize;

pub use bgpsec::Bgpsec;
pub use kcmt_parameters::Fig4;
pub use kcx_costs::Table3;
pub use koblitz_ecdsa::Table2;
pub use ndn_signing::Table5;
pub use sequential_aggregates::{notes as table1_notes, Row, Table1, SCHEMES as SCHEMES_FOR_PLOTS};

use crate::Error;

/// Length of hopsig's aggregate header, stripped to hand a standard signature to blst.
pub const HEADER_LEN: usize = hopsig_schemes::wire::HEADER_LEN;

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
            logical_cpus: hopsig_primitives::par::cores(),
            os: format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH),
            openssl: hopsig_schemes::backend_version().to_string(),
            unix_time: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        }
    }
}

/// How a suite runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// Fewer n values and shorter measurements (`--quick`).
    pub quick: bool,
    /// The data folder ([`crate::DEFAULT_DATA`] unless the caller names another).
    pub data: PathBuf,
}

impl Options {
    /// `rel` in the data folder, which must be there.
    ///
    /// # Errors
    /// [`Error::MissingData`] naming the path looked for.
    pub fn data_file(&self, rel: &str) -> Result<PathBuf, Error> {
        let path = self.data.join(rel);
        if path.is_file() {
            Ok(path)
        } else {
            Err(Error::MissingData { path })
        }
    }
}

/// A suite's results: the text table the application prints and the JSON it writes
/// with `--json` (`{"suite", "machine", "quick", ...}`: each suite's fields).
#[derive(Debug, Clone)]
pub struct Measured {
    /// The table, as text.
    pub text: String,
    /// The results, as pretty JSON.
    pub json: Vec<u8>,
}

impl Measured {
    /// The results `t`, rendered by `render`.
    ///
    /// # Errors
    /// A value serde cannot write (none of the suites' is).
    pub fn of<T: Serialize>(t: &T, render: fn(&T) -> String) -> Result<Measured, Error> {
        Ok(Measured {
            text: render(t),
            json: to_json(t)?,
        })
    }
}

/// One benchmark suite: a table entry (rustls' `ALL_CIPHER_SUITES`).
pub struct BenchSuite {
    /// As `hopsig bench` names it.
    pub name: &'static str,
    /// One line for `--help`.
    pub help: &'static str,
    /// Measures it: progress as `tracing` events, the results returned.
    pub run: fn(&Options) -> Result<Measured, Error>,
}

impl std::fmt::Debug for BenchSuite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BenchSuite")
            .field("name", &self.name)
            .finish()
    }
}

/// Every suite of this crate, in the order `hopsig bench --help` lists them.
pub static SUITES: &[BenchSuite] = &[
    BenchSuite {
        name: "table1",
        help: "BGR Table 1: aggregate size, sign and verify for n signers, beside raw RSA, ECDSA and blst",
        run: |o| Measured::of(&Table1::measure(o.quick)?, Table1::render),
    },
    BenchSuite {
        name: "table2",
        help: "PLA (003) Table II: Koblitz-curve and P-256 operations, implicit certificates",
        run: |o| Measured::of(&Table2::measure(o.quick)?, Table2::render),
    },
    BenchSuite {
        name: "table3",
        help: "KC-x Table III: S-BGP, KC-RSA, KC-MT per hop and per UPDATE (needs the data folder's RIS update file)",
        run: |o| Measured::of(&Table3::measure(o)?, Table3::render),
    },
    BenchSuite {
        name: "table5",
        help: "NDN (004) Table 5: publisher, moderator and subscriber cost per scheme, IBAS beside its pairing floor",
        run: |o| Measured::of(&Table5::measure(o.quick)?, Table5::render),
    },
    BenchSuite {
        name: "fig4",
        help: "KC-x Fig. 4: KC-MT signing, verification, size and Σ over (n, m)",
        run: |o| Measured::of(&Fig4::measure(o.quick)?, Fig4::render),
    },
    BenchSuite {
        name: "bgpsec",
        help: "BGPsec validation per suite beside its floor, sizes, validate-mrt scaling (needs the data folder's RIS update file)",
        run: |o| Measured::of(&Bgpsec::measure(o)?, Bgpsec::render),
    },
    BenchSuite {
        name: "speaker",
        help:
            "BGP speaker: the RIB task and validation pool: throughput, time-to-forward, session reset",
        run: |o| {
            Measured::of(
                &speaker::SpeakerBench::measure(o.quick)?,
                speaker::SpeakerBench::render,
            )
        },
    },
    BenchSuite {
        name: "ndn",
        help: "NDN (004) Table 3: packet sizes; relay RTT and throughput through ndnd when found",
        run: |o| Measured::of(&ndn::NdnBench::measure(o.quick)?, ndn::NdnBench::render),
    },
    BenchSuite {
        name: "rpki",
        help: "ROV and ASPA verdicts per route on 800 k VRPs and 10 k ASPAs, beside one hash-map probe",
        run: |o| Measured::of(&rpki::RpkiBench::measure(o.quick)?, rpki::RpkiBench::render),
    },
    BenchSuite {
        name: "pla",
        help: "PLA on IPv6 packets: router checks per second, pipeline scaling, random headers",
        run: |o| Measured::of(&pla::PlaBench::measure(o.quick)?, pla::PlaBench::render),
    },
    BenchSuite {
        name: "rtr-sync",
        help: "RTR initial sync of 500 k VRPs, 1 k router keys, 10 k ASPAs from StayRTR and hopsig rtr serve: hopsig beside rtrclient, time and peak memory",
        run: |o| {
            Measured::of(
                &rtr_sync::RtrSyncBench::measure(o.quick)?,
                rtr_sync::RtrSyncBench::render,
            )
        },
    },
];

/// The suite `name` of [`SUITES`].
///
/// # Errors
/// [`Error::Unknown`] listing every name of [`SUITES`].
pub fn find(name: &str) -> Result<&'static BenchSuite, Error> {
    SUITES
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| Error::Unknown {
            what: "suite",
            name: name.to_string(),
            place: "",
            available: SUITES.iter().map(|s| s.name).collect::<Vec<_>>().join(", "),
        })
}

/// `value` as pretty JSON.
///
/// # Errors
/// A value serde cannot write.
pub fn to_json<T: Serialize>(value: &T) -> Result<Vec<u8>, Error> {
    serde_json::to_vec_pretty(value).map_err(|e| Error::Input(format!("JSON: {e}")))
}

/// A path's display form, for the results that name their data file.
pub(crate) fn shown(path: &Path) -> String {
    path.display().to_string()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// One entry per name, each with help; `find` takes every name and refuses any
    /// other with the whole list, in table order.
    #[test]
    fn the_table_names_each_suite_once_and_lists_them_when_one_is_unknown() {
        let mut names: Vec<&str> = SUITES.iter().map(|s| s.name).collect();
        for s in SUITES {
            assert_eq!(find(s.name).unwrap().name, s.name);
            assert!(!s.help.is_empty(), "{}", s.name);
        }
        let e = find("table4").unwrap_err().to_string();
        assert_eq!(
            e,
            format!("unknown suite 'table4' (available: {})", names.join(", "))
        );
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), SUITES.len());
    }

    /// The suites that read the data folder fail at once, naming the file, when it is
    /// not there (nothing is measured first); the reproduction likewise.
    #[test]
    fn a_missing_data_file_is_an_error_naming_it_before_anything_is_measured() {
        let empty = tempfile::tempdir().unwrap();
        let o = Options {
            quick: true,
            data: empty.path().to_path_buf(),
        };
        for name in ["table3", "bgpsec"] {
            let e = (find(name).unwrap().run)(&o).unwrap_err();
            assert!(
                matches!(&e, Error::MissingData { path } if path.ends_with(crate::UPDATES_FILE)),
                "{e:?}"
            );
            assert!(
                e.to_string().contains("ris-updates.20160811.1600.gz"),
                "{e}"
            );
        }
        let e = crate::reproduce::Reproduction::measure(&o).unwrap_err();
        assert!(matches!(&e, Error::MissingData { .. }), "{e:?}");
        // With the file there, the path is handed back.
        std::fs::create_dir(empty.path().join("mrt")).unwrap();
        std::fs::write(empty.path().join(crate::UPDATES_FILE), b"").unwrap();
        assert_eq!(
            o.data_file(crate::UPDATES_FILE).unwrap(),
            empty.path().join(crate::UPDATES_FILE)
        );
        assert!(matches!(
            o.data_file(crate::RIB_FILE),
            Err(Error::MissingData { .. })
        ));
    }
}
