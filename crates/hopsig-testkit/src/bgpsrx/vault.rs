//! BGP-SRx's demo key vault (`examples/bgpsec-keys` of the source archive), which
//! `tools/bgp-srx.sh` installs into `PREFIX/opt/bgp-srx-examples/bgpsec-keys`, where the
//! installed `etc/srxcryptoapi.conf` of bgpsecio and quagga-srx's bgpd looks for it.
//!
//! `ski-list.txt` maps each AS to the SKI of its key (`ASN-SKI: 40 HEX`); the key of
//! SKI `AABBCCDD…` is `AA/BBCC/DD….der` (the secret key) beside `….cert` (a
//! self-signed DER certificate holding the public key).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The installed vault folder of `prefix`.
pub fn dir(prefix: &Path) -> PathBuf {
    prefix.join("opt/bgp-srx-examples/bgpsec-keys")
}

/// One public key of the vault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DemoKey {
    /// The AS it belongs to.
    pub asn: u32,
    /// Its SKI, upper-case hex (SHA-1 of the subjectPublicKey bits, RFC 8209 §3.1.1).
    pub ski: String,
    /// The DER SubjectPublicKeyInfo, from the certificate.
    pub spki: Vec<u8>,
}

/// Every key `ski-list.txt` of the vault lists with a decimal AS number (the asdot
/// duplicate of AS 4200000000, `64086.59904`, is left out), in file order.
///
/// # Errors
/// The list or a certificate cannot be read, or `openssl` fails on a certificate.
pub fn demo_keys(prefix: &Path) -> std::io::Result<Vec<DemoKey>> {
    let vault = dir(prefix);
    let list = std::fs::read_to_string(vault.join("ski-list.txt"))?;
    let mut keys = vec![];
    for line in list.lines() {
        let Some((asn, ski)) = line.split_once("-SKI: ") else {
            continue;
        };
        let (Ok(asn), ski) = (asn.trim().parse::<u32>(), ski.trim()) else {
            continue;
        };
        if ski.len() != 40 || !ski.bytes().all(|b| b.is_ascii_hexdigit()) {
            continue;
        }
        let cert = vault
            .join(&ski[..2])
            .join(&ski[2..6])
            .join(format!("{}.cert", &ski[6..]));
        keys.push(DemoKey {
            asn,
            ski: ski.to_ascii_uppercase(),
            spki: cert_spki(&cert)?,
        });
    }
    Ok(keys)
}

/// The SubjectPublicKeyInfo (DER) of the DER certificate `cert`, through the `openssl`
/// command line (`x509 -pubkey`, then `pkey -pubin -outform DER`).
fn cert_spki(cert: &Path) -> std::io::Result<Vec<u8>> {
    let pem = Command::new("openssl")
        .args(["x509", "-inform", "DER", "-noout", "-pubkey", "-in"])
        .arg(cert)
        .output()?;
    if !pem.status.success() {
        return Err(std::io::Error::other(format!(
            "openssl x509 {}: {}",
            cert.display(),
            String::from_utf8_lossy(&pem.stderr)
        )));
    }
    let mut child = Command::new("openssl")
        .args(["pkey", "-pubin", "-outform", "DER"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        std::io::Write::write_all(&mut stdin, &pem.stdout)?;
    }
    let der = child.wait_with_output()?;
    if !der.status.success() {
        return Err(std::io::Error::other(format!(
            "openssl pkey {}: {}",
            cert.display(),
            String::from_utf8_lossy(&der.stderr)
        )));
    }
    Ok(der.stdout)
}
