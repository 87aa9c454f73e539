//! One RTR session, router side, over any byte stream (a TCP connection, or an
//! in-memory duplex in the tests): Reset and Serial Queries, the Cache Response up to
//! End of Data, Serial Notify, Error Reports both ways, version negotiation (RFC 8210
//! §7) and the per-cache [`Limits`].
//!
//! PDUs are read and written with the `rpki` crate's [`rpki::rtr::pdu`] types; this
//! module adds what its `Client` does not do (docs/spec/rpki.md, "RTR client"): the
//! negotiated version and the cache's Error Report (code, quoted PDU, text) reported to
//! the caller, an Error Report answered for every malformed, unexpected or unsupported
//! PDU, duplicate announcements and unknown withdrawals refused (RFC 8210 §12 codes 6
//! and 7), Session ID checks, a refresh wait that is cancel-safe.

use std::future::Future;
use std::io;
use std::time::Duration;

use rpki::rtr::pdu;
use rpki::rtr::{Action, State, Timing};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::time::{timeout, timeout_at, Instant};

use super::error::{pdu_name, RtrError};
use crate::rpki::payload::{Limits, Payload, PayloadSet};

/// The longest PDU RFC 8210bis §5 allows a receiver to accept.
const MAX_PDU: u32 = 65_535;

/// A complete data set received (a Cache Response to End of Data).
#[derive(Debug)]
pub(crate) struct Synced {
    /// The cache's data after the response.
    pub payload: PayloadSet,
    /// Session ID and serial from End of Data.
    pub state: State,
    /// The timers of End of Data (v1 and later).
    pub timing: Option<Timing>,
    /// Whether it replaced everything (a Reset Query's answer).
    pub reset: bool,
    /// Whether the data may differ from before: a Reset Query's answer, or a Serial
    /// Query's with at least one payload PDU.
    pub changed: bool,
}

/// The answer to a Serial Query.
#[derive(Debug)]
pub(crate) enum Reply {
    /// Updated data.
    Synced(Synced),
    /// Cache Reset (RFC 8210 §5.9): the cache has no diff from that serial.
    CacheReset,
}

/// One PDU as received.
enum Pdu {
    Notify,
    Response(u16),
    Payload(pdu::Payload),
    End(pdu::EndOfData),
    CacheReset,
    Report(RtrError),
}

/// An RTR session with one cache.
pub(crate) struct Session<S> {
    sock: BufReader<S>,
    version: u8,
    negotiated: bool,
    limits: Limits,
    io_timeout: Duration,
}

/// Runs one I/O step under the session's timeout, with errors named for what was
/// awaited.
async fn step<T>(
    after: Duration,
    waiting_for: &'static str,
    fut: impl Future<Output = io::Result<T>>,
) -> Result<T, RtrError> {
    match timeout(after, fut).await {
        Err(_) => Err(RtrError::Timeout { after, waiting_for }),
        Ok(Err(e)) if e.kind() == io::ErrorKind::UnexpectedEof => {
            Err(RtrError::Closed { waiting_for })
        }
        Ok(Err(e)) => Err(RtrError::Io(e)),
        Ok(Ok(v)) => Ok(v),
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> Session<S> {
    /// A session over `sock` that starts at `version` (at most 2).
    pub fn new(sock: S, version: u8, limits: Limits, io_timeout: Duration) -> Session<S> {
        Session {
            sock: BufReader::new(sock),
            version: version.min(super::MAX_VERSION),
            negotiated: false,
            limits,
            io_timeout,
        }
    }

    /// The version in use (the one asked until the cache has answered).
    pub fn version(&self) -> u8 {
        self.version
    }

    /// Sends a Reset Query and receives the full data set (RFC 8210 §8.1).
    pub async fn reset_query(&mut self) -> Result<Synced, RtrError> {
        let query = pdu::ResetQuery::new(self.version);
        step(self.io_timeout, "sending a Reset Query", async {
            query.write(&mut self.sock).await?;
            self.sock.flush().await
        })
        .await?;
        match self.first_reply("Cache Response to a Reset Query").await? {
            Some(session) => self.receive(PayloadSet::new(), true, session).await,
            None => Err(self
                .refuse(
                    pdu::CacheReset::PDU,
                    0,
                    &[],
                    "Cache Reset in answer to a Reset Query",
                )
                .await),
        }
    }

    /// Sends a Serial Query for `state` (RFC 8210 §8.2) and applies the answer to a
    /// copy of `base`, the data held at that serial.
    pub async fn serial_query(
        &mut self,
        state: State,
        base: &PayloadSet,
    ) -> Result<Reply, RtrError> {
        let query = pdu::SerialQuery::new(self.version, state);
        step(self.io_timeout, "sending a Serial Query", async {
            query.write(&mut self.sock).await?;
            self.sock.flush().await
        })
        .await?;
        match self.first_reply("Cache Response to a Serial Query").await? {
            None => Ok(Reply::CacheReset),
            Some(session) if session != state.session() => {
                // RFC 8210 §5.5: the same Session ID reassures the router that the
                // serials are commensurate; a different one means they are not.
                let detail = format!(
                    "Session ID {session} in answer to a Serial Query for session {}",
                    state.session()
                );
                let _ = self.refuse(pdu::CacheResponse::PDU, 0, &[], &detail).await;
                Err(RtrError::SessionChanged {
                    old: state.session(),
                    new: session,
                })
            }
            Some(session) => Ok(Reply::Synced(
                self.receive(base.clone(), false, session).await?,
            )),
        }
    }

    /// Waits until the cache sends a Serial Notify (`true`) or `until` passes
    /// (`false`). Cancel-safe up to the first byte of a PDU.
    pub async fn wait_notify(&mut self, until: Instant) -> Result<bool, RtrError> {
        match timeout_at(until, self.sock.fill_buf()).await {
            Err(_) => return Ok(false),
            Ok(Err(e)) => return Err(RtrError::Io(e)),
            Ok(Ok([])) => {
                return Err(RtrError::Closed {
                    waiting_for: "a Serial Notify",
                })
            }
            Ok(Ok(_)) => {}
        }
        match self.read_pdu("the rest of a PDU").await? {
            (_, Pdu::Notify) => Ok(true),
            (_, Pdu::Report(e)) => Err(e),
            (header, _) => Err(self
                .refuse(
                    header.pdu(),
                    0,
                    header.as_ref(),
                    "a cache sends nothing unasked but Serial Notify (RFC 8210 §5.2)",
                )
                .await),
        }
    }

    /// Reads up to the Cache Response (`Some(session)`) or a Cache Reset (`None`),
    /// skipping Serial Notifies.
    async fn first_reply(&mut self, waiting_for: &'static str) -> Result<Option<u16>, RtrError> {
        loop {
            match self.read_pdu(waiting_for).await? {
                (_, Pdu::Notify) => continue,
                (_, Pdu::Response(session)) => return Ok(Some(session)),
                (_, Pdu::CacheReset) => return Ok(None),
                (_, Pdu::Report(e)) => return Err(e),
                (header, _) => {
                    let detail = format!("expected a {waiting_for}");
                    return Err(self.refuse(header.pdu(), 0, header.as_ref(), &detail).await);
                }
            }
        }
    }

    /// Receives payload PDUs up to End of Data into `set`.
    async fn receive(
        &mut self,
        mut set: PayloadSet,
        reset: bool,
        session: u16,
    ) -> Result<Synced, RtrError> {
        let mut changed = reset;
        loop {
            let (header, pdu) = self.read_pdu("payload or End of Data").await?;
            match pdu {
                Pdu::Payload(p) => {
                    self.apply(&mut set, &p, reset).await?;
                    changed = true;
                }
                Pdu::End(end) => {
                    if end.session() != session {
                        let detail = format!(
                            "Session ID {} differs from the Cache Response's {session}",
                            end.session()
                        );
                        return Err(self.refuse(header.pdu(), 0, end.as_ref(), &detail).await);
                    }
                    return Ok(Synced {
                        payload: set,
                        state: end.state(),
                        timing: end.timing(),
                        reset,
                        changed,
                    });
                }
                Pdu::Notify => continue,
                Pdu::Report(e) => return Err(e),
                Pdu::Response(_) | Pdu::CacheReset => {
                    return Err(self
                        .refuse(
                            header.pdu(),
                            0,
                            header.as_ref(),
                            "inside a Cache Response (before End of Data)",
                        )
                        .await)
                }
            }
        }
    }

    /// Applies one payload PDU: announcements of what is there and withdrawals of what
    /// is not are refused (RFC 8210 §12 codes 7 and 6), as is going over the limits
    /// (code 1).
    async fn apply(
        &mut self,
        set: &mut PayloadSet,
        p: &pdu::Payload,
        reset: bool,
    ) -> Result<(), RtrError> {
        let (action, item) = match p.to_payload() {
            Ok(x) => x,
            Err(report) => {
                let _ = report.write(&mut self.sock).await;
                let _ = self.sock.flush().await;
                return Err(RtrError::Protocol {
                    pdu: pdu_type(p),
                    version: p.version(),
                    detail: "malformed prefix or key".into(),
                    code: 0,
                });
            }
        };
        match action {
            Action::Announce => {
                if let Payload::Aspa(a) = &item {
                    // draft-ietf-sidrops-8210bis §5.12: the providers in increasing
                    // order, each once; else ASPA Provider List Error (9).
                    let asns: Vec<u32> = a.providers.iter().map(|p| p.into_u32()).collect();
                    if asns.windows(2).any(|w| w[0] >= w[1]) {
                        return Err(self
                            .refuse(
                                pdu_type(p),
                                9,
                                p.as_partial_slice(),
                                "provider ASes not in increasing order or repeated",
                            )
                            .await);
                    }
                }
                if set.contains(&item) {
                    return Err(self
                        .refuse(pdu_type(p), 7, p.as_partial_slice(), "announced twice")
                        .await);
                }
                if let Err(too_much) = set.insert(item, &self.limits) {
                    let report = pdu::Error::new(
                        self.version,
                        1,
                        p.as_partial_slice(),
                        too_much.to_string(),
                    );
                    let _ = report.write(&mut self.sock).await;
                    let _ = self.sock.flush().await;
                    return Err(RtrError::TooMuch(too_much));
                }
            }
            Action::Withdraw => {
                if reset || !set.remove(&item) {
                    let detail = if reset {
                        "a withdrawal in answer to a Reset Query (RFC 8210 §5.5)"
                    } else {
                        "withdrawal of a record not held"
                    };
                    return Err(self
                        .refuse(pdu_type(p), 6, p.as_partial_slice(), detail)
                        .await);
                }
            }
        }
        Ok(())
    }

    /// Reads one PDU, checking its version and length; whatever is wrong is answered
    /// with an Error Report and returned as the error.
    async fn read_pdu(
        &mut self,
        waiting_for: &'static str,
    ) -> Result<(pdu::Header, Pdu), RtrError> {
        let t = self.io_timeout;
        let header = step(t, waiting_for, pdu::Header::read(&mut self.sock)).await?;
        let (kind, version, length) = (header.pdu(), header.version(), header.length());
        if kind == pdu::Error::PDU {
            return Ok((header, Pdu::Report(self.read_report(header).await?)));
        }
        if kind == pdu::SerialNotify::PDU && !self.negotiated {
            // RFC 8210 §5.2: ignored during negotiation, whatever its version.
            if length != pdu::SerialNotify::size() {
                return Err(self.corrupt(header, "length").await);
            }
            step(
                t,
                waiting_for,
                pdu::SerialNotify::read_payload(header, &mut self.sock),
            )
            .await?;
            return Ok((header, Pdu::Notify));
        }
        if !(8..=MAX_PDU).contains(&length) {
            return Err(self.corrupt(header, "length out of 8..65535").await);
        }
        if self.negotiated && version != self.version {
            let detail = format!("version {version} in a session at version {}", self.version);
            return Err(self.refuse(kind, 8, header.as_ref(), &detail).await);
        }
        if !self.negotiated {
            if version > self.version {
                let detail = format!(
                    "version {version} in answer to a version {} query",
                    self.version
                );
                return Err(self.refuse(kind, 8, header.as_ref(), &detail).await);
            }
            // A lower version in the answer: the cache downgraded (RFC 8210 §7).
            self.version = version;
            self.negotiated = true;
        }
        macro_rules! read {
            ($ty:ty) => {{
                let r = timeout(t, <$ty>::read_payload(header, &mut self.sock)).await;
                self.body(r, header).await?
            }};
        }
        let pdu = match kind {
            pdu::SerialNotify::PDU => {
                read!(pdu::SerialNotify);
                Pdu::Notify
            }
            pdu::CacheResponse::PDU => Pdu::Response(read!(pdu::CacheResponse).session()),
            pdu::Ipv4Prefix::PDU => Pdu::Payload(pdu::Payload::V4(read!(pdu::Ipv4Prefix))),
            pdu::Ipv6Prefix::PDU => Pdu::Payload(pdu::Payload::V6(read!(pdu::Ipv6Prefix))),
            pdu::RouterKey::PDU if version >= 1 => {
                Pdu::Payload(pdu::Payload::RouterKey(read!(pdu::RouterKey)))
            }
            pdu::Aspa::PDU if version >= 2 => Pdu::Payload(pdu::Payload::Aspa(read!(pdu::Aspa))),
            pdu::EndOfData::PDU => Pdu::End(read!(pdu::EndOfData)),
            pdu::CacheReset::PDU => {
                read!(pdu::CacheReset);
                Pdu::CacheReset
            }
            pdu::SerialQuery::PDU | pdu::ResetQuery::PDU => {
                return Err(self
                    .refuse(kind, 3, header.as_ref(), "a query sent by the cache")
                    .await)
            }
            _ => {
                let detail = format!("not a PDU of version {version}");
                return Err(self.refuse(kind, 5, header.as_ref(), &detail).await);
            }
        };
        Ok((header, pdu))
    }

    /// Reads a PDU's body; a malformed one is answered with Corrupt Data.
    async fn body<T>(
        &mut self,
        read: Result<io::Result<T>, tokio::time::error::Elapsed>,
        header: pdu::Header,
    ) -> Result<T, RtrError> {
        match read {
            Err(_) => Err(RtrError::Timeout {
                after: self.io_timeout,
                waiting_for: pdu_name(header.pdu()),
            }),
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e))
                if matches!(
                    e.kind(),
                    io::ErrorKind::InvalidData | io::ErrorKind::QuotaExceeded
                ) =>
            {
                Err(self.corrupt(header, &e.to_string()).await)
            }
            Ok(Err(e)) if e.kind() == io::ErrorKind::UnexpectedEof => Err(RtrError::Closed {
                waiting_for: pdu_name(header.pdu()),
            }),
            Ok(Err(e)) => Err(RtrError::Io(e)),
        }
    }

    /// Reads an Error Report's body (RFC 8210 §5.11): never answered (§12: no Error
    /// Report about an Error Report).
    async fn read_report(&mut self, header: pdu::Header) -> Result<RtrError, RtrError> {
        let length = header.length();
        if !(16..=MAX_PDU).contains(&length) {
            return Ok(RtrError::Report {
                code: header.session(),
                version: header.version(),
                erroneous_pdu: None,
                text: format!("(malformed Error Report of length {length})"),
            });
        }
        let mut body = vec![0u8; length as usize - 8];
        step(
            self.io_timeout,
            "an Error Report",
            self.sock.read_exact(&mut body),
        )
        .await?;
        let (erroneous, text) = split_report(&body);
        Ok(RtrError::Report {
            code: header.session(),
            version: header.version(),
            erroneous_pdu: erroneous.and_then(|p| p.get(1).copied()),
            text: text.unwrap_or_else(|| "(malformed Error Report)".into()),
        })
    }

    /// Answers a PDU with Corrupt Data.
    async fn corrupt(&mut self, header: pdu::Header, detail: &str) -> RtrError {
        self.refuse(header.pdu(), 0, header.as_ref(), detail).await
    }

    /// Sends Error Report `code` quoting `quoted` with `detail` as its text, and
    /// returns the error describing it. A failing send is not reported: the session
    /// ends either way.
    async fn refuse(&mut self, pdu: u8, code: u16, quoted: &[u8], detail: &str) -> RtrError {
        let report = pdu::Error::new(self.version, code, quoted, detail);
        let _ = timeout(self.io_timeout, async {
            report.write(&mut self.sock).await?;
            self.sock.flush().await
        })
        .await;
        RtrError::Protocol {
            pdu,
            version: quoted.first().copied().unwrap_or(self.version),
            detail: detail.to_string(),
            code,
        }
    }
}

/// The PDU type of a payload PDU.
fn pdu_type(p: &pdu::Payload) -> u8 {
    match p {
        pdu::Payload::V4(_) => pdu::Ipv4Prefix::PDU,
        pdu::Payload::V6(_) => pdu::Ipv6Prefix::PDU,
        pdu::Payload::RouterKey(_) => pdu::RouterKey::PDU,
        pdu::Payload::Aspa(_) => pdu::Aspa::PDU,
        _ => 0,
    }
}

/// An Error Report's body: the quoted PDU and the text (RFC 8210 §5.11), `None` where
/// the lengths do not add up.
fn split_report(body: &[u8]) -> (Option<&[u8]>, Option<String>) {
    let len = |at: usize| -> Option<usize> {
        let b: [u8; 4] = body.get(at..at + 4)?.try_into().ok()?;
        usize::try_from(u32::from_be_bytes(b)).ok()
    };
    let Some(pdu_len) = len(0) else {
        return (None, None);
    };
    let Some(quoted) = body.get(4..4usize.saturating_add(pdu_len)) else {
        return (None, None);
    };
    let at = 4 + pdu_len;
    let text = len(at).and_then(|n| body.get(at + 4..(at + 4).saturating_add(n)));
    (
        (!quoted.is_empty()).then_some(quoted),
        text.map(|t| String::from_utf8_lossy(t).into_owned()),
    )
}
