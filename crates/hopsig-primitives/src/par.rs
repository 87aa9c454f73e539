//! One executor for hopsig's parallel work: signing and validating MRT traces, checking
//! PLA captures, and the BGPsec speaker's signing and validation.
//!
//! Before this module each of those had its own threads and channels (issue 23 §2),
//! each with its own answer to the same four questions. Here they are answered once:
//!
//! * **Order.** Results come back in input order, so a report, a verdict stream or an
//!   output file is the same on 1 thread and on 16.
//! * **Bounded memory.** Work is handed out in batches, and at most a fixed number of
//!   batches are read ahead of the one being delivered: a slow consumer stops the reader
//!   (back-pressure) instead of filling a queue.
//! * **A thread count.** Every entry point takes it; 0 is taken as 1.
//! * **Panics.** A job that panics never leaves the caller waiting for an answer that
//!   will not come: [`Ordered`] stops and re-raises the panic on the calling thread,
//!   [`Pool`] answers the job with [`Panicked`].
//!
//! Two shapes of work use it:
//!
//! * [`Ordered`]: a stream (or slice) of items mapped on `threads` workers in batches,
//!   delivered batch by batch, in order, on the calling thread ([`Ordered::run`],
//!   [`Ordered::map`]). The stream is read on its own thread, so a per-item step that
//!   must happen in input order (a PLA router's clock) goes in the iterator; a step
//!   that must happen in delivery order (its replay window) goes in the sink.
//! * [`Pool`]: long-lived workers fed by a producer that must never block — the
//!   speaker's RIB task, which runs on an async runtime. Jobs are submitted one by one
//!   with a [`Priority`]; [`Pool::try_submit`] refuses a job beyond the pool's capacity
//!   and hands it back ([`Full`]), so in-flight work stays bounded and the producer
//!   decides what to do with the rest (do it itself, keep it and submit again when an
//!   answer arrives). Each worker takes a share of the queue (at most `max_batch`
//!   jobs), runs them, and hands every answer to a completion callback together — the
//!   speaker sends them as events to its RIB task, which then finds them waiting
//!   rather than being woken once per answer.
//!
//! The speaker's pool (today `hopsig-cli/src/speaker/rib.rs`, `Pool`) maps onto [`Pool`]
//! one to one: a sign job is submitted with [`Priority::First`], a validation job with
//! [`Priority::Then`]; its `MAX_BATCH` is `max_batch`; `complete` sends the answer on the
//! RIB task's unbounded event channel and returns [`ControlFlow::Break`] once that channel
//! is closed; a job whose work panicked comes back as [`Panicked`], which the RIB turns
//! into a failed answer (the route 'Not Valid', the announcement not sent) so that its
//! count of jobs out stays right. Where [`Pool::try_submit`] says [`Full`], the RIB signs
//! on its own task (it does so already while it keeps up) and keeps a validation in its
//! own queue until the next answer event frees a place.
//!
//! Both are built on `std::thread` and `std::sync::mpsc` (whose channels are
//! crossbeam's since Rust 1.67). rayon's parallel iterators do not fit: `par_bridge`
//! loses the order of a stream, and a collected `par_iter` holds a whole capture or
//! trace in memory.

use std::any::Any;
use std::collections::{BTreeMap, VecDeque};
use std::ops::ControlFlow;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{mpsc, Arc, Condvar, Mutex, MutexGuard, PoisonError};

/// Items per batch unless told otherwise: large enough that the channels cost nothing
/// per item, small enough that every worker stays busy at the end of a short stream.
pub const DEFAULT_BATCH: usize = 64;

/// Batches in flight per worker thread: read ahead, being worked on, or waiting to be
/// delivered in order. Two would do with jobs of equal cost; four absorbs the
/// variation of real work (a long AS path, a signed packet among unsigned ones).
const WINDOW_PER_THREAD: usize = 4;

/// The threads to run on when none are asked for: every core this process may use
/// (1 if that cannot be told).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// An ordered, batched map on a fixed number of threads.
///
/// ```
/// use hopsig_primitives::par::Ordered;
/// let squares = Ordered::new(4).map(&[1u64, 2, 3, 4, 5], |x| x * x);
/// assert_eq!(squares, [1, 4, 9, 16, 25]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ordered {
    threads: usize,
    batch: usize,
}

impl Ordered {
    /// An executor of `threads` worker threads (0 is taken as 1) and batches of
    /// [`DEFAULT_BATCH`] items.
    pub fn new(threads: usize) -> Ordered {
        Ordered {
            threads: threads.max(1),
            batch: DEFAULT_BATCH,
        }
    }

    /// The same with batches of `batch` items (0 is taken as 1).
    #[must_use]
    pub fn batch(self, batch: usize) -> Ordered {
        Ordered {
            batch: batch.max(1),
            ..self
        }
    }

    /// Its number of worker threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Most batches in flight at once (read, in work, or waiting to be delivered).
    pub fn window(&self) -> usize {
        self.threads * WINDOW_PER_THREAD
    }

    /// `f` of each item of `items`, in order. With one thread, or one batch's worth
    /// of items, it runs on the calling thread; otherwise batches of about an eighth
    /// of a thread's share go to the workers, so uneven items (an RSA key generation)
    /// even out.
    ///
    /// # Panics
    /// If `f` panics, once the other workers have stopped, with its payload.
    pub fn map<T: Sync, U: Send>(&self, items: &[T], f: impl Fn(&T) -> U + Sync) -> Vec<U> {
        if self.threads == 1 || items.len() <= 1 {
            return items.iter().map(f).collect();
        }
        let batch = items.len().div_ceil(self.threads * 8);
        let mut out = Vec::with_capacity(items.len());
        let run: Result<(), std::convert::Infallible> = Ordered {
            threads: self.threads.min(items.len()),
            batch: 1,
        }
        .run(
            items.chunks(batch),
            |chunks: Vec<&[T]>| -> Vec<U> { chunks.into_iter().flatten().map(&f).collect() },
            |mapped| {
                out.extend(mapped);
                Ok(())
            },
        );
        match run {
            Ok(()) => out,
            Err(never) => match never {},
        }
    }

    /// Reads `items` on a thread of its own, in batches; runs `work` on each batch on
    /// one of the workers; and calls `sink` with each batch's result on the calling
    /// thread, in input order. At most [`Ordered::window`] batches are in flight: the
    /// reader waits for the sink.
    ///
    /// A step that must see the items in input order belongs in the iterator (it runs
    /// on the reader), one that must see results in order in `sink`. To stop at a bad
    /// input item, end the iterator there (e.g. with `map_while`, or by passing the
    /// error through `work` to `sink`).
    ///
    /// # Errors
    /// The first error of `sink`: nothing more is read, worked on or delivered.
    ///
    /// # Panics
    /// If `work` or the iterator panics, once every thread has stopped, with its
    /// payload.
    pub fn run<T, R, E, I, W, S>(&self, items: I, work: W, mut sink: S) -> Result<(), E>
    where
        T: Send,
        R: Send,
        I: IntoIterator<Item = T>,
        I::IntoIter: Send,
        W: Fn(Vec<T>) -> R + Sync,
        S: FnMut(R) -> Result<(), E>,
    {
        let items = items.into_iter();
        let (batch_len, threads) = (self.batch, self.threads);
        std::thread::scope(|s| {
            // A token per batch in flight: the reader sends one before each batch and
            // blocks once `window` are out; the collector takes one back per batch
            // delivered. Dropping the receiver (an error, a panic) stops the reader.
            let (permit_tx, permit_rx) = mpsc::sync_channel::<()>(self.window());
            let (work_tx, work_rx) = mpsc::sync_channel::<(u64, Vec<T>)>(threads);
            let work_rx = Arc::new(Mutex::new(work_rx));
            // Unbounded, but never holds more than `window` batches (the permits).
            let (done_tx, done_rx) = mpsc::channel::<(u64, Result<R, Payload>)>();
            let reader = s.spawn(move || {
                let mut n = 0u64;
                let mut batch = Vec::with_capacity(batch_len);
                for item in items {
                    batch.push(item);
                    if batch.len() == batch_len {
                        if permit_tx.send(()).is_err() {
                            return;
                        }
                        let full = std::mem::replace(&mut batch, Vec::with_capacity(batch_len));
                        if work_tx.send((n, full)).is_err() {
                            return;
                        }
                        n += 1;
                    }
                }
                if !batch.is_empty() && permit_tx.send(()).is_ok() {
                    let _ = work_tx.send((n, batch));
                }
            });
            for _ in 0..threads {
                let (done_tx, work_rx, work) = (done_tx.clone(), Arc::clone(&work_rx), &work);
                s.spawn(move || loop {
                    // Poisoning cannot happen (nothing panics while holding the lock).
                    let next = work_rx
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .recv();
                    let Ok((n, batch)) = next else { return };
                    let result = catch_unwind(AssertUnwindSafe(|| work(batch)));
                    let stop = result.is_err();
                    if done_tx.send((n, result)).is_err() || stop {
                        return;
                    }
                });
            }
            drop((done_tx, work_rx));
            let delivered = (|| -> Result<(), Stop<E>> {
                let mut waiting = BTreeMap::new();
                let mut next = 0u64;
                for (n, result) in &done_rx {
                    waiting.insert(n, result?);
                    while let Some(r) = waiting.remove(&next) {
                        next += 1;
                        sink(r).map_err(Stop::Sink)?;
                        // The reader sent this batch's permit before the batch.
                        let _ = permit_rx.try_recv();
                    }
                }
                Ok(())
            })();
            // Stops the reader (its next permit or batch fails) and then the workers
            // (the batch channel closes, their answers fail).
            drop((permit_rx, done_rx));
            let read = reader.join();
            match (delivered, read) {
                (Err(Stop::Panic(p)), _) | (_, Err(p)) => resume_unwind(p),
                (Err(Stop::Sink(e)), Ok(())) => Err(e),
                (Ok(()), Ok(())) => Ok(()),
            }
        })
    }
}

/// A panic's payload, carried to the thread that re-raises it.
type Payload = Box<dyn Any + Send + 'static>;

/// Why delivery stopped early.
enum Stop<E> {
    Sink(E),
    Panic(Payload),
}

impl<E> From<Payload> for Stop<E> {
    fn from(p: Payload) -> Self {
        Stop::Panic(p)
    }
}

/// Which queue a [`Pool`] job waits in: every `First` job is taken before any `Then`
/// job (the speaker signs before it validates: a forwarded route is what lazy
/// verification is for).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Priority {
    /// Taken first.
    First,
    /// Taken when no `First` job waits.
    Then,
}

/// A job refused by [`Pool::try_submit`]: the pool already holds its capacity of jobs.
/// The job is handed back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the pool is full")]
pub struct Full<J>(pub J);

/// The answer to a job whose work panicked: its message, if the payload was a string.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the job panicked: {0}")]
pub struct Panicked(pub String);

impl Panicked {
    fn of(payload: &Payload) -> Panicked {
        let text = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(no message)".into());
        Panicked(text)
    }
}

/// The jobs of a [`Pool`] waiting for a worker, and how many it holds in all.
struct Queues<J> {
    first: VecDeque<J>,
    then: VecDeque<J>,
    /// Jobs submitted and not yet answered: waiting or being worked on.
    held: usize,
    closed: bool,
}

struct Shared<J> {
    queues: Mutex<Queues<J>>,
    ready: Condvar,
    capacity: usize,
}

impl<J> Shared<J> {
    fn lock(&self) -> MutexGuard<'_, Queues<J>> {
        // No job runs under the lock, so a poisoned lock still guards consistent queues.
        self.queues.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Long-lived worker threads fed one job at a time by a producer that must not block
/// (an async task), answering through a callback; bounded by a capacity.
///
/// `work` runs each job; `complete` receives each job back with its answer, or
/// [`Panicked`] if `work` panicked on it, on the worker thread — the speaker sends it
/// to its RIB task as an event. A worker takes its share of the waiting jobs (split
/// among the workers, at most `max_batch`) and completes them together after running
/// them all; a lone job is taken alone, so it waits for no other. `complete`
/// returning [`ControlFlow::Break`] (the receiver is gone) stops that worker.
///
/// Dropping the pool stops each worker once it has completed the jobs in its hands;
/// jobs still waiting are dropped unanswered.
///
/// ```
/// use std::ops::ControlFlow;
/// use std::sync::mpsc;
/// use hopsig_primitives::par::{Pool, Priority};
///
/// let (tx, rx) = mpsc::channel();
/// let pool = Pool::new(2, 8, 4, |n: &u32| n * 2, move |n, doubled| {
///     match tx.send((n, doubled)) {
///         Ok(()) => ControlFlow::Continue(()),
///         Err(_) => ControlFlow::Break(()),
///     }
/// });
/// pool.try_submit(Priority::Then, 21).unwrap();
/// assert_eq!(rx.recv().unwrap(), (21, Ok(42)));
/// ```
pub struct Pool<J> {
    shared: Arc<Shared<J>>,
}

impl<J> std::fmt::Debug for Pool<J> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("capacity", &self.shared.capacity)
            .field("held", &self.shared.lock().held)
            .finish_non_exhaustive()
    }
}

impl<J: Send + 'static> Pool<J> {
    /// Starts `threads` workers (0 is taken as 1) that hold at most `capacity` jobs
    /// (0 is taken as 1) and take at most `max_batch` at once (0 is taken as 1).
    pub fn new<R, W, C>(
        threads: usize,
        capacity: usize,
        max_batch: usize,
        work: W,
        complete: C,
    ) -> Pool<J>
    where
        W: Fn(&J) -> R + Send + Sync + 'static,
        C: Fn(J, Result<R, Panicked>) -> ControlFlow<()> + Send + Sync + 'static,
    {
        Pool::start(
            threads,
            capacity,
            max_batch,
            complete,
            move |jobs: &[J]| {
                jobs.iter()
                    .map(|job| {
                        catch_unwind(AssertUnwindSafe(|| work(job))).map_err(|p| Panicked::of(&p))
                    })
                    .collect()
            },
        )
    }

    /// As [`Pool::new`], `work` running all the jobs a worker takes at once — jobs of
    /// one priority, at most `max_batch` — and giving one answer per job, in order:
    /// for work that is cheaper together (BGPsec validation verifying the signatures
    /// of several UPDATEs in one batch). Should `work` panic on a batch, or not give
    /// one answer per job, each of its jobs is run again alone, so that only a job
    /// that panics by itself is answered with [`Panicked`]; the work must therefore
    /// be safe to repeat.
    pub fn batched<R, W, C>(
        threads: usize,
        capacity: usize,
        max_batch: usize,
        work: W,
        complete: C,
    ) -> Pool<J>
    where
        W: Fn(&[J]) -> Vec<R> + Send + Sync + 'static,
        C: Fn(J, Result<R, Panicked>) -> ControlFlow<()> + Send + Sync + 'static,
    {
        Pool::start(
            threads,
            capacity,
            max_batch,
            complete,
            move |jobs: &[J]| match catch_unwind(AssertUnwindSafe(|| work(jobs))) {
                Ok(answers) if answers.len() == jobs.len() => answers.into_iter().map(Ok).collect(),
                _ => jobs
                    .iter()
                    .map(|job| {
                        catch_unwind(AssertUnwindSafe(|| work(std::slice::from_ref(job))))
                            .map_err(|p| Panicked::of(&p))
                            .and_then(|mut a| match (a.pop(), a.is_empty()) {
                                (Some(answer), true) => Ok(answer),
                                _ => {
                                    Err(Panicked("the work gave no one answer for the job".into()))
                                }
                            })
                    })
                    .collect(),
            },
        )
    }

    /// The workers, `run` answering the jobs each takes (one answer per job, in order).
    fn start<R, C>(
        threads: usize,
        capacity: usize,
        max_batch: usize,
        complete: C,
        run: impl Fn(&[J]) -> Vec<Result<R, Panicked>> + Send + Sync + 'static,
    ) -> Pool<J>
    where
        C: Fn(J, Result<R, Panicked>) -> ControlFlow<()> + Send + Sync + 'static,
    {
        let shared = Arc::new(Shared {
            queues: Mutex::new(Queues {
                first: VecDeque::new(),
                then: VecDeque::new(),
                held: 0,
                closed: false,
            }),
            ready: Condvar::new(),
            capacity: capacity.max(1),
        });
        let threads = threads.max(1);
        let max_batch = max_batch.max(1);
        let (run, complete) = (Arc::new(run), Arc::new(complete));
        for _ in 0..threads {
            let (shared, run, complete) =
                (Arc::clone(&shared), Arc::clone(&run), Arc::clone(&complete));
            std::thread::spawn(move || {
                while let Some(jobs) = take(&shared, threads, max_batch) {
                    let answers: Vec<_> = run(&jobs);
                    let answers: Vec<_> = jobs.into_iter().zip(answers).collect();
                    let answered = answers.len();
                    let mut go_on = true;
                    for (job, answer) in answers {
                        // A panicking callback stops this worker, not the pool.
                        let flow = catch_unwind(AssertUnwindSafe(|| complete(job, answer)));
                        if !matches!(flow, Ok(ControlFlow::Continue(()))) {
                            go_on = false;
                            break;
                        }
                    }
                    shared.lock().held -= answered;
                    if !go_on {
                        return;
                    }
                }
            });
        }
        Pool { shared }
    }

    /// Queues `job` unless the pool already holds its capacity of jobs.
    ///
    /// # Errors
    /// [`Full`] with the job, when the pool holds `capacity` jobs: keep it and submit
    /// it again once an answer has come, or do it another way.
    pub fn try_submit(&self, priority: Priority, job: J) -> Result<(), Full<J>> {
        let mut q = self.shared.lock();
        if q.held >= self.shared.capacity {
            return Err(Full(job));
        }
        q.held += 1;
        match priority {
            Priority::First => q.first.push_back(job),
            Priority::Then => q.then.push_back(job),
        }
        drop(q);
        self.shared.ready.notify_one();
        Ok(())
    }

    /// Jobs submitted and not yet answered (waiting or being worked on).
    pub fn held(&self) -> usize {
        self.shared.lock().held
    }

    /// The most jobs it holds.
    pub fn capacity(&self) -> usize {
        self.shared.capacity
    }
}

/// The next jobs for a worker: its share of the first non-empty queue, at most
/// `max_batch`; `None` once the pool is closed.
fn take<J>(shared: &Shared<J>, threads: usize, max_batch: usize) -> Option<Vec<J>> {
    let mut q = shared.lock();
    loop {
        if q.closed {
            return None;
        }
        let queue = if !q.first.is_empty() {
            &mut q.first
        } else if !q.then.is_empty() {
            &mut q.then
        } else {
            q = shared.ready.wait(q).unwrap_or_else(PoisonError::into_inner);
            continue;
        };
        let n = queue.len().div_ceil(threads).min(max_batch);
        return Some(queue.drain(..n).collect());
    }
}

impl<J> Drop for Pool<J> {
    /// Stops the workers once each has completed the jobs in its hands.
    fn drop(&mut self) {
        self.shared.lock().closed = true;
        self.shared.ready.notify_all();
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[test]
    fn map_keeps_the_order() {
        let items: Vec<u32> = (0..1000).collect();
        for threads in [0, 1, 2, 3, 7, 2000] {
            let out = Ordered::new(threads).map(&items, |x| x * 2);
            assert_eq!(out, items.iter().map(|x| x * 2).collect::<Vec<_>>());
        }
        assert!(Ordered::new(4).map(&[] as &[u32], |x| *x).is_empty());
    }

    #[test]
    fn run_delivers_every_batch_in_order() {
        for (threads, batch) in [(1, 1), (2, 3), (4, 64), (8, 7)] {
            let mut seen = Vec::new();
            let r: Result<(), ()> = Ordered::new(threads).batch(batch).run(
                0..1000u32,
                |b: Vec<u32>| {
                    // Later batches finish first: delivery must still be in order.
                    if b.first().is_some_and(|x| x % 3 == 0) {
                        std::thread::sleep(Duration::from_micros(200));
                    }
                    b.into_iter().map(|x| x + 1).collect::<Vec<_>>()
                },
                |b| {
                    assert!(b.len() <= batch);
                    seen.extend(b);
                    Ok(())
                },
            );
            assert_eq!(r, Ok(()));
            assert_eq!(seen, (1..=1000).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_sink_error_stops_reading() {
        let read = AtomicUsize::new(0);
        let items = (0..u32::MAX).inspect(|_| {
            read.fetch_add(1, Ordering::Relaxed);
        });
        let mut delivered = 0;
        let r = Ordered::new(2).batch(10).run(
            items,
            |b: Vec<u32>| b,
            |b| {
                delivered += 1;
                if b[0] == 50 {
                    Err("stop")
                } else {
                    Ok(())
                }
            },
        );
        assert_eq!(r, Err("stop"));
        assert_eq!(delivered, 6);
        // Bounded read-ahead: the window, plus one batch being filled and one in
        // each channel slot.
        let w = Ordered::new(2).window();
        assert!(
            read.load(Ordering::Relaxed) <= (60 + 10 * (w + 2)),
            "read ahead"
        );
    }

    #[test]
    fn read_ahead_is_bounded_by_the_window() {
        // A sink that never lets go until the reader has had every chance to run.
        let read = AtomicUsize::new(0);
        let e = Ordered::new(3).batch(5);
        let r = e.run(
            (0..10_000u32).inspect(|_| {
                read.fetch_add(1, Ordering::Relaxed);
            }),
            |b: Vec<u32>| b.len(),
            |_| {
                std::thread::sleep(Duration::from_millis(20));
                Err(())
            },
        );
        assert_eq!(r, Err(()));
        assert!(read.load(Ordering::Relaxed) <= 5 * (e.window() + 2));
    }

    #[test]
    fn a_panicking_job_is_raised_on_the_caller() {
        for threads in [1, 4] {
            let r = catch_unwind(|| {
                Ordered::new(threads).batch(4).run(
                    0..1_000_000u32,
                    |b: Vec<u32>| {
                        assert!(!b.contains(&77), "item 77");
                        b
                    },
                    |_| Ok::<(), ()>(()),
                )
            });
            let payload = r.err().map(|p| Panicked::of(&p));
            assert_eq!(payload, Some(Panicked("item 77".into())));
        }
    }

    #[test]
    fn a_panicking_reader_is_raised_on_the_caller() {
        let r = catch_unwind(|| {
            Ordered::new(2).batch(4).run(
                (0..100u32).inspect(|&x| assert!(x != 30, "reader")),
                |b: Vec<u32>| b,
                |_| Ok::<(), ()>(()),
            )
        });
        assert!(r.is_err());
    }

    #[test]
    fn pool_answers_every_job_and_a_panic_as_panicked() {
        let (tx, rx) = mpsc::channel();
        let pool = Pool::new(
            3,
            100,
            4,
            |n: &u32| {
                assert!(*n != 13, "unlucky");
                n * 10
            },
            move |n, r| match tx.send((n, r)) {
                Ok(()) => ControlFlow::Continue(()),
                Err(_) => ControlFlow::Break(()),
            },
        );
        for n in 0..50 {
            assert_eq!(pool.try_submit(Priority::Then, n), Ok(()));
        }
        let mut answers: Vec<_> = (0..50).map(|_| rx.recv().unwrap()).collect();
        answers.sort_by_key(|(n, _)| *n);
        for (n, r) in answers {
            if n == 13 {
                assert_eq!(r, Err(Panicked("unlucky".into())));
            } else {
                assert_eq!(r, Ok(n * 10));
            }
        }
        // Answered: nothing held.
        for _ in 0..100 {
            if pool.held() == 0 {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(pool.held(), 0);
    }

    /// A batched pool hands a worker's jobs to one call; a job that panics is
    /// answered alone with Panicked, and the jobs taken with it still get answers.
    #[test]
    fn batched_pool_runs_jobs_together_and_isolates_a_panic() {
        let (gate_tx, gate_rx) = mpsc::channel::<()>();
        let gate = Mutex::new(gate_rx);
        let (started_tx, started_rx) = mpsc::channel::<()>();
        let started = Mutex::new(started_tx);
        let sizes = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&sizes);
        let (tx, rx) = mpsc::channel();
        let pool = Pool::batched(
            1,
            100,
            8,
            move |jobs: &[u32]| {
                seen.lock().unwrap().push(jobs.len());
                if jobs == [0] {
                    // Holds the only worker until the test has queued the rest.
                    let _ = started.lock().unwrap().send(());
                    let _ = gate.lock().unwrap().recv();
                }
                assert!(!jobs.contains(&13), "unlucky");
                jobs.iter().map(|n| n * 10).collect()
            },
            move |n, r| match tx.send((n, r)) {
                Ok(()) => ControlFlow::Continue(()),
                Err(_) => ControlFlow::Break(()),
            },
        );
        pool.try_submit(Priority::Then, 0).unwrap();
        started_rx.recv().unwrap();
        for n in 10..16 {
            pool.try_submit(Priority::Then, n).unwrap();
        }
        gate_tx.send(()).unwrap();
        let answers: Vec<_> = (0..7).map(|_| rx.recv().unwrap()).collect();
        // In order, the panicking job alone answered Panicked.
        let mut expected = vec![(0, Ok(0))];
        expected.extend((10..16).map(|n| {
            (
                n,
                if n == 13 {
                    Err(Panicked("unlucky".into()))
                } else {
                    Ok(n * 10)
                },
            )
        }));
        assert_eq!(answers, expected);
        // The six queued jobs were taken in one call, which panicked; then each alone.
        assert_eq!(*sizes.lock().unwrap(), [1, 6, 1, 1, 1, 1, 1, 1]);
    }

    #[test]
    fn pool_refuses_beyond_its_capacity_and_takes_first_jobs_first() {
        let (gate_tx, gate_rx) = mpsc::channel::<()>();
        let gate = Mutex::new(gate_rx);
        let (started_tx, started_rx) = mpsc::channel::<()>();
        let started = Mutex::new(started_tx);
        let (tx, rx) = mpsc::channel();
        let pool = Pool::new(
            1,
            3,
            1,
            move |n: &u32| {
                if *n == 0 {
                    // Holds the only worker until the test has queued the rest.
                    let _ = started.lock().unwrap().send(());
                    let _ = gate.lock().unwrap().recv();
                }
                *n
            },
            move |n, _| match tx.send(n) {
                Ok(()) => ControlFlow::Continue(()),
                Err(_) => ControlFlow::Break(()),
            },
        );
        pool.try_submit(Priority::Then, 0).unwrap();
        started_rx.recv().unwrap();
        pool.try_submit(Priority::Then, 1).unwrap();
        pool.try_submit(Priority::First, 2).unwrap();
        assert_eq!(pool.try_submit(Priority::First, 3), Err(Full(3)));
        assert_eq!(pool.held(), 3);
        gate_tx.send(()).unwrap();
        let order: Vec<u32> = (0..3).map(|_| rx.recv().unwrap()).collect();
        assert_eq!(order, [0, 2, 1]);
    }
}
