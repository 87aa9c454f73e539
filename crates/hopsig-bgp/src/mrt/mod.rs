//! MRT files (RFC 6396) as hopsig reads them: opened plain or compressed, and refused
//! when they are not MRT ([`decompressed`], [`open`]: `mrt/input.rs`); the BGP4MP
//! record codec (both halves) for signed traces and the speaker's dumps ([`bgp4mp`]);
//! the TABLE_DUMP_V2 codec of RIB dumps ([`table_dump_v2`]); every record's elements as
//! bgpkit-parser makes them, one per prefix ([`elems`]); and AS-path statistics of
//! the announcements in an update file ([`path_stats`]: `mrt/path_stats.rs`).

pub mod bgp4mp;
pub mod elems;
mod input;
mod path_stats;
pub mod table_dump_v2;

pub use input::{decompressed, open, Compression, Decompressed, InputError, MrtFile, OpenError};
pub use path_stats::{path_stats, MrtError, PathStats};
