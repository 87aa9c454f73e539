//! A router's check on every core, verdicts in packet order, on the workspace's one
//! executor ([`hopsig_primitives::par::Ordered`]): frames are read in batches on a
//! reader thread, which fixes each frame's clock in input order
//! ([`Router::advance`]); each batch is inspected on one of `threads` workers, its
//! signatures verified together as one batch ([`Router::prepare_frame`],
//! [`Router::verified`]); and the calling thread settles each batch's replay windows in
//! order ([`Router::settle`]) and hands each frame with its verdict to the caller, in
//! the order read. The verdicts are those of checking the frames one by one
//! (docs/spec/pla.md, "What a router checks").

use hopsig_koblitz::curve::Curve;
use hopsig_primitives::par::Ordered;

use crate::capture::Frame;
use crate::router::{Inspected, Router, Verdict};

/// Frames per batch: large enough that the channels cost nothing per packet, small
/// enough that two workers stay busy on a short capture.
const BATCH: usize = 64;

/// Where the router's clock comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    /// Each frame's capture time.
    Capture,
    /// A fixed Unix time.
    Fixed(u32),
}

/// A batch's frames with their clocks and inspections, and the error that ended the
/// input after them, if it did.
type Checked<E> = (Vec<(Frame, u32, Inspected)>, Option<E>);

/// Checks every frame of `frames` (each read with its interface's link type) with
/// `router` on `threads` threads and calls `sink` with each frame and its verdict, in input order, on the
/// calling thread (frames are read on another).
///
/// # Errors
/// The first error of `frames` or `sink`; frames after it are not checked.
pub fn check_ordered<C, E, I, S>(
    router: &Router<C>,
    clock: Clock,
    frames: I,
    threads: usize,
    mut sink: S,
) -> Result<(), E>
where
    C: Curve,
    E: Send,
    I: Iterator<Item = Result<Frame, E>> + Send,
    S: FnMut(Frame, Verdict) -> Result<(), E>,
{
    // The clock of each frame is fixed as it is read, in input order; the input ends
    // after its first error, which the sink reports once the frames before it are
    // checked.
    let mut ended = false;
    let timed = frames.map_while(move |frame| {
        if ended {
            return None;
        }
        Some(match frame {
            Ok(f) => {
                let now = match clock {
                    Clock::Capture => f.unix_seconds(),
                    Clock::Fixed(t) => t,
                };
                let t = router.advance(now);
                Ok((f, t))
            }
            Err(e) => {
                ended = true;
                Err(e)
            }
        })
    });
    Ordered::new(threads).batch(BATCH).run(
        timed,
        |batch: Vec<Result<(Frame, u32), E>>| -> Checked<E> {
            let mut frames = Vec::with_capacity(batch.len());
            let mut failed = None;
            for item in batch {
                match item {
                    Ok(f) => frames.push(f),
                    Err(e) => failed = Some(e),
                }
            }
            let prepared = frames
                .iter()
                .map(|(f, t)| router.prepare_frame(f.interface.link_type(), &f.data, *t))
                .collect();
            let inspected = router.verified(prepared);
            let checked = frames
                .into_iter()
                .zip(inspected)
                .map(|((f, t), i)| (f, t, i))
                .collect();
            (checked, failed)
        },
        |(checked, failed)| {
            let verdicts: Vec<Verdict> = router.with_table(|table| {
                checked
                    .iter()
                    .map(|(_, t, i)| router.settle(table, *i, *t))
                    .collect()
            });
            for ((frame, _, _), v) in checked.into_iter().zip(verdicts) {
                sink(frame, v)?;
            }
            failed.map_or(Ok(()), Err)
        },
    )
}

/// Rejections a [`Tally`] lists by frame.
pub const FIRST_REJECTIONS: usize = 10;

/// What a router's check of a capture found: frames by verdict, and the first
/// [`FIRST_REJECTIONS`] rejections with their frame numbers (from 1, as tshark and
/// Wireshark number them).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Tally {
    /// Frames with a verdict.
    pub frames: u64,
    /// Frames by verdict name ([`Verdict::name`]).
    pub by_reason: std::collections::BTreeMap<&'static str, u64>,
    /// The first rejections: frame number and verdict.
    pub first_rejections: Vec<(u64, String)>,
}

impl Tally {
    /// Counts the next frame's verdict.
    pub fn record(&mut self, v: &Verdict) {
        self.frames += 1;
        *self.by_reason.entry(v.name()).or_default() += 1;
        if v.is_rejected() && self.first_rejections.len() < FIRST_REJECTIONS {
            self.first_rejections.push((self.frames, v.to_string()));
        }
    }

    /// Frames with the verdict named `reason`.
    pub fn count(&self, reason: &str) -> u64 {
        self.by_reason.get(reason).copied().unwrap_or(0)
    }

    /// Packets accepted.
    pub fn accepted(&self) -> u64 {
        self.count("accepted")
    }

    /// Frames not checked: unsigned, not IPv6, jumbograms.
    pub fn not_checked(&self) -> u64 {
        self.count("unsigned") + self.count("not_ipv6") + self.count("jumbogram")
    }

    /// Packets rejected, for any reason (malformed ones included).
    pub fn rejected(&self) -> u64 {
        self.frames - self.accepted() - self.not_checked()
    }

    /// Packets with a verdict beyond "not checked".
    pub fn checked(&self) -> u64 {
        self.accepted() + self.rejected()
    }
}

#[cfg(test)]
mod tally_tests {
    use super::*;

    /// Accepted, rejected and not checked add up to the frames; rejections are listed
    /// by frame number (from 1), the first FIRST_REJECTIONS only; malformed packets
    /// count as checked and rejected.
    #[test]
    fn a_tally_sorts_verdicts_and_lists_the_first_rejections() {
        let mut t = Tally::default();
        let verdicts = [
            Verdict::Accepted,
            Verdict::Unsigned,
            Verdict::NotIpv6,
            Verdict::Jumbogram,
            Verdict::MalformedHeader("signature"),
            Verdict::Replay,
        ];
        for v in &verdicts {
            t.record(v);
        }
        for _ in 0..20 {
            t.record(&Verdict::BadSignature);
        }
        assert_eq!(t.frames, 26);
        assert_eq!(
            (t.accepted(), t.not_checked(), t.rejected(), t.checked()),
            (1, 3, 22, 23)
        );
        assert_eq!(t.count("bad_signature"), 20);
        assert_eq!(t.count("stale"), 0);
        assert_eq!(t.first_rejections.len(), FIRST_REJECTIONS);
        assert_eq!(t.first_rejections[0].0, 5);
        assert_eq!(t.first_rejections[1], (6, Verdict::Replay.to_string()));
    }
}
