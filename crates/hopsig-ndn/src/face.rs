//! A face to an NDN forwarder over a stream (Unix socket or TCP), as an application
//! connects to ndnd or NFD: TLV framing on the stream, NDNLPv2 LpPacket unwrapping
//! (Nack, PitToken), and prefix registration through the forwarder's management
//! protocol (`/localhost/nfd/rib/register`, a DigestSha256 signed command Interest
//! carrying ControlParameters — what python-ndn's `appv2` sends), so no keychain is
//! needed.
//!
//! Blocking I/O with timeouts: one face serves one thread; `express` waits for its
//! Data and hands anything else that arrives meanwhile to the caller's queue.
//!
//! A packet the face cannot decode never ends it: [`Face::recv`] drops it, counts it
//! by [`DropReason`] ([`Face::drops`]), tells the hook of [`Face::on_drop`], and reads
//! on; only the connection closing ([`FaceError::Closed`]) or failing ends a receive
//! (docs/spec/ndn-ibas.md §5.1).

use std::collections::{BTreeMap, VecDeque};
use std::fmt;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::data::Data;
use crate::interest::Interest;
use crate::name::{Component, Name};
use crate::sign::SigningKey;
use crate::signature::SignatureInfo;
use crate::tlv::{put_nested, put_tlv, read_non_negative, Reader, TlvError};
use crate::types;

/// NDNLPv2 TLV-TYPEs (NDNLPv2 spec, redmine.named-data.net/projects/nfd/wiki/NDNLPv2).
mod lp {
    pub const LP_PACKET: u32 = 100;
    pub const FRAGMENT: u32 = 80;
    pub const FRAG_COUNT: u32 = 83;
    pub const PIT_TOKEN: u32 = 98;
    pub const NACK: u32 = 800;
    pub const NACK_REASON: u32 = 801;
}

/// NFD management TLV-TYPEs (NFD Management protocol, ControlCommand).
mod mgmt {
    pub const CONTROL_RESPONSE: u32 = 0x65;
    pub const STATUS_CODE: u32 = 0x66;
    pub const STATUS_TEXT: u32 = 0x67;
    pub const CONTROL_PARAMETERS: u32 = 0x68;
}

/// Largest Interest or Data a face accepts or hopsig sends, whole TLV: NDN's
/// `MAX_NDN_PACKET_SIZE` (ndn-cxx `encoding/tlv.hpp`, which NFD and ndnd enforce on
/// every face; the NDN packet spec names no limit).
pub const MAX_NDN_PACKET: usize = 8800;

/// Largest frame read from the stream: [`MAX_NDN_PACKET`] with room for the
/// LpPacket around it.
const MAX_FRAME: usize = MAX_NDN_PACKET + 1024;

/// Why a face operation failed.
#[derive(Debug, thiserror::Error)]
pub enum FaceError {
    /// The connection failed.
    #[error("face I/O: {0}")]
    Io(#[from] std::io::Error),
    /// The forwarder closed the connection.
    #[error("face: the forwarder closed the connection")]
    Closed,
    /// A reply the face waited for (a management ControlResponse) does not decode.
    /// Packets that arrive undecodable are not errors: [`Face::recv`] drops them.
    #[error("face: malformed packet from the forwarder: {0}")]
    Malformed(#[from] TlvError),
    /// No answer in time.
    #[error("face: no Data for {0} within {1:?}")]
    Timeout(Name, Duration),
    /// The forwarder answered with a Nack.
    #[error("face: Nack for {name} (reason {reason})")]
    Nack {
        /// The Interest's name.
        name: Name,
        /// NackReason (0 if absent).
        reason: u64,
    },
    /// A management command was refused.
    #[error("face: {command} refused: {code} {text}")]
    Refused {
        /// The command.
        command: String,
        /// StatusCode.
        code: u64,
        /// StatusText.
        text: String,
    },
    /// Something this face does not handle (e.g. a fragmented LpPacket).
    #[error("face: {0}")]
    Unsupported(String),
}

/// A packet received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Packet {
    /// An Interest, with the PitToken to return with its Data.
    Interest(Interest, Option<Vec<u8>>),
    /// A Data packet.
    Data(Data),
    /// A Nack of one of our Interests.
    Nack(Interest, u64),
}

/// Why [`Face::recv`] dropped a packet from the forwarder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DropReason {
    /// A frame whose TLV-LENGTH exceeds what a face accepts: the stream is read on
    /// from the next octet that can start a packet.
    Unframable,
    /// An Interest or Data over [`MAX_NDN_PACKET`] octets.
    Oversize,
    /// An element running past its enclosing element or the packet.
    Truncated,
    /// A VAR-NUMBER or NonNegativeInteger not in its shortest encoding.
    NonCanonical,
    /// TLV-TYPE 0 or above 2³² − 1.
    BadType,
    /// Another element where a particular one is required.
    Unexpected,
    /// An unrecognized, out-of-order or repeated critical element.
    Critical,
    /// A required element absent.
    Missing,
    /// A value of the wrong length or content (e.g. a parameters digest).
    Invalid,
    /// Octets after the packet.
    Trailing,
    /// Something this face does not handle (a fragmented LpPacket, another
    /// network-layer packet type, an unknown critical LpPacket header field).
    Unsupported,
}

impl DropReason {
    /// The reason's name, as logged and counted.
    pub fn as_str(self) -> &'static str {
        match self {
            DropReason::Unframable => "unframable",
            DropReason::Oversize => "oversize",
            DropReason::Truncated => "truncated",
            DropReason::NonCanonical => "non-canonical",
            DropReason::BadType => "bad-type",
            DropReason::Unexpected => "unexpected-element",
            DropReason::Critical => "critical-element",
            DropReason::Missing => "missing-element",
            DropReason::Invalid => "invalid-value",
            DropReason::Trailing => "trailing-octets",
            DropReason::Unsupported => "unsupported",
        }
    }

    /// The reason a decoder error gives.
    pub fn of(e: &TlvError) -> DropReason {
        match e {
            TlvError::Truncated { .. } => DropReason::Truncated,
            TlvError::NotShortest { .. } => DropReason::NonCanonical,
            TlvError::BadType { .. } => DropReason::BadType,
            TlvError::Unexpected { .. } => DropReason::Unexpected,
            TlvError::Critical { .. } => DropReason::Critical,
            TlvError::Missing { .. } => DropReason::Missing,
            TlvError::Invalid { .. } => DropReason::Invalid,
            TlvError::Trailing { .. } => DropReason::Trailing,
        }
    }
}

impl fmt::Display for DropReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Packets dropped, counted by reason.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Drops(BTreeMap<DropReason, u64>);

impl Drops {
    /// Packets dropped in all.
    pub fn total(&self) -> u64 {
        self.0.values().sum()
    }

    /// Packets dropped for `reason`.
    pub fn count(&self, reason: DropReason) -> u64 {
        self.0.get(&reason).copied().unwrap_or(0)
    }

    fn add(&mut self, reason: DropReason) {
        *self.0.entry(reason).or_insert(0) += 1;
    }
}

/// `none`, or the total and each reason's count: `3 (truncated 2, oversize 1)`.
impl fmt::Display for Drops {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("none");
        }
        write!(f, "{} (", self.total())?;
        for (i, (reason, n)) in self.0.iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            write!(f, "{sep}{reason} {n}")?;
        }
        f.write_str(")")
    }
}

/// A packet [`parse_frame`] refuses: the reason and what the decoder said.
#[derive(Debug)]
struct Refused(DropReason, String);

impl From<TlvError> for Refused {
    fn from(e: TlvError) -> Refused {
        Refused(DropReason::of(&e), e.to_string())
    }
}

/// What the start of the receive buffer holds.
enum Frame {
    /// One whole frame, this many octets.
    Whole(usize),
    /// The start of one: read more.
    Partial,
    /// A header whose TLV-LENGTH no frame may have.
    Unframable(u64),
}

/// The hook [`Face::on_drop`] installs.
type DropHook = Box<dyn FnMut(DropReason, &str, &Drops) + Send>;

trait Stream: Read + Write + Send {
    fn set_timeout(&self, t: Option<Duration>) -> std::io::Result<()>;
}

impl Stream for UnixStream {
    fn set_timeout(&self, t: Option<Duration>) -> std::io::Result<()> {
        self.set_read_timeout(t)
    }
}

impl Stream for TcpStream {
    fn set_timeout(&self, t: Option<Duration>) -> std::io::Result<()> {
        self.set_read_timeout(t)
    }
}

/// A connection to a forwarder.
pub struct Face {
    stream: Box<dyn Stream>,
    buf: Vec<u8>,
    /// Packets that arrived while `express` waited for another.
    pub queue: VecDeque<Packet>,
    last_command_time: u64,
    drops: Drops,
    on_drop: Option<DropHook>,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl Face {
    /// Connects to the forwarder's Unix socket.
    ///
    /// # Errors
    /// The socket cannot be reached.
    pub fn unix(path: &Path) -> Result<Face, FaceError> {
        Ok(Face::over(Box::new(UnixStream::connect(path)?)))
    }

    /// Connects to the forwarder's TCP face.
    ///
    /// # Errors
    /// The address cannot be reached.
    pub fn tcp(addr: std::net::SocketAddr) -> Result<Face, FaceError> {
        let s = TcpStream::connect(addr)?;
        s.set_nodelay(true)?;
        Ok(Face::over(Box::new(s)))
    }

    fn over(stream: Box<dyn Stream>) -> Face {
        Face {
            stream,
            buf: Vec::new(),
            queue: VecDeque::new(),
            last_command_time: 0,
            drops: Drops::default(),
            on_drop: None,
        }
    }

    /// The packets from the forwarder dropped so far, by reason.
    pub fn drops(&self) -> &Drops {
        &self.drops
    }

    /// Calls `hook` with the reason, the decoder's message and the counts so far
    /// each time a packet is dropped (a role logs them, rate-limited).
    pub fn on_drop(&mut self, hook: impl FnMut(DropReason, &str, &Drops) + Send + 'static) {
        self.on_drop = Some(Box::new(hook));
    }

    fn dropped(&mut self, reason: DropReason, detail: &str) {
        self.drops.add(reason);
        if let Some(hook) = &mut self.on_drop {
            hook(reason, detail, &self.drops);
        }
    }

    /// Sends an encoded packet.
    ///
    /// # Errors
    /// The connection failing.
    pub fn send(&mut self, packet: &[u8]) -> Result<(), FaceError> {
        self.stream.write_all(packet)?;
        Ok(())
    }

    /// Sends `data` as the answer to an Interest that came with `pit_token`.
    ///
    /// Keep the face open until the Data has been forwarded: ndnd drops a Data whose
    /// incoming face closed before its forwarding thread took it up.
    ///
    /// # Errors
    /// The connection failing.
    pub fn put(&mut self, data: &Data, pit_token: Option<&[u8]>) -> Result<(), FaceError> {
        let wire = data.encode();
        match pit_token {
            None => self.send(&wire),
            Some(token) => {
                let mut lp = vec![];
                put_nested(&mut lp, lp::LP_PACKET, |v| {
                    put_tlv(v, lp::PIT_TOKEN, token);
                    put_tlv(v, lp::FRAGMENT, &wire);
                });
                self.send(&lp)
            }
        }
    }

    /// The next packet, waiting until `deadline` (`None`: for ever). A frame that
    /// is not an Interest, Data or Nack this face can decode is dropped and counted
    /// ([`Face::drops`]), and the face reads on.
    ///
    /// # Errors
    /// The connection closing ([`FaceError::Closed`]) or failing, the deadline
    /// passing ([`std::io::ErrorKind::TimedOut`] / `WouldBlock` as [`FaceError::Io`]).
    pub fn recv(&mut self, deadline: Option<Instant>) -> Result<Packet, FaceError> {
        if let Some(p) = self.queue.pop_front() {
            return Ok(p);
        }
        loop {
            match frame(&self.buf) {
                Frame::Whole(n) => {
                    let packet: Vec<u8> = self.buf.drain(..n).collect();
                    match parse_frame(&packet) {
                        Ok(Some(p)) => return Ok(p),
                        Ok(None) => {}
                        Err(Refused(reason, detail)) => self.dropped(reason, &detail),
                    }
                    continue;
                }
                Frame::Unframable(len) => {
                    resync(&mut self.buf);
                    let detail = format!("frame of TLV-LENGTH {len}, over {MAX_FRAME} octets");
                    self.dropped(DropReason::Unframable, &detail);
                    continue;
                }
                Frame::Partial => {}
            }
            let wait = match deadline {
                Some(d) => Some(
                    d.checked_duration_since(Instant::now())
                        .filter(|w| !w.is_zero())
                        .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::TimedOut))?,
                ),
                None => None,
            };
            self.stream.set_timeout(wait)?;
            let mut chunk = [0u8; 16 * 1024];
            let n = self.stream.read(&mut chunk)?;
            if n == 0 {
                return Err(FaceError::Closed);
            }
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }

    /// As [`Face::recv`], with `None` when `deadline` passes first.
    ///
    /// # Errors
    /// As [`Face::recv`], the deadline aside.
    pub fn recv_until(&mut self, deadline: Instant) -> Result<Option<Packet>, FaceError> {
        match self.recv(Some(deadline)) {
            Ok(p) => Ok(Some(p)),
            Err(FaceError::Io(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
                ) =>
            {
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// Sends `interest` (with a fresh Nonce if it has none) and waits for its Data;
    /// other packets arriving meanwhile go to [`Face::queue`].
    ///
    /// # Errors
    /// A Nack, no Data within the Interest's lifetime (4 s if unset), I/O.
    pub fn express(&mut self, mut interest: Interest) -> Result<Data, FaceError> {
        interest.nonce.get_or_insert_with(rand_nonce);
        let lifetime = Duration::from_millis(interest.lifetime.unwrap_or(4000));
        let name = interest.wire_name();
        self.send(&interest.encode())?;
        let deadline = Instant::now() + lifetime;
        let mut held = VecDeque::new();
        let result = loop {
            let p = match self.recv_until(deadline) {
                Ok(Some(p)) => p,
                Ok(None) => break Err(FaceError::Timeout(name, lifetime)),
                Err(e) => break Err(e),
            };
            match p {
                Packet::Data(d) if satisfies(&interest, &name, &d) => break Ok(d),
                Packet::Nack(i, reason) if i.wire_name() == name && i.nonce == interest.nonce => {
                    break Err(FaceError::Nack { name, reason })
                }
                other => held.push_back(other),
            }
        };
        held.extend(self.queue.drain(..));
        self.queue = held;
        result
    }

    /// Registers `prefix` toward this face: a `rib/register` command Interest with
    /// ControlParameters holding the name, signed with DigestSha256 (SignatureNonce
    /// and SignatureTime against replay), and checks the ControlResponse.
    ///
    /// # Errors
    /// No answer, a refusal (StatusCode other than 200), I/O.
    pub fn register(&mut self, prefix: &Name) -> Result<(), FaceError> {
        self.command("rib", "register", prefix)
    }

    fn command(&mut self, module: &str, verb: &str, prefix: &Name) -> Result<(), FaceError> {
        let mut params = vec![];
        put_nested(&mut params, mgmt::CONTROL_PARAMETERS, |v| prefix.encode(v));
        let mut name: Name = format!("/localhost/nfd/{module}/{verb}")
            .parse()
            .map_err(|e: crate::name::UriError| FaceError::Unsupported(e.to_string()))?;
        name.0.push(Component::generic(params));
        let mut interest = Interest::new(name);
        interest.lifetime = Some(1000);
        let mut info = SignatureInfo::new(0);
        info.nonce = Some(rand_nonce().to_vec());
        // Strictly increasing, as NFD wants one command per timestamp.
        self.last_command_time = now_ms().max(self.last_command_time + 1);
        info.time = Some(self.last_command_time);
        SigningKey::digest()
            .sign_interest(&mut interest, info)
            .map_err(|e| FaceError::Unsupported(e.to_string()))?;
        let reply = self.express(interest)?;
        let (code, text) = control_response(reply.content.as_deref().unwrap_or_default())?;
        if code != 200 {
            return Err(FaceError::Refused {
                command: format!("{module}/{verb} {prefix}"),
                code,
                text,
            });
        }
        Ok(())
    }
}

/// Whether `d` answers `interest` (sent as `name`): its name equals the Interest's,
/// or extends it when CanBePrefix is set.
fn satisfies(interest: &Interest, name: &Name, d: &Data) -> bool {
    if interest.can_be_prefix {
        name.is_prefix_of(&d.name)
    } else {
        &d.name == name
    }
}

fn rand_nonce() -> [u8; 4] {
    let mut n = [0u8; 4];
    // A failing RNG leaves a zero nonce; the forwarder still deduplicates by name.
    let _ = openssl::rand::rand_bytes(&mut n);
    n
}

/// StatusCode and StatusText of a ControlResponse.
fn control_response(content: &[u8]) -> Result<(u64, String), TlvError> {
    let t = crate::tlv::single(content, mgmt::CONTROL_RESPONSE, "ControlResponse")?;
    let mut r = Reader::new(t.value);
    let code = read_non_negative(
        r.expect(mgmt::STATUS_CODE, "StatusCode")?.value,
        "StatusCode",
    )?;
    let text = r.expect(mgmt::STATUS_TEXT, "StatusText")?;
    Ok((code, String::from_utf8_lossy(text.value).into_owned()))
}

/// A VAR-NUMBER at the start of `buf` and its size, read as the stream's framing
/// needs it: any of the four forms (the decoder refuses a longer one than needed,
/// after framing). `None` if `buf` ends first.
fn lenient_var_number(buf: &[u8]) -> Option<(u64, usize)> {
    let (&first, rest) = buf.split_first()?;
    let len = match first {
        0..=252 => return Some((u64::from(first), 1)),
        253 => 2,
        254 => 4,
        255 => 8,
    };
    let digits = rest.get(..len)?;
    Some((
        digits.iter().fold(0u64, |v, &b| (v << 8) | u64::from(b)),
        1 + len,
    ))
}

/// Where the first frame of `buf` ends. Framing reads TLV-TYPE and TLV-LENGTH
/// leniently so that a packet whose outer header is merely non-canonical, or of
/// TLV-TYPE 0, is still one frame, dropped whole by the decoder; only a
/// TLV-LENGTH over [`MAX_FRAME`] loses the stream's framing.
fn frame(buf: &[u8]) -> Frame {
    let Some((_, t)) = lenient_var_number(buf) else {
        return Frame::Partial;
    };
    let Some((len, l)) = lenient_var_number(&buf[t..]) else {
        return Frame::Partial;
    };
    match usize::try_from(len).ok().filter(|&n| n <= MAX_FRAME) {
        None => Frame::Unframable(len),
        Some(n) if buf.len() >= t + l + n => Frame::Whole(t + l + n),
        Some(_) => Frame::Partial,
    }
}

/// After an unframable header: drops octets up to the next one that can start a
/// frame (TLV-TYPE Interest, Data or LpPacket with an acceptable TLV-LENGTH), or
/// all of the buffer. NDN streams carry no frame marker; a forwarder never sends
/// such a header, so this only keeps a broken peer from ending the face.
fn resync(buf: &mut Vec<u8>) {
    let start = (1..buf.len())
        .find(|&at| {
            let typ = u32::from(buf[at]);
            matches!(typ, types::INTEREST | types::DATA | lp::LP_PACKET)
                && !matches!(frame(&buf[at..]), Frame::Unframable(_))
        })
        .unwrap_or(buf.len());
    buf.drain(..start);
}

/// A network-layer packet over [`MAX_NDN_PACKET`] is refused before it is decoded.
fn within_limit(packet: &[u8]) -> Result<&[u8], Refused> {
    if packet.len() > MAX_NDN_PACKET {
        return Err(Refused(
            DropReason::Oversize,
            format!(
                "packet of {} octets, over NDN's {MAX_NDN_PACKET}",
                packet.len()
            ),
        ));
    }
    Ok(packet)
}

/// A frame as a packet: Interest, Data, or an LpPacket carrying one (or a Nack);
/// `None` for an LpPacket without fragment (e.g. an Ack).
fn parse_frame(frame: &[u8]) -> Result<Option<Packet>, Refused> {
    let unsupported = |what: String| Refused(DropReason::Unsupported, what);
    let mut r = Reader::new(frame);
    let t = r.tlv("packet")?;
    match t.typ {
        types::INTEREST => Ok(Some(Packet::Interest(
            Interest::decode(within_limit(frame)?)?,
            None,
        ))),
        types::DATA => Ok(Some(Packet::Data(Data::decode(within_limit(frame)?)?))),
        lp::LP_PACKET => {
            let (mut token, mut nack, mut fragment) = (None, None, None);
            let mut r = Reader::new(t.value);
            while !r.is_empty() {
                let f = r.tlv("LpPacket")?;
                match f.typ {
                    lp::PIT_TOKEN => token = Some(f.value.to_vec()),
                    lp::NACK => {
                        let mut n = Reader::new(f.value);
                        let mut reason = 0;
                        while !n.is_empty() {
                            let x = n.tlv("Nack")?;
                            if x.typ == lp::NACK_REASON {
                                reason = read_non_negative(x.value, "NackReason")?;
                            }
                        }
                        nack = Some(reason);
                    }
                    lp::FRAGMENT => fragment = Some(f.value),
                    lp::FRAG_COUNT if read_non_negative(f.value, "FragCount")? > 1 => {
                        return Err(unsupported("fragmented LpPacket".into()))
                    }
                    // NDNLPv2: an unknown header field in [800, 959] whose two low
                    // bits are 0 may be ignored; other fields this face does not use
                    // (Sequence, IncomingFaceId, CongestionMark, ...) carry nothing
                    // it needs.
                    typ if (800..=959).contains(&typ) && typ & 3 != 0 && !known_lp(typ) => {
                        return Err(unsupported(format!("LpPacket header field {typ}")))
                    }
                    _ => {}
                }
            }
            let Some(fragment) = fragment else {
                return Ok(None);
            };
            let fragment = within_limit(fragment)?;
            let inner = Reader::new(fragment).peek_type("Fragment")?;
            Ok(Some(match (inner, nack) {
                (Some(types::INTEREST), Some(reason)) => {
                    Packet::Nack(Interest::decode(fragment)?, reason)
                }
                (Some(types::INTEREST), None) => {
                    Packet::Interest(Interest::decode(fragment)?, token)
                }
                (Some(types::DATA), _) => Packet::Data(Data::decode(fragment)?),
                (other, _) => {
                    return Err(unsupported(format!("LpPacket fragment of type {other:?}")))
                }
            }))
        }
        other => Err(unsupported(format!("packet of TLV-TYPE {other}"))),
    }
}

/// NDNLPv2 header fields this face recognizes (and ignores).
fn known_lp(typ: u32) -> bool {
    // NextHopFaceId, IncomingFaceId, CachePolicy, CongestionMark, Ack, TxSequence,
    // NonDiscovery, PrefixAnnouncement.
    matches!(
        typ,
        0x330 | 0x331 | 0x334 | 0x340 | 0x344 | 0x348 | 0x34c | 0x350
    )
}

/// Least time between two log lines about dropped packets ([`Face::log_drops`]): a
/// peer sending garbage must not flood the log.
pub const DROP_LOG_EVERY: Duration = Duration::from_secs(10);

/// Why [`Face::serve`] ended early.
#[derive(Debug, thiserror::Error)]
pub enum ServeError<E> {
    /// The face failed (the forwarder closed it, ...).
    #[error("{0}")]
    Face(FaceError),
    /// Answering an Interest failed.
    #[error("{0}")]
    Answer(E),
}

impl Face {
    /// Logs each packet the face drops as a `tracing` warning, at most one line per
    /// [`DROP_LOG_EVERY`], each with the counts so far and the lines held back.
    pub fn log_drops(&mut self) {
        let mut limit = hopsig_primitives::progress::RateLimit::new(DROP_LOG_EVERY);
        self.on_drop(move |reason, detail, drops| {
            if let Some(held) = limit.allow(Instant::now()) {
                let held = match held {
                    0 => String::new(),
                    n => format!("; {n} more since the last line"),
                };
                tracing::warn!(
                    "hopsig ndn: dropped a packet from the forwarder ({reason}: {detail}); dropped so far: {drops}{held}"
                );
            }
        });
    }

    /// How a producer starts: logs the packets the face drops ([`Face::log_drops`]),
    /// registers `prefix` and says so.
    ///
    /// # Errors
    /// The registration failed.
    pub fn produce(&mut self, prefix: &Name) -> Result<(), FaceError> {
        self.log_drops();
        self.register(prefix)?;
        tracing::info!("hopsig ndn: registered {prefix}");
        Ok(())
    }

    /// How a producer ends: answers still in the forwarder's queue are lost if the
    /// face closes at once, so it waits 200 ms for them.
    pub fn linger(&self) {
        std::thread::sleep(Duration::from_millis(200));
    }

    /// A producer's loop ([`Face::produce`], then [`Face::linger`] at the end):
    /// answers the Interests under `prefix` with `answer` (`None`: no answer) until
    /// `count` were answered, or for ever with no `count`.
    ///
    /// # Errors
    /// [`ServeError::Face`] when the face fails (the forwarder closing it included),
    /// [`ServeError::Answer`] when `answer` does.
    pub fn serve<E>(
        &mut self,
        prefix: &Name,
        count: Option<u64>,
        mut answer: impl FnMut(&Interest) -> Result<Option<Data>, E>,
    ) -> Result<(), ServeError<E>> {
        self.produce(prefix).map_err(ServeError::Face)?;
        let mut served = 0u64;
        while count.is_none_or(|c| served < c) {
            let (i, token) = match self.recv(None).map_err(ServeError::Face)? {
                Packet::Interest(i, token) => (i, token),
                _ => continue,
            };
            if !prefix.is_prefix_of(&i.name) {
                continue;
            }
            if let Some(d) = answer(&i).map_err(ServeError::Answer)? {
                self.put(&d, token.as_deref()).map_err(ServeError::Face)?;
                served += 1;
            }
        }
        self.linger();
        Ok(())
    }
}
