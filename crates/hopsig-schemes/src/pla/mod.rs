//! Packet Level Authentication building blocks (Brumley, ../shared/papers/003):
//! implicit certificates with ECDSA on Koblitz curves ([`icnr`]) and the per-packet
//! header with its per-hop check ([`header`]).

pub mod icnr;

/// The Koblitz curve types, re-exported for callers of [`icnr`].
pub mod koblitz {
    pub use hopsig_koblitz::curve::{Affine, Curve, K163, K233, K283};
    pub use hopsig_koblitz::tau::{TauTable, FIXED_WIDTH, POINT_WIDTH};
}
pub mod files;
pub mod header;

/// Calls the generic function `f` on the types of a [`header::PlaCurve`] chosen at run
/// time: the Koblitz curve `C` and, where `f` takes it, its ECDSA scheme `B`
/// (`ecdsa-k163` … `ecdsa-k283`). The one place a curve name becomes types, for the
/// CLI's `ic` and `pla` commands and the Python package.
///
/// `on_pla_curve!(curve, f::<C, B>(args…))` or `on_pla_curve!(curve, f::<C>(args…))`.
#[macro_export]
macro_rules! on_pla_curve {
    ($curve:expr, $f:ident::<C, B>($($arg:expr),* $(,)?)) => {{
        use $crate::concat::{EcdsaK163, EcdsaK233, EcdsaK283};
        use $crate::pla::header::PlaCurve;
        use $crate::pla::koblitz::{K163, K233, K283};
        match $curve {
            PlaCurve::K163 => $f::<K163, EcdsaK163>($($arg),*),
            PlaCurve::K233 => $f::<K233, EcdsaK233>($($arg),*),
            PlaCurve::K283 => $f::<K283, EcdsaK283>($($arg),*),
        }
    }};
    ($curve:expr, $f:ident::<C>($($arg:expr),* $(,)?)) => {{
        use $crate::pla::header::PlaCurve;
        use $crate::pla::koblitz::{K163, K233, K283};
        match $curve {
            PlaCurve::K163 => $f::<K163>($($arg),*),
            PlaCurve::K233 => $f::<K233>($($arg),*),
            PlaCurve::K283 => $f::<K283>($($arg),*),
        }
    }};
}
