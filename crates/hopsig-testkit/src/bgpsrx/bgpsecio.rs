//! `bgpsecio`, BGP-SRx's BGPsec traffic generator (bgpsec-io/bgpsecio.c): as a BGPsec
//! speaker that signs the UPDATEs of its configuration (or replays a binary file of
//! UPDATEs, `-b`) toward one peer (mode `BGP`), or as a batch tool that writes such a
//! binary file (`GEN-B`: whole UPDATEs; `GEN-C`: BGPsec_PATH attributes) or validates
//! the attributes of one through srx-crypto-api (`CAPI`).
//!
//! Its configuration is libconfig text (see its `-C` output); the tests' templates are
//! in `crates/hopsig-cli/tests/peers/bgp-srx/`. It signs with the secret keys of the
//! vault named by `ski_file` / `ski_key_loc` ([`super::vault`]).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The binary of the `BGP` mode's BGP-4 speaker, killed by PID when dropped.
pub struct BgpsecIo {
    child: Child,
    /// Its standard output and error (`bgpsecio.log` in its folder).
    pub log: PathBuf,
}

impl Drop for BgpsecIo {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `bgpsecio -f dir/NAME.cfg ARGS…` with `config` written there, its output to
/// `dir/NAME.log`; srx-crypto-api's module is found through `LD_LIBRARY_PATH`.
fn spawn(
    prefix: &Path,
    dir: &Path,
    name: &str,
    config: &str,
    args: &[&OsStr],
) -> std::io::Result<(Child, PathBuf)> {
    let cfg = dir.join(format!("{name}.cfg"));
    std::fs::write(&cfg, config)?;
    let log = dir.join(format!("{name}.log"));
    let out = std::fs::File::create(&log)?;
    let child = Command::new(prefix.join("bin/bgpsecio"))
        .arg("-f")
        .arg(&cfg)
        .args(args)
        .current_dir(dir)
        .env("LD_LIBRARY_PATH", prefix.join("lib64/srx"))
        .stdin(Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(out)
        .spawn()?;
    Ok((child, log))
}

impl BgpsecIo {
    /// Starts bgpsecio in `BGP` mode on `config` (written to `dir/NAME.cfg`; `dir`
    /// exists) with the extra arguments `args` (e.g. `-b FILE`); it connects to the
    /// peer its configuration names and retries every 30 s until it can.
    ///
    /// # Errors
    /// The configuration cannot be written or the program not started.
    pub fn start(
        prefix: &Path,
        dir: &Path,
        name: &str,
        config: &str,
        args: &[&OsStr],
    ) -> std::io::Result<BgpsecIo> {
        let (child, log) = spawn(prefix, dir, name, config, args)?;
        Ok(BgpsecIo { child, log })
    }

    /// Its output so far.
    pub fn output(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

/// Runs bgpsecio to its end on `config` (a `GEN-B`, `GEN-C` or `CAPI` mode), at most
/// `limit`, and returns its output.
///
/// # Errors
/// It cannot start, exits with a failure, or runs past `limit` (then it is killed); the
/// error quotes its output.
pub fn run(
    prefix: &Path,
    dir: &Path,
    name: &str,
    config: &str,
    args: &[&OsStr],
    limit: Duration,
) -> std::io::Result<String> {
    let (mut child, log) = spawn(prefix, dir, name, config, args)?;
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(std::io::Error::other(format!(
                "bgpsecio {name} still running after {limit:?}: {}",
                std::fs::read_to_string(&log).unwrap_or_default()
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let text = std::fs::read_to_string(&log)?;
    if !status.success() {
        return Err(std::io::Error::other(format!(
            "bgpsecio {name} exited ({status}): {text}"
        )));
    }
    Ok(text)
}

/// The counts of a `CAPI` mode run's summary ("Statistics Invalid: … N updates",
/// "Statistics Valid: … N updates"): `(valid, invalid)`, or `None` when the output
/// lacks either.
pub fn capi_counts(output: &str) -> Option<(u64, u64)> {
    let after = |title: &str| -> Option<u64> {
        let rest = output.split(title).nth(1)?;
        let line = rest.lines().find(|l| l.contains(" updates ("))?;
        line.split_whitespace().next()?.parse().ok()
    };
    Some((after("Statistics Valid:")?, after("Statistics Invalid:")?))
}

/// A record of bgpsecio's binary file (bgpsec-io/player/player.h, `BGPSEC_IO_Record`,
/// version 3): what `GEN-B` / `GEN-C` write and `-b` reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// 1: a whole BGP UPDATE message; 2: a BGPsec_PATH attribute (flags, type, length
    /// and value).
    pub kind: u8,
    /// The bgpsecio session's AS (the UPDATE's sender).
    pub asn: u32,
    /// Its peer's AS (the Target AS of the newest signature, the validating AS).
    pub peer_as: u32,
    /// The number of Secure_Path segments.
    pub segments: u32,
    /// The prefix: AFI, SAFI, length and address (16 octets, IPv4 in the first four).
    pub afi: u16,
    /// The prefix's SAFI.
    pub safi: u8,
    /// The prefix length in bits.
    pub len: u8,
    /// The prefix address, zero-padded to 16 octets.
    pub addr: [u8; 16],
    /// Whether bgpsecio used its fake signature.
    pub fake: bool,
    /// The public keys carried with the record: (suite, AS, SKI, DER
    /// SubjectPublicKeyInfo); the `CAPI` mode registers them before validating.
    pub keys: Vec<(u8, u32, [u8; 20], Vec<u8>)>,
    /// The UPDATE or the attribute.
    pub data: Vec<u8>,
}

/// The fixed header of a record: version, type, draft, data length, segments, key
/// data length, AS, peer AS, the prefix (2 + 1 + 1 + 16), fake, number of keys.
const HEADER: usize = 42;

impl Record {
    /// The record's encoding (multi-octet fields in network order, as bgpsecio's
    /// `storeData` writes them).
    pub fn encode(&self) -> Vec<u8> {
        let mut keys = vec![];
        for (suite, asn, ski, spki) in &self.keys {
            keys.push(*suite);
            keys.extend_from_slice(&asn.to_be_bytes());
            keys.extend_from_slice(ski);
            keys.extend_from_slice(&(spki.len() as u16).to_be_bytes());
            keys.extend_from_slice(spki);
        }
        let mut out = vec![3, self.kind, 18];
        out.extend_from_slice(&(self.data.len() as u16).to_be_bytes());
        out.extend_from_slice(&self.segments.to_be_bytes());
        out.extend_from_slice(&(keys.len() as u16).to_be_bytes());
        out.extend_from_slice(&self.asn.to_be_bytes());
        out.extend_from_slice(&self.peer_as.to_be_bytes());
        out.extend_from_slice(&self.afi.to_be_bytes());
        out.push(self.safi);
        out.push(self.len);
        out.extend_from_slice(&self.addr);
        out.push(u8::from(self.fake));
        out.extend_from_slice(&(self.keys.len() as u16).to_be_bytes());
        out.extend_from_slice(&keys);
        out.extend_from_slice(&self.data);
        out
    }

    /// The records of a binary file, in order.
    ///
    /// # Errors
    /// A record is cut short, has another version, or its keys do not add up.
    pub fn decode_all(mut bytes: &[u8]) -> std::io::Result<Vec<Record>> {
        let bad = |why: &str| std::io::Error::other(format!("bgpsecio record: {why}"));
        let mut records = vec![];
        while !bytes.is_empty() {
            let h = bytes.get(..HEADER).ok_or_else(|| bad("header cut short"))?;
            if h[0] != 3 {
                return Err(bad("not version 3"));
            }
            let u16_at = |i: usize| usize::from(u16::from_be_bytes([h[i], h[i + 1]]));
            let u32_at = |i: usize| u32::from_be_bytes([h[i], h[i + 1], h[i + 2], h[i + 3]]);
            let (data_len, key_len, num_keys) = (u16_at(3), u16_at(9), u16_at(40));
            let body = bytes
                .get(HEADER..HEADER + key_len + data_len)
                .ok_or_else(|| bad("body cut short"))?;
            let (mut kb, data) = body.split_at(key_len);
            let mut keys = vec![];
            for _ in 0..num_keys {
                let head = kb.get(..27).ok_or_else(|| bad("key cut short"))?;
                let n = usize::from(u16::from_be_bytes([head[25], head[26]]));
                let spki = kb.get(27..27 + n).ok_or_else(|| bad("key cut short"))?;
                let mut ski = [0u8; 20];
                ski.copy_from_slice(&head[5..25]);
                let asn = u32::from_be_bytes([head[1], head[2], head[3], head[4]]);
                keys.push((head[0], asn, ski, spki.to_vec()));
                kb = &kb[27 + n..];
            }
            if !kb.is_empty() {
                return Err(bad("key data longer than its keys"));
            }
            let mut addr = [0u8; 16];
            addr.copy_from_slice(&h[23..39]);
            records.push(Record {
                kind: h[1],
                asn: u32_at(11),
                peer_as: u32_at(15),
                segments: u32_at(5),
                afi: u16::from_be_bytes([h[19], h[20]]),
                safi: h[21],
                len: h[22],
                addr,
                fake: h[39] != 0,
                keys,
                data: data.to_vec(),
            });
            bytes = &bytes[HEADER + key_len + data_len..];
        }
        Ok(records)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_summary_parses() {
        let r = Record {
            kind: 2,
            asn: 65000,
            peer_as: 4_200_000_000,
            segments: 2,
            afi: 2,
            safi: 1,
            len: 48,
            addr: [0x20, 1, 0xd, 0xb8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            fake: false,
            keys: vec![(1, 65000, [7; 20], vec![0x30, 0x59, 1, 2])],
            data: vec![0x90, 33, 0, 1, 9],
        };
        let mut file = r.encode();
        assert_eq!(file.len(), HEADER + 27 + 4 + 5);
        file.extend(r.encode());
        assert_eq!(Record::decode_all(&file).ok(), Some(vec![r.clone(), r]));
        assert!(Record::decode_all(&file[..file.len() - 1]).is_err());

        let out = "\nStatistics Invalid:\n=====================\n  3 updates (7 segments) in 9 ns processed\n\
                   \nStatistics Valid:\n=====================\n  120 updates (300 segments) in 5 ns processed\n";
        assert_eq!(capi_counts(out), Some((120, 3)));
        assert_eq!(capi_counts("Done."), None);
    }
}
