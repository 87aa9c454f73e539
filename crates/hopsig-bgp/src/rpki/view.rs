//! The one view a validator consults: file sources and RTR caches merged, SLURM
//! applied, router keys parsed for the BGPsec suites (docs/spec/rpki.md, "Merge
//! rules").
