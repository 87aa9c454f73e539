//! RPKI payload from files: rpki-client JSON, Routinator `jsonext`, hopsig's key
//! folders, and SLURM (RFC 8416) filters and assertions.
