//! A router's check on every core, verdicts in packet order: frames are read in
//! batches, [`Router::inspect_frame`] runs on `threads` workers, and one collector
//! (the calling thread) settles each batch's replay windows in order
//! (`Router::settle`) and hands each frame with its verdict to the caller, in the
//! order read. The verdicts are those of
//! checking the frames one by one (docs/spec/pla.md, "What a router checks").

use std::collections::BTreeMap;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};

use hopsig_koblitz::curve::Curve;

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

type Batch = Vec<(Frame, u32)>;
type Checked = Vec<(Frame, u32, Inspected)>;

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
    let threads = threads.max(1);
    let (work_tx, work_rx) = mpsc::sync_channel::<(u64, Batch)>(threads * 2);
    // Shared by the workers only: when the last one stops, the reader's sends fail.
    let work_rx = Arc::new(Mutex::new(work_rx));
    let (done_tx, done_rx) = mpsc::channel::<(u64, Checked)>();
    std::thread::scope(|s| {
        for _ in 0..threads {
            let done_tx = done_tx.clone();
            let work_rx = Arc::clone(&work_rx);
            s.spawn(move || loop {
                let next = work_rx
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .recv();
                let Ok((n, batch)) = next else { return };
                let checked = batch
                    .into_iter()
                    .map(|(f, t)| {
                        let i = router.inspect_frame(f.interface.link_type(), &f.data, t);
                        (f, t, i)
                    })
                    .collect();
                if done_tx.send((n, checked)).is_err() {
                    return;
                }
            });
        }
        drop((done_tx, work_rx));
        let reader = s.spawn(move || -> Result<(), E> {
            let mut batch = Vec::with_capacity(BATCH);
            let mut n = 0u64;
            for frame in frames {
                let frame = match frame {
                    Ok(f) => f,
                    Err(e) => {
                        // The frames read before the error are still checked.
                        if !batch.is_empty() {
                            let _ = work_tx.send((n, batch));
                        }
                        return Err(e);
                    }
                };
                let now = match clock {
                    Clock::Capture => frame.unix_seconds(),
                    Clock::Fixed(t) => t,
                };
                // The clock of each frame is fixed here, in input order.
                let t = router.advance(now);
                batch.push((frame, t));
                if batch.len() == BATCH {
                    if work_tx.send((n, std::mem::take(&mut batch))).is_err() {
                        // The collector stopped on an error and reports it.
                        return Ok(());
                    }
                    n += 1;
                }
            }
            if !batch.is_empty() {
                let _ = work_tx.send((n, batch));
            }
            Ok(())
        });
        let collected = (|| -> Result<(), E> {
            let mut waiting = BTreeMap::new();
            let mut next = 0u64;
            for (n, checked) in &done_rx {
                waiting.insert(n, checked);
                while let Some(checked) = waiting.remove(&next) {
                    next += 1;
                    let verdicts: Vec<Verdict> = router.with_table(|table| {
                        checked
                            .iter()
                            .map(|(_, t, i)| router.settle(table, *i, *t))
                            .collect()
                    });
                    for ((frame, _, _), v) in checked.into_iter().zip(verdicts) {
                        sink(frame, v)?;
                    }
                }
            }
            Ok(())
        })();
        // Stops the workers (their sends fail), then the reader (its sends fail).
        drop(done_rx);
        let read = reader
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        // The collector's error comes first in frame order: it stopped at a frame
        // read before whatever the reader failed on.
        collected.and(read)
    })
}
