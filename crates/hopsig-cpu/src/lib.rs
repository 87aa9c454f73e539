//! The one place where hopsig detects processor features (issue 28: "selected at run
//! time by CPU-feature detection in the one place where hopsig detects features").
//!
//! Every vector backend of hopsig asks this crate, never `is_x86_feature_detected!`
//! itself, so the answer, its caching and its override are the same everywhere:
//!
//! * [`Feature::Pclmulqdq`]: carry-less multiplication, hopsig-koblitz's binary fields.
//! * [`Feature::Avx512Ifma`]: AVX-512F with the 52-bit integer multiply-accumulate
//!   (IFMA), hopsig-p256's eight-lane P-256 verification.
//!
//! The environment variable `HOPSIG_CPU_DISABLE` (a comma-separated list of
//! [`Feature::name`]s, or `all`) makes a present feature read as absent, so the portable
//! fallback can be tested and benchmarked on a machine that has the instructions. It is
//! read once, on the first question, like the detection itself.

use std::sync::OnceLock;

/// A processor feature some hopsig backend uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Feature {
    /// PCLMULQDQ (carry-less multiplication of 64-bit words).
    Pclmulqdq,
    /// AVX-512 Foundation and AVX-512 IFMA (`vpmadd52luq` / `vpmadd52huq`).
    Avx512Ifma,
}

impl Feature {
    /// Every feature, in a fixed order.
    pub const ALL: [Feature; 2] = [Feature::Pclmulqdq, Feature::Avx512Ifma];

    /// The feature's name, as in `/proc/cpuinfo` and `HOPSIG_CPU_DISABLE`.
    pub fn name(self) -> &'static str {
        match self {
            Feature::Pclmulqdq => "pclmulqdq",
            Feature::Avx512Ifma => "avx512ifma",
        }
    }

    fn bit(self) -> u8 {
        match self {
            Feature::Pclmulqdq => 1,
            Feature::Avx512Ifma => 2,
        }
    }

    /// Whether the processor has the instructions (ignoring `HOPSIG_CPU_DISABLE`).
    fn detected(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            match self {
                Feature::Pclmulqdq => std::arch::is_x86_feature_detected!("pclmulqdq"),
                Feature::Avx512Ifma => {
                    std::arch::is_x86_feature_detected!("avx512f")
                        && std::arch::is_x86_feature_detected!("avx512ifma")
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = self;
            false
        }
    }
}

/// The features present and not disabled, as a bit set; computed once.
fn enabled() -> u8 {
    static ENABLED: OnceLock<u8> = OnceLock::new();
    *ENABLED.get_or_init(|| {
        let disabled = std::env::var("HOPSIG_CPU_DISABLE").unwrap_or_default();
        Feature::ALL
            .iter()
            .filter(|f| f.detected() && !disabled_by(&disabled, **f))
            .fold(0, |set, f| set | f.bit())
    })
}

/// Whether the `HOPSIG_CPU_DISABLE` value `list` names `feature` (or says `all`).
fn disabled_by(list: &str, feature: Feature) -> bool {
    list.split(',')
        .map(str::trim)
        .any(|name| name.eq_ignore_ascii_case(feature.name()) || name.eq_ignore_ascii_case("all"))
}

/// Whether hopsig may use `feature`: the processor has it and `HOPSIG_CPU_DISABLE` does
/// not turn it off. The first call detects and caches; later calls are one load.
pub fn has(feature: Feature) -> bool {
    enabled() & feature.bit() != 0
}

/// Whether the processor has `feature`, whatever `HOPSIG_CPU_DISABLE` says (for
/// reports: "the machine has IFMA, the run disabled it").
pub fn detected(feature: Feature) -> bool {
    feature.detected()
}

/// Whether a test run must find `feature` in use: under `CI=true`, on a processor that
/// has it, unless `HOPSIG_CPU_DISABLE` turns it off. A test of a vector backend that
/// finds the backend unavailable skips where this is false and fails where it is true,
/// so a detection bug cannot pass CI as a silent skip.
pub fn ci_expects(feature: Feature) -> bool {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let disabled = std::env::var("HOPSIG_CPU_DISABLE").is_ok_and(|v| disabled_by(&v, feature));
    ci && detected(feature) && !disabled
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_override_names_features_or_all() {
        assert!(disabled_by("avx512ifma", Feature::Avx512Ifma));
        assert!(!disabled_by("avx512ifma", Feature::Pclmulqdq));
        assert!(disabled_by(" pclmulqdq , avx512ifma", Feature::Pclmulqdq));
        assert!(disabled_by("ALL", Feature::Avx512Ifma));
        assert!(!disabled_by("", Feature::Avx512Ifma));
        assert!(!disabled_by("avx512", Feature::Avx512Ifma));
    }

    #[test]
    fn an_enabled_feature_is_a_detected_one() {
        for f in Feature::ALL {
            assert!(
                !has(f) || detected(f),
                "{} enabled but not detected",
                f.name()
            );
        }
    }

    #[test]
    fn detection_agrees_with_cpuinfo() {
        // On Linux the kernel's flags line is an independent reading of CPUID.
        let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") else {
            return;
        };
        let Some(flags) = info.lines().find(|l| l.starts_with("flags")) else {
            return;
        };
        let has_flag = |name: &str| flags.split_whitespace().any(|f| f == name);
        assert_eq!(detected(Feature::Pclmulqdq), has_flag("pclmulqdq"));
        assert_eq!(
            detected(Feature::Avx512Ifma),
            has_flag("avx512f") && has_flag("avx512ifma")
        );
    }
}
