//! `hopsig bgpsec keygen --asn N --out FILE`: a router key pair, its SKI and its entry
//! in rpki-client's JSON format.

use std::path::PathBuf;

use hopsig_bgp::packet::AS_TRANS;
use hopsig_bgp::router_key::{to_rpki_json, RouterKey};

use super::suite_named;
use crate::io::{outputs, say, with_suffix, Failure, Outcome, Secrecy};

/// Generate a BGPsec router key for an AS.
///
/// Writes FILE, the secret key (mode 0600; for suite 1 an unencrypted PKCS #8 P-256
/// key that `openssl pkey` reads), and FILE.json, the public key as rpki-client's JSON
/// (`bgpsec_keys`: asn, ski, pubkey), both or neither. Prints the SKI (RFC 8209: SHA-1
/// of the public key). docs/spec/bgpsec.md, "Router keys".
#[derive(clap::Args)]
pub struct Args {
    /// The router's AS number (1 to 4294967295, not AS_TRANS 23456).
    #[arg(long, value_name = "N")]
    asn: u32,
    /// The secret key file to write; FILE.json gets the public key.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Algorithm suite: name or number.
    #[arg(long, default_value = "1")]
    suite: String,
    /// Replace FILE and FILE.json if they exist.
    #[arg(long)]
    force: bool,
}

/// Generates and writes the key, then prints its SKI and JSON entry.
pub fn run(args: Args) -> Outcome {
    if args.asn == 0 || args.asn == u32::from(AS_TRANS) {
        return Err(Failure::Input(format!(
            "--asn {}: AS 0 (RFC 7607) and AS_TRANS (RFC 6793) are never a BGPsec router's AS",
            args.asn
        )));
    }
    let suite = suite_named(&args.suite)?;
    let json_path = with_suffix(&args.out, ".json");
    let mut files = outputs(args.force, []);
    files.check(&args.out)?;
    files.check(&json_path)?;
    let key = suite
        .generate()
        .map_err(|e| Failure::Input(format!("cannot generate a {} key: {e}", suite.name())))?;
    let secret = suite
        .secret_key_file(&key)
        .map_err(|e| Failure::Input(format!("cannot write the secret key: {e}")))?;
    let public = RouterKey::new(args.asn, *key.ski(), key.spki());
    let json = to_rpki_json(std::slice::from_ref(&public));
    files.add(&args.out, secret.as_bytes(), Secrecy::Secret)?;
    files.add(&json_path, json.as_bytes(), Secrecy::Public)?;
    files.commit()?;
    say(format_args!(
        "AS{} ski {} suite {} ({})",
        args.asn,
        hex::encode_upper(key.ski()),
        suite.id(),
        suite.name()
    ))?;
    say(format_args!(
        "wrote: {} (secret, 0600), {} (rpki-client JSON)",
        args.out.display(),
        json_path.display()
    ))
}
